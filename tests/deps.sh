#!/bin/sh
# Installs the Debian packages hbbp-convert needs to build and test, when they are missing.
# As root it runs apt-get; otherwise it prints the exact apt-get line and fails.
# Usage: tests/deps.sh [build|check]   (default: check, which also installs test tools)
need=${1:-check}
pkgs=""
for pc in libelf:libelf-dev libdw:libdw-dev capstone:libcapstone-dev libzstd:libzstd-dev \
	  libtraceevent:libtraceevent-dev sqlite3:libsqlite3-dev libpq:libpq-dev; do
	mod=${pc%%:*} deb=${pc#*:}
	pkg-config --exists "$mod" 2>/dev/null || pkgs="$pkgs $deb"
done
# Zydis (x86 decoding) has no pkg-config file in Debian 12: found by its package
dpkg-query -W -f='${Status}' libzydis-dev 2>/dev/null | grep -q 'ok installed' ||
	pkgs="$pkgs libzydis-dev"
# libdw's static archive needs libbz2's: without it the binary links the shared libraries
dpkg-query -W -f='${Status}' libbz2-dev 2>/dev/null | grep -q 'ok installed' ||
	pkgs="$pkgs libbz2-dev"
command -v pkg-config >/dev/null || pkgs="$pkgs pkg-config"
command -v cc >/dev/null || pkgs="$pkgs gcc"
command -v make >/dev/null || pkgs="$pkgs make"
if [ "$need" = check ]; then
	command -v objdump >/dev/null || pkgs="$pkgs binutils"
	command -v sqlite3 >/dev/null || pkgs="$pkgs sqlite3"
	command -v qemu-x86_64 >/dev/null || pkgs="$pkgs qemu-user"
	command -v valgrind >/dev/null || pkgs="$pkgs valgrind"
	command -v perf >/dev/null || pkgs="$pkgs linux-perf"
	command -v zstd >/dev/null || pkgs="$pkgs zstd"
	command -v jq >/dev/null || pkgs="$pkgs jq"
	command -v strace >/dev/null || pkgs="$pkgs strace"	# a file read once
	command -v g++ >/dev/null || pkgs="$pkgs g++"		# C++ names as perf shows them
	command -v python3 >/dev/null || pkgs="$pkgs python3"	# recordings edited in tests
	command -v aarch64-linux-gnu-objdump >/dev/null || pkgs="$pkgs binutils-aarch64-linux-gnu"
	# headless rendering of the HTML report (tests/cli/report.sh)
	command -v chromium >/dev/null || pkgs="$pkgs chromium"
	# make fuzz (tests/cli/fuzz_build.sh): clang with its libFuzzer runtime
	command -v clang >/dev/null || pkgs="$pkgs clang"
	dpkg-query -W -f='${Status}' libclang-rt-dev 2>/dev/null | grep -q 'ok installed' ||
		pkgs="$pkgs libclang-rt-dev"
	# tests/cli/store_pg.sh starts its own server (initdb, pg_ctl) from these binaries
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || pkgs="$pkgs postgresql"
fi
[ -z "$pkgs" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "missing Debian packages; install them with:" >&2
	echo "  sudo apt-get install -y$pkgs" >&2
	exit 1
fi
echo "installing:$pkgs" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh machine has no package lists yet.
if ! apt-get install -y -qq $pkgs >/dev/null 2>&1; then
	apt-get update -qq && apt-get install -y -qq $pkgs >/dev/null || exit 1
fi
