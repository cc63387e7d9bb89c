#!/usr/bin/env python3
"""Databases of the tool changed at the SQL level, handed to `hbbp-convert --append`: the
store's campaign (writers/SCHEMA.md, "The database runs only this tool's SQL").

    store_gen.py HBBP_CONVERT DEMO_DIR OUT_DIR N [SEED] [--check]

Writes N databases into OUT_DIR (seeds for fuzz_store). Each is a database of the demo's
runs (one or two; page size 512 to 65536; rollback or WAL journal) with one to three
random changes: a trigger, index or view on the tool's tables, a view of the tool's name
replaced, a column added or a type changed (by editing sqlite_schema), the format version
or application id set, tables and views of the user's own, odd column types, rows of odd
types, a virtual table, bytes of a page flipped, the file cut. With --check each is also
appended to by HBBP_CONVERT and judged: the exit is 0 or 2; on 2 the file is byte for byte
what it was, no journal is left, and one error line names the file; changes the schema
must refuse (an object on the tool's tables, a view or table of the tool's changed, another
format version) give 2 with one of their names, or the version, in that line (unless bytes
were changed, or an object dropped or renamed, or the version set to 0: then any refusal
will do, or an intact append); on 0 the
database passes integrity_check (when it did before) and holds one run more. Prints the counts; exit 1 on a
finding. Depends on python3's sqlite3 module only.
"""
import hashlib
import os
import random
import shutil
import sqlite3
import subprocess
import sys

TOOL_TABLES = ["runs", "run_meta", "events", "mix", "blocks", "instructions", "modules",
               "symbols", "warnings", "block_detail", "thread_blocks"]
ODD_TYPES = ["BLOB", "JSON", "VARCHAR(3)", "", "INT PRIMARY KEY", "NUMERIC", "REAL",
             "TEXT COLLATE NOCASE", "ANY", "DATETIME", "BOOLEAN", "INTEGER NOT NULL DEFAULT 7",
             "TEXT CHECK (length(x) < 3)", "TEXT GENERATED ALWAYS AS ('x') VIRTUAL"]


def tool_objects(con, kind):
    return [r[0] for r in con.execute(
        "SELECT name FROM sqlite_schema WHERE type = ? AND name NOT LIKE 'sqlite_%'", (kind,))]


def columns(con, table):
    return [r[1] for r in con.execute("SELECT * FROM pragma_table_info(?)", (table,))]


def q(name):
    return '"' + name.replace('"', '""') + '"'


