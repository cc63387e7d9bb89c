# Per-address instruction counts from a callgrind --dump-instr=yes profile
# ("positions: instr line"): prints "address count" (address in decimal: mawk cannot print
# 64-bit hex),
# summed over every context (run with -f hex.awk -f cg_addr.awk). Cost lines after calls= (inclusive call costs) are skipped.
/^calls=/ { skip = 1; next }
/^[a-z]+[=:]/ { next }
/^(0x[0-9a-fA-F]+|[+-][0-9]+|\*)[ \t]/ {
	a = $1
	if (a ~ /^0x/) cur = hex2num(a)
	else if (a ~ /^\+/) cur += substr(a, 2) + 0
	else if (a ~ /^-/) cur -= substr(a, 2) + 0
	if (skip) { skip = 0; next }
	n[cur] += $3
}
END { for (a in n) printf "%.0f %.0f\n", a, n[a] }
