# Independent recount of a pmusim recording from `perf script -F event,ip,period,brstack`
# output (second input) against pmusim's --truth-insns CSV (first input, -F, not needed:
# the CSV is split by hand). Per instruction address:
#   EBS: sum of the periods of inst_retired samples whose IP is that address;
#   LBR: for every br_inst_retired sample with n entries and every stream
#        e[k].to .. e[k-1].from (k = 1..n-1, both non-zero, to <= from), period/(n-1)
#        for each executed instruction address in the stream.
# Prints "address truth ebs lbr" for every executed instruction (decimal address), and
# counts of samples/streams on stderr-free lines starting with '#'.
# Run as: awk -f hex.awk -f pmusim_count.awk insns.csv script.txt
# Array keys are decimal strings: awk would turn large numbers into "%.6g" keys.
function key(x) { return sprintf("%.0f", x) }
FNR == NR {
	if (FNR == 1) next
	split($0, f, ",")
	a = hex2num(f[3])
	truth[key(a)] = f[4]
	addr[++na] = a
	next
}
FNR == 1 && !sorted {
	# insertion-free sort: the CSV is sorted by address already; check it
	for (i = 2; i <= na; i++) if (addr[i] <= addr[i - 1]) { print "# unsorted"; exit 1 }
	sorted = 1
}
$2 == "inst_retired.prec_dist:" {
	ebs[key(hex2num($3))] += $1
	nebs++
	next
}
$2 == "br_inst_retired.near_taken:" {
	nlbr++
	n = 0
	for (i = 4; i <= NF; i++) {
		split($i, e, "/")
		n++
		from[n] = hex2num(e[1])
		to[n] = hex2num(e[2])
	}
	if (n < 2) next
	w = $1 / (n - 1)
	for (k = 2; k <= n; k++) {
		lo = to[k]; hi = from[k - 1]
		if (!lo || !hi || lo > hi) { nbad++; continue }
		nstreams++
		# lower bound of lo in addr[]
		l = 1; h = na + 1
		while (l < h) { m = int((l + h) / 2); if (addr[m] < lo) l = m + 1; else h = m }
		for (i = l; i <= na && addr[i] <= hi; i++) lbr[key(addr[i])] += w
	}
}
END {
	printf "# ebs_samples %d lbr_samples %d streams %d rejected %d\n", nebs, nlbr, nstreams, nbad
	for (i = 1; i <= na; i++) {
		a = key(addr[i])
		printf "%s %d %.0f %.6f\n", a, truth[a], ebs[a], lbr[a]
	}
}
