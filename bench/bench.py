#!/usr/bin/env python3
"""bench.py: corestack's speed on cores with many threads, against gdb, eu-stack and cat.

  bench.py --corestack BIN --progs DIR [--runs N] [--eu-bound SECONDS] [--only NAME,...]

DIR holds manythreads-fp and manythreads-cfi (bench/manythreads.c, built by bench/bench.mk);
the cores are made there once (tests/lib/mkcore.py) and kept.  For each core:
  1. corestack --json and gdb (bench/gdb_pcs.py) must find the same frames, pc for pc, on
     every thread; a core where they differ gets no time (a fast wrong answer does not count).
  2. N rounds, each running once, one after the other: cat CORE (the floor: reading the file),
     corestack, corestack --json, gdb -batch -ex 'set print frame-arguments none'
     -ex 'thread apply all bt', and eu-stack (dropped from the rounds once a run takes longer
     than the bound).  The core and the program are read once, untimed, before each run, so
     that every run finds them in the page cache.  Output goes to /dev/null; wall time is
     measured around each run, peak RSS is the child's ru_maxrss.
  3. On the 1,001- and 10,001-thread cores, 15 more rounds of cat, corestack and corestack
     --json in turns (paired), from the core dropped from the page cache and read back in
     order: the times vary too much from run to run for three rounds.
Then the cases of other kinds (the gdb plugin, many modules, a deep stack) and the cold ones:
cat and corestack on the 10,001-thread cores dropped from the page cache before each run.
The table gives medians; the targets are checked from them at the end, the ratios of text to
cat and of --json to text and to cat from the rounds in turns.  Exit status 0 when
every core's frames matched, 1 otherwise.
"""
import argparse, json, os, platform, re, resource, signal, statistics, subprocess, sys, tempfile, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
MKCORE = os.path.join(HERE, "..", "tests", "lib", "mkcore.py")
GDB_PCS = os.path.join(HERE, "gdb_pcs.py")

# frames of the deep-stack core's thread: bench/deep.c's levels
DEEP = 100000

# name, worker threads (the main thread comes on top), build
CORES = [(t, n, b) for t, n in (("1", 0), ("1001", 1000), ("10001", 10000)) for b in ("fp", "cfi")]


def make_core(progs, threads, build):
    prog = os.path.join(progs, "manythreads-" + build)
    core = os.path.join(progs, "t%s-%s.core" % (threads, build))
    if not os.path.exists(core) or os.path.getmtime(core) < os.path.getmtime(prog):
        nworkers = int(threads) - 1
        subprocess.run([sys.executable, MKCORE, "crash", core, prog, str(nworkers)], check=True)
    return prog, core


def run(argv, bound=None):
    """Runs ARGV with its output to /dev/null under /usr/bin/time; returns (wall seconds,
    peak RSS KiB, CPU seconds), wall None when it was stopped at BOUND seconds.  The peak RSS
    comes from /usr/bin/time because a child forked from this script inherits the script's
    own peak (Linux keeps ru_maxrss across exec)."""
    with open(os.devnull, "wb") as null, tempfile.NamedTemporaryFile("r") as tf:
        t0 = time.perf_counter()
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M %U %S", "-o", tf.name] + argv,
                             stdout=null, stderr=null, stdin=subprocess.DEVNULL,
                             start_new_session=True)
        timer = None
        killed = []
        if bound:
            def kill():
                killed.append(1)
                os.killpg(p.pid, signal.SIGKILL)
            timer = threading.Timer(bound, kill)
            timer.start()
        p.wait()
        wall = time.perf_counter() - t0
        if timer:
            timer.cancel()
        if killed:
            return None, 0, 0
        rss, user, system = tf.read().split("\n")[-2].split()
    return wall, int(rss), float(user) + float(system)


