#!/bin/sh
# Real LBR recordings of the corpus convert end to end: the binaries are found through
# --binary, --symfs and a build-id directory; >= 99% of the LBR stream weight touching modules
# whose binaries are present is attributed to blocks; the number of streams equals the one
# counted independently from `perf script -F brstack` (n-1 per stack of n non-padding
# entries); a --call-graph lbr recording is refused as an LBR source with its reason.
. "$(dirname "$0")/../lib.sh"

A=$CORPUS/autofdo
P=$CORPUS/perfparser
if ! have_corpus || ! command -v python3 >/dev/null 2>&1; then
	for n in convert_propeller convert_test_lbr_symfs convert_hierarchical_buildid convert_propeller_streams_perf convert_callstack_refused; do
		skip "$n: corpus or python3 absent"
	done
	exit 0
fi

# meta_check JSON MIN_ROWS: attributed share of the code-module weight >= 0.99, rows present
meta_check() {
	python3 - "$1" "$2" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
m = d["meta"]
tot = m.get("lbr_weight_code_modules", 0)
att = m.get("lbr_weight_code_modules_attributed", 0)
share = att / tot if tot else 0
print("  lbr weight touching modules with code %.4g, attributed %.3f%%; all stream weight %.4g, "
      "attributed %.3f%%" % (tot, 100 * share, m["lbr_stream_weight"],
      100 * m["lbr_weight_attributed"] / m["lbr_stream_weight"]), file=sys.stderr)
ok = share >= 0.99 and len(d["rows"]) >= int(sys.argv[2]) and m["method"] == "lbr"
sys.exit(0 if ok else 1)
PY
}

# propeller_sample: 32-deep LBR, cycles -b (LBR-only), binary by --binary basename. The plain
# weight: in the time weight's units (the default here, tests/cli/lbr_time_corpus.sh) the
# rejected to>from streams weigh 1.4%, not 0.5%, below the 99% asked of attribution here.
"$HBBP" "$A/propeller_sample.perfdata" --binary "propeller_sample.bin=$A/propeller_sample_old.bin" \
	--lbr-weighting plain -q -o "$TMP/p.json" 2>"$TMP/err" && meta_check "$TMP/p.json" 10 &&
	grep -q '"symbol": "compute_flag"' "$TMP/p.json" && pass convert_propeller ||
	{ cat "$TMP/err" >&2; fail convert_propeller; }

# test.lbr: perf 3.3, no build-id; found through --symfs at the recorded path
mkdir -p "$TMP/symfs/export/hda3/tmp"
ln -s "$A/test.binary" "$TMP/symfs/export/hda3/tmp/test.binary"
"$HBBP" "$A/test.lbr" --symfs "$TMP/symfs" -q -o "$TMP/t.json" 2>"$TMP/err" &&
	meta_check "$TMP/t.json" 50 && grep -q '"symbol": "longest_match"' "$TMP/t.json" &&
	pass convert_test_lbr_symfs || { cat "$TMP/err" >&2; fail convert_test_lbr_symfs; }

# hierarchical_discriminator_test: perf 6.8 attr size; found through a build-id directory
bid=a05de3862b94ccc1cbffc5b3aabd1243691187e1
mkdir -p "$TMP/bid/.build-id/a0"
ln -s "$A/hierarchical_discriminator_test.x86_64" "$TMP/bid/.build-id/a0/${bid#a0}"
"$HBBP" "$A/hierarchical_discriminator_test.x86_64.perf.data" --buildid-dir "$TMP/bid" -q \
	-o "$TMP/h.json" 2>"$TMP/err" && meta_check "$TMP/h.json" 10 &&
	grep -q '"symbol": "test_unroll"' "$TMP/h.json" && pass convert_hierarchical_buildid ||
	{ cat "$TMP/err" >&2; fail convert_hierarchical_buildid; }

# streams: stock perf's view of the same stacks
if command -v perf >/dev/null 2>&1 &&
   perf script -i "$A/propeller_sample.perfdata" -F brstack > "$TMP/bs.txt" 2>/dev/null; then
	exp=$(awk '{ n = 0; for (i = 1; i <= NF; i++) if ($i !~ /^0x0\/0x0\//) n++
		     if (n >= 2) s += n - 1 } END { print s + 0 }' "$TMP/bs.txt")
	got=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["meta"]["lbr_streams"])' "$TMP/p.json" 2>/dev/null)
	[ -n "$exp" ] && [ "$exp" = "$got" ] && pass convert_propeller_streams_perf ||
		{ echo "streams: perf $exp, hbbp-convert $got" >&2; fail convert_propeller_streams_perf; }
else
	skip "convert_propeller_streams_perf: perf absent or cannot read the file"
fi

# --call-graph lbr: a call stack, not all taken branches: refused (exit 2) with the reason
"$HBBP" "$P/vector_static_gcc__perf.lbr.data" -q -o "$TMP/v.csv" 2>"$TMP/err"
rc=$?
[ $rc = 2 ] && grep -q "not an LBR source: .*call stack" "$TMP/err" && [ ! -e "$TMP/v.csv" ] &&
	pass convert_callstack_refused || { echo "rc $rc" >&2; cat "$TMP/err" >&2; fail convert_callstack_refused; }
