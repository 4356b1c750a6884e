# tests/symindex: check_symindex compares corestack's symbol index with libdwfl's lookup
# (tests/t_symindex.sh runs it on the test programs and on libc), through the unit tests'
# tests/unit/symindex_file.c.
$(BUILD)/tests/check_symindex: tests/symindex/check_symindex.c $(BUILD)/tests/unit/symindex_file.o \
		$(BUILD)/libcorestack.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit $(ALL_LDFLAGS) -o $@ $< $(BUILD)/tests/unit/symindex_file.o \
		$(BUILD)/libcorestack.a $(ALL_LDLIBS)

check-run: $(BUILD)/tests/check_symindex
