#!/bin/sh
# What a SQLite database may hold and what the converter does to it (writers/SCHEMA.md):
#  - archives are not replaced by accident: -o FILE.sqlite on a database with runs and a
#    table of the user's own, or on another program's SQLite file, or on a text file, without
#    --append: refused (exit 1) before anything is converted, naming --append and --force,
#    the file byte for byte unchanged; --force replaces it; text outputs (CSV) replace a
#    file as before; README's promise holds;
#  - the database runs only the tool's SQL: a trigger on one of its tables, a view of its
#    name replaced, an index of its own on one of its tables: --append refused (exit 2)
#    naming it, the file byte for byte unchanged; the user's own table, index, view and a
#    trigger on the user's table are left alone and the run is added (exit 0);
#  - a foreign database (no format version), a future format version: exit 2 with one line
#    naming the version (runs of other --by keys are added: tests/cli/store_repivot.sh);
#  - waiting for a lock says who holds it: another writer (a transaction that writes), or the
#    database's readers (a read transaction keeps the commit waiting).
. "$(dirname "$0")/../lib.sh"
command -v sqlite3 > /dev/null || { skip "store_trust: sqlite3 not installed"; exit 0; }
IN=$ROOT/samples/demo/perf.data
BIN="--binary vector=$ROOT/samples/demo/vector"
d=$TMP/t
mkdir "$d"
conv() { "$HBBP" -q $BIN "$@" "$IN" > /dev/null 2> "$TMP/err"; }

# ---- archives ----
conv -o "$d/runs.sqlite"
conv --append -o "$d/runs.sqlite"
conv --append -o "$d/runs.sqlite"
sqlite3 "$d/runs.sqlite" "create table notes (run_id, note); insert into notes values (2, 'keep')"
cp "$d/runs.sqlite" "$d/runs.orig"
sqlite3 "$d/other.sqlite" "create table contacts (name, phone); insert into contacts values
	('ada', '555')"
cp "$d/other.sqlite" "$d/other.orig"
printf 'name,phone\nada,555\n' > "$d/notes.db"
cp "$d/notes.db" "$d/notes.orig"
for f in runs other notes; do
	ext=sqlite
	[ $f = notes ] && ext=db
	conv -o "$d/$f.$ext"
	rc=$?
	grep -q "it is not replaced; add the run to a database with --append, or replace the file with --force" "$TMP/err" || rc="$rc, no message"
	expect "store_trust: -o $f.$ext without --append: refused (exit $rc), unchanged" \
		'[ "$rc" = 1 ] && cmp -s "$d/$f.$ext" "$d/$f.orig"'
done
conv --force -o "$d/other.sqlite"
rc=$?
expect "store_trust: --force replaces another program's database with a one-run database" \
	'[ $rc = 0 ] && [ "$(sqlite3 "$d/other.sqlite" "select count(*) from runs")" = 1 ] &&
	 ! sqlite3 "$d/other.sqlite" "select * from contacts" 2> /dev/null'
expect "store_trust: README: writing the output never destroys anything" \
	'grep -q "Writing the output never destroys anything" "$ROOT/README.md"'
printf 'name,phone\nada,555\n' > "$d/mine.csv"
conv -o "$d/mine.csv"
rc=$?
expect "store_trust: a CSV file is replaced by a CSV output, as the shell's > would (exit $rc)" \
	'[ "$rc" = 0 ] && head -1 "$d/mine.csv" | grep -q "^module,symbol,mnemonic,count"'

conv -o "$d"
rc=$?
expect "store_trust: a directory as output: exit $rc (want 1), one line" \
	'[ "$rc" = 1 ] && [ "$(wc -l < "$TMP/err")" = 1 ] && grep -q "a directory" "$TMP/err"'

# ---- only the tool's SQL runs ----
conv -o "$d/db.sqlite"
sqlite3 "$d/db.sqlite" "create table mine (x); create index mine_x on mine (x);
	create view my_blocks as select * from blocks where executions > 1;
	create trigger mine_t after insert on mine begin delete from blocks; end"
conv --append -o "$d/db.sqlite"
expect "store_trust: the user's table, index, view and a trigger on the user's table are left alone, the run added" \
	'[ $? = 0 ] && [ "$(sqlite3 "$d/db.sqlite" "select count(*) from runs")" = 2 ]'
