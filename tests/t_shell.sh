#!/bin/bash
# The interactive shell, corestack -i: scripted input on cores of the test programs
# (tests/shell/check_shell.py compares each command's output with corestack --json, the
# CLI's text, the core's bytes and objdump), then one session in a real terminal under
# tmux: Tab completion of a symbol name, history recall with the Up arrow, the history
# file kept across sessions.  Prints PASS/FAIL/SKIP lines for tests/run.sh; always exits 0.
. "$(dirname "$0")/lib/common.sh" || exit 1
SOCK=cst-shell-$$
at_exit 'tmux -L "$SOCK" kill-server 2>/dev/null'

for p in segv-g threads-g tail-fp leaf-fp; do
	[ -x "$T/$p" ] || { skip shell "no $T/$p (make test-progs)"; exit 0; }
done
mk() { python3 tests/lib/mkcore.py "$@" 2>"$W/mkcore.err" || { fail "shell-core-$2" "$(cat "$W/mkcore.err")"; return 1; }; }
args=()
mk crash "$W/segv.core" "$T/segv-g" && args+=(--segv "$W/segv.core" "$T/segv-g")
mk crash "$W/threads.core" "$T/threads-g" && args+=(--threads "$W/threads.core")
mk crash "$W/tail.core" "$T/tail-fp" crash && args+=(--tail "$W/tail.core")
mk stop "$W/leaf.core" "$T/leaf-fp" leaf entry && args+=(--leaf "$W/leaf.core")
python3 tests/shell/check_shell.py "$CS" "${args[@]}"

# --- warnings come before the first frame: the shell's output and its warnings on one
# terminal (a pty, where the output is line-buffered), for a core whose executable is
# missing (said when the core is opened) and one whose executable is another program (said
# when the first frame is symbolized)
on_pty() { python3 -c '
import os, pty, subprocess, sys
master, slave = pty.openpty()
p = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=slave, stderr=slave)
os.close(slave)
p.stdin.write(b"frame\nquit\n"); p.stdin.close()
out = b""
while True:
    try:
        b = os.read(master, 65536)
    except OSError:
        break
    if not b:
        break
    out += b
p.wait()
sys.stdout.write(out.decode("utf-8", "replace").replace("\r", ""))' "$@"; }
cp "$T/segv-g" "$W/segv-w"
if mk crash "$W/w.core" "$W/segv-w"; then
	for what in missing mismatch; do
		rm -f "$W/segv-w"
		[ $what = mismatch ] && cp "$T/threads-g" "$W/segv-w"
		on_pty "$CS" -i "$W/w.core" > "$W/w-$what.out" 2>&1
		warn=$(grep -n "^corestack: $W/w.core: .*$W/segv-w" "$W/w-$what.out" | head -1 | cut -d: -f1)
		head=$(grep -n "^core: $W/w.core " "$W/w-$what.out" | head -1 | cut -d: -f1)
		frame=$(grep -n '^#0 ' "$W/w-$what.out" | head -1 | cut -d: -f1)
		[ -n "$warn" ] && [ -n "$head" ] && [ -n "$frame" ] && [ "$warn" -lt "$head" ] && [ "$head" -lt "$frame" ] \
			&& pass "shell-warnings-first-$what" || fail "shell-warnings-first-$what" "$(head -5 "$W/w-$what.out" | tr '\n' '|')"
	done
fi

# --- a real terminal
[ -f "$W/segv.core" ] || exit 0
if ! command -v tmux >/dev/null; then
	skip shell-tmux "tmux is not installed"
	exit 0
fi
mkdir -p "$W/home"
# text goes with send-keys -l (literal): tmux would read "up" or "q" as key names
screen() { tmux -L "$SOCK" capture-pane -p -S -2000 -t "$S" 2>/dev/null; }
last() { screen | grep -v '^$' | tail -"${1:-5}"; }
# waits up to 10 s for the screen to match the extended regex $1 $2 times (default once)
wait_for() {
	for _ in $(seq 50); do
		[ "$(screen | grep -cE -- "$1")" -ge "${2:-1}" ] && return 0
		sleep 0.2
	done
	return 1
}
session() {
	tmux -L "$SOCK" new-session -d -s "$S" -x 160 -y 50 \
		"env -u XDG_STATE_HOME -u CORESTACK_HISTORY HOME='$W/home' TERM=xterm '$CS' -i '$W/segv.core'; echo SHELL-EXIT-\$?; sleep 30"
}
S=first
session
if ! wait_for '^\(corestack\) ?$'; then	# capture-pane drops the trailing blank
	fail shell-tmux-prompt "no prompt: $(screen | tail -5)"
	exit 0
