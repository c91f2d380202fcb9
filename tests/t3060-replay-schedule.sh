#!/bin/sh
# prove: serial — it judges a live replay's timing end to end
# gp-replay schedules: as is (trace offsets), --rate-rps (rescaled), Poisson
# with --seed (reproducible), --duration-s and --max-requests bounds.
. "$(dirname "$0")/lib.sh"

command -v jq >/dev/null || skip_all "no jq"
test -x "$GP_BIN/gp-replay" && test -x "$GP_BIN/gp-sim" || skip_all "gp-replay or gp-sim not built"

# Bursty trace starting at t_s = 100: bursts of 5 every 0.2 s.
awk 'BEGIN { for (i = 0; i < 40; i++)
	printf "{\"type\":\"trace\",\"id\":\"p%d\",\"t_s\":%.4f,\"input_tokens\":20,\"output_tokens\":3}\n", i, 100 + int(i / 5) * 0.2 + (i % 5) * 0.002 }' >trace.ndjson
start_sim --model m --decode-ms 1 --max-batch 256 || exit 1
URL=http://127.0.0.1:$SIM_PORT
sched() { sel '.type == "request"' "$1" | jq -r '"\(.id) \(.t_sched_s)"' | sort; }

test_expect_success 'as is: t_sched_s = t_s - first t_s' '
	gp-replay --url $URL --model m trace.ndjson >asis.ndjson &&
	sched asis.ndjson >a && jq -r "\"\(.id) \(.t_s - 100)\"" trace.ndjson | sort >b &&
	join a b | awk "{ d = \$2 - \$3; if (d < 0) d = -d; if (d > 2e-6) { print; bad = 1 } } END { exit bad }"
'
test_expect_success 'as is: rate_rps is the trace mean (n-1)/span' '
	sel ".type == \"run\"" asis.ndjson | all_of "((.rate_rps - 39 / 1.408) | fabs) < 1e-6 and .schedule == \"asis\""
'
test_expect_success '--rate-rps 55.4: offsets scaled by one factor, bursts kept' '
	gp-replay --url $URL --model m --rate-rps 55.4 --preconnect 0 trace.ndjson >rs.ndjson &&
	sched rs.ndjson >c && join c b | awk "\$3 > 0 { f = \$2 / \$3; if (!n++) f0 = f; d = f - f0; if (d < 0) d = -d; if (d > 1e-4 * f0) bad = 1 } END { exit bad || !n }" &&
	sel ".type == \"request\" and .id == \"p39\"" rs.ndjson | all_of "((39 / .t_sched_s) - 55.4 | fabs) < 0.01"
'
test_expect_success 'Poisson with a seed: the same schedule twice' '
	gp-replay --url $URL --model m --poisson-rps 80 --seed 9 trace.ndjson >p1.ndjson &&
	gp-replay --url $URL --model m --poisson-rps 80 --seed 9 trace.ndjson >p2.ndjson &&
	sched p1.ndjson >s1 && sched p2.ndjson >s2 && cmp s1 s2 &&
	sel ".type == \"run\"" p1.ndjson | all_of ".seed == 9 and .rate_rps == 80 and .schedule == \"poisson\""
'
test_expect_success 'Poisson with another seed: another schedule' '
	gp-replay --url $URL --model m --poisson-rps 80 --seed 10 trace.ndjson >p3.ndjson &&
	sched p3.ndjson >s3 && ! cmp -s s1 s3
'
# A short run at a label: 4.5 req/s over 2 s.  Plain Poisson sends whatever
# its gaps fit in the window (seed 3: 11 requests, achieved 5.10 req/s, 13 %
# over the label); conditioned on its count it sends ceil(4.5 x 2) = 9, the
# last at 8/4.5 s, and achieves the label up to send lateness.
test_expect_success '--poisson-count: ceil(R x D) requests, the achieved rate is the label' '
	gp-replay --url $URL --model m --poisson-rps 4.5 --seed 3 --duration-s 2 trace.ndjson >pp.ndjson &&
	gp-replay --url $URL --model m --poisson-rps 4.5 --seed 3 --duration-s 2 --poisson-count trace.ndjson >pc.ndjson &&
	test "$(sel ".type == \"request\"" pc.ndjson | wc -l)" = 9 &&
	sel ".type == \"run\"" pc.ndjson | all_of ".schedule == \"poisson_count\" and .seed == 3" &&
	sel ".type == \"request\"" pc.ndjson | jq -s -e "map(.t_sched_s) | min == 0 and ((max - 8 / 4.5) | fabs) < 1e-6" >/dev/null &&
	sel ".type == \"run_end\"" pc.ndjson | all_of "((.achieved_rps / 4.5 - 1) | fabs) < 0.02" &&
	sel ".type == \"run_end\"" pp.ndjson | all_of "((.achieved_rps / 4.5 - 1) | fabs) > 0.1"
