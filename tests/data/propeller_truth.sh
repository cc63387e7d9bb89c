#!/bin/sh
# Derives the exact instruction counts of one run of autofdo's propeller_sample.bin (the
# binary of ../shared/perfdata/autofdo/propeller_sample.perfdata, kept there as
# propeller_sample_old.bin) for its own code, and writes them as a --truth-insns CSV
# (module,offset,address,count,mnemonic; module is the placeholder @BIN@, replaced by the
# binary's path when used). Output: tests/data/propeller_truth.csv (or $1).
# Depends on valgrind, objdump, od, dd and awk; not on hbbp-convert.
#
# The program is one loop `for (i = 0; i < 800000000; i++)` in main (the bound is the imm32
# of `cmpl $0x2faf0800,-0x8(%rbp)` at 0x1210, bytes 0x1213..0x1216). Its body does not depend
# on the bound except through one rare path: `if (count % 137949234 == 183)` (count = i + 1
# at the test) calls this_is_very_code and sample1_func. The full run (~34 G instructions)
# is too slow under callgrind, so:
# 1. the bound is patched to N1 = 1 000 000 and N2 = 2 000 000 and each copy is run under
#    `valgrind --tool=callgrind --dump-instr=yes` (counts per address of the binary's object);
# 2. every address's count is affine in the bound (c = a + b*N; N is a multiple of 10, the
#    period of compute_flag's branch), so c(800M) = c1 + (c2 - c1) * (800M - N1) / (N2 - N1);
# 3. the rare path runs once per count <= N with count = 183 (mod 137949234):
#    R(N) = floor((N - 183) / 137949234) + 1, i.e. 1 for N1 and N2 and 6 for 800M. Its
#    addresses (the ones whose count is R(N1) = R(N2) in both runs and that lie in
#    this_is_very_code, sample1_func or main's block 0x128d..0x12c3 = 4749..4803) get R(800M);
# 4. as a check, N3 = 4 000 000 is run and must equal the prediction of steps 2-3 exactly.
# The start-up code of the binary (_start, _init, frame_dummy, ...) runs the same in all runs
# (b = 0) and is kept as measured.
set -e
here=$(cd "$(dirname "$0")" && pwd)
BIN=${BIN:-$here/../../../shared/perfdata/autofdo/propeller_sample_old.bin}
out=${1:-$here/propeller_truth.csv}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
FULL=800000000
N1=1000000 N2=2000000 N3=4000000
# the bound must be the one this derivation assumes
[ "$(od -An -tx1 -j $((0x1210)) -N 7 "$BIN" | tr -d ' \n')" = 817df80008af2f ] || {
	echo "propeller_truth.sh: $BIN: unexpected code at 0x1210" >&2; exit 2; }
# per-address counts of the binary's own object in a callgrind profile: "address count"
cat >"$tmp/own.awk" <<'EOF'
		# ob= and cob= share one id space: "(id) name" defines, "(id)" refers
		/^c?ob=/ { o = $0; sub(/^c?ob=(\([0-9]+\) ?)?/, "", o); id = $0; sub(/^c?ob=/, "", id)
			 sub(/\).*/, ")", id); if (o != "") name[id] = o; else o = name[id]
			 if ($0 ~ /^ob=/) own = (o ~ ("/" obj "$")); next }
		/^calls=/ { skip = 1; next }
		/^[a-z]+[=:]/ { next }
		/^(0x[0-9a-fA-F]+|[+-][0-9]+|\*)[ \t]/ {
			a = $1
			if (a ~ /^0x/) cur = hex2num(a)
			else if (a ~ /^\+/) cur += substr(a, 2) + 0
			else if (a ~ /^-/) cur -= substr(a, 2) + 0
			if (skip) { skip = 0; next }
			if (own) n[cur] += $3
		}
		END { for (a in n) printf "%.0f %.0f\n", a, n[a] }
