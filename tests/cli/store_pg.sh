#!/bin/sh
# The PostgreSQL store against a real server this test starts (Debian's postgresql package:
# initdb into a temporary directory, a Unix socket there and no TCP, stopped at the end even
# on failure; as root the server runs as the postgres user, or nobody):
#  - 4 converters at once on an empty database (all racing to create the schema) give 4
#    runs with distinct ids and labels; every view works and its shares sum to 1 per run;
#  - the server holds what SQLite holds for the same recording: the same row count in every
#    table and the same mix_by_mnemonic (count, share, count_lo, count_hi), computed by each
#    engine from its own tables;
#  - a converter killed (SIGKILL) in the middle of sending its rows leaves no row of its
#    run; SIGTERM there rolls back, exits 3 and says so;
#  - the PG* environment variables are honoured (-o postgresql:// alone);
#  - a run with other mix columns is added, the mix getting its columns;
#  - secrets: a role with a password (scram-sha-256 in pg_hba.conf); every failure (wrong
#    password, missing database, missing role, server down, other mix columns, a foreign
#    trigger, the server stopped in the middle of COPY), in the URI and keyword forms, the
#    password also percent-encoded and in the run's metadata: the cause is libpq's message
#    (exit 3, or 2 for the layout) and the password is nowhere: not in stdout, stderr, the
#    runs, run_meta and warnings rows;
#  - the database runs only the tool's SQL: a trigger, a rule, an index of its own on a
#    table of the tool's, a changed view: refused (exit 2) naming it, no run added.
# Skips only where the server binaries are absent.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/pg_lib.sh"
W=$BUILD/tools/writetest
[ -x "$W" ] || { fail "store_pg: $W not built"; exit 0; }
pg_find
if [ -z "$PGBIN" ]; then
	skip "store_pg: PostgreSQL server binaries absent (Debian: apt-get install postgresql)"
	exit 0
fi
pg_dir
trap 'pg_stop; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM HUP PIPE QUIT

if ! $as_server "$PGBIN/initdb" -D "$D/data" -U hbbp --auth=trust -E UTF8 --no-locale \
	> "$TMP/initdb.log" 2>&1; then
	fail "store_pg: initdb failed"
	cat "$TMP/initdb.log" >&2
	exit 0
fi
# the superuser hbbp without a password; every other role with its password
$as_server sh -c "printf 'local all hbbp trust\nlocal all all scram-sha-256\n' > '$D/data/pg_hba.conf'"
if ! $as_server "$PGBIN/pg_ctl" -D "$D/data" -w -t 60 -l "$D/log" \
	-o "-c listen_addresses='' -k $D -c fsync=off -c max_connections=40" start \
	> "$TMP/pgctl.log" 2>&1; then
	fail "store_pg: the server did not start"
	cat "$TMP/pgctl.log" "$D/log" >&2
	exit 0
fi
export PGHOST="$D" PGUSER=hbbp
$PSQL -q -d postgres -c 'create database runs' -c 'create database envdb' \
	-c 'create database other' -c 'create database killdb' > /dev/null 2>&1 || { fail "store_pg: createdb"; exit 0; }
URI="postgresql:///runs?host=$D&user=hbbp"
sql() { $PSQL -X -A -t -q -d "${DB:-runs}" -c "$1" 2>&1; }

IN=$CORPUS/autofdo/propeller_sample.perfdata
BIN="--binary propeller_sample.bin=$CORPUS/autofdo/propeller_sample_old.bin"
if [ -f "$IN" ]; then
	cp "$IN" "$TMP/in.data"
else
	skip "store_pg: corpus absent ($IN): the synthetic result only"
fi

