#!/bin/sh
# make install honours PREFIX and DESTDIR, installs tools, man pages and the awk
# scripts; uninstall removes them.  A change of PREFIX rebuilds what has the
# old one compiled in (build/flags), so the install runs in a copy of the
# tree: rebuilding the tree's own bin/ would pull the tools from under the
# tests that run beside this one.
. "$(dirname "$0")/lib.sh"

command -v make >/dev/null || skip_all "no make"
ls "$GP_BIN"/gp-* >/dev/null 2>&1 || skip_all "no tools built"
mkdir tree tree/tests
(cd "$GP_TOP" && cp -r Makefile LICENSE README src doc share "$TRASH/tree/" &&
	cp tests/check-layers.sh "$TRASH/tree/tests/") || fail_all "cannot copy the tree"

test_expect_success 'a build for the default PREFIX, then install PREFIX=/opt/gp rebuilds for /opt/gp' "
	make -s -C tree -j2 all >log 2>&1 &&
	grep -q /usr/local/share/gp/awk tree/bin/gp-verify &&
	make -C tree install DESTDIR='$TRASH/root' PREFIX=/opt/gp >log 2>&1 &&
	grep -q 'gp-verify.o' log &&
	grep -q /opt/gp/share/gp/awk root/opt/gp/bin/gp-verify &&
	! grep -q /usr/local/share/gp/awk root/opt/gp/bin/gp-verify
"
test_expect_success 'an unchanged PREFIX rebuilds nothing' "
	make -C tree all PREFIX=/opt/gp >log 2>&1 &&
	! grep -q ' -c -o ' log
"
test_expect_success 'touching one header rebuilds only the objects that include it' "
	sleep 1 && touch tree/src/lib/base/hash.h &&
	make -C tree all PREFIX=/opt/gp >log 2>&1 &&
	n=\$(grep -c ' -c -o ' log) &&
	want=\$(cd tree/src && grep -rl 'base/hash.h' --include=*.c --include=*.h . |
		sed 's|^\./||' | while read f; do
			case \$f in *.h) h=\${f#lib/}; grep -rl \"\$h\" --include=*.c . ;; *) echo \$f ;; esac
		done | sed 's|^\./||' | sort -u | wc -l) &&
	echo \"rebuilt \$n, users of hash.h \$want\" &&
	test \$n -gt 0 && test \$n -le \$want
"
test_expect_success 'make install into DESTDIR with PREFIX' "
	make -s -C tree install DESTDIR='$TRASH/root' PREFIX=/opt/gp >log 2>&1 &&
	for t in \$(cd '$GP_BIN' && ls gp-*); do
		test -x root/opt/gp/bin/\$t || { echo \"missing \$t\"; exit 1; }
	done
"
test_expect_success 'man pages installed under PREFIX/share/man/man1' "
	n=\$(ls '$GP_TOP'/doc/*.1 | wc -l) &&
	test \$n -gt 0 &&
	test \$(ls root/opt/gp/share/man/man1/*.1 | wc -l) -eq \$n
"
test_expect_success 'LICENSE (MIT) and README installed beside the docs' "
	grep -q '^MIT License' root/opt/gp/share/doc/gp/LICENSE &&
	cmp '$GP_TOP/LICENSE' root/opt/gp/share/doc/gp/LICENSE &&
	test -s root/opt/gp/share/doc/gp/README
"
test_expect_success 'installed tools run' "
	for t in root/opt/gp/bin/gp-*; do \$t --version >/dev/null || exit 1; done
"
test_expect_success 'make uninstall removes what install wrote' "
	make -s -C tree uninstall DESTDIR='$TRASH/root' PREFIX=/opt/gp >log 2>&1 &&
	test -z \"\$(find root -type f)\"
"
test_done
