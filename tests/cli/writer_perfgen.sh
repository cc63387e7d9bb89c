#!/bin/sh
# perfgen's spec errors: each malformed spec must print exactly
# "perfgen: SPEC:LINE: message", exit 2 and leave no output file behind.
. "$(dirname "$0")/../lib.sh"

GEN=$BUILD/tools/perfgen
if [ ! -x "$GEN" ]; then
	skip "writer_perfgen: $GEN not built"
	exit 0
fi

EV='event name=e sample_type=ip,tid,callchain'
n=0
# err_case EXPECTED_LINE_AND_MESSAGE SPEC_TEXT (lines separated by |)
err_case() {
	n=$((n + 1))
	printf '%s\n' "$2" | tr '|' '\n' > "$TMP/s$n.spec"
	rm -f "$TMP/o$n.data"
	"$GEN" "$TMP/s$n.spec" "$TMP/o$n.data" > /dev/null 2> "$TMP/e$n"
	rc=$?
	want="perfgen: $TMP/s$n.spec:$1"
	got=$(cat "$TMP/e$n")
	if [ $rc -ne 2 ]; then
		fail "writer_perfgen_$n: exit $rc, want 2 ($1)"
	elif [ "$got" != "$want" ]; then
		fail "writer_perfgen_$n: got '$got', want '$want'"
	elif [ -e "$TMP/o$n.data" ]; then
		fail "writer_perfgen_$n: output left behind"
	else
		pass "writer_perfgen_$n: $1"
	fi
}

err_case "1: unknown directive 'frobnicate'" "frobnicate x=1"
err_case "2: bad number '0x40zz' for 'ip'" "$EV|sample ip=0x40zz"
err_case "1: 'sample' before any 'event'" "sample ip=1"
err_case "3: 'event' after records" "$EV|sample ip=1|$EV"
err_case "2: 'option' after events or records" "$EV|option pipe"
err_case "2: 'repeat' without 'end'" "$EV|repeat 3|sample ip=1"
err_case "2: 'end' without 'repeat'" "$EV|end"
err_case "1: unterminated quoted value of 'name'" 'event name="abc'
err_case "1: unknown sample_type 'bogus'" "event sample_type=ip,bogus"
err_case "2: unexpected 'colour=' in 'sample'" "$EV|sample ip=1 colour=red"
err_case "2: no event named 'nope'" "$EV|sample ev=nope"
err_case "2: no event 3 (1 defined)" "$EV|sample ev=3"
err_case "2: branch entry needs FROM/TO[/FLAGS[/CYCLES]]" "$EV|sample br=0x1"
err_case "2: unknown branch flag 'Q' (M, P, X, A, -)" "$EV|sample br=1/2/Q"
err_case "2: 'counters' needs one value per branch entry" "$EV|sample br=1/2,3/4 counters=1"
err_case "2: sample: record larger than 65535 bytes" "event sample_type=raw,aux|sample raw=$(head -c 40000 /dev/zero | od -An -v -tx1 | tr -d ' \n') aux=$(head -c 30000 /dev/zero | od -An -v -tx1 | tr -d ' \n')"
err_case "2: odd number of hex digits in 'buildid'" "$EV|mmap2 pid=1 tid=1 start=0 len=1 file=/x buildid=abc"
err_case "1: precise must be 0..3" "event precise=4"
err_case "1: unknown compress 'lz4' (none, zstd, zstd2)" "option compress=lz4"
err_case "2: 'mmap2' needs 'file='" "$EV|mmap2 pid=1 tid=1 start=0 len=1"
err_case "2: 'repeat' without 'end'" "$EV|repeat 2|repeat 2|sample ip=1|end"

# stdout needs pipe mode
printf '%s\n' "$EV" > "$TMP/p.spec"
if "$GEN" "$TMP/p.spec" - > /dev/null 2> "$TMP/pe" ||
   [ "$(cat "$TMP/pe")" != "perfgen: $TMP/p.spec:1: output '-' needs 'option pipe'" ]; then
	fail "writer_perfgen_stdout_needs_pipe: $(cat "$TMP/pe")"
else
	pass "writer_perfgen_stdout_needs_pipe"
fi
