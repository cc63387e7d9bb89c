#!/bin/sh
# Golden HBBP tests: a synthetic two-event recording (perfgen) over a hand-written program
# with known blocks; EBS, LBR and HBBP counts are computed by hand (tests/golden/golden_*.expected
# and the numbers below), never taken from the tool. Covers n-1 weighting, per-sample periods
# (freq mode), rejected streams (to>from, cross-module, unmapped, walk over ret, speculative),
# a block split by an LBR-learned leader, the cutoff at 18/19, both fallbacks, --method ebs/lbr
# and the multiplexing scale.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/golden_lib.sh"

names="golden_taxonomy golden_hbbp_mix golden_ebs_mix golden_lbr_mix golden_blocks_diag golden_cutoff_19 golden_cutoff_17 golden_multiplex golden_rejects_meta golden_leader_split"
[ $golden_ok = 1 ] && golden_setup
if [ $golden_ok != 1 ]; then
	for n in $names; do skip "$n: $golden_why"; done
	exit 0
fi
if [ $golden_layout_ok != 1 ]; then
	for n in $names; do fail "$n: golden_prog.S layout differs from what the test assumes"; done
	exit 0
fi
golden_spec "$TMP/g.spec"
run_perfgen "$TMP/g.spec" "$TMP/g.data" 2>"$TMP/perfgen.err" ||
	{ for n in $names; do fail "$n: perfgen: $(head -1 "$TMP/perfgen.err")"; done; exit 0; }
BIN="--binary /golden/prog=$PROG -q"

conv() { "$HBBP" "$TMP/g.data" $BIN "$@"; }

conv --by symbol,mnemonic -o "$TMP/hbbp.csv" 2>"$TMP/err" && mix_cmp "$TMP/hbbp.csv" "$ROOT/tests/golden/golden_hbbp.expected" &&
	pass golden_hbbp_mix || { cat "$TMP/err" >&2; fail golden_hbbp_mix; }
conv --method ebs --by symbol,mnemonic -o "$TMP/ebs.csv" 2>"$TMP/err" && mix_cmp "$TMP/ebs.csv" "$ROOT/tests/golden/golden_ebs.expected" &&
	pass golden_ebs_mix || { cat "$TMP/err" >&2; fail golden_ebs_mix; }
conv --method lbr --by symbol,mnemonic -o "$TMP/lbr.csv" 2>"$TMP/err" && mix_cmp "$TMP/lbr.csv" "$ROOT/tests/golden/golden_lbr.expected" &&
	pass golden_lbr_mix || { cat "$TMP/err" >&2; fail golden_lbr_mix; }

# A user taxonomy column: inc/dec -> incs (8605), j*/ret/call -> control (jne 700 + ret 255 +
# jmp 25 = 980), the other mnemonics "none" (mov 300, cmp 300, lea 25 = 625), the weight
# without code under its marker ([no code] 500, [unmapped] 300).
printf '# test groups\nincs: inc dec\ncontrol: j* ret call\n' > "$TMP/tax.txt"
conv --taxonomy "$TMP/tax.txt" --by taxonomy -o "$TMP/tax.csv" 2>"$TMP/err" &&
	awk -F, 'NR > 1 { c[$1] = $2 } END { exit !(c["incs"] == 8605 && c["control"] == 980 && c["none"] == 625 && c["[no code]"] == 500 && c["[unmapped]"] == 300) }' "$TMP/tax.csv" &&
	pass golden_taxonomy || { cat "$TMP/tax.csv" "$TMP/err" >&2; fail golden_taxonomy; }

# Per block, with diagnostics: block,count,count_lo,count_hi,share,source,ebs_count,lbr_count,
# ebs_samples,lbr_streams,biased
# (counts are instructions: executions x length). Hand-computed:
blk() { printf 'prog+%s' "$1"; }
cat > "$TMP/blocks.exp" <<EXP
$(blk $B19),3800,ebs,3800,1900,3,1
$(blk $B18),3600,lbr,1800,3600,1,2
$(blk $S),1200,lbr,400,1200,1,3
$(blk $F40),800,lbr-fallback,0,800,0,1
$(blk $E),600,ebs-fallback,600,0,1,0
other+0x0,500,ebs,500,0,1,0
[unmapped],300,ebs,300,0,1,0
$(blk $C_MID),140,lbr,400,140,1,2
$(blk $D),50,lbr,0,50,0,1
$(blk $C),20,lbr,0,20,0,1
EXP
conv --by block --diagnostics -o "$TMP/blocks.csv" 2>"$TMP/err" &&
	awk -F, 'NR > 1 { printf "%s,%.10g,%s,%.10g,%.10g,%s,%s\n", $1, $2, $6, $7, $8, $9, $10 }' "$TMP/blocks.csv" > "$TMP/blocks.got" &&
	diff -u "$TMP/blocks.exp" "$TMP/blocks.got" >&2 && pass golden_blocks_diag || fail golden_blocks_diag

