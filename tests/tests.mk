# tests/tests.mk: test-suite rules, included by the top Makefile.
#   make test-progs  builds every tests/progs/*.c in every build variant as
#                    $(BUILD)/tests/PROG-VARIANT (plus stripped copies);
#   make check       builds corestack, the programs and tests/lib/jsoncheck.c, then runs
#                    tests/run.sh.
# Variants (how distributions build):
#   fp        frame pointers everywhere (even leaves that use the stack), no CFI
#   fpnoleaf  frame pointers except in leaf functions, no CFI
#   fpcfi     frame pointers and CFI
#   cfi       the gcc default: CFI, no frame pointer
#   g         -g with frame pointers (DWARF and CFI)
#   fp-stripped, cfi-stripped: the fp and cfi builds passed through strip
# gcc's default is -mno-omit-leaf-frame-pointer; fpnoleaf needs -momit-leaf-frame-pointer.

TEST_NOCFI       := -fno-asynchronous-unwind-tables -fno-unwind-tables
TEST_CFLAGS_fp       := -O2 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer $(TEST_NOCFI)
TEST_CFLAGS_fpnoleaf := -O2 -fno-omit-frame-pointer -momit-leaf-frame-pointer $(TEST_NOCFI)
TEST_CFLAGS_fpcfi    := -O2 -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
TEST_CFLAGS_cfi      := -O2
TEST_CFLAGS_g        := -O2 -g -fno-omit-frame-pointer
TEST_VARIANTS    := fp fpnoleaf fpcfi cfi g
TEST_STRIPPED    := fp cfi

TEST_PROG_NAMES  := $(basename $(notdir $(wildcard tests/progs/*.c)))
TEST_PROG_BINS   := $(foreach p,$(TEST_PROG_NAMES),\
                      $(foreach v,$(TEST_VARIANTS),$(BUILD)/tests/$(p)-$(v)) \
                      $(foreach v,$(TEST_STRIPPED),$(BUILD)/tests/$(p)-$(v)-stripped))

# $(call test_prog_rule,PROG,VARIANT)
define test_prog_rule
$(BUILD)/tests/$(1)-$(2): tests/progs/$(1).c tests/tests.mk
	@mkdir -p $$(dir $$@)
	$(CC) $(TEST_CFLAGS_$(2)) -pthread -o $$@ $$<
endef
$(foreach p,$(TEST_PROG_NAMES),$(foreach v,$(TEST_VARIANTS),\
  $(eval $(call test_prog_rule,$(p),$(v)))))

$(BUILD)/tests/%-stripped: $(BUILD)/tests/%
	strip -o $@ $<

test-progs: $(TEST_PROG_BINS)

# tests/lib/jsoncheck.c: put in place of corestack by tests/run.sh and tests/lib/common.sh, it
# parses every JSON document the tests produce with json-c.
$(BUILD)/tests/jsoncheck: tests/lib/jsoncheck.c tests/tests.mk | pkg-check
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(shell pkg-config --libs json-c)

# A sanitizer's report ends the program with status 86, not its default 1: tests that expect
# corestack's own status 1 (a walk stopped early, a warning) must not pass a leak or an error.
ifeq ($(SANITIZE),1)
check-run: export ASAN_OPTIONS := exitcode=86:$(ASAN_OPTIONS)
check-run: export UBSAN_OPTIONS := exitcode=86:$(UBSAN_OPTIONS)
endif
check-run: $(BUILD)/corestack test-progs sweep-progs $(BUILD)/tests/jsoncheck
	BUILD=$(BUILD) bash tests/run.sh

.PHONY: test-progs check-run
