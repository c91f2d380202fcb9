# tests/lib.sh — helpers for the end-to-end tests (after git's t/test-lib.sh).
# Source it from tests/tNNNN-*.sh:   . "$(dirname "$0")/lib.sh"
#
#   test_expect_success 'name' 'commands'   run commands in a subshell; ok if exit 0
#   test_expect_code N 'name' 'commands'    ok if the exit status is N
#   test_expect_failure 'name' 'commands'   a known breakage, as in git: commands
#                                           that should succeed and do not yet;
#                                           "not ok ... # TODO known breakage",
#                                           which prove does not count as failed
#                                           (a pass says "# TODO known breakage
#                                           vanished": move it to _success)
#   test_must_fail CMD...                   inside a test: ok if CMD exits 1..125
#                                           (a failure it reports, not a crash
#                                           by a signal, not "not found")
#   test_skip 'name' 'reason'               a test that cannot run here: a TAP skip
#   skip_all 'reason'                        skip the whole file
#   fail_all 'reason'                        fail the file here (not Bail out)
#   test_done                               print the plan, exit by the result
#   free_port_range N                       print a base port P with P..P+N-1 free
#   start_sim ARGS...                       start gp-sim, sets SIM_PORT and SIM_PID
#   wait_port PORT                          wait (≤10 s) until a TCP port accepts
#   make_tls_ca                             ca.pem, and srv.pem/srv.key/srv-full.pem
#                                           it signs for localhost only (openssl)
#   start_tls_haproxy SERVER PORT...        HAProxy terminating TLS (srv-full.pem)
#                                           on each 127.0.0.1:PORT in front of the
#                                           plain HTTP 127.0.0.1:SERVER; waits for
#                                           every PORT (haproxy.cfg, haproxy.log)
#
# Record helpers (jq and awk), for use inside tests:
#   sel FILTER FILE       the records of FILE for which FILTER is true, one per line
#   all_of EXPR           stdin holds records, at least one, and EXPR is true of each
#   jall EXPR [FILE]      EXPR mapped over the records (stdin or FILE) yields at
#                         least one value and every value is true (EXPR may
#                         filter: "select(.type == \"x\") | .ok")
#   near V W TOL          |V - W| <= TOL, V a number (not "" or null); says why not
#   near_rel V W          V equals W to 1e-9 relative (1e-12 absolute near 0)
#   probe_rec FILE        the probe records of FILE (gp-probe's verdicts)
#   doc_keys TYPE         the top-level keys, comma-separated and in order, of
#                         doc/records.md's shape `{"type":"TYPE",…}` (compare
#                         with jq -r 'keys_unsorted | join(",")'); 1 if none
#
# Request helpers (gp-sim on $SIM_PORT), for use inside tests:
#   post PATH BODY [CURL-ARGS...]  POST the JSON BODY to gp-sim's PATH, streaming
#   words N FROM          N distinct words "wFROM wFROM+1 ...", each a token to gp-sim
#
# Every test file works in its own scratch directory $TRASH, removed at exit;
# background processes registered with `cleanup_pid PID` are killed at exit.

# The helpers need bash ($RANDOM, /dev/tcp); dash runs the tests as /bin/sh.
[ -n "${BASH_VERSION:-}" ] || exec bash "$0" "$@"
set -u
GP_TOP=${GP_TOP:-$(cd "$(dirname "$0")/.." && pwd)}
GP_BIN=${GP_BIN:-$GP_TOP/bin}
PATH=$GP_BIN:$PATH
export PATH GP_TOP GP_BIN
# gp-verify publish's design gates, waived by name: for tests of other gates
# whose fixtures carry no run headers, capacities or idle baselines.
WAIVE_DESIGN="--waive floor,same_trace,topology,calibration,baseline_vip,slo_feasible"
GP_SHARED=${GP_SHARED:-$GP_TOP/../shared}
TEST_NAME=$(basename "$0" .sh)
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/gp-$TEST_NAME.XXXXXX")
_n=0 _fail=0 _pids=
cleanup_pid() { _pids="$_pids $1"; }
_cleanup() {
	for p in $_pids; do kill "$p" 2>/dev/null; done
	for p in $_pids; do wait "$p" 2>/dev/null; done
	cd / && rm -rf "$TRASH"
}
trap _cleanup EXIT
cd "$TRASH" || exit 1

