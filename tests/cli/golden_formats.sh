#!/bin/sh
# CSV, JSON, JSONL and SQLite outputs of the same golden run agree row for row (each read by an
# independent reader: python3's csv and json modules, the sqlite3 CLI); the SQLite pivot view
# mix_by_mnemonic, computed by SQL from blocks x instructions, agrees with the tool's
# own --by mnemonic rows; --append of two runs gives two run ids.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/golden_lib.sh"

names="golden_formats_agree golden_sqlite_view golden_sqlite_append golden_sqlite_tables"
[ $golden_ok = 1 ] && golden_setup
if [ $golden_ok != 1 ] || [ "$golden_layout_ok" != 1 ]; then
	for n in $names; do skip "$n: ${golden_why:-golden program layout differs}"; done
	exit 0
fi
if ! command -v python3 >/dev/null 2>&1 || ! command -v sqlite3 >/dev/null 2>&1; then
	for n in $names; do skip "$n: python3 or sqlite3 not installed"; done
	exit 0
fi
golden_spec "$TMP/g.spec"
run_perfgen "$TMP/g.spec" "$TMP/g.data" 2>"$TMP/err" ||
	{ for n in $names; do fail "$n: perfgen: $(head -1 "$TMP/err")"; done; exit 0; }
conv() { "$HBBP" "$TMP/g.data" --binary "/golden/prog=$PROG" -q "$@"; }

args="--by pid,comm,module,symbol,block,mnemonic,isa,mem --diagnostics"
ok=1
conv $args -o "$TMP/o.csv" && conv $args -o "$TMP/o.json" && conv $args -o "$TMP/o.jsonl" &&
	conv $args -o "$TMP/o.sqlite" || ok=0
cols="pid,comm,module,symbol,block,mnemonic,isa,mem,count,count_lo,count_hi,share,source,ebs_count,lbr_count,ebs_samples,lbr_streams,biased,lbr_count_plain,length,executions"
[ $ok = 1 ] && sqlite3 -csv -header "$TMP/o.sqlite" "select $cols from mix order by rowid" > "$TMP/o.sql.csv" || ok=0
if [ $ok = 1 ] && python3 - "$TMP/o.csv" "$TMP/o.json" "$TMP/o.jsonl" "$TMP/o.sql.csv" <<'PY'
import csv, json, sys
def norm(v):
    if v is None or v == "":
        return ""
    try:
        return float(v)
    except (TypeError, ValueError):
        return str(v)
def close(a, b):
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) <= 1e-12 * max(1.0, abs(a))
    return a == b
with open(sys.argv[1], newline="") as f:
    r = list(csv.reader(f))
hdr, rows = r[0], [[norm(v) for v in x] for x in r[1:]]
doc = json.load(open(sys.argv[2]))
jrows = [[norm(o.get(k)) for k in hdr] for o in doc["rows"]]
lines = open(sys.argv[3]).read().splitlines()
lrows = [[norm(json.loads(l).get(k)) for k in hdr] for l in lines[1:]]
with open(sys.argv[4], newline="") as f:
    s = list(csv.reader(f))
srows = [[norm(v) for v in x] for x in s[1:]]
bad = 0
if s[0] != hdr:
    print("sqlite columns", s[0], "!=", hdr, file=sys.stderr); bad = 1
for name, other in (("json", jrows), ("jsonl", lrows), ("sqlite", srows)):
    if len(other) != len(rows):
        print(name, len(other), "rows, csv", len(rows), file=sys.stderr); bad = 1; continue
    for i, (a, b) in enumerate(zip(rows, other)):
        if len(a) != len(b) or not all(close(x, y) for x, y in zip(a, b)):
            print(name, "row", i, b, "!= csv", a, file=sys.stderr); bad = 1
if len(rows) != 19:  # the 18 symbol,mnemonic rows, c inc split in two blocks
    print("expected 19 rows, got", len(rows), file=sys.stderr); bad = 1
