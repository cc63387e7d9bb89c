#!/bin/sh
# hbbp-convert report: the demo's page rendered by headless Chromium holds, in its charts and
# tables, the numbers the conversion's CSV gives (mix by category, ISA, width and mnemonic,
# the hot functions, main's listing adding up to main's count); its script runs, and without
# JavaScript the charts and tables are all there; the page holds no URL (not even when the
# recording's header holds one); --top/--insns bound the listing; several inputs give one
# section each and a side-by-side chart; usage errors.
. "$(dirname "$0")/../lib.sh"
DEMO=$ROOT/samples/demo
BIN="--binary vector=$DEMO/vector"
DOM="awk -f $ROOT/tests/cli/report_dom.awk"

"$HBBP" report -q $BIN "$DEMO/perf.data" -o "$TMP/r.html" 2>"$TMP/r.err"
rc=$?
check "report_writes: exit 0 and a page" test "$rc" = 0 -a -s "$TMP/r.html"
n=$(grep -c -e 'http://' -e 'https://' -e '//' "$TMP/r.html")
check "report_no_url: no http://, https:// or // in the page ($n lines)" test "$n" = 0
"$HBBP" report $BIN "$DEMO/perf.data" >/dev/null 2>&1; rc1=$?
"$HBBP" report -o "$TMP/x.html" >/dev/null 2>&1; rc2=$?
"$HBBP" report -o "$TMP/x.html" "$TMP/none.data" >/dev/null 2>&1; rc3=$?
cp "$DEMO/perf.data" "$TMP/in.data"
"$HBBP" report $BIN -o "$TMP/in.data" "$TMP/in.data" >/dev/null 2>&1; rc4=$?
expect "report_errors: no -o 1, no input 1, missing input 2, output = input 1 and kept ($rc1 $rc2 $rc3 $rc4)" \
	'[ $rc1 = 1 ] && [ $rc2 = 1 ] && [ $rc3 = 2 ] && [ $rc4 = 1 ] && cmp -s "$DEMO/perf.data" "$TMP/in.data" && [ ! -e "$TMP/x.html" ]'

# a hostile header: URLs in the host name and command line never reach the page as URLs
# (its sample in the demo's main: a result with no row would write no page)
if [ -x "$BUILD/tools/perfgen" ]; then
	cat > "$TMP/u.spec" <<SPEC
header hostname=http://evil.example//x osrelease=6.1 version=6.1 arch=x86_64 nrcpus=1 cmdline="https://a.example/b //c"
event name=inst_retired.any type=4 config=0xc0 period=1000 sample_type=ip,tid,time,id,period ids=11 flags=disabled,mmap,comm,mmap2
comm pid=1 tid=1 name=x exec time=1 id=11
mmap2 pid=1 tid=1 start=0x401000 len=0x79000 pgoff=0x1000 file=$DEMO/vector time=1 id=11
sample ev=0 pid=1 tid=1 ip=0x4015d0 period=1000 time=2
SPEC
	if "$BUILD/tools/perfgen" "$TMP/u.spec" "$TMP/u.data" 2>"$TMP/u.err" &&
	   "$HBBP" report -q -o "$TMP/u.html" "$TMP/u.data" 2>>"$TMP/u.err"; then
		n=$(grep -c -e 'http://' -e 'https://' -e '//' "$TMP/u.html")
		expect "report_no_url_hostile: URLs of the header escaped ($n lines with one)" \
			'[ "$n" = 0 ] && grep -q "evil.example" "$TMP/u.html"'
	else
		fail "report_no_url_hostile: perfgen or report failed"; cat "$TMP/u.err" >&2
	fi
else
	skip "report_no_url_hostile: perfgen not built"
fi

