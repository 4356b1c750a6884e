# bench/bench.mk: `make bench` times corestack on cores of 1, 1,001 and 10,001 threads against
# gdb, eu-stack and `cat core` (and, for 10,001 threads, with the core evicted from the page
# cache before each run of cat and corestack), the plugin's `thread apply all fpbt` against gdb's own
# `thread apply all bt` (57 and 1,001 threads), a program of 300 shared libraries against
# eu-stack and a 100,000-frame stack against gdb (bench/bench.py; not part of `make check`).
#   BENCH_RUNS=N        rounds per core (default 3)
#   BENCH_EU_BOUND=S    seconds after which an eu-stack run is stopped and eu-stack dropped
#   BENCH_ONLY=t1001-fp,...  only these cases (t1-fp ... t10001-cfi, fpbt-t57-fp,
#                       cold-t10001-fp, cold-t10001-cfi, fpbt-t57-fp, fpbt-t1001-fp,
#                       plugin-bt-t57-fp, plugin-bt-t1001-fp, modules, deep)
# The program is built like the test suite's fp and cfi variants (tests/tests.mk).

BENCH_RUNS     ?= 3
# /usr/bin/time gives each run's peak RSS; gdb and eu-stack (elfutils) are compared against
DEB_PACKAGES   += time gdb elfutils python3
BENCH_EU_BOUND ?= 60

$(BUILD)/bench/manythreads-%: bench/manythreads.c tests/tests.mk bench/bench.mk
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS_$*) -pthread -o $@ $<

# the deep stack and the libraries: frame pointers and CFI (eu-stack unwinds with CFI)
$(BUILD)/bench/deep-fp: bench/deep.c tests/tests.mk bench/bench.mk
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS_fpcfi) -o $@ $<

BENCH_MODULES ?= 300
$(BUILD)/bench/manymods/manymods: bench/manymods.py tests/tests.mk bench/bench.mk
	python3 bench/manymods.py $(dir $@) $(BENCH_MODULES) $(CC) $(TEST_CFLAGS_fpcfi)

bench: $(BUILD)/corestack $(BUILD)/bench/manythreads-fp $(BUILD)/bench/manythreads-cfi \
	$(BUILD)/bench/deep-fp $(BUILD)/bench/manymods/manymods $(PLUGIN_SO) $(BUILD)/corestack.gdb
	python3 bench/bench.py --corestack $(BUILD)/corestack --progs $(BUILD)/bench \
		--gdb-script $(BUILD)/corestack.gdb \
		--runs $(BENCH_RUNS) --eu-bound $(BENCH_EU_BOUND) $(if $(BENCH_ONLY),--only $(BENCH_ONLY))

.PHONY: bench
