#!/bin/sh
# Empty is not success: a result with no row (README, "Exit status") exits 4 with one error
# line naming the cause and the fix, and writes nothing (an existing output is left as it
# was): filters that match nothing, binaries not found (EBS [no code] rows, LBR-only no row),
# a binary rebuilt since the recording (the line names --ignore-build-id, not --binary, and
# shows under -q; with rows left, a warning under -q names it), annotate --symbol nosuch, diff
# and report of empty runs, one empty input among several. A key that needs no code (comm)
# still answers. An output that is a directory is a usage error (exit 1, one line).
# Recordings are the demo and perfgen's, mapping the demo's binary (build-id f774027a...).
. "$(dirname "$0")/../lib.sh"

D=$ROOT/samples/demo/perf.data
V=$ROOT/samples/demo/vector
B="--binary vector=$V"
GEN=$BUILD/tools/perfgen
if [ ! -x "$GEN" ]; then skip "cli_empty: $GEN not built"; exit 0; fi

# empty NAME PATTERN CMD...: exit 4, stderr's only error line matches PATTERN, no stdout
empty() {
	name=$1 pat=$2; shift 2
	"$@" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	expect "cli_empty: $name: exit 4, one error line: $pat (exit $rc)" \
		'[ $rc -eq 4 ] && [ $(grep -c "error:" "$TMP/err") -eq 1 ] &&
		 grep "error:" "$TMP/err" | grep -q -- "$pat" && [ ! -s "$TMP/out" ]' ||
		cat "$TMP/err" >&2
}

# ---- filters ----
printf 'kept\n' > "$TMP/old.csv"
empty "--module nomod" "no row, nothing written: no sample passes the filters (--module); without them, --by comm,module" \
	"$HBBP" -q $B --module nomod -o "$TMP/old.csv" "$D"
expect "cli_empty: --module nomod leaves the existing output as it was" 'grep -qx kept "$TMP/old.csv"'
empty "--kernel-only on a user-only recording" "no sample passes the filters (--kernel-only)" \
	"$HBBP" $B --kernel-only "$D"
empty "--comm and --symbol glob matching nothing" "no sample passes the filters (--comm, --symbol)" \
	"$HBBP" -q $B --comm nocomm --symbol 'zz*' "$D"
"$HBBP" -q $B --module vector -o "$TMP/m.csv" "$D" 2> "$TMP/err"
rc=$?
expect "cli_empty: a filter that matches keeps exit 0 (exit $rc)" \
	'[ $rc -eq 0 ] && [ $(wc -l < "$TMP/m.csv") -gt 10 ] && [ ! -s "$TMP/err" ]'

# ---- binaries ----
EBS='event name=instructions type=0 config=1 period=10007 sample_type=ip,tid,time,id,period'
LBR='event name=cycles type=0 config=0 period=100003 sample_type=ip,tid,time,id,period,branch_stack branch_sample_type=any,user'
spec() { # OUT EVENT FILE BUILDID [br]: samples in the demo's main mapped from FILE
	{
		[ "$5" ] && echo "header branch_stack"
		echo "$2"
		echo "comm pid=100 tid=100 name=vector exec"
		echo "mmap2 pid=100 tid=100 start=0x401000 len=0x79000 pgoff=0x1000 file=$3 buildid=$4"
		echo "repeat 40"
		if [ "$5" ]; then
			echo "sample pid=100 tid=100 ip=0x4015d0 time=+1000 br=0x401650/0x4015d0,0x401650/0x4015d0,0x401650/0x4015d0"
		else
			echo "sample pid=100 tid=100 ip=0x4015d0 time=+1000"
		fi
		echo "end"
	} > "$TMP/$1.spec"
	"$GEN" "$TMP/$1.spec" "$TMP/$1.data" || fail "cli_empty: perfgen $1"
}
ID=f774027a0b6addc1d4c3a421a13af00d99b65a23
OTHER=00112233445566778899aabbccddeeff00112233
cp "$V" "$TMP/vector"
spec ebs_ok "$EBS" "$TMP/vector" $ID
spec ebs_missing "$EBS" "$TMP/gone/vector" $ID
spec lbr_missing "$LBR" "$TMP/gone/vector" $ID br
spec ebs_rebuilt "$EBS" "$TMP/vector" $OTHER
spec lbr_rebuilt "$LBR" "$TMP/vector" $OTHER br

"$HBBP" -q "$TMP/ebs_ok.data" > "$TMP/ok.csv" 2> "$TMP/err"
rc=$?
expect "cli_empty: the crafted recording converts with its binary (exit $rc, $(wc -l < "$TMP/ok.csv") lines)" \
	'[ $rc -eq 0 ] && grep -q "^vector,main," "$TMP/ok.csv"'
empty "EBS, binary not found: [no code] rows only" \
	"no code found for '$TMP/gone/vector'; give the binaries with --binary NAME=PATH, --symfs DIR or --buildid-dir DIR" \
	"$HBBP" -q "$TMP/ebs_missing.data"
