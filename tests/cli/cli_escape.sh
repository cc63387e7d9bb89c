#!/bin/sh
# Text that reaches a terminal is defused: a recording (written by perfgen) whose command
# name, mapped paths and symbol hold ESC[31m and BEL, converted, annotated and diffed: no
# ESC or BEL byte reaches stderr (warnings, notes, the summary) or the text forms (-f
# table, annotate's listing, diff's), and each shows the escaped text \x1b[31m ... \x07
# where the string was (the comm, a missing file's path, the symbol, the module).
. "$(dirname "$0")/../lib.sh"

GEN=$BUILD/tools/perfgen
if [ ! -x "$GEN" ]; then skip "cli_escape: $GEN not built"; exit 0; fi
if ! command -v objcopy >/dev/null 2>&1; then skip "cli_escape: objcopy not installed"; exit 0; fi
E=$(printf '\033')
A=$(printf '\a')
# the demo's binary (build-id f774027a...) under a name, and with a main, holding both
BIN="$TMP/v${E}[31mec${A}"
objcopy --redefine-sym "main=ma${E}[31min${A}" "$ROOT/samples/demo/vector" "$BIN" ||
	{ fail "cli_escape: objcopy"; exit 0; }
cat > "$TMP/esc.spec" <<EOF
event name=instructions type=0 config=1 period=10007 sample_type=ip,tid,time,id,period
comm pid=100 tid=100 name=ev${E}[31mil${A} exec
mmap2 pid=100 tid=100 start=0x401000 len=0x79000 pgoff=0x1000 file=$BIN buildid=f774027a0b6addc1d4c3a421a13af00d99b65a23
mmap2 pid=100 tid=100 start=0x600000 len=0x1000 pgoff=0 file=/nonexistent/go${E}[31mne${A}
repeat 40
sample pid=100 tid=100 ip=0x4015d0 time=+1000
end
repeat 5
sample pid=100 tid=100 ip=0x600010 time=+1000
end
EOF
"$GEN" "$TMP/esc.spec" "$TMP/esc.data" || { fail "cli_escape: perfgen"; exit 0; }

raw() { # FILE...: whether any holds an ESC or BEL byte
	cat "$@" | od -An -c | grep -q -e '033' -e '\\a'
}
esc='\\x1b\[31m'

"$HBBP" -f table --by comm,symbol "$TMP/esc.data" > "$TMP/t.out" 2> "$TMP/t.err"
rc=$?
expect "cli_escape: -f table and the summary: no ESC or BEL; the comm and symbol shown escaped (exit $rc)" \
	'[ $rc -eq 0 ] && ! raw "$TMP/t.out" "$TMP/t.err" &&
	 grep -q "ev${esc}il\\\\x07  *ma${esc}in\\\\x07" "$TMP/t.out" &&
	 grep -q "top of the mix" "$TMP/t.err" && grep -q "ma${esc}in\\\\x07" "$TMP/t.err"'
expect "cli_escape: a warning names the missing file's path escaped" \
	'grep -q "warning: .*no code found for .*/nonexistent/go${esc}ne\\\\x07" "$TMP/t.err"'

"$HBBP" annotate --no-source "$TMP/esc.data" > "$TMP/a.out" 2> "$TMP/a.err"
rc=$?
expect "cli_escape: annotate: no ESC or BEL; the function and module shown escaped (exit $rc)" \
	'[ $rc -eq 0 ] && ! raw "$TMP/a.out" "$TMP/a.err" &&
	 grep -q "^ma${esc}in\\\\x07 (v${esc}ec\\\\x07, 0x4014f0): " "$TMP/a.out"'

"$HBBP" diff --by comm,symbol "$TMP/esc.data" "$TMP/esc.data" > "$TMP/d.out" 2> "$TMP/d.err"
rc=$?
expect "cli_escape: diff: no ESC or BEL; the keys shown escaped (exit $rc)" \
	'[ $rc -eq 0 ] && ! raw "$TMP/d.out" "$TMP/d.err" && grep -q "^ev${esc}il\\\\x07 " "$TMP/d.out"'

# the check can fail: the same bytes unescaped are seen (the JSON keeps the exact text, as
# \u001b; the CSV's cell is the raw text today)
"$HBBP" -q -f json -o "$TMP/e.json" --by comm "$TMP/esc.data" 2> /dev/null
expect "cli_escape: the JSON keeps the exact comm" 'grep -q "ev\\\\u001b\[31mil\\\\u0007" "$TMP/e.json"'
