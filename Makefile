# hbbp-convert: perf.data -> HBBP basic-block counts -> instruction-mix tables.
#
#   make              build ./hbbp-convert and ./pmusim
#   make check        the everyday tests: unit, round-trip, golden CLI, corpus and malformed input
#   make check-slow   the slow tier: fuzz and ThreadSanitizer builds, simulator accuracy
#                     campaigns, bench smoke tests (scripts with "# tier: slow"; CI runs both)
#   make SAN=address,undefined check   the same under sanitizers (separate build dir)
#   make fuzz         build the libFuzzer targets of tests/fuzz (clang)
#   make bench        conversion benchmark on realistic recordings against perf script and
#                     perf2bolt (bench/real.sh; BENCH_DIR=, BENCH_REAL="cc1 sqlite ...")
#   make bench-tiled  the best case: tiled recordings against perf and cat (bench/run.sh)
#   make install PREFIX=/usr/local DESTDIR=   (make uninstall with the same removes it)
#   V=1               show the commands

CC      ?= cc
CFLAGS  ?= -O3 -g
PREFIX  ?= /usr/local
PKGS    := libelf libdw capstone libzstd libtraceevent sqlite3
# libpq: its header only; writers/pg_writer.c loads the library when it is used (dlopen)
HDR_PKGS := libpq
# Debian package providing each pkg-config module, for the error message.
deb_libelf := libelf-dev
deb_libdw := libdw-dev
deb_capstone := libcapstone-dev
deb_libzstd := libzstd-dev
deb_libtraceevent := libtraceevent-dev
deb_sqlite3 := libsqlite3-dev
deb_libpq := libpq-dev

# Zydis (x86 decoding) ships neither a pkg-config file nor a static archive in Debian 12:
# found by its header, linked shared (-lZydis -lZycore) in every build.
deb_zydis := libzydis-dev

ifneq ($(filter-out clean deps check check-slow demo uninstall,$(or $(MAKECMDGOALS),all)),)
missing := $(strip $(foreach p,$(PKGS) $(HDR_PKGS),$(if $(shell pkg-config --exists $(p) && echo y),,$(p))))
missing += $(if $(shell echo '\#include <Zydis/Zydis.h>' | $(CC) -E -x c - >/dev/null 2>&1 && echo y),,zydis)
missing := $(strip $(missing))
ifneq ($(missing),)
$(error missing libraries: $(missing); install them with: apt-get install pkg-config $(foreach p,$(missing),$(deb_$(p))))
endif
endif

PKG_CFLAGS := $(shell pkg-config --cflags $(PKGS) $(HDR_PKGS) 2>/dev/null)
PKG_LIBS   := $(shell pkg-config --libs $(PKGS) 2>/dev/null)

WARN     := -Wall -Wextra -Wformat=2 -Wno-unused-parameter -Wshadow -Wstrict-prototypes
BASE     := -std=gnu11 -D_FILE_OFFSET_BITS=64 -D_GNU_SOURCE -I. -MMD -MP
ifdef WERROR
WARN += -Werror
endif
ifdef SAN
SANFLAGS := -fsanitize=$(SAN) -fno-omit-frame-pointer -fno-sanitize-recover=all
BUILD    := build/san
else
BUILD    := build/rel
endif
# The release build is optimised across files at link time (LTO=0: not): the hash maps' and
# the decoders' small functions are inlined into the loops of the pass that call them. On a
# 100 MiB recording of cc1 (cachegrind), -O3 and LTO run 9.6% fewer instructions than -O2
# (-O3 alone 4.5%); the outputs are the same byte for byte.
LTO ?= 1
ifeq ($(LTO)$(SAN),1)
LTOFLAGS := -flto=auto
endif
ALL_CFLAGS := $(BASE) $(WARN) $(CFLAGS) $(SANFLAGS) $(LTOFLAGS) $(PKG_CFLAGS)
ALL_LDFLAGS := $(LDFLAGS) $(SANFLAGS) $(if $(LTOFLAGS),$(LTOFLAGS) $(CFLAGS) $(WARN))
ZYDIS_LIBS := -lZydis -lZycore
LIBS := $(PKG_LIBS) $(ZYDIS_LIBS) -lm

