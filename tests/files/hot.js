// A hot function compiled by V8's baseline JIT (run with --no-opt --always-sparkplug so
// the abort happens inside JIT code, not in a deoptimized interpreter frame); it aborts
// the process from inside itself.
function hotLoop(n) {
  let s = 0;
  for (let i = 0; i < n; i++) s = (s + i * 7) % 1000003;
  if (n === 4242) process.abort();
  return s;
}
let t = 0;
for (let k = 0; k < 20000; k++) t += hotLoop(1000);
hotLoop(4242);
