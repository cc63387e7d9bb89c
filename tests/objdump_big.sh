#!/bin/sh
# Instruction starts of `hbbp-convert disasm` against `objdump -d -z -M intel` over whole large
# x86-64 binaries (minutes each, so not in `make check`; `make objdump-big`). By default:
# libLLVM-15, chromium, and the largest x86-64 ELF file under /usr and /opt; or the files
# given as arguments. Both listings stream through FIFOs into tests/od_stream.awk (nothing
# held on disk), which sorts every difference into a known cause (an FDE start objdump
# decodes across, ignored REX prefixes, fwait joined to the next x87 instruction, bytes one
# side cannot decode) shown on real bytes by tests/cli/disasm_objdump_resync.sh; a binary
# passes when none is unexplained. Prints one PASS/FAIL/SKIP line per binary with the counts.
HBBP=${HBBP:-./hbbp-convert}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export LC_ALL=C
for t in objdump readelf awk mkfifo; do
	command -v $t >/dev/null 2>&1 || { echo "SKIP objdump_big: $t not installed"; exit 0; }
done
TMP=$(mktemp -d "${TMPDIR:-/tmp}/hbbp-big.XXXXXX")
trap 'rm -rf "$TMP"' EXIT

is_x86_64_elf() {
	case $(od -An -tx1 -N20 "$1" 2>/dev/null | tr -d ' \n') in
	7f454c46020101*3e00) true ;;
	*) false ;;
	esac
}

largest() {
	find /usr /opt -xdev -type f -size +50M 2>/dev/null | while read -r f; do
		is_x86_64_elf "$f" && echo "$(wc -c < "$f") $f"
	done | sort -n | tail -1 | cut -d' ' -f2-
}

if [ $# = 0 ]; then
	big=$(largest)
	set -- /usr/lib/x86_64-linux-gnu/libLLVM-15.so.1 /usr/lib/chromium/chromium
	[ -n "$big" ] && set -- "$@" "$big"
fi
for bin in "$@"; do
	if [ ! -f "$bin" ]; then echo "SKIP objdump_big $bin: not on this machine"; continue; fi
	readelf --debug-dump=frames "$bin" 2>/dev/null |
		sed -n 's/.* FDE .*pc=0*\([0-9a-f]*\)\.\..*/\1/p' | sort -u > "$TMP/fde.unsorted"
	# od_stream.awk compares hex without leading zeros: shorter is smaller
	awk '{ print length($0), $0 }' "$TMP/fde.unsorted" | sort -k1,1n -k2,2 | cut -d' ' -f2 \
		> "$TMP/fde"
	rm -f "$TMP/od" "$TMP/us"
	mkfifo "$TMP/od" "$TMP/us"
	t0=$(date +%s)
	objdump -d -z -M intel --no-show-raw-insn "$bin" > "$TMP/od" 2>"$TMP/od.err" &
	{ "$HBBP" disasm -f csv "$bin" 2>"$TMP/us.err"; echo $? > "$TMP/us.rc"; } |
		cut -d, -f1-3 > "$TMP/us" &
	res=$(awk -v OD="$TMP/od" -v US="$TMP/us" -v FDE="$TMP/fde" -f "$ROOT/tests/od_stream.awk")
	wait
	t1=$(date +%s)
	last=$(echo "$res" | tail -1)
	nod=$(echo "$last" | awk '$1 == "starts" { print $2 }')
	unexpl=$(echo "$last" | awk '$1 == "starts" { print $19 }')
	size=$(wc -c < "$bin")
	if [ "$(cat "$TMP/us.rc")" = 0 ] && [ "$unexpl" = 0 ] && [ "${nod:-0}" -gt 0 ]; then
		echo "PASS objdump_big $bin ($size bytes, $((t1 - t0)) s): $last"
	else
		echo "FAIL objdump_big $bin: $last; disasm: $(tail -1 "$TMP/us.err")"
		echo "$res" | head -20 >&2
	fi
	echo "  disasm: $(tail -1 "$TMP/us.err")"
done
