# corestack: top-level build.  `make` builds build/corestack; `make check` runs the test suite;
# `make demo` crashes an example program and prints its backtrace; `make deps` installs the
# Debian packages the build and the tests need.
#
# CFLAGS, LDFLAGS and LDLIBS are the user's (default -O2 -g): the project's own flags
# (CST_CFLAGS: language, warnings, include folders, libraries' flags) are kept apart and always
# applied, so `make CFLAGS=-O0` still builds.

PREFIX   ?= /usr/local
ifeq ($(SANITIZE),1)
BUILD    ?= build-sanitize
else
BUILD    ?= build
endif
CC       ?= cc
CFLAGS   ?= -O2 -g

# pkg-config packages the build needs; fragments add theirs to PKGS.
PKGS     := libdw libelf capstone json-c
# libraries without a pkg-config file, linked into the CLI and the gdb plugin: libiberty's
# demangler (common/symbols/demangle.c; a static library, built position-independent by Debian)
NO_PC_LIBS := -liberty
# Libraries linked into the CLI from their static archives: readline and tinfo (the shell's line
# editing) and nettle (the signatures' SHA-256).  None of them reads what a core holds, and
# each shared library costs every run its loading: 0.3 ms of a 20 ms walk of 10,000 threads
# (bench/README.md).  STATIC_CLI_LIBS=no links these three shared too (a system without
# their archives).  The libraries that read cores (libdw, libelf, capstone, json-c, the
# decompressors) stay shared, updated with the system; the CLI loads capstone when it first
# decodes (coredump/capstone_lazy.h).
STATIC_CLI_LIBS ?= yes
CLI_STATIC_LIBS := -lreadline -ltinfo -lnettle
LINK_STATIC     := -Wl,-Bstatic
LINK_SHARED     := -Wl,-Bdynamic
CLI_LIBS        := $(if $(filter yes,$(STATIC_CLI_LIBS)),$(LINK_STATIC) $(CLI_STATIC_LIBS) $(LINK_SHARED),$(CLI_STATIC_LIBS))

# Every folder of common/ holds headers included by bare name.
COMMON_SRC  := $(sort $(wildcard common/*.c common/*/*.c common/*/*/*.c))
COMMON_DIRS := $(sort $(patsubst %/,%,$(dir $(wildcard common/*.h common/*/*.h common/*/*/*.h))))
CLI_SRC     := $(wildcard coredump/*.c)
COMMON_OBJ  := $(COMMON_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ     := $(CLI_SRC:%.c=$(BUILD)/%.o)

ifeq ($(SANITIZE),1)
SANITIZE_CFLAGS  := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
SANITIZE_LDFLAGS := -fsanitize=address,undefined
endif

all: $(BUILD)/corestack

# The parts of the project, each with its rules, `check-run`/`all` prerequisites, PKGS and
# DEB_PACKAGES.
include common/files.mk
include coredump/shell.mk coredump/triage.mk
include plugin/plugin.mk
include doc/doc.mk
include examples/examples.mk examples/triage.mk
include tests/tests.mk tests/sweep/sweep.mk tests/symindex/symindex.mk tests/sparc/sparc.mk \
         tests/unit/unit.mk tests/fixtures/x86_64/fixtures.mk \
         tests/lang/lang.mk
include fuzz/fuzz.mk
include bench/bench.mk

# The project's flags, after every fragment added its PKGS.  A package pkg-config does not know
# stops the build with its name (pkg-check), not with a missing header later.
PKG_MISSING := $(strip $(foreach p,$(PKGS),$(if $(shell pkg-config --exists $(p) && echo y),,$(p))))
CST_CFLAGS  := -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Werror=incompatible-pointer-types \
               -Werror=implicit-function-declaration -Werror=int-conversion -D_GNU_SOURCE -MMD -MP \
               $(addprefix -I,$(COMMON_DIRS)) $(shell pkg-config --cflags $(PKGS) 2>/dev/null) \
               $(SANITIZE_CFLAGS)
CST_LDFLAGS := $(SANITIZE_LDFLAGS)
CST_LDLIBS  := $(filter-out $(CLI_STATIC_LIBS),$(shell pkg-config --libs $(PKGS) 2>/dev/null)) \
               $(CLI_LIBS) $(NO_PC_LIBS) $(EXTRA_LIBS)
ALL_CFLAGS   = $(CST_CFLAGS) $(CFLAGS)
ALL_LDFLAGS  = $(CST_LDFLAGS) $(LDFLAGS)
ALL_LDLIBS   = $(CST_LDLIBS) $(LDLIBS)

pkg-check:
	@$(if $(PKG_MISSING),echo "corestack: missing pkg-config package(s): $(PKG_MISSING) (run make deps as root)" >&2; exit 1,:)

$(BUILD)/%.o: %.c | pkg-check
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/libcorestack.a: $(COMMON_OBJ)
	rm -f $@ && ar rcs $@ $^

# capstone is loaded by the CLI when it first decodes (coredump/capstone_lazy.h), not linked
$(BUILD)/corestack: $(CLI_OBJ) $(BUILD)/libcorestack.a
	$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libcorestack.a $(filter-out -lcapstone,$(ALL_LDLIBS)) -ldl

-include $(wildcard $(patsubst %.o,%.d,$(COMMON_OBJ) $(CLI_OBJ) $(PLUGIN_OBJ)) $(BUILD)/fuzz/*.d)

# `make check`: the packages first, then everything the suite needs, then the suite.
check:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory check-run

clean:
	rm -rf $(BUILD)

.PHONY: all clean deps check check-run demo install pkg-check

# Debian packages needed to build and to run the tests (a fresh Debian 12 has none of them).
DEB_PACKAGES += gcc make pkg-config binutils libelf-dev libdw-dev libcapstone-dev libjson-c-dev \
                libreadline-dev libncurses-dev gdb python3 elfutils libc6-dbg libiberty-dev g++ rustc

deps:
	@missing=$$(for p in $(DEB_PACKAGES); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q 'install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing:" $$missing; \
		if [ "$$(id -u)" != 0 ]; then echo "make deps: run as root to install:" $$missing >&2; exit 1; fi; \
		apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing >/dev/null \
			|| { echo "make deps: apt-get install failed" >&2; exit 1; }; \
	fi

install: $(BUILD)/corestack
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(BUILD)/corestack $(DESTDIR)$(PREFIX)/bin/corestack
