#!/bin/sh
# hbbp-convert annotate: the text form of a hand-made recording against a golden file whose
# counts are computed by hand (tests/golden/annotate_text.expected: the blocks of c, d, e of
# tests/data/golden_prog.S, as tests/golden/golden_hbbp.expected derives them: c 10 x 2 and
# 35 x 4, d 25 x 2, e 200 x 3 of a total 11010). The 95% intervals by method.md §10 with
# K = 10 batches, t(9) = 2.262, plain batch means (some batch holds no weight: the samples,
# at times 10 to 25, fall one time unit per batch): a count from one sample has
# s/sqrt(K) = count, so
# [0, count x 3.262]: e 200 -> 652, c's first block 10 -> 33, d 25 -> 82; c+4's 35 = 25 + 10
# from two samples in two batches: s^2 = ((250-35)^2 + (100-35)^2 + 8 x 35^2) / 9, half-width
# 2.262 x s / sqrt(10) = 58.5, so [0, 94]. On the demo,
# main's per-instruction counts add up to main's count in the mix; on a period-1, no-effect
# simulator recording of tests/data/hotloop.c every instruction of hot_loop has exactly the
# count pmusim --truth-insns gives; usage and input errors.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/golden_lib.sh"
HEX="-f $ROOT/tests/cli/hex.awk"

# ---- golden text form ----
[ $golden_ok = 1 ] && golden_setup
if [ $golden_ok != 1 ]; then
	skip "annotate_golden_text: $golden_why"
elif [ $golden_layout_ok != 1 ]; then
	fail "annotate_golden_text: golden_prog.S layout differs from what the test assumes"
else
	golden_spec "$TMP/g.spec"
	if run_perfgen "$TMP/g.spec" "$TMP/g.data" 2>"$TMP/perfgen.err" &&
	   "$HBBP" annotate -q --no-color --binary /golden/prog="$PROG" --symbol c --symbol d \
		--symbol e "$TMP/g.data" > "$TMP/ann.txt" 2>"$TMP/ann.err"; then
		nm "$PROG" > "$TMP/nm.txt"
		awk $HEX -f "$ROOT/tests/cli/annotate_norm.awk" "$TMP/nm.txt" "$TMP/ann.txt" > "$TMP/ann.norm"
		if diff -u "$ROOT/tests/golden/annotate_text.expected" "$TMP/ann.norm" >&2; then
			pass "annotate_golden_text: c, d and e as computed by hand"
		else
			fail "annotate_golden_text: differs from tests/golden/annotate_text.expected"
		fi
	else
		fail "annotate_golden_text: perfgen or annotate failed"; cat "$TMP/perfgen.err" "$TMP/ann.err" >&2
	fi
	# a function that is not there: a warning naming it, exit 0
	"$HBBP" annotate -q --binary /golden/prog="$PROG" --symbol nosuch "$TMP/g.data" \
		> "$TMP/none.txt" 2>"$TMP/none.err"
	rc=$?
	expect "annotate_missing_symbol: exit 4 (nothing found), the error names it, nothing listed" \
		'[ $rc = 4 ] && grep -q "error: .*no function .nosuch." "$TMP/none.err" && [ ! -s "$TMP/none.txt" ]'
	# no intervals in the result: the text says so, the CSV leaves count_lo/count_hi empty
	# (never a made-up interval); with intervals, both must be numbers around the count
	"$HBBP" annotate -q -f csv --binary /golden/prog="$PROG" --symbol c "$TMP/g.data" \
		> "$TMP/c.csv" 2>"$TMP/c.err"
	check "annotate_csv_intervals: empty or bracketing the count, never made up" \
		awk -F, 'NR == 1 { ok = ($0 == "module,symbol,address,count,count_lo,count_hi,instruction,block,source,srcline"); next }
			{ n++; if ($5 == "" && $6 == "") { none++; next }
			  if (!($5 <= $4 && $4 <= $6)) ok = 0 }
			END { exit !(ok && n == 6 && (none == 0 || none == n)) }' "$TMP/c.csv"
fi

