#!/bin/sh
# The option table (hbbp/cli/options.c, printed by `help --list-options`) against the manual
# and the commands: the manual's OPTIONS and COMMANDS sections list the same options under
# the same headings (.SS, one .TP per option, with its other long name: --by, --sort); every
# command accepts every option the table gives it, by each of its names (parsed before
# --help answers) and refuses the options of other commands; a bad number or choice is exit
# 1 with one line naming the option; and the conversion options do the same in convert,
# annotate, report and diff (each run here with an option that changes the demo's counts,
# against the conversion's own numbers, or that leaves no row: exit 4 from each).
. "$(dirname "$0")/../lib.sh"

M=$ROOT/man/hbbp-convert.1
D=$ROOT/samples/demo/perf.data
V=$ROOT/samples/demo/vector

"$HBBP" help --list-options > "$TMP/table" 2> "$TMP/err"
rc=$?
expect "options_table: help --list-options lists the table (exit $rc, $(wc -l < "$TMP/table") rows)" \
	'[ $rc -eq 0 ] && [ ! -s "$TMP/err" ] && [ $(wc -l < "$TMP/table") -ge 40 ]'

# the options of the conversion's sections are taken alike by convert, annotate, report, diff
awk -F'\t' '$1 ~ /^(Filters|Method|Binaries|Execution)$/ && $2 !~ /--version/ &&
	$4 !~ /^convert,annotate,report,diff(,|$)/ { print $2 }' "$TMP/table" > "$TMP/partial"
expect "options_table: every filter, method, binaries and execution option is taken by convert, annotate, report and diff (not:$(tr '\n' ' ' < "$TMP/partial"))" \
	'[ ! -s "$TMP/partial" ] && grep -q "^Binaries	--demangle	" "$TMP/table"'

# ---- the manual: "SECTION -s --long" for each .TP header under OPTIONS and COMMANDS ----
awk '/^\.SH / { sh = $2; ss = ""; next }
	/^\.SS / { ss = $2; next }
	/^\.TP/ { tp = 1; next }
	tp && (sh == "OPTIONS" || sh == "COMMANDS") {
		tp = 0; h = $0; gsub(/\\-/, "-", h); gsub(/\\f[A-Z]/, " ", h); gsub(/"/, " ", h)
		s = ""; l = ""
		n = split(h, w, /[ ,]+/)
		for (i = 1; i <= n; i++) {
			if (w[i] ~ /^--[a-z][a-z-]*$/) l = (l == "" ? "" : l " ") w[i]
			else if (s == "" && l == "" && w[i] ~ /^-[A-Za-z]$/) s = w[i]
		}
		if (l != "") print ss " " (s != "" ? s " " : "") l
		next }
	{ tp = 0 }' "$M" | sort > "$TMP/man.opts"
awk -F'\t' '{ print $1 " " $2 }' "$TMP/table" | sort > "$TMP/table.opts"
diff "$TMP/table.opts" "$TMP/man.opts" > "$TMP/man.diff"
expect "options_table: the manual lists the table's $(wc -l < "$TMP/table.opts") options under its headings ($(grep -c '^[<>]' "$TMP/man.diff") differ)" \
	'[ -s "$TMP/man.opts" ] && [ ! -s "$TMP/man.diff" ]' || cat "$TMP/man.diff" >&2

# ---- every command takes its options, and only those ----
printf 'hbbp-model 1\ncutoff 5\n' > "$TMP/m.model"
value() { # OPTION ARG: a value the option takes
	case $1:$2 in
	--model:*) echo "$TMP/m.model" ;;
	*:M) echo ebs ;; *:MODE) echo full ;; *:time\|plain) echo plain ;; *:threads,lines) echo threads ;;
	*:text\|csv) echo csv ;; *:absolute\|relative) echo relative ;; *:count\|cycles) echo cycles ;; *:FMT) echo json ;; *:SIZE) echo 1M ;; *:KEYS) echo mnemonic ;;
	*:NAME=PATH) echo "x=$V" ;; *:DIR) echo / ;; *:N|*:LIST) echo 1 ;; *) echo x ;;
	esac
}
run_cmd() { # COMMAND ARGS...: hbbp-convert [COMMAND] ARGS
	c=$1; shift
	if [ "$c" = convert ]; then "$HBBP" "$@"; else "$HBBP" "$c" "$@"; fi
}
cmds="convert annotate report diff compare train dump stats disasm"
awk -F'\t' '{ n = split($4, c, ","); m = split($2, w, " ")
	for (i = 1; i <= n; i++) for (j = 1; j <= m; j++) if (w[j] ~ /^--/) print c[i], w[j] }' \
	"$TMP/table" > "$TMP/pairs"
