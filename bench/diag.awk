# Reads the stderr of `hbbp-convert --diagnostics` and prints "stacks distinct_stacks
# distinct_pct hits_pct cache streams" from its summary line
#   LBR stacks: 77319, 32861 distinct (42.5%, estimated); stack cache 51.2% hits (on); streams 123456 distinct
# Tolerant: each field is parsed on its own, "n/a" when absent (the last such line wins).
# Used by bench/real.sh. Depends on nothing else.
function num(s) { gsub(/[^0-9.]/, "", s); return s }
function val(s) { return s == "" ? "n/a" : s }
/LBR stacks:/ {
  line = $0
  if (match(line, /stacks: *[0-9]+/)) st = num(substr(line, RSTART + 7, RLENGTH - 7))
  if (match(line, /[0-9]+ distinct/)) ds = num(substr(line, RSTART, RLENGTH))
  if (match(line, /\([0-9.]+%/)) dp = num(substr(line, RSTART, RLENGTH))
  if (match(line, /[0-9.]+% hits/)) hr = num(substr(line, RSTART, RLENGTH))
  if (match(line, /hits \([a-z]+\)/)) cs = substr(line, RSTART + 6, RLENGTH - 7)
  if (match(line, /streams:? *[0-9]+ distinct/)) sd = num(substr(line, RSTART, RLENGTH))
}
END { printf "%s %s %s %s %s %s\n", val(st), val(ds), val(dp), val(hr), val(cs), val(sd) }
