#!/bin/sh
# Golden cases of gp-analyze and gp-verify (tests/golden/*.test, format in
# tests/golden/README): each case runs one command line in tests/golden with
# its input on stdin, and must give the expected exit status, stderr
# substring and stdout (NDJSON, compared record by record after `jq -cS` and
# the normalisation filter below).  One TAP test per case; a mismatch prints
# the diff.  GOLDEN_UPDATE=1 rewrites every case's output block with what the
# tools print now (then read each changed record against the documented rules
# before committing it: a golden file that enshrines a bug is worse than none).
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip_all "jq missing"
command -v gp-analyze >/dev/null && command -v gp-verify >/dev/null ||
	skip_all "gp-analyze or gp-verify not built"

GOLDEN=${GOLDEN_DIR:-$GP_TOP/tests/golden}
# Fields that legitimately vary between builds and machines, removed from
# every record before the comparison (none of gp-analyze's or gp-verify's own
# records carries one today; the filter keeps a future one from breaking every
# case).
NORM='del(.version?, .host?, .hostname?)'

# split FILE: one directory per case under $TRASH/cases/<file>.<n>/ holding
# name, where, about, args, input, output, exit, stderr, filter.
split_cases() {
	awk -v dir="$TRASH/cases/$(basename "$1" .test)" '
	function put(name, text) { f = c "/" name; print text > f; close(f) }
	function add(name, text) { f = c "/" name; print text >> f }
	function endblk() { if (blk != "") close(c "/" blk); blk = "" }
	BEGIN { n = 0; c = ""; blk = "" }
	/^=== / {
		endblk(); n++; c = sprintf("%s.%03d", dir, n)
		system("mkdir -p \"" c "\"")
		put("name", substr($0, 5)); put("where", FILENAME ":" FNR); next
	}
	c == "" { next }			# the file header
	/^#/ { if (blk == "") { sub(/^# ?/, ""); add("about", $0) } next }
	/^[ \t]*$/ { next }
	blk != "" && /^[{[]/ { add(blk, $0); next }
	{ endblk() }
	/^args:/ { sub(/^args:[ \t]*/, ""); put("args", $0); next }
	/^input:[ \t]*$/ { blk = "input"; printf "" > (c "/input"); next }
	/^input:/ { sub(/^input:[ \t]*/, ""); put("input_file", $0); next }
	/^output:[ \t]*$/ { blk = "output"; printf "" > (c "/output"); next }
	/^exit:/ { sub(/^exit:[ \t]*/, ""); put("exit", $0); next }
	/^stderr:/ { sub(/^stderr:[ \t]*/, ""); put("stderr", $0); next }
	/^filter:/ { sub(/^filter:[ \t]*/, ""); put("filter", $0); next }
	{ put("bad", FILENAME ":" FNR ": not a case line: " $0) }
	' "$1"
}

# run_case DIR: 0 when the case holds; the reasons and the diff on stdout.
run_case() {
	d=$1 ok=0
	[ -f "$d/about" ] || { echo "$(cat "$d/where"): no comment saying what the case shows"; ok=1; }
	[ -f "$d/bad" ] && { cat "$d/bad"; ok=1; }
	[ -f "$d/args" ] || { echo "$(cat "$d/where"): no args: line"; return 1; }
	if [ -f "$d/input_file" ]; then in=$GOLDEN/$(cat "$d/input_file")
	elif [ -f "$d/input" ]; then in=$d/input
	else in=/dev/null; fi
	( cd "$GOLDEN" && eval "$(cat "$d/args")" ) <"$in" >"$d/got.raw" 2>"$d/got.err"
	echo $? >"$d/got.exit"
	want_exit=$(cat "$d/exit" 2>/dev/null || echo 0)
	if [ "$(cat "$d/got.exit")" != "$want_exit" ]; then
		echo "exit $(cat "$d/got.exit"), want $want_exit"; ok=1
	fi
	if [ -f "$d/stderr" ] && ! grep -qF -- "$(cat "$d/stderr")" "$d/got.err"; then
		echo "stderr lacks: $(cat "$d/stderr")"; ok=1
	fi
	filter=$(cat "$d/filter" 2>/dev/null || echo .)
	if ! jq -cS "$NORM | $filter" <"$d/got.raw" >"$d/got" 2>"$d/got.jqerr"; then
		echo "stdout is not NDJSON (or the filter failed):"; cat "$d/got.jqerr"; ok=1
	fi
	touch "$d/output"
	jq -cS . <"$d/output" >"$d/want" || ok=1
	if ! cmp -s "$d/want" "$d/got"; then
		echo "stdout differs (- want, + got):"
		diff -u "$d/want" "$d/got" | tail -n +3
		ok=1
	fi
	[ $ok = 0 ] || sed 's/^/stderr: /' "$d/got.err" | head -5
	return $ok
}

# update FILE: rewrite each case's output block with the output got.
update_file() {
	awk -v dir="$TRASH/cases/$(basename "$1" .test)" '
	BEGIN { n = 0; skip = 0 }
	/^=== / { n++; c = sprintf("%s.%03d", dir, n) }
	skip && /^[{[]/ { next }
	{ skip = 0; print }
	/^output:[ \t]*$/ {
		while ((getline l < (c "/got")) > 0) print l
		close(c "/got"); skip = 1
	}' "$1" >"$1.new" && mv "$1.new" "$1"
}

mkdir -p "$TRASH/cases"
for f in "$GOLDEN"/*.test; do
	split_cases "$f"
	for d in "$TRASH/cases/$(basename "$f" .test)".*; do
		[ -d "$d" ] || continue
		test_expect_success "$(basename "$f" .test): $(cat "$d/name")" "run_case '$d'"
	done
	[ "${GOLDEN_UPDATE:-}" = 1 ] && update_file "$f"
done
test_done