bad=
n=0
while IFS='	' read -r sect names arg takers; do
	long=${names##* }
	for c in $cmds; do
		case ,$takers, in
		*,$c,*)
			n=$((n + 1))
			if [ -n "$arg" ]; then set -- "$long" "$(value "$long" "$arg")"; else set -- "$long"; fi
			run_cmd "$c" "$@" --help > "$TMP/out" 2> "$TMP/err"
			rc=$?
			want='^usage: hbbp-convert'
			[ "$long" = --version ] && want='^hbbp-convert [0-9a-z]'
			[ $rc -eq 0 ] && grep -q "$want" "$TMP/out" && [ ! -s "$TMP/err" ] ||
				bad="$bad $c:$long($rc)"
			if [ "${names% *}" != "$long" ]; then	# the short name too
				short=${names% *}
				if [ -n "$arg" ]; then set -- "$short" "$(value "$long" "$arg")"; else set -- "$short"; fi
				run_cmd "$c" "$@" --help > "$TMP/out" 2> "$TMP/err" || bad="$bad $c:$short"
			fi ;;
		*)	# an option of other commands only: refused, one line naming it
			grep -qx "$c $long" "$TMP/pairs" && continue
			run_cmd "$c" "$long" x y > "$TMP/out" 2> "$TMP/err"
			rc=$?
			[ $rc -eq 1 ] && [ $(wc -l < "$TMP/err") -eq 1 ] &&
				grep -q "unknown option '$long'" "$TMP/err" || bad="$bad !$c:$long($rc)" ;;
		esac
	done
done < "$TMP/table"
expect "options_table: every command takes its $n options and refuses the others'${bad:+ (wrong:$bad)}" \
	'[ $n -ge 100 ] && [ -z "$bad" ]'

# ---- a bad number or choice: exit 1, one line naming the option ----
bad=
n=0
while IFS='	' read -r sect names arg takers; do
	long=${names##* }
	case $arg in N|M|MODE|FMT|SIZE|time\|plain|text\|csv) ;; *) continue ;; esac
	c=${takers%%,*}
	n=$((n + 1))
	run_cmd "$c" "$long" bogus x y > "$TMP/out" 2> "$TMP/err"
	rc=$?
	[ $rc -eq 1 ] && [ $(wc -l < "$TMP/err") -eq 1 ] && grep -q -- "error: .*$long.*bogus" "$TMP/err" &&
		[ ! -s "$TMP/out" ] || bad="$bad $c:$long($rc)"
done < "$TMP/table"
run_cmd convert --pid abc "$D" > "$TMP/out" 2> "$TMP/err"
rc=$?
[ $rc -eq 1 ] && [ $(wc -l < "$TMP/err") -eq 1 ] || bad="$bad --pid($rc)"
expect "options_table: $n bad numbers and choices, and a bad --pid, are one line and exit 1${bad:+ (wrong:$bad)}" \
	'[ $n -ge 15 ] && [ -z "$bad" ]'

