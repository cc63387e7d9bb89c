#!/bin/sh
# End to end: random recordings written by perfgen in every layout the writer has (file and
# pipe, native and big-endian, attr sizes 64/128/136, uncompressed, COMPRESSED, COMPRESSED2;
# perf 6.1 cannot read several of these) must come back from `hbbp-convert dump` exactly as
# awk computed them from the random numbers it put into the spec, in order (the times
# increase, so time ordering keeps file order). Also a pipe stream read from stdin.
. "$(dirname "$0")/../lib.sh"

GEN=$BUILD/tools/perfgen
if [ ! -x "$GEN" ] || [ ! -x "$HBBP" ]; then
	skip "writer_dump: perfgen or hbbp-convert not built"
	exit 0
fi

awk -v spec="$TMP/rand.spec" -v expf="$TMP/rand.expected" 'BEGIN {
	srand(11)
	print "header hostname=h arch=x86_64 version=6.1.187 branch_stack" > spec
	print "event name=ebs type=4 config=0x1c0 period=100003 sample_type=identifier,ip,tid,time,period ids=1,3" > spec
	print "event name=lbr type=4 config=0x20c4 period=20011 sample_type=identifier,ip,tid,time,branch_stack branch_sample_type=any,hw_index ids=2,4" > spec
	print "comm pid=1000 tid=1000 name=prog exec id=1" > spec
	t = 1000
	for (i = 0; i < 3000; i++) {
		pid = 1000 + int(rand() * 50); tid = pid + int(rand() * 3)
		ip = sprintf("0x%x%08x", 85 + int(rand() * 16), int(rand() * 2147483647))
		period = 1 + int(rand() * 2000000000)
		t += 1 + int(rand() * 1000)
		if (rand() < 0.5) {
			printf "sample ev=0 pid=%d tid=%d ip=%s period=%d time=%d id=%d\n", pid, tid, ip, period, t, 1 + 2 * (i % 2) > spec
			printf "ebs %d/%d %s %d\n", pid, tid, ip, period > expf
		} else {
			nb = int(rand() * 33); br = ""; ebr = ""
			for (k = 0; k < nb; k++) {
				f = sprintf("0x%x", int(rand() * 2147483647)); to = sprintf("0x%x", int(rand() * 2147483647))
				br = br (k ? "," : "") f "/" to "/P/" int(rand() * 65536)
				ebr = ebr " " f "/" to
			}
			printf "sample ev=1 pid=%d tid=%d ip=%s time=%d hw_idx=%d%s\n", pid, tid, ip, t, i, nb ? " br=" br : "" > spec
			printf "lbr %d/%d %s 20011%s\n", pid, tid, ip, ebr > expf
		}
		if (i % 300 == 299)
			print "round" > spec
	}
}'

for mode in file pipe; do
	for order in native swap; do
		for asz in 64 128 136; do
			for comp in none zstd zstd2; do
				name=writer_dump_${mode}_${order}_attr${asz}_$comp
				{
					echo "option attr_size=$asz compress=$comp"
					[ $mode = pipe ] && echo "option pipe"
					[ $order = swap ] && echo "option swap"
					cat "$TMP/rand.spec"
				} > "$TMP/$name.spec"
				if ! "$GEN" "$TMP/$name.spec" "$TMP/$name.data" 2> "$TMP/err"; then
					fail "$name: perfgen: $(head -n 1 "$TMP/err")"
					continue
				fi
				if ! "$HBBP" dump "$TMP/$name.data" > "$TMP/$name.out" 2> "$TMP/err"; then
					fail "$name: dump: $(head -n 2 "$TMP/err")"
					continue
				fi
				if diff -u "$TMP/rand.expected" "$TMP/$name.out" > "$TMP/$name.diff"; then
					pass "$name"
				else
					fail "$name: dump differs"
					head -n 10 "$TMP/$name.diff" >&2
				fi
				rm -f "$TMP/$name.data"
			done
		done
	done
done

# a pipe stream through stdin
{ echo "option pipe compress=zstd"; cat "$TMP/rand.spec"; } > "$TMP/stdin.spec"
if "$GEN" "$TMP/stdin.spec" - 2> "$TMP/err" | "$HBBP" dump - > "$TMP/stdin.out" 2>> "$TMP/err" &&
   diff -u "$TMP/rand.expected" "$TMP/stdin.out" > "$TMP/stdin.diff"; then
	pass "writer_dump_stdin_pipe"
else
	fail "writer_dump_stdin_pipe: $(head -n 3 "$TMP/err")"
	head -n 10 "$TMP/stdin.diff" >&2
fi
