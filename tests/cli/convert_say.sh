#!/bin/sh
# Every input gives a right answer or says what happened: options that select nothing or are
# refused warn by name, named paths that are not there stop before converting with one line,
# partial inputs (truncated, corrupt header sections, an empty build-id list, a failed input
# among several) are said in stderr and in the output's metadata, and the reader-only
# commands speak like the rest. Uses the bundled demo recording (its binary's build-id is
# f774027a...) and recordings cut or edited here; the no-build-id case records with perf.
. "$(dirname "$0")/../lib.sh"

D=$ROOT/samples/demo/perf.data
V=$ROOT/samples/demo/vector
# one_warning NAME PATTERN CMD...: the command exits 0 and stderr has PATTERN
warns() {
	name=$1 pat=$2; shift 2
	"$@" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	if [ $rc -eq 0 ] && grep -q -- "$pat" "$TMP/err"; then pass "$name"
	else fail "$name (exit $rc)"; cat "$TMP/err" >&2; fi
}
# refuses NAME CODE PATTERN CMD...: exit CODE, one stderr line matching PATTERN, no output
refuses() {
	name=$1 code=$2 pat=$3; shift 3
	"$@" > "$TMP/out" 2> "$TMP/err"
	rc=$?
	if [ $rc -eq "$code" ] && [ "$(wc -l < "$TMP/err")" -eq 1 ] && grep -q -- "$pat" "$TMP/err" &&
	   [ ! -s "$TMP/out" ]; then pass "$name"
	else fail "$name (exit $rc)"; cat "$TMP/err" >&2; fi
}

# --binary: a NAME with no module, another build-id, no build-id, not ELF
warns "say binary name matches no module" \
	"--binary vectorx=$V: no module of that name has samples" \
	"$HBBP" -q --binary "vectorx=$V" -o "$TMP/a.csv" "$D"
warns "say binary build-id differs (named, ids shown)" \
	"--binary vector=$HBBP: not used: .*build-id [0-9a-f]* differs from the recording's f774027a" \
	"$HBBP" -q --binary "vector=$HBBP" -o "$TMP/a.csv" "$D"
if objcopy --remove-section .note.gnu.build-id "$V" "$TMP/vec_nobid" 2>/dev/null; then
	warns "say binary without build-id against a recording with one" \
		"--binary vector=$TMP/vec_nobid: the file has no build-id to check" \
		"$HBBP" -q --binary "vector=$TMP/vec_nobid" -o "$TMP/a.csv" "$D"
else
	skip "say binary without build-id: objcopy not installed"
fi
printf 'not elf\n' > "$TMP/notelf"
warns "say binary not ELF: no 'no error'" "$TMP/notelf: not an ELF file (no ELF header)" \
	"$HBBP" -q --binary "vector=$TMP/notelf" -o "$TMP/a.csv" "$D"
# named paths that are not there: one line, before any work
refuses "say --binary path missing" 1 "error: --binary vector=$TMP/nope: No such file" \
	"$HBBP" --binary "vector=$TMP/nope" "$D"
refuses "say --symfs missing" 1 "error: --symfs $TMP/nope: No such file" "$HBBP" --symfs "$TMP/nope" "$D"
refuses "say --vmlinux missing" 1 "error: --vmlinux $TMP/nope: No such file" "$HBBP" --vmlinux "$TMP/nope" "$D"
refuses "say --kallsyms missing" 1 "error: --kallsyms $TMP/nope: No such file" "$HBBP" --kallsyms "$TMP/nope" "$D"
refuses "say --buildid-dir missing" 1 "error: --buildid-dir $TMP/nope: No such file" \
	"$HBBP" --buildid-dir "$TMP/nope" "$D"
refuses "say -o into a missing directory, before converting" 3 \
	"error: -o /nonexistent/x.csv: directory '/nonexistent' does not exist" \
	"$HBBP" -o /nonexistent/x.csv "$D"
refuses "say a directory input" 2 "error: $TMP: a directory, not a perf.data file" "$HBBP" "$TMP"
# filters
warns "say --module matching nothing" "--module 'nomod' matched no sample" \
	"$HBBP" -q --module vector,nomod -o "$TMP/a.csv" "$D"
warns "say --comm matching nothing" "--comm 'nocomm' matched no sample" \
	"$HBBP" -q --comm vector,nocomm -o "$TMP/a.csv" "$D"
