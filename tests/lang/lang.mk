# tests/lang/lang.mk: the C++ and Rust programs of tests/t_lang.sh, included by the top Makefile.
#   $(BUILD)/tests/lang/app        tests/lang/app.cpp, g++ -O2 -g
#   $(BUILD)/tests/lang/r-legacy   tests/lang/r.rs, rustc -O -g -C panic=abort (legacy mangling,
#                                  rustc's default)
#   $(BUILD)/tests/lang/r-v0       the same with -C symbol-mangling-version=v0
#   $(BUILD)/tests/lang/jit        tests/lang/jit.c, gcc -O2 -g -fno-omit-frame-pointer
#   $(BUILD)/tests/lang/store      tests/lang/store.go, go build (Debian's golang-go), its
#                                  build cache under $(BUILD)/tests/lang/go
# Debian's rustc first: the expected frames follow its standard library.
LANG_CXX   ?= g++
LANG_RUSTC ?= $(firstword $(wildcard /usr/bin/rustc) rustc)
LANG_RUSTFLAGS := -O -g -C panic=abort
LANG_GO    ?= $(firstword $(wildcard /usr/bin/go) go)
LANG_PROGS := $(BUILD)/tests/lang/app $(BUILD)/tests/lang/r-legacy $(BUILD)/tests/lang/r-v0 \
              $(BUILD)/tests/lang/store $(BUILD)/tests/lang/jit
DEB_PACKAGES += golang-go python3.11-dbg

$(BUILD)/tests/lang/app: tests/lang/app.cpp tests/lang/lang.mk
	@mkdir -p $(dir $@)
	$(LANG_CXX) -O2 -g -o $@ $<

$(BUILD)/tests/lang/r-legacy: tests/lang/r.rs tests/lang/lang.mk
	@mkdir -p $(dir $@)
	$(LANG_RUSTC) $(LANG_RUSTFLAGS) -o $@ $<

$(BUILD)/tests/lang/r-v0: tests/lang/r.rs tests/lang/lang.mk
	@mkdir -p $(dir $@)
	$(LANG_RUSTC) $(LANG_RUSTFLAGS) -C symbol-mangling-version=v0 -o $@ $<

$(BUILD)/tests/lang/store: tests/lang/store.go tests/lang/lang.mk
	@mkdir -p $(dir $@)
	GOCACHE=$(abspath $(BUILD))/tests/lang/go/cache GOPATH=$(abspath $(BUILD))/tests/lang/go \
		$(LANG_GO) build -o $@ $<

$(BUILD)/tests/lang/jit: tests/lang/jit.c tests/lang/lang.mk
	@mkdir -p $(dir $@)
	$(CC) -O2 -g -fno-omit-frame-pointer -o $@ $<

lang-progs: $(LANG_PROGS)
check-run: lang-progs

.PHONY: lang-progs