def corestack_frames(cs, core, extra=()):
    """{tid: [pc, ...]} of the frames corestack's walk found (inlined functions and lost
    tail calls left out), and the frame counts per thread (every frame printed)."""
    out = subprocess.run([cs, "--json", *extra, core], capture_output=True, text=True).stdout
    doc = json.loads(out)
    walk, counts = {}, []
    for t in doc["threads"]:
        walk[t["tid"]] = [int(f["pc"], 16) for f in t["frames"]
                          if not f["inlined"] and f["marker"] != "lost tail call"]
        counts.append(len(t["frames"]))
    return walk, counts


def gdb_frames(prog, core):
    out = subprocess.run(["gdb", "-nx", "-batch", "-x", GDB_PCS, prog, core],
                         capture_output=True, text=True).stdout
    frames, cur = {}, None
    for line in out.splitlines():
        if line.startswith("T "):
            cur = frames.setdefault(int(line[2:]), [])
        elif line.startswith("0x") and cur is not None:
            cur.append(int(line, 16))
    return frames


FRAME_PC = re.compile(r"^#\d+\s+0x([0-9a-f]+) ")
THREAD = re.compile(r"^Thread \d+ .*\(LWP (\d+)\)\)?:$")


def fpbt_frames(out):
    """{tid: [pc, ...]} of `thread apply all fpbt` output: the frames printed with a pc (a
    function inlined into another is printed without one), lost tail calls left out as in
    corestack_frames."""
    frames, cur = {}, None
    for line in out.splitlines():
        m = THREAD.match(line)
        if m:
            cur = frames.setdefault(int(m.group(1)), [])
            continue
        m = FRAME_PC.match(line)
        if m and cur is not None and "[lost tail call]" not in line:
            cur.append(int(m.group(1), 16))
    return frames


def compare(cs, gd):
    """None when both found the same frames on every thread, else one line saying where not."""
    if set(cs) != set(gd):
        return "threads differ: corestack %d, gdb %d" % (len(cs), len(gd))
    bad = [t for t in cs if cs[t] != gd[t]]
    if bad:
        t = bad[0]
        return "%d thread(s) differ, e.g. %d: corestack %s, gdb %s" % (
            len(bad), t, " ".join("%#x" % p for p in cs[t]), " ".join("%#x" % p for p in gd[t]))
    return None


def machine():
    model = "?"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as f:
        mem = int(f.readline().split()[1]) // 1024 // 1024
    load = os.getloadavg()
    return "%s, nproc %d, %s, %d GiB memory, load average %.2f %.2f %.2f" % (
        platform.machine(), os.cpu_count(), model, mem, *load)


def fmt_t(t):
    return "-" if t is None else ("%.3f" % t if t < 10 else "%.1f" % t)


def ratio(a, b):
    return "-" if a is None or b is None or b == 0 else ("%.1f" % (a / b) if a / b < 100 else "%.0f" % (a / b))


def warm(paths):
    """Reads each of PATHS once, untimed, so that the run timed next finds them in the page
    cache: the kernel's reclaim (kdamond, memory pressure) may have dropped them while gdb
    or eu-stack ran, and the tool timed first would pay the disk for the others."""
    buf = bytearray(1 << 20)
    for path in paths:
        with open(path, "rb", buffering=0) as f:
            while f.readinto(buf):
                pass


def rounds(tools, runs, files=()):
    """Runs each of TOOLS ({key: argv}) once per round for RUNS rounds, FILES read into the
    page cache before each run; {key: [wall seconds, a round each]}, {key: [CPU seconds]}."""
    times = {k: [] for k in tools}
    cpus = {k: [] for k in tools}
    for _ in range(runs):
        for k, argv in tools.items():
            warm(files)
            wall, _, cpu = run(argv)
            times[k].append(wall)
            cpus[k].append(cpu)
    return times, cpus


def medians(tools, runs, files=()):
    """rounds(), each tool's median: {key: wall seconds}, {key: CPU seconds}."""
    times, cpus = rounds(tools, runs, files)
    return ({k: statistics.median(v) for k, v in times.items()},
            {k: statistics.median(v) for k, v in cpus.items()})


# Rounds of cat, corestack and corestack --json in turns for the ratios between them on the
# 1,001- and 10,001-thread cores: their times over the same warm core vary from round to
# round, more than three rounds' median smooths.
PAIR_ROUNDS = 15