"$HBBP" -q --symbol 'ma*' --by symbol -o "$TMP/glob.csv" "$D" 2> "$TMP/err"
check "say --symbol takes a glob ('ma*' selects main, the only symbol)" \
	sh -c "grep -q '^main,' '$TMP/glob.csv' && [ \$(wc -l < '$TMP/glob.csv') -eq 2 ] && [ ! -s '$TMP/err' ]"
"$HBBP" -q --symbol 'zz*' -o "$TMP/zz.csv" "$D" > "$TMP/out" 2> "$TMP/err"
rc=$?
expect "say --symbol glob matching nothing: warned, no row: exit 4, nothing written (exit $rc)" \
	'[ $rc -eq 4 ] && grep -q -- "warning: .*--symbol .zz\*. matched no sample" "$TMP/err" &&
	 grep -q "error: .*no row, nothing written: no sample passes the filters (--symbol)" "$TMP/err" &&
	 [ ! -e "$TMP/zz.csv" ]'
refuses "say --pid abc is a usage error" 1 "error: --pid: 'abc' is not a process id" \
	sh -c "'$HBBP' --pid abc '$D' 2>&1 >/dev/null | head -n 1 >&2; exit 1"
refuses "say --by taxonomy without --taxonomy" 1 "error: --by taxonomy: needs --taxonomy FILE" \
	sh -c "'$HBBP' --by taxonomy '$D' 2>&1 >/dev/null | head -n 1 >&2; exit 1"

# an EBS event picked automatically that has no samples (a counting event)
PERFGEN=$BUILD/tools/perfgen
if [ -x "$PERFGEN" ]; then
	cat > "$TMP/count.spec" <<'SPEC'
event name=instructions type=0 config=1 period=0 sample_type=ip,tid,time,id,period ids=11
event name=cpu-clock type=1 config=0 period=1000 sample_type=ip,tid,time,id,period ids=21
comm pid=100 tid=100 name=prog exec
mmap2 pid=100 tid=100 start=0x400000 len=0x1000 pgoff=0 file=/nonexistent/prog
sample ev=1 pid=100 tid=100 ip=0x400010 period=1000 id=21
SPEC
	"$PERFGEN" "$TMP/count.spec" "$TMP/count.data" 2> "$TMP/err"
	"$HBBP" -q -f json -o "$TMP/count.json" "$TMP/count.data" 2> "$TMP/err"
	rc=$?
	expect "say an EBS event with no samples (counting event): warned, no row (exit $rc)" \
		'[ $rc -eq 4 ] && grep -q "event .instructions. (ebs) has no samples (recorded as a counting event" "$TMP/err" &&
		 grep -q "error: .*no row, nothing written: the events used have no sample" "$TMP/err"'
else
	skip "say an EBS event with no samples: perfgen not built"
fi

# truncated recordings: the demo cut in its data section (file mode), and a pipe stream cut
dsz=$(od -An -t u8 -j 40 -N 16 "$D" | awk '{ print $1 + $2 }')	# data offset + size
cut=$((dsz - 5000))
head -c $cut "$D" > "$TMP/cut.data"
"$HBBP" stats "$TMP/cut.data" > "$TMP/stats.json" 2> "$TMP/err"
check "say stats: truncated_bytes = data end - file size ($((dsz - cut)))" \
	sh -c "grep -q '\"truncated_bytes\": $((dsz - cut)),' '$TMP/stats.json' &&
		grep -q 'warning: $TMP/cut.data: truncated recording: $((dsz - cut)) bytes missing' '$TMP/err'"
"$HBBP" -f json -o "$TMP/cut.json" --binary "vector=$V" "$TMP/cut.data" 2> "$TMP/err"
rc=$?
check "say convert of a truncated file: warns, and its metadata says so (exit $rc)" \
	sh -c "[ $rc -eq 0 ] && grep -q 'truncated recording: $((dsz - cut)) bytes missing' '$TMP/err' &&
		grep -q '\"truncated\": 1, \"truncated_bytes\": $((dsz - cut))' '$TMP/cut.json'"
