#!/bin/sh
# The sqlite3 example queries of writers/SCHEMA.md, extracted from the document itself, run
# on a two-run database written by tests/tools/writetest: each must succeed without an error
# and print rows. The DuckDB example's SELECT runs through sqlite3 (same SQL, no ATTACH).
. "$(dirname "$0")/../lib.sh"
W=$BUILD/tools/writetest
DOC=$ROOT/writers/SCHEMA.md
[ -x "$W" ] || { fail "writers_examples: $W not built"; exit 0; }
command -v sqlite3 > /dev/null || { skip "writers_examples: sqlite3 CLI absent"; exit 0; }
"$W" -b 40 -t one sqlite "$TMP/out.db" 2> /dev/null &&
	"$W" -a -b 40 -k 3 -t two sqlite "$TMP/out.db" 2> /dev/null
check "writers_examples: two-run database written" [ $? -eq 0 ]

# The ```sh block that follows the line "sqlite3:".
awk '/^sqlite3:$/ { want = 1; next }
     want && /^```sh$/ { inblock = 1; next }
     inblock && /^```$/ { exit }
     inblock { print }' "$DOC" > "$TMP/examples.sh"
nr=$(grep -c '^sqlite3 ' "$TMP/examples.sh")
check "writers_examples: SCHEMA.md has sqlite3 examples" [ "$nr" -ge 5 ]
(cd "$TMP" && sh -e ./examples.sh) > "$TMP/out" 2> "$TMP/err"
rc=$?
check "writers_examples: every sqlite3 example runs without error" [ $rc -eq 0 -a ! -s "$TMP/err" ]
[ -s "$TMP/err" ] && head -n 5 "$TMP/err" >&2
check "writers_examples: the examples print rows" [ "$(wc -l < "$TMP/out")" -ge 20 ]
check "writers_examples: the first example prints 5 rows" \
	[ "$(cd "$TMP" && sqlite3 out.db 'select * from mix_by_mnemonic limit 5' | wc -l)" -eq 5 ]

awk '/^```sql$/ { inblock = 1; next } inblock && /^```$/ { exit } inblock { print }' "$DOC" |
	grep -v -e '^INSTALL' -e '^ATTACH' | sed 's/h\.//g' > "$TMP/duck.sql"
got=$(sqlite3 "$TMP/out.db" < "$TMP/duck.sql" 2> "$TMP/err")
expect=$(sqlite3 "$TMP/out.db" 'select mnemonic, count, share from mix_by_mnemonic
	where run_id = 1 limit 10')
check "writers_examples: the DuckDB example's SQL equals mix_by_mnemonic" \
	[ -n "$got" -a "$got" = "$expect" -a ! -s "$TMP/err" ]
