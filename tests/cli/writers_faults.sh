#!/bin/sh
# A full disk and failing I/O calls, injected with the LD_PRELOAD shim tests/shim/faultshim.c
# into tests/tools/writetest, for all four formats: each case must exit 3 with an error
# message and leave neither the output nor a temporary file; a failed --append must leave
# the existing database's content as it was.
. "$(dirname "$0")/../lib.sh"
W=$BUILD/tools/writetest
SHIM=$BUILD/shim/faultshim.so
[ -x "$W" ] && [ -f "$SHIM" ] || { fail "writers_faults: writetest or faultshim.so not built"; exit 0; }
# The sanitizer runtime must come first unless told otherwise; the shim is preloaded.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
ARGS="-n 3000 -b 1500"

# run_fault NAME FORMAT EXPECTED_MESSAGE SHIM_SETTINGS...: in an empty directory.
run_fault() {
	name=$1 fmt=$2 msg=$3
	shift 3
	d=$TMP/f.$fmt
	rm -rf "$d" && mkdir "$d"
	env "$@" FAULTSHIM_PATH=/.o. LD_PRELOAD="$SHIM" "$W" $ARGS $fmt "$d/o.$fmt" \
		> /dev/null 2> "$TMP/err"
	rc=$?
	left=$(ls -A "$d")
	if [ $rc -eq 3 ] && grep -q "$msg" "$TMP/err" && [ -z "$left" ]; then
		pass "writers_faults: $fmt $name: exit 3, message, nothing left"
	else
		fail "writers_faults: $fmt $name: exit $rc, left '$left'"
		cat "$TMP/err" >&2
	fi
}

# Control: the shim loaded without faults changes nothing.
for fmt in csv json jsonl sqlite; do
	mkdir -p "$TMP/c"
	LD_PRELOAD="$SHIM" "$W" $ARGS $fmt "$TMP/c/o.$fmt" 2> "$TMP/err"
	check "writers_faults: $fmt with the shim and no fault succeeds" \
		[ $? -eq 0 -a -s "$TMP/c/o.$fmt" -a "$(ls -A "$TMP/c" | grep -c '^\.')" -eq 0 ]
done

NOSPC="No space left on device"
for fmt in csv json jsonl; do
	run_fault "disk full after 0 bytes" $fmt "$NOSPC" FAULTSHIM_ENOSPC_AFTER=0
	run_fault "disk full after 100000 bytes" $fmt "$NOSPC" FAULTSHIM_ENOSPC_AFTER=100000
	run_fault "first write fails" $fmt "$NOSPC" FAULTSHIM_FAIL=write:1
	run_fault "third write fails" $fmt "$NOSPC" FAULTSHIM_FAIL=write:3
	run_fault "fsync fails" $fmt "$NOSPC" FAULTSHIM_FAIL=fsync:1
	run_fault "close fails" $fmt "$NOSPC" FAULTSHIM_FAIL=close:1
	run_fault "rename fails" $fmt "$NOSPC" FAULTSHIM_FAIL=rename:1
	run_fault "write fails with EIO" $fmt "Input/output error" FAULTSHIM_FAIL=write:2 \
		FAULTSHIM_ERRNO=5
done
# SQLite writes pages with pwrite64 and reports a full disk as SQLITE_FULL; its own close()
# of the file ignores errors, writer__write's close of its descriptor is the second one.
run_fault "disk full after 0 bytes" sqlite "$NOSPC" FAULTSHIM_ENOSPC_AFTER=0
run_fault "disk full after 100000 bytes" sqlite "$NOSPC" FAULTSHIM_ENOSPC_AFTER=100000
run_fault "first pwrite fails" sqlite "$NOSPC" FAULTSHIM_FAIL=pwrite:1
run_fault "tenth pwrite fails" sqlite "$NOSPC" FAULTSHIM_FAIL=pwrite:10
run_fault "pwrite fails with EIO" sqlite "Input/output error" FAULTSHIM_FAIL=pwrite:4 \
	FAULTSHIM_ERRNO=5
run_fault "fsync fails" sqlite "$NOSPC" FAULTSHIM_FAIL=fsync:1
run_fault "close fails" sqlite "$NOSPC" FAULTSHIM_FAIL=close:2
run_fault "rename fails" sqlite "$NOSPC" FAULTSHIM_FAIL=rename:1

# --append onto an existing database, in place: a failure of a write or fsync of the
# database or of its journal rolls the run back; the database reads back as it was (sqlite3
# replays a journal left hot by a failed rollback), intact, with no file left beside it.
d=$TMP/app
mkdir -p "$d"
"$W" -t first sqlite "$d/o.sqlite" 2> "$TMP/err"
check "writers_faults: append: first run written" [ $? -eq 0 ]
if command -v sqlite3 > /dev/null; then
	dump=$(sqlite3 "$d/o.sqlite" .dump | cksum)
	for fault in FAULTSHIM_ENOSPC_AFTER=0 FAULTSHIM_ENOSPC_AFTER=60000 \
		     FAULTSHIM_FAIL=pwrite:3 FAULTSHIM_FAIL=pwrite:40 FAULTSHIM_FAIL=fdatasync:1 \
		     FAULTSHIM_FAIL=fdatasync:3; do
		env $fault FAULTSHIM_PATH=/o.sqlite LD_PRELOAD="$SHIM" "$W" -a $ARGS \
			-t second sqlite "$d/o.sqlite" > /dev/null 2> "$TMP/err"
		rc=$?
		ok=$(sqlite3 "$d/o.sqlite" 'pragma integrity_check')
		if [ $rc -eq 3 ] && [ "$ok" = ok ] &&
		   [ "$(sqlite3 "$d/o.sqlite" .dump | cksum)" = "$dump" ] &&
		   [ "$(ls -A "$d")" = o.sqlite ] && grep -qE "$NOSPC|I/O error" "$TMP/err"; then
			pass "writers_faults: append with $fault: exit 3, database unchanged"
		else
			fail "writers_faults: append with $fault: exit $rc, integrity $ok," \
				"files '$(ls -A "$d")'"
			cat "$TMP/err" >&2
		fi
	done
	check "writers_faults: append: the database still holds its one run" \
		[ "$(sqlite3 "$d/o.sqlite" 'select run_id, value from runs join run_meta
			using (run_id) where key = '\''tag'\''')" = "1|first" ]
else
	skip "writers_faults: append faults: sqlite3 not installed"
fi
"$W" -a -t second sqlite "$d/o.sqlite" 2> "$TMP/err"
check "writers_faults: append without a fault then succeeds" [ $? -eq 0 ]
if command -v sqlite3 > /dev/null; then
	check "writers_faults: append: two runs" \
		[ "$(sqlite3 "$d/o.sqlite" 'select group_concat(run_id) from runs')" = "1,2" ]
fi
