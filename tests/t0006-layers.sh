#!/bin/sh
# make check-layers (tests/check-layers.sh): src/lib's layers are enforced.
# The real tree passes; copies of it with one offence each injected fail,
# naming the file and line: an upward include, a bare include without its
# folder, a cycle inside a layer, a folder README's list does not name, a
# module below cli that dies or exits.
. "$(dirname "$0")/lib.sh"

CL=$GP_TOP/tests/check-layers.sh
fresh() { rm -rf lib && cp -r "$GP_TOP/src/lib" lib; }

test_expect_success 'the tree as it is: no upward include, no cycle' "
	sh '$CL' '$GP_TOP/src/lib' >out &&
	grep -q 'no upward include, no cycle' out
"
test_expect_success 'make check-layers runs it' "
	make -s -C '$GP_TOP' check-layers >out && grep -q 'no cycle' out
"
test_expect_success 'an upward include (base includes wire) is refused with file:line' "
	fresh && echo '#include \"wire/sse.h\"' >>lib/base/buf.c &&
	n=\$(wc -l <lib/base/buf.c) &&
	test_must_fail sh '$CL' lib >out &&
	grep -q \"lib/base/buf.c:\$n: includes \\\"wire/sse.h\\\" (layer wire is above base)\" out
"
test_expect_success 'a header may not include upward either (stats includes method)' "
	fresh && echo '#include \"method/gate.h\"' >>lib/stats/tost.h &&
	test_must_fail sh '$CL' lib >out && grep -q 'lib/stats/tost.h:.*method/gate.h' out
"
test_expect_success 'an include without its folder is refused' "
	fresh && echo '#include \"buf.h\"' >>lib/base/vec.c &&
	test_must_fail sh '$CL' lib >out && grep -q 'lib/base/vec.c:.*without its folder' out
"
test_expect_success 'a cycle inside one layer is refused' "
	fresh && echo '#include \"method/knee.h\"' >>lib/method/good.c &&
	echo '#include \"method/good.h\"' >>lib/method/knee.c &&
	test_must_fail sh '$CL' lib >out && grep -q 'cycle' out
"
test_expect_success 'an include of the same layer without a cycle is fine' "
	fresh && echo '#include \"method/knee.h\"' >>lib/method/good.c &&
	sh '$CL' lib >out
"
test_expect_success 'a library module that dies is refused (the library returns errors)' "
	fresh && printf 'void f(void);\\nvoid f(void) { gp_die(70, \\"x\\"); }\\n' >>lib/method/knee.c &&
	n=\$(wc -l <lib/method/knee.c) &&
	test_must_fail sh '$CL' lib >out && grep -q \"lib/method/knee.c:\$n: dies or exits\" out
"
test_expect_success 'one that calls exit() or a gp_x allocator too, cli may' "
	fresh && echo 'void g(void) { exit(1); }' >>lib/wire/sse.c &&
	echo 'void h(void) { gp_xmalloc(1); }' >>lib/io/json.c &&
	echo 'void k(void) { gp_die_nomem(); }' >>lib/cli/cli.c &&
	test_must_fail sh '$CL' lib >out && grep -q 'lib/wire/sse.c:.*dies or exits' out &&
	grep -q 'lib/io/json.c:.*dies or exits' out && ! grep -q 'cli.c' out
"
test_expect_success 'a folder the README does not list is refused' "
	fresh && mkdir lib/extra && echo 'int x;' >lib/extra/x.c &&
	test_must_fail sh '$CL' lib >out && grep -q 'lib/extra: a folder' out
"
test_done
