# tests/unit: C unit tests of common/ on an in-memory target (fake_target.c), one program per
# subject, $(BUILD)/tests/unit/test_NAME from tests/unit/test_NAME.c; tests/t_unit.sh runs
# them.  Each prints PASS/FAIL lines.  Assembly inputs (tests/unit/*.s: CFI and symbol tables
# to read with libdw) are linked at 0x500000 into $(BUILD)/tests/unit/NAME.elf, which the
# tests open (NAME_stripped.s: without a symbol table).
UNIT_TESTS   := $(basename $(notdir $(wildcard tests/unit/test_*.c)))
UNIT_BINS    := $(UNIT_TESTS:%=$(BUILD)/tests/unit/%)
UNIT_HELPERS := $(BUILD)/tests/unit/fake_target.o $(BUILD)/tests/unit/unit.o $(BUILD)/tests/unit/cursor.o \
                $(BUILD)/tests/unit/symindex_file.o
UNIT_ELF     := $(patsubst tests/unit/%.s,$(BUILD)/tests/unit/%.elf,$(wildcard tests/unit/*.s))

$(BUILD)/tests/unit/%: $(BUILD)/tests/unit/%.o $(UNIT_HELPERS) $(BUILD)/libcorestack.a
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(UNIT_HELPERS) $(BUILD)/libcorestack.a $(ALL_LDLIBS)

$(BUILD)/tests/unit/%.o: tests/unit/%.c | pkg-check
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit -c $< -o $@

$(BUILD)/tests/unit/%.elf: tests/unit/%.s
	@mkdir -p $(dir $@)
	$(CC) -nostdlib -static -no-pie -Wl,-Ttext=0x500000 -Wl,--build-id=none -o $@ $<

# *_stripped.s: linked without a symbol table (code whose function entries are guessed)
$(BUILD)/tests/unit/%_stripped.elf: tests/unit/%_stripped.s
	@mkdir -p $(dir $@)
	$(CC) -nostdlib -static -no-pie -s -Wl,-Ttext=0x500000 -Wl,--build-id=none -o $@ $<

unit-tests: $(UNIT_BINS) $(UNIT_ELF)

check-run: unit-tests

-include $(wildcard $(BUILD)/tests/unit/*.d)

.PHONY: unit-tests

# The objects stay (make would delete them as intermediates and rebuild them on every run).
.SECONDARY: $(UNIT_BINS:%=%.o) $(UNIT_HELPERS)

# test_json_frames: the CLI's JSON thread writer (coredump/json_thread.c, jsonw.c)
$(BUILD)/tests/unit/test_json_frames.o: ALL_CFLAGS += -Icoredump
$(BUILD)/tests/unit/test_json_frames: $(BUILD)/tests/unit/test_json_frames.o $(BUILD)/coredump/json_thread.o \
		$(BUILD)/coredump/jsonw.o $(UNIT_HELPERS) $(BUILD)/libcorestack.a
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/coredump/json_thread.o $(BUILD)/coredump/jsonw.o \
		$(UNIT_HELPERS) $(BUILD)/libcorestack.a $(ALL_LDLIBS)
