# tests/sweep/sweep.mk: the accuracy sweep, included by the top Makefile.
#   make sweep-progs  builds the stepper $(BUILD)/tests/sweep/sweep and the program
#                     tests/sweep/sweep_prog.c in every variant as $(BUILD)/tests/sweep/prog.VARIANT
#                     (checking with objdump that its tail calls are jmp instructions);
#   make sweep        runs tests/sweep/run_sweep.sh on them.
# Variants: as tests/tests.mk (fpnoleaf needs -momit-leaf-frame-pointer: gcc's default with
# -fno-omit-frame-pointer keeps the frame pointer in leaves); fp-stripped and cfi-stripped
# are the fp and cfi builds through strip; fpO3 is the fp build at -O3 with
# -ffunction-sections (stripped too: fpO3-stripped).  All are linked with -Wl,-z,now.

SWEEP_DIR     := $(BUILD)/tests/sweep
# The build variants are the test suite's (tests/tests.mk, included first).
SWEEP_CFLAGS_fp       := $(TEST_CFLAGS_fp)
SWEEP_CFLAGS_fpnoleaf := $(TEST_CFLAGS_fpnoleaf)
SWEEP_CFLAGS_fpcfi    := $(TEST_CFLAGS_fpcfi)
SWEEP_CFLAGS_cfi      := $(TEST_CFLAGS_cfi)
SWEEP_CFLAGS_g        := $(TEST_CFLAGS_g)
SWEEP_CFLAGS_fpO3     := $(TEST_CFLAGS_fp) -O3 -ffunction-sections
SWEEP_VARIANTS := fp fpnoleaf fpcfi cfi g fpO3
SWEEP_STRIPPED := fp cfi fpO3
SWEEP_PROGS    := $(SWEEP_VARIANTS:%=$(SWEEP_DIR)/prog.%) $(SWEEP_STRIPPED:%=$(SWEEP_DIR)/prog.%-stripped)

$(SWEEP_DIR)/sweep: tests/sweep/sweep.c $(BUILD)/libcorestack.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libcorestack.a $(ALL_LDLIBS)

# $(call sweep_prog_rule,VARIANT)
define sweep_prog_rule
$(SWEEP_DIR)/prog.$(1): tests/sweep/sweep_prog.c tests/sweep/check_tails.sh tests/sweep/sweep.mk
	@mkdir -p $$(dir $$@)
	$(CC) $(SWEEP_CFLAGS_$(1)) -Wl,-z,now -o $$@.tmp $$<
	sh tests/sweep/check_tails.sh $$@.tmp
	mv $$@.tmp $$@
endef
$(foreach v,$(SWEEP_VARIANTS),$(eval $(call sweep_prog_rule,$(v))))

$(SWEEP_DIR)/prog.%-stripped: $(SWEEP_DIR)/prog.%
	strip -o $@ $<

sweep-progs: $(SWEEP_DIR)/sweep $(SWEEP_PROGS)

sweep: sweep-progs
	BUILD=$(BUILD) bash tests/sweep/run_sweep.sh

.PHONY: sweep-progs sweep