def mutate(con, rng, path):
    """One random change; returns (what, must_refuse, name that the refusal must say)."""
    tables = [t for t in tool_objects(con, "table") if t in TOOL_TABLES or t.startswith("mix")]
    views = [v for v in tool_objects(con, "view") if v.startswith("mix_by")]
    k = rng.randrange(16)
    t = rng.choice(tables) if tables else "runs"
    name = "u%d" % rng.randrange(1000)
    if k == 0:
        ev = rng.choice(["INSERT", "UPDATE", "DELETE"])
        when = rng.choice(["BEFORE", "AFTER"])
        con.execute("CREATE TRIGGER %s %s %s ON %s BEGIN SELECT 1; END" % (q(name), when, ev, q(t)))
        return "trigger on %s" % t, True, name
    if k == 1:
        col = rng.choice(columns(con, t) or ["rowid"])
        con.execute("CREATE INDEX %s ON %s(%s)" % (q(name), q(t), q(col)))
        return "index on %s" % t, True, name
    if k == 2 and views:
        v = rng.choice(views)
        con.execute("DROP VIEW %s" % q(v))
        con.execute("CREATE VIEW %s AS SELECT %d AS x" % (q(v), rng.randrange(9)))
        return "view %s replaced" % v, True, v
    if k == 3:
        con.execute("ALTER TABLE %s ADD COLUMN %s %s" % (q(t), q(name), rng.choice(ODD_TYPES[:8])))
        return "column added to %s" % t, True, t
    if k == 4:
        con.execute("PRAGMA writable_schema = ON")
        old = con.execute("SELECT sql FROM sqlite_schema WHERE name = ?", (t,)).fetchone()[0]
        new = old.replace("INTEGER", rng.choice(["TEXT", "BLOB", "REAL"]), 1)
        if new == old:
            new = old.replace("TEXT", rng.choice(["INTEGER", "BLOB", "ANY"]), 1)
        con.execute("UPDATE sqlite_schema SET sql = ? WHERE name = ?", (new, t))
        con.execute("PRAGMA writable_schema = OFF")
        return "column type of %s changed" % t, new != old, t
    if k == 5:
        v = rng.choice([0, 1, 3, 4, 99, -1, 2**31 - 1])
        con.execute("PRAGMA user_version = %d" % v)
        return "user_version %d" % v, v not in (0, 2), str(v) if v else "@foreign"
    if k == 6:
        con.execute("PRAGMA application_id = %d" % rng.randrange(-2**31, 2**31))
        return "application_id", False, None
    if k == 7:
        cols = ", ".join("c%d %s" % (i, rng.choice(ODD_TYPES)) for i in range(rng.randrange(1, 5)))
        con.execute("CREATE TABLE %s (%s)" % (q(name), cols.replace("length(x)", "length(c0)")))
        if rng.randrange(2):
            con.execute("CREATE TRIGGER %s AFTER INSERT ON %s BEGIN SELECT 1; END"
                        % (q(name + "_t"), q(name)))
        if rng.randrange(2):
            con.execute("CREATE INDEX %s ON %s(c0)" % (q(name + "_i"), q(name)))
        return "table of the user's own", False, None
    if k == 8:
        con.execute("CREATE VIEW %s AS SELECT * FROM %s" % (q(name), q(t)))
        return "view of the user's own on %s" % t, False, None
    if k == 9:
        vals = rng.choice(["x'00ff'", "'text'", "1e308", "-9223372036854775808", "NULL", "''"])
        cols = columns(con, t)
        if cols:
            try:
                con.execute("INSERT INTO %s(%s) VALUES (%s)" % (q(t), q(rng.choice(cols)), vals))
            except sqlite3.DatabaseError:
                pass
        return "odd row in %s" % t, False, None
    if k == 10:
        try:
            con.execute("CREATE VIRTUAL TABLE %s USING fts5(x)" % q(name))
        except sqlite3.DatabaseError:
            con.execute("CREATE VIRTUAL TABLE %s USING rtree(id, a, b)" % q(name))
        return "virtual table", False, None
    if k == 11:
        con.execute("DROP %s %s" % (("VIEW", q(rng.choice(views))) if views else ("TABLE", q(t))))
        return "a tool object dropped", False, "@drop"
    if k == 12 and t != "runs":
        con.execute("ALTER TABLE %s RENAME TO %s" % (q(t), q(name)))
        return "table %s renamed" % t, False, "@rename"	# refused by its indexes, if any
    if k == 13:
        con.execute("CREATE TABLE %s AS SELECT * FROM %s" % (q(t + "_copy"), q(t)))
        return "copy of %s" % t, False, None
    if k == 14:
        return "bytes flipped", False, "@bytes"
    return "file cut", False, "@cut"


def make_base(hbbp, demo, work, rng):
    base = os.path.join(work, "base%d.sqlite" % rng.randrange(1 << 30))
    args = [hbbp, os.path.join(demo, "perf.data"), "-q", "--binary",
            "vector=" + os.path.join(demo, "vector")]
    if rng.randrange(3) == 0:
        args += ["--by", rng.choice(["module,mnemonic", "module,symbol", "iclass,isa"])]
    subprocess.run(args + ["-o", base], check=True, stderr=subprocess.DEVNULL)
    if rng.randrange(2):
        subprocess.run(args + ["--append", "-o", base], check=True, stderr=subprocess.DEVNULL)
    con = sqlite3.connect(base, isolation_level=None)
    ps = rng.choice([512, 1024, 4096, 65536])
    con.execute("PRAGMA page_size = %d" % ps)
    con.execute("VACUUM")
    if rng.randrange(4) == 0:
        con.execute("PRAGMA journal_mode = WAL")
    con.close()
    return base, args


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def runs_of(path):
    con = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    try:
        return con.execute("SELECT count(*) FROM runs").fetchone()[0]
    finally:
        con.close()


