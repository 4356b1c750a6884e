# Crash signatures hash with SHA-256 from OpenSSL's libcrypto.
CFLAGS       += $(shell pkg-config --cflags libcrypto 2>/dev/null)
LDLIBS       += $(shell pkg-config --libs libcrypto 2>/dev/null || echo -lcrypto)
DEB_PACKAGES += libssl-dev
