# Crash signatures hash with SHA-256 from nettle (small, no start-up cost: corestack's time on
# one core is mostly start-up).
CFLAGS       += $(shell pkg-config --cflags nettle 2>/dev/null)
LDLIBS       += $(shell pkg-config --libs nettle 2>/dev/null || echo -lnettle)
DEB_PACKAGES += nettle-dev
