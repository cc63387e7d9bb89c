# method_cmp.awk ENGINE REFERENCE: compares the lines of tests/tools/methoddump (the engine) with
# those of tests/tools/refmethod (the independent reference), tab-separated, in any order.
# Every line of either must be in the other, by its key, with the same integers and names
# (exact) and the same reals within a relative tolerance: TOL (default 1e-12) for the sums,
# estimates and counts, which both sides take as sums of the same terms in another order
# (the reference with compensated sums); LTOL (default 1e-9) for the sums per batch and the
# interval ends, which the engine sums without compensation (the ends relative to their
# count: count - half loses digits to the cancellation).
# Lines (field numbers):
#   B block:        2 dso, 3 kind, 4 start | 5 end, 6 length, 7 EBS samples, 8 streams,
#                   9 source, 10 biased | 11 ebs_sum, 12 lbr_sum, 13 lbr_sum plain, 14 ebs
#                   estimate, 15 lbr estimate, 16 count, 17 bias share | 18 count_lo, 19
#                   count_hi, 20-29 ebs_sum per batch, 30-39 lbr_sum per batch
#   T thread block: 2 dso, 3 kind, 4 start, 5 pid, 6 tid | 7 EBS samples, 8 streams | 9
#                   ebs_sum, 10 lbr_sum, 11 plain, 12 ebs estimate, 13 lbr estimate, 14 count
#                   | 15 count_lo, 16 count_hi, 17-36 per batch
#   E event:        2 index | 3 role, 4 samples, 5 used, 6 short stacks, 7 0/0 entries, 8
#                   streams, 9 time-weighted stacks, 10 of which fallback, 11 by IP | 12
#                   stream weight, 13 plain, 14 scale | 15-24 used periods per batch
#   R rejection:    2 reason | 3 streams | 4 weight
#   N total:        2 name | 3 value;   F total: 2 name | 3 value (real)
# Prints "N lines, max relative difference D (per batch, intervals: L)" and exits 0 when
# equal, 1 when not (the first differences on stderr).
BEGIN {
	FS = "\t"
	if (TOL == "") TOL = 1e-12
	if (LTOL == "") LTOL = 1e-9
	# type: last key field, last exact field, last strict real field, count field, count_lo
	split("B 4 10 17 16 18 T 6 8 14 14 15 E 2 11 14 0 0 R 2 3 4 0 0 N 2 3 3 0 0 F 2 2 3 0 0", s,
	      " ")
	for (i = 1; i in s; i += 6) {
		nkey[s[i]] = s[i + 1]; nexact[s[i]] = s[i + 2]; nstrict[s[i]] = s[i + 3]
		cnt[s[i]] = s[i + 4]; lo[s[i]] = s[i + 5]
	}
	max = 0; lmax = 0; nd = 0; nl = 0
}
function key(   k, i) {
	if (!($1 in nkey)) return ""
	k = $1
	for (i = 2; i <= nkey[$1]; i++) k = k "\t" $i
	return k
}
function abs(x) { return x < 0 ? -x : x }
function differ(what) {
	if (nd++ < 20) print "method_cmp: " what > "/dev/stderr"
}
FNR == NR {
	k = key()
	if (k == "") { differ("engine: unknown line: " $0); next }
	if (k in eng) differ("engine: key twice: " k)
	eng[k] = $0
	next
}
{
	k = key()
	if (k == "") { differ("reference: unknown line: " $0); next }
	if (k in seen) differ("reference: key twice: " k)
	seen[k] = 1
	if (!(k in eng)) { differ("only in the reference: " k); next }
	nl++
	n = split(eng[k], e, "\t")
	if (n != NF) { differ("field count differs: " k); next }
	for (i = nkey[$1] + 1; i <= NF; i++) {
		if (i <= nexact[$1]) {
			if (e[i] != $i) differ(k ": field " i ": engine " e[i] " reference " $i)
			continue
		}
		m = abs(e[i]) > abs($i) ? abs(e[i]) : abs($i)
		strict = i <= nstrict[$1]
		if (lo[$1] && (i == lo[$1] || i == lo[$1] + 1) && abs($(cnt[$1])) > m)
			m = abs($(cnt[$1]))
		d = m > 0 ? abs(e[i] - $i) / m : 0
		if (strict && d > max) max = d
		if (!strict && d > lmax) lmax = d
		if (d > (strict ? TOL : LTOL))
			differ(k ": field " i ": engine " e[i] " reference " $i " (relative " d ")")
	}
}
END {
	for (k in eng)
		if (!(k in seen)) differ("only in the engine: " k)
	printf "%d lines, max relative difference %.3g (per batch, intervals: %.3g)%s\n", nl, max,
	       lmax, nd ? ", DIFFERENT" : ""
	exit nd > 0
}