"$HBBP" stats - < "$D" > /dev/null 2>&1	# the demo is a file: make a pipe copy by cutting
if command -v perf >/dev/null 2>&1 && perf inject -i "$D" -o - 2>/dev/null > "$TMP/pipe.data" &&
   [ -s "$TMP/pipe.data" ]; then
	psz=$(wc -c < "$TMP/pipe.data")
	head -c $((psz - 1001)) "$TMP/pipe.data" > "$TMP/pcut.data"
	"$HBBP" -f json -o "$TMP/pcut.json" --binary "vector=$V" - < "$TMP/pcut.data" 2> "$TMP/err"
	rc=$?
	check "say convert of a cut pipe stream: warns 'at least', metadata truncated (exit $rc)" \
		sh -c "[ $rc -eq 0 ] && grep -q 'truncated recording: at least [0-9]* bytes missing' '$TMP/err' &&
			grep -q '\"truncated\": 1' '$TMP/pcut.json'"
else
	skip "say cut pipe stream: perf inject cannot make a pipe stream"
fi

# corrupt header sections: BUILD_ID of size 0, HOSTNAME with a string length past its end
python3 - "$D" "$TMP" <<'PY' || skip "say corrupt sections: python3 missing"
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
doff, dsize = struct.unpack_from('<QQ', d, 40)
bits = int.from_bytes(d[72:72 + 32], 'little')
idx = doff + dsize
feats = [f for f in range(1, 256) if bits >> f & 1]
def entry(f): return idx + 16 * feats.index(f)
a = bytearray(d); struct.pack_into('<Q', a, entry(2) + 8, 0)          # BUILD_ID size 0
open(sys.argv[2] + '/nobid.data', 'wb').write(a)
b = bytearray(d); off, size = struct.unpack_from('<QQ', b, entry(3))   # HOSTNAME
struct.pack_into('<I', b, off, 0x7fffffff)
open(sys.argv[2] + '/badhost.data', 'wb').write(b)
PY
if [ -f "$TMP/nobid.data" ]; then
	"$HBBP" -f json -o "$TMP/nobid.json" --binary "vector=$V" "$TMP/nobid.data" 2> "$TMP/err"
	check "say an empty build-id list: warned, in the metadata" \
		sh -c "grep -q 'the build-id list is empty' '$TMP/err' &&
			grep -q 'the build-id list is empty' '$TMP/nobid.json'"
	"$HBBP" -f json -o "$TMP/badhost.json" --binary "vector=$V" "$TMP/badhost.data" 2> "$TMP/err"
	"$HBBP" stats "$TMP/badhost.data" > "$TMP/bh.stats" 2> "$TMP/err2"
	check "say a corrupt HOSTNAME section: named in stderr, metadata and stats" \
		sh -c "grep -q 'corrupt header sections skipped: HOSTNAME' '$TMP/err' &&
			grep -q '\"corrupt_sections\": \"HOSTNAME\"' '$TMP/badhost.json' &&
			grep -q '\"bad_features\": \[\"HOSTNAME\"\]' '$TMP/bh.stats' &&
			grep -q 'header section HOSTNAME is corrupt' '$TMP/err2'"
fi

# several inputs, one failing: said at the end; -j warnings name their input
printf 'junk' > "$TMP/junk.data"
cp "$D" "$TMP/d2.data"
"$HBBP" -q -j 2 --binary "vector=$V" --module vector,nomod -o "$TMP/m.sqlite" "$D" "$TMP/junk.data" "$TMP/d2.data" 2> "$TMP/err"
rc=$?
check "say one of three inputs failed: named, exit 2, warnings name their file (exit $rc)" \
	sh -c "[ $rc -eq 2 ] && grep -q '1 of 3 inputs failed (the first: $TMP/junk.data): $TMP/m.sqlite holds the runs of the other 2 only' '$TMP/err' &&
		grep -q 'warning: $D: --module .nomod. matched no sample' '$TMP/err' &&
		grep -q 'warning: $TMP/d2.data: --module .nomod. matched no sample' '$TMP/err' &&
		! grep 'warning:' '$TMP/err' | grep -v -q -e '$D' -e '$TMP/d2.data'"

# reader-only commands and help
"$HBBP" dump --limit x "$D" > "$TMP/out" 2> "$TMP/err"
rc=$?
check "say dump --limit x: names the bad value (exit $rc)" \
	sh -c "[ $rc -eq 1 ] && grep -q \"error: --limit: 'x' is not a number\" '$TMP/err'"
