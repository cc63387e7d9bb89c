#!/bin/sh
# tier: slow
# The exit code says whether the run was stored, whatever moment a signal (SIGTERM) comes:
# before the write (the process dies of it), while the rows go in (rolled back, exit 3,
# "rolled back"), while committing or after the commit (exit 0, "came after run N was
# committed: it is stored"), after the process ended. 54 trials spread over the whole run:
# 30 appends to SQLite (writetest, its database writes slowed by the fault shim so that the
# commit takes a while), 10 of the converter itself (hbbp-convert --append on the demo), 14
# runs into PostgreSQL where the server binaries are installed. In every trial: exit 0 if
# and only if the run is in the database; "committed" said only of a stored run; and a
# caller that runs the write again after a non-zero exit ends with the run stored exactly
# once. The trials must have hit each phase (before, during, committed) at least once.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/pg_lib.sh"
W=$BUILD/tools/writetest
SHIM=$BUILD/shim/faultshim.so
[ -x "$W" ] && [ -f "$SHIM" ] || { fail "store_signals: writetest or faultshim.so not built"; exit 0; }
command -v sqlite3 > /dev/null || { skip "store_signals: sqlite3 not installed"; exit 0; }
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
IN=$ROOT/samples/demo/perf.data
BIN="--binary vector=$ROOT/samples/demo/vector"
DB=$TMP/s.sqlite
DBC=$TMP/c.sqlite
"$W" -t first sqlite "$DB" 2> /dev/null
"$HBBP" -q $BIN -o "$DBC" "$IN" 2> /dev/null

# write KIND TAG: one write of the kind, tagged, in the background ($! its pid)
write() {
	case $1 in
	sqlite) FAULTSHIM_DELAY_US=4000 FAULTSHIM_PATH=/s.sqlite LD_PRELOAD="$SHIM" \
		env --default-signal=INT,QUIT,HUP,PIPE,XFSZ "$W" -a -n 20000 -b 6000 -t "$2" sqlite "$DB" ;;
	cli) env --default-signal=INT,QUIT,HUP,PIPE,XFSZ "$HBBP" -q $BIN --append --label "$2" -o "$DBC" \
		"$IN" ;;
	pg) env --default-signal=INT,QUIT,HUP,PIPE,XFSZ "$W" -n 20000 -b 20000 -t "$2" postgresql "$URI" ;;
	esac > /dev/null 2> "$TMP/err" &
}
# stored KIND TAG: how many runs carry the tag
stored() {
	case $1 in
	sqlite) sqlite3 "$DB" "select count(*) from run_meta where key = 'tag' and value = '$2'" ;;
	cli) sqlite3 "$DBC" "select count(*) from runs where label = '$2'" ;;
	pg) $PSQL -X -A -t -q -d runs -c "select count(*) from run_meta where key = 'tag'
		and value = '$2'" ;;
	esac
}
# ms KIND: the wall time of one write in milliseconds
ms() {
	t0=$(date +%s%N)
	write "$1" "timing"
	wait $!
	echo $(( ($(date +%s%N) - t0) / 1000000 ))
}

bad= before=0 during=0 committed=0 after=0 trials=0
# trials KIND N: N writes, the signal after 0 .. 1.25 times the write's wall time
trials() {
	kind=$1 n=$2 total=$(ms "$1") i=0
	while [ $i -lt $n ]; do
		tag="$kind $i"
		delay=$(awk -v t=$total -v i=$i -v n=$n 'BEGIN { printf "%.3f", 1.25 * t * i / n / 1000 }')
		write $kind "$tag"
		pid=$!
		sleep "$delay"
		kill -TERM $pid 2> /dev/null
		{ wait $pid; } 2> /dev/null
		rc=$?
		got=$(stored $kind "$tag")
		said=
		grep -q "came after run [0-9]* was committed: it is stored" "$TMP/err" && said=committed
		grep -q "interrupted by signal 15.*rolled back" "$TMP/err" && said="$said rolled back"
		case "$rc/$said" in
		143/) before=$((before + 1)) ;;
		3/" rolled back") during=$((during + 1)) ;;
		0/committed) committed=$((committed + 1)) ;;
		0/) after=$((after + 1)) ;;
		*) bad="$bad; $tag: exit $rc, said '$said'" ;;
		esac
		if { [ $rc = 0 ] && [ "$got" != 1 ]; } || { [ $rc != 0 ] && [ "$got" != 0 ]; }; then
			bad="$bad; $tag: exit $rc with $got runs stored"
		fi
		if [ $rc != 0 ]; then	# the caller tries again
			write $kind "$tag"
			wait $!
			rc=$?
			got=$(stored $kind "$tag")
			[ $rc = 0 ] && [ "$got" = 1 ] || bad="$bad; $tag: retried, exit $rc, $got runs"
		fi
		trials=$((trials + 1))
		i=$((i + 1))
	done
}

trials sqlite 30
trials cli 10
[ "$(sqlite3 "$DB" 'pragma integrity_check')$(sqlite3 "$DBC" 'pragma integrity_check')" = okok ] ||
	bad="$bad; integrity check"

pg_find
if [ -n "$PGBIN" ]; then
	pg_dir
	trap 'pg_stop; rm -rf "$TMP"' EXIT
	if $as_server "$PGBIN/initdb" -D "$D/data" -U hbbp --auth=trust -E UTF8 --no-locale \
		> /dev/null 2>&1 && $as_server "$PGBIN/pg_ctl" -D "$D/data" -w -t 60 -l "$D/log" \
		-o "-c listen_addresses='' -k $D -c fsync=off" start > /dev/null 2>&1; then
		export PGHOST="$D" PGUSER=hbbp
		$PSQL -q -d postgres -c 'create database runs' > /dev/null 2>&1
		URI="postgresql:///runs?host=$D&user=hbbp"
		trials pg 14
	else
		fail "store_signals: the PostgreSQL server did not start"
	fi
else
	skip "store_signals: PostgreSQL server binaries absent: the SQLite trials only"
fi

expect "store_signals: $trials trials, the signal before the write $before, while the rows went in $during, at or after the commit $committed, after the end $after: exit 0 exactly when stored, retried runs stored once${bad:- (ok)}" \
	'[ -z "$bad" ] && [ $before -gt 0 ] && [ $during -gt 0 ] && [ $committed -gt 0 ] &&
	 [ $trials -ge 40 ]'