def one(i, hbbp, demo, out, rng, check, stats):
    base, args = make_base(hbbp, demo, out, rng)
    db = os.path.join(out, "db%06d.sqlite" % i)
    shutil.move(base, db)
    con = sqlite3.connect(db, isolation_level=None)
    changes = []
    for _ in range(rng.randrange(1, 4)):
        try:
            changes.append(mutate(con, rng, db))
        except sqlite3.DatabaseError as e:
            changes.append(("failed change (%s)" % e, False, None))
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    for ext in ("-wal", "-shm"):
        if os.path.exists(db + ext):
            os.unlink(db + ext)
    data = bytearray(open(db, "rb").read())
    for what, _, name in changes:
        if name == "@bytes":
            for _ in range(rng.randrange(1, 9)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        elif name == "@cut":
            data = data[:rng.randrange(len(data))]
    open(db, "wb").write(data)
    if not check:
        return
    before = digest(db)
    n0 = intact = None
    pre = db + ".pre"	# read on a copy: a reader of a WAL database leaves -wal and -shm
    shutil.copyfile(db, pre)
    try:
        n0 = runs_of(pre)
        con = sqlite3.connect("file:%s?mode=ro" % pre, uri=True)
        intact = con.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        con.close()
    except (sqlite3.DatabaseError, UnicodeDecodeError):
        pass
    for ext in ("", "-wal", "-shm", "-journal"):
        if os.path.exists(pre + ext):
            os.unlink(pre + ext)
    p = subprocess.run(args + ["--append", "-o", db], stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE, timeout=60)
    err = p.stderr.decode("utf-8", "replace")
    errs = [l for l in err.splitlines() if ": error: " in l]
    what = "; ".join(c[0] for c in changes)
    # a change that may undo another's (a drop, a rename, the version 0 of another
    # program's database) or bytes changed: any refusal, or an intact append, will do
    loose = any(c[2] and c[2].startswith("@") for c in changes)
    stats["runs"] += 1
    stats["exit%d" % p.returncode] = stats.get("exit%d" % p.returncode, 0) + 1
    bad = None
    if p.returncode not in (0, 2):
        bad = "exit %d" % p.returncode
    elif p.returncode == 2:
        if digest(db) != before:
            bad = "refused, file changed"
        elif os.path.exists(db + "-journal") or os.path.exists(db + "-wal"):
            bad = "refused, journal left"
        elif len(errs) != 1 or db not in errs[0]:
            bad = "refused without one error line naming the file"
        elif not loose:
            names = [c[2] for c in changes if c[1] and c[2]]
            if names and len(names) == sum(c[1] for c in changes) and not any(('"%s"' % nm) in errs[0] or ("version %s," % nm) in errs[0]
                                 for nm in names):
                bad = "refused, none of %s named" % names
    else:
        if any(must for _, must, _ in changes) and not loose:
            bad = "accepted although it must be refused"
        else:
            con = sqlite3.connect(db)
            try:
                ok = con.execute("PRAGMA integrity_check").fetchone()[0]
            except (sqlite3.DatabaseError, UnicodeDecodeError) as e:
                ok = str(e)
            con.close()
            if ok != "ok" and intact:
                bad = "accepted, integrity_check: %s" % ok
            elif n0 is not None and runs_of(db) != n0 + 1:
                bad = "accepted, runs %s -> %s" % (n0, runs_of(db))
    if bad:
        stats["findings"] += 1
        keep = db + ".finding"
        open(keep, "wb").write(data)
        print("FINDING %s: %s [%s] %s" % (os.path.basename(db), bad, what,
                                         errs[0] if errs else err[:200]), flush=True)
    else:
        open(db, "wb").write(data)	# the seed as generated, whatever the append did


def main():
    argv = [a for a in sys.argv[1:] if a != "--check"]
    check = "--check" in sys.argv
    if len(argv) < 4:
        print(__doc__)
        return 1
    hbbp, demo, out, n = argv[0], argv[1], argv[2], int(argv[3])
    rng = random.Random(int(argv[4]) if len(argv) > 4 else 1)
    os.makedirs(out, exist_ok=True)
    stats = {"runs": 0, "findings": 0}
    for i in range(n):
        one(i, hbbp, demo, out, rng, check, stats)
        if check and (i + 1) % 100 == 0:
            print("store_gen: %d databases, %d findings" % (i + 1, stats["findings"]), flush=True)
    print("store_gen: %d databases, %s" % (n, ", ".join(
        "%s %d" % kv for kv in sorted(stats.items()))))
    return 1 if stats["findings"] else 0


if __name__ == "__main__":
    sys.exit(main())
