#!/bin/sh
# Crashes examples/crash, takes its core (the kernel's, or gdb's gcore when the kernel's
# core_pattern hands cores to another program), and prints the annotated backtrace.
set -u
build=${1:-build}
top=$(pwd)
dir=$build/demo
rm -rf "$dir" && mkdir -p "$dir"
cd "$dir" || exit 1
prog=$top/$build/examples/crash
core=
case $(cat /proc/sys/kernel/core_pattern 2>/dev/null) in
"|"*) ;;
*)
	(ulimit -c unlimited; "$prog" >/dev/null 2>&1)
	core=$(ls -t core* 2>/dev/null | head -n 1)
	;;
esac
if [ -z "$core" ]; then
	gdb -batch -nx -ex run -ex 'gcore core.demo' "$prog" >/dev/null 2>&1
	core=core.demo
fi
if [ ! -f "$core" ]; then
	echo "demo: no core file was written (ulimit -c, core_pattern, and gdb all failed)" >&2
	exit 1
fi
echo "\$ corestack $dir/$core"
"$top/$build/corestack" "$core"
echo
echo "\$ corestack -v $dir/$core   (how each frame was found)"
"$top/$build/corestack" -v "$core" | sed -n '/^Thread/,$p'
exit 0
