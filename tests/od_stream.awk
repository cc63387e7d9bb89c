# Compares instruction starts of `objdump -d -z -M intel --no-show-raw-insn` (file OD) with
# `hbbp-convert disasm -f csv` (file US, cut to its first 3 columns) over a whole binary,
# streaming (both ascending; FIFOs are fine, so binaries of any size): no listing is held.
# FDE is the sorted list of .eh_frame FDE starts (readelf --debug-dump=frames, no leading
# zeros). Every run of differing starts between two common ones (a cluster) must have one of
# four causes, each shown on real bytes by tests/cli/disasm_objdump_resync.sh:
#   fde          objdump decoded padding across a function start that only .eh_frame gives
#                (it resyncs at symbols only): the FDE start is one of our starts in the run;
#   rex          objdump lists REX prefixes that the SDM says are ignored (not right before
#                the opcode) as instructions: only objdump starts, each a REX word, after one;
#   fwait        objdump joins FWAIT (9B) and the no-wait x87 instruction after it into one
#                (fstcw = fwait + fnstcw); the processor executes two instructions, as XED,
#                Zydis and disasm list them: one our start, an fn* after our fwait;
#   undecodable  the run starts right after a byte one side cannot decode (data in .text):
#                where a unit of undecodable bytes ends is a convention, not an instruction
#                start (objdump takes prefixes and an x87 ModRM with the byte, disasm one byte).
# Anything else is unexplained. Prints "starts OD OURS od_only N ours_only N clusters N fde N
# rex N fwait N undecodable N unexplained N" last, the first unexplained clusters before it.
# Not a test by itself: tests/objdump_big.sh runs it.
function lt(a, b) { return length(a) < length(b) || (length(a) == length(b) && a < b) }
function next_od(   line, x, f) {
	while ((getline line < OD) > 0) {
		if (line !~ /^ *[0-9a-f]+:\t/) continue
		split(line, f, "\t"); split(f[1], x, ":"); oa = x[1]; sub(/^ +/, "", oa); om = f[2]
		nod++
		return 1
	}
	oa = ""; return 0
}
function next_us(   line, f) {
	if ((getline line < US) > 0) { split(line, f, ","); ua = substr(f[1], 3); um = f[3]; nus++; return 1 }
	ua = ""; return 0
}
function next_fde(   line) {
	if ((getline line < FDE) > 0) { fa = line; return 1 }
	fa = ""; return 0
}
function word1(m,   w) { split(m, w, " "); return w[1] }
function is_rex(m) { return m ~ /^rex(\.[WRXB]+)?( |$)/ }
function od_bad(m,   n, w, i) {
	if (m ~ /\(bad\)|^\.byte/) return 1
	n = split(m, w, " ")
	for (i = 1; i <= n; i++) if (!(w[i] in pfx)) return 0
	return n > 0
}
function flush(resync,   why) {
	if (!incl) return
	why = ""
	while (fa != "" && lt(fa, resync)) {
		if (!lt(fa, cfirst) && (fa in cus_set)) why = "fde"
		next_fde()
	}
	if (why == "" && !cus && crex == cod && prev_od_rex) why = "rex"
	if (why == "" && !cod && cus == 1 && cum ~ /^fn/ && prev_um == "fwait" &&
	    prev_om == "f" substr(cum, 3)) why = "fwait"
	if (why == "" && prev_bad) why = "undecodable"
	nclu++
	if (why == "") {
		nun++
		if (nun <= 20) printf "unexplained: after %s, resync %s:%s\n", prev_common, resync, cdesc
	} else
		cause[why]++
	incl = 0; cod = cus = crex = 0; cdesc = ""; split("", cus_set)
}
BEGIN {
	split("bnd notrack rep repz repnz repe repne lock data16 data32 cs ds ss es fs gs addr32 addr16 xacquire xrelease {evex} {vex} {vex3}", pl, " ")
	for (i in pl) pfx[pl[i]] = 1
	getline hdr < US
	next_od(); next_us(); next_fde()
	while (oa != "" || ua != "") {
		if (oa != "" && (ua == "" || lt(oa, ua))) {
			if (!incl) { incl = 1; cfirst = oa }
			cod++; tod++; crex += is_rex(om)
			if (length(cdesc) < 200) cdesc = cdesc " objdump " oa " " om ";"
			next_od(); continue
		}
		if (ua != "" && (oa == "" || lt(ua, oa))) {
			if (!incl) { incl = 1; cfirst = ua }
			cus++; tus++; cus_set[ua] = 1; cum = um
			if (length(cdesc) < 200) cdesc = cdesc " ours " ua " " um ";"
			next_us(); continue
		}
		flush(oa)
		while (fa != "" && !lt(oa, fa)) next_fde()
		prev_common = oa; prev_od_rex = is_rex(om); prev_bad = od_bad(om) || um == "(bad)"
		prev_um = um; prev_om = word1(om)
		next_od(); next_us()
	}
	flush("ffffffffffffffffffff")
	printf "starts %d %d od_only %d ours_only %d clusters %d fde %d rex %d fwait %d undecodable %d unexplained %d\n",
		nod, nus, tod, tus, nclu, cause["fde"], cause["rex"], cause["fwait"], cause["undecodable"], nun
}
