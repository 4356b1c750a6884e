# fuzz/fuzz.mk: libFuzzer harnesses and their regression replay, included by the top Makefile.
#   make fuzz [FUZZ_SECONDS=N]  builds the harnesses with clang (libFuzzer, ASan, UBSan) in
#                               build-fuzz/, makes seed corpora from cores of the test programs,
#                               and runs each harness N seconds (default 60).  Findings land in
#                               build-fuzz/findings/HARNESS/; fuzz/regressions/HARNESS/ keeps the
#                               ones that were fixed.
#   make check                  also builds $(BUILD)/fuzz/replay-HARNESS (the harness with a plain
#                               main, the normal compiler and flags) for tests/t_fuzz_regress.sh,
#                               which replays every fuzz/regressions/ input.
#   make fuzz-ci [FUZZ_CI_SECONDS=N] (run by .ci/run; installs clang-14 as make fuzz does)
#                               builds the harnesses and runs each for its share of N seconds
#                               (default 60 in all), seed 1, from the seeds and kept
#                               regressions; a crash, a sanitizer report, a hang or a leak fails.
# Harnesses: core (the core reader, fuzz/fuzz_core.c), unwind (the unwinder over a synthetic
# process, fuzz/fuzz_unwind.c), corewalk (core file to located frames, fuzz/fuzz_corewalk.c),
# cli (corestack's own main on the core with NT_FILE naming hostile files or gone, in every
# output mode and the shell, fuzz/fuzz_cli.c; it and corewalk share the core harness's seeds)
# and jsonw (the JSON writer's string escape read back by json-c, fuzz/fuzz_jsonw.c; its
# seeds are fuzz/regressions/jsonw/).

FUZZ_HARNESSES := core unwind corewalk cli jsonw
FUZZ_SECONDS   ?= 60
FUZZ_RSS_MB    ?= 2048
FUZZ_TIMEOUT   ?= 20
FUZZ_CC        ?= clang-14
FUZZ_BUILD     := build-fuzz
FUZZ_CFLAGS     = -g -O1 -std=gnu11 -D_GNU_SOURCE $(addprefix -I,$(COMMON_DIRS)) -Ifuzz \
                  -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined \
                  $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
FUZZ_LDFLAGS   := -fsanitize=fuzzer,address,undefined
# Modules of the unwinder harness's synthetic process: two builds of a test program with tail
# calls, and the C library (libc.so.6 as the test programs load it).
FUZZ_PROG      := tailchain
fuzz_libc       = $(shell ldd $(1) 2>/dev/null | sed -n 's/.*libc\.so\.6 => \([^ ]*\).*/\1/p')
FUZZ_MODULES_OF = $(1)/tests/$(FUZZ_PROG)-cfi:$(1)/tests/$(FUZZ_PROG)-fp:$(call fuzz_libc,$(1)/tests/$(FUZZ_PROG)-cfi)
# clang and libFuzzer are needed by `make fuzz` only, not by `make check`.
FUZZ_DEB_PACKAGES := clang-14 libclang-rt-14-dev

FUZZ_COMMON_OBJ := $(COMMON_SRC:%.c=$(FUZZ_BUILD)/%.o)

