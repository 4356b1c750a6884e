# corestack: top-level build.  `make` builds build/corestack; `make check` runs the test suite;
# `make demo` crashes an example program and prints its backtrace; `make deps` installs the
# Debian packages the build and the tests need.

PREFIX   ?= /usr/local
ifeq ($(SANITIZE),1)
BUILD    ?= build-sanitize
else
BUILD    ?= build
endif
CC       ?= cc
PKGS     := libdw libelf capstone json-c
CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE -Icommon \
            $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS   += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lreadline
ifeq ($(SANITIZE),1)
CFLAGS   += -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
LDFLAGS  += -fsanitize=address,undefined
endif

COMMON_SRC := $(wildcard common/*.c)
CLI_SRC    := $(wildcard coredump/*.c)
COMMON_OBJ := $(COMMON_SRC:%.c=$(BUILD)/%.o)
CLI_OBJ    := $(CLI_SRC:%.c=$(BUILD)/%.o)

all: $(BUILD)/corestack

$(BUILD)/%.o: %.c $(wildcard common/*.h coredump/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -c $< -o $@

$(BUILD)/libcorestack.a: $(COMMON_OBJ)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/corestack: $(CLI_OBJ) $(BUILD)/libcorestack.a
	$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(BUILD)/libcorestack.a $(LDLIBS)

-include tests/tests.mk

clean:
	rm -rf $(BUILD)

.PHONY: all clean deps check demo install

-include examples/examples.mk
-include tests/sweep/sweep.mk
# Each part of the project may add rules, `check`/`all` prerequisites and DEB_PACKAGES in its
# own fragment (plugin/plugin.mk, tests/sparc/sparc.mk, ...).
-include $(filter-out tests/tests.mk examples/examples.mk tests/sweep/sweep.mk,\
           $(sort $(wildcard */*.mk tests/*/*.mk)))

# Debian packages needed to build and to run the tests (a fresh Debian 12 has none of them).
DEB_PACKAGES += gcc make pkg-config binutils libelf-dev libdw-dev libcapstone-dev libjson-c-dev \
                libreadline-dev gdb python3 elfutils libc6-dbg

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
