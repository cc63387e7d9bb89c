#!/bin/sh
# Killing the writer mid-write (SIGTERM, SIGHUP, SIGQUIT, SIGXFSZ, SIGPIPE) must leave
# neither the output nor its temporary file and exit 3 with a message; with --append (in
# place) a caught signal rolls the run back (nothing left beside the database) and SIGKILL
# leaves a journal that rolls it back on the next open: the old database intact either way.
# The fault shim's FAULTSHIM_DELAY_US slows every write so the signal lands mid-write.
# A shell starts background jobs with SIGINT and SIGQUIT ignored, and nohup ignores SIGHUP (an
# ignored signal stays ignored by the writer, as asked): env restores the defaults. A program
# with its own SIGALRM handler keeps it (no cleanup needed: the signal does not end it).
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
		env --default-signal=INT,QUIT,HUP,PIPE,XFSZ "$W" "$@" -n 20000 -b 5000 $fmt "$d/o.$fmt" \
		> /dev/null 2> "$TMP/err" &
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

for sig in HUP QUIT XFSZ PIPE; do
	d=$TMP/k.$sig
	mkdir -p "$d"
	rc=$(kill_mid_write $sig "$d" csv)
	check "writers_kill: csv SIG$sig mid-write: exit 3, nothing left" \
		[ "$rc" = 3 -a -z "$(ls -A "$d")" ]
done

# a program that handles SIGALRM itself (a timer of its own, libFuzzer's) keeps its handler
# during the write: the alarms, every millisecond of a slowed write, neither end the process
# nor cut the output (the writer's handlers are only for signals that would end it)
d=$TMP/k.own
mkdir -p "$d"
FAULTSHIM_DELAY_US=2000 FAULTSHIM_PATH=/.o. LD_PRELOAD="$SHIM" \
	"$W" -r -n 3000 csv "$d/o.csv" > /dev/null 2> "$TMP/err.own"
rc=$?
caught=$(sed -n 's/^writetest: \([0-9]*\) alarms caught$/\1/p' "$TMP/err.own")
"$W" -n 3000 csv "$TMP/calm.csv" > /dev/null 2>&1	# the same write without alarms
expect "writers_kill: a program's own SIGALRM handler stays (exit $rc, ${caught:-no} alarms caught$(grep -m1 'interrupted' "$TMP/err.own" | sed 's/^/, /'))" \
	'[ "$rc" = 0 ] && [ "${caught:-0}" -gt 0 ] && [ "$(ls -A "$d")" = o.csv ] &&
	 cmp -s "$d/o.csv" "$TMP/calm.csv"'

command -v sqlite3 > /dev/null || { skip "writers_kill: --append cases: sqlite3 not installed"; exit 0; }

# kill_mid_append SIGNAL DIR: appends a second run slowly (every write to o.sqlite or its
# journal delayed), sends the signal once the journal exists; prints the exit status.
kill_mid_append() {
	sig=$1 d=$2
	FAULTSHIM_DELAY_US=20000 FAULTSHIM_PATH=/o.sqlite LD_PRELOAD="$SHIM" \
		env --default-signal=INT,QUIT,HUP,PIPE,XFSZ "$W" -a -n 20000 -b 5000 -t second sqlite \
		"$d/o.sqlite" > /dev/null 2> "$TMP/err" &
	pid=$!
	i=0
	while [ $i -lt 1000 ] && ! [ -s "$d/o.sqlite-journal" ] && ! [ -s "$d/o.sqlite-wal" ]
	do
		sleep 0.02
		i=$((i + 1))
	done
	sleep 0.1
	kill -$sig $pid
	wait $pid
	echo $?
}

for sig in TERM QUIT XFSZ KILL; do
	d=$TMP/k.app.$sig
	mkdir -p "$d"
	"$W" -t first sqlite "$d/o.sqlite" 2> "$TMP/err"
	dump=$(sqlite3 "$d/o.sqlite" .dump | cksum)
	rc=$(kill_mid_append $sig "$d")
	# what is beside the database before anyone opens it again
	left=$(ls -A "$d" | tr '\n' ' ')
	ok=$(sqlite3 "$d/o.sqlite" 'pragma integrity_check')
	runs=$(sqlite3 "$d/o.sqlite" 'select count(*) from runs')
	same=no
	[ "$(sqlite3 "$d/o.sqlite" .dump | cksum)" = "$dump" ] && same=yes
	if [ $sig = KILL ]; then
		want_rc=137 want_left="o.sqlite o.sqlite-journal "
	else
		want_rc=3 want_left="o.sqlite "
	fi
	if [ "$rc" = $want_rc ] && [ "$left" = "$want_left" ] && [ "$ok" = ok ] &&
	   [ "$runs" = 1 ] && [ $same = yes ] && { [ $sig = KILL ] ||
	   grep -q "interrupted by signal .*rolled back" "$TMP/err"; }; then
		pass "writers_kill: sqlite --append SIG$sig mid-append: exit $rc, files '$left'," \
			"database as it was"
	else
		fail "writers_kill: sqlite --append SIG$sig mid-append: exit $rc, files '$left'," \
			"integrity $ok, $runs runs, same content: $same"
		cat "$TMP/err" >&2
	fi
done
