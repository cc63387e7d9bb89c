#!/bin/sh
# One story across formats: the share of a key is count / the total of every row of the run,
# the weight without code ([no code], [unmapped]) included, in CSV, JSON, JSON Lines, the
# SQLite mix table and every SQLite pivot view (mix_by_mnemonic, _isa, _category,
# _function). On the golden recording (tests/cli/golden_lib.sh) the total is 11010
# instructions by hand (golden_hbbp.sh: incs 8605 + control 980 + the rest 1425), of which
# [no code] is 500 and [unmapped] 300: their shares are checked against those numbers.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/golden_lib.sh"

[ $golden_ok = 1 ] && golden_setup
if [ $golden_ok != 1 ]; then skip "writers_share: $golden_why"; exit 0; fi
if ! command -v python3 >/dev/null 2>&1 || ! command -v sqlite3 >/dev/null 2>&1; then
	skip "writers_share: python3 or sqlite3 not installed"; exit 0
fi
golden_spec "$TMP/g.spec"
run_perfgen "$TMP/g.spec" "$TMP/g.data" 2> /dev/null || { fail "writers_share: perfgen"; exit 0; }
conv() { "$HBBP" -q "$TMP/g.data" --binary "/golden/prog=$PROG" "$@" 2> /dev/null; }

