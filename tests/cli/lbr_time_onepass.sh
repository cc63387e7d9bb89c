#!/bin/sh
# The time-weighted LBR estimate (method.md §5b) reads its input once: the stream durations are
# learnt in the pass that sums the stacks, their weights added at its end. On cycle-sampled
# recordings (the corpus's propeller_sample, `perf record -b -e cycles`; a pmusim workload with
# --lbr-event cycles): the input file is opened once (strace), and the same recording fed
# through a pipe (`perf inject -o -`, pipe mode; `cat | hbbp-convert -`) is time-weighted
# (the run's metadata says lbr_weighting time) and gives the file's output byte for byte, which
# differs from the plain weight's. The values themselves are checked against the independent
# reference (tests/cli/method_reference.sh).
. "$(dirname "$0")/../lib.sh"
PMUSIM=$BUILD/pmusim
[ -x "$PMUSIM" ] || PMUSIM=$ROOT/pmusim
if ! command -v perf >/dev/null 2>&1; then skip "lbr_time_onepass: perf not installed"; exit 0; fi

# onepass NAME FILE OPTS...: the checks above on one recording
onepass() {
	n=$1 f=$2; shift 2
	"$HBBP" -q "$f" "$@" --by symbol,mnemonic -o "$TMP/$n.file.csv" 2>/dev/null
	"$HBBP" -q "$f" "$@" --by symbol,mnemonic --lbr-weighting plain -o "$TMP/$n.plain.csv" 2>/dev/null
	perf inject -i "$f" -o - > "$TMP/$n.pipe" 2>/dev/null
	cat "$TMP/$n.pipe" | "$HBBP" -q - "$@" --by symbol,mnemonic -o "$TMP/$n.pipe.csv" 2>/dev/null
	cat "$TMP/$n.pipe" | "$HBBP" -q - "$@" --by symbol,mnemonic -f json -o "$TMP/$n.pipe.json" 2>/dev/null
	expect "lbr_time_onepass: $n through a pipe time-weighted" \
		"head -c 8 '$TMP/$n.pipe' | grep -q PERFILE2 && grep -q '\"lbr_weighting\": *\"time\"' '$TMP/$n.pipe.json'"
	expect "lbr_time_onepass: $n through a pipe equals the file, not the plain weight" \
		"[ -s '$TMP/$n.file.csv' ] && cmp -s '$TMP/$n.file.csv' '$TMP/$n.pipe.csv' && ! cmp -s '$TMP/$n.file.csv' '$TMP/$n.plain.csv'"
	if command -v strace >/dev/null 2>&1; then
		strace -f -e trace=open,openat -o "$TMP/$n.strace" "$HBBP" -q "$f" "$@" -o "$TMP/$n.s.csv" 2>/dev/null
		opens=$(grep -F -c "\"$f\"" "$TMP/$n.strace")
		expect "lbr_time_onepass: $n opened once ($opens)" "[ '$opens' = 1 ]"
	else
		skip "lbr_time_onepass: $n opened once (strace not installed)"
	fi
}

A=$CORPUS/autofdo
if have_corpus && [ -f "$A/propeller_sample.perfdata" ] && [ -f "$A/propeller_sample_old.bin" ]; then
	onepass propeller "$A/propeller_sample.perfdata" --binary "propeller_sample.bin=$A/propeller_sample_old.bin"
else
	skip "lbr_time_onepass: corpus absent"
fi
if [ -x "$PMUSIM" ] && command -v qemu-x86_64 >/dev/null 2>&1 && command -v cc >/dev/null 2>&1 &&
   sh "$ROOT/samples/workloads/build.sh" "$TMP/bin" >/dev/null 2>&1 &&
   "$PMUSIM" --lbr-event cycles --lbr-period 199 --ebs-period 10007 -o "$TMP/cmix.data" \
	-- "$TMP/bin/libcmix" 2000 >/dev/null 2>&1; then
	onepass pmusim "$TMP/cmix.data"
else
	skip "lbr_time_onepass: pmusim, qemu-x86_64 or cc absent"
fi
