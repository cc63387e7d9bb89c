#!/bin/sh
# The SQLite store under concurrency and faults, and outputs that must not destroy anything:
#  - 8 appends at once to one database give 8 runs with 8 distinct ids (they queue on the
#    write lock instead of replacing each other's copy), also when the database does not
#    exist yet;
#  - an append beside a connection that holds the database open in WAL mode with writes
#    not yet checkpointed: integrity_check ok, that connection's rows kept and still
#    readable by it, both runs there;
#  - the cost of an append does not grow with the database: appending to a database with
#    64 MB of other data takes at most 2x (+50 ms: fsync jitter) the time of appending to a
#    small one (the minimum of 5 appends each);
#  - a file-size limit (ulimit -f, SIGXFSZ) hit mid-append: exit 3, no temporary file, the
#    database as it was;
#  - output = input (also through a symlink, also -o x.sqlite x.sqlite) is refused with
#    exit 1 before anything is read, the input byte for byte intact;
#  - a character device (made with mknod) and a FIFO given as output stay what they are and
#    receive the output; a block device is refused;
#  - the same rule for read-only outputs in every format: an existing file the process may
#    not write is neither replaced nor appended to (exit 3, content kept);
#  - temporary files of a writer that is gone are removed by the next write to the same
#    output, with a warning; a live writer's are left alone;
#  - replacing (no --append) a database whose -wal file exists is refused;
#  - --label, host, file, perf version and recording time land in runs;
#  - compare refuses an output that is one of its inputs too.
. "$(dirname "$0")/../lib.sh"
W=$BUILD/tools/writetest
[ -x "$W" ] || { fail "store_sqlite: $W not built"; exit 0; }
command -v sqlite3 > /dev/null || { skip "store_sqlite: sqlite3 not installed"; exit 0; }
q() { sqlite3 "$@" 2>&1; }

# ---- 8 concurrent appends ----
d=$TMP/par
mkdir "$d"
"$W" -t first sqlite "$d/r.sqlite" 2> /dev/null
i=1
pids=
while [ $i -le 8 ]; do
	"$W" -a -n 2000 -b 2000 -t "p$i" sqlite "$d/r.sqlite" 2> "$TMP/par.$i" &
	pids="$pids $!"
	i=$((i + 1))
done
bad=0
for p in $pids; do wait $p || bad=$((bad + 1)); done
check "store_sqlite: 8 parallel appends: all exit 0, 9 runs, 9 distinct ids, 8 tags" \
	[ $bad = 0 -a "$(q "$d/r.sqlite" 'select count(*), count(distinct run_id) from runs')" = "9|9" \
	  -a "$(q "$d/r.sqlite" "select count(distinct value) from run_meta where key = 'tag'
				and value like 'p%'")" = 8 \
	  -a "$(q "$d/r.sqlite" 'pragma integrity_check')" = ok ]
check "store_sqlite: 8 parallel appends: every run has its 2000 blocks" \
	[ "$(q "$d/r.sqlite" 'select count(*) from (select run_id from blocks group by run_id
				having count(*) = 2000)')" = 8 ]

# ---- 8 concurrent appends to a database that does not exist yet: one creates it (the
# rename never replaces a file), the others append to it ----
d=$TMP/par0
mkdir "$d"
pids=
for i in 1 2 3 4 5 6 7 8; do
	"$W" -a -n 500 -b 500 -t "q$i" sqlite "$d/r.sqlite" 2> "$TMP/par0.$i" &
	pids="$pids $!"
done
bad=0
for p in $pids; do wait $p || bad=$((bad + 1)); done
check "store_sqlite: 8 parallel appends to a missing database: all exit 0, 8 runs, nothing else left" \
	[ $bad = 0 -a "$(q "$d/r.sqlite" 'select count(*), count(distinct run_id) from runs')" = "8|8" \
	  -a "$(ls -A "$d")" = r.sqlite ]

