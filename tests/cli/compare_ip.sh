#!/bin/sh
# compare's IP-level metrics (seed 002: weighted NRMSE, sample coverage, order deviation):
# per-instruction files written here with the values worked out by hand; then a pmusim run of
# tests/data/cgprog.c at period 1 with no effects, where HBBP is exact, so a `--by
# module,block` mix and the SQLite output must give NRMSE 0, coverage 1, order deviation 0
# and weighted error 0 against the simulator's --truth-insns; and ordinary periods, where
# they must not.
. "$(dirname "$0")/../lib.sh"
last() { tail -n 1 "$1"; }
ipline() { grep '^IP level' "$1"; }

# reference: 4 addresses, counts 10, 10, 5, 1 (NI = 26); measured: 3 of them, 6, 3, 1
# (NS = 10) where the reference has 10, 5, 1. Fractions c/NS .6 .3 .1, r/NI 10/26 5/26 1/26:
# NRMSE = sqrt(.6(.6-10/26)^2 + .3(.3-5/26)^2 + .1(.1-1/26)^2) / (.6 - 1/26) = 0.3170
# coverage = 16/26 = 0.6154; levels 1,2,3 on both sides: order deviation 0
cat > "$TMP/ref.csv" <<'EOF'
module,offset,address,count,mnemonic
/nonexistent/p,0x10,0x10,10,mov
/nonexistent/p,0x13,0x13,10,add
/nonexistent/p,0x20,0x20,5,mov
/nonexistent/p,0x30,0x30,1,ret
EOF
cat > "$TMP/meas.csv" <<'EOF'
module,offset,address,count,mnemonic
/nonexistent/p,0x10,0x10,6,mov
/nonexistent/p,0x20,0x20,3,mov
/nonexistent/p,0x30,0x30,1,ret
EOF
"$HBBP" compare --ref "$TMP/ref.csv" --normalize "$TMP/meas.csv" > "$TMP/out1" 2> /dev/null
check "compare_ip: hand-computed NRMSE 0.3170, coverage 0.6154, order deviation 0" \
	sh -c "grep '^IP level' '$TMP/out1' | grep -q 'weighted NRMSE 0.3170, sample coverage 0.6154, order deviation 0.000000'" 
# ties: measured 3, 3, 1 -> measured levels 1, 1, 2 against 1, 2, 3: weights 3/7 3/7 1/7,
# sqrt(4/7) = 0.7559, divided by m = 3: 0.251976
sed 's/,6,mov/,3,mov/' "$TMP/meas.csv" > "$TMP/meas2.csv"
"$HBBP" compare --ref "$TMP/ref.csv" "$TMP/meas2.csv" > "$TMP/out2" 2> /dev/null
check "compare_ip: hand-computed order deviation with ties 0.251976 (RMS 0.7559)" \
	sh -c "grep '^IP level' '$TMP/out2' | grep -q 'order deviation 0.251976 (weighted RMS level deviation 0.7559)'"

PMUSIM=$BUILD/pmusim
[ -x "$PMUSIM" ] || PMUSIM=$ROOT/pmusim
if ! command -v qemu-x86_64 > /dev/null || [ ! -x "$PMUSIM" ] || ! command -v cc > /dev/null; then
	skip "compare_ip: pmusim, qemu-x86_64 or cc missing"; exit 0
fi
if ! cc -O1 -static -o "$TMP/cgs" "$ROOT/tests/data/cgprog.c" 2> /dev/null; then
	fail "compare_ip: cannot build tests/data/cgprog.c"; exit 0
fi
env -i "$PMUSIM" --ebs-period 1 --lbr-period 1 --effects none -o "$TMP/p1.data" \
	--truth-insns "$TMP/ti.csv" -- "$TMP/cgs" > /dev/null 2> "$TMP/pm.err"
if [ ! -s "$TMP/ti.csv" ]; then fail "compare_ip: pmusim failed"; cat "$TMP/pm.err" >&2; exit 0; fi
"$HBBP" -q "$TMP/p1.data" --by module,block -o "$TMP/b.csv"
"$HBBP" -q "$TMP/p1.data" -o "$TMP/all.db"
for m in b.csv all.db; do
	"$HBBP" compare --ref "$TMP/ti.csv" "$TMP/$m" --by module > "$TMP/o.$m" 2>&1
	check "compare_ip: period 1, exact: $m against the truth: $(ipline "$TMP/o.$m" | cut -d: -f2)" \
		sh -c "grep '^IP level' '$TMP/o.$m' | grep -q 'common: weighted NRMSE 0.0000, sample coverage 1.0000, order deviation 0.000000' &&
		       [ \"\$(tail -n 1 '$TMP/o.$m')\" = 'average weighted error 0.00%' ]"
done
env -i "$PMUSIM" --ebs-period 997 --lbr-period 101 --effects realistic -o "$TMP/p2.data" \
	-- "$TMP/cgs" > /dev/null 2>&1
"$HBBP" -q "$TMP/p2.data" --by module,block -o "$TMP/b2.csv"
"$HBBP" compare --ref "$TMP/ti.csv" "$TMP/b2.csv" --by module > "$TMP/o2" 2>&1
set -- $(ipline "$TMP/o2" | sed 's/.*NRMSE \([0-9.]*\), sample coverage \([0-9.]*\), order deviation \([0-9.]*\).*/\1 \2 \3/')
check "compare_ip: sampled (periods 997/101, realistic effects): NRMSE $1 > 0, coverage $2 < 1, order deviation $3 > 0" \
	awk -v n="$1" -v c="$2" -v o="$3" 'BEGIN { exit !(n > 0 && c < 1 && c > 0 && o > 0) }'
