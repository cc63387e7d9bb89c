#!/bin/sh
# Files opened on the recording's word are what they claim: a JIT map /tmp/perf-PID.map
# planted as a FIFO, as a link to /dev/zero or owned by another user; a --symfs binary and
# a build-id cache entry that are FIFOs; a --kallsyms that is a FIFO (one warning, though the
# kernel and two modules look in it); a debuglink target, a build-id cache debug file and a
# source file annotate reads that are FIFOs. Each command finishes within 10 s with one
# warning naming the file and why; a JIT map that is a regular file of this user names the
# JIT code (the control: the same recording, the same path, read).
. "$(dirname "$0")/../lib.sh"

GEN=$BUILD/tools/perfgen
if [ ! -x "$GEN" ]; then skip "open_refuse: $GEN not built"; exit 0; fi
if ! command -v timeout >/dev/null 2>&1; then skip "open_refuse: timeout not installed"; exit 0; fi
# a pid no live process of this test run owns, its map in /tmp as perf looks for it
PID=$((3000000 + $$ % 1000000))
MAP=/tmp/perf-$PID.map
trap 'rm -rf "$TMP" "$MAP"' EXIT
ID=00112233445566778899aabbccddeeff00112233
cat > "$TMP/jit.spec" <<EOF
event name=cpu-clock type=1 config=0 period=1000 sample_type=ip,tid,time,id,period
comm pid=$PID tid=$PID name=jit exec
mmap pid=-1 tid=0 start=0xffffffff81000000 len=0x1000000 pgoff=0xffffffff81000000 file=[kernel.kallsyms]_text misc=kernel
mmap2 pid=$PID tid=$PID start=0x7f0000000000 len=0x10000 pgoff=0 file=//anon prot=5
mmap2 pid=$PID tid=$PID start=0x400000 len=0x1000 pgoff=0 file=/opt/lib/libplant.so buildid=$ID prot=5
mmap pid=-1 tid=0 start=0xffffffffc0000000 len=0x10000 pgoff=0 file=[plant_a] misc=kernel
mmap pid=-1 tid=0 start=0xffffffffc0010000 len=0x10000 pgoff=0 file=[plant_b] misc=kernel
repeat 20
sample pid=$PID tid=$PID ip=0x7f0000000010 time=+1000
end
repeat 5
sample pid=$PID tid=$PID ip=0x400010 time=+1000
end
sample misc=kernel pid=$PID tid=$PID ip=0xffffffff81000010 time=+1000
sample misc=kernel pid=$PID tid=$PID ip=0xffffffffc0000010 time=+1000
sample misc=kernel pid=$PID tid=$PID ip=0xffffffffc0010010 time=+1000
EOF
"$GEN" "$TMP/jit.spec" "$TMP/jit.data" || { fail "open_refuse: perfgen"; exit 0; }

# run NAME [OPTIONS]: converts by symbol within 10 s; rc, $TMP/NAME.out, $TMP/NAME.err
run() {
	n=$1; shift
	timeout 10 "$HBBP" --ebs-event cpu-clock --diagnostics --by module,symbol "$@" "$TMP/jit.data" \
		> "$TMP/$n.out" 2> "$TMP/$n.err"
	rc=$?
}
# refused NAME FILE WHY: finished, exactly one warning "FILE: refused: WHY"
refused() {
	[ $rc -ne 124 ] && [ "$(grep -c "warning: .*$2: refused: $3" "$TMP/$1.err")" -eq 1 ]
}

printf '7f0000000000 100 jit_hot_fn\n' > "$MAP"
run plain
expect "open_refuse: a JIT map of this user names the JIT code (exit $rc)" \
	'[ $rc -eq 0 ] && grep -q "jit_hot_fn" "$TMP/plain.out" && ! grep -q refused "$TMP/plain.err"'

rm -f "$MAP" && mkfifo "$MAP"
run fifo
expect "open_refuse: a FIFO as the JIT map: no hang, one warning (exit $rc)" \
	'refused fifo "$MAP" "a FIFO, not a regular file" && ! grep -q jit_hot_fn "$TMP/fifo.out"'

rm -f "$MAP" && ln -s /dev/zero "$MAP"
run zero
expect "open_refuse: a link to /dev/zero as the JIT map: no hang, one warning (exit $rc)" \
	'refused zero "$MAP" "a character device, not a regular file"'

rm -f "$MAP" && printf '7f0000000000 100 jit_hot_fn\n' > "$MAP"
if [ "$(id -u)" -eq 0 ] && chown 65534 "$MAP" 2>/dev/null; then
	run other
	expect "open_refuse: a JIT map of another user is ignored, one warning (exit $rc)" \
		'refused other "$MAP" "owned by uid 65534, neither this user nor root" &&
		 ! grep -q jit_hot_fn "$TMP/other.out"'
else
	skip "open_refuse: another user's JIT map needs root to plant"
fi
rm -f "$MAP"

mkdir -p "$TMP/symfs/opt/lib" && mkfifo "$TMP/symfs/opt/lib/libplant.so"
run symfs --symfs "$TMP/symfs"
expect "open_refuse: a FIFO as a --symfs binary: no hang, one warning (exit $rc)" \
	'refused symfs "$TMP/symfs/opt/lib/libplant.so" "a FIFO, not a regular file"'