# The block split by the indirect-jump target: c is two blocks (2 and 4 instructions)
conv --by block,mnemonic -o "$TMP/split.csv" 2>"$TMP/err" &&
	grep -q "^$(blk $C),inc,20," "$TMP/split.csv" && grep -q "^$(blk $C_MID),inc,105," "$TMP/split.csv" &&
	grep -q "^$(blk $C_MID),ret,35," "$TMP/split.csv" && ! grep -q "^$(blk $C),ret," "$TMP/split.csv" &&
	pass golden_leader_split || fail golden_leader_split

# Cutoff 19: b19 (19 insns) now takes LBR (100 x 19 = 1900); b18 unchanged (LBR 3600).
conv --cutoff 19 --by block --diagnostics -o "$TMP/c19.csv" 2>"$TMP/err" &&
	grep -q "^$(blk $B19),1900,[^,]*,[^,]*,[^,]*,lbr," "$TMP/c19.csv" && grep -q "^$(blk $B18),3600,[^,]*,[^,]*,[^,]*,lbr," "$TMP/c19.csv" &&
	pass golden_cutoff_19 || fail golden_cutoff_19
# Cutoff 17: b18 (18 insns) now takes EBS (1800/18 = 100 x 18 = 1800).
conv --cutoff 17 --by block --diagnostics -o "$TMP/c17.csv" 2>"$TMP/err" &&
	grep -q "^$(blk $B18),1800,[^,]*,[^,]*,[^,]*,ebs," "$TMP/c17.csv" && grep -q "^$(blk $B19),3800,[^,]*,[^,]*,[^,]*,ebs," "$TMP/c17.csv" &&
	pass golden_cutoff_17 || fail golden_cutoff_17

# Multiplexing: the EBS event ran half the time it was enabled: EBS estimates x2.
# b19 3800 -> 7600, e 600 -> 1200, [no code] 500 -> 1000, [unmapped] 300 -> 600; LBR-chosen
# blocks unchanged. Total 11010 + 3800 + 600 + 500 + 300 = 16210.
golden_spec "$TMP/m.spec" mux
if run_perfgen "$TMP/m.spec" "$TMP/m.data" 2>"$TMP/err" &&
   "$HBBP" "$TMP/m.data" $BIN --by block -o "$TMP/m.csv" 2>"$TMP/err"; then
	awk -F, -v b19="$(blk $B19)" -v e="$(blk $E)" -v s="$(blk $S)" '
		NR > 1 { c[$1] = $2; tot += $2 }
		END { ok = c[b19] == 7600 && c[e] == 1200 && c["other+0x0"] == 1000 &&
			c["[unmapped]"] == 600 && c[s] == 1200 && tot == 16210
		      if (!ok) print "multiplex: b19 " c[b19] " e " c[e] " total " tot > "/dev/stderr"
		      exit !ok }' "$TMP/m.csv" && pass golden_multiplex || fail golden_multiplex
else
	cat "$TMP/err" >&2
	fail golden_multiplex
fi

# Rejections and lost/throttled in the JSON metadata: to>from 1 (100), unmapped 1 (100),
# cross-module 1 (100), walk-jump 1 (100), speculative 1 (7); 787 stream weight of which
# 380 attributed; 1 THROTTLE record; 3 lost.
if command -v python3 >/dev/null 2>&1; then
	conv -o "$TMP/g.json" 2>"$TMP/err" && python3 - "$TMP/g.json" <<'PY' && pass golden_rejects_meta || fail golden_rejects_meta
import json, sys
m = json.load(open(sys.argv[1]))["meta"]
exp = {"streams_rejected_to>from": 1, "streams_rejected_unmapped": 1,
       "streams_rejected_cross-module": 1, "streams_rejected_walk-jump": 1,
       "streams_rejected_speculative": 1, "streams_rejected_no-code": 0,
       "weight_rejected_speculative": 7, "weight_rejected_walk-jump": 100,
       "lbr_stream_weight": 787, "lbr_weight_attributed": 380, "throttled": 1,
       "method": "hbbp", "cutoff": 18,
       "unresolved_by_module": "/golden/other ebs=500 lbr=0; [unmapped] ebs=300 lbr=100"}
bad = [(k, v, m.get(k)) for k, v in exp.items() if m.get(k) != v]
if bad:
    print("meta mismatch:", bad, file=sys.stderr)
    sys.exit(1)
PY
else
	skip "golden_rejects_meta: python3 not installed"
fi