'
test_expect_success '--poisson-count: a trace shorter than the count is refused (65), a count under 2 (2)' '
	{ gp-replay --url $URL --model m --poisson-rps 50 --duration-s 1 --poisson-count trace.ndjson >/dev/null 2>err; rc=$?; } &&
	test $rc = 65 && grep -q "sends 50 requests; the trace holds 40" err &&
	{ gp-replay --url $URL --model m --poisson-rps 1 --duration-s 1 --poisson-count trace.ndjson 2>/dev/null; rc=$?; } &&
	test $rc = 2 &&
	{ gp-replay --url $URL --model m --poisson-rps 4 --poisson-count trace.ndjson 2>/dev/null; rc=$?; } &&
	test $rc = 2
'
test_expect_success '--duration-s 0.5 stops scheduling at 0.5 s' '
	gp-replay --url $URL --model m --duration-s 0.5 trace.ndjson >d.ndjson &&
	test "$(sel ".type == \"request\"" d.ndjson | wc -l)" = 15 &&
	sel ".type == \"request\"" d.ndjson | all_of ".t_sched_s < 0.5" &&
	sel ".type == \"run_end\"" d.ndjson | all_of ".attempted == 15"
'
test_expect_success '--max-requests 7 sends the first 7 records' '
	gp-replay --url $URL --model m --max-requests 7 trace.ndjson >m.ndjson &&
	sel ".type == \"request\"" m.ndjson | jq -r .id | sort >got &&
	printf "p%s\n" 0 1 2 3 4 5 6 | sort >want && cmp got want
'
test_expect_success 'sends are never early; the trailer lateness matches the records'"'"' max' '
	sel ".type == \"request\"" rs.ndjson | all_of ".t_sent_s >= .t_sched_s and .connect_ms >= 0 and
		.t_sent_s - .t_sched_s - .connect_ms / 1000 >= -2e-6" &&
	mx=$(sel ".type == \"request\"" rs.ndjson | jq -s "map((.t_sent_s - .t_sched_s) * 1000 - .connect_ms) | max") &&
	sel ".type == \"run_end\"" rs.ndjson | all_of "((.lateness_max_ms - $mx) | fabs) < 0.01"
'
test_expect_success 'connection setup is reported apart from lateness' '
	sel ".type == \"request\" and .new_connection" rs.ndjson | jq -s "map(.connect_ms) | max" >cmax &&
	n=$(sel ".type == \"request\" and .new_connection" rs.ndjson | wc -l) &&
	sel ".type == \"run_end\"" rs.ndjson | all_of ".new_connections == $n and .new_connections >= 1 and
		((.connect_max_ms - $(cat cmax)) | fabs) < 0.01 and .connect_p99_ms <= .connect_max_ms and
		.new_connections <= .peak_inflight"
'
# A client stopped by a signal (SIGSTOP) is late, but not for want of a CPU:
# the run-queue attribution must not blame the host for most of its late sends
# (under a loaded test run a few may really have waited for a CPU), nor on
# paging: client_major_faults is a whole count, and small (each major fault is
# a disk read; a hundred would make the client late on their own).
test_expect_success 'a stopped client is late, and not blamed on CPU contention' '
	gp-replay --url $URL --model m --rate-rps 40 trace.ndjson >stop.ndjson 2>stop.err &
	pid=$!
	sleep 0.3 && kill -STOP $pid && sleep 0.3 && kill -CONT $pid
	wait $pid
	sel ".type == \"run_end\"" stop.ndjson | all_of ".client_behind == true and .lateness_max_ms > 150 and
		.late_sends >= 1 and .late_sends_cpu_wait * 2 < .late_sends and .client_cpu_s > 0 and
		(.client_major_faults | type == \"number\" and . == floor and . >= 0 and . < 100)" &&
	grep -q "fell behind" stop.err
'
# The other way round: a client starved of CPU (a CPU quota shared with a busy
# loop, as a real-time hog would do) is late, and the late sends are put down
# to the run-queue wait.  Needs a writable cgroup v1 cpu controller (root).
CG=/sys/fs/cgroup/cpu/gp-t3060-$$
if [ -w /sys/fs/cgroup/cpu ] && [ -r /proc/self/schedstat ] && mkdir "$CG" 2>/dev/null; then
	echo 500000 >"$CG/cpu.cfs_period_us" && echo 100000 >"$CG/cpu.cfs_quota_us"
	(echo $BASHPID >"$CG/cgroup.procs"; exec sh -c "while :; do :; done") &
	hog=$!
	(echo $BASHPID >"$CG/cgroup.procs"; exec gp-replay --url $URL --model m --rate-rps 20 trace.ndjson) >cg.ndjson 2>cg.err
	kill $hog; wait $hog 2>/dev/null
	while [ -s "$CG/cgroup.procs" ]; do sleep 0.05; done
	rmdir "$CG"
	test_expect_success 'a client starved of CPU: its late sends are put down to the run-queue wait' '
		sel ".type == \"run_end\"" cg.ndjson | all_of ".client_behind == true and .lateness_max_ms > 100 and
			.late_sends >= 1 and .late_sends_cpu_wait * 2 >= .late_sends and .client_runq_wait_ms > 100" &&
		grep -q "waited mostly for a CPU" cg.err
	'
fi
test_expect_code 65 '--rate-rps on a one-record trace: exit 65' '
	head -1 trace.ndjson >one.ndjson && gp-replay --url $URL --model m --rate-rps 5 one.ndjson >/dev/null
'
test_done
