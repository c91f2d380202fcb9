/* SPDX-License-Identifier: MIT */
/*
 * banned — functions we do not use (after git's banned.h): unbounded copies
 * and unchecked number parsing.  Include last in every .c that wants the
 * guard; a use then fails to compile.
 */
#ifndef GP_BANNED_H
#define GP_BANNED_H

#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef gets
#define gets(x) BANNED(gets)
#undef atoi
#define atoi(x) BANNED(atoi)
#undef atol
#define atol(x) BANNED(atol)
#undef atof
#define atof(x) BANNED(atof)

#endif
