# The crashing example programs of the triage walk-through (README "Triage") and the test
# suite (tests/t_triage.sh): `make examples` builds them as $(BUILD)/examples/NAME.
TRIAGE_EXAMPLES := segfault abort_leaf tailcall deadlock
TRIAGE_EXAMPLE_BINS := $(TRIAGE_EXAMPLES:%=$(BUILD)/examples/%)

# abort_leaf: no frame pointers and no CFI, so its leaf has no frame record
$(BUILD)/examples/abort_leaf: EXAMPLE_CFLAGS := -O2 -fomit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables
$(BUILD)/examples/deadlock: EXAMPLE_CFLAGS += -pthread

examples: $(TRIAGE_EXAMPLE_BINS) $(BUILD)/examples/crash
check-run: $(TRIAGE_EXAMPLE_BINS)

.PHONY: examples