$(FUZZ_BUILD)/common/%.o: common/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -c $< -o $@
$(FUZZ_BUILD)/fuzz/%.o: fuzz/%.c $(wildcard fuzz/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Icoredump -c $< -o $@

$(FUZZ_BUILD)/fuzz-%: $(FUZZ_BUILD)/fuzz/fuzz_%.o $(FUZZ_BUILD)/fuzz/fuzz_input.o $(FUZZ_COMMON_OBJ)
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(CST_LDLIBS) $(LDLIBS)

# The CLI harness links the CLI's objects, its main renamed cst_cli_main.
FUZZ_CLI_OBJ := $(patsubst %.c,$(FUZZ_BUILD)/%.o,$(filter-out coredump/main.c,$(CLI_SRC))) \
                $(FUZZ_BUILD)/coredump/cli_main.o
$(FUZZ_BUILD)/coredump/%.o: coredump/%.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Icoredump -c $< -o $@
$(FUZZ_BUILD)/coredump/cli_main.o: coredump/main.c
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Dmain=cst_cli_main -c $< -o $@
$(FUZZ_BUILD)/fuzz-cli: $(FUZZ_BUILD)/fuzz/fuzz_cli.o $(FUZZ_BUILD)/fuzz/fuzz_input.o $(FUZZ_CLI_OBJ) \
                        $(FUZZ_COMMON_OBJ)
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(CST_LDLIBS) $(LDLIBS)
# The jsonw harness is the CLI's writer (coredump/jsonw.c) with json-c.
$(FUZZ_BUILD)/fuzz-jsonw: $(FUZZ_BUILD)/fuzz/fuzz_jsonw.o $(FUZZ_BUILD)/coredump/jsonw.o
	$(FUZZ_CC) $(FUZZ_LDFLAGS) -o $@ $^ $(CST_LDLIBS) $(LDLIBS)
$(BUILD)/fuzz/replay-jsonw: $(BUILD)/fuzz/fuzz_jsonw.o $(BUILD)/fuzz/replay.o $(BUILD)/coredump/jsonw.o
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(ALL_LDLIBS)

# Replay drivers, built like corestack itself (sanitized with SANITIZE=1).
$(BUILD)/fuzz/replay-%: $(BUILD)/fuzz/fuzz_%.o $(BUILD)/fuzz/fuzz_input.o $(BUILD)/fuzz/replay.o \
                        $(BUILD)/libcorestack.a
	$(CC) $(ALL_LDFLAGS) -o $@ $(filter %.o,$^) $(BUILD)/libcorestack.a $(ALL_LDLIBS)
$(BUILD)/fuzz/replay-cli: $(BUILD)/fuzz/fuzz_cli.o $(BUILD)/fuzz/fuzz_input.o $(BUILD)/fuzz/replay.o \
                          $(BUILD)/fuzz/cli_main.o $(filter-out $(BUILD)/coredump/main.o,$(CLI_OBJ)) \
                          $(BUILD)/libcorestack.a
	$(CC) $(ALL_LDFLAGS) -o $@ $(filter %.o,$^) $(BUILD)/libcorestack.a $(ALL_LDLIBS)
$(BUILD)/fuzz/cli_main.o: coredump/main.c | pkg-check
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Dmain=cst_cli_main -c $< -o $@
$(BUILD)/fuzz/%.o: fuzz/%.c | pkg-check
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Ifuzz -Icoredump -c $< -o $@

fuzz-replay: $(FUZZ_HARNESSES:%=$(BUILD)/fuzz/replay-%)
check-run: fuzz-replay

# Seed corpora: cores of the test programs (tests/lib/mkcore.py), trimmed by fuzz/mkseeds.py.
FUZZ_SEED_CORES := crash:tailchain:uniq:crash crash:tailchain:ambig:crash \
                   stop:tailchain:target:entry:uniq stop:tailchain:final:entry:ambig \
                   crash:threads crash:tail:crash stop:tail:leaf2:entry crash:libcfp:qsort
$(FUZZ_BUILD)/seeds.stamp: fuzz/mkseeds.py tests/lib/mkcore.py $(BUILD)/corestack test-progs
	rm -rf $(FUZZ_BUILD)/seeds $(FUZZ_BUILD)/seedcores
	mkdir -p $(FUZZ_BUILD)/seeds/core $(FUZZ_BUILD)/seeds/unwind $(FUZZ_BUILD)/seedcores
	set -e; n=0; for spec in $(FUZZ_SEED_CORES); do \
	  for v in cfi fp; do \
	    n=$$((n + 1)); set -- $$(echo $$spec | tr : ' '); mode=$$1 prog=$$2; shift 2; \
	    core=$(FUZZ_BUILD)/seedcores/$$n.core; \
	    if [ $$mode = crash ]; then \
	      python3 tests/lib/mkcore.py crash $$core $(BUILD)/tests/$$prog-$$v "$$@" || continue; \
	    else \
	      python3 tests/lib/mkcore.py stop $$core $(BUILD)/tests/$$prog-$$v "$$@" || continue; \
	    fi; \
	    python3 fuzz/mkseeds.py core $(FUZZ_BUILD)/seeds/core/$$n $$core; \
	    for u in unwind unwind-overlay; do \
	      python3 fuzz/mkseeds.py $$u $(FUZZ_BUILD)/seeds/unwind/$$n-$$u $$core \
	        $$(echo "$(call FUZZ_MODULES_OF,$(BUILD))" | tr : ' '); \
	    done; \
	  done; \
	done
	rm -rf $(FUZZ_BUILD)/seedcores
	touch $@

fuzz-deps:
	@$(MAKE) --no-print-directory deps DEB_PACKAGES="$(FUZZ_DEB_PACKAGES)"

# Each harness runs FUZZ_SECONDS in its own corpus (seeds + kept regressions); a finding stops
# the run and fails `make fuzz`.
fuzz: fuzz-deps $(FUZZ_HARNESSES:%=$(FUZZ_BUILD)/fuzz-%) $(FUZZ_BUILD)/seeds.stamp
	@set -e; for h in $(FUZZ_HARNESSES); do \
	  mkdir -p $(FUZZ_BUILD)/corpus/$$h $(FUZZ_BUILD)/findings/$$h fuzz/regressions/$$h; \
	  echo "fuzz: $$h for $(FUZZ_SECONDS) s"; \
	  CST_FUZZ_MODULES="$(call FUZZ_MODULES_OF,$(BUILD))" \
	  $(FUZZ_BUILD)/fuzz-$$h -max_total_time=$(FUZZ_SECONDS) -rss_limit_mb=$(FUZZ_RSS_MB) \
	    -timeout=$(FUZZ_TIMEOUT) -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_BUILD)/findings/$$h/ $(FUZZ_BUILD)/corpus/$$h \
	    $$(ls -d $(FUZZ_BUILD)/seeds/$$(echo $$h | sed 's/corewalk\|cli/core/') 2>/dev/null) fuzz/regressions/$$h; \
	done

