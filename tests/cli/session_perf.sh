#!/bin/sh
# Address spaces from real recordings, end to end (reader -> session): for every corpus
# recording stock perf reads (MANIFEST rows without '*', with samples), the dso of every
# sample IP from $BUILD/tools/session_resolve must equal what `perf script -F pid,tid,ip,dso`
# reports, compared as sorted "PID/TID IP DSO" lines. Module names are compared as perf's
# "[name]" on both sides (perf prints either form). Where perf has no map for a kernel
# address but ours is the kernel map (Android recordings whose kernel map starts at 0 with
# pgoff 0), the line counts as agreeing and the number is printed. Then the archived-run case: with the
# corpus binaries in a --symfs tree or a build-id cache, the binaries are found (status ok).
# Skips without perf or the corpus.
. "$(dirname "$0")/../lib.sh"

TOOL=$BUILD/tools/session_resolve
if ! have_corpus; then skip "session_perf: no corpus at $CORPUS"; exit 0; fi
if ! command -v perf >/dev/null 2>&1; then skip "session_perf: perf not installed"; exit 0; fi
if [ ! -x "$TOOL" ]; then fail "session_perf: $TOOL not built (make check-build)"; exit 0; fi

awk -F'|' '/^\| [a-z_]+\// { p=$2; s=$11; gsub(/^ +| +$/, "", p); gsub(/^ +| +$/, "", s);
	if (s != "" && s !~ /\*/ && s !~ /^0/ && p !~ /fuzz|corrupted/) print p }' \
	"$CORPUS/MANIFEST.md" > "$TMP/files"

mkdir -p "$TMP/empty"
export PERF_BUILDID_DIR=$TMP/empty

# perf's module naming: "/lib/modules/.../x-y.ko.xz" -> "[x_y]"
norm_dso() {
	awk '{ d = $3; for (i = 4; i <= NF; i++) d = d " " $i;
	       if (d ~ /^\/.*\.ko(\.[a-z]+)?$/) { n = d; sub(/^.*\//, "", n); sub(/\..*$/, "", n);
		 gsub(/-/, "_", n); d = "[" n "]" }
	       print $1 " " $2 " " d }'
}

nfail=0 n=0 nsamples=0 nkf=0
while read -r rel; do
	f=$CORPUS/$rel
	case $rel in
	*intel_pt*) continue ;;		# perf synthesizes samples from the trace
	# group READ samples: perf script prints one line per group member
	simpleperf/perf_with_add_counter.data) continue ;;
	esac
	[ -f "$f" ] || continue
	timeout 120 perf script -G -F pid,tid,ip,dso -i "$f" > "$TMP/perf.raw" 2> /dev/null
	[ -s "$TMP/perf.raw" ] || continue
	awk '{ ip = $2; sub(/^0+/, "", ip); if (ip == "") ip = "0"; d = $0;
	       sub(/^[^(]*\(/, "", d); sub(/\)[ \t]*$/, "", d); print $1 " 0x" ip " " d }' \
		"$TMP/perf.raw" | norm_dso | sort > "$TMP/perf"
	if ! timeout 120 "$TOOL" --buildid-dir "$TMP/empty" --perf-compat "$f" > "$TMP/ours.raw" \
		2> "$TMP/err"; then
		echo "$rel: session_resolve failed: $(tail -n 1 "$TMP/err")" >&2
		nfail=$((nfail + 1)); n=$((n + 1)); continue
	fi
	cut -f1,2 "$TMP/ours.raw" | tr '\t' ' ' | norm_dso | sort > "$TMP/ours"
	# perf: no map; ours: the kernel map, for a kernel address
	comm -23 "$TMP/perf" "$TMP/ours" > "$TMP/only.perf"
	comm -13 "$TMP/perf" "$TMP/ours" > "$TMP/only.ours"
	awk '$3 == "[unknown]" && length($2) == 18 && substr($2, 3, 1) ~ /[89a-f]/ {
		$3 = "[kernel.kallsyms]"; kf++ } { print } END { print kf + 0 > "/dev/stderr" }' \
		"$TMP/only.perf" 2> "$TMP/kf" | sort > "$TMP/only.perf.k"
	n=$((n + 1))
	nsamples=$((nsamples + $(wc -l < "$TMP/perf")))
	if cmp -s "$TMP/only.perf.k" "$TMP/only.ours"; then
		nkf=$((nkf + $(cat "$TMP/kf")))
	else
		nfail=$((nfail + 1))
		echo "$rel: dso differs from perf script:" >&2
		diff "$TMP/perf" "$TMP/ours" | grep "^[<>]" | sort -k2 | head -n 8 >&2
	fi
