#!/bin/sh
# Where `hbbp-convert disasm` and `objdump -d` disagree on instruction starts, the processor
# decides: tests/data/resync.S, stripped, is run under ptrace one instruction at a time
# (tools/x86_steps prints every address it executes).
#  - f (no symbol; its FDE gives its start, and _start calls it) follows 3 bytes of zero
#    padding. objdump resyncs only at symbols: it decodes 00 50 48 as add [rax+0x48],dl
#    across f's start and misses f's first two instructions. disasm starts f at its FDE, where
#    the processor executes it. Given f as a symbol (objcopy), objdump agrees.
#  - g begins with 4f 47 41 4d 53, push r11 after three REX prefixes the SDM says are ignored
#    (vol. 2, 2.2.1). The processor executes the 5 bytes in one step; objdump lists three of
#    the REX bytes as instructions of their own; disasm lists one push r11 of 5 bytes.
#  - w: fstcw, which is FWAIT (9B) then FNSTCW: two instructions for the processor, XED and
#    disasm; one for objdump.
# So these differences are objdump's, and every address the processor executes is an
# instruction start in disasm's listing. tests/od_stream.awk sorts the differences on whole
# binaries into these causes (make objdump-big).
. "$(dirname "$0")/../lib.sh"
STEPS=$BUILD/tools/x86_steps
for t in cc strip objcopy objdump readelf; do
	command -v $t >/dev/null 2>&1 || { skip "disasm_objdump_resync: $t not installed"; exit 0; }
done
[ "$(uname -m)" = x86_64 ] || { skip "disasm_objdump_resync: not an x86-64 machine"; exit 0; }
if [ ! -x "$STEPS" ]; then fail "disasm_objdump_resync: $STEPS not built"; exit 0; fi
if ! cc -nostdlib -static -Wl,--eh-frame-hdr -o "$TMP/full" "$ROOT/tests/data/resync.S" \
	2>"$TMP/cc.err"; then
	fail "disasm_objdump_resync: cannot assemble: $(head -1 "$TMP/cc.err")"; exit 0
fi
F=$(nm "$TMP/full" | awk '$3 == "f" { sub(/^0+/, "", $1); print $1 }')
G=$(nm "$TMP/full" | awk '$3 == "g" { sub(/^0+/, "", $1); print $1 }')
W=$(nm "$TMP/full" | awk '$3 == "w" { sub(/^0+/, "", $1); print $1 }')
TEXT=$(readelf -SW "$TMP/full" | awk '{ for (i = 1; i < NF; i++) if ($i == ".text") print $(i + 2) }')
strip -o "$TMP/p" "$TMP/full"
hexa() { printf '%x' $(($1)); }
G1=$(hexa 0x$G+1) G2=$(hexa 0x$G+2) G3=$(hexa 0x$G+3) G5=$(hexa 0x$G+5) W1=$(hexa 0x$W+1)

"$STEPS" "$TMP/p" > "$TMP/cpu.txt" 2>"$TMP/steps.err"
rc=$?
if [ $rc = 2 ]; then skip "disasm_objdump_resync: cannot single-step here: $(cat "$TMP/steps.err")"; exit 0; fi
sed 's/^0x//' "$TMP/cpu.txt" | sort > "$TMP/cpu.s"
objdump -d -z -M intel --no-show-raw-insn "$TMP/p" > "$TMP/od.txt"
awk -F'\t' '/^ *[0-9a-f]+:\t/ { a = $1; sub(/:$/, "", a); sub(/^ +/, "", a); print a }' \
	"$TMP/od.txt" | sort > "$TMP/od.s"
"$HBBP" disasm -f csv "$TMP/p" > "$TMP/d.csv" 2>"$TMP/d.err"
awk -F, 'NR > 1 { print substr($1, 3) }' "$TMP/d.csv" | sort > "$TMP/us.s"
readelf --debug-dump=frames "$TMP/p" | sed -n 's/.* FDE .*pc=0*\([0-9a-f]*\)\.\..*/\1/p' > "$TMP/fde"