# A bounded run for CI (.ci/run): each harness its share of FUZZ_CI_SECONDS in a fresh corpus
# from the seeds and kept regressions, with a fixed seed so that a run repeats what the same
# build explored before; the first finding stops the run and fails the target.
FUZZ_CI_SECONDS ?= 60
fuzz-ci: fuzz-deps $(FUZZ_HARNESSES:%=$(FUZZ_BUILD)/fuzz-%) $(FUZZ_BUILD)/seeds.stamp
	@set -e; for h in $(FUZZ_HARNESSES); do \
	  rm -rf $(FUZZ_BUILD)/ci-corpus/$$h; \
	  mkdir -p $(FUZZ_BUILD)/ci-corpus/$$h $(FUZZ_BUILD)/findings/$$h fuzz/regressions/$$h; \
	  echo "fuzz-ci: $$h for $$(( $(FUZZ_CI_SECONDS) / $(words $(FUZZ_HARNESSES)) )) s"; \
	  CST_FUZZ_MODULES="$(call FUZZ_MODULES_OF,$(BUILD))" \
	  $(FUZZ_BUILD)/fuzz-$$h -max_total_time=$$(( $(FUZZ_CI_SECONDS) / $(words $(FUZZ_HARNESSES)) )) -rss_limit_mb=$(FUZZ_RSS_MB) \
	    -seed=1 -timeout=$(FUZZ_TIMEOUT) -close_fd_mask=3 -print_final_stats=1 \
	    -artifact_prefix=$(FUZZ_BUILD)/findings/$$h/ $(FUZZ_BUILD)/ci-corpus/$$h \
	    $$(ls -d $(FUZZ_BUILD)/seeds/$$(echo $$h | sed 's/corewalk\|cli/core/') 2>/dev/null) fuzz/regressions/$$h \
	    2>$(FUZZ_BUILD)/ci-$$h.log || { tail -n 60 $(FUZZ_BUILD)/ci-$$h.log >&2; \
	      echo "fuzz-ci: $$h found a crash, a hang or a leak: $(FUZZ_BUILD)/findings/$$h/" >&2; exit 1; }; \
	  grep -h '^stat::number_of_executed_units' $(FUZZ_BUILD)/ci-$$h.log || true; \
	done

.PHONY: fuzz fuzz-ci fuzz-deps fuzz-replay
.PRECIOUS: $(FUZZ_BUILD)/coredump/%.o $(FUZZ_BUILD)/common/%.o $(FUZZ_BUILD)/fuzz/%.o $(BUILD)/fuzz/%.o
