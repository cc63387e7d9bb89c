#!/bin/sh
# Honest units: a time-based recording (perf record -e cpu-clock of a small program, made
# here, converted with --ebs-event cpu-clock) is counted in ns, and the summary, annotate and
# diff say ns and never call its counts "instructions" (the whole stdout and stderr of each
# are grepped for the word); so does the HTML report (page and stderr), and the stores' run
# metadata name the unit (count_unit: ns in JSON and SQLite). The same commands on the demo,
# an instructions recording, say "instructions" where the counts are: the grep can fail.
. "$(dirname "$0")/../lib.sh"

if ! command -v perf >/dev/null 2>&1 || ! command -v cc >/dev/null 2>&1; then
	skip "cli_units: perf or cc not installed"
	exit 0
fi
printf 'int main(void){volatile unsigned long s=0;for(unsigned long i=0;i<60000000UL;i++)s+=i*3;return s == 1;}\n' > "$TMP/loop.c"
if ! cc -O1 -g -o "$TMP/loop" "$TMP/loop.c" 2> /dev/null ||
   ! perf record -q -e cpu-clock -o "$TMP/a.data" "$TMP/loop" > /dev/null 2>&1 ||
   ! perf record -q -e cpu-clock -o "$TMP/b.data" "$TMP/loop" > /dev/null 2>&1; then
	skip "cli_units: perf cannot record here (perf_event_paranoid?)"
	exit 0
fi
T="--ebs-event cpu-clock"
says_insns() { grep -q -w -i instructions "$@"; }

"$HBBP" $T -f csv -o "$TMP/a.csv" "$TMP/a.data" 2> "$TMP/sum.err"
rc=$?
expect "cli_units: the summary of a cpu-clock recording: total in ns, no 'instructions' (exit $rc)" \
	'[ $rc -eq 0 ] && grep -q "^top of the mix ([0-9]* rows, total [0-9]* ns;" "$TMP/sum.err" &&
	 ! says_insns "$TMP/sum.err"'

"$HBBP" annotate $T --no-source --module loop "$TMP/a.data" > "$TMP/ann.out" 2> "$TMP/ann.err"
rc=$?
expect "cli_units: annotate: main's count in ns, no 'instructions' (exit $rc)" \
	'[ $rc -eq 0 ] && grep -q "^main (loop, 0x[0-9a-f]*): [0-9]* ns, [0-9.]*% of the total" "$TMP/ann.out" &&
	 ! says_insns "$TMP/ann.out" "$TMP/ann.err"'

"$HBBP" diff $T --by module,symbol "$TMP/a.data" "$TMP/b.data" > "$TMP/diff.out" 2> "$TMP/diff.err"
rc=$?
expect "cli_units: diff: both runs' counts in ns, no 'instructions' (exit $rc)" \
	'[ $rc -eq 0 ] && grep -qx "A: $TMP/a.data (counts in ns)" "$TMP/diff.out" &&
	 grep -qx "B: $TMP/b.data (counts in ns)" "$TMP/diff.out" && ! says_insns "$TMP/diff.out" "$TMP/diff.err"'

"$HBBP" report $T -o "$TMP/a.html" "$TMP/a.data" 2> "$TMP/html.err"
rc=$?
expect "cli_units: report: the page counts ns, no 'instructions' (exit $rc)" \
	'[ $rc -eq 0 ] && grep -q "[0-9.kMG]* ns estimated\." "$TMP/a.html" &&
	 grep -q "<th class=\"n\">ns</th>" "$TMP/a.html" && ! says_insns "$TMP/a.html" "$TMP/html.err"'
"$HBBP" $T -q -f json -o "$TMP/a.json" "$TMP/a.data" 2> /dev/null
"$HBBP" $T -q -o "$TMP/a.sqlite" "$TMP/a.data" 2> /dev/null
u_sql=$(sqlite3 "$TMP/a.sqlite" "SELECT value FROM run_meta WHERE key = 'count_unit'" 2> /dev/null)
expect "cli_units: the stores' run metadata: count_unit ns (JSON, SQLite '$u_sql')" \
	'grep -q "\"count_unit\": \"ns\"" "$TMP/a.json" && [ "$u_sql" = ns ]'

# the demo counts instructions: annotate says so, diff names no unit
D=$ROOT/samples/demo/perf.data
B="--binary vector=$ROOT/samples/demo/vector"
"$HBBP" annotate $B --no-source --symbol main "$D" > "$TMP/demo.out" 2> /dev/null
"$HBBP" diff $B --by module "$D" "$D" > "$TMP/ddiff.out" 2> /dev/null
"$HBBP" report $B -o "$TMP/demo.html" "$D" 2> /dev/null
"$HBBP" -q $B -f json -o "$TMP/demo.json" "$D" 2> /dev/null
expect "cli_units: the demo (instructions): annotate, report and the metadata say instructions, diff names no unit" \
	'grep -q "^main (vector, 0x4014f0): [0-9]* instructions, " "$TMP/demo.out" &&
	 grep -qx "A: $D" "$TMP/ddiff.out" && grep -q "[0-9.kMG]* instructions estimated\." "$TMP/demo.html" &&
	 grep -q "\"count_unit\": \"instructions\"" "$TMP/demo.json"'
