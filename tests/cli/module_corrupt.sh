# Corrupt and truncated ELF files: bbmap must give a clean error (exit 2, "malformed
# input" or "not found") or a usable module, never crash (run it under
# make SAN=address,undefined check for the memory checks).
. "$(dirname "$0")/../lib.sh"
DUMP=$BUILD/tools/bbmap_dump
command -v cc >/dev/null || { skip "module_corrupt: cc not installed"; exit 0; }
cc -O2 -g -o "$TMP/hl" "$ROOT/tests/data/hotloop.c" 2>/dev/null ||
	{ skip "module_corrupt: cannot compile"; exit 0; }
size=$(wc -c < "$TMP/hl")

run() {	# run NAME FILE: prints the exit status class
	"$DUMP" "$2" -s 1 -l > "$TMP/out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] || [ $rc -eq 2 ]; then return 0; fi
	echo "$1: exit $rc" >&2
	tail -5 "$TMP/out" >&2
	return 1
}

# Truncations: too short for an ELF header gives exactly "open: malformed input".
bad=0
for n in 0 1 16 63; do
	head -c $n "$TMP/hl" > "$TMP/t"
	out=$("$DUMP" "$TMP/t" 2>&1); rc=$?
	[ $rc -eq 2 ] && [ "$out" = "open: malformed input" ] || { bad=1; echo "trunc $n: $rc $out" >&2; }
done
check "module_corrupt short files give 'malformed input'" test $bad = 0
bad=0
for n in 64 100 1000 4096 $((size / 3)) $((size / 2)) $((size - 100)) $((size - 1)); do
	head -c $n "$TMP/hl" > "$TMP/t"
	run "trunc $n" "$TMP/t" || bad=1
done
check "module_corrupt truncated files: no crash" test $bad = 0

# Program and section headers cut off the end: the loader refuses with exit 2.
head -c $((size - 200)) "$TMP/hl" > "$TMP/t"
"$DUMP" "$TMP/t" > "$TMP/out" 2>&1
check "module_corrupt truncated section headers refused" grep -qx 'open: malformed input' "$TMP/out"

# Byte flips: ELF header fields, every section header's offset/size/link/entsize fields,
# and bytes spread over the file.
poke() {	# poke FILE OFFSET BYTES(octal escapes)
	printf "$3" | dd of="$1" bs=1 seek=$2 conv=notrunc 2>/dev/null
}
shoff=$(od -An -t u8 -j 40 -N 8 "$TMP/hl" | tr -d ' ')
shnum=$(od -An -t u2 -j 60 -N 2 "$TMP/hl" | tr -d ' ')
bad=0; cases=0
for f in 32 40 54 56 58 60 62; do
	for v in '\377\377' '\000\000' '\001\000'; do
		cp "$TMP/hl" "$TMP/c"; poke "$TMP/c" $f "$v"
		cases=$((cases + 1)); run "ehdr $f" "$TMP/c" || bad=1
	done
done
i=1
while [ $i -lt "$shnum" ]; do
	for fld in 24 32 40; do	# sh_offset, sh_size, sh_link
		for v in '\377\377\377\377\377\377\377\177' '\003\000\000\000'; do
			cp "$TMP/hl" "$TMP/c"; poke "$TMP/c" $((shoff + i * 64 + fld)) "$v"
			cases=$((cases + 1)); run "shdr $i+$fld" "$TMP/c" || bad=1
		done
	done
	i=$((i + 1))
done
o=256
while [ $o -lt "$size" ]; do
	cp "$TMP/hl" "$TMP/c"; poke "$TMP/c" $o '\377\377\377\377\377\377\377\377'
	cases=$((cases + 1)); run "flip $o" "$TMP/c" || bad=1
	o=$((o + 2999))
done
check "module_corrupt $cases corrupted copies: clean error or usable module" test $bad = 0
