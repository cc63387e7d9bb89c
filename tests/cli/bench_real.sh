#!/bin/sh
# tier: slow
# Smoke test of the realistic benchmark (bench/real.sh, bench/real_inputs.sh, bench/diag.awk,
# bench/real_table.awk, bench/distinct.sh, benchgen --threads) on small inputs, so that `make bench` cannot rot:
# sqlite3 really recorded by pmusim on a tiny SQL script; two small simulator runs stand in
# for the cc1 and python recordings (recording those takes minutes). Checks against stock
# perf: the many-process files hold that many processes, the many-thread file that many
# threads of one process with all of benchgen's samples; every file has a row with a rate,
# and a perf script and a perf2bolt time where those tools are installed. The summary parser
# against a hand-written line.
. "$(dirname "$0")/../lib.sh"
have_bench_tools bench_real || exit 0
if ! command -v sqlite3 >/dev/null 2>&1; then skip "bench_real: sqlite3 not installed"; exit 0; fi

# the parser of the --diagnostics summary, on a line written by hand
line='  LBR stacks: 77319, 32861 distinct (42.5%); stack cache 51.2% hits (on); streams 123456 distinct'
got=$(printf 'event 1 ...\n%s\nunresolved\n' "$line" | awk -f "$ROOT/bench/diag.awk")
check "bench_real: diag.awk reads the summary line ($got)" \
	[ "$got" = "77319 32861 42.5 51.2 on 123456" ]
got=$(printf '  LBR stacks: 1005, 929 distinct (92.4%%, estimated); stack cache 8.6%% hits (off); streams 1400 distinct\n' |
	awk -f "$ROOT/bench/diag.awk")
check "bench_real: diag.awk reads an estimated distinct count ($got)" \
	[ "$got" = "1005 929 92.4 8.6 off 1400" ]
got=$(printf '  LBR stacks: 500, 20 distinct (4.0%%)\n' | awk -f "$ROOT/bench/diag.awk")
check "bench_real: diag.awk gives n/a for what the line lacks ($got)" \
	[ "$got" = "500 20 4.0 n/a n/a n/a" ]

perf=0
command -v perf >/dev/null 2>&1 && perf=1
p2b=$(ls /usr/lib/llvm-*/bin/perf2bolt 2>/dev/null | sort -V | tail -n 1)
srcs=$(BENCH_INPUTS="interp 10 libcmix 3" sh "$ROOT/bench/inputs.sh" "$TMP/src" "$ROOT/pmusim" \
	2> "$TMP/inputs.err") || { fail "bench_real: bench/inputs.sh"; exit 0; }
d=$TMP/d
mkdir -p "$d"
set -- $srcs
cp "$1" "$d/cc1.data"
cp "$2" "$d/python.data"
printf 'create table t(a, b);\ninsert into t values (1, 2), (3, 4);\nselect sum(a * b) from t;\n' \
	> "$TMP/t.sql"
names="sqlite sqlite+sqlite mix3 mix3000 mix10000 mix10000+pid mix10000+comm threads cc1_1g cc1_4g"
BENCH_DIR=$d BENCH_REAL=$names BENCH_RUNS=1 BENCH_DISTINCT=1 BENCH_PAIR_RUNS=1 BENCH_SIZES="1 3" BENCH_RESULTS=$TMP/RESULTS.md BENCH_PERF=$perf \
	BENCH_SQL=$TMP/t.sql BENCH_CC1=$TMP/src/bin/interp BENCH_MIX_MB=2 BENCH_BIG_MB=4 BENCH_THREADS=8 \
	GEN=$GEN HBBP=$HBBP PMUSIM=$ROOT/pmusim sh "$ROOT/bench/real.sh" > "$TMP/run.out" \
	2> "$TMP/run.err"
rc=$?
check "bench_real: real.sh succeeds" [ $rc -eq 0 ]
[ $rc -eq 0 ] || { tail -n 20 "$TMP/run.err" >&2; exit 0; }