# ---- 4 concurrent converters on an empty database ----
pids=
for i in 1 2 3 4; do
	if [ -f "$TMP/in.data" ]; then
		env -u PGHOST "$HBBP" -q $BIN --store threads --label "conc $i" -o "$URI" "$TMP/in.data" \
			2> "$TMP/c.$i" &
	else
		env -u PGHOST "$W" -b 500 -t "conc $i" postgresql "$URI" 2> "$TMP/c.$i" &
	fi
	pids="$pids $!"
done
bad=0
for p in $pids; do wait $p || bad=$((bad + 1)); done
[ $bad = 0 ] || cat "$TMP"/c.* >&2
check "store_pg: 4 concurrent converters on an empty database: all exit 0, 4 runs, 4 ids" \
	[ $bad = 0 -a "$(sql 'select count(*), count(distinct run_id) from runs')" = "4|4" ]
if [ -f "$TMP/in.data" ]; then
	check "store_pg: the 4 runs carry their labels, host, file, perf version, time" \
		[ "$(sql "select string_agg(label, ',' order by label) from runs
			  where host is not null and file like '%in.data'
			  and perf_version is not null and recorded is not null")" = \
		  "conc 1,conc 2,conc 3,conc 4" ]
fi
st=ok
for v in mix_by_mnemonic mix_by_isa mix_by_category mix_by_function mix_by_thread; do
	got=$(sql "select count(*) from (select run_id, sum(share) s, count(*) n from $v
		   group by run_id having abs(sum(share) - 1) < 1e-9 and count(*) > 0) t")
	[ "$got" = 4 ] || st="$v: $got runs with shares summing to 1"
done
got=$(sql "select count(distinct run_id) from block_detail")
[ "$got" = 4 ] || st="block_detail: $got runs"
check "store_pg: every view works for the 4 runs, shares sum to 1 per run ($st)" [ "$st" = ok ]

# ---- the same as SQLite holds ----
if [ -f "$TMP/in.data" ] && command -v sqlite3 > /dev/null; then
	"$HBBP" -q $BIN --store threads -o "$TMP/s.sqlite" "$TMP/in.data" 2> /dev/null
	st=ok
	for t in events modules symbols blocks instructions thread_blocks mix run_meta warnings; do
		a=$(sqlite3 "$TMP/s.sqlite" "select count(*) from $t")
		b=$(sql "select count(*) from $t where run_id = 1")
		[ "$a" = "$b" ] || st="$st; $t: sqlite $a, postgresql $b"
	done
	sqlite3 -separator '|' "$TMP/s.sqlite" "select mnemonic, printf('%.12e', count),
		printf('%.12e', share), printf('%.12e', count_lo), printf('%.12e', count_hi)
		from mix_by_mnemonic order by mnemonic" > "$TMP/m.sqlite"
	sql "select mnemonic, to_char(count, '9.999999999999EEEE'), to_char(share,
		'9.999999999999EEEE'), to_char(count_lo, '9.999999999999EEEE'), to_char(count_hi,
		'9.999999999999EEEE') from mix_by_mnemonic where run_id = 1 order by mnemonic
		collate \"C\"" | sed 's/| */|/g; s/^ *//' > "$TMP/m.pg"
	# count_lo, count_hi (sqrt in both dialects): within 1e-9 of the count
	awk -F'|' 'NR == FNR { a[$1] = $2 "|" $3 "|" $4 "|" $5; n++; next }
		{ split(a[$1], x, "|"); m++
		  if (!($1 in a) || (x[1] - $2) ^ 2 > (1e-9 * $2) ^ 2 ||
		      (x[2] - $3) ^ 2 > (1e-9 * $3) ^ 2 || (x[3] - $4) ^ 2 > (1e-9 * $2) ^ 2 ||
		      (x[4] - $5) ^ 2 > (1e-9 * $2) ^ 2 || $5 < $2) bad = 1 }
		END { exit bad || n != m || n == 0 }' "$TMP/m.sqlite" "$TMP/m.pg" ||
		st="$st; mix_by_mnemonic differs"
	check "store_pg: the server holds what SQLite holds for the same recording ($st)" \
		[ "$st" = ok ]
