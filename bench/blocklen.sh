#!/bin/sh
# How representative the workloads are: the share of executed instructions that lie in basic
# blocks longer than 18 instructions (the paper's cutoff), for real Debian programs run under
# pmusim and for the accuracy workloads (their --truth-insns files from bench/accuracy.sh).
# Blocks are bbmap's, split at every executed entry point (tests/tools/blocklen.c).
# Depends on ./pmusim, $BUILD/tools/blocklen (make check-build) and the programs below.
# Usage: bench/blocklen.sh [-w WORKDIR] [ACCURACY_WORKDIR]
set -e
top=$(cd "$(dirname "$0")/.." && pwd)
PMUSIM=${PMUSIM:-$top/pmusim}
BL=${BLOCKLEN:-$top/build/rel/tools/blocklen}
work=${TMPDIR:-/tmp}/hbbp-blocklen
[ "$1" = "-w" ] && { work=$2; shift 2; }
acc=${1:-${TMPDIR:-/tmp}/hbbp-accuracy}
mkdir -p "$work"
cd "$work"
# inputs: deterministic text and a small database
seq 1 30000 | awk '{ print $1, $1 * 7 % 1013, "line", $1 % 97 }' >in.txt
printf 'create table t(a integer, b text);\nwith recursive c(x) as (select 1 union all select x + 1 from c where x < 3000) insert into t select x, hex(x * 7919) from c;\nselect count(*), sum(a), max(b) from t where b like %s;\nselect b, count(*) from t group by substr(b, 1, 2) order by 2 desc limit 3;\n' "'%7%'" >in.sql

run() { # NAME PROGRAM ARGS... (stdin from $stdin)
	name=$1; shift
	[ -x "$1" ] || { echo "| $name | (not installed) |"; return 0; }
	"$PMUSIM" --truth-insns "$name.insns.csv" -- "$@" <"${stdin:-/dev/null}" >/dev/null 2>"$name.err" ||
		{ echo "| $name | (failed: $(tail -1 "$name.err")) |"; return 0; }
	set -- $("$BL" "$name.insns.csv")
	echo "| $name | $2 | $6 | $8 | ${10} |"
}
echo "| program | instructions | share in blocks > 18 | blocks executed | of which > 18 |"
echo "|---|---|---|---|---|"
stdin=in.txt run gzip /usr/bin/gzip -6 -c
stdin=in.txt run "bzip2" /usr/bin/bzip2 -c
stdin=in.txt run xz /usr/bin/xz -1 -c
stdin=in.sql run "sqlite3" /usr/bin/sqlite3 :memory:
stdin=in.txt run "sort" /usr/bin/sort
for w in primes objects vector interp libcmix divloop; do
	f=$acc/$w.insns.csv
	[ -f "$f" ] || continue
	set -- $("$BL" "$f")
	echo "| workload $w | $2 | $6 | $8 | ${10} |"
done