done < "$TMP/files"
echo "session_perf: $n recordings, $nsamples samples, $nfail differ," \
	"$nkf kernel addresses perf left unmapped" >&2
if [ "$n" -eq 0 ]; then
	skip "session_perf: perf read no corpus recording"
elif [ "$nfail" -eq 0 ]; then
	pass "session_perf: every sample's dso agrees with perf script ($n recordings, $nsamples samples)"
else
	fail "session_perf: $nfail of $n recordings differ from perf script"
fi

# archived run: binaries found through --symfs and a build-id cache, never by recorded path
rec=$CORPUS/autofdo/propeller_sample.perfdata
bin=$CORPUS/autofdo/propeller_sample_old.bin
path=/google/src/cloud/shenhan/autofdo2-fig/google3/devtools/crosstool/autofdo/testdata/propeller_sample.bin
id=04e6da50a63d4b859b0be7e235937cd5a7996ecf
if [ -f "$rec" ] && [ -f "$bin" ]; then
	mkdir -p "$TMP/symfs$(dirname $path)" "$TMP/cache/.build-id/04" "$TMP/cache$path/$id"
	ln -s "$bin" "$TMP/symfs$path"
	cp "$bin" "$TMP/cache$path/$id/elf"
	ln -s "../..$path/$id" "$TMP/cache/.build-id/04/${id#04}"
	ok=1
	for how in "--symfs $TMP/symfs --buildid-dir $TMP/empty" "--buildid-dir $TMP/cache"; do
		# shellcheck disable=SC2086
		"$TOOL" $how "$rec" > "$TMP/out" 2> "$TMP/err" || ok=0
		grep -q "^# dso $path ok" "$TMP/err" || { ok=0; grep "^# dso $path" "$TMP/err" >&2; }
		# every sample in the binary has a symbol
		if grep " $path \[unknown\]$" "$TMP/out" | grep -q .; then ok=0; fi
	done
	# a wrong build-id is refused, with both ids and the path in the message
	cp "$CORPUS/autofdo/libro_sample.so" "$TMP/wrong.bin" 2> /dev/null &&
	"$TOOL" --buildid-dir "$TMP/empty" --binary "propeller_sample.bin=$TMP/wrong.bin" "$rec" \
		> "$TMP/out" 2> "$TMP/err"
	grep "^# dso $path build-id mismatch: .*$TMP/wrong.bin.*9c9f8fbd0f965618.*$id" "$TMP/err" \
		> /dev/null || { ok=0; grep "^# dso $path" "$TMP/err" >&2; }
	"$TOOL" --buildid-dir "$TMP/empty" --binary "propeller_sample.bin=$TMP/wrong.bin" \
		--ignore-build-id "$rec" > "$TMP/out" 2> "$TMP/err"
	grep -q "^# dso $path ok" "$TMP/err" || ok=0
	if [ $ok -eq 1 ]; then
		pass "session_archived: binaries found by --symfs and build-id cache; wrong build-id refused"
	else
		fail "session_archived: see messages above"
	fi
else
	skip "session_archived: propeller_sample recording or binary absent"
fi