fi
pass shell-tmux-prompt
tmux -L "$SOCK" send-keys -t "$S" -l 'disas cras'
tmux -L "$SOCK" send-keys -t "$S" Tab
if wait_for '^\(corestack\) disas crasher'; then pass shell-tmux-complete-symbol
else fail shell-tmux-complete-symbol "$(last 3)"; fi
tmux -L "$SOCK" send-keys -t "$S" Enter
if wait_for 'End of assembler dump' && screen | grep -q 'Dump of assembler code for function crasher:' &&
   screen | grep -qE '^=> 0x[0-9a-f]+ <\+[0-9]+>:'; then pass shell-tmux-disassemble
else fail shell-tmux-disassemble "$(last 5)"; fi
tmux -L "$SOCK" send-keys -t "$S" -l 'i reg'
tmux -L "$SOCK" send-keys -t "$S" Tab             # "i registers "
tmux -L "$SOCK" send-keys -t "$S" -l 'rip'
tmux -L "$SOCK" send-keys -t "$S" Enter
if wait_for '^rip +0x[0-9a-f]+ +<crasher\+[0-9]+>' && screen | grep -q '^(corestack) i registers rip'; then
	pass shell-tmux-complete-info-subcommand
else fail shell-tmux-complete-info-subcommand "$(last 3)"; fi
tmux -L "$SOCK" send-keys -t "$S" Up Up Enter            # history: back to "disas crasher"
if wait_for 'Dump of assembler code for function crasher:' 2; then pass shell-tmux-history-up
else fail shell-tmux-history-up "$(last 5)"; fi
tmux -L "$SOCK" send-keys -t "$S" -l 'half a line'
tmux -L "$SOCK" send-keys -t "$S" C-c            # drops the line, the shell goes on
tmux -L "$SOCK" send-keys -t "$S" -l 'frame 1'
tmux -L "$SOCK" send-keys -t "$S" Enter
if wait_for '^#1  0x[0-9a-f]+ in middle \(\)' && ! screen | grep -q SHELL-EXIT; then pass shell-tmux-ctrl-c
else fail shell-tmux-ctrl-c "$(last 5)"; fi
tmux -L "$SOCK" send-keys -t "$S" -l 'frobnicate'
tmux -L "$SOCK" send-keys -t "$S" Enter
tmux -L "$SOCK" send-keys -t "$S" -l 'q'
tmux -L "$SOCK" send-keys -t "$S" Enter
if wait_for 'SHELL-EXIT-0' && screen | grep -q 'Undefined command: "frobnicate"'; then pass shell-tmux-quit
else fail shell-tmux-quit "$(last 5)"; fi
hist=$W/home/.corestack_history
if grep -qx 'disas crasher *' "$hist" 2>/dev/null && grep -qx 'q' "$hist"; then pass shell-history-file
else fail shell-history-file "$(cat "$hist" 2>&1)"; fi
# a second session recalls the first one's commands: Up Up Up Up is "disas crasher" again
# (after "q", "frobnicate" and "frame 1")
S=second                                         # a new session in the same tmux server
session
wait_for '^\(corestack\) ?$'
tmux -L "$SOCK" send-keys -t "$S" Up Up Up Up Enter
if wait_for 'Dump of assembler code for function crasher:'; then pass shell-tmux-history-across-sessions
else fail shell-tmux-history-across-sessions "$(last 5)"; fi
# Ctrl-D only once the shell is back at its prompt (sent earlier, the line discipline of a
# loaded machine may take it before readline has the terminal)
wait_for 'End of assembler dump' && wait_for '^\(corestack\) ?$' && sleep 0.5
tmux -L "$SOCK" send-keys -t "$S" C-d
if wait_for 'SHELL-EXIT-0'; then pass shell-tmux-ctrl-d
else fail shell-tmux-ctrl-d "$(last 3)"; fi
exit 0
