# Reads a page of hbbp-convert report (as chromium --dump-dom writes it) and prints one line
# per number it shows, for comparison with the conversion's CSV:
#   bar CHART KEY COUNT LO HI        a bar of a mix chart (data-* attributes of <g class="bar">)
#   fn MODULE SYMBOL COUNT           a row of the hot functions table
#   insn SYMBOL COUNT                a listed instruction (in the <details> of SYMBOL)
#   js STATE                         the script's mark on <html> (ready when it ran)
# Keys are written with blanks as "_" (mnemonics such as "rep movsb").
function attr(s, name,   i, r) {
	i = index(s, " data-" name "=\"")
	if (!i) return ""
	r = substr(s, i + length(name) + 8)
	return substr(r, 1, index(r, "\"") - 1)
}
function unesc(s) {
	gsub(/&lt;/, "<", s); gsub(/&gt;/, ">", s); gsub(/&quot;/, "\"", s); gsub(/&#39;/, "'", s)
	gsub(/&#47;/, "/", s); gsub(/&amp;/, "\\&", s)
	return s
}
function key(s) { s = unesc(s); gsub(/ /, "_", s); return s == "" ? "(none)" : s }
/<html/ { print "js", (attr($0, "js") == "" ? "none" : attr($0, "js")) }
/<g class="bar"/ {
	print "bar", attr($0, "chart"), key(attr($0, "key")), attr($0, "count"), attr($0, "lo"), attr($0, "hi")
}
/<tr data-module=/ { print "fn", key(attr($0, "module")), key(attr($0, "symbol")), attr($0, "count") }
/<details/ { sym = attr($0, "symbol") }
/<tr class="insn"/ { print "insn", key(sym), attr($0, "count") }