expect "disasm_objdump_resync: the program runs to its end under single-step, through f and g" \
	'[ $rc = 0 ] && grep -qx "$F" "$TMP/cpu.s" && grep -qx "$G" "$TMP/cpu.s"'
expect "disasm_objdump_resync: f's start is its FDE's and _start's call target (objdump's own listing)" \
	'grep -qx "$F" "$TMP/fde" && grep -q "call *0x$F\$" "$TMP/od.txt"'
expect "disasm_objdump_resync: objdump has no instruction at f but one across it (add [rax+0x48],dl)" \
	'! grep -qx "$F" "$TMP/od.s" &&
	 grep -q "^ *$(hexa 0x$F-1):.*add *BYTE PTR \[rax+0x48\],dl" "$TMP/od.txt"'
expect "disasm_objdump_resync: disasm starts f at its FDE with push rax, as the processor" \
	'grep -q "^0x$F,1,push,rax," "$TMP/d.csv"'
expect "disasm_objdump_resync: the processor steps from g to g+5 in one instruction" \
	'grep -qx "$G5" "$TMP/cpu.s" && ! grep -qx -e "$G1" -e "$G2" -e "$G3" "$TMP/cpu.s"'
expect "disasm_objdump_resync: objdump lists the ignored REX bytes at g+1..g+3 as instructions" \
	'grep -qx "$G1" "$TMP/od.s" && grep -qx "$G2" "$TMP/od.s" && grep -qx "$G3" "$TMP/od.s" &&
	 grep -q "^ *$G1:.*rex\.RXB" "$TMP/od.txt"'
expect "disasm_objdump_resync: disasm lists one push r11 of 5 bytes at g" \
	'grep -q "^0x$G,5,push,r11," "$TMP/d.csv" && ! grep -q -e "^0x$G1," -e "^0x$G2," "$TMP/d.csv"'
expect "disasm_objdump_resync: fstcw is two instructions for the processor and disasm, one for objdump" \
	'grep -qx "$W" "$TMP/cpu.s" && grep -qx "$W1" "$TMP/cpu.s" && ! grep -qx "$W1" "$TMP/od.s" &&
	 grep -q "^0x$W,1,fwait," "$TMP/d.csv" && grep -q "^0x$W1,4,fnstcw," "$TMP/d.csv"'
expect "disasm_objdump_resync: every address the processor executes starts an instruction in disasm" \
	'[ -s "$TMP/cpu.s" ] && [ -z "$(comm -23 "$TMP/cpu.s" "$TMP/us.s")" ]'
expect "disasm_objdump_resync: but not in objdump's listing (f, f+1 and w+1 missing)" \
	'[ "$(comm -23 "$TMP/cpu.s" "$TMP/od.s" | tr "\n" " ")" = \
	   "$(printf "%s\n" $F $(hexa 0x$F+1) $W1 | sort | tr "\n" " ")" ]'
# objdump given f's start as a symbol (section-relative, as objcopy takes it)
objcopy --add-symbol "f=.text:0x$(hexa 0x$F-0x$TEXT),function,global" "$TMP/p" "$TMP/p.sym"
objdump -d -z -M intel --no-show-raw-insn "$TMP/p.sym" |
	awk -F'\t' '/^ *[0-9a-f]+:\t/ { a = $1; sub(/:$/, "", a); sub(/^ +/, "", a); print a }' |
	sort > "$TMP/odsym.s"
expect "disasm_objdump_resync: with f as a symbol, objdump's starts equal disasm's but for g+1..g+3, w+1" \
	'[ "$(comm -23 "$TMP/us.s" "$TMP/odsym.s" | tr "\n" " ")" = "$W1 " ] &&
	 [ "$(comm -13 "$TMP/us.s" "$TMP/odsym.s" | tr "\n" " ")" = "$G1 $G2 $G3 " ]'
