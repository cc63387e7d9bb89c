#!/bin/sh
# pmusim's interrupt throttling (--throttle-rate, --hz, --clock-hz) read back by stock perf:
# perf report --stats counts the THROTTLE/UNTHROTTLE records pmusim says it wrote; perf
# report -D shows each with its time, id and stream_id (decoded here from the raw bytes),
# which alternate per event and unthrottle on a tick; no sample of the event (perf script)
# lies inside a gap, the tick that throttled holds exactly max_samples_per_tick + 1 of its
# samples, the last one at the THROTTLE's time, and no tick holds more. The rate removes at
# least 10% of the samples, and the exact truth equals the run's without throttling.
. "$(dirname "$0")/../lib.sh"
PMUSIM=$BUILD/pmusim
[ -x "$PMUSIM" ] || PMUSIM=$ROOT/pmusim
for tool in qemu-x86_64 perf; do
	if ! command -v $tool >/dev/null; then skip "pmusim_throttle: $tool not installed"; exit 0; fi
done
if [ ! -x "$PMUSIM" ]; then fail "pmusim_throttle: $PMUSIM not built"; exit 0; fi
if ! sh "$ROOT/samples/workloads/build.sh" "$TMP/wl" 2>"$TMP/build.err"; then
	fail "pmusim_throttle: cannot build the workloads"; cat "$TMP/build.err" >&2; exit 0
fi
# a 10 MHz clock: 100 ns a cycle, ticks of 4 ms (40 000 cycles) at HZ 250; at 2500 samples/s
# an event may take ceil(2500 / 250) = 10 interrupts a tick, and is throttled at the 11th
CLOCK=10000000 HZ=250 RATE=2500 MAX=10 TICK=4000000