"$HBBP" dump --help > "$TMP/out" 2>&1
rc=$?
check "say dump --help exits 0 with its usage (exit $rc)" sh -c "[ $rc -eq 0 ] && grep -q '^usage: hbbp-convert dump' '$TMP/out'"
"$HBBP" stats "$TMP/junk.data" > /dev/null 2> "$TMP/err"
check "say stats errors carry 'error:'" grep -q '^hbbp-convert: error: ' "$TMP/err"
"$HBBP" help > "$TMP/out" 2>&1
rc=$?
check "say help is the usage, listing compare and train (exit $rc)" \
	sh -c "[ $rc -eq 0 ] && grep -q 'hbbp-convert compare' '$TMP/out' && grep -q 'hbbp-convert train' '$TMP/out'"
"$HBBP" --version > "$TMP/out" 2>&1
rc=$?
check "say --version: the release and the libraries (exit $rc)" \
	sh -c "[ $rc -eq 0 ] && grep -q '^hbbp-convert [0-9a-z.-]' '$TMP/out' && ! grep -q 'hbbp-convert unknown' '$TMP/out' &&
		grep -q 'libraries: elfutils [0-9.]*, zydis [0-9.]*, capstone [0-9.]*, zstd [0-9.]*, sqlite [0-9.]*' '$TMP/out'"
# built from a checkout: the release named is the checkout's commit, not the one of an earlier build
if desc=$(git -C "$ROOT" describe --tags --always 2>/dev/null) && [ -n "$desc" ]; then
	check "say --version: names the checkout's commit $desc ($(head -n 1 "$TMP/out"))" \
		sh -c "head -n 1 '$TMP/out' | grep -q '^hbbp-convert $desc\\(-dirty\\)\\?\$'"
else
	skip "say --version against git describe: $ROOT is not a git checkout"
fi

# the wrong binary with no build-id on either side: most of its weight where it has no code
if command -v perf >/dev/null 2>&1 && command -v cc >/dev/null 2>&1 &&
   printf 'int main(void){volatile unsigned long s=0;for(unsigned long i=0;i<100000000UL;i++)s+=i*3;return s == 1;}\n' > "$TMP/p1.c" &&
   printf '#include <stdio.h>\nint main(int c, char **v){printf("%%d\\n", c);return 0;}\n' > "$TMP/p2.c" &&
   cc -O1 -Wl,--build-id=none -o "$TMP/p1" "$TMP/p1.c" 2>/dev/null &&
   cc -O1 -Wl,--build-id=none -o "$TMP/p2" "$TMP/p2.c" 2>/dev/null &&
   perf record -q -B -e cpu-clock -o "$TMP/nb.data" "$TMP/p1" > /dev/null 2>&1; then
	mv "$TMP/p1" "$TMP/p1.real"
	warns "say wrong binary, no build-id on either side: 'is it the binary that ran?'" \
		"'$TMP/p1': [0-9]*% of its weight falls where $TMP/p2 has no code: is it the binary that ran" \
		"$HBBP" -q --ebs-event cpu-clock --binary "p1=$TMP/p2" -o "$TMP/a.csv" "$TMP/nb.data"
else
	skip "say wrong binary without build-ids: perf cannot record or cc missing"
fi

# source lines: a path compiled as DIR/sub/../x.c is shown as DIR/x.c
if command -v perf >/dev/null 2>&1 && command -v cc >/dev/null 2>&1 && mkdir -p "$TMP/src/sub" &&
   cp "$TMP/p1.c" "$TMP/src/loop.c" 2>/dev/null &&
   (cd "$TMP/src/sub" && cc -g -O1 -o "$TMP/loop" ../loop.c) 2>/dev/null &&
   perf record -q -e cpu-clock -o "$TMP/loop.data" "$TMP/loop" > /dev/null 2>&1; then
	"$HBBP" -q --ebs-event cpu-clock --module loop --by srcline -o "$TMP/sl.csv" "$TMP/loop.data" 2> /dev/null
	check "say srcline paths are normalized (no '..': $(sed -n 2p "$TMP/sl.csv" | cut -d, -f1))" \
		sh -c "! grep -q '/\.\./' '$TMP/sl.csv' && grep -q '^$TMP/src/loop.c:[0-9]' '$TMP/sl.csv'"
else
	skip "say srcline paths: perf cannot record or cc missing"
fi

# --append into a file that is not a SQLite database: one line, before converting, untouched
printf 'some text\n' > "$TMP/text.sqlite"
refuses "say --append into a text file: not a SQLite database" 2 \
	"error: --append -o $TMP/text.sqlite: not a SQLite database" \
	"$HBBP" --append -o "$TMP/text.sqlite" "$D"
check "say --append into a text file leaves it as it was" grep -qx 'some text' "$TMP/text.sqlite"
