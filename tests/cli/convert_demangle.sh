#!/bin/sh
# --demangle: the default (short) names C++ functions as perf report does (no parameter
# list, no template return type, no GCC clone suffix such as ".constprop.0"), full as c++filt
# does, none as mangled in the file (nm). A small C++ program is built and recorded here with
# cpu-clock; the oracles are perf report, c++filt and nm.
# Skips without perf (or when it cannot record) or a C++ compiler.
. "$(dirname "$0")/../lib.sh"

if ! command -v perf >/dev/null 2>&1 || ! command -v c++ >/dev/null 2>&1 ||
   ! command -v c++filt >/dev/null 2>&1; then
	skip "convert_demangle: perf, c++ or c++filt not installed"; exit 0
fi
cat > "$TMP/fib.cc" <<'CC'
#include <vector>
namespace ns { template <typename T> struct S {
	unsigned f(unsigned n) const { return n < 2 ? n : f(n - 1) + f(n - 2); } }; }
__attribute__((noinline)) unsigned fibonacci(unsigned n)
{ return n < 2 ? n : fibonacci(n - 1) + fibonacci(n - 2); }
template <typename T> __attribute__((noinline)) T mix(T n)
{ T r = 0; for (T i = 0; i < n; i++) r += i ^ (r >> 3); return r; }
namespace { __attribute__((noinline)) double spread(const std::vector<double> &v, int n)
{ double r = 0; for (int i = 0; i < n; i++) for (double x : v) r += x / (i + 1); return r; } }
int main() { ns::S<int> s; std::vector<double> v(1000, 1.5);
	volatile double r = fibonacci(33) + s.f(31) + mix<unsigned long>(100000000) + spread(v, 30000);
	(void)r; return 0; }
CC
if ! c++ -O1 -fipa-cp -fipa-cp-clone -o "$TMP/fib" "$TMP/fib.cc" 2>/dev/null ||
   ! perf record -q -e cpu-clock -o "$TMP/fib.data" "$TMP/fib" > /dev/null 2>&1; then
	skip "convert_demangle: cannot build or record the program"; exit 0
fi
conv() { "$HBBP" -q --ebs-event cpu-clock --module fib --by symbol "$@" "$TMP/fib.data" 2>/dev/null |
	awk 'NR > 1 { if ($0 ~ /^"/) { match($0, /^"([^"]|"")*"/); f = substr($0, 2, RLENGTH - 2)
			gsub(/""/, "\"", f); print f } else { sub(/,.*/, ""); print } }' | sort; }
conv > "$TMP/short"
conv --demangle full > "$TMP/full"
conv --demangle none > "$TMP/none"
perf report -i "$TMP/fib.data" --stdio --sort dso,sym 2>/dev/null |
	awk '$2 == "fib" { sub(/^ *[0-9.]+% +fib +\[\.\] /, ""); print }' | sort > "$TMP/perf"
c++filt < "$TMP/none" | sort > "$TMP/filt"
nm "$TMP/fib" | awk '{ print $3 }' | sort -u > "$TMP/nm"
echo "short: $(tr '\n' ' ' < "$TMP/short"); perf: $(tr '\n' ' ' < "$TMP/perf")" >&2
check "convert_demangle short (default) = perf report's names ($(wc -l < "$TMP/short") symbols)" \
	sh -c "[ -s '$TMP/short' ] && grep -qx fibonacci '$TMP/short' && grep -qx 'ns::S<int>::f' '$TMP/short' &&
		grep -qx 'mix<unsigned long>' '$TMP/short' && grep -qx '(anonymous namespace)::spread' '$TMP/short' &&
		grep -q '^_ZN12_GLOBAL__N_16spread.*[.]constprop[.]' '$TMP/nm' &&
		[ -z \"\$(comm -23 '$TMP/short' '$TMP/perf' | grep -v '^\[unknown\]$')\" ]"
check "convert_demangle full = c++filt of the mangled names" \
	sh -c "grep -qx 'fibonacci(unsigned int)' '$TMP/full' && cmp -s '$TMP/full' '$TMP/filt'"
check "convert_demangle none = the names in the file (nm)" \
	sh -c "grep -qx _Z9fibonaccij '$TMP/none' &&
		[ -z \"\$(comm -23 '$TMP/none' '$TMP/nm' | grep -v '^\[unknown\]$')\" ]"
"$HBBP" --demangle bogus "$TMP/fib.data" > /dev/null 2> "$TMP/err"
rc=$?
check "convert_demangle --demangle bogus: usage error naming the modes (exit $rc)" \
	sh -c "[ $rc -eq 1 ] && grep -q \"error: --demangle: 'bogus': short, full or none\" '$TMP/err'"