# perf report -D: "TYPE trailer_time payload_time id stream_id trailer_id identifier" for
# every THROTTLE (T) and UNTHROTTLE (U), from the bytes of the raw dump (records of 64
# bytes: header, time, id, stream_id, then the trailer pid/tid, time, id, identifier)
cat > "$TMP/dump.awk" <<'AWK'
function u64(o,   i, v) { v = 0; for (i = 7; i >= 0; i--) v = v * 256 + byte[o + i]; return v }
/raw event: size/ { nb = 0; next }
/^\.  [0-9a-f][0-9a-f][0-9a-f][0-9a-f]:  / {
	k = split(substr($0, 11, 48), x, " ")
	for (i = 1; i <= k; i++) byte[nb++] = hex2num(x[i])
	next
}
/: PERF_RECORD_(UN)?THROTTLE/ {
	for (i = 1; i <= NF && $i !~ /^\[0x/; i++);
	printf "%s %s %.0f %.0f %.0f %.0f %.0f %d\n", $0 ~ /UNTHROTTLE/ ? "U" : "T", $(i - 2),
		u64(8), u64(16), u64(24), u64(48), u64(56), nb
}
AWK
# first input: the records above with the event's name in front; second: perf script --ns
# -F event,time. Prints the number of malformed records, samples inside gaps, throttled
# ticks whose sample count is not MAX + 1 (or whose last sample is not at the THROTTLE),
# ticks with more than MAX + 1 samples of an event, and gaps.
cat > "$TMP/gaps.awk" <<'AWK'
NR == FNR {
	ev = $1
	if ($3 != $4 || $5 != $6 || $5 != $7 || $5 != $8 || $9 != 64) malformed++
	if ($2 == "T") {
		if (open[ev]) malformed++
		open[ev] = 1; ng[ev]++; gt[ev, ng[ev]] = $3; gu[ev, ng[ev]] = -1
	} else {
		if (!open[ev] || $3 <= gt[ev, ng[ev]] || ($3 - 1e9) % TICK) malformed++
		open[ev] = 0; gu[ev, ng[ev]] = $3
	}
	if (!(ev in seen)) { seen[ev] = 1; evs[++ne] = ev }
	next
}
{
	ev = $2; t = $1; sub(/:$/, "", t); sub(/:$/, "", ev)
	split(t, p, "."); t = p[1] * 1e9 + p[2]
	ns[ev]++; st[ev, ns[ev]] = t
	k = ev SUBSEP int((t - 1e9) / TICK)
	if (++pertick[k] == MAX + 2) over++
}
END {
	for (e = 1; e <= ne; e++) {
		ev = evs[e]
		for (g = 1; g <= ng[ev]; g++) {
			T = gt[ev, g]; U = gu[ev, g]; t0 = 1e9 + int((T - 1e9) / TICK) * TICK
			n = 0; last = 0
			for (i = 1; i <= ns[ev]; i++) {
				t = st[ev, i]
				if (t > T && (U < 0 || t < U)) inside++
				if (t >= t0 && t <= T) { n++; last = t }
			}
			if (n != MAX + 1 || last != T) badtick++
			gaps++
		}
	}
	printf "%d %d %d %d %d\n", malformed, inside, badtick, over, gaps
}
AWK
nstat() { perf report --stats -i "$1" 2>/dev/null | awk -v w="$2" '$1 == w && $2 == "events:" { print $3; exit }'; }

# the taken-branches event without effects; with realistic effects, the stacks taken ~30
# instructions after overflows 3 branches apart, so that some are pending when their event is
# throttled (lost); the cycles event
for w in "primes 10000 none --lbr-period 100" \
	 "primes 5000 realistic --lbr-period 3 --rand-bits 0" \
	 "objects 10 realistic --lbr-event cycles --lbr-period 1000"; do
	set -- $w
	wl=$1 size=$2 fx=$3
	shift 3
	ev="$*"
	label="$wl $fx $ev"
	o="$TMP/$wl.$size"
	if ! "$PMUSIM" --clock-hz $CLOCK --effects $fx --ebs-period 1000 $ev --lbr-depth 8 \
		--truth-cycles -o "$o.0.data" --truth "$o.0.mix" --truth-insns "$o.0.insns" \
		-- "$TMP/wl/$wl" $size >/dev/null 2>"$o.err" ||
	   ! "$PMUSIM" -v --clock-hz $CLOCK --hz $HZ --throttle-rate $RATE --effects $fx \
		--ebs-period 1000 $ev --lbr-depth 8 --truth-cycles -o "$o.data" --truth "$o.mix" \
		--truth-insns "$o.insns" -- "$TMP/wl/$wl" $size >/dev/null 2>"$o.err" ||
	   ! perf report -D -i "$o.data" > "$o.dump" 2>>"$o.err" ||
	   ! perf script --ns -F time,event -i "$o.data" > "$o.script" 2>>"$o.err"; then
		fail "pmusim_throttle: $label: recording or perf failed"
		cat "$o.err" >&2
		continue
	fi
	perf report --header-only -i "$o.data" 2>/dev/null |
		sed -n 's/^# event : name = \([^,]*\), .* id = { \([0-9]*\) }.*/\2 \1/p' > "$o.ids"
	awk -f "$ROOT/tests/cli/hex.awk" -f "$TMP/dump.awk" "$o.dump" |
		awk 'NR == FNR { name[$1] = $2; next } { print ($4 in name ? name[$4] : "?"), $0 }' \
		"$o.ids" - > "$o.thr"
	read malformed inside badtick over gaps <<EOF
$(awk -v TICK=$TICK -v MAX=$MAX -f "$TMP/gaps.awk" "$o.thr" "$o.script")
EOF
	said=$(sed -n 's/^pmusim: \([0-9]*\) THROTTLE and \([0-9]*\) UNTHROTTLE.*/\1 \2/p' "$o.err")
	lost=$(sed -n 's/.* UNTHROTTLE records, \([0-9]*\) samples lost.*/\1/p' "$o.err")
	nt=$(grep -c '^[^ ]* T ' "$o.thr") nu=$(grep -c '^[^ ]* U ' "$o.thr")
	expect "pmusim_throttle: $label: perf counts $nt THROTTLE, $nu UNTHROTTLE, as written" \
		'[ "$nt" -gt 10 ] && [ "$(nstat "$o.data" THROTTLE) $(nstat "$o.data" UNTHROTTLE)" = "$nt $nu" ] &&
		 [ "$said" = "$nt $nu" ]'
	expect "pmusim_throttle: $label: records well formed, no sample in a gap ($lost lost), $((MAX + 1)) per throttled tick" \
		'[ "$malformed" = 0 ] && [ "$inside" = 0 ] && [ "$badtick" = 0 ] && [ "$over" = 0 ] &&
		 [ "$gaps" = "$nt" ] && ! grep -q "^?" "$o.thr"'
	s0=$(nstat "$o.0.data" SAMPLE) s1=$(nstat "$o.data" SAMPLE)
	expect "pmusim_throttle: $label: $s1 of $s0 samples left, truth unchanged" \
		'[ "$s1" -gt 0 ] && [ $((s1 * 10)) -le $((s0 * 9)) ] &&
		 cmp -s "$o.mix" "$o.0.mix" && cmp -s "$o.insns" "$o.0.insns"'
done
