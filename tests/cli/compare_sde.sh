#!/bin/sh
# compare with an Intel SDE -mix reference: tests/data/sde/sde-mix-out.txt, written by hand in
# SDE's layout (no SDE output is at hand; the file says so). Its numbers are parsed exactly
# (global histogram, per-thread and per-function sections), errors against a measured mix are
# worked out by hand, malformed files exit 2 naming file and line, and, where valgrind is
# installed, the file's functions agree per iclass with a callgrind profile of the program
# whose counts it carries (tests/data/cgprog.c), which checks that bbmap's iclass names are
# SDE's.
. "$(dirname "$0")/../lib.sh"
SDE=$ROOT/tests/data/sde/sde-mix-out.txt
last() { tail -n 1 "$1"; }

# the reference's own numbers, read back through -o CSV (the measured side is one row)
printf 'iclass,count\nADD,1\n' > "$TMP/one.csv"
"$HBBP" compare --ref "$SDE" --by iclass -o "$TMP/ic.csv" "$TMP/one.csv" > "$TMP/out0" 2>&1
check "compare_sde: global iclass counts ADD 1501, JNZ 1250, RET_NEAR 255, SYSCALL 1, total 6336" \
	sh -c "grep -q '^ADD,1501,' '$TMP/ic.csv' && grep -q '^JNZ,1250,' '$TMP/ic.csv' &&
	       grep -q '^RET_NEAR,255,' '$TMP/ic.csv' && grep -q '^SYSCALL,1,' '$TMP/ic.csv' &&
	       grep -q '^total (counts)  *6336 ' '$TMP/out0'"
check "compare_sde: '*' group rows are not iclasses" sh -c "! grep -q '^\*' '$TMP/ic.csv'"
check "compare_sde: 17 iclasses" test "$(tail -n +2 "$TMP/ic.csv" | wc -l)" = 17
printf 'symbol,iclass,count\nmain,ADD,1\n' > "$TMP/one2.csv"
"$HBBP" compare --ref "$SDE" --by symbol,iclass -o "$TMP/fi.csv" "$TMP/one2.csv" > /dev/null 2>&1
check "compare_sde: per-function sections (cg_loop ROL 1000, cg_leaf RET_NEAR 250, main CALL_NEAR 251)" \
	sh -c "grep -q '^cg_loop,ROL,1000,' '$TMP/fi.csv' && grep -q '^cg_leaf,RET_NEAR,250,' '$TMP/fi.csv' &&
	       grep -q '^main,CALL_NEAR,251,' '$TMP/fi.csv' &&
	       grep -q '^__libc_start_main_impl,SYSCALL,1,' '$TMP/fi.csv'"
printf 'tid,count\n0,6336\n' > "$TMP/tid.csv"
"$HBBP" compare --ref "$SDE" --by tid "$TMP/tid.csv" > "$TMP/out1" 2>&1
check "compare_sde: per-thread section: thread 0 has 6336" test "$(last "$TMP/out1")" = "average weighted error 0.00%"

# errors by hand: every iclass as in the file except ROL 900 (-100), DEC 1100 (+100), no
# SYSCALL (1, 100% of its weight) and a NOP 10 SDE never saw: (100 + 100 + 1 + 10) / 6336
cat > "$TMP/meas.csv" <<'EOF'
iclass,count,share
ADD,1501,0
CALL_NEAR,254,0
CMP,250,0
DEC,1100,0
IMUL,250,0
JNZ,1250,0
JZ,5,0
LEA,250,0
MOV,297,0
POP,8,0
PUSH,8,0
RET_NEAR,255,0
ROL,900,0
SUB,1,0
TEST,5,0
XOR,1,0
NOP,10,0
EOF
"$HBBP" compare --ref "$SDE" "$TMP/meas.csv" > "$TMP/out2" 2>&1
check "compare_sde: (100+100+1+10)/6336 = 3.33% (iclass chosen by default)" \
	test "$(last "$TMP/out2")" = "average weighted error 3.33%"
check "compare_sde: per-iclass error ROL 10.00%" grep -q '^ROL  *1000  *900  *10.00%' "$TMP/out2"
# --normalize: meas total 6345; shares differ for every key: Σ|r/6336 - m/6345|
want=$(awk 'BEGIN { split("1501 254 250 1000 250 1250 5 250 297 8 8 255 1000 1 5 1 1 0", r, " ")
	split("1501 254 250 1100 250 1250 5 250 297 8 8 255 900 1 5 1 0 10", m, " ")
	for (i = 1; i <= 18; i++) { d = r[i] / 6336 - m[i] / 6345; s += d < 0 ? -d : d }
	printf "average weighted error %.2f%%", s * 100 }')
"$HBBP" compare --normalize --ref "$SDE" "$TMP/meas.csv" > "$TMP/out3" 2>&1
check "compare_sde: --normalize ($want)" test "$(last "$TMP/out3")" = "$want"

# malformed: a *total that is not the sum of the iclass rows; a bad count
sed 's/^\*total  *1515$/*total 1516/' "$SDE" > "$TMP/bad1.txt"
line=$(grep -n '^\*total 1516$' "$TMP/bad1.txt" | cut -d: -f1)
"$HBBP" compare --ref "$TMP/bad1.txt" "$TMP/meas.csv" > /dev/null 2> "$TMP/err1"
rc=$?
check "compare_sde: *total mismatch exits 2 naming bad1.txt:$line" \
	sh -c "[ $rc = 2 ] && [ -n '$line' ] && grep -q 'bad1.txt:$line: .*total' '$TMP/err1'"
sed 's/^IMUL  *250$/IMUL 25O/' "$SDE" > "$TMP/bad2.txt"
line=$(grep -n '^IMUL 25O$' "$TMP/bad2.txt" | head -n 1 | cut -d: -f1)
"$HBBP" compare --ref "$TMP/bad2.txt" "$TMP/meas.csv" > /dev/null 2> "$TMP/err2"
rc=$?
check "compare_sde: bad count exits 2 naming bad2.txt:$line" \
	sh -c "[ $rc = 2 ] && [ -n '$line' ] && grep -q 'bad2.txt:$line: bad count' '$TMP/err2'"

# against a real profile of the program the file describes
if ! command -v valgrind > /dev/null || ! command -v cc > /dev/null; then
	skip "compare_sde: valgrind or cc missing: no cross-check with callgrind"; exit 0
fi
if ! cc -O1 -static -o "$TMP/cgs" "$ROOT/tests/data/cgprog.c" 2> "$TMP/cc.err"; then
	fail "compare_sde: cannot build tests/data/cgprog.c"; exit 0
fi
env -i valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file="$TMP/cg.out" "$TMP/cgs" \
	> /dev/null 2>&1
"$HBBP" compare --ref "$SDE" --by symbol,iclass -o "$TMP/x.csv" "$TMP/cg.out" > /dev/null 2>&1
bad=$(awk -F, 'FNR > 1 && ($1 == "main" || $1 == "cg_loop" || $1 == "cg_leaf") {
		n++; if ($7 != $8) printf " %s,%s:%s/%s", $1, $2, $7, $8 } END { if (n != 18) printf " rows=%d", n }' "$TMP/x.csv")
check "compare_sde: main, cg_loop, cg_leaf per iclass equal callgrind's decoded counts${bad:+ (differ:$bad)}" \
	test -z "$bad"