sys.exit(bad)
PY
then pass golden_formats_agree; else fail golden_formats_agree; fi

# The SQL view from thread_blocks x instructions vs the tool's own pivot, every row: the
# weight without code is a row under its marker in both (writers/SCHEMA.md, "share"); count,
# and the interval the view computes from thread_blocks' batch columns against the one of
# the mix (rounded there as counts are: integers from 1000 on, else 4 significant digits).
if conv --by mnemonic -o "$TMP/m.csv" &&
   sqlite3 -csv "$TMP/o.sqlite" "select mnemonic, count, count_lo, count_hi from mix_by_mnemonic where run_id = 1" > "$TMP/view.csv"; then
	awk -F, 'function off(a, b) { a -= b; if (a < 0) a = -a; return a > (b >= 1000 ? 0.5 : 5e-4 * b) + 1e-9 }
		NR == FNR { gsub(/"/, "", $1); v[$1] = $2; lo[$1] = $3; hi[$1] = $4; n++; next }
		FNR > 1 { m++; d = $2 - v[$1]; if (d < 0) d = -d
			if (!($1 in v) || d > 1e-9 * $2 || off(lo[$1], $3) || off(hi[$1], $4)) {
				print "view " $1 ": " v[$1] "," lo[$1] "," hi[$1] " != " $2 "," $3 "," $4
				bad = 1 } }
		END { if (m != n) { print m " rows vs " n " in the view"; bad = 1 }; exit bad }' \
		"$TMP/view.csv" "$TMP/m.csv" >&2 && pass golden_sqlite_view || fail golden_sqlite_view
else
	fail golden_sqlite_view
fi

# --append: two runs in one database, two run ids, the same mix twice.
rm -f "$TMP/a.db"
if conv -o "$TMP/a.db" && conv --method lbr --append -o "$TMP/a.db" &&
   [ "$(sqlite3 "$TMP/a.db" 'select count(distinct run_id) from mix')" = 2 ] &&
   [ "$(sqlite3 "$TMP/a.db" "select value from run_meta where run_id = 2 and key = 'method'")" = lbr ]; then
	pass golden_sqlite_append
else
	fail golden_sqlite_append
fi

# The other tables: the module's build-id as readelf reads it, c split into two blocks of 2 and
# 4 instructions, 10 blocks (8 code + [no code] + [unmapped]), the instructions of the
# 8 code blocks (4 + 18 + 19 + 2 + 4 + 2 + 3 + 40 = 92); blocks per thread (one thread) with
# a thread key (pid in $args) or --store threads, else none.
rm -f "$TMP/n.sqlite" "$TMP/t.sqlite"
if conv -o "$TMP/n.sqlite" && conv --store threads -o "$TMP/t.sqlite" &&
   [ "$(sqlite3 "$TMP/n.sqlite" 'select count(*) from thread_blocks')" = 0 ] &&
   [ "$(sqlite3 "$TMP/t.sqlite" 'select count(distinct tid) from thread_blocks')" = 1 ] &&
   [ "$(sqlite3 "$TMP/o.sqlite" 'select count(distinct tid) from thread_blocks')" = 1 ] &&
   [ "$(sqlite3 "$TMP/o.sqlite" "select build_id from modules where name = '/golden/prog'")" = "$BID" ] &&
   [ "$(sqlite3 "$TMP/o.sqlite" "select group_concat(length, ',') from (select length from blocks b join symbols s using (run_id, symbol_id) where s.name = 'c' order by b.address)")" = "2,4" ] &&
   [ "$(sqlite3 "$TMP/o.sqlite" 'select count(*) from blocks')" = 10 ] &&
   [ "$(sqlite3 "$TMP/o.sqlite" 'select count(*) from instructions')" = 92 ]; then
	pass golden_sqlite_tables
else
	fail golden_sqlite_tables
fi
