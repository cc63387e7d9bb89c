#!/bin/sh
# The paper's experiment (HBBP paper §IV), rerun on the simulator: builds the six workloads,
# records each ONCE through pmusim with realistic effects, converts with --method ebs, lbr and
# hbbp, sweeps the cutoff from 4 to 40 (re-converting only), compares every mix against the
# exact truth with `hbbp-convert compare`, and writes a Markdown table (default
# bench/ACCURACY.md), then appends the calibration of the intervals (bench/calibrate.sh,
# twenty more recordings of each workload without hardware effects), and the cycles and IPC
# against pmusim's cycle accounting (bench/accuracy_cycles.sh). Depends only on
# ./hbbp-convert, ./pmusim, qemu-x86_64, a C compiler and tests/tools/blocklen (built by
# make check-build).
# Usage: bench/accuracy.sh [-o OUT.md] [-w WORKDIR] [WORKLOAD...]
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
HBBP=${HBBP:-$top/hbbp-convert}
PMUSIM=${PMUSIM:-$top/pmusim}
BL=${BLOCKLEN:-$top/build/rel/tools/blocklen}
out=$top/bench/ACCURACY.md
work=${TMPDIR:-/tmp}/hbbp-accuracy
while getopts o:w: opt; do
	case $opt in
	o) out=$OPTARG ;;
	w) work=$OPTARG ;;
	*) echo "usage: $0 [-o OUT.md] [-w WORKDIR] [WORKLOAD...]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
all="primes objects vector interp libcmix divloop"
[ $# -gt 0 ] && all="$*"
SEED=1
# 16 entries: the LBR of the paper's machine (Xeon E5-2695 v2, Ivy Bridge; §III.B "A typical
# LBR record is a stack of 16 entries").
DEPTH=16
SWEEP="4 6 8 10 12 14 16 18 20 22 24 26 28 30 34 40"
# The effects of `pmusim --effects realistic` (samples/pmusim/README.md, calibration there).
EFFECTS="EBS skid mean 0.3 instructions, half the EBS samples on the next retirement group
(width 4), shadowing 0.9, 6 random period bits, LBR PMI latency geometric with mean 30
instructions, entry-slot bias 0.1/0.5"

# Input size and EBS/LBR periods per workload. Sizes give 15-30 M instructions (qemu tracing
# runs at ~100 000 blocks/s here, under a minute per workload), so that with an EBS period of
# 1009 instructions each run gets tens of thousands of EBS samples, as the paper's runs do
# (27 s at period 1 000 037 gives ~80 000) and systematic effects, not sampling noise,
# dominate. The LBR period is a tenth of the EBS period: the ratio of every row of the
# paper's Table 4 (1 000 037 / 100 003 for runs of seconds). Periods are odd and not round.
params() {
	case $1 in
	primes)  echo "80000 1009 101" ;;
	objects) echo "120 1009 101" ;;
	vector)  echo "4000 1009 101" ;;
	interp)  echo "40000 1009 101" ;;
	libcmix) echo "9000 1009 101" ;;
	divloop) echo "1300000 1009 101" ;;
	*) echo "unknown workload $1" >&2; exit 2 ;;
	esac
}
# Extra arguments (vector: fit passes over the tracks).
extra() { [ "$1" = vector ] && echo 12; true; }

mkdir -p "$work"
[ -x "$BL" ] || make -C "$top" -s check-build >/dev/null || true
"$top/samples/workloads/build.sh" "$work/bin" >/dev/null

err() { # REF MIX -> the number of the last line of compare
	"$HBBP" compare --ref "$1" "$2" | awk '/^average weighted error/ { sub("%", "", $4); print $4 }'
}
conv() { # DATA OUT.csv ARGS...
	d=$1; o=$2; shift 2
	"$HBBP" -q --by mnemonic -o "$o" "$@" "$d"
}

