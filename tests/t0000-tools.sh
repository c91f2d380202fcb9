#!/bin/sh
# Every tool follows the command-line conventions (doc/conventions.md) and has a man
# page that documents every option its --help names.
. "$(dirname "$0")/lib.sh"

tools=$(cd "$GP_BIN" && ls gp-* 2>/dev/null)
[ -n "$tools" ] || skip_all "no tools built in $GP_BIN"

for t in $tools; do
	test_expect_success "$t --help: usage on stdout, exit 0" "
		$t --help >out 2>err && grep -q '^Usage: $t' out && test ! -s err
	"
	test_expect_success "$t --version names the tool and gp" "
		$t --version >out && grep -q '^$t (gp) ' out
	"
	test_expect_code 2 "$t: an unknown option is a usage error (exit 2)" "
		$t --no-such-option </dev/null >out 2>err; rc=\$?; grep -q \"$t\" err && exit \$rc
	"
	man=$GP_TOP/doc/$t.1
	test_expect_success "$t has a man page with SYNOPSIS and EXIT STATUS" "
		test -f $man && grep -q '^\.SH SYNOPSIS' $man && grep -q '^\.SH \"\\{0,1\\}EXIT STATUS' $man
	"
	test_expect_success "$t: every option in --help is in the man page" "
		$t --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u >opts &&
		sed 's/\\\\-/-/g' $man >man.txt &&
		missing= &&
		for o in \$(cat opts); do grep -q -- \"\$o\" man.txt || missing=\"\$missing \$o\"; done &&
		{ test -z \"\$missing\" || { echo \"missing:\$missing\"; false; }; }
	"
done
# make check runs each test file as a program (prove --exec ''): a file that
# git does not record as executable fails on a fresh clone, not here.
if git -C "$GP_TOP" rev-parse --git-dir >/dev/null 2>&1; then
	test_expect_success "every tests/t*.sh is executable in git's index" "
		git -C \"\$GP_TOP\" ls-files -s 'tests/t*.sh' >modes && test -s modes &&
		! grep -v '^100755 ' modes
	"
else
	test_skip "every tests/t*.sh is executable in git's index" "not a git checkout"
fi
test_done