fi

# ---- a converter killed mid-run leaves nothing ----
KURI="postgresql:///killdb?host=$D"
"$W" -t first postgresql "$KURI" 2> /dev/null
export DB=killdb
before=$(sql 'select count(*) from runs')
rows_before=$(sql 'select count(*) from blocks')
for sig in KILL TERM; do
	"$W" -n 200000 -b 200000 -t "killed $sig" postgresql "$KURI" > /dev/null 2> "$TMP/k.err" &
	pid=$!
	i=0
	while [ $i -lt 500 ] && [ "$(sql "select count(*) from pg_stat_activity
			where query like 'COPY %' and state = 'active'
			and datname = 'killdb'")" = 0 ]; do
		sleep 0.02
		i=$((i + 1))
	done
	kill -$sig $pid
	wait $pid
	rc=$?
	sleep 0.3	# the server ends the backend of a lost connection
	want=3
	[ $sig = KILL ] && want=137
	st=ok
	[ $sig = TERM ] && ! grep -q "interrupted by signal 15.*rolled back" "$TMP/k.err" &&
		st="no message"
	check "store_pg: SIG$sig while sending rows: exit $rc (want $want), no run, no row left ($st)" \
		[ "$st" = ok -a $rc = $want -a "$(sql 'select count(*) from runs')" = "$before" \
		  -a "$(sql 'select count(*) from blocks')" = "$rows_before" \
		  -a "$(sql "select count(*) from run_meta where value like 'killed%'")" = 0 ]
done
unset DB

# ---- PG* environment variables ----
PGDATABASE=envdb "$W" -t env postgresql "postgresql://" 2> "$TMP/err"
check "store_pg: -o postgresql:// takes host, user and database from PG* variables" \
	[ $? = 0 -a "$(DB=envdb sql 'select count(*) from runs')" = 1 ]

# ---- another mix column set, a connection failure ----
"$W" -t a postgresql "postgresql:///other?host=$D" 2> /dev/null
"$W" -x -t b postgresql "postgresql:///other?host=$D" > /dev/null 2> "$TMP/err"
rc=$?
cols=$(DB=other sql "select string_agg(value, ';' order by run_id) from run_meta where key = 'mix_columns'")
extra=$(DB=other sql "select count(extra) from mix where run_id = 2")
expect "store_pg: a run with other mix columns is added (exit $rc), the mix gets its column ($extra rows), run_meta names each run's" \
	'[ "$rc" = 0 ] && [ "$(DB=other sql "select count(*) from runs")" = 2 ] && [ "$extra" -gt 0 ] &&
	 [ "$cols" = "module,symbol,mnemonic,n,count,share;module,symbol,mnemonic,n,count,share,extra" ]'
# ---- secrets: no password in any output ----
# carol's password, and wrong ones, share "ecretPw": grep finds every one of them, also
# percent-encoded (%53 is S)
PW=hbbpSecretPw42
$PSQL -q -d postgres -c "create role carol login password '$PW'" \
	-c 'create database sec owner carol' > /dev/null 2>&1 || fail "store_pg: create role"
S=$TMP/secret
mkdir "$S"
n=0
# pg_secret EXIT MESSAGE [hbbp-convert] WRITETEST_ARGS...: one write (by writetest, or by
# hbbp-convert), its stdout and stderr kept
pg_secret() {
	want=$1 msg=$2
	shift 2
	n=$((n + 1))
	prog=$W
	[ "$1" = hbbp-convert ] && prog=$HBBP && shift
	env -u PGHOST -u PGUSER "$prog" "$@" > "$S/out.$n" 2> "$S/err.$n"
	rc=$?
	[ -z "$msg" ] || grep -q -- "$msg" "$S/err.$n" || rc="$rc, not '$msg'"
	grep -q "cannot write:\|Connection refused" "$S/err.$n" && rc="$rc, a second line"
	expect "store_pg: secrets: $* : exit $rc (want $want), libpq's message" \
		'[ "$rc" = "$want" ]'
}
GOOD="postgresql://carol:$PW@/sec?host=$D"
pg_secret 0 "" -t "ok $PW" postgresql "$GOOD"
pg_secret 0 "" -t "percent-encoded" postgresql "postgresql://carol:hbbp%53ecretPw42@/sec?host=$D"
pg_secret 0 "" -t "keywords" postgresql "host=$D dbname=sec user=carol password='$PW'"
pg_secret 3 "password authentication failed for user \"carol\"" postgresql \
	"postgresql://carol:WrongSecretPw@/sec?host=$D"
