# hex2num("0x1f") -> 31, exact up to 2^53 (mawk has no strtonum). Used with -f by other scripts.
function hex2num(s,   i, c, v) {
	v = 0
	s = tolower(s)
	sub(/^0x/, "", s)
	for (i = 1; i <= length(s); i++) {
		c = index("0123456789abcdef", substr(s, i, 1)) - 1
		v = v * 16 + c
	}
	return v
}