mkdir -p "$TMP/cache/.build-id/00/${ID#00}" && mkfifo "$TMP/cache/.build-id/00/${ID#00}/elf"
run cache --buildid-dir "$TMP/cache"
expect "open_refuse: a FIFO as a build-id cache entry: no hang, one warning (exit $rc)" \
	'refused cache "$TMP/cache/.build-id/00/${ID#00}/elf" "a FIFO, not a regular file"'

mkfifo "$TMP/kallsyms"
run kallsyms --kallsyms "$TMP/kallsyms"
expect "open_refuse: a FIFO as --kallsyms for the kernel and two modules: no hang, one warning (exit $rc)" \
	'refused kallsyms "$TMP/kallsyms" "a FIFO, not a regular file"'

# a program with line tables: its debuglink target, its build-id cache debug file and its
# source file planted as FIFOs
if ! command -v cc >/dev/null 2>&1 || ! command -v objcopy >/dev/null 2>&1 ||
   ! command -v readelf >/dev/null 2>&1; then
	skip "open_refuse: cc, objcopy or readelf absent (debug files and sources)"; exit 0
fi
P=$TMP/prog
mkdir -p "$P" && printf 'int work(int n)\n{\n\tint s = 0, i;\n\n\tfor (i = 0; i < n; i++)\n\t\ts += i * i;\n\treturn s;\n}\n\nint main(void)\n{\n\treturn work(1000) & 1;\n}\n' > "$P/plant.c"
(cd "$P" && cc -g -O1 -no-pie -Wl,--build-id -o plant.g "$P/plant.c" &&
 objcopy --only-keep-debug plant.g plant.debug &&
 objcopy --strip-debug --add-gnu-debuglink=plant.debug plant.g plant) ||
	{ fail "open_refuse: cannot build the program"; exit 0; }
PID2=$(readelf -n "$P/plant" | awk '/Build ID/ { print $3 }')
WORK=$(nm "$P/plant.g" | awk '$3 == "work" { print $1 }')
# recording FILE BINARY: 20 samples in work, the binary mapped as the loader maps it
recording() {
	cat > "$TMP/$1.spec" <<EOS
event name=cpu-clock type=1 config=0 period=1000 sample_type=ip,tid,time,id,period
comm pid=77 tid=77 name=plant exec
mmap2 pid=77 tid=77 start=0x401000 len=0x1000 pgoff=0x1000 file=$2 buildid=$PID2 prot=5
repeat 20
sample pid=77 tid=77 ip=0x$WORK time=+1000
end
EOS
	"$GEN" "$TMP/$1.spec" "$TMP/$1.data"
}
recording link "$P/plant" && recording cache /opt/none/plant && recording src "$P/plant.g" ||
	{ fail "open_refuse: perfgen (program)"; exit 0; }
# lines NAME [OPTIONS]: by srcline within 10 s; rc, $TMP/NAME.out, $TMP/NAME.err
lines() {
	n=$1; shift
	timeout 10 "$HBBP" --ebs-event cpu-clock --by srcline "$@" > "$TMP/$n.out" 2> "$TMP/$n.err"
	rc=$?
}
lines linkok "$TMP/link.data"
expect "open_refuse: the debuglink target gives the lines (exit $rc)" \
	'[ $rc -eq 0 ] && grep -q "^$P/plant.c:[0-9]*," "$TMP/linkok.out"'
mv "$P/plant.debug" "$P/plant.dbg" && mkfifo "$P/plant.debug"
lines link "$TMP/link.data"
expect "open_refuse: a FIFO as the debuglink target: no hang, one warning (exit $rc)" \
	'refused link "$P/plant.debug" "a FIFO, not a regular file" && [ "$(grep -c warning: "$TMP/link.err")" -eq 3 ]'
CD=$TMP/cache2/.build-id/$(echo "$PID2" | cut -c1-2)/$(echo "$PID2" | cut -c3-)
mkdir -p "$CD" && cp "$P/plant" "$CD/elf" && cp "$P/plant.dbg" "$CD/debug"
lines cacheok --buildid-dir "$TMP/cache2" "$TMP/cache.data"
rm "$CD/debug" && mkfifo "$CD/debug"
lines cache2 --buildid-dir "$TMP/cache2" "$TMP/cache.data"
expect "open_refuse: a FIFO as the build-id cache's debug file: no hang, one warning (exit $rc)" \
	'grep -q "^$P/plant.c:[0-9]*," "$TMP/cacheok.out" &&
	 refused cache2 "$CD/debug" "a FIFO, not a regular file" && [ "$(grep -c warning: "$TMP/cache2.err")" -eq 3 ]'
timeout 10 "$HBBP" annotate --ebs-event cpu-clock "$TMP/src.data" > "$TMP/srcok.out" 2> "$TMP/srcok.err"
mv "$P/plant.c" "$P/plant.c.txt" && mkfifo "$P/plant.c"
timeout 10 "$HBBP" annotate --ebs-event cpu-clock "$TMP/src.data" > "$TMP/src.out" 2> "$TMP/src.err"
rc=$?
expect "open_refuse: a FIFO as the source annotate reads: no hang, one warning, lines by number (exit $rc)" \
	'grep -q "^plant.c:[0-9]*  *for (i = 0; i < n; i++)" "$TMP/srcok.out" &&
	 refused src "$P/plant.c" "a FIFO, not a regular file" &&
	 grep -q "^plant.c:[0-9]*$" "$TMP/src.out" && ! grep -q "for (i = 0" "$TMP/src.out"'
