#!/bin/sh
# Exactness through hbbp-convert itself: period-1, no-effect recordings
# of every workload (reduced inputs), converted with --method ebs, lbr and hbbp, give the exact
# instruction mix (pmusim --truth) for every mnemonic, and for every block the EBS and LBR
# estimates agree (EBS at period 1 is exact per instruction: pmusim_exact.sh checks that
# against the truth independently). SKIPs while hbbp-convert has no conversion.
. "$(dirname "$0")/../lib.sh"
PMUSIM=$BUILD/pmusim
[ -x "$PMUSIM" ] || PMUSIM=$ROOT/pmusim
if ! command -v qemu-x86_64 >/dev/null; then skip "pmusim_hbbp: qemu-x86_64 not installed"; exit 0; fi
if ! "$HBBP" --help 2>&1 | grep -q -- '--method'; then
	skip "pmusim_hbbp: $HBBP has no conversion (--method) yet"; exit 0
fi
if [ ! -x "$PMUSIM" ]; then fail "pmusim_hbbp: $PMUSIM not built"; exit 0; fi
if ! sh "$ROOT/samples/workloads/build.sh" "$TMP/wl" 2>"$TMP/build.err"; then
	fail "pmusim_hbbp: cannot build the workloads"; cat "$TMP/build.err" >&2; exit 0
fi
for w in "primes 300" "objects 2" "vector 40" "interp 10" "libcmix 10" "divloop 300"; do
	set -- $w
	wl=$1 arg=$2
	if ! "$PMUSIM" --ebs-period 1 --lbr-period 1 --lbr-depth 8 --effects none \
		-o "$TMP/$wl.data" --truth "$TMP/$wl.truth.csv" -- "$TMP/wl/$wl" $arg \
		>/dev/null 2>"$TMP/$wl.err"; then
		fail "pmusim_hbbp: $wl: pmusim failed"; cat "$TMP/$wl.err" >&2; continue
	fi
	msg="" ok=1
	for m in ebs lbr hbbp; do
		if ! "$HBBP" -q --method $m --by mnemonic -o "$TMP/$wl.$m.csv" "$TMP/$wl.data" \
			2>"$TMP/$wl.$m.err"; then
			ok=0 msg="$msg $m:failed"; cat "$TMP/$wl.$m.err" >&2; continue
		fi
		# sum over mnemonics of |measured - truth| / sum truth (mnemonics on either side)
		err=$(awk -F, 'FNR == 1 { next } NR == FNR { t[$1] = $2; tot += $2; next }
			{ m[$1] = $2 } END { for (k in t) { d = m[k] - t[k]; s += d < 0 ? -d : d }
			for (k in m) if (!(k in t)) s += m[k]; printf "%.3g", s / tot }' \
			"$TMP/$wl.truth.csv" "$TMP/$wl.$m.csv")
		msg="$msg $m:$err"
		awk -v e="$err" 'BEGIN { exit !(e < 1e-9) }' || ok=0
	done
	check "pmusim_hbbp: $wl: EBS, LBR and HBBP mixes equal the exact mix (error$msg)" test $ok = 1
	"$HBBP" -q --method hbbp --by module,block --diagnostics -o "$TMP/$wl.blk.csv" \
		"$TMP/$wl.data" 2>/dev/null
	set -- $(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		{ n++; e = $c["ebs_count"]; l = $c["lbr_count"]; d = e - l; if (d < 0) d = -d
		  if (d > 1e-6 * (e > 1 ? e : 1)) bad++ }
		END { printf "%d %d\n", n, bad }' "$TMP/$wl.blk.csv")
	check "pmusim_hbbp: $wl: EBS and LBR agree on all $1 blocks (${2} differ)" \
		test "$1" -gt 100 -a "$2" = 0
done
# effects off, ordinary periods: hbbp-convert's error against the exact mix shrinks with the
# periods (periods / 10 each step)
msg="" ok=1 prev=""
for p in "100003 10007" "10007 1009" "1009 101"; do
	set -- $p
	if ! "$PMUSIM" --ebs-period $1 --lbr-period $2 --effects none -o "$TMP/per.data" \
		--truth "$TMP/per.truth.csv" -- "$TMP/wl/interp" 1000 >/dev/null 2>"$TMP/per.err" ||
	   ! "$HBBP" -q --method hbbp --by mnemonic -o "$TMP/per.csv" "$TMP/per.data" 2>>"$TMP/per.err"; then
		ok=0; cat "$TMP/per.err" >&2; break
	fi
	err=$(awk -F, 'FNR == 1 { next } NR == FNR { t[$1] = $2; tot += $2; next }
		{ m[$1] = $2 } END { for (k in t) { d = m[k] - t[k]; s += d < 0 ? -d : d }
		for (k in m) if (!(k in t)) s += m[k]; printf "%.6f", s / tot }' \
		"$TMP/per.truth.csv" "$TMP/per.csv")
	msg="$msg $1/$2:$err"
	[ -z "$prev" ] || awk -v e=$err -v p=$prev 'BEGIN { exit !(e < p) }' || ok=0
	prev=$err
done
check "pmusim_hbbp: HBBP error shrinks with the periods (interp 1000:$msg)" test $ok = 1
