#!/bin/sh
# Undecodable bytes are counted and their weight shown, never silently renamed:
# tests/data/undecodable.S holds 0x06 (invalid in 64-bit mode) between two nops. objdump (an
# independent decoder) says "(bad)" at the same address; `hbbp-convert disasm` lists it as
# "(bad)", iclass INVALID, and counts 1 undecodable byte; a recording of 100 executions of the
# block puts weight 100 on it, shown in the summary and as the metadata key
# undecodable_weight; so does a block cut by an LBR target between two undecodable bytes
# (tests/data/undecodable_split.S), counted on the blocks as attributed.
. "$(dirname "$0")/../lib.sh"
PERFGEN=$BUILD/tools/perfgen
for t in cc readelf objdump; do
	command -v $t >/dev/null 2>&1 || { skip "disasm_undecodable: $t not installed"; exit 0; }
done
PROG=$TMP/bad
cc -nostdlib -static -Wl,--build-id -o "$PROG" "$ROOT/tests/data/undecodable.S" 2>"$TMP/cc.err" ||
	{ fail "disasm_undecodable: cannot assemble: $(head -1 "$TMP/cc.err")"; exit 0; }
START=0x$(readelf -sW "$PROG" | awk '$8 == "_start" { print $2 }')
BADAT=$(printf '%x' $((START + 1)))
"$HBBP" disasm -f csv "$PROG" > "$TMP/d.csv" 2>"$TMP/d.err"
check "disasm_undecodable: objdump also has (bad) at _start+1" \
	sh -c "objdump -d '$PROG' | grep -q '^ *$BADAT:.*(bad)'"
check "disasm_undecodable: disasm lists (bad), INVALID at _start+1 and counts 1 undecodable byte" \
	sh -c "grep -q '^0x$BADAT,1,(bad),,INVALID,INVALID,,INVALID,0,,0,_start$' '$TMP/d.csv' &&
	       grep -q ': 4 instructions, 1 undecodable bytes$' '$TMP/d.err'"
if [ ! -x "$PERFGEN" ]; then fail "disasm_undecodable: perfgen not built"; exit 0; fi
BID=$(readelf -n "$PROG" | awk '/Build ID/ { print $3 }')
set -- $(readelf -lW "$PROG" | awk '$1 == "LOAD" && / E / { print $2, $3 }')
cat > "$TMP/s.spec" <<SPEC
header hostname=bad osrelease=6.1.0 version=6.1.0 arch=x86_64 nrcpus=1
event name=inst_retired.prec_dist type=4 config=0x1c0 period=400 sample_type=ip,tid,time,id,period precise=2 ids=11 flags=disabled,inherit,mmap,comm,mmap2
comm pid=100 tid=100 name=bad exec time=1 id=11
mmap2 pid=100 tid=100 start=$2 len=0x1000 pgoff=$1 file=/bad/prog buildid=$BID prot=5 time=2 id=11
sample ev=0 pid=100 tid=100 ip=$START period=400 time=10
SPEC
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$PERFGEN" "$TMP/s.spec" "$TMP/s.data" 2>"$TMP/pg.err" ||
	{ fail "disasm_undecodable: perfgen: $(head -1 "$TMP/pg.err")"; exit 0; }
# 400 / 4 instructions = 100 executions; the (bad) byte is one of the 4
"$HBBP" --method ebs --binary /bad/prog="$PROG" --by mnemonic -o "$TMP/m.json" "$TMP/s.data" 2>"$TMP/c.err"
check "disasm_undecodable: metadata undecodable_weight 100" grep -q '"undecodable_weight": 100[,}]' "$TMP/m.json"
check "disasm_undecodable: the summary warns of 100 executed undecodable instructions (25.00%)" \
	grep -q 'warning: 100 executed instructions (25.00% of the total) are undecodable bytes, in 1 blocks' "$TMP/c.err"
check "disasm_undecodable: the mix names them (bad)" grep -q '"mnemonic": "(bad)", "count": 100' "$TMP/m.json"

