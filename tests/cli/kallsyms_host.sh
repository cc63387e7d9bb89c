#!/bin/sh
# The kernel named from this machine's /proc/kallsyms: a pipe recording made here (perf
# record -e cpu-clock of dd, mostly kernel time, no kernel build-id) gives kernel rows whose
# shares equal perf report --sort dso,sym to 0.01 points for its top kernel symbols, with one
# note naming /proc/kallsyms. Copies of the same recording with the hostname changed, with
# the kernel release changed, and with the kernel map where another boot would put it, name
# no kernel symbol: one hint naming --kallsyms, and no such note.
. "$(dirname "$0")/../lib.sh"

n=kallsyms_host
if ! command -v perf >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
	skip "$n: perf or python3 absent"; exit 0
fi
if ! awk '$3 == "_text" { found = 1; exit ($1 ~ /^0+$/) } END { exit !found }' /proc/kallsyms; then
	skip "$n: /proc/kallsyms shows no addresses (kptr_restrict)"; exit 0
fi
perf record -q -e cpu-clock -o - -- dd if=/dev/zero of=/dev/null bs=1M count=20000 \
	> "$TMP/here.data" 2> "$TMP/rec.err"
perf report -i "$TMP/here.data" --sort dso,sym --stdio > "$TMP/perf.txt" 2> /dev/null
# perf's kernel rows "share symbol", the top 5 by share; perf lists two functions of one name
# (static ones) as two rows, which a mix by symbol sums into one
awk '$2 == "[kernel.kallsyms]" && $3 == "[k]" { sub(/%/, "", $1); s[$4] += $1 }
	END { for (k in s) print s[k], k }' "$TMP/perf.txt" | sort -k1,1gr -k2 | head -n 5 \
	> "$TMP/perf.rows"
if [ ! -s "$TMP/perf.rows" ] || grep -q " 0x" "$TMP/perf.rows"; then
	skip "$n: perf recorded no named kernel samples here (perf_event_paranoid?)"; exit 0
fi

# Copies: the string of header feature FEAT (3 hostname, 4 osrelease) with its first
# character changed, or (FEAT "map") the kernel map's pgoff (_text) moved by 2 MiB.
alter() {
	python3 - "$1" "$2" "$3" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
what, o, done = sys.argv[3], 16, False
while o + 8 <= len(b):
    t, m, s = struct.unpack_from('<IHH', b, o)
    if s < 8:
        break
    if t == 80 and what != 'map' and struct.unpack_from('<Q', b, o + 8)[0] == int(what):
        p = o + 20	# after the feature id and the string's length
        b[p] = ord('x') if b[p] != ord('x') else ord('y')
        done = True
    if t in (1, 10) and what == 'map' and b'[kernel.kallsyms]' in b[o:o + s]:
        struct.pack_into('<Q', b, o + 32, struct.unpack_from('<Q', b, o + 32)[0] + 0x200000)
        done = True
    o += s
open(sys.argv[2], 'wb').write(b)
sys.exit(not done)
PY
}
alter "$TMP/here.data" "$TMP/host.data" 3 && alter "$TMP/here.data" "$TMP/rel.data" 4 &&
	alter "$TMP/here.data" "$TMP/boot.data" map || { fail "$n: cannot alter the recording"; exit 0; }

# conv NAME: module,symbol CSV in NAME.csv, stderr in NAME.err, exit code in rc
conv() {
	HOME=$TMP "$HBBP" --ebs-event cpu-clock --by module,symbol "$TMP/$1.data" \
		> "$TMP/$1.csv" 2> "$TMP/$1.err"
	rc=$?
}
NOTE="kernel names from this machine's /proc/kallsyms"
conv here
# each of perf's top kernel symbols: "symbol perf% hbbp%" (hbbp's empty when absent)
awk -F, 'NR == FNR { if ($1 == "[kernel.kallsyms]") s[$2] = 100 * $6; next }
	{ print $2, $1, ($2 in s) ? s[$2] : "" }' "$TMP/here.csv" FS=' ' "$TMP/perf.rows" \
	> "$TMP/cmp.rows"
off=$(awk '$3 == "" || $2 - $3 > 0.01 || $3 - $2 > 0.01' "$TMP/cmp.rows" | wc -l)
top=$(head -n 1 "$TMP/cmp.rows")
expect "$n: recorded here: perf's top kernel symbols ($(wc -l < "$TMP/cmp.rows"), first: $top), $off more than 0.01 points off; one note (exit $rc)" \
	'[ $rc -eq 0 ] && [ $off -eq 0 ] && [ "$(grep -c "$NOTE" "$TMP/here.err")" -eq 1 ] &&
	 ! grep -q "^\[kernel.kallsyms\],\[unknown\]," "$TMP/here.csv"'
[ $off -eq 0 ] || cat "$TMP/cmp.rows" >&2

# another host, another kernel release, another boot: no fallback, the hint
for c in host rel boot; do
	conv $c
	expect "$n: recorded with another $c: no kernel symbol named, one hint naming --kallsyms, no note (exit $rc)" \
		'[ $rc -eq 0 ] && ! grep -q "$NOTE" "$TMP/$c.err" &&
		 [ "$(grep -c "kernel with --vmlinux FILE or --kallsyms FILE" "$TMP/$c.err")" -eq 1 ] &&
		 [ "$(grep -c "^\[kernel.kallsyms\]," "$TMP/$c.csv")" -eq 1 ] &&
		 grep -q "^\[kernel.kallsyms\],\[unknown\]," "$TMP/$c.csv"'
done