def paired(core, prog, corestack):
    """cat CORE, corestack CORE and corestack --json CORE in turns, PAIR_ROUNDS rounds, the core
    read before each run; the medians of their wall times and the lowest and highest ratio of
    corestack to cat in a round.  The core is first dropped from the page cache and read back
    in order: how the page cache holds a file sets how fast cat copies it out (3.3x between
    the pages one read in order leaves and single pages, bench/README.md), and a core the
    kernel's reclaim thinned and reads brought back in pieces would make cat, and the ratio,
    slower by chance."""
    evict(core)
    warm((core,))
    times, _ = rounds({"cat": ["cat", core], "cs": [corestack, core], "csjson": [corestack, "--json", core]},
                      PAIR_ROUNDS, (prog, core))
    cat, cs = times["cat"], times["cs"]
    ratios = [b / c for b, c in zip(cs, cat)]
    return dict(cat=statistics.median(cat), cs=statistics.median(cs), csjson=statistics.median(times["csjson"]),
                lo=min(ratios), hi=max(ratios))


def gdb_case(a, only, rows):
    """`thread apply all fpbt` (the plugin) against gdb's own `thread apply all bt` (gdb
    alone, no plugin loaded) on the 57- and 1,001-thread fp cores; fpbt's frames must be
    gdb's first.  Returns the targets."""
    targets = []
    for threads in ("57", "1001"):
        name = "fpbt-t%s-fp" % threads
        if only and name not in only:
            continue
        prog, core = make_core(a.progs, threads, "fp")
        fpbt = ["gdb", "-nx", "-batch", "-x", a.gdb_script, "-ex", "set print frame-arguments none",
                "-ex", "thread apply all fpbt", prog, core]
        out = subprocess.run(fpbt, capture_output=True, text=True, stdin=subprocess.DEVNULL).stdout
        diff = compare(fpbt_frames(out), gdb_frames(prog, core))
        if diff:
            print("%s: fpbt and gdb disagree: %s" % (name, diff))
            rows.append(None)
            continue
        med, cpu = medians({
            "fpbt": fpbt,
            "bt": ["gdb", "-nx", "-batch", "-ex", "set print frame-arguments none",
                   "-ex", "thread apply all bt", prog, core],
        }, a.runs, (prog, core))
        r = med["fpbt"] / med["bt"]
        rows.append("| %s | thread apply all fpbt / bt | %s / %s | %s / %s | %.2f |" % (
            name, fmt_t(med["fpbt"]), fmt_t(med["bt"]), fmt_t(cpu["fpbt"]), fmt_t(cpu["bt"]), r))
        print("%s: matched gdb; fpbt %s, gdb's bt %s" % (name, fmt_t(med["fpbt"]), fmt_t(med["bt"])), flush=True)
        targets.append(("%s: within 1.5x of gdb's bt" % name, r <= 1.5, "%.2fx" % r))
    return targets


def plugin_bt_case(a, only, rows):
    """gdb's own `thread apply all bt` with the plugin loaded (its unwinder asked for every
    frame) against gdb alone, on the 57- and 1,001-thread fp cores; both must print the
    same backtraces first.  Returns the targets."""
    targets = []
    for threads in ("57", "1001"):
        name = "plugin-bt-t%s-fp" % threads
        if only and name not in only:
            continue
        prog, core = make_core(a.progs, threads, "fp")
        bt = ["-ex", "set print frame-arguments none", "-ex", "thread apply all bt", prog, core]
        tools = {"plugin": ["gdb", "-nx", "-batch", "-x", a.gdb_script] + bt, "bt": ["gdb", "-nx", "-batch"] + bt}
        outs = {k: subprocess.run(v, capture_output=True, text=True, stdin=subprocess.DEVNULL).stdout
                for k, v in tools.items()}
        if outs["plugin"] != outs["bt"] or "#1 " not in outs["bt"]:
            print("%s: gdb's bt prints other frames with the plugin loaded" % name)
            rows.append(None)
            continue
        med, cpu = medians(tools, a.runs, (prog, core))
        r = med["plugin"] / med["bt"]
        rows.append("| %s | thread apply all bt with / without the plugin | %s / %s | %s / %s | %.2f |" % (
            name, fmt_t(med["plugin"]), fmt_t(med["bt"]), fmt_t(cpu["plugin"]), fmt_t(cpu["bt"]), r))
        print("%s: same frames; bt with the plugin %s, without %s" % (name, fmt_t(med["plugin"]), fmt_t(med["bt"])),
              flush=True)
        targets.append(("%s: within 1.5x of gdb's bt without the plugin" % name, r <= 1.5, "%.2fx" % r))
    return targets