for obj in "trigger t after insert on runs begin delete from blocks where run_id = 1; end|trigger \"t\" on \"runs\"" \
	   "trigger tb instead of insert on mix_by_isa begin select 1; end|trigger \"tb\" on \"mix_by_isa\"" \
	   "index extra on blocks (executions)|index \"extra\" on \"blocks\"" \
	   "view mix_by_isa as select 1 as run_id|view \"mix_by_isa\" changed" \
	   "table mix_by_isa (run_id)|table \"mix_by_isa\" changed"; do
	cp "$d/db.sqlite" "$d/f.sqlite"
	case "${obj%%|*}" in
	*"view mix_by_isa"*|*"table mix_by_isa"*) sqlite3 "$d/f.sqlite" "drop view mix_by_isa" ;;
	esac
	sqlite3 "$d/f.sqlite" "create ${obj%%|*}"
	cp "$d/f.sqlite" "$d/f.orig"
	conv --append -o "$d/f.sqlite"
	rc=$?
	grep -qF "the database has ${obj#*|}, not this tool's" "$TMP/err" || rc="$rc, no message"
	expect "store_trust: the database's ${obj#*|}: --append refused (exit $rc), the file unchanged" \
		'[ "$rc" = 2 ] && cmp -s "$d/f.sqlite" "$d/f.orig"'
done

# ---- databases the run does not fit ----
cp "$d/db.sqlite" "$d/col.sqlite"
sqlite3 "$d/col.sqlite" "alter table mix add column note text"
cp "$d/col.sqlite" "$d/col.orig"
conv --append -o "$d/col.sqlite"
rc=$?
expect "store_trust: a column added to mix: exit $rc (want 2), the table named (not options), unchanged" \
	'[ $rc = 2 ] && cmp -s "$d/col.sqlite" "$d/col.orig" && ! grep -q "written with" "$TMP/err" &&
	 grep -q "table \"mix\" of the database is not the one this tool creates" "$TMP/err"'
cp "$d/other.orig" "$d/o2.sqlite"
conv --append -o "$d/o2.sqlite"
rc=$?
expect "store_trust: --append to another program's database: exit $rc (want 2), unchanged" \
	'[ $rc = 2 ] && cmp -s "$d/o2.sqlite" "$d/other.orig" && grep -q "not a database of this tool" "$TMP/err"'
cp "$d/db.sqlite" "$d/v3.sqlite"
sqlite3 "$d/v3.sqlite" "pragma user_version = 4"
cp "$d/v3.sqlite" "$d/v3.orig"
conv --append -o "$d/v3.sqlite"
rc=$?
expect "store_trust: --append to a future format version: exit $rc (want 2), unchanged" \
	'[ $rc = 2 ] && cmp -s "$d/v3.sqlite" "$d/v3.orig" && grep -q "database format version 4, this tool writes version 3" "$TMP/err"'

# ---- who holds the lock ----
# hold HOW: a sqlite3 process on db.sqlite holding a write (BEGIN IMMEDIATE) or a read
# transaction (BEGIN; SELECT) while the converter appends; released after 2.5 s
hold() {
	mkfifo "$d/cmd.$1"
	sqlite3 "$d/db.sqlite" < "$d/cmd.$1" > "$d/out.$1" 2>&1 &
	spid=$!
	exec 3> "$d/cmd.$1"
	echo "$2; select 'held';" >&3
	i=0
	while [ $i -lt 250 ] && ! grep -q held "$d/out.$1"; do sleep 0.02; i=$((i + 1)); done
	(sleep 2.5; echo "commit;" >&3; exec 3>&-) &
	"$HBBP" $BIN --append -o "$d/db.sqlite" "$IN" > /dev/null 2> "$TMP/err.$1"
	rc=$?
	exec 3>&-
	wait $spid
	echo $rc
}
rc=$(hold w "begin immediate; insert into mine values (1)")
expect "store_trust: a writer holds the lock: exit $rc, 'waiting for another writer'" \
	'[ "$rc" = 0 ] && grep -q "waiting for another writer to finish" "$TMP/err.w"'
rc=$(hold r "begin; select count(*) from runs")
expect "store_trust: a reader holds the database: exit $rc, 'waiting for the database's readers'" \
	'[ "$rc" = 0 ] && grep -q "waiting for the database.s readers to finish" "$TMP/err.r" &&
	 ! grep -q "another writer" "$TMP/err.r"'