_report() { # ok name output-file
	_n=$((_n + 1))
	if [ "$1" = 1 ]; then
		echo "ok $_n - $2"
	else
		_fail=$((_fail + 1))
		echo "not ok $_n - $2"
		sed 's/^/#   /' "$3" | tail -n 40
	fi
}

# test_skip NAME REASON: a test that cannot run here, reported as a TAP skip
# (never counted as a pass by a reader of the output).
test_skip() { _n=$((_n + 1)); echo "ok $_n - $1 # SKIP $2"; }
test_expect_success() {
	( eval "$2" ) >"$TRASH/.out" 2>&1
	if [ $? = 0 ]; then _report 1 "$1" "$TRASH/.out"; else _report 0 "$1" "$TRASH/.out"; fi
}
test_expect_failure() {
	_n=$((_n + 1))
	if ( eval "$2" ) >"$TRASH/.out" 2>&1; then
		echo "ok $_n - $1 # TODO known breakage vanished"
	else
		echo "not ok $_n - $1 # TODO known breakage"
	fi
}
test_must_fail() {
	"$@"
	_rc=$?
	if [ $_rc = 0 ]; then echo "test_must_fail: $1 succeeded" >&2; return 1; fi
	if [ $_rc -gt 125 ]; then echo "test_must_fail: $1 exited $_rc (a signal or not found)" >&2; return 1; fi
	return 0
}
test_expect_code() {
	( eval "$3" ) >"$TRASH/.out" 2>&1
	_rc=$?
	if [ $_rc = "$1" ]; then _report 1 "$2" "$TRASH/.out"
	else echo "exit $_rc, want $1" >>"$TRASH/.out"; _report 0 "$2" "$TRASH/.out"; fi
}
skip_all() { echo "1..0 # SKIP $1"; exit 0; }
# fail_all: a set-up that failed for a reason outside this file's code (a
# registry out of reach): one failed test, the file stops, the run goes on
# (a "Bail out!" would stop every later file of the prove run).
fail_all() { echo "not ok $((_n + 1)) - $1"; echo "1..$((_n + 1))"; exit 1; }
test_done() { echo "1..$_n"; [ $_fail = 0 ]; exit $?; }
say() { echo "# $*"; }

sel() { jq -c "select($1)" "$2"; }
probe_rec() { sel '.type == "probe"' "$1"; }
post() { # PATH BODY [curl args...]
	_p=$1 _b=$2; shift 2
	curl -sS -N "$@" -H 'Content-Type: application/json' -d "$_b" "http://127.0.0.1:$SIM_PORT$_p"
}
words() { seq "$2" "$(($2 + $1 - 1))" | sed 's/^/w/' | tr '\n' ' '; }
all_of() { jq -s -e "length > 0 and all(.[]; $1)" >/dev/null; }
jall() { jq -e -s "[.[] | $1] | length > 0 and all" ${2+"$2"} >/dev/null; }
near() {
	awk -v v="$1" -v w="$2" -v t="$3" 'BEGIN { d = v - w; if (d < 0) d = -d
		if (v == "" || v == "null" || d > t) { print "got " v ", want " w " +- " t; exit 1 } }'
}
near_rel() {
	awk -v v="$1" -v w="$2" 'BEGIN { d = v - w; if (d < 0) d = -d
		if (v == "" || v == "null" || d > 1e-9 * (w < 0 ? -w : w) + 1e-12) { print "got " v ", want " w " (1e-9 relative)"; exit 1 } }'
}