# lbr_data PROG FILE COMM TO FROM OUT WHAT: OUT, a recording of PROG mapped as FILE in a
# process COMM, with one LBR sample (period 100) of two FROM -> TO branches: one stream
# TO .. FROM, weight 100 (exits the test on a perfgen failure, naming WHAT)
lbr_data() {
	set -- "$@" "$(readelf -n "$1" | awk '/Build ID/ { print $3 }')" \
		$(readelf -lW "$1" | awk '$1 == "LOAD" && / E / { print $2, $3 }')
	cat > "$6.spec" <<SPEC
header hostname=bad osrelease=6.1.0 version=6.1.0 arch=x86_64 nrcpus=1
event name=br_inst_retired.near_taken type=4 config=0x20c4 period=100 sample_type=ip,tid,time,id,period,branch_stack branch_sample_type=any,user ids=21 flags=disabled,inherit,mmap,comm,mmap2
comm pid=100 tid=100 name=$3 exec time=1 id=21
mmap2 pid=100 tid=100 start=${10} len=0x1000 pgoff=$9 file=$2 buildid=$8 prot=5 time=2 id=21
sample ev=0 pid=100 tid=100 ip=$4 period=100 time=10 br=$5/$4/-/5,$5/$4/-/5
SPEC
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$PERFGEN" "$6.spec" "$6" 2>"$TMP/pg.err" ||
		{ fail "disasm_undecodable: perfgen ($7): $(head -1 "$TMP/pg.err")"; exit 0; }
}

# The same block reached by an LBR stream only (no EBS sample in it): its weight is counted
# as well. Two ret -> _start branches: one stream _start .. ret, weight 100.
lbr_data "$PROG" /bad/prog bad "$START" 0x$(printf '%x' $((START + 3))) "$TMP/l.data" LBR
"$HBBP" --method lbr --binary /bad/prog="$PROG" --by mnemonic -o "$TMP/l.json" "$TMP/l.data" 2>"$TMP/l.err"
check "disasm_undecodable: by an LBR stream only, metadata undecodable_weight 100 and the warning" \
	sh -c "grep -q '\"undecodable_weight\": 100[,}]' '$TMP/l.json' &&
	       grep -q 'warning: 100 executed instructions (25.00% of the total) are undecodable bytes, in 1 blocks' '$TMP/l.err'"
# A block split by an LBR target between two undecodable bytes (tests/data/undecodable_split.S):
# the stream _start+3 .. ret, weight 100, runs one of them, 100 of its 400 instructions;
# the block that ends before it has no weight. Counted on the blocks as attributed, also where
# the output (CSV) lets the code go before the table is written.
SPLIT=$TMP/split
cc -nostdlib -static -Wl,--build-id -o "$SPLIT" "$ROOT/tests/data/undecodable_split.S" 2>"$TMP/cc.err" ||
	{ fail "disasm_undecodable: cannot assemble the split case: $(head -1 "$TMP/cc.err")"; exit 0; }
START=0x$(readelf -sW "$SPLIT" | awk '$8 == "_start" { print $2 }')
lbr_data "$SPLIT" /bad/split split 0x$(printf '%x' $((START + 3))) 0x$(printf '%x' $((START + 6))) \
	"$TMP/sp.data" split
for fmt in csv json; do
	"$HBBP" --method lbr --binary /bad/split="$SPLIT" --by mnemonic -o "$TMP/sp.$fmt" "$TMP/sp.data" 2>"$TMP/sp.$fmt.err"
done
check "disasm_undecodable: a block split between two undecodable bytes: 100 executed, in 1 block (CSV output)" \
	grep -q 'warning: 100 executed instructions (25.00% of the total) are undecodable bytes, in 1 blocks' "$TMP/sp.csv.err"
check "disasm_undecodable: the same split: metadata undecodable_weight 100, the mix's (bad) row 100 (JSON)" \
	sh -c "grep -q '\"undecodable_weight\": 100[,}]' '$TMP/sp.json' &&
	       grep -q '\"mnemonic\": \"(bad)\", \"count\": 100' '$TMP/sp.json'"