empty "LBR-only, binary not found: no row" "no code found for '$TMP/gone/vector'; give the binaries with --binary" \
	"$HBBP" -q "$TMP/lbr_missing.data"
"$HBBP" -q --by comm "$TMP/ebs_missing.data" > "$TMP/comm.csv" 2> /dev/null
rc=$?
expect "cli_empty: binary not found, --by comm still answers (exit $rc)" \
	'[ $rc -eq 0 ] && grep -q "^vector,400280," "$TMP/comm.csv"'
for m in ebs lbr; do
	empty "$m, binary rebuilt: names --ignore-build-id (not --binary), under -q" \
		"the binary '$TMP/vector' at hand has another build-id than the recording's (rebuilt since?); --ignore-build-id uses it as it is" \
		"$HBBP" -q "$TMP/${m}_rebuilt.data"
	expect "cli_empty: $m, binary rebuilt: no --binary hint" '! grep -q -e "--binary" -e "--symfs" "$TMP/err"'
	"$HBBP" -q --ignore-build-id "$TMP/${m}_rebuilt.data" > "$TMP/ign.csv" 2> "$TMP/err"
	rc=$?
	expect "cli_empty: $m, binary rebuilt, --ignore-build-id: rows (exit $rc)" \
		'[ $rc -eq 0 ] && grep -q "^vector,main," "$TMP/ign.csv"'
done
# rows left: the rebuilt binary is a warning under -q, naming the option
"$HBBP" -q --by comm "$TMP/ebs_rebuilt.data" > /dev/null 2> "$TMP/err"
rc=$?
expect "cli_empty: binary rebuilt, rows by comm: a warning under -q names --ignore-build-id (exit $rc)" \
	'[ $rc -eq 0 ] && grep -q "warning: .*code not used: $TMP/vector: build-id $ID differs from the recording.s $OTHER .*--ignore-build-id accepts it" "$TMP/err"'

# ---- annotate, diff, report ----
empty "annotate --symbol nosuch" "no function 'nosuch' with counts; hbbp-convert --by module,symbol $D lists those" \
	"$HBBP" annotate $B --symbol nosuch "$D"
empty "annotate of a rebuilt binary" "no function to list: the binary '$TMP/vector' at hand has another build-id" \
	"$HBBP" annotate "$TMP/ebs_rebuilt.data"
"$HBBP" annotate $B --symbol main,nosuch "$D" > "$TMP/out" 2> "$TMP/err"
rc=$?
expect "cli_empty: annotate --symbol main,nosuch: main listed, nosuch a warning (exit $rc)" \
	'[ $rc -eq 0 ] && grep -q "^main (vector" "$TMP/out" && grep -q "warning: .*no function .nosuch. with counts" "$TMP/err"'
empty "diff of two empty results" "no row to compare: no sample passes the filters (--module)" \
	"$HBBP" diff -q $B --module nomod "$D" "$D"
"$HBBP" -q $B -o "$TMP/runs.sqlite" "$D" 2> /dev/null
if [ -f "$TMP/runs.sqlite" ] && command -v sqlite3 >/dev/null 2>&1; then
	sqlite3 "$TMP/runs.sqlite" "UPDATE mix SET mnemonic = '[no code]'" 2> /dev/null
	empty "diff of a database run of [no code] rows" "runs.sqlite#1: the run has no row to compare" \
		"$HBBP" diff "$TMP/runs.sqlite#1" "$D"
fi
rm -f "$TMP/r.html"
empty "report of an empty result" "no row, no page written: no sample passes the filters (--pid)" \
	"$HBBP" report -q $B --pid 1 -o "$TMP/r.html" "$D"
expect "cli_empty: report of an empty result writes no page" '[ ! -e "$TMP/r.html" ]'

# ---- several inputs: the empty one is not a run, the status says so ----
"$HBBP" -q -j 1 -o "$TMP/many.sqlite" "$TMP/ebs_ok.data" "$TMP/ebs_missing.data" 2> "$TMP/err"
rc=$?
runs=$(sqlite3 "$TMP/many.sqlite" 'SELECT count(*) FROM runs' 2> /dev/null)
expect "cli_empty: two inputs, one empty: one run written, exit 4, the empty one named (exit $rc, $runs runs)" \
	'[ $rc -eq 4 ] && [ "$runs" = 1 ] &&
	 grep -q "error: $TMP/ebs_missing.data: no row, nothing written: no code found" "$TMP/err" &&
	 grep -q "1 of 2 inputs failed (the first: $TMP/ebs_missing.data)" "$TMP/err"'

# ---- a directory as output; the status in --help ----
for c in "" report; do
	"$HBBP" $c -o "$TMP" "$D" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	expect "cli_empty: ${c:-convert} -o DIR: exit 1, one line (exit $rc)" \
		'[ $rc -eq 1 ] && [ $(wc -l < "$TMP/err") -eq 1 ] && grep -q "error: -o $TMP: a directory" "$TMP/err"'
done
"$HBBP" --help > "$TMP/out"
expect "cli_empty: --help gives status 4" 'grep -q "^4 no row (nothing found)" "$TMP/out"'
