#!/bin/sh
# Output paths: unwritable targets (missing directory, a parent that is a file, a read-only
# directory, an existing directory, a full stdout) exit 3 with a message and create nothing;
# stdout output equals file output; symlinks are written through; modes follow the umask or
# the replaced file.
. "$(dirname "$0")/../lib.sh"
W=$BUILD/tools/writetest
[ -x "$W" ] || { fail "writers_paths: $W not built"; exit 0; }

# expect_fail NAME MESSAGE PATH [FORMAT]: exit 3, message on stderr.
expect_fail() {
	"$W" ${4:-csv} "$3" > /dev/null 2> "$TMP/err"
	rc=$?
	if [ $rc -eq 3 ] && grep -q "$2" "$TMP/err"; then
		pass "writers_paths: $1: exit 3 with '$2'"
	else
		fail "writers_paths: $1: exit $rc"
		cat "$TMP/err" >&2
	fi
}

expect_fail "missing directory" "No such file or directory" "$TMP/no/such/dir/o.csv"
check "writers_paths: missing directory: nothing created" [ ! -e "$TMP/no" ]
: > "$TMP/plainfile"
expect_fail "parent is a regular file" "Not a directory" "$TMP/plainfile/o.csv"
expect_fail "parent is a regular file (sqlite)" "Not a directory" "$TMP/plainfile/o.db" sqlite
mkdir "$TMP/isdir"
touch "$TMP/isdir/keep"
expect_fail "target is a directory" "Is a directory" "$TMP/isdir"
check "writers_paths: target is a directory: it is untouched and no temporary file is left" \
	[ "$(ls -A "$TMP/isdir")" = keep -a "$(ls -A "$TMP" | grep -c '^\.isdir')" -eq 0 ]

# A read-only directory: root ignores permissions, so run as nobody when we are root.
mkdir "$TMP/ro"
chmod 555 "$TMP/ro"
chmod 755 "$TMP"
if [ "$(id -u)" -ne 0 ]; then
	expect_fail "read-only directory" "Permission denied" "$TMP/ro/o.csv"
elif command -v setpriv > /dev/null &&
     setpriv --reuid=65534 --regid=65534 --clear-groups true 2> /dev/null &&
     setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$W"; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$W" csv "$TMP/ro/o.csv" \
		> /dev/null 2> "$TMP/err"
	rc=$?
	grep -q "Permission denied" "$TMP/err" || rc="$rc, no message"
	check "writers_paths: read-only directory (as nobody): exit 3, Permission denied" \
		[ "$rc" = 3 -a -z "$(ls -A "$TMP/ro")" ]
else
	skip "writers_paths: read-only directory: running as root without a usable setpriv"
fi

# stdout
"$W" csv "$TMP/f.csv" 2> /dev/null && "$W" csv - > "$TMP/s.csv" 2> /dev/null
check "writers_paths: '-' writes the same bytes to stdout" cmp -s "$TMP/f.csv" "$TMP/s.csv"
"$W" jsonl - > "$TMP/s.jsonl" 2> /dev/null
check "writers_paths: jsonl to stdout" [ $? -eq 0 -a "$(wc -l < "$TMP/s.jsonl")" -eq 13 ]
if [ -w /dev/full ]; then
	"$W" json - > /dev/full 2> "$TMP/err"
	rc=$?
	grep -q "No space left on device" "$TMP/err" || rc="$rc, no message"
	check "writers_paths: stdout on a full device: exit 3, message" [ "$rc" = 3 ]
else
	skip "writers_paths: /dev/full absent"
fi
"$W" sqlite - > /dev/null 2> "$TMP/err"
check "writers_paths: sqlite to stdout is a usage error (exit 1)" [ $? -eq 1 ]

# symlinks are followed, the link stays a link
"$W" csv "$TMP/real.csv" 2> /dev/null
ln -s real.csv "$TMP/link.csv"
"$W" -n 3 csv "$TMP/link.csv" 2> /dev/null
check "writers_paths: writing through a symlink replaces its target" \
	[ -L "$TMP/link.csv" -a "$(wc -l < "$TMP/real.csv")" -eq 4 ]

# modes: a new file follows the umask, a replaced file keeps its mode
(umask 027 && "$W" csv "$TMP/m.csv" 2> /dev/null)
check "writers_paths: new file mode 0640 under umask 027" \
	[ "$(stat -c %a "$TMP/m.csv")" = 640 ]
chmod 600 "$TMP/m.csv"
"$W" csv "$TMP/m.csv" 2> /dev/null
check "writers_paths: replaced file keeps mode 0600" [ "$(stat -c %a "$TMP/m.csv")" = 600 ]
check "writers_paths: no temporary file left anywhere" \
	[ "$(ls -A "$TMP" "$TMP/ro" "$TMP/isdir" | grep -c '^\.')" -eq 0 ]