doc_keys() {
	awk -v t="$1" '{ s = s " " $0 } END {
		i = index(s, "`{\"type\":\"" t "\"")
		for (i++; i > 1 && i <= length(s); i++) {
			c = substr(s, i, 1)
			if (c == "`")
				break
			if (c == "\"") {	# a string: a key when it opens a member at depth 1
				j = index(substr(s, i + 1), "\"")
				if (d == 1 && (prev == "{" || prev == ","))
					out = out (out == "" ? "" : ",") substr(s, i + 1, j - 1)
				i += j; prev = c; continue
			}
			d += (c == "{") - (c == "}")
			if (c != " ")
				prev = c
		}
		if (out == "")
			exit 1
		print out
	}' "$GP_TOP/doc/records.md"
}

port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
free_port_range() {
	_k=${1:-1}
	for _try in $(seq 1 200); do
		_base=$(( (RANDOM * 32768 + RANDOM) % 12000 + 20000 ))  # below the ephemeral range
		_okr=1
		for _i in $(seq 0 $((_k - 1))); do
			port_free $((_base + _i)) || { _okr=0; break; }
		done
		[ $_okr = 1 ] && { echo "$_base"; return 0; }
	done
	return 1
}
wait_port() {
	for _i in $(seq 1 200); do
		(exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}
# make_tls_ca: in the current directory, a CA (ca.pem, ca.key) and a server
# certificate it signs for the name localhost only (srv.pem, srv.key;
# srv-full.pem holds both, as HAProxy's `crt` wants).
make_tls_ca() {
	openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=gp test CA" \
		-keyout ca.key -out ca.pem 2>/dev/null &&
	openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout srv.key -out srv.csr 2>/dev/null &&
	printf "subjectAltName=DNS:localhost\n" >san.ext &&
	openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 \
		-extfile san.ext -out srv.pem 2>/dev/null &&
	cat srv.pem srv.key >srv-full.pem
}
# start_tls_haproxy SERVER PORT...: after make_tls_ca, in the current
# directory, haproxy.cfg with one TLS frontend per PORT (srv-full.pem) passing
# plain HTTP to 127.0.0.1:SERVER; HAProxy runs in the foreground (-db), logs to
# haproxy.log and is killed at exit.  1, with the log as TAP comments, when a
# PORT does not accept within wait_port's bound.
start_tls_haproxy() {
	_srv=$1
	shift
	{
		cat <<-HEOF
		global
		    maxconn 256
		defaults
		    mode http
		    timeout connect 2s
		    timeout client 30s
		    timeout server 30s
		backend plain
		    server s1 127.0.0.1:$_srv
		HEOF
		for _p in "$@"; do
			printf 'frontend tls%s\n    bind 127.0.0.1:%s ssl crt %s/srv-full.pem\n' "$_p" "$_p" "$PWD"
			printf '    default_backend plain\n'
		done
	} >haproxy.cfg
	haproxy -db -f haproxy.cfg >haproxy.log 2>&1 &
	cleanup_pid $!
	for _p in "$@"; do
		wait_port "$_p" || { sed 's/^/# /' haproxy.log; return 1; }
	done
}
# start_sim ARGS...: gp-sim on a free port range (as many as --backends asks).
start_sim() {
	_nb=1
	_prev=
	for _a in "$@"; do
		[ "$_prev" = --backends ] && _nb=$_a
		case $_a in --backends=*) _nb=${_a#--backends=} ;; esac
		_prev=$_a
	done
	SIM_PORT=$(free_port_range "$_nb") || return 1
	gp-sim --port "$SIM_PORT" "$@" 2>>"$TRASH/sim.log" &
	SIM_PID=$!
	cleanup_pid $SIM_PID
	_b=0
	while [ $_b -lt "$_nb" ]; do wait_port $((SIM_PORT + _b)) || return 1; _b=$((_b + 1)); done
}
