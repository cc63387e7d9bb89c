#!/bin/sh
# `hbbp-convert stats` escapes strings as the JSON writers do (util/json_escape.h): valid UTF-8
# (a hostname "hôte-é€") is printed as is, a control character as \u00XX, and the output is
# valid JSON (python3 reads it back to the same string).
. "$(dirname "$0")/../lib.sh"
PERFGEN=$BUILD/tools/perfgen
[ -x "$PERFGEN" ] || { fail "stats_utf8: $PERFGEN not built"; exit 0; }
command -v python3 >/dev/null 2>&1 || { skip "stats_utf8: python3 not installed"; exit 0; }
printf 'header hostname="h\303\264te-\303\251\342\202\254" cmdline="a\001b"\nevent name=instructions type=0 config=1 period=1000 sample_type=ip,tid,period\nsample ev=0 pid=1 tid=1 ip=0x1000 period=1000\n' > "$TMP/u.spec"
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 "$PERFGEN" "$TMP/u.spec" "$TMP/u.data" 2>"$TMP/pg.err" ||
	{ fail "stats_utf8: perfgen: $(head -1 "$TMP/pg.err")"; exit 0; }
"$HBBP" stats "$TMP/u.data" > "$TMP/u.json" 2>"$TMP/err"
check "stats_utf8: UTF-8 hostname printed as is" grep -q "\"hostname\": \"h$(printf '\303\264')te-$(printf '\303\251\342\202\254')\"" "$TMP/u.json"
check "stats_utf8: control character as \\u0001" grep -q '"cmdline": "a\\u0001b"' "$TMP/u.json"
check "stats_utf8: valid JSON, strings read back" python3 -c "
import json, sys
d = json.load(open(sys.argv[1], encoding='utf-8'))
sys.exit(0 if d['hostname'] == 'h\u00f4te-\u00e9\u20ac' and d['cmdline'] == 'a\x01b' else 1)" "$TMP/u.json"