tab=$work/table.txt
: >"$tab"
for w in $all; do
	set -- $(params "$w")
	size=$1 pe=$2 pl=$3
	d=$work/$w.data
	cmd="$PMUSIM --effects realistic --truth-cycles --seed $SEED --lbr-depth $DEPTH --ebs-period $pe --lbr-period $pl -o $d --truth $work/$w.truth.csv --truth-insns $work/$w.insns.csv -- $work/bin/$w $size $(extra $w)"
	echo "$cmd" >"$work/$w.cmd"
	if true; then	# record every run: build.sh has just rebuilt the binaries
		echo "recording $w ($size)" >&2
		$PMUSIM -v ${cmd#"$PMUSIM"} 2>"$work/$w.pmusim.log" >/dev/null || { cat "$work/$w.pmusim.log" >&2; exit 1; }
	fi
	ninsn=$(awk '/instructions,/ { print $5; exit }' "$work/$w.pmusim.log")
	nsamp=$(awk '/EBS samples/ { for (i = 3; i < NF; i++) if ($(i + 1) == "LBR") { print $2 "/" $i; exit } }' "$work/$w.pmusim.log")
	line="$w $size $ninsn $pe $pl $nsamp"
	for m in ebs lbr hbbp; do
		conv "$d" "$work/$w.$m.csv" --method $m
		line="$line $(err "$work/$w.truth.csv" "$work/$w.$m.csv")"
	done
	line="$line -"
	for c in $SWEEP; do
		conv "$d" "$work/$w.c$c.csv" --cutoff "$c"
		line="$line $(err "$work/$w.truth.csv" "$work/$w.c$c.csv")"
	done
	echo "$line" >>"$tab"
	echo "$line" >&2
done

# Learned rule (hbbp-convert train): leave-one-out, each workload converted with the model
# trained on the others' exact truth; then the model trained on all of them.
learned=""
if [ $(echo $all | wc -w) -ge 2 ]; then
	: >"$work/loo.txt"
	for w in $all; do
		refs="" datas=""
		for o in $all; do
			[ "$o" = "$w" ] && continue
			refs="$refs --ref $work/$o.insns.csv" datas="$datas $work/$o.data"
		done
		"$HBBP" train -q $refs -o "$work/$w.model" $datas
		conv "$work/$w.data" "$work/$w.model.csv" --model "$work/$w.model"
		echo "$w $(err "$work/$w.truth.csv" "$work/$w.model.csv") $(awk '$1 == "cutoff" { print $2 }' "$work/$w.model")" >>"$work/loo.txt"
	done
	refs="" datas=""
	for o in $all; do refs="$refs --ref $work/$o.insns.csv" datas="$datas $work/$o.data"; done
	"$HBBP" train $refs -o "$work/all.model" $datas 2>"$work/train.log"
	learned=$(awk '$1 == "cutoff" { print $2 }' "$work/all.model")
	awk 'NR == FNR { e[$1] = $2; c[$1] = $3; next } { $10 = e[$1] "@" c[$1]; print }' \
		"$work/loo.txt" "$tab" >"$tab.new" && mv "$tab.new" "$tab"
fi

# Branch stacks sampled on time (method.md §5b): each workload recorded again with the LBR
# stacks taken every CPERIOD cycles of pmusim's timing model (--lbr-event cycles, no other
# effect), converted LBR-only with the plain weight period/(n-1) and with the time weight
# period/((n-1) D(Y)); both compared as shares (compare --normalize: the plain weight counts
# cycles, not executions), the time weight also in absolute counts.
CPERIOD=401
ctab=$work/cycles.txt
: >"$ctab"
for w in $all; do
	set -- $(params "$w")
	size=$1
	d=$work/$w.cycles.data
	cmd="$PMUSIM --effects none --lbr-event cycles --seed $SEED --lbr-depth $DEPTH --ebs-period 100003 --lbr-period $CPERIOD -o $d --truth $work/$w.ctruth.csv -- $work/bin/$w $size $(extra $w)"
	echo "$cmd" >"$work/$w.ccmd"
	echo "recording $w (cycles)" >&2
	$PMUSIM -v ${cmd#"$PMUSIM"} 2>"$work/$w.cycles.log" >/dev/null || { cat "$work/$w.cycles.log" >&2; exit 1; }
	cyc=$(awk '/cycles \(timing model\)/ { print $2; exit }' "$work/$w.cycles.log")
	nl=$(awk '/EBS samples/ { for (i = 3; i < NF; i++) if ($(i + 1) == "LBR") { print $i; exit } }' "$work/$w.cycles.log")
	for m in plain time; do
		conv "$d" "$work/$w.c$m.csv" --method lbr --lbr-weighting $m
	done
	p=$("$HBBP" compare --normalize --ref "$work/$w.ctruth.csv" "$work/$w.cplain.csv" | awk '/^average weighted error/ { sub("%", "", $4); print $4 }')
	t=$("$HBBP" compare --normalize --ref "$work/$w.ctruth.csv" "$work/$w.ctime.csv" | awk '/^average weighted error/ { sub("%", "", $4); print $4 }')
	a=$(err "$work/$w.ctruth.csv" "$work/$w.ctime.csv")
	echo "$w $cyc $nl $p $t $a" >>"$ctab"
	echo "$w cycles: plain $p% time $t% (absolute $a%)" >&2
done

# cycles and IPC against the exact cycle accounting, on the same recordings
HBBP=$HBBP sh "$top/bench/accuracy_cycles.sh" "$work" $all >"$work/cycles_acc.md"

sh "$top/tests/cli/accuracy_callgrind_lbr.sh" >"$work/callgrind.log" 2>&1 || true
cgline=$(sed -n 's/^ *LBR-only/LBR-only/p' "$work/callgrind.log")
{
	echo "# Accuracy against the exact truth (pmusim, realistic effects)"
	echo
	echo "Generated by \`make accuracy\` (bench/accuracy.sh) on $(date -u +%Y-%m-%d), $(uname -m),"
	echo "$(grep -m1 'model name' /proc/cpuinfo | sed 's/.*: //'), $(qemu-x86_64 --version | head -1)."
	echo "Each workload is recorded once by pmusim with \`--effects realistic\`:"
	echo "$EFFECTS;"
	echo "seed $SEED, LBR depth $DEPTH, and converted with \`hbbp-convert --by mnemonic --method M\`"
	echo "or \`--cutoff N\`; each mix is compared with \`hbbp-convert compare --ref TRUTH.csv MIX.csv\`"
	echo "(average weighted error, method.md §8, user and start-up code included)."
	echo
	echo "| workload | size | instructions | EBS period | LBR period | EBS/LBR samples | EBS | LBR | HBBP (18) | HBBP learned (LOO) |"
	echo "|---|---|---|---|---|---|---|---|---|---|"
	awk '{ printf "| %s | %s | %s | %s | %s | %s | %s%% | %s%% | %s%% | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8, $9, ($10 == "-" ? "-" : sprintf("%s%% (cutoff %s)", substr($10, 1, index($10, "@") - 1), substr($10, index($10, "@") + 1))) }' "$tab"
	awk '{ e += $7; l += $8; h += $9; if ($10 != "-") m += substr($10, 1, index($10, "@") - 1); n++;
		if ($9 < $7 && $9 < $8) b++ }
		END { printf "| **average** | | | | | | %.2f%% | %.2f%% | %.2f%% | %s |\n\n", e/n, l/n, h/n,
			(m ? sprintf("%.2f%%", m/n) : "-");
			printf "HBBP below both EBS and LBR on %d of %d workloads.\n", b, n }' "$tab"
	echo
	if [ -n "$learned" ]; then
		echo "Learned (\`hbbp-convert train\`, minimising the instruction-weighted block error against"
		echo "pmusim --truth-insns): leave-one-out per workload in the table (cutoff learned from the"
		echo "other workloads); trained on all of them: cutoff $learned"
		echo "($(grep '^learned' "$work/train.log"))."
		echo
	fi
	echo "Cutoff sweep (HBBP average weighted error, %):"
	echo
	printf "| workload |"; for c in $SWEEP; do printf " %s |" "$c"; done; echo
	printf "|---|"; for c in $SWEEP; do printf -- "---|"; done; echo
	awk '{ printf "| %s |", $1; for (i = 11; i <= NF; i++) printf " %s |", $i; printf "\n" }' "$tab"
	awk '{ for (i = 11; i <= NF; i++) s[i] += $i; n++; k = NF }
		END { printf "| **average** |"; for (i = 11; i <= k; i++) printf " %.2f |", s[i]/n; printf "\n" }' "$tab"
	echo
	echo "Reading the table. HBBP takes LBR's estimate for blocks of at most 18 instructions and"
	echo "EBS's for longer ones (method.md §6), so on a workload whose instructions lie almost all"
	echo "in short blocks (share below) HBBP's error follows LBR's, and on one that lives in long"
	echo "blocks it follows EBS's; it can beat both only where both kinds of block carry weight."
	echo
	echo "Share of each run's executed instructions in basic blocks longer than 18 instructions"
	echo "(where HBBP takes EBS's estimate; \`tests/tools/blocklen\` over --truth-insns, blocks split"
	echo "at executed entry points; real Debian programs for comparison: samples/pmusim/README.md):"
	echo
	echo "| workload | instructions in blocks > 18 | blocks executed | of which > 18 |"
	echo "|---|---|---|---|"
	for w in $all; do
		if [ -x "$BL" ]; then
			set -- $("$BL" "$work/$w.insns.csv")
			echo "| $w | $6 | $8 | ${10} |"
		fi
	done
	echo
	echo "Branch stacks sampled on time (method.md §5b): each workload recorded again by pmusim with"
	echo "\`--lbr-event cycles --lbr-period $CPERIOD\` (a stack every $CPERIOD cycles of its timing model,"
	echo "samples/pmusim/README.md \"Time\"; no other effect; LBR depth $DEPTH), converted with"
	echo "\`--method lbr --lbr-weighting plain\` (period/(n-1)) and \`time\` (period/((n-1) D(Y)));"
	echo "average weighted error of the shares (\`compare --normalize\`: the plain weight counts"
	echo "cycles, not executions) and, for the time weight, of the absolute counts:"
	echo
	echo "| workload | cycles | LBR samples | plain LBR | time-weighted LBR | time-weighted, absolute counts | time / plain |"
	echo "|---|---|---|---|---|---|---|"
	awk '{ printf "| %s | %s | %s | %s%% | %s%% | %s%% | %.2f |\n", $1, $2, $3, $4, $5, $6, ($4 > 0 ? $5 / $4 : 0) }' "$ctab"
	awk '{ p += $4; t += $5; a += $6; n++; if ($4 > 1 && $5 > $4 / 3) bad++ }
		END { printf "| **average** | | | %.2f%% | %.2f%% | %.2f%% | |\n\n", p/n, t/n, a/n;
			printf "Time-weighted at most a third of plain wherever plain exceeds 1%%: %s; average %.2f%% (<= 1%%: %s).\n",
				(bad ? "not held on " bad " workload(s)" : "held"), t/n, (t/n <= 1 ? "held" : "not held") }' "$ctab"
	echo
	cat "$work/cycles_acc.md"
	echo
	if [ -n "$cgline" ]; then
		echo "Real LBR recording vs callgrind (tests/cli/accuracy_callgrind_lbr.sh): autofdo's"
		echo "hierarchical_discriminator_test, recorded with \`perf record -b\` on cycles (LBR only),"
		echo "its LBR-only mix against \`valgrind --tool=callgrind --dump-instr=yes\` of the same binary"
		echo "run here, both as shares of the binary's own instructions:"
		echo "$cgline."
		echo "Cycles-sampled stacks weight streams by time, not executions, so the two loops'"
		echo "different IPC moves weight between them; within one function that cancels."
		echo
	fi
	echo "Recording commands (WORK = the work directory):"
	echo
	echo '```'
	for w in $all; do sed "s|$work|WORK|g; s|$top/||g" "$work/$w.cmd"; done
	for w in $all; do sed "s|$work|WORK|g; s|$top/||g" "$work/$w.ccmd"; done
	echo '```'
} >"$out"
# the 95% intervals against the exact counts, with no hardware effect (method.md §10)
HBBP=$HBBP PMUSIM=$PMUSIM sh "$top/bench/calibrate.sh" -M -s 20 -m "ebs lbr hbbp" \
	-w "$work/calibrate" >>"$out"
cat "$out"
