#!/bin/sh
# Event roles on real recordings: instructions is EBS in a six-event file, --ebs-event moves
# the role, an unknown --lbr-event is an input error (exit 2), `cycles -b` is LBR-only with a
# warning, a br_inst_exec:taken LBR recording is LBR, and a --call-graph lbr recording's
# call stack is never an LBR source.
. "$(dirname "$0")/../lib.sh"

if ! have_corpus; then skip "reader_roles: no corpus at $CORPUS"; exit 0; fi
role() { grep "\"name\": \"$2\"" "$1" | sed 's/.*"role": "\([a-z]*\)".*/\1/'; }
f=$CORPUS/perf_data_converter/perf.data.busy.0-3.4
"$HBBP" stats "$f" > "$TMP/a.json" 2>/dev/null
check "reader_roles: instructions is ebs" [ "$(role "$TMP/a.json" instructions)" = ebs ]
check "reader_roles: cycles is unused" [ "$(role "$TMP/a.json" cycles)" = unused ]
"$HBBP" stats --ebs-event cycles "$f" > "$TMP/b.json" 2>/dev/null
expect "reader_roles: --ebs-event cycles" \
	'[ "$(role "$TMP/b.json" cycles)" = ebs ] &&
	[ "$(role "$TMP/b.json" instructions)" = unused ]'
"$HBBP" stats --lbr-event nosuch "$f" > /dev/null 2> "$TMP/err"
rc=$?
expect "reader_roles: unknown --lbr-event exits 2 (got $rc)" '[ $rc -eq 2 ] && grep -q "nosuch" "$TMP/err"'
"$HBBP" stats "$CORPUS/autofdo/propeller_sample.perfdata" > "$TMP/c.json" 2> "$TMP/c.err"
expect "reader_roles: cycles -b is lbr-only with a warning" \
	'[ "$(role "$TMP/c.json" cycles)" = lbr ] &&
	grep -q "warning: .*no taken-branches event" "$TMP/c.err" && grep -q "LBR-only" "$TMP/c.json"'
"$HBBP" stats "$CORPUS/autofdo/test.lbr" > "$TMP/d.json" 2> "$TMP/d.err"
expect "reader_roles: br_inst_exec:taken is lbr" \
	'[ "$(role "$TMP/d.json" br_inst_exec:taken)" = lbr ] &&
	! grep -q warning "$TMP/d.err"'
"$HBBP" stats "$CORPUS/perfparser/vector_static_gcc__perf.lbr.data" > "$TMP/e.json" 2>/dev/null
expect "reader_roles: call-stack branch records are unused with a reason" \
	'[ "$(role "$TMP/e.json" cycles)" = unused ] && grep -q "call stack" "$TMP/e.json"'
