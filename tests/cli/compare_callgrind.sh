#!/bin/sh
# compare reading real valgrind callgrind profiles (--dump-instr=yes) of tests/data/cgprog.c,
# built static and as a dynamic PIE: the counts of the program's own functions are facts of
# its source (cg_loop(1000): xor 1, add/rol/dec/jne 1000 each, ret 1; cg_leaf called 250
# times: lea/imul/ret 250 each; main makes 251 calls: the inclusive call costs must not be
# added to the call instructions); then against pmusim's exact truth of the same static run:
# every function of the program agrees exactly, and the whole-run totals differ by the C
# library start-up (valgrind's CPU vs qemu's), which is reported.
. "$(dirname "$0")/../lib.sh"
for tool in valgrind cc; do
	if ! command -v $tool > /dev/null; then skip "compare_callgrind: $tool not installed"; exit 0; fi
done
SRC=$ROOT/tests/data/cgprog.c
if ! cc -O1 -static -o "$TMP/cgs" "$SRC" 2> "$TMP/cc.err" ||
   ! cc -O1 -pie -fPIE -o "$TMP/cgd" "$SRC" 2>> "$TMP/cc.err"; then
	fail "compare_callgrind: cannot build tests/data/cgprog.c"; cat "$TMP/cc.err" >&2; exit 0
fi
printf 'symbol,mnemonic,count\ncg_loop,xor,1\n' > "$TMP/one.csv"
cat > "$TMP/expect" <<'EOF'
cg_loop,xor 1
cg_loop,add 1000
cg_loop,rol 1000
cg_loop,dec 1000
cg_loop,jne 1000
cg_loop,ret 1
cg_leaf,lea 250
cg_leaf,imul 250
cg_leaf,ret 250
main,call 251
EOF
for b in cgs cgd; do
	env -i valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file="$TMP/$b.cg" \
		"$TMP/$b" > /dev/null 2> "$TMP/$b.err"
	if [ ! -s "$TMP/$b.cg" ]; then
		fail "compare_callgrind: $b: valgrind failed"; cat "$TMP/$b.err" >&2; continue
	fi
	"$HBBP" compare --ref "$TMP/$b.cg" --by symbol,mnemonic -o "$TMP/$b.csv" "$TMP/one.csv" \
		> "$TMP/$b.out" 2>&1
	# reference_count (column 7) of each expected row; cg_loop and cg_leaf have no others
	bad=$(awk -F, 'NR == FNR { split($0, a, " "); want[a[1]] = a[2]; next }
		FNR > 1 { k = $1 "," $2; if (k in want) { got[k] = $7 }
			  else if ($1 == "cg_loop" || $1 == "cg_leaf") extra = extra " " k "=" $7 }
		END { for (k in want) if (got[k] != want[k]) printf " %s=%s(want %s)", k, got[k], want[k]
		      printf "%s", extra }' "$TMP/expect" "$TMP/$b.csv")
	check "compare_callgrind: $b: exact counts of cg_loop, cg_leaf and main's calls${bad:+ (wrong:$bad)}" \
		test -z "$bad"
done
if grep -q 'cgd bias 0x' "$TMP/cgd.out"; then
	pass "compare_callgrind: PIE load bias reported: $(grep -o 'cgd bias 0x[0-9a-f]* ([0-9]* functions agree)' "$TMP/cgd.out")"
else
	fail "compare_callgrind: PIE load bias not reported"
fi

PMUSIM=$BUILD/pmusim
[ -x "$PMUSIM" ] || PMUSIM=$ROOT/pmusim
if ! command -v qemu-x86_64 > /dev/null || [ ! -x "$PMUSIM" ]; then
	skip "compare_callgrind: pmusim or qemu-x86_64 missing: no comparison with pmusim's truth"
	exit 0
fi
env -i "$PMUSIM" -o "$TMP/s.data" --truth-insns "$TMP/ti.csv" -- "$TMP/cgs" > /dev/null 2> "$TMP/pm.err"
if [ ! -s "$TMP/ti.csv" ]; then
	fail "compare_callgrind: pmusim failed"; cat "$TMP/pm.err" >&2; exit 0
fi
"$HBBP" compare --ref "$TMP/cgs.cg" --by symbol -o "$TMP/sym.csv" "$TMP/ti.csv" > "$TMP/sym.out" 2>&1
# columns: symbol,reference,measured,abs_diff,error,reference_count,measured_count
set -- $(awk -F, 'FNR > 1 { rt += $6; mt += $7
		if ($1 == "main" || $1 == "cg_loop" || $1 == "cg_leaf") { own += $6; if ($6 != $7) bad++ } }
	END { printf "%.0f %.0f %.0f %d\n", rt, mt, own, bad }' "$TMP/sym.csv")
cgt=$1 simt=$2 own=$3 bad=$4
check "compare_callgrind: cgs: main, cg_loop, cg_leaf agree with pmusim ($own instructions, $bad functions differ); whole run callgrind $cgt, pmusim $simt, difference $((cgt - simt)) (C library start-up)" \
	test "$bad" = 0 -a "$own" -gt 5000
"$HBBP" compare --ref "$TMP/cgs.cg" --by symbol,mnemonic -o "$TMP/sm.csv" "$TMP/ti.csv" > /dev/null 2>&1
bad=$(awk -F, 'FNR > 1 && ($1 == "main" || $1 == "cg_loop" || $1 == "cg_leaf") && $7 != $8 { printf " %s,%s", $1, $2 }' "$TMP/sm.csv")
check "compare_callgrind: cgs: per-mnemonic counts of the program's functions agree with pmusim${bad:+ (differ:$bad)}" \
	test -z "$bad"
check "compare_callgrind: IP-level metrics reported against pmusim" grep -q '^IP level (seed 002)' "$TMP/sym.out"
