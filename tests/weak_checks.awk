# tests/run.sh runs it over every shell test before running any.
# Prints FILE:LINE of every `check NAME ...` whose condition goes on past the check with && or
# || (the shell binds them outside check, so only the first command decides PASS).
function strip(s,    out, i, c, q) {
	out = ""; q = ""
	for (i = 1; i <= length(s); i++) {
		c = substr(s, i, 1)
		if (q == "'") { if (c == "'") q = ""; continue }
		if (q == "\"") { if (c == "\\") { i++; continue } if (c == "\"") q = ""; continue }
		if (c == "\\") { i++; continue }
		if (c == "'" || c == "\"") { q = c; continue }
		if (c == "#" && (i == 1 || substr(s, i - 1, 1) ~ /[ \t]/)) break
		out = out c
	}
	return out
}
{
	line = $0
	if (cont) { buf = buf " " line } else { buf = line; start = FNR }
	s = strip(buf)
	cont = (line ~ /\\$/ || s ~ /(&&|\|\|)[ \t]*$/)
	if (cont) next
	if (s ~ /^[ \t]*(if[ \t]+!?[ \t]*)?check[ \t]/ && s ~ /&&|\|\|/) print FILENAME ":" start ": " substr(buf, 1, 100)
}
