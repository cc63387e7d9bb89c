# Cycles per instruction of every instruction of a binary from `perf script -F period,ip,brstack`
# (docs/METHOD-cycles.md done again, sharing no code with the converter): each complete stream
# e[k].to .. e[k-1].from (k >= 1, padding 0/0 entries dropped) with both ends in the binary's
# mappings, to <= from, no jmp/call/ret before from, weighs period / (n-1); its duration
# e[k-1].cycles (0: not reported, skipped) spread over its L instructions gives each of them
# cycles/L; an instruction's value is sum(w * cycles / L) / sum(w) over the streams holding it.
# Inputs: OD (objdump -d listing), MAPS (the binary's mapping starts, hex, one a line), then
# the perf script text. Prints "vaddr value" (hex vaddr, as the converter's block key).
# Not a test by itself: tests/cli/cycles_corpus.sh runs it.
function hex(s,   i, c, v) {
	s = tolower(s); sub(/^0x/, "", s); v = 0
	for (i = 1; i <= length(s); i++) { c = index("0123456789abcdef", substr(s, i, 1)); v = v * 16 + c - 1 }
	return v
}
BEGIN {
	while ((getline line < OD) > 0) {
		if (line !~ /^ *[0-9a-f]+:\t/) continue
		split(line, f, "\t"); a = f[1]; sub(/:.*/, "", a); sub(/^ +/, "", a)
		v = hex(a); nins++; addr[nins] = v; ord[v] = nins
		m = f[2]; sub(/^(bnd|notrack) +/, "", m); sub(/ .*/, "", m)
		uncond[nins] = (m ~ /^(jmp|call|ret|hlt|ud2|syscall)/)
	}
	while ((getline line < MAPS) > 0) base[hex(line)] = 1
}
function vaddr(x,   b) { b = x - x % 4096; return (b in base) ? x - b + 4096 : -1 }
{
	p = $1; n = 0
	for (i = 3; i <= NF; i++) {
		if ($i ~ /^0x0\/0x0\//) continue
		split($i, e, "/"); n++; fr[n] = hex(e[1]); to[n] = hex(e[2]); cy[n] = e[6] + 0
	}
	if (n < 2) next
	w = p / (n - 1)
	for (k = 2; k <= n; k++) {	# stream e[k-1].to .. e[k-2].from in 0-based terms
		c = cy[k - 1]; if (!c) continue
		s = vaddr(to[k]); t = vaddr(fr[k - 1])
		if (s < 0 || t < 0 || s > t || !(s in ord) || !(t in ord)) continue
		lo = ord[s]; hi = ord[t]; bad = 0
		for (j = lo; j < hi; j++) if (uncond[j]) { bad = 1; break }
		if (bad) continue
		L = hi - lo + 1
		for (j = lo; j <= hi; j++) { num[j] += w * c / L; den[j] += w }
	}
}
END { for (j = 1; j <= nins; j++) if (den[j] > 0) printf "%x %.17g\n", addr[j], num[j] / den[j] }
