# tests/sweep/sweep.mk: the accuracy sweep, included by the top Makefile.
#   make sweep-progs  builds the stepper $(BUILD)/tests/sweep/sweep and the programs
#                     tests/sweep/sweep_prog.c and tests/sweep/sweep_interp.c in every variant
#                     as $(BUILD)/tests/sweep/prog.VARIANT and interp.VARIANT (checking with
#                     objdump that their tail calls are jmp instructions);
#   make sweep        runs tests/sweep/run_sweep.sh on them.
# Variants: as tests/tests.mk (fpnoleaf needs -momit-leaf-frame-pointer: gcc's default with
# -fno-omit-frame-pointer keeps the frame pointer in leaves), and none: neither frame
# pointers nor CFI; fp-stripped and cfi-stripped are the fp and cfi builds through strip;
# fpO3 is the fp build at -O3 with -ffunction-sections (stripped too: fpO3-stripped).  All
# are linked with -Wl,-z,now.

SWEEP_DIR     := $(BUILD)/tests/sweep
# The build variants are the test suite's (tests/tests.mk, included first).
SWEEP_CFLAGS_fp       := $(TEST_CFLAGS_fp)
SWEEP_CFLAGS_fpnoleaf := $(TEST_CFLAGS_fpnoleaf)
SWEEP_CFLAGS_fpcfi    := $(TEST_CFLAGS_fpcfi)
SWEEP_CFLAGS_cfi      := $(TEST_CFLAGS_cfi)
SWEEP_CFLAGS_g        := $(TEST_CFLAGS_g)
SWEEP_CFLAGS_none     := -O2 -fomit-frame-pointer $(TEST_NOCFI)
SWEEP_CFLAGS_fpO3     := $(TEST_CFLAGS_fp) -O3 -ffunction-sections
SWEEP_VARIANTS := fp fpnoleaf fpcfi cfi g none fpO3
SWEEP_STRIPPED := fp cfi fpO3
# The programs (tests/sweep/sweep_NAME.c, built as NAME.VARIANT) and the tail calls
# (FROM:TO) check_tails.sh checks in them.
SWEEP_NAMES       := prog interp
SWEEP_TAILS_prog   := tail:leaf t1:t2 t2:leaf2 a1:b1 a1:b2 b1:final b2:final
SWEEP_TAILS_interp := op_lit:push op_add:arith arith:push op_print:note visit:note \
                      op_each:each by_value:cmp_long on_usr1:count_signal main:finish
SWEEP_PROGS    := $(foreach n,$(SWEEP_NAMES),$(SWEEP_VARIANTS:%=$(SWEEP_DIR)/$(n).%) \
                    $(SWEEP_STRIPPED:%=$(SWEEP_DIR)/$(n).%-stripped))

$(SWEEP_DIR)/sweep: tests/sweep/sweep.c $(BUILD)/libcorestack.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libcorestack.a $(ALL_LDLIBS)

# $(call sweep_prog_rule,NAME,VARIANT)
define sweep_prog_rule
$(SWEEP_DIR)/$(1).$(2): tests/sweep/sweep_$(1).c tests/sweep/check_tails.sh tests/sweep/sweep.mk
	@mkdir -p $$(dir $$@)
	$(CC) $(SWEEP_CFLAGS_$(2)) -Wl,-z,now -o $$@.tmp $$<
	sh tests/sweep/check_tails.sh $$@.tmp $(SWEEP_TAILS_$(1))
	mv $$@.tmp $$@
endef
$(foreach n,$(SWEEP_NAMES),$(foreach v,$(SWEEP_VARIANTS),$(eval $(call sweep_prog_rule,$(n),$(v)))))

$(SWEEP_DIR)/%-stripped: $(SWEEP_DIR)/%
	strip -o $@ $<

sweep-progs: $(SWEEP_DIR)/sweep $(SWEEP_PROGS)

sweep: sweep-progs
	BUILD=$(BUILD) bash tests/sweep/run_sweep.sh

.PHONY: sweep-progs sweep