# ---- the demo: per-instruction counts of main add up to main's count in the mix ----
DEMO=$ROOT/samples/demo
"$HBBP" annotate -q -f csv --binary vector="$DEMO/vector" --symbol main "$DEMO/perf.data" \
	> "$TMP/main.csv" 2>"$TMP/main.err" &&
"$HBBP" -q --binary vector="$DEMO/vector" --by symbol -o "$TMP/mix.csv" "$DEMO/perf.data" \
	2>>"$TMP/main.err"
set -- $(awk -F, 'NR == FNR { if ($1 == "main") m = $2; next }
	FNR > 1 && $2 == "main" { s += $4; n++ }
	END { printf "%d %.17g %.17g\n", n, s, m }' "$TMP/mix.csv" "$TMP/main.csv")
# (the mix's count is rounded: to an integer from 1000 on, writers/SCHEMA.md)
check "annotate_demo_main: $1 instructions of main add up to $2 (mix: $3)" \
	awk -v n="$1" -v s="$2" -v m="$3" 'BEGIN { d = s - m; if (d < 0) d = -d; exit !(n > 50 && m >= 1000 && d <= 0.5 + 1e-9 * m) }'

# ---- exact counts from the simulator with no effects ----
PMUSIM=$BUILD/pmusim
[ -x "$PMUSIM" ] || PMUSIM=$ROOT/pmusim
if ! command -v qemu-x86_64 >/dev/null; then
	skip "annotate_pmusim_exact: qemu-x86_64 not installed"
elif ! command -v cc >/dev/null || ! cc -O2 -g -no-pie -o "$TMP/hl" "$ROOT/tests/data/hotloop.c" 2>"$TMP/cc.err"; then
	skip "annotate_pmusim_exact: cannot compile tests/data/hotloop.c"
elif ! "$PMUSIM" --ebs-period 1 --lbr-period 1 --lbr-depth 8 --effects none -o "$TMP/hl.data" \
	--truth-insns "$TMP/hl.truth.csv" -- "$TMP/hl" 1000 >/dev/null 2>"$TMP/pm.err"; then
	fail "annotate_pmusim_exact: pmusim failed"; cat "$TMP/pm.err" >&2
else
	"$HBBP" annotate -q -f csv --symbol hot_loop "$TMP/hl.data" > "$TMP/hl.csv" 2>"$TMP/hl.err"
	set -- $(nm -S "$TMP/hl" | awk '$4 == "hot_loop" { print $1, $2 }')
	# every truth address inside hot_loop is listed with its exact count, and nothing else
	cat > "$TMP/cmp.awk" <<'AWK'
BEGIN { lo = hex2num(lo); hi = lo + hex2num(sz) }
NR == FNR { if (FNR > 1) { a = hex2num($3); if (a >= lo && a < hi) t[a] = $4 }; next }
FNR > 1 { a = hex2num($3); n++; if (!(a in t)) { if ($4 != 0) bad++; next }
	  d = $4 - t[a]; if (d < 0) d = -d; if (d > 1e-9 * t[a]) bad++; seen[a] = 1 }
END { for (a in t) { nt++; if (!(a in seen)) bad++ }; printf "%d %d %d", nt, n, bad + 0 }
AWK
	res=$(awk $HEX -f "$TMP/cmp.awk" -v lo="$1" -v sz="$2" -F, "$TMP/hl.truth.csv" "$TMP/hl.csv")
	set -- $res
	check "annotate_pmusim_exact: hot_loop: $2 listed, $1 in the truth, $3 differ" \
		test "$1" -gt 10 -a "$1" = "$2" -a "$3" = 0
fi

# ---- usage and input errors ----
"$HBBP" annotate --bogus x.data >/dev/null 2>&1; rc1=$?
"$HBBP" annotate -f xml "$DEMO/perf.data" >/dev/null 2>&1; rc2=$?
"$HBBP" annotate "$TMP/does-not-exist.data" >/dev/null 2>&1; rc3=$?
"$HBBP" annotate >/dev/null 2>&1; rc4=$?
check "annotate_errors: unknown option 1, bad format 1, missing file 2, no file 1 ($rc1 $rc2 $rc3 $rc4)" \
	test "$rc1" = 1 -a "$rc2" = 1 -a "$rc3" = 2 -a "$rc4" = 1