pg_secret 3 "password authentication failed for user \"carol\"" postgresql \
	"host=$D dbname=sec user=carol password=Wr0ngSecretPw"
pg_secret 3 "password authentication failed for user \"carol\"" postgresql \
	"postgresql:///sec?host=$D&user=carol&password=WrongSecretPw%21"
pg_secret 3 'database "nodb" does not exist' postgresql "postgresql://carol:$PW@/nodb?host=$D"
pg_secret 3 'password authentication failed for user "ghost"' postgresql \
	"postgresql://ghost:$PW@/sec?host=$D"
pg_secret 3 "No such file or directory" postgresql "postgresql://carol:$PW@/sec?host=$D/nowhere"
pg_secret 3 "No such file or directory" postgresql "host=$D/nowhere user=carol password=$PW"
pg_secret 0 "" -x -t "other $PW" postgresql "$GOOD"
if [ -f "$TMP/in.data" ]; then	# the converter's messages too, in a database of its runs
	$PSQL -q -d postgres -c 'create database secc owner carol' > /dev/null 2>&1
	SECC="postgresql://carol:$PW@/secc?host=$D"
	pg_secret 2 "holds the runs of the other 1 only" hbbp-convert -q $BIN -o "$SECC" \
		"$TMP/in.data" "$TMP/none.data"
	pg_secret 3 "password authentication failed for user \"carol\"" hbbp-convert -q $BIN \
		-o "postgresql://carol:WrongSecretPw@/secc?host=$D" "$TMP/in.data"
	pg_secret 1 "cannot tell the format" hbbp-convert -q $BIN \
		-o "host=$D dbname=secc user=carol password=$PW" "$TMP/in.data"
	pg_secret 0 "" hbbp-convert -q $BIN --by symbol -f postgresql \
		-o "host=$D dbname=secc user=carol password=$PW" "$TMP/in.data"
fi
DB=sec sql 'create function evil() returns trigger language plpgsql as $$ begin
	delete from blocks; return new; end $$;
	create trigger evil after insert on runs execute function evil();
	alter table runs owner to carol' > /dev/null
pg_secret 2 'the database has trigger "evil" on "runs", not this tool'"'"'s' \
	-t "trigger $PW" postgresql "$GOOD"
DB=sec sql 'drop trigger evil on runs' > /dev/null

