#!/bin/sh
# make install honours PREFIX and DESTDIR, installs tools, man pages and the awk
# scripts; uninstall removes them.
. "$(dirname "$0")/lib.sh"

command -v make >/dev/null || skip_all "no make"
ls "$GP_BIN"/gp-* >/dev/null 2>&1 || skip_all "no tools built"

test_expect_success 'make install into DESTDIR with PREFIX' "
	make -s -C '$GP_TOP' install DESTDIR='$TRASH/root' PREFIX=/opt/gp >log 2>&1 &&
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
	make -s -C '$GP_TOP' uninstall DESTDIR='$TRASH/root' PREFIX=/opt/gp >log 2>&1 &&
	test -z \"\$(find root -type f)\"
"
test_done
