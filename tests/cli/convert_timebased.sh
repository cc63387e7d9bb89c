#!/bin/sh
# Time-based recordings (cpu-clock: what every VM can record) made here at test time, in file
# mode, with -g, with -z and in pipe mode. Without --ebs-event the conversion stops with one
# error naming the events found and the option to use; with --ebs-event cpu-clock it gives an
# EBS-only mix labelled as weighted by time (a warning, "ebs_weight_unit": "ns" in the
# metadata, "ns" not "insns" in the summary), whose total equals the sum of the sample
# periods `perf script` prints, and whose summary names the event (the pipe-mode name comes
# from an EVENT_UPDATE record: it was once read after being freed; valgrind checks that run).
# Skips when perf cannot record here.
. "$(dirname "$0")/../lib.sh"

if ! command -v perf >/dev/null 2>&1; then skip "convert_timebased: perf not installed"; exit 0; fi
if ! perf record -q -e cpu-clock -o "$TMP/probe.data" -- true > /dev/null 2>&1; then
	skip "convert_timebased: perf cannot record here (perf_event_paranoid?)"
	exit 0
fi
perf record -q -e cpu-clock -o "$TMP/file.data" -- gzip -c "$HBBP" > /dev/null 2>&1
perf record -q -e cpu-clock -g -o "$TMP/callg.data" -- gzip -c "$HBBP" > /dev/null 2>&1
perf record -q -e cpu-clock -z -o "$TMP/zstd.data" -- gzip -c "$HBBP" > /dev/null 2>&1
perf record -q -e cpu-clock -o - -- gzip -c "$HBBP" 2>/dev/null > "$TMP/pipe.data"

for kind in file callg zstd pipe; do
	f=$TMP/$kind.data
	if [ ! -s "$f" ]; then skip "convert_timebased $kind: perf did not record"; continue; fi
	"$HBBP" -q "$f" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	check "convert_timebased $kind: no --ebs-event: exit 2, names 'cpu-clock' and the option" \
		sh -c "[ $rc -eq 2 ] && [ \$(wc -l < '$TMP/err') -eq 1 ] &&
			grep -q \"among 'cpu-clock' (time-based)\" '$TMP/err' &&
			grep -q 'use --ebs-event cpu-clock' '$TMP/err'"
	"$HBBP" --ebs-event cpu-clock --by module -o "$TMP/$kind.csv" "$f" 2> "$TMP/err"
	rc1=$?
	"$HBBP" -q --ebs-event cpu-clock -o "$TMP/$kind.json" "$f" 2> /dev/null
	ours=$(awk -F, 'NR > 1 { s += $2 } END { printf "%.0f", s }' "$TMP/$kind.csv")
	if [ "$kind" = pipe ]; then
		ref=$(perf script -i - -F period < "$f" 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s }')
	else
		ref=$(perf script -i "$f" -F period 2>/dev/null | awk '{ s += $1 } END { printf "%.0f", s }')
	fi
	echo "$kind: total ours $ours, perf script periods $ref" >&2
	check "convert_timebased $kind: --ebs-event cpu-clock: EBS-only, weighted by time, total $ours = perf's $ref" \
		sh -c "[ $rc1 -eq 0 ] && grep -q 'method ebs, EBS weighted by time' '$TMP/err' &&
			grep -q \"event 'cpu-clock' counts time (ns)\" '$TMP/err' &&
			grep -q '^  event 0 cpu-clock  *ebs' '$TMP/err' &&
			! grep -q insns '$TMP/err' && grep -q 'total [0-9.e+]* ns' '$TMP/err' &&
			grep -q '\"ebs_weight_unit\": \"ns\"' '$TMP/$kind.json' &&
			grep -q '\"method\": \"ebs\"' '$TMP/$kind.json' &&
			[ -n '$ref' ] && [ '$ours' = '$ref' ]"
done
if ldd "$HBBP" 2>/dev/null | grep -q 'libasan\|libubsan'; then
	skip "convert_timebased pipe valgrind: a sanitizer build (ASan checks the same reads)"
elif command -v valgrind >/dev/null 2>&1 && [ -s "$TMP/pipe.data" ]; then
	valgrind -q --error-exitcode=99 "$HBBP" --ebs-event cpu-clock -o "$TMP/v.csv" \
		"$TMP/pipe.data" 2> "$TMP/vg"
	rc=$?
	check "convert_timebased pipe: valgrind clean, summary names cpu-clock (exit $rc)" \
		sh -c "[ $rc -eq 0 ] && ! grep -q 'Invalid read' '$TMP/vg' &&
			grep -q '^  event 0 cpu-clock ' '$TMP/vg'"
else
	skip "convert_timebased pipe valgrind: valgrind not installed"
fi