# ---- the conversion options do the same in convert, annotate, report and diff ----
B="--binary vector=$V"
K=module,symbol,mnemonic
mix() { # OUT OPTIONS...: convert's rows as "keys count", sorted
	out=$1; shift
	"$HBBP" -q $B --by $K "$@" -o "$TMP/mix.csv" "$D" 2>/dev/null &&
		awk -F, 'NR > 1 { print $1 "," $2 "," $3, $4 }' "$TMP/mix.csv" | sort > "$out"
}
same() { # A B: the same keys, counts within the text outputs' rounding
	awk 'NR == FNR { c[$1] = $2; n++; next }
		{ if (!($1 in c)) exit 1; d = c[$1] - $2; if (d < 0) d = -d
		  m = $2 < 0 ? -$2 : $2; if (d > 0.5 + 1e-9 * m) exit 1; k++ }
		END { exit !(k == n) }' "$1" "$2"
}
near() { # A B SLACK: |A - B| <= SLACK + 1e-9 B
	awk -v a="$1" -v b="$2" -v s="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= s + 1e-9 * b) }'
}
mix "$TMP/default" || fail "options_table: the demo does not convert"
# (the demo's one process and module: a filter selects all of it or nothing; annotate's
# listing counts every thread, whatever --comm, --pid, --user-only and --kernel-only say)
dmain=$(awk '$1 ~ /^vector,main,/ { s += $2 } END { printf "%.17g", s }' "$TMP/default")
for opts in "--cutoff 5" "--method ebs" "--method lbr" "--symbol main" "--symbol ma*,x" \
	"--module nomod" "--comm nocomm" "--pid 1" "--kernel-only" "--model $TMP/m.model"; do
	case $opts in --module*|--comm*|--pid*|--kernel-only)	# no row: exit 4 from each
		want_a=0	# annotate's listing takes --module only
		case $opts in --module*) want_a=4 ;; esac
		"$HBBP" -q $B --by $K $opts -o "$TMP/e.csv" "$D" 2> /dev/null
		rc_c=$?
		"$HBBP" diff -q $B $opts "$D" "$D" > /dev/null 2>&1
		rc_d=$?
		"$HBBP" report -q $B $opts -o "$TMP/e.html" "$D" 2> /dev/null
		rc_r=$?
		"$HBBP" annotate -q -f csv $B --symbol main $opts "$D" > "$TMP/ann.csv" 2> /dev/null
		rc_a=$?
		at=$(awk -F, 'NR > 1 { s += $4 } END { printf "%.17g", s }' "$TMP/ann.csv")
		[ $want_a = 4 ] && at=$dmain
		expect "options_table: $opts: no row: convert, diff, report exit 4 ($rc_c $rc_d $rc_r), annotate $want_a (exit $rc_a, main $at: $dmain)" \
			'[ "$rc_c $rc_d $rc_r $rc_a" = "4 4 4 $want_a" ] && [ ! -e "$TMP/e.csv" ] &&
			 [ ! -e "$TMP/e.html" ] && near "$at" "$dmain" 30'
		continue ;;
	esac
	mix "$TMP/conv" $opts
	"$HBBP" diff -q -f csv $B --by $K $opts "$D" "$D" > "$TMP/diff.csv" 2>/dev/null
	awk -F, 'NR > 1 { print $1 "," $2 "," $3, $4 }' "$TMP/diff.csv" | sort > "$TMP/diff"
	"$HBBP" report -q $B $opts -o "$TMP/r.html" "$D" 2>/dev/null
	rt=$(grep -o 'data-total="[^"]*"' "$TMP/r.html" | head -n 1 | cut -d'"' -f2)
	[ -n "$rt" ] || rt=none
	ct=$(awk '{ s += $2 } END { printf "%.17g", s }' "$TMP/conv")
	case $opts in --symbol*) sym= ;; *) sym="--symbol main" ;; esac
	"$HBBP" annotate -q -f csv $B $sym $opts "$D" > "$TMP/ann.csv" 2>"$TMP/ann.err"
	at=$(awk -F, 'NR > 1 { s += $4 } END { printf "%.17g", s }' "$TMP/ann.csv")
	mt=$(awk '$1 ~ /^vector,main,/ { s += $2 } END { printf "%.17g", s }' "$TMP/conv")
	case $opts in --comm*|--pid*|--user-only|--kernel-only)
		grep -q 'do not apply to the listing' "$TMP/ann.err" && mt=$dmain ;;
	esac
	expect "options_table: $opts: changes convert's mix ($(wc -l < "$TMP/conv") rows, total $ct); diff the same rows, report the total ($rt), annotate main's count ($mt: $at)" \
		'! cmp -s "$TMP/default" "$TMP/conv" && same "$TMP/conv" "$TMP/diff" &&
		 [ $(wc -l < "$TMP/diff") -eq $(wc -l < "$TMP/conv") ] &&
		 near "$rt" "$ct" "$(wc -l < "$TMP/conv")" && near "$at" "$mt" 30'
done
