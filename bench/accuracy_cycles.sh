#!/bin/sh
# Cycles against pmusim's exact cycle accounting (docs/METHOD-cycles.md): for recordings made
# with `pmusim --truth-cycles` (WORK/W.data and its --truth-insns WORK/W.insns.csv, as
# bench/accuracy.sh records them), the cycles share by category (`compare --value cycles
# --normalize --by category`: average weighted error) and the IPC of the hot functions
# (those with >= 1% of the reference's instructions: |measured IPC / exact IPC - 1|, weighted
# by the reference's instructions; a hot function without measured cycles counts 100%).
# Prints one Markdown table. Depends only on ./hbbp-convert and awk.
# Usage: bench/accuracy_cycles.sh WORKDIR WORKLOAD...
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
HBBP=${HBBP:-$top/hbbp-convert}
work=$1
shift
err() { awk '/^average weighted error/ { sub("%", "", $4); print $4 }'; }
tab=$work/cycles_acc.txt
: >"$tab"
for w in "$@"; do
	d=$work/$w.data ref=$work/$w.insns.csv
	"$HBBP" -q --by category -o "$work/$w.cyc_cat.csv" "$d"
	"$HBBP" -q --by symbol -o "$work/$w.cyc_sym.csv" "$d"
	cat_err=$("$HBBP" compare --value cycles --normalize --by category --ref "$ref" \
		"$work/$w.cyc_cat.csv" | err)
	cnt_err=$("$HBBP" compare --normalize --by category --ref "$ref" "$work/$w.cyc_cat.csv" | err)
	"$HBBP" compare --by symbol --top 1 -o "$work/$w.cmp_n.csv" --ref "$ref" \
		"$work/$w.cyc_sym.csv" >/dev/null
	"$HBBP" compare --value cycles --by symbol --top 1 -o "$work/$w.cmp_c.csv" --ref "$ref" \
		"$work/$w.cyc_sym.csv" >/dev/null
	# symbol,reference,measured,...: instructions, then cycles, per function
	ipc=$(awk -F, 'FNR == 1 { next } NR == FNR { rn[$1] = $2; mn[$1] = $3; tot += $2; next }
		{ rc[$1] = $2; mc[$1] = $3 }
		END { for (f in rn) { if (rn[f] < 0.01 * tot || !(rc[f] > 0)) continue
				e = (mc[f] > 0 && mn[f] > 0) ? (mn[f] / mc[f]) / (rn[f] / rc[f]) - 1 : -1
				s += rn[f] * (e < 0 ? -e : e); w += rn[f]; k++
				if (rn[f] > hot) { hot = rn[f]; hf = f; he = e } }
			printf "%.2f %d %s %.2f\n", 100 * s / w, k, hf, 100 * he }' \
		"$work/$w.cmp_n.csv" "$work/$w.cmp_c.csv")
	echo "$w $cat_err $cnt_err $ipc" >>"$tab"
	echo "$w cycles: category $cat_err% (instructions $cnt_err%), IPC $ipc" >&2
done
echo "Cycles (docs/METHOD-cycles.md) against pmusim's exact cycle accounting (\`--truth-cycles\`,"
echo "the same recordings): average weighted error of the cycles share by category"
echo "(\`compare --value cycles --normalize --by category --ref W.insns.csv\`), of the instruction"
echo "share by category for comparison, and the IPC error of the hot functions (>= 1% of the"
echo "instructions; |IPC / exact IPC - 1| weighted by their instructions):"
echo
echo "| workload | cycles share by category | instruction share by category | IPC, hot functions | hot functions | hottest: its IPC error |"
echo "|---|---|---|---|---|---|"
awk '{ printf "| %s | %s%% | %s%% | %s%% | %s | %s %s%% |\n", $1, $2, $3, $4, $5, $6, $7 }' "$tab"
awk '{ c += $2; i += $3; p += $4; n++ }
	END { printf "| **average** | %.2f%% | %.2f%% | %.2f%% | | |\n", c/n, i/n, p/n }' "$tab"
