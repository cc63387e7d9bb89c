#!/bin/sh
# `make install PREFIX DESTDIR` puts the converter, its manual page and the simulator under
# a project name (hbbp-pmusim), nothing with a generic name; `make uninstall` with the same
# variables leaves no file behind. The manual page renders with `man -l` without groff
# warnings and names every long option of `hbbp-convert --help` and every command.
. "$(dirname "$0")/../lib.sh"

D=$TMP/dest
make -s -C "$ROOT" install DESTDIR="$D" PREFIX=/usr > "$TMP/inst.log" 2>&1
rc=$?
(cd "$D" && find . -type f | sort) > "$TMP/files"
check "install_man: make install puts bin/hbbp-convert and man1/hbbp-convert.1 (exit $rc)" \
	sh -c "[ $rc -eq 0 ] && grep -qx './usr/bin/hbbp-convert' '$TMP/files' &&
		grep -qx './usr/share/man/man1/hbbp-convert.1' '$TMP/files' &&
		! grep -qx './usr/bin/pmusim' '$TMP/files' &&
		! grep -v -e '/hbbp-convert' -e '/hbbp-pmusim' '$TMP/files' | grep -q ."
make -s -C "$ROOT" uninstall DESTDIR="$D" PREFIX=/usr > "$TMP/un.log" 2>&1
rc=$?
left=$(find "$D" -type f | wc -l)
check "install_man: make uninstall leaves no file ($left left, exit $rc)" sh -c "[ $rc -eq 0 ] && [ $left -eq 0 ]"

M=$ROOT/man/hbbp-convert.1
if command -v man >/dev/null 2>&1; then
	MANWIDTH=100 man -l "$M" > "$TMP/man.txt" 2> "$TMP/man.err"
	rc=$?
	check "install_man: man -l renders it, no warning (exit $rc)" \
		sh -c "[ $rc -eq 0 ] && [ ! -s '$TMP/man.err' ] && grep -q 'EXIT STATUS' '$TMP/man.txt' &&
			grep -q 'EXAMPLES' '$TMP/man.txt' && grep -q 'FILES' '$TMP/man.txt'"
else
	skip "install_man: man not installed"
	sed 's/\\-/-/g' "$M" > "$TMP/man.txt"
fi
if command -v groff >/dev/null 2>&1; then
	groff -man -ww -z "$M" 2> "$TMP/groff.err"
	check "install_man: groff -ww finds nothing to warn about" [ ! -s "$TMP/groff.err" ]
fi
"$HBBP" --help | grep -o -- '--[a-z][a-z-]*' | sort -u > "$TMP/opts"
missing=
for o in $(cat "$TMP/opts"); do grep -q -- "$o" "$TMP/man.txt" || missing="$missing $o"; done
for c in compare train dump stats disasm help; do grep -q "hbbp-convert $c" "$TMP/man.txt" || missing="$missing $c"; done
check "install_man: every --help option and command is in the manual ($(wc -l < "$TMP/opts") options; missing:${missing:- none})" \
	[ -z "$missing" ]
