# bench/bench.mk: `make bench` times corestack on cores of 1, 1,001 and 10,001 threads against
# gdb, eu-stack and `cat core` (bench/bench.py; not part of `make check`).
#   BENCH_RUNS=N        rounds per core (default 3)
#   BENCH_EU_BOUND=S    seconds after which an eu-stack run is stopped and eu-stack dropped
#   BENCH_ONLY=t1001-fp,...  only these cores
# The program is built like the test suite's fp and cfi variants (tests/tests.mk).

BENCH_RUNS     ?= 3
# /usr/bin/time gives each run's peak RSS; gdb and eu-stack (elfutils) are compared against
DEB_PACKAGES   += time gdb elfutils python3
BENCH_EU_BOUND ?= 60

$(BUILD)/bench/manythreads-%: bench/manythreads.c tests/tests.mk bench/bench.mk
	@mkdir -p $(dir $@)
	$(CC) $(TEST_CFLAGS_$*) -pthread -o $@ $<

bench: $(BUILD)/corestack $(BUILD)/bench/manythreads-fp $(BUILD)/bench/manythreads-cfi
	python3 bench/bench.py --corestack $(BUILD)/corestack --progs $(BUILD)/bench \
		--runs $(BENCH_RUNS) --eu-bound $(BENCH_EU_BOUND) $(if $(BENCH_ONLY),--only $(BENCH_ONLY))

.PHONY: bench
