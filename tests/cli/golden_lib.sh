# Shared setup of the golden HBBP tests (sourced after tests/lib.sh): assembles
# tests/data/golden_prog.S, reads its block addresses with nm (checked against objdump),
# and writes the synthetic recording's perfgen spec. Not a test by itself.
PERFGEN=$BUILD/tools/perfgen
golden_ok=1
golden_why=
for t in cc nm objdump readelf awk; do
	command -v $t >/dev/null 2>&1 || { golden_ok=0; golden_why="$t not installed"; }
done
[ -x "$PERFGEN" ] || { golden_ok=0; golden_why="perfgen not built ($PERFGEN)"; }
[ -x "$HBBP" ] || { golden_ok=0; golden_why="hbbp-convert not built ($HBBP)"; }

# perfgen is a test tool: its own leaks (under SAN builds) are not what these tests check
run_perfgen() { ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$PERFGEN" "$@"; }
sym() { printf '0x%x' $((0x$(nm "$PROG" | awk -v s="$1" '$3 == s { print $1 }'))); }
hex() { printf '0x%x' $(($1)); }
# insn_at ADDR MNEMONIC: objdump shows MNEMONIC at ADDR (an oracle independent of the tool)
insn_at() {
	a=$(printf '%x' $(($1)))
	objdump -d --no-show-raw-insn "$PROG" | awk -v a="$a:" '$1 == a { print $2 }' | grep -qx "$2"
}

golden_setup() {
	PROG=$TMP/prog
	cc -nostdlib -static -Wl,--build-id -o "$PROG" "$ROOT/tests/data/golden_prog.S" 2>"$TMP/cc.err" ||
		{ golden_ok=0; golden_why="cannot assemble golden_prog.S: $(head -1 "$TMP/cc.err")"; return; }
	S=$(sym _start); B18=$(sym b18); B19=$(sym b19); C=$(sym c); D=$(sym d); E=$(sym e)
	F40=$(sym f40)
	S_JNE=$(hex "$S + 10"); B18_JNE=$(hex "$B18 + 34"); B19_JNE=$(hex "$B19 + 36")
	C_MID=$(hex "$C + 4"); C_RET=$(hex "$C + 10"); D_JMP=$(hex "$D + 7"); E_RET=$(hex "$E + 4")
	F40_RET=$(hex "$F40 + 78")
	BID=$(readelf -n "$PROG" | awk '/Build ID/ { print $3 }')
	# text segment: offset and vaddr of the executable PT_LOAD
	set -- $(readelf -lW "$PROG" | awk '$1 == "LOAD" && / E / { print $2, $3 }')
	TEXT_OFF=$1 TEXT_VADDR=$2
	golden_layout_ok=1
	insn_at "$S_JNE" jne && insn_at "$B18_JNE" jne && insn_at "$B19_JNE" jne &&
	insn_at "$C_MID" inc && insn_at "$C_RET" ret && insn_at "$D_JMP" jmp &&
	insn_at "$E_RET" ret && insn_at "$F40_RET" ret && [ -n "$BID" ] || golden_layout_ok=0
}

# golden_spec FILE [mux]: the recording. With "mux" the EBS event carries READ values saying it
# ran half of the time it was enabled (multiplexing scale 2).
golden_spec() {
	if [ "$2" = mux ]; then
		ebs_extra=",read read_format=total_time_enabled,total_time_running"
		last_read="time_enabled=2000 time_running=1000"
	else
		ebs_extra= last_read=
	fi
	cat > "$1" <<SPEC
header hostname=goldenhost osrelease=6.1.0-golden version=6.1.0 arch=x86_64 nrcpus=2 cmdline="perf record -b -e inst_retired.prec_dist -e br_inst_retired.near_taken ./prog" branch_stack
event name=inst_retired.prec_dist type=4 config=0x1c0 freq=4000 sample_type=ip,tid,time,id,period,branch_stack$ebs_extra branch_sample_type=any,user precise=2 ids=11 flags=disabled,inherit,mmap,comm,mmap2,comm_exec
event name=br_inst_retired.near_taken type=4 config=0x20c4 period=100 sample_type=ip,tid,time,id,period,branch_stack branch_sample_type=any,user ids=21 flags=disabled,inherit
comm pid=100 tid=100 name=prog exec time=1 id=11
mmap2 pid=100 tid=100 start=$TEXT_VADDR len=0x1000 pgoff=$TEXT_OFF file=/golden/prog buildid=$BID prot=5 time=2 id=11
mmap2 pid=100 tid=100 start=0x501000 len=0x1000 pgoff=0x1000 file=/golden/other prot=5 time=3 id=11
# EBS samples: per-sample periods (freq mode). Their branch stacks must be ignored.
sample ev=0 pid=100 tid=100 ip=$(hex "$B19 + 4") period=1000 time=10 br=$B18_JNE/$S,$B19_JNE/$B18
sample ev=0 pid=100 tid=100 ip=$(hex "$B19 + 10") period=2000 time=11
sample ev=0 pid=100 tid=100 ip=$B19_JNE period=800 time=12
sample ev=0 pid=100 tid=100 ip=$(hex "$B18 + 2") period=1800 time=13
sample ev=0 pid=100 tid=100 ip=$(hex "$S + 5") period=400 time=14
sample ev=0 pid=100 tid=100 ip=$E period=600 time=15
sample ev=0 pid=100 tid=100 ip=$(hex "$C + 6") period=400 time=16
sample ev=0 pid=100 tid=100 ip=0x501010 period=500 time=17
sample ev=0 pid=100 tid=100 ip=0x900000 period=300 time=18 $last_read
# LBR samples (newest entry first). L1: 3 streams of 100.
sample ev=1 pid=100 tid=100 ip=$S period=300 time=20 br=$B19_JNE/$S,$B18_JNE/$S,$S_JNE/$S,$B19_JNE/$S
# L2: d -> jmp *%rax, then c+4 -> ret: 2 streams of 25 (c+4 becomes a leader)
sample ev=1 pid=100 tid=100 ip=$S period=50 time=21 br=$C_RET/$S,$D_JMP/$C_MID,$B19_JNE/$D
# L3: c -> ret through both halves of c: 1 stream of 10
sample ev=1 pid=100 tid=100 ip=$S period=10 time=22 br=$C_RET/$S,$B19_JNE/$C
# L4: 4 streams of 100, all rejected: walk over ret, cross-module, unmapped, to>from
sample ev=1 pid=100 tid=100 ip=$S period=400 time=23 br=$E_RET/0x900010,0x501020/$C,0x900000/$S,$S_JNE/$B19,$B19_JNE/$B18
# L5: a wrong-path speculative entry (PERF_BR_SPEC 1 = bit 24): 1 stream of 7 rejected
sample ev=1 pid=100 tid=100 ip=$S period=7 time=24 br=$S_JNE/$S,$B19_JNE/$S/16777216
# L6: f40 only from LBR: 1 stream of 20
sample ev=1 pid=100 tid=100 ip=$S period=20 time=25 br=$F40_RET/$S,$E_RET/$F40
throttle time=30 id=11
lost id=21 n=3
SPEC
}

# mix_cmp OUT.csv EXPECTED: the two key columns and count agree row for row with EXPECTED
# (comments skipped), and share = count / total, to the rounding the text outputs apply
# (writers/SCHEMA.md: counts to integers from 1000 on, else 4 significant digits; shares to 6
# significant digits); count and share found by name in OUT's header.
mix_cmp() {
	grep -v '^#' "$2" > "$TMP/exp.rows"
	awk -F, 'NR == FNR { k[NR] = $1 "," $2; c[NR] = $3; n = NR; tot += $3; next }
		FNR == 1 { for (j = 1; j <= NF; j++) col[$j] = j; next }
		{ i = FNR - 1; x = $col["count"]; sh = $col["share"]
		  if (i > n) { printf "extra row %d: %s\n", i, $0; bad = 1; next }
		  if ($1 "," $2 != k[i]) { printf "row %d: %s,%s != %s\n", i, $1, $2, k[i]; bad = 1 }
		  d = x - c[i]; if (d < 0) d = -d
		  if (d > (c[i] >= 1000 ? 0.5 : 5e-4 * c[i]) + 1e-9) { printf "row %d: count %s != %s\n", i, x, c[i]; bad = 1 }
		  s = sh - c[i] / tot; if (s < 0) s = -s
		  if (s > 5e-6 * c[i] / tot + 1e-12) { printf "row %d: share %s != %.12g\n", i, sh, c[i] / tot; bad = 1 }
		  m = i }
		END { if (m != n) { printf "%d rows, expected %d\n", m, n; bad = 1 }; exit bad }' \
		"$TMP/exp.rows" "$1" >&2
}
