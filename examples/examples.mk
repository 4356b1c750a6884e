# Example programs and `make demo`: crash one and print its backtrace.
EXAMPLE_CFLAGS := -O2 -fno-omit-frame-pointer -fno-asynchronous-unwind-tables -fno-unwind-tables

$(BUILD)/examples/%: examples/%.c
	@mkdir -p $(dir $@)
	$(CC) $(EXAMPLE_CFLAGS) -o $@ $<

demo:
	@$(MAKE) --no-print-directory deps
	@$(MAKE) --no-print-directory demo-run

demo-run: $(BUILD)/corestack $(BUILD)/examples/crash
	@sh examples/demo.sh $(BUILD)
