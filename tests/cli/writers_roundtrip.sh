#!/bin/sh
# Round trip of the writers through independent readers: the synthetic result of
# tests/tools/writetest (values a documented function of the row index) is written as CSV,
# JSON, JSONL and SQLite, read back by Python's csv/json/sqlite3 modules, jq and sqlite3's
# own CSV importer, and compared with values recomputed here from the definition, so the
# four outputs agree row for row with each other and with the source.
. "$(dirname "$0")/../lib.sh"
W=$BUILD/tools/writetest
[ -x "$W" ] || { fail "writers_roundtrip: $W not built (make check-build)"; exit 0; }
N=2000
for f in csv json jsonl sqlite; do
	"$W" -n $N -t "round trip" $f "$TMP/o.$f" 2> "$TMP/err.$f"
	check "writers_roundtrip: writetest $f exits 0" [ $? -eq 0 ]
done
check "writers_roundtrip: no temporary file left" \
	[ "$(ls -A "$TMP" | grep -c '^\.o\.')" -eq 0 ]

# Raw CSV bytes: LF line ends, NULL as an empty field, "" for the empty string.
check "writers_roundtrip: csv header" \
	[ "$(head -n 1 "$TMP/o.csv")" = "module,symbol,mnemonic,n,count,share" ]
check "writers_roundtrip: csv NULL is an empty field" grep -q '^,sym_3,jne,' "$TMP/o.csv"
check "writers_roundtrip: csv empty string is \"\"" grep -q '^"",sym_6,' "$TMP/o.csv"
check "writers_roundtrip: csv has LF line ends (CR only in the 1 row in 10 that has one)" \
	[ "$(tr -cd '\r' < "$TMP/o.csv" | wc -c)" -eq $((N / 10)) ]

# sqlite3's CSV importer as a second RFC 4180 parser.
if command -v sqlite3 > /dev/null; then
	got=$(sqlite3 :memory: '.import --csv '"$TMP/o.csv"' t' \
		"select count(*) from t; select module from t where symbol = 'sym_4';
		 select module from t where symbol = 'sym_2'; select n from t where symbol = 'sym_1999';
		 select count from t where symbol = 'sym_10';")
	expect=$(printf '%s\n' $N 'multi' 'line' 'say "hi"' -3999998000999986007 11.333333333333334)
	check "writers_roundtrip: sqlite3 .import --csv reads the CSV back" [ "$got" = "$expect" ]
	got=$(sqlite3 "$TMP/o.sqlite" 'select * from mix_by_mnemonic limit 5' | wc -l)
	check "writers_roundtrip: sqlite3 'select * from mix_by_mnemonic limit 5' gives 5 rows" \
		[ "$got" -eq 5 ]
else
	skip "writers_roundtrip: sqlite3 CLI absent (apt-get install sqlite3)"
fi

if command -v jq > /dev/null; then
	check "writers_roundtrip: jq parses the JSON" jq -e . "$TMP/o.json" > /dev/null
	got=$(jq -c '[.format_version, (.rows|length), .rows[3].module, .rows[6].module,
		.rows[4].module, .meta.tag, (.events|length)]' "$TMP/o.json")
	check "writers_roundtrip: jq reads the JSON values" \
		[ "$got" = "[2,$N,null,\"\",\"multi\\nline\",\"round trip\",2]" ]
	# (jq holds numbers as doubles: compare the text fields only)
	got=$(jq -c 'select(.symbol == "sym_7") | [.module, .mnemonic]' "$TMP/o.jsonl")
	check "writers_roundtrip: jq reads the JSONL values" \
		[ "$got" = '["héllo €","vfmadd231ps"]' ]
else
	skip "writers_roundtrip: jq absent"
fi

if ! command -v python3 > /dev/null; then
	skip "writers_roundtrip: python3 absent, no cross-format comparison"
	exit 0
fi
python3 - "$TMP" $N > "$TMP/py.out" 2>&1 <<'PY'
import csv, json, sqlite3, sys
d, n = sys.argv[1], int(sys.argv[2])
MODULES = ["prog", "lib,c.so.6", 'say "hi"', None, "multi\nline", "crlf\r\nx", "",
           "h\u00e9llo \u20ac", " padded ", "tab\there"]
MNEMONICS = ["mov", "add", "vfmadd231ps", "jne", "ret"]
cols = ["module", "symbol", "mnemonic", "n", "count", "share"]
expect = []
for i in range(n):
    count = float(i) * 1.1 + 1.0 / 3
    expect.append([MODULES[i % 10], "sym_%d" % i, MNEMONICS[i % 5],
                   i * 1000000007 - 4000000000000000000, count, count / 7])
bad = []
def cmp(fmt, rows, null_is_empty=False):
    if len(rows) != n:
        bad.append("%s: %d rows, expected %d" % (fmt, len(rows), n)); return
    for i, (got, exp) in enumerate(zip(rows, expect)):
        if null_is_empty and exp[0] is None:
            exp = [""] + exp[1:]
        if got != exp or any(type(a) != type(b) for a, b in zip(got, exp)):
            bad.append("%s row %d: %r != %r" % (fmt, i, got, exp)); return
with open(d + "/o.csv", newline="", encoding="utf-8") as f:
    r = list(csv.reader(f))
if r[0] != cols: bad.append("csv header %r" % r[0])
cmp("csv", [[a, b, c, int(x), float(y), float(z)] for a, b, c, x, y, z in r[1:]], True)
with open(d + "/o.json", encoding="utf-8") as f:
    doc = json.load(f)
if doc["format_version"] != 2: bad.append("json format_version")
if doc["meta"] != {"file": "synthetic.data", "tag": "round trip", "cutoff": 18, "method": "hbbp"}:
    bad.append("json meta %r" % doc["meta"])
if doc["warnings"] != ["synthetic result, %d rows" % n, 'a "quoted", multi\nline warning']:
    bad.append("json warnings %r" % doc["warnings"])
if [e["name"] for e in doc["events"]] != ["inst_retired.any", "br_inst_retired.near_taken"]:
    bad.append("json events")
if any(list(row.keys()) != cols for row in doc["rows"]): bad.append("json keys")
cmp("json", [[row[c] for c in cols] for row in doc["rows"]])
with open(d + "/o.jsonl", encoding="utf-8") as f:
    lines = [json.loads(l) for l in f]
if lines[0] != {"format_version": 2, "meta": doc["meta"], "warnings": doc["warnings"]}:
    bad.append("jsonl header %r" % lines[0])
cmp("jsonl", [[row[c] for c in cols] for row in lines[1:]])
db = sqlite3.connect(d + "/o.sqlite")
cmp("sqlite", [list(r) for r in db.execute(
    "select module, symbol, mnemonic, n, count, share from mix where run_id = 1 order by rowid")])
meta = dict(db.execute("select key, value from run_meta where run_id = 1"
                       " and key <> 'mix_columns'"))  # the store's own: its mix columns
if meta != doc["meta"]: bad.append("sqlite meta %r" % meta)
w = [m for (m,) in db.execute("select message from warnings order by seq")]
if w != doc["warnings"]: bad.append("sqlite warnings %r" % w)
print("\n".join(bad) if bad else "ok")
PY
check "writers_roundtrip: CSV, JSON, JSONL and SQLite agree row for row with the source" \
	[ "$(cat "$TMP/py.out")" = ok ]
[ "$(cat "$TMP/py.out")" = ok ] || head -n 5 "$TMP/py.out" >&2
