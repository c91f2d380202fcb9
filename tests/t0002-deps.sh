#!/bin/sh
# share/deps.sh, the one place the Debian package list is read from: --check
# and --list, PKG:CMD lines, and the message a user who is not root gets.
. "$(dirname "$0")/lib.sh"

command -v dpkg-query >/dev/null || skip_all "not a Debian system"
DEPS=$GP_TOP/share/deps.sh

test_expect_success 'every package make check needs is installed here (--check)' '
	sh "$DEPS" --check
'
test_expect_success '--list prints the names of share/packages, no comments' '
	sh "$DEPS" --list >list &&
	grep -qx haproxy list && grep -qx libcurl4-openssl-dev list &&
	! grep -q "[#:]" list &&
	test $(wc -l <list) = $(sed -e "s/#.*//" -e "/^[[:space:]]*\$/d" "$GP_TOP/share/packages" | wc -l)
'
printf '# test list\ngp-no-such-package-xyz\ndash\n' >missing.list
printf 'gp-no-such-package-xyz:sh\n' >bycmd.list
test_expect_code 1 '--check fails when a package is missing' '
	GP_PACKAGES=missing.list sh "$DEPS" --check
'
test_expect_success 'PKG:CMD is satisfied by CMD on PATH' '
	GP_PACKAGES=bycmd.list sh "$DEPS" --check
'
# Not root: the exact apt-get line, a clear message, exit 1, nothing installed.
if command -v setpriv >/dev/null && [ "$(id -u)" = 0 ]; then
	test_expect_code 1 'not root: prints the one apt-get line to run and stops' '
		chmod 755 "$TRASH" && chmod 644 missing.list &&
		setpriv --reuid=65534 --regid=65534 --clear-groups \
			env GP_PACKAGES="$TRASH/missing.list" sh "$DEPS" 2>err; rc=$?
		cat err
		grep -qx "  sudo apt-get update && sudo apt-get install -y --no-install-recommends gp-no-such-package-xyz" err &&
		grep -q "then run make again" err || exit 9
		exit $rc
	'
elif [ "$(id -u)" != 0 ]; then
	test_expect_code 1 'not root: prints the one apt-get line to run and stops' '
		GP_PACKAGES=missing.list sh "$DEPS" 2>err; rc=$?
		cat err
		grep -q "sudo apt-get update && sudo apt-get install" err || exit 9
		exit $rc
	'
fi
# The install itself, with a stand-in apt-get on PATH that runs the policy
# file as invoke-rc.d would and records its answer: no service may start
# while deps.sh installs (nginx on :80, sshd on :22), and the policy file is
# deps.sh's only for the time of the install.
if [ "$(id -u)" = 0 ]; then
	mkdir -p fakebin &&
	cat >fakebin/apt-get <<'APT'
#!/bin/sh
case $1 in update) exit 0 ;; esac
if [ -x "$GP_POLICY_RC" ]; then "$GP_POLICY_RC" nginx start; echo $? ; else echo none; fi >>"${POLICY_SEEN:?}"
exit ${FAKE_APT_RC:-0}
APT
	chmod +x fakebin/apt-get
	test_expect_success 'no service starts during the install: a policy-rc.d that denies (101), removed after' '
		rm -f policy.seen &&
		POLICY_SEEN="$TRASH/policy.seen" PATH="$TRASH/fakebin:$PATH" GP_POLICY_RC="$TRASH/policy-rc.d" GP_PACKAGES=missing.list sh "$DEPS" 2>err &&
		test "$(cat policy.seen)" = 101 && test ! -e policy-rc.d
	'
	test_expect_success 'apt-get failing: exit 1, and the policy file is still removed' '
		rm -f policy.seen &&
		{ FAKE_APT_RC=100 POLICY_SEEN="$TRASH/policy.seen" PATH="$TRASH/fakebin:$PATH" GP_POLICY_RC="$TRASH/policy-rc.d" \
			GP_PACKAGES=missing.list sh "$DEPS" 2>err; test $? = 1; } &&
		grep -q "apt-get failed" err && test "$(cat policy.seen)" = 101 && test ! -e policy-rc.d
	'
	test_expect_success "the machine's own policy-rc.d is left as it was" '
		rm -f policy.seen && printf "#!/bin/sh\nexit 0\n" >policy-rc.d && chmod 755 policy-rc.d &&
		cp policy-rc.d policy.before &&
		POLICY_SEEN="$TRASH/policy.seen" PATH="$TRASH/fakebin:$PATH" GP_POLICY_RC="$TRASH/policy-rc.d" GP_PACKAGES=missing.list sh "$DEPS" 2>err &&
		test "$(cat policy.seen)" = 0 && cmp policy-rc.d policy.before
	'
fi
test_expect_success 'the Makefile lists no packages of its own (one place)' '
	! grep -n "libjansson-dev\|haproxy" "$GP_TOP/Makefile"
'
test_expect_success 'make check and make demo install before they build (a sub-make)' '
	make -C "$GP_TOP" -n check | sed -n 1,3p >plan &&
	grep -q "deps.sh --check" plan &&
	make -C "$GP_TOP" -n demo | grep -q "deps.sh --check"
'
test_done
