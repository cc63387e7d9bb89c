#!/bin/sh
# hbbp-convert train and --model: two workloads (primes, interp; reduced inputs) recorded by
# pmusim with realistic effects, trained against pmusim --truth-insns. Checks: the learned
# cutoff is in a sane range (1..64, the searched range) and the model file has the documented
# lines; --model MODEL gives the same blocks and choices as --cutoff C; in the SQLite blocks
# table (queried with sqlite3, independently of the tool) every block of at most C
# instructions with LBR data took LBR and every longer block with EBS data took EBS; the
# learned cutoff's error is at most the default's (the training's own report); wrong usage and
# malformed models are refused.
. "$(dirname "$0")/../lib.sh"
PMUSIM=${PMUSIM:-$ROOT/pmusim}
for t in qemu-x86_64 cc sqlite3; do
	command -v $t >/dev/null 2>&1 || { skip "train_cutoff: $t not installed"; exit 0; }
done
[ -x "$PMUSIM" ] || { skip "train_cutoff: ./pmusim not built"; exit 0; }
"$ROOT/samples/workloads/build.sh" "$TMP/bin" >/dev/null 2>&1 || { fail "train_cutoff: workloads do not build"; exit 0; }
for spec in "primes 3000 503 11" "interp 300 401 7"; do
	set -- $spec
	"$PMUSIM" --effects realistic --seed 2 --ebs-period $3 --lbr-period $4 -o "$TMP/$1.data" \
		--truth-insns "$TMP/$1.insns.csv" -- "$TMP/bin/$1" $2 >/dev/null 2>&1 ||
		{ fail "train_cutoff: pmusim $1"; exit 0; }
done
if ! "$HBBP" train --ref "$TMP/primes.insns.csv" --ref "$TMP/interp.insns.csv" -o "$TMP/model" \
	"$TMP/primes.data" "$TMP/interp.data" 2>"$TMP/train.err"; then
	cat "$TMP/train.err" >&2; fail "train_cutoff: train failed"; exit 0
fi
c=$(awk '$1 == "cutoff" { print $2 }' "$TMP/model")
tail -1 "$TMP/train.err" >&2
check "train_cutoff: learned cutoff '$c' in 1..64" awk -v c="$c" 'BEGIN { exit !(c ~ /^[0-9]+$/ && c >= 1 && c <= 64) }'
check "train_cutoff: model file format" sh -c "grep -qx 'hbbp-model 1' '$TMP/model' && grep -q '^runs 2$' '$TMP/model' && grep -q '^blocks [1-9]' '$TMP/model'"
check "train_cutoff: learned error <= error at 18" awk '$1 == "error" { e = $2 } $1 == "error_default" { d = $2 } END { exit !(e != "" && e <= d) }' "$TMP/model"
for w in primes interp; do
	"$HBBP" -q --by module,block --diagnostics --model "$TMP/model" -o "$TMP/$w.m.csv" "$TMP/$w.data"
	"$HBBP" -q --by module,block --diagnostics --cutoff "$c" -o "$TMP/$w.c.csv" "$TMP/$w.data"
	check "train_cutoff: $w --model = --cutoff $c" cmp -s "$TMP/$w.m.csv" "$TMP/$w.c.csv"
	"$HBBP" -q --model "$TMP/model" -o "$TMP/$w.db" "$TMP/$w.data"
	bad=$(sqlite3 "$TMP/$w.db" "select count(*) from blocks where length > 0 and
		((length <= $c and lbr_streams > 0 and source <> 'lbr') or
		 (length > $c and ebs_samples > 0 and source <> 'ebs'))")
	n=$(sqlite3 "$TMP/$w.db" "select count(*) from blocks where length > 0 and length <= $c and lbr_streams > 0")
	check "train_cutoff: $w blocks follow the learned rule ($bad of them do not, $n LBR)" [ "$bad" = 0 -a "$n" -gt 0 ]
done
"$HBBP" train --ref "$TMP/primes.insns.csv" "$TMP/primes.data" "$TMP/interp.data" >/dev/null 2>&1
check "train_cutoff: one --ref per recording (exit 1)" [ $? = 1 ]
printf 'hbbp-model 1\ncutoff 18\ntree 2\n' > "$TMP/bad.model"
"$HBBP" -q --model "$TMP/bad.model" -o "$TMP/x.csv" "$TMP/primes.data" 2>"$TMP/bad.err"
check "train_cutoff: malformed model refused (exit 2, names the line)" sh -c "[ $? = 2 ] && grep -q 'bad.model:3' '$TMP/bad.err' && [ ! -e '$TMP/x.csv' ]"
