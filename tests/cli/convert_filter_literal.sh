#!/bin/sh
# A filter element equal to a name matches it even where it has glob characters: perf calls
# the kernel '[kernel.kallsyms]', and `--module '[kernel.kallsyms]'` keeps its samples (as a
# glob it would be one character of that set). The corpus's kernel-only recording, by module:
# the filtered row equals the unfiltered one, with no "matched no sample" warning.
. "$(dirname "$0")/../lib.sh"

F=$CORPUS/autofdo/perf-kernel.data
if [ ! -f "$F" ]; then skip "convert_filter_literal: $F absent (the corpus)"; exit 0; fi
"$HBBP" --by module -o "$TMP/all.csv" "$F" 2> /dev/null
"$HBBP" --by module --module '[kernel.kallsyms]' -o "$TMP/k.csv" "$F" 2> "$TMP/k.err"
rc=$?
expect "convert_filter_literal: --module '[kernel.kallsyms]' keeps the kernel's row (exit $rc)" \
	'[ $rc -eq 0 ] && grep -q "^\[kernel.kallsyms\],[1-9]" "$TMP/k.csv" &&
	 [ "$(grep "^\[kernel.kallsyms\]," "$TMP/k.csv")" = \
	   "$(grep "^\[kernel.kallsyms\]," "$TMP/all.csv")" ] &&
	 ! grep -q "matched no sample" "$TMP/k.err"' || cat "$TMP/k.err" >&2