def checked_core(a, name, prog, core, args, rows):
    """Makes CORE of PROG ARGS (when older than PROG) and checks that corestack -n 0 finds
    gdb's frames.  Returns the frame counts per thread, or None (a None row added) when
    they differ."""
    if not os.path.exists(core) or os.path.getmtime(core) < os.path.getmtime(prog):
        subprocess.run([sys.executable, MKCORE, "crash", core, prog] + args, check=True)
    cs, counts = corestack_frames(a.corestack, core, ["-n", "0"])
    diff = compare(cs, gdb_frames(prog, core))
    if diff:
        print("%s: corestack and gdb disagree: %s" % (name, diff))
        rows.append(None)
        return None
    return counts


def modules_case(a, only, rows):
    """A core of bench/manymods.py's program (one frame in each of its shared libraries):
    corestack against eu-stack, frames checked against gdb.  Returns the targets."""
    if only and "modules" not in only:
        return []
    prog = os.path.join(a.progs, "manymods", "manymods")
    core = os.path.join(a.progs, "manymods.core")
    counts = checked_core(a, "modules", prog, core, [], rows)
    if counts is None:
        return []
    med, cpu = medians({
        "cs": [a.corestack, "-n", "0", core],
        "eu": ["eu-stack", "-n", "0", "--core=" + core, "--executable=" + prog],
    }, a.runs, (prog, core))
    nmods = sum(1 for f in os.listdir(os.path.dirname(prog)) if f.endswith(".so"))
    r = med["cs"] / med["eu"]
    rows.append("| modules (%d libraries, %d frames) | corestack / eu-stack | %s / %s | %s / %s | %.2f |" % (
        nmods, counts[0], fmt_t(med["cs"]), fmt_t(med["eu"]), fmt_t(cpu["cs"]), fmt_t(cpu["eu"]), r))
    print("modules: matched gdb; corestack %s, eu-stack %s" % (fmt_t(med["cs"]), fmt_t(med["eu"])), flush=True)
    return [("modules: %d libraries as fast as eu-stack or faster" % nmods, r <= 1.0, "%.2fx" % r)]


def deep_case(a, only, rows):
    """A core of bench/deep.c with DEEP frames on its one thread: corestack against gdb's
    bt, frames checked against gdb.  Returns the targets."""
    if only and "deep" not in only:
        return []
    prog = os.path.join(a.progs, "deep-fp")
    core = os.path.join(a.progs, "deep.core")
    counts = checked_core(a, "deep", prog, core, [str(DEEP)], rows)
    if counts is None:
        return []
    med, cpu = medians({
        "cs": [a.corestack, "-n", "0", core],
        "gdb": ["gdb", "-nx", "-batch", "-ex", "set print frame-arguments none", "-ex", "bt", prog, core],
    }, a.runs, (prog, core))
    r = med["gdb"] / med["cs"]
    rows.append("| deep (%d frames) | corestack / gdb bt | %s / %s | %s / %s | 1/%.0f |" % (
        counts[0], fmt_t(med["cs"]), fmt_t(med["gdb"]), fmt_t(cpu["cs"]), fmt_t(cpu["gdb"]), r))
    print("deep: matched gdb; corestack %s, gdb %s" % (fmt_t(med["cs"]), fmt_t(med["gdb"])), flush=True)
    return [("deep: %d frames at least 20x faster than gdb" % counts[0], r >= 20, "%.0fx" % r)]