# ---- an append beside an open WAL connection with un-checkpointed writes ----
d=$TMP/wal
mkdir "$d"
"$W" -t first sqlite "$d/w.sqlite" 2> /dev/null
mkfifo "$d/cmd"
sqlite3 "$d/w.sqlite" < "$d/cmd" > "$d/out" 2>&1 &
spid=$!
exec 3> "$d/cmd"
echo "pragma journal_mode = wal; pragma wal_autocheckpoint = 0;
create table other (x); insert into other values (1), (2), (3);
select 'ready';" >&3
i=0
while [ $i -lt 250 ] && ! grep -q ready "$d/out"; do sleep 0.02; i=$((i + 1)); done
walsize=$(stat -c %s "$d/w.sqlite-wal" 2> /dev/null || echo 0)
"$W" -a -n 500 -b 500 -t second sqlite "$d/w.sqlite" 2> "$TMP/err"
rc=$?
echo "select 'other', count(*) from other; select 'runs', count(*) from runs;" >&3
exec 3>&-
wait $spid
check "store_sqlite: WAL: the other connection had un-checkpointed writes (wal $walsize bytes)" \
	[ "$walsize" -gt 0 ]
check "store_sqlite: WAL: append beside it exits 0; integrity ok; its rows and both runs there" \
	[ $rc = 0 -a "$(q "$d/w.sqlite" 'pragma integrity_check')" = ok \
	  -a "$(q "$d/w.sqlite" 'select count(*) from other')" = 3 \
	  -a "$(q "$d/w.sqlite" 'select count(*) from runs')" = 2 ]
check "store_sqlite: WAL: the other connection still reads its rows and sees the new run" \
	grep -qx 'other|3' "$d/out"
grep -qx 'runs|2' "$d/out" || fail "store_sqlite: WAL: the other connection sees 2 runs"

# ---- append cost against database size ----
# ms_min N CMD...: the smallest wall time of N runs of CMD, in milliseconds
ms_min() {
	n=$1; shift
	best=
	while [ $n -gt 0 ]; do
		t0=$(date +%s%N); "$@" 2> /dev/null; t1=$(date +%s%N)
		t=$(( (t1 - t0) / 1000000 ))
		{ [ -z "$best" ] || [ $t -lt $best ]; } && best=$t
		n=$((n - 1))
	done
	echo $best
}
d=$TMP/cost
mkdir "$d"
"$W" -t first sqlite "$d/small.sqlite" 2> /dev/null
"$W" -t first sqlite "$d/big.sqlite" 2> /dev/null
q "$d/big.sqlite" "create table pad (b blob); with recursive n(i) as (select 1 union all
	select i + 1 from n where i < 64) insert into pad select randomblob(1048576) from n" \
	> /dev/null
size=$(stat -c %s "$d/big.sqlite")
small=$(ms_min 5 "$W" -a -n 200 -b 200 sqlite "$d/small.sqlite")
big=$(ms_min 5 "$W" -a -n 200 -b 200 sqlite "$d/big.sqlite")
check "store_sqlite: append to a $((size >> 20)) MB database ${big} ms, to a small one ${small} ms: within 2x + 50 ms" \
	[ $big -le $((2 * small + 50)) -a \
	"$(q "$d/big.sqlite" 'select count(*) from runs')" = 6 ]

# ---- SIGXFSZ: a file-size limit reached mid-append ----
d=$TMP/xfsz
mkdir "$d"
"$W" -t first sqlite "$d/x.sqlite" 2> /dev/null
dump=$(q "$d/x.sqlite" .dump | cksum)
blocks=$(( $(stat -c %s "$d/x.sqlite") / 512 + 16 ))
(ulimit -f $blocks && exec "$W" -a -n 20000 -b 5000 -t second sqlite "$d/x.sqlite") \
	> /dev/null 2> "$TMP/err"
rc=$?
left=$(ls -A "$d" | tr '\n' ' ')
check "store_sqlite: file-size limit mid-append: exit 3, nothing beside the database, same content" \
	[ $rc = 3 -a "$left" = "x.sqlite " -a "$(q "$d/x.sqlite" 'pragma integrity_check')" = ok \
	  -a "$(q "$d/x.sqlite" .dump | cksum)" = "$dump" ]
"$W" -n 20000 -b 5000 -t second csv "$d/new.csv" > /dev/null 2>&1 &
(ulimit -f 64 && exec "$W" -n 20000 -b 5000 csv "$d/new.csv") > /dev/null 2> "$TMP/err"
rc=$?
wait
check "store_sqlite: file-size limit while writing a new CSV: exit 3, no temporary file" \
	[ $rc = 3 -a "$(ls -A "$d" | grep -c '^\.')" = 0 ]