# The release build links the libraries from their static archives (Debian's -dev packages
# ship them), into a non-PIE executable: the dynamic loader would otherwise apply some 80,000
# relocations (capstone's tables) at every start, 7 ms of a 4 ms start. libc, libm and Zydis
# (no static archive in Debian) stay shared. STATIC=0, a sanitizer build, or a missing archive: the shared libraries.
STATIC ?= 1
ifeq ($(STATIC)$(SAN),1)
STATIC_LIBS := $(filter-out -lm -lpthread -pthread,$(shell pkg-config --static --libs $(PKGS) 2>/dev/null))
STATIC_MISSING := $(strip $(foreach l,$(sort $(STATIC_LIBS:-l%=%)),$(if $(filter /%,$(shell $(CC) -print-file-name=lib$(l).a)),,$(l))))
ifeq ($(STATIC_MISSING),)
ALL_LDFLAGS += -no-pie
LIBS := -Wl,-Bstatic -Wl,--start-group $(STATIC_LIBS) -Wl,--end-group -Wl,-Bdynamic \
	$(ZYDIS_LIBS) -lm -pthread
endif
endif

ifeq ($(V),1)
Q :=
msg = @true
else
Q := @
msg = @printf '  %-7s %s\n' $(1) $(2)
endif

LIB_SRCS := $(wildcard util/*.c reader/*.c bbmap/*.c writers/*.c) \
            $(filter-out hbbp/cli/main.c,$(wildcard hbbp/*/*.c))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/%.o)
