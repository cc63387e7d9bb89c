# Rewrites addresses in annotate output as SYMBOL+0xOFF, from nm output given as the first
# file (needs hex.awk): a hex word of 6 or more digits, with or without 0x. Lets golden files
# name instructions independently of where the linker put the program.
NR == FNR {
	if ($2 ~ /^[Tt]$/ && $3 !~ /^(_edata|_end|__bss_start)$/) { a[++n] = hex2num($1); s[n] = $3 }
	next
}
function name(h,   v, i, best, bi) {
	v = hex2num(h); best = -1
	for (i = 1; i <= n; i++) if (a[i] <= v && a[i] > best) { best = a[i]; bi = i }
	return best < 0 ? h : sprintf("%s+0x%x", s[bi], v - best)
}
{
	out = ""; line = $0
	while (match(line, /(0x)?[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]+/)) {
		out = out substr(line, 1, RSTART - 1) name(substr(line, RSTART, RLENGTH))
		line = substr(line, RSTART + RLENGTH)
	}
	print out line
}
