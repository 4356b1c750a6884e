# The manual page corestack(1), installed by `make install` under $(PREFIX)/share/man/man1.
MANDIR ?= $(PREFIX)/share/man

install: install-man
install-man:
	install -d $(DESTDIR)$(MANDIR)/man1
	install -m 644 doc/corestack.1 $(DESTDIR)$(MANDIR)/man1/corestack.1

# man -l renders it in the tests (tests/t_triage.sh)
DEB_PACKAGES += man-db groff-base

.PHONY: install-man
