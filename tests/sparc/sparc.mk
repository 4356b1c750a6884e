# tests/sparc/sparc.mk: the SPARC fixtures, included by the top Makefile.
#   make check          runs tests/t_sparc.sh (through tests/run.sh) on the committed cores:
#                       no cross compiler and no qemu needed, only the target C libraries
#                       (the --sysroot /usr/sparc64-linux-gnu the cores' NT_FILE names)
#   make fixtures       rebuilds the SPARC test programs (tests/sparc/progs/*.c) and every
#                       core of tests/sparc/fixtures.list into tests/sparc/fixtures/ (qemu-user)
#   make sparc-sweep    the SPARC accuracy sweep (tests/sparc/sweep.py, qemu-user)
#   make sparc-layout   prints the target's core structure sizes (tests/sparc/layout.c)
#   make fixtures-deps  installs what the three need ($(SPARC_FIXTURE_PACKAGES))

# Read by corestack --sysroot when `make check` runs the fixtures: the 64-bit and the
# 32-bit C library and dynamic linker of the sparc64 cross sysroot.
DEB_PACKAGES += libc6-sparc64-cross libc6-sparc-sparc64-cross

SPARC_FIXTURE_PACKAGES := gcc-sparc64-linux-gnu libc6-dev-sparc64-cross \
                          libc6-dev-sparc-sparc64-cross lib32gcc-12-dev-sparc64-cross qemu-user \
                          python3

SPARC_DIR := tests/sparc
SPARC_FIX := $(SPARC_DIR)/fixtures
SPARC_CC  := sparc64-linux-gnu-gcc
# 8 KiB pages instead of the default 1 MiB segment alignment keep the binaries small.
SPARC_LD  := -Wl,-z,max-page-size=8192 -Wl,-z,common-page-size=8192 -pthread
SPARC_NOCFI := -g0 -fno-asynchronous-unwind-tables -fno-unwind-tables

# Builds.  Debian's PIE default gives every function a window (gcc makes no leaf functions
# in PIC code on SPARC), so the leaf cases need -fno-pie -no-pie.  The linker relaxes
# `call T` tail calls to `b T`; --no-relax keeps them as gcc wrote them.
SPARC_CFLAGS_O2   := -O2 -fno-pie -no-pie $(SPARC_NOCFI)
SPARC_CFLAGS_O2nr := -O2 -fno-pie -no-pie $(SPARC_NOCFI) -Wl,--no-relax
SPARC_CFLAGS_O2g  := -O2 -g -fno-pie -no-pie
SPARC_CFLAGS_O3   := -O3 -ffunction-sections -fno-pie -no-pie $(SPARC_NOCFI)
SPARC_CFLAGS_O0   := -O0 -fno-pie -no-pie $(SPARC_NOCFI)
SPARC_CFLAGS_pie  := -O2 -fPIE -pie $(SPARC_NOCFI)
SPARC_CFLAGS_m32  := -m32 -O2 -fno-pie -no-pie $(SPARC_NOCFI)
SPARC_CFLAGS_m32g := -m32 -O2 -g -fno-pie -no-pie

SPARC_BUILDS := seeds-O2 seeds-O2nr seeds-O2g seeds-O0 seeds-pie seeds-m32 seeds-m32g \
                frames-O2 frames-O2g frames-O3 frames-O0 frames-m32 \
                signals-O2 signals-O2g signals-m32 threads-O2 threads-m32 tails-O2 tails-pie
SPARC_BINS := $(SPARC_BUILDS:%=$(SPARC_FIX)/%) $(SPARC_FIX)/frames-O2s $(SPARC_FIX)/seeds-O2s \
              $(SPARC_FIX)/frames-O3s

# the O2 and O3 builds stripped: neither symbols nor CFI (frames-O2s is checked on
# frames-O2's cores: the same code)
$(SPARC_FIX)/%-O2s: $(SPARC_FIX)/%-O2
	sparc64-linux-gnu-strip -o $@ $<
$(SPARC_FIX)/%-O3s: $(SPARC_FIX)/%-O3
	sparc64-linux-gnu-strip -o $@ $<

# $(call sparc_prog_rule,PROG-BUILD)
define sparc_prog_rule
$(SPARC_FIX)/$(1): $(SPARC_DIR)/progs/$(firstword $(subst -, ,$(1))).c $(SPARC_DIR)/progs/sparc_test.h
	@mkdir -p $$(dir $$@)
	$(SPARC_CC) $(SPARC_CFLAGS_$(lastword $(subst -, ,$(1)))) $(SPARC_LD) -o $$@ $$<
endef
$(foreach b,$(SPARC_BUILDS),$(eval $(call sparc_prog_rule,$(b))))

sparc-progs: $(SPARC_BINS)

fixtures: sparc-progs
	python3 $(SPARC_DIR)/mkfixtures.py

fixtures-deps:
	$(MAKE) deps DEB_PACKAGES="$(SPARC_FIXTURE_PACKAGES)"

sparc-layout:
	@mkdir -p $(BUILD)/tests/sparc
	$(SPARC_CC) -o $(BUILD)/tests/sparc/layout64 $(SPARC_DIR)/layout.c
	$(SPARC_CC) -m32 -o $(BUILD)/tests/sparc/layout32 $(SPARC_DIR)/layout.c
	@echo "sparc64:" && qemu-sparc64 -L /usr/sparc64-linux-gnu $(BUILD)/tests/sparc/layout64
	@echo "32-bit:" && python3 -c 'import sys; sys.path.insert(0, "$(SPARC_DIR)"); \
	  import mkfixtures, subprocess, shutil; d = mkfixtures.sysroot32(); \
	  subprocess.run(["qemu-sparc32plus", "-L", d, "$(BUILD)/tests/sparc/layout32"]); shutil.rmtree(d)'

.PHONY: sparc-progs fixtures fixtures-deps sparc-layout

sparc-sweep: $(BUILD)/corestack
	BUILD=$(BUILD) bash $(SPARC_DIR)/run_sweep.sh

.PHONY: sparc-sweep