EOF
run() { # N -> $tmp/N.addr: "address count" of the binary's own code (addresses as run)
	cp "$BIN" "$tmp/p$1"
	chmod u+w "$tmp/p$1"
	h=$(printf '%08x' "$1")
	# the little-endian imm32 at 0x1213
	o=$(awk -v h="$h" 'BEGIN { for (i = 7; i >= 1; i -= 2) { v = 0; s = substr(h, i, 2)
		for (j = 1; j <= 2; j++) v = v * 16 + index("0123456789abcdef", substr(s, j, 1)) - 1
		printf "\\%03o", v } }')
	printf "$o" | dd of="$tmp/p$1" bs=1 seek=$((0x1213)) conv=notrunc 2>/dev/null
	chmod +x "$tmp/p$1"
	(cd "$tmp" && valgrind -q --tool=callgrind --dump-instr=yes \
		--callgrind-out-file="$tmp/cg$1.out" "./p$1" >/dev/null)
	# only cost lines under the binary's object (ob= names it; calls= cost lines skipped)
	awk -f "$here/../cli/hex.awk" -f "$tmp/own.awk" -v obj="p$1" "$tmp/cg$1.out" |
		sort -n >"$tmp/$1.addr"
	[ -s "$tmp/$1.addr" ] || { echo "propeller_truth.sh: no counts for the binary" >&2; exit 1; }
}
run $N1
run $N2
run $N3
# the binary's instructions: address, symbol, mnemonic (Intel syntax)
objdump -d -M intel --no-show-raw-insn "$BIN" | awk '
	/^[0-9a-f]+ <.*>:$/ { s = $2; gsub(/[<>:]/, "", s); next }
	/^ +[0-9a-f]+:\t/ { a = $1; sub(/:$/, "", a); m = $2; if (m ~ /^(rep|repz|repnz|lock|bnd|notrack|cs|ds)$/) m = m " " $3
		print a, s, m }' >"$tmp/dis"
cat >"$tmp/derive.awk" <<'EOF'
	function rare(n) { return n < 183 ? 0 : int((n - 183) / 137949234) + 1 }
	FILENAME ~ /dis$/ { v = hex2num("0x" $1); sym[v] = $2; mn[v] = $3; next }
	FILENAME ~ ("/" n1 ".addr$") { c1[$1] = $2; next }
	FILENAME ~ ("/" n2 ".addr$") { c2[$1] = $2; next }
	FILENAME ~ ("/" n3 ".addr$") { c3[$1] = $2; next }
	END {
		# (decimal: mawk has no hex constants) the load bias: the loop test `cmpl` at 0x1210
		# (4624) is the lowest address that runs
		# N1 + 1 times (the jge after it is the other one)
		for (a in c1) if (c1[a] == n1 + 1 && (bias == "" || a - 4624 < bias)) bias = a - 4624
		if (bias == "") { print "propeller_truth.sh: main not found" > "/dev/stderr"; exit 1 }
		bad = 0
		for (a in c1) {
			v = a - bias
			if (!(v in sym)) { print "propeller_truth.sh: no instruction at " v > "/dev/stderr"; exit 1 }
			s = sym[v]
			israre = s == "this_is_very_code" || s == "sample1_func" || (v >= 4749 && v < 4804)
			if (israre) {
				if (c1[a] != rare(n1) || c2[a] != rare(n2)) { print "rare path count " v > "/dev/stderr"; exit 1 }
				p3 = rare(n3); pf = rare(full)
			} else {
				b = (c2[a] - c1[a]) / (n2 - n1)
				p3 = c1[a] + b * (n3 - n1); pf = c1[a] + b * (full - n1)
			}
			if (p3 != c3[a]) { printf "propeller_truth.sh: 0x%x: predicted %.0f for N=%d, measured %.0f\n", v, p3, n3, c3[a] > "/dev/stderr"; bad = 1 }
			printf "@BIN@,%d,%d,%.0f,%s\n", v, v, pf, mn[v]
		}
		exit bad
	}
EOF
awk -v n1=$N1 -v n2=$N2 -v n3=$N3 -v full=$FULL -f "$here/../cli/hex.awk" -f "$tmp/derive.awk" \
	"$tmp/dis" "$tmp/$N1.addr" "$tmp/$N2.addr" "$tmp/$N3.addr" >"$tmp/rows.u"
sort -t, -k2,2n "$tmp/rows.u" >"$tmp/rows"
{
	echo "module,offset,address,count,mnemonic"
	cat "$tmp/rows"
} >"$out"
echo "propeller_truth.sh: $(wc -l <"$tmp/rows") instructions, total $(awk -F, '{ s += $4 } END { printf "%.0f", s }' "$tmp/rows")" >&2
