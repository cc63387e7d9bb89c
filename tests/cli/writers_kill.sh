#!/bin/sh
# Killing the writer mid-write (SIGTERM, SIGHUP) must leave neither the output nor its
# temporary file, exit 3 with a message, and with --append leave the old database intact.
# The fault shim's FAULTSHIM_DELAY_US slows every write so the signal lands mid-write.
. "$(dirname "$0")/../lib.sh"
W=$BUILD/tools/writetest
SHIM=$BUILD/shim/faultshim.so
[ -x "$W" ] && [ -f "$SHIM" ] || { fail "writers_kill: writetest or faultshim.so not built"; exit 0; }
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"

# kill_mid_write NAME SIGNAL DIR FORMAT [writetest options]: starts the write, waits until the
# temporary file exists and has grown, sends the signal; prints the exit status.
kill_mid_write() {
	sig=$1 d=$2 fmt=$3
	shift 3
	FAULTSHIM_DELAY_US=20000 FAULTSHIM_PATH=/.o. LD_PRELOAD="$SHIM" \
		"$W" "$@" -n 20000 -b 5000 $fmt "$d/o.$fmt" > /dev/null 2> "$TMP/err" &
	pid=$!
	i=0
	while [ $i -lt 1000 ]; do
		tmpf=$(ls -A "$d" | grep '^\.o\.' | head -n 1)
		[ -n "$tmpf" ] && [ -s "$d/$tmpf" ] && break
		sleep 0.02
		i=$((i + 1))
	done
	sleep 0.1
	kill -$sig $pid
	wait $pid
	echo $?
}

for fmt in csv json jsonl sqlite; do
	d=$TMP/k.$fmt
	mkdir -p "$d"
	rc=$(kill_mid_write TERM "$d" $fmt)
	if [ "$rc" = 3 ] && [ -z "$(ls -A "$d")" ] && grep -q 'interrupted by signal 15' "$TMP/err"
	then
		pass "writers_kill: $fmt SIGTERM mid-write: exit 3, message, nothing left"
	else
		fail "writers_kill: $fmt SIGTERM mid-write: exit $rc, left '$(ls -A "$d")'"
		cat "$TMP/err" >&2
	fi
done

d=$TMP/k.hup
mkdir -p "$d"
rc=$(kill_mid_write HUP "$d" csv)
check "writers_kill: csv SIGHUP mid-write: exit 3, nothing left" \
	[ "$rc" = 3 -a -z "$(ls -A "$d")" ]

d=$TMP/k.app
mkdir -p "$d"
"$W" -t first sqlite "$d/o.sqlite" 2> "$TMP/err"
sum=$(cksum < "$d/o.sqlite")
rc=$(kill_mid_write TERM "$d" sqlite -a -t second)
check "writers_kill: sqlite --append SIGTERM mid-write: exit 3, database unchanged" \
	[ "$rc" = 3 -a "$(ls -A "$d")" = o.sqlite -a "$(cksum < "$d/o.sqlite")" = "$sum" ]

