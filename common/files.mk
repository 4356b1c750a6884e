# Compressed cores (zstd, xz, lz4), package notes, debuginfod, perf maps: libraries and the
# Debian packages they and their tests need.
FILES_PKGS := libzstd liblzma liblz4
PKGS    += $(FILES_PKGS)
DEB_PACKAGES += libzstd-dev liblzma-dev liblz4-dev zstd xz-utils lz4 debuginfod libdebuginfod1 \
                nodejs
