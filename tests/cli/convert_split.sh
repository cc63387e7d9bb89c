#!/bin/sh
# Reading a file in two parts (--split SIZE: a segment from about the middle summed apart,
# then resolved where its samples would have been) gives the rows of the one-part reading
# (--split 0): on every file of the corpus, forced with --split 1, the same exit code and the
# same rows with counts equal to 1e-9 relative (sums of the segment's samples are taken in
# another order), or the same error message; a record corrupted inside the segment fails
# with the one-part message and exit code. On the corpus files that allow it the segment is really used (the debug
# line says so); a recording whose records are out of time order around the segment is read
# again in one part. With -j 1 and -j 2 the two-part result is identical byte for byte.
. "$(dirname "$0")/../lib.sh"

# A recording whose MMAP after the segment is older than the segment's samples: the
# segment cannot stand for them; the file is read again in one part (identical rows).
GEN=$BUILD/tools/perfgen
if [ -x "$GEN" ]; then
	for mt in 5 100000; do
		cat > "$TMP/s.spec" <<SPEC
event name=instructions sample_type=ip,tid,time,period period=1000
comm pid=7 tid=7 name=prog time=1
repeat 200
sample pid=7 tid=7 ip=0x401000 time=+10
sample pid=7 tid=7 ip=0x401004 time=+1
round
end
mmap2 pid=7 tid=7 start=0x400000 len=0x10000 pgoff=0 file=/bin/true time=$mt
sample pid=7 tid=7 ip=0x401008 time=+1
SPEC
		"$GEN" "$TMP/s.spec" "$TMP/s$mt.data" > /dev/null
		"$HBBP" -q --split 0 --by module,symbol -o "$TMP/s1.csv" "$TMP/s$mt.data" 2>/dev/null
		HBBP_DEBUG=1 "$HBBP" -q --split 1 --by module,symbol -o "$TMP/s2.csv" \
			"$TMP/s$mt.data" 2>"$TMP/s2.err"
		if [ $mt = 100000 ] && ! command -v python3 >/dev/null 2>&1; then
			skip "convert_split_corrupt: python3 absent"
		elif [ $mt = 100000 ]; then
			# a record size of 4 at about 70% of the records, inside the segment
			python3 - "$TMP/s$mt.data" "$TMP/bad.data" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
off, size = struct.unpack_from('<QQ', b, 40)
p = off
while p < off + size * 7 // 10:
    p += struct.unpack_from('<H', b, p + 6)[0]
struct.pack_into('<H', b, p + 6, 4)
open(sys.argv[2], 'wb').write(b)
PY
			"$HBBP" -q --split 0 -o "$TMP/b1.csv" "$TMP/bad.data" 2>"$TMP/b1.err"
			rb1=$?
			"$HBBP" -q --split 1 -o "$TMP/b2.csv" "$TMP/bad.data" 2>"$TMP/b2.err"
			rb2=$?
			expect "convert_split_corrupt: a corrupt record in the segment: exit 2, the one-part message" \
				'[ $rb1 = 2 ] && [ $rb2 = 2 ] && cmp -s "$TMP/b1.err" "$TMP/b2.err" &&
				grep -q "record size 4 < header size" "$TMP/b2.err" && [ ! -e "$TMP/b2.csv" ]'
		fi
		if [ $mt = 5 ]; then
			expect "convert_split_redo: an older MMAP after the segment: read again in one part, same rows" \
				'grep -q "read again in one part" "$TMP/s2.err" &&
				cmp -s "$TMP/s1.csv" "$TMP/s2.csv"'
		else
			expect "convert_split_inorder: records in order: the segment is used, same rows" \
				'grep -q "part read apart" "$TMP/s2.err" &&
				! grep -q "read again in one part" "$TMP/s2.err" &&
				[ -s "$TMP/s1.csv" ] && cmp -s "$TMP/s1.csv" "$TMP/s2.csv"'
		fi
	done
else
	skip "convert_split_redo: $GEN not built"
	skip "convert_split_inorder: $GEN not built"
	skip "convert_split_corrupt: $GEN not built"
fi

if ! have_corpus; then
	for n in convert_split_corpus convert_split_used convert_split_jobs; do
		skip "$n: corpus absent"
	done
	exit 0
fi

ok=1 used=0 redo=0 files=0 jobs_ok=1
for f in $(find "$CORPUS" -type f \( -name '*.data' -o -name '*.perfdata' -o -name 'perf.data*' \) | sort); do
	files=$((files + 1))
	# keys that need code, then, where its code is not found (no row: exit 4), keys
	# that need none
	for K in pid,module,symbol,mnemonic pid,module; do
		"$HBBP" -q --split 0 --by $K -o "$TMP/one.csv" "$f" 2>"$TMP/one.err"
		rc1=$?
		HBBP_DEBUG=1 "$HBBP" -q --split 1 -j 2 --by $K -o "$TMP/two.csv" "$f" \
			2>"$TMP/two.err"
		rc2=$?
		[ $rc1 -eq 4 ] && [ $rc2 -eq 4 ] || break
	done
	if [ $rc1 -ne $rc2 ]; then
		ok=0; echo "exit codes $rc1 / $rc2: $f" >&2; continue
	fi
	if [ $rc1 -ne 0 ]; then
		# a corrupt input fails with the same message either way
		grep -v ': debug: ' "$TMP/two.err" | cmp -s - "$TMP/one.err" ||
			{ ok=0; echo "messages differ: $f" >&2; }
		continue
	fi
	rows_close "$TMP/one.csv" "$TMP/two.csv" || { ok=0; echo "rows differ: $f" >&2; }
	if grep -q 'part read apart' "$TMP/two.err"; then
		used=$((used + 1))
		grep -q 'read again in one part' "$TMP/two.err" && redo=$((redo + 1))
		if [ $used -le 8 ]; then
			"$HBBP" -q --split 1 -j 1 --by $K -o "$TMP/two1.csv" "$f" 2>/dev/null &&
				cmp -s "$TMP/two.csv" "$TMP/two1.csv" ||
				{ jobs_ok=0; echo "-j 1 != -j 2 with --split: $f" >&2; }
		fi
	fi
done
echo "  $files files, the segment used on $used, read again in one part on $redo" >&2
expect "convert_split_corpus: two-part and one-part rows agree on every corpus file ($files)" \
	'[ $ok = 1 ] && [ $files -gt 50 ]'
check "convert_split_used: the segment was used on corpus files ($used)" [ $used -ge 5 ]
check "convert_split_jobs: two parts on one or two threads give identical rows" [ $jobs_ok = 1 ]
