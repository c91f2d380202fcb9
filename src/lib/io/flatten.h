/* SPDX-License-Identifier: MIT */
/*
 * flatten — the records as the tab-separated lines that gp-verify's awk
 * integrity scripts read: the rows and columns of share/awk/flatten.jq,
 * byte for byte what `jq -r -f flatten.jq` (jq 1.6) prints, without jq's
 * cost (jq took 60 % of publish on a million requests).
 *
 * Records are parsed by jansson, whole, never by io/flat (the analyzer's
 * fast reader), so the re-derivation reads the bytes through a parser the
 * analysis did not use.  Numbers print as jq prints them: the shortest
 * digits that read back as the same double, exponent form when the decimal
 * point is 4 or more places left of the digits or 16 or more right of them
 * ("1e-05", "1e+16"), -0 as "-0".  Strings are escaped as jq's @tsv does
 * (\t \n \r \\), booleans print as true/false, null and absent as nothing.
 *
 * What jq alone would print alike is not guessed: a line that is not one
 * JSON object, or an object or array where a column is, makes the whole file
 * GP_FLATTEN_JQ, and the caller runs jq (t-flatten diffs the rows with
 * jq's, t5070 the publish output).
 */
#ifndef GP_FLATTEN_H
#define GP_FLATTEN_H

#include <stdio.h>

#include <jansson.h>

enum { GP_FLATTEN_OK = 0, GP_FLATTEN_JQ = 1, GP_FLATTEN_ERR = -1 };

/* The row of one record (none for a type the scripts do not read) on out:
 * GP_FLATTEN_OK, or GP_FLATTEN_JQ when only jq would print it alike (out
 * then holds a partial row: let jq flatten the whole file). */
int gp_flatten_record(const json_t *o, FILE *out);

/* Flatten the NDJSON records of in into out.  GP_FLATTEN_OK; GP_FLATTEN_JQ
 * (out holds a partial file: truncate it); GP_FLATTEN_ERR on a read or write
 * error (errno set). */
int gp_flatten(FILE *in, FILE *out);

/*
 * What the scripts' first pass reads of the flattened file flat, on out:
 * every row but the request rows (Q), and of those only the first of each
 * run id with its arm and run columns set (the scripts' first pass maps a
 * run id to its first header's or request's arm, rate and rep), and the
 * file's first row (so the scripts count their passes by FNR == 1).  The
 * scripts then read it and the whole file (share/awk/common.awk) instead of
 * the whole file twice: a pass over a million request rows saved in each.
 * 0, or -1 on a read or write error.
 */
int gp_flatten_pass1(FILE *flat, FILE *out);

/* d as jq 1.6 prints a number, in buf (at least 32 bytes). */
void gp_flatten_num(char *buf, size_t n, double d);

#endif
