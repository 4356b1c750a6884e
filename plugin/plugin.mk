# plugin/plugin.mk: the gdb plugin, included by the top Makefile.
#   $(BUILD)/corestack-gdb.so  a gdb JIT reader built from common/ (position-independent
#                              objects in $(BUILD)/pic) and plugin/
#   $(BUILD)/corestack.gdb     the gdb script that loads it and defines fpbt
#   make install               also puts both under $(PREFIX)/share/corestack
#   make gdb-minimal           unpacks Debian's gdb built without Python under $(BUILD)/gdb-minimal
#                              (it conflicts with the gdb package, so it is not installed)

# the descriptor of gdb where the plugin keeps its fpbt directory (plugin/fpbt.h)
PLUGIN_FD      := 979
PIC            := $(BUILD)/pic
PLUGIN_SRC     := $(wildcard plugin/*.c)
PLUGIN_OBJ     := $(COMMON_SRC:%.c=$(PIC)/%.o) $(PLUGIN_SRC:%.c=$(PIC)/%.o)
PLUGIN_SO      := $(BUILD)/corestack-gdb.so
PLUGIN_SHARE   := $(PREFIX)/share/corestack
# gdb cannot load a library built with the sanitizers (their runtime must come first)
PLUGIN_CFLAGS   = $(filter-out -fsanitize=% -fno-sanitize-recover=%,$(ALL_CFLAGS))
PLUGIN_LDFLAGS  = $(filter-out -fsanitize=%,$(ALL_LDFLAGS))

$(PIC)/%.o: %.c plugin/plugin.mk | pkg-check
	@mkdir -p $(dir $@)
	$(CC) $(PLUGIN_CFLAGS) -fPIC -Iplugin -DCST_FPBT_FD=$(PLUGIN_FD) -c $< -o $@

$(PLUGIN_SO): $(PLUGIN_OBJ) plugin/exports.map
	$(CC) $(PLUGIN_LDFLAGS) -shared -Wl,-z,defs -Wl,--version-script=plugin/exports.map -o $@ \
		$(PLUGIN_OBJ) $(shell pkg-config --libs $(PKGS) 2>/dev/null) $(NO_PC_LIBS)

# $(call plugin_script,SO_PATH) on stdin corestack.gdb.in, on stdout the script for SO_PATH
plugin_script = sed -e 's|@PLUGIN_SO@|$(1)|g' -e 's|@PLUGIN_FD@|$(PLUGIN_FD)|g'

$(BUILD)/corestack.gdb: plugin/corestack.gdb.in plugin/plugin.mk
	@mkdir -p $(dir $@)
	$(call plugin_script,$(abspath $(PLUGIN_SO))) < $< > $@

all: $(PLUGIN_SO) $(BUILD)/corestack.gdb

install: plugin-install
plugin-install: $(PLUGIN_SO) plugin/corestack.gdb.in
	install -d $(DESTDIR)$(PLUGIN_SHARE)
	install -m 644 $(PLUGIN_SO) $(DESTDIR)$(PLUGIN_SHARE)/corestack-gdb.so
	$(call plugin_script,$(PLUGIN_SHARE)/corestack-gdb.so) < plugin/corestack.gdb.in > $(DESTDIR)$(PLUGIN_SHARE)/corestack.gdb
	chmod 644 $(DESTDIR)$(PLUGIN_SHARE)/corestack.gdb

# Debian's gdb-minimal, unpacked beside the installed gdb for the tests; a machine without
# network access still runs every other test (t_plugin.sh skips the gdb-minimal ones).
GDB_MINIMAL := $(BUILD)/gdb-minimal/usr/bin/gdb
$(GDB_MINIMAL):
	@rm -rf $(BUILD)/gdb-minimal.dl && mkdir -p $(BUILD)/gdb-minimal.dl
	@( cd $(BUILD)/gdb-minimal.dl && apt-get download gdb-minimal >/dev/null 2>&1 ) && \
	 dpkg-deb -x $(BUILD)/gdb-minimal.dl/gdb-minimal_*.deb $(BUILD)/gdb-minimal && \
	 rm -rf $(BUILD)/gdb-minimal.dl || \
	 echo "warning: apt-get download gdb-minimal failed; its plugin tests will be skipped" >&2
gdb-minimal: $(GDB_MINIMAL)

check-run: $(PLUGIN_SO) $(BUILD)/corestack.gdb gdb-minimal

# binutils assembles the i386 test program; dpkg-deb unpacks gdb-minimal; gdb-multiarch and
# qemu-user (qemu-sparc64) run the SPARC sessions of tests/t_plugin_sparc.sh
DEB_PACKAGES += binutils dpkg apt gdb-multiarch qemu-user

.PHONY: plugin-install gdb-minimal