LIB      := $(BUILD)/libhbbp.a
SIM_SRCS := $(wildcard samples/pmusim/*.c)
SIM_OBJS := $(SIM_SRCS:%.c=$(BUILD)/%.o)
# The perf.data writer of the simulator, the test tools and the round-trip tests: outside the
# library, which only reads perf.data.
PW_OBJS  := $(patsubst %.c,$(BUILD)/%.o,$(wildcard samples/perfwrite/*.c))
PW_LIB   := $(BUILD)/libperfwrite.a
TEST_SRCS := $(wildcard tests/unit/test_*.c)
TEST_BINS := $(TEST_SRCS:tests/unit/%.c=$(BUILD)/tests/%)
TEST_HELPER_SRCS := $(wildcard tests/unit/helper_*.c)
TEST_HELPER_OBJS := $(TEST_HELPER_SRCS:%.c=$(BUILD)/%.o)
TOOLS_SRCS := $(wildcard tests/tools/*.c)
TOOLS_BINS := $(TOOLS_SRCS:tests/tools/%.c=$(BUILD)/tools/%)

ifdef SAN
PROGS := $(BUILD)/hbbp-convert $(if $(SIM_SRCS),$(BUILD)/pmusim)
else
PROGS := hbbp-convert $(if $(SIM_SRCS),pmusim)
endif

.SECONDARY:
.PHONY: FORCE all check check-slow check-build check-run deps demo clean install uninstall fuzz bench bench-real bench-tiled accuracy update-golden san-corpus objdump-big
all: $(PROGS)

# The release: `git describe` of the checkout, else the VERSION file of a source tarball.
VERSION := $(or $(shell git describe --tags --always --dirty 2>/dev/null),$(shell cat VERSION 2>/dev/null),unknown)
$(BUILD)/hbbp/cli/version.o: ALL_CFLAGS += -DHBBP_VERSION='"$(VERSION)"'
$(BUILD)/hbbp/cli/version.o: $(BUILD)/version.txt
$(BUILD)/version.txt: FORCE
	@mkdir -p $(dir $@)
	@echo '$(VERSION)' | cmp -s - $@ || echo '$(VERSION)' > $@
FORCE:
# The objects are made again when the flags change (CFLAGS=, LTO=, WERROR=, the libraries
# found): a build never mixes objects made with different flags.
$(BUILD)/flags.txt: FORCE
	@mkdir -p $(dir $@)
	@echo '$(ALL_CFLAGS) | $(ALL_LDFLAGS) | $(LIBS)' | cmp -s - $@ || \
		echo '$(ALL_CFLAGS) | $(ALL_LDFLAGS) | $(LIBS)' > $@

$(BUILD)/%.o: %.c $(BUILD)/flags.txt
	$(call msg,CC,$<)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(PW_LIB): $(PW_OBJS)
	$(call msg,AR,$@)
	$(Q)rm -f $@ && ar rcs $@ $^

$(BUILD)/hbbp-convert: $(BUILD)/hbbp/cli/main.o $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/pmusim: $(SIM_OBJS) $(PW_LIB) $(LIB)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

# copied then renamed: a test still running the previous binary does not stop the copy
hbbp-convert pmusim: %: $(BUILD)/%
	$(Q)cp $< $@.tmp && mv -f $@.tmp $@

$(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(TEST_HELPER_OBJS) $(PW_LIB) $(LIB)
	$(call msg,LINK,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/tools/%: $(BUILD)/tests/tools/%.o $(PW_LIB) $(LIB)
	$(call msg,LINK,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

# LD_PRELOAD I/O fault shim of the writer tests (no sanitizers: it is preloaded).
$(BUILD)/shim/faultshim.so: tests/shim/faultshim.c
	$(call msg,CC,$@)
	@mkdir -p $(dir $@)
	$(Q)$(CC) -O2 -g -fPIC -shared $(WARN) -o $@ $< -ldl

check-build: $(PROGS) $(TEST_BINS) $(TOOLS_BINS) $(BUILD)/shim/faultshim.so

deps:
	@sh tests/deps.sh check

# demo installs what the build needs (as root), builds, and converts the bundled recording.
demo:
	@sh tests/deps.sh build
	@$(MAKE) --no-print-directory hbbp-convert
	./hbbp-convert --binary vector=samples/demo/vector --by symbol,mnemonic,isa --top 15 \
		samples/demo/perf.data

# check installs what is missing (as root), builds, then runs the everyday tier of tests;
# check-slow the same for the slow tier (tests/run.sh: TIER=, ONLY=).
check: deps
	@$(MAKE) --no-print-directory check-build
	@$(MAKE) --no-print-directory check-run

check-slow: deps
	@$(MAKE) --no-print-directory check-build
	@$(MAKE) --no-print-directory check-run TIER=slow

check-run:
	@BUILD=$(BUILD) HBBP=$(firstword $(PROGS)) TIER=$(TIER) sh tests/run.sh

fuzz:
	$(MAKE) -C tests/fuzz

# The sanitizer build over the whole real corpus (tests/san_corpus.sh); minutes, not in check.
san-corpus:
	@$(MAKE) --no-print-directory SAN=address,undefined all
	@sh tests/san_corpus.sh build/san/hbbp-convert

# disasm against objdump over whole large binaries (tests/objdump_big.sh; BIG_ELF=FILE... to
# choose them); minutes each, not in check.
objdump-big: $(PROGS)
	@HBBP=$(firstword $(PROGS)) sh tests/objdump_big.sh $(BIG_ELF)

# Realistic recordings (the simulator running cc1, sqlite3, python3; many-process and
# many-thread mixes; 4 GiB ones) made once into $BENCH_DIR (default build/bench-real: 20 GiB,
# about ten minutes the first time), timed against perf script and perf2bolt, then the
# comparisons of two files side by side (bench/pairs.sh: 10,000 against 3 processes, RSS
# against the input's size); writes bench/RESULTS.md (see bench/real.sh). BENCH_REAL="cc1
# mix3" runs a subset, BENCH_PAIRS=0 skips the comparisons.
bench bench-real: $(PROGS) $(BUILD)/tools/benchgen
	@BUILD=$(BUILD) HBBP=$(firstword $(PROGS)) PMUSIM=$(word 2,$(PROGS)) sh bench/real.sh

# The best case: recordings tiled from five short runs (nearly every stack repeats) into
# build/bench, against perf script, perf report and cat; writes bench/RESULTS-tiled.md.
bench-tiled: $(PROGS) $(BUILD)/tools/benchgen
	@BUILD=$(BUILD) HBBP=$(firstword $(PROGS)) PMUSIM=$(word 2,$(PROGS)) sh bench/run.sh

# install: the converter and its manual page; the simulator (a test and training tool) as
# hbbp-pmusim, never under a generic name. uninstall removes exactly what install put.
MANDIR ?= $(PREFIX)/share/man
INSTALLED := $(DESTDIR)$(PREFIX)/bin/hbbp-convert $(DESTDIR)$(MANDIR)/man1/hbbp-convert.1 \
	     $(if $(SIM_SRCS),$(DESTDIR)$(PREFIX)/bin/hbbp-pmusim)
install: hbbp-convert $(if $(SIM_SRCS),pmusim)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(MANDIR)/man1
	install -m 755 hbbp-convert $(DESTDIR)$(PREFIX)/bin/hbbp-convert
	install -m 644 man/hbbp-convert.1 $(DESTDIR)$(MANDIR)/man1/hbbp-convert.1
	$(if $(SIM_SRCS),install -m 755 pmusim $(DESTDIR)$(PREFIX)/bin/hbbp-pmusim)

uninstall:
	rm -f $(INSTALLED)

clean:
	rm -rf build hbbp-convert pmusim

-include $(shell find build -name '*.d' 2>/dev/null)

# The paper's experiment on the simulator (bench/accuracy.sh): writes bench/ACCURACY.md.
accuracy: all
	bench/accuracy.sh -o bench/ACCURACY.md
