#!/bin/sh
# gp-trace synth: determinism, the record contract, arrival/token/key
# distributions, shared prefixes, usage errors.
#
# Statistical checks use N = 20000 at a fixed seed (so they are deterministic)
# with tolerances of several standard errors: the rate estimate (N-1)/duration
# has a relative SE of about CV/sqrt(N) (0.7 % Poisson, 1.4 % gamma B=0.25,
# 0.35 % gamma B=4); the CV of gamma(shape B) gaps is 1/sqrt(B); the median of
# a lognormal with zeta = ln 1000 is 1000 (SE ~ 1.2533*sigma/sqrt(N) = 0.7 % in
# log scale); Zipf(S=1) over K=16 keys gives key 1 the share 1/H_16 =
# 0.29579419, key 2 0.1478971, key 3 0.09859806 (/usr/bin/python3: numpy
# w = 1/arange(1,17); w/w.sum()).
. "$(dirname "$0")/lib.sh"

command -v gp-trace >/dev/null || skip_all "gp-trace not built"
command -v jq >/dev/null || skip_all "jq missing"

# near VALUE WANT TOL: |VALUE - WANT| <= TOL
field() { jq -r "$1" "$2"; }

test_expect_success 'synth: defaults give 1000 valid trace records' '
	gp-trace synth >t.ndjson &&
	test $(wc -l <t.ndjson) = 1000 &&
	jq -e -s "all(.[]; .type == \"trace\" and (.id|type) == \"string\" and .t_s >= 0
		and .input_tokens == 2048 and .output_tokens == 128
		and (.cache_key|test(\"^key-[0-9]+$\")) and (.hash_ids|length) == 4)" t.ndjson >/dev/null &&
	jq -e -s "[.[].id] == [range(0;1000) | \"s\(.)\"]" t.ndjson >/dev/null &&
	jq -e -s ".[0].t_s == 0 and ([.[].t_s] | . == sort)" t.ndjson >/dev/null
'

test_expect_success 'synth: same seed, same bytes; the default seed is 1' '
	gp-trace synth --requests 500 --seed 7 --input-tokens lognormal:700:1 >a &&
	gp-trace synth --requests 500 --seed 7 --input-tokens lognormal:700:1 >b &&
	cmp a b &&
	gp-trace synth --requests 50 >d1 && gp-trace synth --requests 50 --seed 1 >d2 && cmp d1 d2
'

test_expect_success 'synth: another seed, another trace' '
	gp-trace synth --requests 500 --seed 8 --input-tokens lognormal:700:1 >c &&
	! cmp -s a c
'

test_expect_success 'synth: -o FILE.gz and -z write gzip with the same records' '
	gp-trace synth --requests 500 --seed 7 --input-tokens lognormal:700:1 -o a.ndjson.gz &&
	gzip -t a.ndjson.gz && gzip -dc a.ndjson.gz | cmp - a &&
	gp-trace synth --requests 500 --seed 7 --input-tokens lognormal:700:1 -z | gzip -dc | cmp - a
'

test_expect_success 'synth: the key sequence does not depend on --rate-rps (separate streams)' '
	gp-trace synth --requests 300 --rate-rps 1 | jq -c "[.cache_key,.input_tokens]" >k1 &&
	gp-trace synth --requests 300 --rate-rps 9 | jq -c "[.cache_key,.input_tokens]" >k2 &&
	cmp k1 k2
'

test_expect_success 'synth: Poisson arrivals: mean rate within 4 %, inter-arrival CV ~ 1' '
	gp-trace synth --requests 20000 --rate-rps 5 | gp-trace stats >s &&
	near "$(field .mean_rate_rps s)" 5 0.2 &&
	near "$(field .interarrival_cv s)" 1 0.05 &&
	test "$(field .requests s)" = 20000
'

test_expect_success 'synth: gamma burstiness 0.25: rate kept, CV ~ 1/sqrt(B) = 2' '
	gp-trace synth --requests 20000 --rate-rps 5 --burstiness 0.25 | gp-trace stats >s &&
	near "$(field .mean_rate_rps s)" 5 0.4 &&
	near "$(field .interarrival_cv s)" 2 0.15
'

test_expect_success 'synth: gamma burstiness 4: rate kept, CV ~ 0.5' '
	gp-trace synth --requests 20000 --rate-rps 5 --arrival gamma --burstiness 4 | gp-trace stats >s &&
	near "$(field .mean_rate_rps s)" 5 0.175 &&
	near "$(field .interarrival_cv s)" 0.5 0.03
'

test_expect_success 'synth: --arrival gamma alone is B = 1 (Poisson-like CV)' '
	gp-trace synth --requests 20000 --rate-rps 5 --arrival gamma | gp-trace stats >s &&
	near "$(field .interarrival_cv s)" 1 0.05
'

test_expect_success 'synth: constant arrivals are evenly spaced at 1/R' '
	gp-trace synth --requests 5 --rate-rps 4 --arrival constant | jq -c .t_s | tr "\n" " " >ts &&
	test "$(cat ts)" = "0 0.25 0.5 0.75 1 "
'

test_expect_success 'synth: lognormal:1000:0.8 has median ~ 1000; uniform:10:20 stays in range, mean ~ 15' '
	gp-trace synth --requests 20000 --input-tokens lognormal:1000:0.8 --output-tokens uniform:10:20 \
		--keys 0 | gp-trace stats >s &&
	near "$(field .input_tokens.p50 s)" 1000 30 &&
	test "$(field .output_tokens.min s)" = 10 && test "$(field .output_tokens.max s)" = 20 &&
	near "$(field .output_tokens.mean s)" 15 0.1 &&
	test "$(field .input_tokens.min s)" -ge 1
'

test_expect_success 'synth: Zipf(1) over 16 keys: key-1 most popular at 1/H_16' '
	gp-trace synth --requests 20000 --keys 16 --zipf 1 >z &&
	gp-trace stats z >s &&
	test "$(field .top_key s)" = key-1 && test "$(field .keys s)" = 16 &&
	near "$(field .top_key_share s)" 0.29579 0.012 &&
	jq -r .cache_key z | sort | uniq -c | sort -rn | head -3 | awk "{print \$2}" | tr "\n" " " >top3 &&
	test "$(cat top3)" = "key-1 key-2 key-3 " &&
	n2=$(grep -c "\"key-2\"" z) && near "$n2" 2958 240
'

test_expect_success 'synth: --zipf 0 is uniform over the keys' '
	gp-trace synth --requests 20000 --keys 4 --zipf 0 | gp-trace stats >s &&
	near "$(field .top_key_share s)" 0.25 0.015
'

test_expect_success 'synth: requests of a key share their prefix hash_ids; the rest is unique' '
	gp-trace synth --requests 2000 --keys 8 --prefix-tokens 1024 --block-tokens 256 \
		--input-tokens uniform:100:3000 >p &&
	jq -e -s "
		(group_by(.cache_key) | all(.[];
			([([.[] | .hash_ids | length] | min), 4] | min) as \$p |
			(map(.hash_ids[0:\$p]) | unique | length) == 1))
		and (all(.[]; (.hash_ids|length) == ((.input_tokens + 255) / 256 | floor)))
		and ([.[] | .hash_ids[4:][]] | length == (unique|length))
		and ([group_by(.cache_key)[] | .[0].hash_ids[0]] | length == (unique|length))" p >/dev/null
'

test_expect_success 'synth: hash_block_reuse is exactly the shared prefix blocks' '
	gp-trace synth --requests 1000 --keys 10 | gp-trace stats >s &&
	keys=$(field .keys s) &&
	test "$(field .hash_blocks s)" = 4000 &&
	test "$(field .hash_blocks_distinct s)" = $((2000 + 2 * keys)) &&
	near "$(field .hash_block_reuse s)" "$(awk -v k=$keys "BEGIN{print (2000 - 2*k)/4000}")" 1e-12 &&
	near "$(field .key_reuse s)" "$(awk -v k=$keys "BEGIN{print (1000 - k)/1000}")" 1e-12
'

test_expect_success 'synth: a short request uses only the leading prefix blocks of its key' '
	gp-trace synth --requests 50 --keys 1 --prefix-tokens 2048 --input-tokens 600 >sh &&
	jq -e -s "all(.[]; .hash_ids == [1000000000, 1000000001])" sh >/dev/null
'

test_expect_success 'synth: --keys 0: no cache_key, every block unique' '
	gp-trace synth --requests 100 --keys 0 >nk &&
	jq -e -s "all(.[]; has(\"cache_key\") | not)" nk >/dev/null &&
	gp-trace stats nk | jq -e ".hash_block_reuse == 0 and .keys == 0" >/dev/null
'

test_expect_success 'synth: --requests 0 writes nothing' '
	gp-trace synth --requests 0 >e && test ! -s e
'

for bad in "--input-tokens 0" "--input-tokens uniform:5:2" "--input-tokens lognormal:0:1" \
	"--input-tokens normal:1:2" "--output-tokens 1.5" "--rate-rps 0" "--requests -1" \
	"--prefix-tokens 1000" "--arrival poisson --burstiness 0.5" "--arrival weibull" \
	"--zipf -1" "--key-blocks 2" "--seed x" "extra-arg"; do
	test_expect_code 2 "synth $bad: usage error (exit 2)" "
		gp-trace synth $bad >out 2>err; rc=\$?; test ! -s out && grep -q '^gp-trace: ' err && exit \$rc
	"
done

test_expect_code 2 'no subcommand: usage error' 'gp-trace </dev/null'
test_expect_code 2 'unknown subcommand: usage error' 'gp-trace frobnicate 2>err; rc=$?; grep -q "unknown subcommand" err && exit $rc'
test_expect_code 2 'unknown option after a subcommand: usage error' 'gp-trace synth --frob 2>err; rc=$?; grep -q "frob" err && exit $rc'
test_expect_success 'synth --help prints the usage' 'gp-trace synth --help | grep -q "^Usage: gp-trace synth"'

test_done
