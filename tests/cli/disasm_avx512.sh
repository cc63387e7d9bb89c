#!/bin/sh
# x86 decoding of AVX-512 (EVEX, masking, zeroing, zmm16-31, embedded broadcast, mask
# registers), AVX512-VNNI, AVX-VNNI and AMX: tests/data/avx512_amx.S assembled here, listed by
# `hbbp-convert disasm -f csv`, each instruction's iclass, ISA extension, ISA set, vector width
# and memory access compared with values written by hand from the Intel SDM (operand sizes,
# memory operands) and XED's instruction tables (names); then a synthetic recording over it,
# converted --by iclass, compared with a hand-written SDE -mix file at 0% error.
. "$(dirname "$0")/../lib.sh"
PERFGEN=$BUILD/tools/perfgen
for t in cc readelf; do
	command -v $t >/dev/null 2>&1 || { skip "disasm_avx512: $t not installed"; exit 0; }
done
PROG=$TMP/avx
if ! cc -nostdlib -static -Wl,--build-id -o "$PROG" "$ROOT/tests/data/avx512_amx.S" 2>"$TMP/cc.err"; then
	skip "disasm_avx512: the assembler does not know AVX-512/AMX: $(head -1 "$TMP/cc.err")"
	exit 0
fi
"$HBBP" disasm -f csv "$PROG" > "$TMP/d.csv" 2>"$TMP/d.err"
check "disasm_avx512: exit 0, 14 instructions, 0 undecodable bytes" \
	grep -q ': 14 instructions, 0 undecodable bytes$' "$TMP/d.err"

# address offset from _start, mnemonic, iclass, isa (XED extension), isa_set, width, mem.
# width: the widest vector register (zmm 512, ymm 256, an AMX tile 16 x 64 bytes = 8192;
# mask and general registers 0). mem: r/w from the SDM's operand encoding (a masked store
# writes; ldtilecfg reads its 64-byte configuration; tileloadd reads, tilestored writes;
# ret reads the return address).
cat > "$TMP/want" <<'W'
0 vaddps VADDPS AVX512EVEX AVX512F_512 512 -
6 vaddps VADDPS AVX512EVEX AVX512F_512 512 r
12 vmovdqu64 VMOVDQU64 AVX512EVEX AVX512F_512 512 w
18 vpcmpnequb VPCMPUB AVX512EVEX AVX512BW_512 512 -
25 kmovd KMOVD AVX512VEX AVX512BW_KOP 0 -
29 vpdpbusd VPDPBUSD AVX512EVEX AVX512_VNNI_512 512 -
35 vpdpbusd VPDPBUSD AVX512EVEX AVX512_VNNI_256 256 r
41 vpdpbusd VPDPBUSD AVX_VNNI AVX_VNNI 256 -
46 ldtilecfg LDTILECFG AMX_TILE AMX_TILE 0 r
51 tileloadd TILELOADD AMX_TILE AMX_TILE 8192 r
57 tdpbssd TDPBSSD AMX_INT8 AMX_INT8 8192 -
62 tilestored TILESTORED AMX_TILE AMX_TILE 8192 w
68 tilerelease TILERELEASE AMX_TILE AMX_TILE 0 -
73 ret RET_NEAR BASE I86 0 r
W
# the CSV's operands are quoted when they hold commas: read it with a quote-aware split
awk 'function hex(s,   v, i) { v = 0; s = tolower(substr(s, 3))
	for (i = 1; i <= length(s); i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
	return v }
NR == 1 { next } {
	line = $0; n = 0
	while (line != "") {
		if (substr(line, 1, 1) == "\"") { match(line, /^"([^"]|"")*"/); f = substr(line, 2, RLENGTH - 2); line = substr(line, RLENGTH + 2) }
		else { i = index(line, ","); if (i == 0) { f = line; line = "" } else { f = substr(line, 1, i - 1); line = substr(line, i + 1) } }
		c[++n] = f
	}
	if (NR == 2) base = hex(c[1])
	printf "%d %s %s %s %s %s %s\n", hex(c[1]) - base, c[3], c[5], c[6], c[7], c[9], c[10] == "" ? "-" : c[10]
}' "$TMP/d.csv" > "$TMP/got"
if diff -u "$TMP/want" "$TMP/got" > "$TMP/diff"; then
	pass "disasm_avx512: iclass, isa, isa_set, width and mem of 14 instructions as in the SDM and XED"
else
	fail "disasm_avx512: iclass, isa, isa_set, width and mem of 14 instructions as in the SDM and XED"
	cat "$TMP/diff" >&2
fi
# masking, zeroing, broadcast and zmm16-31 show in the operand text
check "disasm_avx512: operands keep {k1} {z}, {1to16}, zmm17, zmm30" \
	sh -c "grep -q 'zmm1 {k1} {z}, zmm2, zmm3' '$TMP/d.csv' &&
	       grep -q 'zmm17, zmm18, dword ptr \[rax\] {1to16}' '$TMP/d.csv' &&
	       grep -q 'zmmword ptr \[rdi\] {k2}, zmm30' '$TMP/d.csv'"