# ---- output = input (the demo with its binary: a result with no row writes nothing) ----
IN=$ROOT/samples/demo/perf.data
DB="--binary vector=$ROOT/samples/demo/vector"
if [ -f "$IN" ]; then
	d=$TMP/same
	mkdir "$d"
	cp "$IN" "$d/in.data"
	ln -s in.data "$d/link.data"
	sum=$(cksum < "$d/in.data")
	for args in "-f csv -o $d/in.data $d/in.data" "-f json -o $d/link.data $d/in.data" \
		    "-f sqlite -o $d/in.data $d/in.data" "-f csv -o $d/in.data $d/link.data" \
		    "-f sqlite --append -o $d/link.data $d/in.data"; do
		"$HBBP" -q $DB $args > /dev/null 2> "$TMP/err"
		st=$?
		grep -q "is the input" "$TMP/err" || st="$st, no message"
		shown=$(echo "$args" | sed "s:$d/::g")
		check "store_sqlite: output = input refused ($shown): exit 1, message, input intact" \
			[ "$st" = 1 -a "$(cksum < "$d/in.data")" = "$sum" -a -L "$d/link.data" ]
	done
	"$HBBP" -q $DB -o "$d/x.sqlite" "$d/in.data" 2> /dev/null
	xsum=$(cksum < "$d/x.sqlite")
	"$HBBP" -q $DB -o "$d/x.sqlite" "$d/x.sqlite" > /dev/null 2> "$TMP/err"
	check "store_sqlite: -o x.sqlite x.sqlite refused, the database intact" \
		[ $? = 1 -a "$(cksum < "$d/x.sqlite")" = "$xsum" ]
	# ---- runs columns: --label, host, file, perf version, recording time ----
	"$HBBP" -q $DB --label "nightly build 42" --append -o "$d/x.sqlite" "$d/in.data" 2> "$TMP/err"
	check "store_sqlite: --label and the recording's host, file, perf version, time in runs" \
		[ "$(q "$d/x.sqlite" "select label, host, file, perf_version,
			recorded = (select value from run_meta m where m.run_id = runs.run_id and
				    key = 'recorded')
			from runs where run_id = 2")" = \
		  "nightly build 42|$(q "$d/x.sqlite" "select value from run_meta where run_id = 1
			and key = 'hostname'")|$d/in.data|$(q "$d/x.sqlite" "select value from
			run_meta where run_id = 1 and key = 'perf_version'")|1" ]
else
	skip "store_sqlite: output = input, --label: $IN absent"
fi

# ---- devices and FIFOs ----
d=$TMP/dev
mkdir "$d"
if mknod "$d/null.csv" c 1 3 2> /dev/null; then
	"$W" csv "$d/null.csv" 2> "$TMP/err"
	rc=$?
	check "store_sqlite: -o a character device: exit 0, it stays a character device 1,3, no temporary file" \
		[ $rc = 0 -a -c "$d/null.csv" \
		-a "$(stat -c %t,%T "$d/null.csv")" = 1,3 -a "$(ls -A "$d")" = null.csv ]
	"$W" sqlite "$d/null.csv" > /dev/null 2>&1
	check "store_sqlite: SQLite into a character device refused (exit 1), device kept" \
		[ $? = 1 -a -c "$d/null.csv" ]
	rm -f "$d/null.csv"
	if mknod "$d/blk.csv" b 7 200 2> /dev/null; then
		"$W" csv "$d/blk.csv" > /dev/null 2> "$TMP/err"
		check "store_sqlite: -o a block device refused, kept" \
			[ $? = 1 -a -b "$d/blk.csv" ]
		rm -f "$d/blk.csv"
	fi
else
	skip "store_sqlite: character device: mknod not permitted (not root)"
