# tests/analysis: check_analysis asks the x86-64 instruction analysis for the rule rows of
# small hand-assembled functions with joins (tests/t_analysis.sh runs it).
$(BUILD)/tests/check_analysis: tests/analysis/check_analysis.c $(BUILD)/libcorestack.a
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/libcorestack.a $(ALL_LDLIBS)

check-run: $(BUILD)/tests/check_analysis
