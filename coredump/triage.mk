# Crash signatures hash with SHA-256 from nettle (small, no start-up cost: corestack's time on
# one core is mostly start-up).
PKGS         += nettle
DEB_PACKAGES += nettle-dev
