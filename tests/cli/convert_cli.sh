#!/bin/sh
# hbbp-convert's command line: exit codes (0 ok, 1 usage, 2 bad input, 3 I/O), messages naming
# the file (and offset for corrupt input), no partial output on I/O errors (full disk through
# the LD_PRELOAD fault shim, unwritable directory), stdout CSV by default, --top and the
# summary on stderr. Uses the golden recording (tests/cli/golden_lib.sh).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/golden_lib.sh"

expect_rc() { # NAME RC PATTERN CMD...: exit code RC and stderr matching PATTERN
	n=$1 rc=$2 pat=$3; shift 3
	"$@" > "$TMP/out" 2> "$TMP/err"
	got=$?
	if [ $got = "$rc" ] && { [ -z "$pat" ] || grep -q -- "$pat" "$TMP/err"; }; then pass "$n"; else
		echo "$n: exit $got (want $rc), stderr:" >&2; cat "$TMP/err" >&2; fail "$n"; fi
}

expect_rc cli_help 0 "" "$HBBP" --help && grep -q "usage: hbbp-convert" "$TMP/out" || fail cli_help_text
expect_rc cli_bad_option 1 "unknown option '--bogus'" "$HBBP" --bogus x.data
expect_rc cli_bad_method 1 "unknown method 'fast'" "$HBBP" --method fast x.data
expect_rc cli_bad_by 1 "unknown key 'colour'" "$HBBP" --by module,colour x.data
expect_rc cli_bad_ext 1 "cannot tell the format" "$HBBP" -o out.txt x.data
expect_rc cli_bad_cutoff 1 "--cutoff: 'x' is not a number" "$HBBP" --cutoff x x.data
expect_rc cli_missing_input 2 "$TMP/nope.data" "$HBBP" "$TMP/nope.data"
printf 'PERFILE2\001\002\003' > "$TMP/short.data"
expect_rc cli_corrupt_input 2 "short.data.*0x" "$HBBP" "$TMP/short.data"

[ $golden_ok = 1 ] && golden_setup
if [ $golden_ok != 1 ] || [ "$golden_layout_ok" != 1 ]; then
	for n in cli_stdout_default cli_top cli_summary cli_unwritable cli_disk_full; do
		skip "$n: ${golden_why:-golden program layout differs}"; done
	exit 0
fi
golden_spec "$TMP/g.spec"
run_perfgen "$TMP/g.spec" "$TMP/g.data" 2>/dev/null || { fail "cli: perfgen"; exit 0; }
B="--binary /golden/prog=$PROG"

# default: CSV with the default keys on stdout; header then 18 rows
"$HBBP" "$TMP/g.data" $B -q > "$TMP/o.csv" 2>"$TMP/err" &&
	[ "$(head -1 "$TMP/o.csv")" = "module,symbol,mnemonic,count,count_lo,count_hi,share" ] &&
	[ "$(wc -l < "$TMP/o.csv")" -eq 19 ] && pass cli_stdout_default || fail cli_stdout_default
# --top 3: three rows, shares still relative to all rows (3600 / 11010)
"$HBBP" "$TMP/g.data" $B -q --top 3 --by mnemonic -o - > "$TMP/t.csv" 2>"$TMP/err" &&
	[ "$(wc -l < "$TMP/t.csv")" -eq 4 ] &&
	awk -F, 'NR == 2 { d = $5 - 8605 / 11010; exit !($1 == "inc" && d < 5e-6 && d > -5e-6) }' "$TMP/t.csv" &&
	pass cli_top || fail cli_top
# the summary: method, events with roles, rejections, lost/throttled, top of the mix
"$HBBP" "$TMP/g.data" $B -o "$TMP/s.csv" 2>"$TMP/err" &&
	grep -q "method hbbp" "$TMP/err" && grep -q "inst_retired.prec_dist *ebs" "$TMP/err" &&
	grep -q "br_inst_retired.near_taken *lbr" "$TMP/err" && grep -q "to>from 1" "$TMP/err" &&
	grep -q "THROTTLE" "$TMP/err" && grep -q "top of the mix" "$TMP/err" &&
	grep -q "/golden/other" "$TMP/err" && pass cli_summary || { cat "$TMP/err" >&2; fail cli_summary; }
# unwritable output: exit 3, nothing left behind
mkdir -p "$TMP/ro" && chmod 555 "$TMP/ro"
if [ "$(id -u)" = 0 ]; then
	expect_rc cli_unwritable 3 "no/such/dir" "$HBBP" "$TMP/g.data" $B -q -o "$TMP/no/such/dir/o.csv"
else
	expect_rc cli_unwritable 3 "cannot write" "$HBBP" "$TMP/g.data" $B -q -o "$TMP/ro/o.csv"
fi
# full disk while writing: exit 3, one error line with the cause, no output file, no
# temporary left
SHIM=$BUILD/shim/faultshim.so
if ldd "$HBBP" 2>/dev/null | grep -q libasan; then
	skip "cli_disk_full: the LD_PRELOAD fault shim cannot run before the ASan runtime"
elif [ -f "$SHIM" ]; then
	rm -f "$TMP/full.csv"
	LD_PRELOAD=$SHIM FAULTSHIM_PATH=full FAULTSHIM_ENOSPC_AFTER=100 \
		"$HBBP" "$TMP/g.data" $B -q -o "$TMP/full.csv" 2>"$TMP/err"
	rc=$?
	[ $rc = 3 ] && [ ! -e "$TMP/full.csv" ] && ! ls -a "$TMP" | grep -q 'full.csv.' &&
		grep -q "full.csv: writing csv output failed: No space left on device" "$TMP/err" &&
		[ "$(grep -c error: "$TMP/err")" = 1 ] && pass cli_disk_full ||
		{ echo "rc $rc" >&2; cat "$TMP/err" >&2; ls -a "$TMP" >&2; fail cli_disk_full; }
else
	skip "cli_disk_full: fault shim not built"
fi
