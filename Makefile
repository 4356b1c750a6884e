# corestack: top-level build.  `make` builds build/corestack; `make check` runs the test suite;
# `make demo` crashes an example program and prints its backtrace; `make deps` installs the
# Debian packages the build and the tests need.

PREFIX   ?= /usr/local
BUILD    ?= build
CC       ?= cc
PKGS     := libdw libelf capstone json-c
CFLAGS   ?= -O2 -g
CFLAGS   += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE -Icommon \
            $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
LDLIBS   += $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lreadline
ifeq ($(SANITIZE),1)
CFLAGS   += -fsanitize=address,undefined -fno-omit-frame-pointer
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

.PHONY: all clean deps check demo install bench
