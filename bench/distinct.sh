#!/bin/sh
# How repetitive a recording's branch stacks are, measured with perf alone (independent of the
# converter): prints "FILE lbr_samples N distinct D pct P", D the distinct lists of (from, to)
# addresses among the stacks of the LBR event (the event whose name has "taken", where there
# is one: the Intel two-event layout; else every sample), all processes together. Describes
# the benchmark inputs (bench/RESULTS.md). Usage: bench/distinct.sh FILE...
# Depends on perf, sed, sort only.
set -e
export LC_ALL=C
for f; do
	ev=.
	perf script -F event -i "$f" 2> /dev/null | head -n 1000 | grep -q taken && ev=taken
	set -- $(perf script -F event,brstack -i "$f" 2> /dev/null | grep -- "$ev" |
		sed 's/^[^:]*: *//; s|\(0x[0-9a-f]*/0x[0-9a-f]*\)/[^ ]*|\1|g; s/ *$//' |
		sort -S 1G | awk '{ n++; if (NR == 1 || $0 != prev) d++; prev = $0 }
			END { printf "%d %d %.1f\n", n, d, n ? 100 * d / n : 0 }')
	echo "$f lbr_samples $1 distinct $2 pct $3"
done
