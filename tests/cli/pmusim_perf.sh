#!/bin/sh
# pmusim output read by stock perf: perf script and perf report --stats read the recording,
# the sample counts per event match what pmusim reports, the attrs are the raw Intel events
# with branch stacks, and the MMAP2 records carry the build-ids readelf finds in the binaries.
. "$(dirname "$0")/../lib.sh"
PMUSIM=$BUILD/pmusim
[ -x "$PMUSIM" ] || PMUSIM=$ROOT/pmusim
for tool in qemu-x86_64 perf readelf; do
	if ! command -v $tool >/dev/null; then skip "pmusim_perf: $tool not installed"; exit 0; fi
done
if [ ! -x "$PMUSIM" ]; then fail "pmusim_perf: $PMUSIM not built"; exit 0; fi
if ! sh "$ROOT/samples/workloads/build.sh" "$TMP/wl" 2>"$TMP/build.err"; then
	fail "pmusim_perf: cannot build the workloads"; cat "$TMP/build.err" >&2; exit 0
fi
if ! "$PMUSIM" -v --ebs-period 1009 --lbr-period 101 --effects realistic -o "$TMP/p.data" \
	-- "$TMP/wl/libcmix" 50 >/dev/null 2>"$TMP/err"; then
	fail "pmusim_perf: pmusim failed"; cat "$TMP/err" >&2; exit 0
fi
ebs=$(sed -n 's/.* \([0-9]*\) EBS samples.*/\1/p' "$TMP/err")
lbr=$(sed -n 's/.* \([0-9]*\) LBR samples.*/\1/p' "$TMP/err")
if perf script -i "$TMP/p.data" -F event,ip,period,brstack > "$TMP/script.txt" 2>"$TMP/perr"; then
	pe=$(grep -c 'inst_retired.prec_dist:' "$TMP/script.txt")
	pl=$(grep -c 'br_inst_retired.near_taken:' "$TMP/script.txt")
	check "pmusim_perf: perf script reads $pe/$pl samples (pmusim wrote $ebs/$lbr)" \
		test "$pe" = "$ebs" -a "$pl" = "$lbr" -a "$pe" -gt 0 -a "$pl" -gt 0
	# every LBR sample carries a 32-entry stack
	n32=$(awk '$2 == "br_inst_retired.near_taken:" && NF == 35' "$TMP/script.txt" | wc -l)
	check "pmusim_perf: 32-entry branch stacks ($n32 of $pl)" test "$n32" = "$pl"
else
	fail "pmusim_perf: perf script cannot read the recording"; cat "$TMP/perr" >&2
fi
perf evlist -v -i "$TMP/p.data" > "$TMP/evlist.txt" 2>&1
if grep -q 'inst_retired.prec_dist:.*type: 4.*config: 0x1c0' "$TMP/evlist.txt" &&
   grep -q 'br_inst_retired.near_taken:.*type: 4.*config: 0x20c4' "$TMP/evlist.txt" &&
   grep -q 'precise_ip: 2' "$TMP/evlist.txt" &&
   grep -q 'branch_sample_type: USER|ANY' "$TMP/evlist.txt" &&
   grep -q 'sample_type: IP|TID|TIME|ID|PERIOD|BRANCH_STACK|IDENTIFIER' "$TMP/evlist.txt"; then
	pass "pmusim_perf: perf evlist shows the raw Intel events with branch stacks"
else
	fail "pmusim_perf: perf evlist shows the raw Intel events with branch stacks"
	cat "$TMP/evlist.txt" >&2
fi
# build-ids: perf buildid-list against readelf's NT_GNU_BUILD_ID of each module
perf buildid-list -i "$TMP/p.data" > "$TMP/bid.txt" 2>/dev/null
ok=1 n=0
for f in "$TMP/wl/libcmix" $(ldd "$TMP/wl/libcmix" | awk '/libc.so/ { print $3 }'); do
	id=$(readelf -n "$f" | awk '/Build ID/ { print $3 }')
	n=$((n + 1))
	grep -q "^$id " "$TMP/bid.txt" || ok=0
done
check "pmusim_perf: build-ids of the program and libc as readelf reads them ($n files)" test $ok = 1
perf script -i "$TMP/p.data" --show-mmap-events -F comm,pid,event,ip 2>/dev/null |
	grep PERF_RECORD_MMAP2 > "$TMP/mmap.txt"
check "pmusim_perf: MMAP2 records for the program, ld.so and libc" \
	sh -c "grep -q libcmix '$TMP/mmap.txt' && grep -q 'ld-linux' '$TMP/mmap.txt' && grep -q 'libc.so' '$TMP/mmap.txt'"
# the project's own reader assigns the roles from the attrs
if "$HBBP" stats "$TMP/p.data" > "$TMP/stats.json" 2>"$TMP/serr"; then
	check "pmusim_perf: hbbp-convert stats: EBS and LBR roles with $ebs/$lbr samples" sh -c \
		"grep -q '\"config\": \"0x1c0\".*\"samples\": $ebs,.*\"role\": \"ebs\"' '$TMP/stats.json' &&
		 grep -q '\"config\": \"0x20c4\".*\"samples\": $lbr,.*\"role\": \"lbr\"' '$TMP/stats.json'"
else
	fail "pmusim_perf: hbbp-convert stats cannot read the recording"; cat "$TMP/serr" >&2
fi