# key=share lines, sorted, shares to 6 significant digits
csv_shares() { python3 -c '
import csv, sys
r = list(csv.reader(open(sys.argv[1])))
h = r[0]; s = h.index("share"); k = [i for i, c in enumerate(h) if c not in ("count", "count_lo", "count_hi", "share")]
for row in sorted(r[1:]): print("|".join(row[i] for i in k) + "=%.6g" % float(row[s]))' "$1"; }
json_shares() { python3 -c '
import json, sys
p = sys.argv[1]
if p.endswith(".jsonl"):
    rows = [json.loads(l) for l in open(p)][1:]
else:
    rows = json.load(open(p))["rows"]
out = []
for r in rows:
    out.append("|".join(str(v) for c, v in r.items() if c not in ("count", "count_lo", "count_hi", "share")) + "=%.6g" % r["share"])
print("\n".join(sorted(out)))' "$1"; }
sql_shares() { sqlite3 -separator '=' "$1" "$2" | python3 -c '
import sys
print("\n".join(sorted(l.rsplit("=", 1)[0] + "=%.6g" % float(l.rsplit("=", 1)[1]) for l in sys.stdin.read().split("\n") if l)))'; }

for method in hbbp ebs; do
	conv --method $method -o "$TMP/$method.sqlite"
	for key in mnemonic isa category module,symbol; do
		view=mix_by_$key; cols=$key
		[ $key = module,symbol ] && { view=mix_by_function; cols="module || '|' || symbol"; }
		conv --method $method --by $key -o "$TMP/m.csv"
		conv --method $method --by $key -o "$TMP/m.json"
		conv --method $method --by $key -o "$TMP/m.jsonl"
		rm -f "$TMP/m.sqlite"
		conv --method $method --by $key -o "$TMP/m.sqlite"
		csv_shares "$TMP/m.csv" > "$TMP/csv"
		json_shares "$TMP/m.json" > "$TMP/json"
		json_shares "$TMP/m.jsonl" > "$TMP/jsonl"
		sql_shares "$TMP/m.sqlite" "select $(echo "$key" | sed "s/,/ || '|' || /"), share from mix" > "$TMP/table"
		sql_shares "$TMP/$method.sqlite" "select $cols, share from $view where run_id = 1" > "$TMP/view"
		ok=1
		for f in json jsonl table view; do
			cmp -s "$TMP/csv" "$TMP/$f" || { ok=0; echo "$method $key: csv vs $f:" >&2; diff "$TMP/csv" "$TMP/$f" | head -n 6 >&2; }
		done
		# hand totals: hbbp 11010 (golden_hbbp.sh), ebs 7800 (golden_ebs.expected)
		total=11010; [ $method = ebs ] && total=7800
		nc=$(awk -v t=$total 'BEGIN { printf "%.6g", 500 / t }')
		um=$(awk -v t=$total 'BEGIN { printf "%.6g", 300 / t }')
		if [ $key = mnemonic ] && ! { grep -qx "\[no code\]=$nc" "$TMP/csv" &&
					     grep -qx "\[unmapped\]=$um" "$TMP/csv"; }; then
			ok=0; cat "$TMP/csv" >&2
		fi
		also=
		[ $key = mnemonic ] && also=", [no code] 500/$total, [unmapped] 300/$total"
		check "writers_share $method by $key: CSV, JSON, JSONL, SQLite mix and $view agree$also" \
			[ $ok = 1 ]
	done
done

# The documented pandas recipes (writers/SCHEMA.md): with pandas, run them; without, check
# what they rely on (JSON "rows" is a list of objects with the same keys, JSON Lines' first
# line is the header). `pd.read_json("out.json")["rows"]` was documented once and fails.
conv --by module,mnemonic -o "$TMP/p.json"
conv --by module,mnemonic -o "$TMP/p.jsonl"
conv --by module,mnemonic -o "$TMP/p.csv"
n=$(($(wc -l < "$TMP/p.csv") - 1))
if python3 -c 'import pandas' 2>/dev/null; then
	got=$(python3 -c '
import json, sys, pandas as pd
a = pd.DataFrame(json.load(open(sys.argv[1]))["rows"])
b = pd.read_json(sys.argv[2], lines=True).iloc[1:]
print(len(a), len(b), list(a.columns) == ["module", "mnemonic", "count", "count_lo", "count_hi", "share"])' "$TMP/p.json" "$TMP/p.jsonl")
	src=pandas
else
	got=$(python3 -c '
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
lines = [json.loads(l) for l in open(sys.argv[2])]
same = all(list(r) == ["module", "mnemonic", "count", "count_lo", "count_hi", "share"] for r in rows + lines[1:])
print(len(rows), len(lines) - 1, same and "format_version" in lines[0])' "$TMP/p.json" "$TMP/p.jsonl")
	src="json module (pandas not installed)"
fi
check "writers_share: the pandas recipes read $n rows from JSON and JSON Lines ($src: $got)" \
	[ "$got" = "$n $n True" ]

# --method lbr: weight without code has no row; the run says how much of the stream weight
# that is (the golden recording's /golden/other and unmapped streams)
"$HBBP" "$TMP/g.data" --binary "/golden/prog=$PROG" --method lbr -q -o "$TMP/lbr.csv" 2> "$TMP/lbr.err"
check "writers_share: LBR-only says the stream weight without code has no row" \
	sh -c "grep -q 'of the LBR stream weight falls where no code was found: LBR-only counts have no row' '$TMP/lbr.err' &&
		! grep -q '^\[' '$TMP/lbr.csv'"

# no float noise: on the demo recording (whose counts were 821938.3548387091 and the like)
# every count from 1000 on is an integer, smaller ones have at most 4 significant digits,
# shares at most 6, in CSV and JSON alike
"$HBBP" -q --binary "vector=$ROOT/samples/demo/vector" -o "$TMP/demo.csv" "$ROOT/samples/demo/perf.data" 2>/dev/null
"$HBBP" -q --binary "vector=$ROOT/samples/demo/vector" -o "$TMP/demo.json" "$ROOT/samples/demo/perf.data" 2>/dev/null
noise=$(python3 -c '
import csv, json, sys
def sig(s):
    m = s.lower().split("e")[0].replace("-", "").replace(".", "").lstrip("0").rstrip("0")
    return len(m)
bad = 0
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    c, s = r["count"], r["share"]
    if float(c) >= 1000 and float(c) != int(float(c)) or float(c) < 1000 and sig(c) > 4 or sig(s) > 6:
        bad += 1
for r in json.load(open(sys.argv[2]))["rows"]:
    c, s = r["count"], r["share"]
    if c >= 1000 and c != int(c) or c < 1000 and sig(repr(c)) > 4 or sig(repr(s)) > 6:
        bad += 1
print(bad, len(rows))' "$TMP/demo.csv" "$TMP/demo.json")
check "writers_share: counts and shares carry no float noise in CSV and JSON (rows with noise, rows: $noise)" \
	sh -c "[ '${noise%% *}' = 0 ] && [ '${noise#* }' -gt 10 ]"