# the bound: --top 2 --insns 5: two listings of at most five instructions
"$HBBP" report -q $BIN --top 2 --insns 5 --mnemonics 4 "$DEMO/perf.data" -o "$TMP/small.html" 2>/dev/null
set -- $($DOM "$TMP/small.html" | awk '$1 == "insn" { n[$2]++ } $1 == "fn" { f++ }
	$1 == "bar" && $2 == "mnemonic" { m++ }
	END { k = 0; mx = 0; for (s in n) { k++; if (n[s] > mx) mx = n[s] }; printf "%d %d %d %d\n", k, mx, f, m }')
check "report_bounded: --top 2 --insns 5 --mnemonics 4: $1 listings of at most $2 instructions, $3 functions, $4 mnemonic bars" \
	test "$1" = 2 -a "$2" = 5 -a "$3" = 2 -a "$4" = 5

if ! command -v chromium >/dev/null; then
	skip "report_dom: chromium not installed (tests/deps.sh installs it)"
	skip "report_nojs: chromium not installed"
	exit 0
fi
chrome() {	# chrome OUT ARGS... PAGE: the DOM after load
	out=$1; shift
	prof=$(mktemp -d "$TMP/chrome.XXXXXX")
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$prof" "$@" > "$out" 2>>"$TMP/chrome.err"
}
if ! chrome "$TMP/dom.html" --dump-dom "file://$TMP/r.html" || ! [ -s "$TMP/dom.html" ]; then
	fail "report_dom: chromium could not render the page"; tail -5 "$TMP/chrome.err" >&2
	exit 0
fi
$DOM "$TMP/dom.html" > "$TMP/dom.txt"
# the CSV of the same conversion, as "bar CHART KEY COUNT LO HI" lines
for k in category isa width mnemonic; do
	"$HBBP" -q $BIN --by $k -o "$TMP/$k.csv" "$DEMO/perf.data" || fail "report_dom: conversion --by $k"
	awk -F, -v k=$k -v top=$([ $k = mnemonic ] && echo 30 || echo 0) '
		NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ tot += $c["count"]; if (top && NR - 1 > top) { rest += $c["count"]; next }
		  key = $1; gsub(/"/, "", key); gsub(/ /, "_", key); if (key == "") key = "(none)"
		  print "bar", k, key, $c["count"], (c["count_lo"] ? $c["count_lo"] : ""), (c["count_hi"] ? $c["count_hi"] : "") }
		END { if (rest > 0) printf "bar %s (other) %.17g  \n", k, rest }' "$TMP/$k.csv"
done > "$TMP/want_bars.txt"
# same lines, numbers equal within 1e-9 relative (the page writes 17 digits)
cat > "$TMP/cmp.awk" <<'AWK'
function close_(a, b,   d, m) {
	if (a == b) return 1
	if (a == "" || b == "") return 0
	d = a - b; if (d < 0) d = -d; m = a < 0 ? -a : a
	return d <= 1e-9 * m + 1e-9
}
NR == FNR { want[$2 " " $3] = $0; n++; next }
{ k = $2 " " $3; if (!(k in want)) { print "extra: " $0; bad++; next }
  split(want[k], w, " "); for (i = 4; i <= 6; i++) if (!close_(w[i], $i)) { print "differs: " $0 " / " want[k]; bad++ }
  seen[k] = 1; m++ }
END { for (k in want) if (!(k in seen)) { print "missing: " want[k]; bad++ }; exit bad > 0 || m != n }
AWK
grep '^bar ' "$TMP/dom.txt" > "$TMP/got_bars.txt"
expect "report_dom_charts: $(wc -l < "$TMP/got_bars.txt") bars of the four charts hold the CSV's counts and intervals" \
	'[ -s "$TMP/got_bars.txt" ] && awk -f "$TMP/cmp.awk" "$TMP/want_bars.txt" "$TMP/got_bars.txt" >&2'
"$HBBP" -q $BIN --by module,symbol --top 10 -o "$TMP/fn.csv" "$DEMO/perf.data"
awk -F, 'NR > 1 { print "fn", $1, $2, $3 }' "$TMP/fn.csv" > "$TMP/want_fn.txt"
grep '^fn ' "$TMP/dom.txt" | awk '{ print "fn", $2, $3, $4 }' > "$TMP/got_fn.txt"
expect "report_dom_functions: the hot functions table holds the CSV's $(wc -l < "$TMP/want_fn.txt") rows in order" \
	'[ -s "$TMP/got_fn.txt" ] && awk '\''NR == FNR { w[FNR] = $0; n = FNR; next }
		{ split(w[FNR], a, " "); d = a[4] - $4; if (d < 0) d = -d
		  if (a[2] != $2 || a[3] != $3 || d > 1e-9 * a[4]) bad++; m++ }
		END { exit bad || m != n }'\'' "$TMP/want_fn.txt" "$TMP/got_fn.txt"'
main=$(awk -F, '$2 == "main" { print $3 }' "$TMP/fn.csv")
sum=$(awk '$1 == "insn" && $2 == "main" { s += $3 } END { printf "%.17g", s }' "$TMP/dom.txt")
check "report_dom_listing: main's listed instructions add up to $sum (mix, rounded: $main)" \
	awk -v a="$sum" -v b="$main" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b >= 1000 && d <= 0.5 + 1e-9 * b) }'
check "report_dom_script: the sorting script ran" grep -qx 'js ready' "$TMP/dom.txt"
# without JavaScript (the page with its script removed): the same charts and tables
sed 's|<script>.*</script>||' "$TMP/r.html" > "$TMP/r-nojs.html"
chrome "$TMP/nojs.html" --dump-dom "file://$TMP/r-nojs.html"
$DOM "$TMP/nojs.html" > "$TMP/nojs.txt"
expect "report_nojs: charts and tables without JavaScript" \
	'grep -qx "js none" "$TMP/nojs.txt" && [ "$(grep -c "^bar " "$TMP/nojs.txt")" = "$(wc -l < "$TMP/got_bars.txt")" ] && [ "$(grep -c "^fn " "$TMP/nojs.txt")" = "$(wc -l < "$TMP/got_fn.txt")" ]'
# several inputs: one section each, a side-by-side chart with one bar per run and category
"$HBBP" report -q $BIN "$DEMO/perf.data" "$DEMO/perf.data" -o "$TMP/two.html" 2>/dev/null
chrome "$TMP/two.dom" --dump-dom "file://$TMP/two.html"
ncat=$(awk 'NR > 1' "$TMP/category.csv" | wc -l)
expect "report_two_inputs: two sections, $ncat categories x 2 runs side by side" \
	'[ "$(grep -c "<section class=\"run\"" "$TMP/two.dom")" = 2 ] && [ "$(grep -c "class=\"cbar\" data-chart=\"compare-by_category\"" "$TMP/two.dom")" = $((2 * ncat)) ]'
# the bias flag of the listings' blocks: as many as the diagnostics' biased blocks of the
# listed functions (--by block --diagnostics, an independent pivot of the same blocks)
"$HBBP" -q $BIN --by symbol,block --diagnostics -o "$TMP/blk.csv" "$DEMO/perf.data"
want=$(awk -F, 'NR == FNR { if (FNR > 1) f[$2] = 1; next }
	FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	($1 in f) && $c["biased"] == 1 { n++ } END { print n + 0 }' "$TMP/fn.csv" "$TMP/blk.csv")
got=$(grep -c 'biased</span>' "$TMP/dom.html")
check "report_dom_bias: $got biased blocks in the listings, $want in the diagnostics" \
	test "$got" = "$want" -a "$want" -gt 0