# one row per file: MiB/s (column 5) and RSS (7) positive; where perf is installed the
# distinct stacks by perf (12) and the perf script time (13); the perf2bolt time (15)
r=$TMP/RESULTS.md
for n in $names; do
	case $n in	# a variant's row: its label; a file's: the first row naming it
	*+pid) row=$(grep "^| .*, \`--by pid,symbol,mnemonic\`" "$r") ;;
	*+comm) row=$(grep "^| .*, \`--by comm,symbol\`" "$r") ;;
	*+sqlite) row=$(grep "^| .*, to SQLite" "$r") ;;
	*) row=$(grep "(\`$n.data\`)" "$r" | head -n 1) ;;
	esac
	bad=$(echo "$row" | awk -F'|' -v perf=$perf -v p2b=$([ -n "$p2b" ] && echo 1 || echo 0) '
		{ b = ($5 + 0 <= 0) + ($7 + 0 <= 0)
		  if (perf) b += ($12 !~ / of [1-9]/) + ($13 !~ /[0-9]/); if (p2b) b += ($15 !~ /[0-9]/)
		  print b + 0 }')
	expect "bench_real: $n row has rate, RSS and the peers' times ($row)" \
		'[ -n "$row" ] && [ "${bad:-1}" -eq 0 ]'
done
expect "bench_real: RESULTS.md names commit, machine and how sqlite.data was made" \
	'grep -q "^- commit: " "$r" && grep -q "^- machine: [0-9]* CPUs" "$r" &&
	 grep -q "pmusim --effects realistic .* --seed 13 -o sqlite.data -- .*sqlite3 :memory: '"'"'.read work.sql'"'"'" "$r"'
expect "bench_real: RESULTS.md compares SQLite with CSV output and per-process keys with perf" \
	'grep -q "^SQLite / CSV output, sqlite: wall [0-9.]*, CPU [0-9.]* (wanted <= 1.2: \(met\|not met\))\$" "$r" &&
	 { [ $perf = 0 ] || grep -q "^per-process keys, mix10000+pid: perf script / ours wall [0-9.]*x, CPU [0-9.]*x, RSS [0-9]* MiB" "$r"; }'
expect "bench_real: RESULTS.md compares the RSS of cc1 replayed to 1 and 4 MiB (the same code)" \
	'grep -q "^RSS 4 GiB / RSS 1 GiB (cc1 replayed whole: the same code): [0-9.]* (wanted <= 1.10: \(met\|not met\))\$" "$r"'
# bench/pairs.sh: 10,000 against 3 processes side by side; RSS against size, by size, the
# whole runs last, each row's ratio the 4 GiB file's RSS over its own (1.00 on its own row)
expect "bench_real: RESULTS.md has 10,000 / 3 processes side by side" \
	'grep -q "^10,000 processes / 3 processes, side by side, wall per MiB: [0-9.]* (wanted <= 1.5: \(met\|not met\); CPU [0-9.]*; wall [0-9.]* s / [0-9.]* s)\$" "$r"'
sizes=$(awk -F'|' '/^\| `mix3[_a-z0-9]*\.data` \|/ { gsub(/[ `]/, "", $2); gsub(/ /, "", $8); printf "%s:%d:%d:%d:%d:%s ", $2, $3, $5, $6, $7, $8 }' "$r")
expect "bench_real: RSS against size, by size, RSS, blocks and rows > 0, ratio 1.00 for the 4 GiB file ($sizes)" \
	'[ "$(echo "$sizes" | awk "{ for (i = 1; i <= NF; i++) { split(\$i, a, \":\"); printf \"%s \", a[1] } }")" = "mix3_1m.data mix3.data mix3_3m.data mix3_4g.data mix3_whole.data " ] &&
	 ! echo "$sizes" | tr " " "\n" | grep -q ":0:\|:0$" &&
	 echo "$sizes" | tr " " "\n" | grep -q "^mix3_4g.data:4:[1-9][0-9]*:[1-9][0-9]*:[1-9][0-9]*:1.00$"'
# each file of the series holds the start of the next one's runs: as many blocks with data
# or more, file by file (the whole runs, last, are not a prefix)
expect "bench_real: blocks with data do not drop from one file of the series to the next ($sizes)" \
	'echo "$sizes" | awk "{ for (i = 1; i < NF - 1; i++) { split(\$i, a, \":\"); split(\$(i + 1), b, \":\"); if (b[4] + 0 < a[4] + 0) bad = 1 } } END { exit bad }"'
expect "bench_real: RESULTS.md has both 4 GiB / 1 GiB RSS lines of the 3-process files" \
	'grep -q "^RSS 4 GiB / RSS 1 GiB, side by side (3 processes, runs from the start): [0-9.]* (wanted" "$r" &&
	 grep -q "^RSS 4 GiB / RSS 1 GiB, side by side (3 processes, the 1 GiB file holding the whole runs): [0-9.]* (wanted" "$r"'
[ -n "$p2b" ] || skip "bench_real: perf2bolt not installed, its column not checked"

if [ $perf = 0 ]; then
	skip "bench_real: perf not installed, processes and threads not checked"
	exit 0
fi
# bench/distinct.sh: a file whose processes replay their recording 3 times holds 3 times the
# LBR samples and the same distinct stacks
$GEN --loops 1 -o "$TMP/l1.data" $srcs > /dev/null && $GEN --loops 3 -o "$TMP/l3.data" $srcs > /dev/null
set -- $(sh "$ROOT/bench/distinct.sh" "$TMP/l1.data" | awk '{ print $3, $5 }') \
	$(sh "$ROOT/bench/distinct.sh" "$TMP/l3.data" | awk '{ print $3, $5 }')
n1=$1 d1=$2 n3=$3 d3=$4
expect "bench_real: distinct.sh: 3x the LBR samples ($n1, $n3), the same distinct ($d1, $d3)" \
	'[ "$n1" -gt 0 ] && [ "$n3" -eq $((3 * n1)) ] && [ "$d1" -eq "$d3" ] && [ "$d1" -lt "$n3" ]'
nev=$(perf script -F event -i "$TMP/l1.data" 2> /dev/null | grep -c near_taken)
check "bench_real: distinct.sh counts the LBR event's samples ($n1, perf $nev)" [ "$n1" -eq "$nev" ]

for p in 3000 10000; do
	n=$(perf script --show-task-events -i "$d/mix$p.data" 2> /dev/null | grep -c 'PERF_RECORD_FORK')
	check "bench_real: mix$p.data holds $p processes (perf: $n)" [ "$n" -eq $p ]
done
samples=$(awk '/^samples / { print $2 }' "$d/threads.data.info")
perf script -F pid,tid -i "$d/threads.data" 2> /dev/null > "$TMP/pt"
expect "bench_real: threads.data: $samples samples, one process, 8 threads (perf)" \
	'[ "$(wc -l < "$TMP/pt")" -eq "$samples" ] &&
	 [ "$(awk "{ print \$1 }" "$TMP/pt" | cut -d/ -f1 | sort -u)" = 10000 ] &&
	 [ "$(awk "{ print \$1 }" "$TMP/pt" | cut -d/ -f2 | sort -u | wc -l)" -eq 8 ]'

# the converter's stack count (once its summary says it) is the number of LBR samples
d3=$("$HBBP" --diagnostics -o "$TMP/m.csv" "$d/mix3.data" 2>&1 >/dev/null |
	awk -f "$ROOT/bench/diag.awk")
set -- $d3
nst=$1 ndist=$2
if [ "$nst" = n/a ]; then
	skip "bench_real: the --diagnostics summary has no 'LBR stacks:' line yet"
else
	nlbr=$(perf script -F event -i "$d/mix3.data" 2> /dev/null | grep -c near_taken)
	# stacks that differ in their (from, to) addresses are distinct under any key; the
	# converter estimates the distinct count (a HyperLogLog sketch, within 5%)
	naddr=$(perf script -F event,brstack -i "$d/mix3.data" 2> /dev/null | grep near_taken |
		sed 's/^[^:]*: *//; s|\(0x[0-9a-f]*/0x[0-9a-f]*\)/[^ ]*|\1|g; s/ *$//' |
		sort -u | wc -l)
	expect "bench_real: LBR stacks $nst = perf's LBR samples $nlbr, 0.95 x $naddr <= distinct $ndist <= 1.05 x stacks" \
		'[ "$nst" -eq "$nlbr" ] && [ $((100 * ndist)) -ge $((95 * naddr)) ] &&
		 [ $((100 * ndist)) -le $((105 * nst)) ]'
fi