# the stores run only their own SQL: each of these refused, exit 2, no run added
runs=$(DB=sec sql 'select count(*) from runs')
for obj in "rule r as on insert to warnings do also delete from blocks|rule \"r\" on \"warnings\"|drop rule r on warnings" \
	   "index extra on blocks (executions)|index \"extra\" on \"blocks\"|drop index extra" \
	   "or replace view mix_by_isa as select run_id, category as isa, count, count_lo,
	    count_hi, 2 * share as share from mix_by_category|view \"mix_by_isa\" changed|drop view mix_by_isa"; do
	DB=sec sql "create ${obj%%|*}" > /dev/null
	rest=${obj#*|}
	env -u PGHOST -u PGUSER "$W" -t foreign postgresql "$GOOD" > /dev/null 2> "$TMP/err"
	rc=$?
	grep -qF "the database has ${rest%%|*}, not this tool's" "$TMP/err" || rc="$rc, no message"
	expect "store_pg: the database's ${rest%%|*}: refused (exit $rc), no run added" \
		'[ "$rc" = 2 ] && [ "$(DB=sec sql "select count(*) from runs")" = "$runs" ]'
	DB=sec sql "${rest#*|}" > /dev/null
done

# ---- the dashboard queries of writers/SCHEMA.md ----
if [ -f "$TMP/in.data" ]; then
	for i in 1 2; do
		"$HBBP" -q $BIN --label nightly -o "$URI" "$TMP/in.data" 2> /dev/null
	done
	awk '/^Dashboard queries/ { on = 1 } on && /^```sql/ { in_sql = 1; n = 1; next }
	     in_sql && /^```/ { exit } in_sql && /^$/ { n++; next }
	     in_sql { print > (dir "/dash." n ".sql") }' dir="$TMP" "$ROOT/writers/SCHEMA.md"
	# propeller_sample runs no AVX-512: one row (one day, one host), share exactly 0
	a=$($PSQL -X -A -t -q -d runs -f "$TMP/dash.1.sql" 2>&1 | cut -d'|' -f3 | sort -u)
	# the two nightly runs: every category above 5%, one row per run and category
	b=$($PSQL -X -A -t -q -d runs -f "$TMP/dash.2.sql" 2>&1 | cut -d'|' -f2 | sort | uniq -c |
	    awk '{ print $1 }' | sort -u)
	# the same recording twice: no function changed
	# (each share is a sum the server may take in another order: equal within 1e-12)
	c=$($PSQL -X -A -t -q -d runs -f "$TMP/dash.3.sql" 2>&1 | cut -d'|' -f3 |
	    awk '{ v = $1 + 0; if ($1 !~ /^-?[0-9.e+-]+$/) print $1; else if (v > 1e-12 || v < -1e-12) print v; else print 0 }' |
	    sort -u)
	check "store_pg: the dashboard queries of SCHEMA.md run: AVX-512 share '$a' (want 0), categories per nightly run counted '$b', deltas '$c' (want 0)" \
		[ "$a" = 0 -a -n "$b" -a "$(echo "$b" | wc -l)" = 1 -a "$c" = 0 ]
fi

# ---- the server stopped in the middle of COPY (the last case: the server is gone) ----
DB=sec sql "select 'rows', r.*, m.key, m.value from runs r left join run_meta m using (run_id)
	union all select 'warning', null, null, null, null, null, null, null, null, null,
	message from warnings" > "$S/rows"
env -u PGHOST -u PGUSER "$W" -n 200000 -b 200000 -t "stopped $PW" postgresql "$GOOD" \
	> "$S/out.stop" 2> "$S/err.stop" &
pid=$!
i=0
while [ $i -lt 500 ] && [ "$(DB=sec sql "select count(*) from pg_stat_activity
		where query like 'COPY %' and state = 'active'")" = 0 ]; do
	sleep 0.02
	i=$((i + 1))
done
$as_server "$PGBIN/pg_ctl" -D "$D/data" -m immediate stop > /dev/null 2>&1
wait $pid
rc=$?
grep -q "server closed the connection\|terminating connection\|connection to server" \
	"$S/err.stop" || rc="$rc, not libpq's message"
expect "store_pg: secrets: the server stopped during COPY: exit $rc (want 3), libpq's message" \
	'[ "$rc" = 3 ]'
leaks=$(grep -l "ecretPw\|%53ecret" "$S"/* | tr '\n' ' ')
expect "store_pg: secrets: $n writes with passwords, stdout, stderr and the stored rows: no password (${leaks:-none} leaks; $(grep -c '^rows' "$S/rows") metadata rows read)" \
	'[ -z "$leaks" ] && grep -q "ok \*\*\*" "$S/rows" && grep -q "|keywords$" "$S/rows"'