fi
mkfifo "$d/fifo.csv"
cat "$d/fifo.csv" > "$d/got.csv" &
cpid=$!
"$W" csv "$d/fifo.csv" 2> "$TMP/err"
rc=$?
# a writer that replaced the FIFO leaves the reader waiting: end it after 5 s
(sleep 5; kill $cpid 2> /dev/null) &
tpid=$!
wait $cpid
kill $tpid 2> /dev/null
"$W" csv - > "$d/want.csv" 2> /dev/null
cmp -s "$d/got.csv" "$d/want.csv" || rc="$rc, other content"
check "store_sqlite: -o a FIFO: exit 0, it stays a FIFO, the reader got the whole output" \
	[ "$rc" = 0 -a -p "$d/fifo.csv" ]

# ---- read-only outputs: one rule for every format ----
d=$TMP/ro
mkdir "$d"
chmod 777 "$d"
chmod 755 "$TMP"
for fmt in csv json sqlite; do
	"$W" -t old $fmt "$d/ro.$fmt" 2> /dev/null
	chmod 444 "$d/ro.$fmt"
done
as_user=
if [ "$(id -u)" -eq 0 ]; then
	if command -v setpriv > /dev/null &&
	   setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$W" 2> /dev/null; then
		as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
	fi
fi
if [ "$(id -u)" -ne 0 ] || [ -n "$as_user" ]; then
	for fmt in csv json sqlite; do
		sum=$(cksum < "$d/ro.$fmt")
		$as_user "$W" -n 3 $fmt "$d/ro.$fmt" > /dev/null 2> "$TMP/err"
		rc=$?
		grep -q "not writable" "$TMP/err" || rc="$rc, no message"
		check "store_sqlite: read-only $fmt output is not replaced: exit 3, content kept" \
			[ "$rc" = 3 -a "$(cksum < "$d/ro.$fmt")" = "$sum" ]
	done
	$as_user "$W" -a sqlite "$d/ro.sqlite" > /dev/null 2> "$TMP/err"
	check "store_sqlite: read-only database is not appended to: exit 3" [ $? = 3 ]
else
	skip "store_sqlite: read-only outputs: root without a usable setpriv"
fi

# ---- stale temporary files ----
d=$TMP/stale
mkdir "$d"
host=$(hostname | tr -cd 'A-Za-z0-9-' | cut -c1-32)
[ -n "$host" ] || host=x
: > "$d/.o.csv.2147483646@$host.AbCdEf"
: > "$d/.o.csv.$$@$host.GhIjKl"
: > "$d/.o.csv.12345@otherhost.MnOpQr"
touch -d '2 hours ago' "$d/.o.csv.12345@otherhost.MnOpQr"
"$W" csv "$d/o.csv" 2> "$TMP/err"
st=ok
grep -q "process 2147483646, which is gone" "$TMP/err" || st="no removal message"
grep -q "otherhost" "$TMP/err" || st="no message for the other host"
check "store_sqlite: a dead writer's temporary file is removed with a warning; a live writer's and another host's are kept (the latter reported)" \
	[ "$st" = ok -a ! -e "$d/.o.csv.2147483646@$host.AbCdEf" -a -e "$d/.o.csv.$$@$host.GhIjKl" \
	  -a -e "$d/.o.csv.12345@otherhost.MnOpQr" ]

# ---- replacing a database in use ----
d=$TMP/inuse
mkdir "$d"
"$W" -t first sqlite "$d/u.sqlite" 2> /dev/null
: > "$d/u.sqlite-wal"
sum=$(cksum < "$d/u.sqlite")
"$W" -f sqlite "$d/u.sqlite" > /dev/null 2> "$TMP/err"
check "store_sqlite: replacing (--force) a database with a -wal beside it is refused, it is kept" \
	[ $? = 3 -a "$(cksum < "$d/u.sqlite")" = "$sum" ]

# ---- compare: its output must not be one of its inputs either ----
d=$TMP/cmp
mkdir "$d"
printf 'symbol,mnemonic,count\nfoo,xor,1\n' > "$d/m.csv"
cp "$d/m.csv" "$d/r.csv"
"$HBBP" compare --ref "$d/r.csv" -o "$d/m.csv" "$d/m.csv" > /dev/null 2> "$TMP/err"
rc=$?
grep -q "is the input" "$TMP/err" || rc="$rc, no message"
check "store_sqlite: compare -o MIX MIX refused (exit 1), the mix intact" \
	[ "$rc" = 1 -a "$(cat "$d/m.csv")" = "$(cat "$d/r.csv")" ]
