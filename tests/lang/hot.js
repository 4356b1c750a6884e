// A Node.js program that dies in a native call made from code V8 compiled, for
// tests/t_lang.sh: inner() runs hot in a loop until V8 optimises it (and the loop), and
// every call goes through process.kill, a native function, with signal 0 (no signal);
// the last call sends SIGABRT to the process itself, from inside the optimised code.
// Run with node --perf-basic-prof, which names the compiled code in /tmp/perf-PID.map.
'use strict';

function inner(n, sig) {
  let s = 0;
  for (let i = 0; i < 20; i++) s += (i * n) & 7;
  process.kill(process.pid, sig);
  return s;
}

function outer(n, sig) {
  return inner(n, sig) + 1;
}

// a number, as every call before passes one: a string would make V8 leave the optimised code
const SIGABRT = require('os').constants.signals.SIGABRT;
const N = 200000;
let total = 0;
for (let i = 0; i < N; i++) total += outer(i, i === N - 1 ? SIGABRT : 0);
console.log(total);