# A recording: one EBS sample of period 1400 on the block (14 instructions): 100 executions,
# 100 per instruction; as in the hand-written SDE file.
if [ ! -x "$PERFGEN" ]; then fail "disasm_avx512: perfgen not built ($PERFGEN)"; exit 0; fi
START=0x$(readelf -sW "$PROG" | awk '$8 == "_start" { print $2 }')
BID=$(readelf -n "$PROG" | awk '/Build ID/ { print $3 }')
set -- $(readelf -lW "$PROG" | awk '$1 == "LOAD" && / E / { print $2, $3 }')
cat > "$TMP/a.spec" <<SPEC
header hostname=avx osrelease=6.1.0 version=6.1.0 arch=x86_64 nrcpus=1
event name=inst_retired.prec_dist type=4 config=0x1c0 period=1400 sample_type=ip,tid,time,id,period precise=2 ids=11 flags=disabled,inherit,mmap,comm,mmap2
comm pid=100 tid=100 name=avx exec time=1 id=11
mmap2 pid=100 tid=100 start=$2 len=0x1000 pgoff=$1 file=/avx/prog buildid=$BID prot=5 time=2 id=11
sample ev=0 pid=100 tid=100 ip=$START period=1400 time=10
SPEC
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$PERFGEN" "$TMP/a.spec" "$TMP/a.data" 2>"$TMP/pg.err" ||
	{ fail "disasm_avx512: perfgen: $(head -1 "$TMP/pg.err")"; exit 0; }
"$HBBP" -q --method ebs --binary /avx/prog="$PROG" --by iclass -o "$TMP/mix.csv" "$TMP/a.data" 2>"$TMP/c.err"
"$HBBP" compare --ref "$ROOT/tests/data/sde/avx512-mix-out.txt" --by iclass "$TMP/mix.csv" > "$TMP/cmp" 2>&1
check "disasm_avx512: the SDE-style mix compares at 0% error by iclass" \
	sh -c "tail -n 1 '$TMP/cmp' | grep -qx 'average weighted error 0.00%' &&
	       grep -q '^VPDPBUSD,300,' '$TMP/mix.csv' && grep -q '^TDPBSSD,100,' '$TMP/mix.csv'"
grep -q '0.00%' "$TMP/cmp" || cat "$TMP/cmp" "$TMP/c.err" "$TMP/mix.csv" >&2

# --by isa_set: the ISA sets of the table above (its 5th column, from XED's tables), 100
# executions each instruction; ties in the order of their names.
"$HBBP" -q --method ebs --binary /avx/prog="$PROG" --by isa_set -o "$TMP/set.csv" "$TMP/a.data" \
	2>"$TMP/s.err"
awk '{ n[$5] += 100 } END { for (s in n) print s "," n[s] }' "$TMP/want" |
	LC_ALL=C sort -t, -k2,2nr -k1,1 > "$TMP/set.want"
sed 1d "$TMP/set.csv" | cut -d, -f1,2 > "$TMP/set.got"
expect "disasm_avx512: --by isa_set counts the ISA set of each instruction (XED's names)" \
	'head -n 1 "$TMP/set.csv" | grep -q "^isa_set,count," && cmp -s "$TMP/set.want" "$TMP/set.got"'
diff -u "$TMP/set.want" "$TMP/set.got" >&2 || cat "$TMP/s.err" >&2

# --by iclass,elem: the element type and size of the first operand shown that is not an
# immediate, by hand from the SDM where it is plain: VADDPS packed singles (f32), VMOVDQU64
# quadwords (i64, the store's memory operand), VPDPBUSD dword accumulators (i32); RET and
# TILERELEASE show no operand (none). 100 executions each instruction.
"$HBBP" -q --method ebs --binary /avx/prog="$PROG" --by iclass,elem -o "$TMP/elem.csv" "$TMP/a.data" \
	2>"$TMP/e.err"
expect "disasm_avx512: --by elem gives the element type and size (f32, i64, i32, none)" \
	'head -n 1 "$TMP/elem.csv" | grep -q "^iclass,elem,count," &&
	 grep -q "^VADDPS,f32,200," "$TMP/elem.csv" && grep -q "^VMOVDQU64,i64,100," "$TMP/elem.csv" &&
	 grep -q "^VPDPBUSD,i32,300," "$TMP/elem.csv" && grep -q "^RET_NEAR,none,100," "$TMP/elem.csv" &&
	 grep -q "^TILERELEASE,none,100," "$TMP/elem.csv"'
grep -q "^VADDPS,f32,200," "$TMP/elem.csv" || cat "$TMP/elem.csv" "$TMP/e.err" >&2
