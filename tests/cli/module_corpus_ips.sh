# Real recordings against their binaries, with stock perf as the oracle:
#  - every user sample IP perf attributes to the binary is an instruction start for bbmap,
#    with the same function name as perf's symbol (perf script --symfs),
#  - every LBR branch (from/to) inside the binary: `from` is a control transfer at an
#    instruction start, `to` is an instruction start.
# Non-PIE binaries only (IP = module vaddr); the bias for PIEs is the session's job.
# perf names PLT stubs "_init" (it stretches _init over .plt): those IPs are left out;
# we name them after their .eh_frame range.
. "$(dirname "$0")/../lib.sh"
DUMP=$BUILD/tools/bbmap_dump
if ! have_corpus; then skip "module_corpus_ips: corpus not found at $CORPUS"; exit 0; fi
if ! command -v perf >/dev/null; then skip "module_corpus_ips: perf not installed"; exit 0; fi

# ips RECORDING BINARY NAME: sample IPs and symbols (NAME: the recorded file's basename).
ips() {
	rec=$CORPUS/$1; bin=$CORPUS/$2
	[ -f "$rec" ] && [ -f "$bin" ] || { skip "module_corpus_ips $1: not in corpus"; return; }
	path=$(perf script -i "$rec" --show-mmap-events 2>/dev/null | grep ' r-xp /\| x /' |
		sed 's/.*: r-xp //; s/.*\]: x //' | grep -m1 "/$3\$")
	[ -n "$path" ] || { skip "module_corpus_ips $1: no mmap of the binary"; return; }
	rm -rf "$TMP/symfs"; mkdir -p "$TMP/symfs$(dirname "$path")"
	cp "$bin" "$TMP/symfs$path"
	perf script -i "$rec" --symfs "$TMP/symfs" -G -F ip,sym,dso 2>/dev/null |
		awk -v p="($path)" '$NF == p && NF == 3 && $2 != "_init" { print $1, $2 }' |
		sort -u > "$TMP/perf_ips"
	n=$(wc -l < "$TMP/perf_ips")
	[ "$n" -gt 0 ] || { fail "module_corpus_ips $1: perf gave no IPs in the binary"; return; }
	cut -d' ' -f1 "$TMP/perf_ips" | "$DUMP" "$bin" -Q | awk '$1 == "Q"' > "$TMP/ours"
	# Compare names without C++ parameter lists (perf prints "worker", we "worker()").
	paste -d' ' "$TMP/perf_ips" "$TMP/ours" | awk '
		{ ours = $5; sub(/\(.*/, "", ours); perf = $2; sub(/\(.*/, "", perf)
		  if ($6 != "ok" || ours != perf) { bad++; if (bad < 5) print "mismatch:", $0 > "/dev/stderr" } }
		END { exit bad > 0 }' && pass "module_corpus_ips $1: $n distinct sample IPs resolve to perf's symbols" ||
		fail "module_corpus_ips $1: IPs or symbols differ from perf"
}

# lbr RECORDING BINARY REGEX: branch stacks within the binary (REGEX matches its addresses).
lbr() {
	rec=$CORPUS/$1; bin=$CORPUS/$2
	[ -f "$rec" ] && [ -f "$bin" ] || { skip "module_corpus_ips $1 LBR: not in corpus"; return; }
	perf script -i "$rec" -F brstack 2>/dev/null | tr ' ' '\n' | awk -F/ -v re="$3" '
		$1 ~ re { print "F", substr($1, 3) } $2 ~ re { print "T", substr($2, 3) }' |
		sort -u > "$TMP/br"
	n=$(wc -l < "$TMP/br")
	[ "$n" -gt 0 ] || { fail "module_corpus_ips $1 LBR: no branches in the binary"; return; }
	cut -d' ' -f2 "$TMP/br" | "$DUMP" "$bin" -Q | awk '$1 == "Q"' > "$TMP/ours"
	paste -d' ' "$TMP/br" "$TMP/ours" | awk '
		$6 != "ok" || ($1 == "F" && $7 != "branch") { bad++; if (bad < 5) print "bad:", $0 > "/dev/stderr" }
		END { exit bad > 0 }' && pass "module_corpus_ips $1 LBR: $n distinct from/to addresses are instruction starts, every from a branch" ||
		fail "module_corpus_ips $1 LBR: some from/to addresses disagree"
}

ips perfparser/parallel_static_gcc__perf.data.zstd perfparser/parallel_static_gcc__parallel_static_gcc parallel_static_gcc
ips perfparser/vector_static_gcc__perf.data perfparser/vector_static_gcc__vector_static_gcc_v9.1.0 vector_static_gcc_v9.1.0
ips perfparser/fork_static_gcc__perf.data.zstd perfparser/fork_static_gcc__fork fork
ips perfparser/vector_static_clang__perf.data perfparser/vector_static_clang__vector_static_clang_v8.0.1 vector_static_clang_v8.0.1
lbr autofdo/test.lbr autofdo/test.binary '^0x40[0-9][0-9a-f][0-9a-f][0-9a-f]$'
