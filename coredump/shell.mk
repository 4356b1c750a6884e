# coredump/shell.mk: the interactive shell (corestack -i, coredump/shell*.c).  Its sources
# are built with the CLI's (coredump/*.c); tests/t_shell.sh drives it with scripted input
# and, once, in a real terminal under tmux.
DEB_PACKAGES += tmux