def evict(path):
    """Drops PATH's pages from the page cache (POSIX_FADV_DONTNEED drops clean pages, and a
    core written long before is clean).  Returns the bytes of it still cached (fincore), or
    None when fincore cannot tell."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    try:
        out = subprocess.run(["fincore", "--bytes", "--noheadings", "--output", "RES", path],
                             capture_output=True, text=True).stdout
        return int(out.split()[0])
    except (OSError, ValueError, IndexError):
        return None


def cold_case(a, only, rows):
    """`cat CORE` and `corestack CORE` (text) on the 10,001-thread cores with the core
    dropped from the page cache before each run: the stack reads wait for the disk.  The
    cold run must print what a warm one prints.  No target: the row is for reading."""
    for build in ("fp", "cfi"):
        name = "cold-t10001-%s" % build
        if only and name not in only:
            continue
        _, core = make_core(a.progs, "10001", build)
        warm = subprocess.run([a.corestack, core], capture_output=True, stdin=subprocess.DEVNULL).stdout
        evict(core)
        cold = subprocess.run([a.corestack, core], capture_output=True, stdin=subprocess.DEVNULL).stdout
        if cold != warm:
            print("%s: corestack prints other frames when the core is not in the page cache" % name)
            rows.append(None)
            continue
        tools = {"cs": [a.corestack, core], "cat": ["cat", core]}
        times = {k: [] for k in tools}
        cpus = {k: [] for k in tools}
        kept = 0
        for _ in range(a.runs):
            for k, argv in tools.items():
                left = evict(core)
                kept = max(kept, left or 0)
                wall, _, cpu = run(argv)
                times[k].append(wall)
                cpus[k].append(cpu)
        med = {k: statistics.median(v) for k, v in times.items()}
        cpu = {k: statistics.median(v) for k, v in cpus.items()}
        rows.append("| %s | corestack / cat, the core evicted before each run | %s / %s | %s / %s | %.2f |" % (
            name, fmt_t(med["cs"]), fmt_t(med["cat"]), fmt_t(cpu["cs"]), fmt_t(cpu["cat"]),
            med["cs"] / med["cat"]))
        print("%s: same text cold and warm; evicted before each run: corestack %s, cat %s%s"
              % (name, fmt_t(med["cs"]), fmt_t(med["cat"]),
                 "; at most %.1f MiB of the core stayed cached" % (kept / 2**20) if kept else ""), flush=True)
    return []


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--corestack", required=True)
    ap.add_argument("--progs", required=True)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--eu-bound", type=float, default=60.0)
    ap.add_argument("--only", default="")
    ap.add_argument("--gdb-script", required=True, help="the plugin's corestack.gdb")
    a = ap.parse_args()
    resource.setrlimit(resource.RLIMIT_CORE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    only = set(a.only.split(",")) if a.only else None
    print("machine: %s" % machine())
    print("%d rounds per core; eu-stack bound %.0f s per run; times are medians in seconds,"
          " RSS peak MiB" % (a.runs, a.eu_bound))
    rows, ok = [], True
    # corestack's text walked by one process too, where the build has --jobs (the default
    # forks workers on a core of 256 threads or more)
    one_process = subprocess.run([a.corestack, "--jobs", "1", "--version"], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL).returncode == 0
    for threads, _, build in CORES:
        name = "t%s-%s" % (threads, build)
        if only and name not in only:
            continue
        prog, core = make_core(a.progs, threads, build)
        cs, counts = corestack_frames(a.corestack, core)
        diff = compare(cs, gdb_frames(prog, core))
        if diff:
            print("%s: corestack and gdb disagree: %s" % (name, diff))
            ok = False
            continue
        tools = {
            "cat": ["cat", core],
            "cs": [a.corestack, core],
            "csjson": [a.corestack, "--json", core],
            "gdb": ["gdb", "-nx", "-batch", "-ex", "set print frame-arguments none",
                    "-ex", "thread apply all bt", prog, core],
            "eu": ["eu-stack", "--core=" + core, "--executable=" + prog],
        }
        if one_process:
            tools["cs1"] = [a.corestack, "--jobs", "1", core]
        times = {k: [] for k in tools}
        cpus = {k: [] for k in tools}
        rss = {k: 0 for k in tools}
        eu_over = False
        for r in range(a.runs):
            for k, argv in tools.items():
                if k == "eu" and eu_over:
                    continue
                warm((prog, core))
                wall, maxrss, cpu = run(argv, a.eu_bound if k == "eu" else None)
                if wall is None:
                    eu_over = True
                    continue
                times[k].append(wall)
                cpus[k].append(cpu)
                rss[k] = max(rss[k], maxrss)
        med = {k: statistics.median(v) if v else None for k, v in times.items()}
        cpu = {k: statistics.median(v) if v else None for k, v in cpus.items()}
        row = dict(name=name, threads=int(threads), size=os.path.getsize(core) / 2**20,
                   frames=statistics.mean(counts), fmin=min(counts), fmax=max(counts),
                   med=med, rss={k: v / 1024 for k, v in rss.items()}, eu_over=eu_over)
        rows.append(row)
        print("%s: matched gdb on %d threads; cat %s, corestack %s / --json %s, gdb %s, eu-stack %s"
              % (name, len(cs), fmt_t(med["cat"]), fmt_t(med["cs"]), fmt_t(med["csjson"]),
                 fmt_t(med["gdb"]), "> %.0f" % a.eu_bound if eu_over else fmt_t(med["eu"])),
              flush=True)
        print("%s: CPU seconds (user+sys, median): cat %s, corestack %s / --json %s, gdb %s, eu-stack %s"
              % (name, fmt_t(cpu["cat"]), fmt_t(cpu["cs"]), fmt_t(cpu["csjson"]), fmt_t(cpu["gdb"]),
                 "-" if eu_over else fmt_t(cpu["eu"])), flush=True)
        if one_process:
            print("%s: corestack --jobs 1 (one process): %s s, CPU %s s, %.2fx of cat"
                  % (name, fmt_t(med["cs1"]), fmt_t(cpu["cs1"]), med["cs1"] / med["cat"]), flush=True)
        if int(threads) >= 1000:
            row["pair"] = paired(core, prog, a.corestack)
            pr = row["pair"]
            print("%s: cat, corestack and --json in turns, %d rounds: cat %.4f, corestack %.4f: %.2fx"
                  " (rounds %.2f-%.2fx), --json %.4f: %.2fx of text" % (
                      name, PAIR_ROUNDS, pr["cat"], pr["cs"], pr["cs"] / pr["cat"], pr["lo"], pr["hi"],
                      pr["csjson"], pr["csjson"] / pr["cs"]), flush=True)

    print()
    print("| core | MiB | frames/thread | cat | corestack | corestack --json | gdb | eu-stack"
          " | RSS corestack / --json / gdb / eu-stack | corestack/gdb | corestack/eu-stack"
          " | corestack/cat | µs per thread |")
    print("|" + " --- |" * 14)
    for r in rows:
        m, s = r["med"], r["rss"]
        eu = "> %.0f" % a.eu_bound if r["eu_over"] else fmt_t(m["eu"])
        both = lambda f: " / ".join(f(m[k]) for k in ("cs", "csjson"))
        print("| %s | %.0f | %.1f (%d-%d) | %s | %s | %s | %s | %s | %.0f / %.0f / %.0f / %s | %s | %s | %s | %s |" % (
            r["name"], r["size"], r["frames"], r["fmin"], r["fmax"], fmt_t(m["cat"]),
            fmt_t(m["cs"]), fmt_t(m["csjson"]), fmt_t(m["gdb"]), eu,
            s["cs"], s["csjson"], s["gdb"], "-" if r["eu_over"] else "%.0f" % s["eu"],
            both(lambda cs: "1/" + ratio(m["gdb"], cs)),
            "-" if r["eu_over"] else both(lambda cs: "1/" + ratio(m["eu"], cs)),
            both(lambda cs: ratio(cs, m["cat"])), both(lambda cs: "%.1f" % (1e6 * cs / r["threads"]))))
    print("(ratio and per-thread columns: text / --json)")
    print()
    by = {r["name"]: r for r in rows}
    targets = []
    for out, key in (("text", "cs"), ("--json", "csjson")):
        for b in ("fp", "cfi"):
            big, mid = by.get("t10001-" + b), by.get("t1001-" + b)
            if big:
                m = big["med"]
                cs = m[key]
                targets.append(("t10001-%s %s: at least 40x faster than gdb" % (b, out), m["gdb"] / cs >= 40,
                                "%.1fx" % (m["gdb"] / cs)))
                targets.append(("t10001-%s %s: within 4x of cat" % (b, out), cs / m["cat"] <= 4,
                                "%.1fx" % (cs / m["cat"])))
                if out == "text":
                    # the target: a walk reads only the stack bytes it touches; from the
                    # rounds in turns, which cat's spread from run to run moves less
                    pr = big["pair"]
                    targets.append(("t10001-%s text: within 0.6x of cat" % b, pr["cs"] <= 0.6 * pr["cat"],
                                    "%.2fx in %d rounds in turns" % (pr["cs"] / pr["cat"], PAIR_ROUNDS)))
                rs = big["rss"][key]
                targets.append(("t10001-%s %s: peak RSS below gdb's" % (b, out), rs < big["rss"]["gdb"],
                                "%.0f MiB vs %.0f MiB" % (rs, big["rss"]["gdb"])))
            if mid:
                m = mid["med"]
                cs = m[key]
                if mid["eu_over"]:
                    targets.append(("t1001-%s %s: at least 100x faster than eu-stack" % (b, out),
                                    a.eu_bound / cs >= 100, "eu-stack > %.0f s bound: > %.0fx" % (a.eu_bound, a.eu_bound / cs)))
                else:
                    targets.append(("t1001-%s %s: at least 100x faster than eu-stack" % (b, out), m["eu"] / cs >= 100,
                                    "%.0fx" % (m["eu"] / cs)))
            one = by.get("t1-" + b)
            if big and mid and one:
                # per-thread cost with the start-up cost (the 1-thread core's time) taken out
                pm = (mid["med"][key] - one["med"][key]) / (mid["threads"] - 1)
                pb = (big["med"][key] - mid["med"][key]) / (big["threads"] - mid["threads"])
                targets.append(("%s %s: time per thread flat from 1,001 to 10,001" % (b, out), pb <= 1.25 * pm,
                                "%.1f µs per thread up to 1,001, %.1f µs per thread beyond" % (1e6 * pm, 1e6 * pb)))
    # --json against text: the same walk, only the writer differs; from the rounds in turns
    for b in ("fp", "cfi"):
        for size in ("1001", "10001"):
            r = by.get("t%s-%s" % (size, b))
            if r:
                pr = r["pair"]
                targets.append(("t%s-%s --json: within 1.3x of text" % (size, b), pr["csjson"] <= 1.3 * pr["cs"],
                                "%.2fx in %d rounds in turns" % (pr["csjson"] / pr["cs"], PAIR_ROUNDS)))
        big = by.get("t10001-" + b)
        if big:
            pr = big["pair"]
            targets.append(("t10001-%s --json: within 2x of cat" % b, pr["csjson"] <= 2 * pr["cat"],
                            "%.2fx in %d rounds in turns" % (pr["csjson"] / pr["cat"], PAIR_ROUNDS)))
    rows2 = []
    targets += gdb_case(a, only, rows2) + plugin_bt_case(a, only, rows2) + modules_case(a, only, rows2) + deep_case(a, only, rows2)
    targets += cold_case(a, only, rows2)
    if rows2:
        print()
        print("| case | compared | wall seconds | CPU seconds | ratio |")
        print("| --- | --- | --- | --- | --- |")
        for r in rows2:
            if r is None:
                ok = False
            else:
                print(r)
        print()
    for what, met, how in targets:
        print("%-62s %s (%s)" % (what, "met" if met else "NOT MET", how))
    print("load average at the end: %.2f %.2f %.2f" % os.getloadavg())
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
