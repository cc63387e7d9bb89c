# Compares `objdump -d -z -M intel --no-show-raw-insn` (first file) with
# `hbbp-convert disasm -f csv` (second file) over the whole binary: instruction starts both
# ways and mnemonics. Prints one line "starts OD OURS od_only N ours_only N mnemonic_diffs N
# mapped N", the first mismatches, and how many instructions each mapping row absorbed.
# The mapping table (objdump's Intel spelling -> hbbp-convert's, XED's spelling lowercased):
#   - prefix words (rep, lock, bnd, notrack, data16, cs, ...) are not part of either name;
#   - string instructions: objdump writes the bare form with the size in the operands
#     (stos QWORD PTR es:[rdi],rax), XED and Intel's SDM name the size (stosq);
#   - 66 90: objdump "xchg ax,ax", XED and the SDM a NOP (Zydis decodes it as nop);
#   - 9B D9 /7 and the like: objdump joins fwait and the no-wait x87 control instruction into
#     one (fstcw = fwait + fnstcw, fstsw, fstenv, fsave, finit, fclex); the SDM documents
#     9B as the separate instruction FWAIT, and XED and Zydis decode two;
#   - bytes objdump cannot decode (".byte 0x..", "(bad)") are "(bad)" here too.
# Not a test by itself: tests/cli/module_objdump.sh runs it.
function base(m,   n, w, i) {
	n = split(m, w, " ")
	for (i = 1; i < n; i++) if (!(w[i] in pfx) && w[i] !~ /^rex/) break
	return w[i]
}
BEGIN {
	FS = "\t"
	split("bnd notrack rep repz repnz repe repne lock data16 data32 cs ds ss es fs gs addr32 addr16 xacquire xrelease", pl, " ")
	for (i in pl) pfx[pl[i]] = 1
	split("movs stos lods scas cmps ins outs", sl, " ")
	for (i in sl) strop[sl[i]] = 1
}
FNR == 1 && NR != 1 { FS = "," }
NR == FNR {
	if ($0 !~ /^ *[0-9a-f]+:\t/) next
	split($1, x, ":"); ad = x[1]; sub(/^ +/, "", ad)
	nw = split($2, w, " "); mn = ""
	for (i = 1; i <= nw; i++) { mn = mn (mn == "" ? "" : " ") w[i]; if (!(w[i] in pfx) && w[i] !~ /^rex/) break }
	if (mn == "xchg" && w[i + 1] == "ax,ax") mn = "xchg_ax_ax"
	od[ad] = mn; nod++
	next
}
FNR == 1 { next }
{
	ad = substr($1, 3); ours[ad] = $3; n++
	if (prev_mn == "fwait") { after_wait[ad] = prev_ad; next_of[prev_ad] = ad }
	prev_mn = $3; prev_ad = ad
}
END {
	for (q in od) if (!(q in ours)) { miss++; if (miss <= 5) print "objdump only", q, od[q] }
	for (q in ours) if (!(q in od)) {
		if ((q in after_wait) && od[after_wait[q]] == "f" substr(ours[q], 3) && ours[q] ~ /^fn/) {
			mapped["fwait+fn*"]++; continue
		}
		extra++; if (extra <= 5) print "ours only", q, ours[q]
	}
	for (q in od) if (q in ours) {
		o = base(od[q]); u = base(ours[q])
		if (o == u) continue
		if (o in strop && substr(u, 1, length(o)) == o && length(u) == length(o) + 1 &&
		    index("bwdq", substr(u, length(u))) > 0) { mapped["string"]++; continue }
		if (o == "xchg_ax_ax" && u == "nop") { mapped["xchg ax,ax"]++; continue }
		if (u == "fwait" && (q in next_of) && ours[next_of[q]] == "fn" substr(o, 2)) continue
		if ((o == ".byte" || o == "(bad)") && u == "(bad)") { mapped["undecodable"]++; continue }
		k = o " " u; if (!(k in d)) d[k] = q; dc[k]++; diff++
	}
	nd = 0
	for (k in d) if (++nd <= 10) print "mnemonic", dc[k], k, "at", d[k]
	for (k in mapped) print "mapped", k, mapped[k]
	printf "starts %d %d od_only %d ours_only %d mnemonic_diffs %d\n", nod, n, miss, extra, diff
}
