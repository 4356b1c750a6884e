# tests/symindex: check_symindex compares corestack's symbol index with libdwfl's lookup
# (tests/t_symindex.sh runs it on the test programs and on libc).
$(BUILD)/tests/check_symindex: tests/symindex/check_symindex.c $(BUILD)/libcorestack.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libcorestack.a $(ALL_LDLIBS)

check-run: $(BUILD)/tests/check_symindex
