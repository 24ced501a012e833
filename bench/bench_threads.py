"""Threads that never lose: flexarray on one thread, on its default thread count
and NumPy, for elementwise functions, reductions and copies from 1 element to 64M, with the
second core idle and with it busy (another process spinning).

``FLEXARRAY_NUM_THREADS`` is read once, at import, so each configuration is a worker process
of its own: ``one`` (FLEXARRAY_NUM_THREADS=1), ``default`` (the CPUs this process may use)
and, with ``--forced``, ``forced`` (the default thread count with every thread gate moved to
1 element: what a second thread would do at each size; used to set the gates). NumPy is
timed in the ``one`` worker. The driver keeps the workers alive and asks them in turn, per
operation and size: every configuration once per round, the order rotated between rounds,
``--rounds`` rounds with the second core idle, then as many with a process spinning on it
("busy"). Each measurement is a batch of calls lasting ``--batch`` seconds (at least one
call); a cell's time is the median over rounds, its ratios the median of the per-round
ratios (paired, so slow drifts of the shared machine cancel). The rounds, summaries and
tables are bench/_harness.py's; the workers time their batches with its ``time_calls``.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE PYTHONPATH=. python bench/bench_threads.py \\
        --json bench/results/threads.json [--forced] [--ops add_f64,exp_f32] [--max-size 16M]
    python bench/plot_threads.py bench/results/threads.json bench/results/threads.png

The table prints per operation and size: times on one thread, default, NumPy, then
default/one (above 1: the default is slower) and flexarray/NumPy, idle | busy.
"""
import argparse
import gc
import json
import math
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import Table, median, paired_ratio, rounds, time_calls  # noqa: E402

SIZES = [4 ** k for k in range(9)] + [2 ** k for k in range(17, 27)]  # 1 .. 64M


def _shape2(n):
    k = n.bit_length() - 1
    r = 1 << ((k + 1) // 2)
    return (r, n // r)


# name -> (kind, make inputs: (n, rng) -> tuple of NumPy arrays, flexarray call, NumPy call)
def _ops():
    def rand(n, rng, dtype, shape=None):
        a = (rng.random(n, dtype=np.float32) * 4 - 1).astype(dtype)
        return a.reshape(shape) if shape else a

    def binary(dtype):
        return lambda n, rng: (rand(n, rng, dtype), rand(n, rng, dtype))

    def unary(dtype, shape=False):
        return lambda n, rng: (rand(n, rng, dtype, _shape2(n) if shape else None),)

    ops = {
        "add_f32": ("elementwise, memory", binary(np.float32),
                    lambda xp, a, b: xp.add(a, b), np.add),
        "add_f64": ("elementwise, memory", binary(np.float64),
                    lambda xp, a, b: xp.add(a, b), np.add),
        "mul_scalar_f64": ("elementwise, memory", unary(np.float64),
                           lambda xp, a: xp.multiply(a, 1.5), lambda a: np.multiply(a, 1.5)),
        "exp_f32": ("elementwise, compute", unary(np.float32), lambda xp, a: xp.exp(a), np.exp),
        "exp_f64": ("elementwise, compute", unary(np.float64), lambda xp, a: xp.exp(a), np.exp),
        "sin_f32": ("elementwise, compute", unary(np.float32), lambda xp, a: xp.sin(a), np.sin),
        "sin_f64": ("elementwise, compute", unary(np.float64), lambda xp, a: xp.sin(a), np.sin),
        "add_f16": ("half kernel", binary(np.float16), lambda xp, a, b: xp.add(a, b), np.add),
        "where_f64": ("where (select kernel)",
                      lambda n, rng: (rng.random(n) < 0.5, rand(n, rng, np.float64),
                                      rand(n, rng, np.float64)),
                      lambda xp, c, a, b: xp.where(c, a, b), np.where),
        "take_f32": ("gather", lambda n, rng: (rand(n, rng, np.float32),
                                               rng.integers(0, n, n)),
                     lambda xp, a, i: xp.take(a, i), np.take),
        "take_rows_f32": ("gather", lambda n, rng: (
                              rand(n, rng, np.float32, _shape2(n)),
                              rng.integers(0, _shape2(n)[0], _shape2(n)[0])),
                          lambda xp, a, i: xp.take(a, i, axis=0),
                          lambda a, i: np.take(a, i, axis=0)),
        "copyT_f32": ("copy (transposed)", unary(np.float32, True),
                      lambda xp, a: xp.reshape(a.T, (-1,)), lambda a: a.T.reshape(-1)),
        "copyT_f64": ("copy (transposed)", unary(np.float64, True),
                      lambda xp, a: xp.reshape(a.T, (-1,)), lambda a: a.T.reshape(-1)),
        "sum_f32": ("reduction", unary(np.float32, True), lambda xp, a: xp.sum(a), np.sum),
        "sum_f32_ax0": ("reduction", unary(np.float32, True),
                        lambda xp, a: xp.sum(a, axis=0), lambda a: np.sum(a, axis=0)),
        "sum_f32_ax1": ("reduction", unary(np.float32, True),
                        lambda xp, a: xp.sum(a, axis=1), lambda a: np.sum(a, axis=1)),
        "max_f32": ("reduction", unary(np.float32, True), lambda xp, a: xp.max(a), np.max),
        "max_f32_ax0": ("reduction", unary(np.float32, True),
                        lambda xp, a: xp.max(a, axis=0), lambda a: np.max(a, axis=0)),
        "max_f32_ax1": ("reduction", unary(np.float32, True),
                        lambda xp, a: xp.max(a, axis=1), lambda a: np.max(a, axis=1)),
        "sum_f64_ax0": ("reduction", unary(np.float64, True),
                        lambda xp, a: xp.sum(a, axis=0), lambda a: np.sum(a, axis=0)),
        "sum_f64_ax1": ("reduction", unary(np.float64, True),
                        lambda xp, a: xp.sum(a, axis=1), lambda a: np.sum(a, axis=1)),
        "max_f64_ax0": ("reduction", unary(np.float64, True),
                        lambda xp, a: xp.max(a, axis=0), lambda a: np.max(a, axis=0)),
        "max_f64_ax1": ("reduction", unary(np.float64, True),
                        lambda xp, a: xp.max(a, axis=1), lambda a: np.max(a, axis=1)),
        "sum_f16": ("reduction", unary(np.float16, True), lambda xp, a: xp.sum(a), np.sum),
    }
    return ops


# --------------------------------------------------------------------------- the worker
def worker(forced):
    """Serve timing requests (JSON lines on stdin, one answer per line on stdout)."""
    import flexarray as xp
    if forced:  # every thread gate at 1 element: two threads wherever the code can split
        from flexarray._engines import gates
        for attr in ("ELEMENTWISE_THREADS_MIN_BYTES", "ELEMENTWISE_COMPUTE_THREADS_MIN",
                     "HALF_THREADS_MIN", "SELECT_THREADS_MIN", "GATHER_THREADS_MIN",
                     "COPY_THREADS_MIN", "REDUCE_THREADS_MIN"):  # (read at each call)
            setattr(gates, attr, 1)
    ops = _ops()
    cell, calls = None, None
    out = sys.stdout
    sys.stdout = sys.stderr  # nothing else may write to the protocol's stream
    for line in sys.stdin:
        req = json.loads(line)
        if req["cmd"] == "quit":
            return
        key = (req["op"], req["n"])
        if key != cell:
            calls = None
            gc.collect()
            kind, make, fx, fnp = ops[req["op"]]
            rng = np.random.default_rng(req["n"])
            arrays = make(req["n"], rng)
            xs = [xp.asarray(a, copy=True) for a in arrays]
            calls = {"flex": lambda: fx(xp, *xs), "numpy": lambda: fnp(*arrays)}
            cell = key
        f = calls[req["which"]]
        number = req["number"]
        if req["cmd"] == "warm":
            f(), f()
            res = time_calls(f, 1)
        else:
            res = time_calls(f, number, gc_off=True)
        out.write(json.dumps(res) + "\n")
        out.flush()


# --------------------------------------------------------------------------- the driver
class Worker:
    def __init__(self, name, env_threads, forced=False):
        env = dict(os.environ)
        env.pop("FLEXARRAY_NUM_THREADS", None)
        if env_threads is not None:
            env["FLEXARRAY_NUM_THREADS"] = str(env_threads)
        args = [sys.executable, os.path.abspath(__file__), "--worker"]
        if forced:
            args.append("--forced")
        self.name = name
        self.p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  env=env, text=True)

    def ask(self, **req):
        self.p.stdin.write(json.dumps(req) + "\n")
        self.p.stdin.flush()
        line = self.p.stdout.readline()
        if not line:
            raise RuntimeError(f"worker {self.name} died")
        return json.loads(line)

    def close(self):
        self.p.stdin.write(json.dumps({"cmd": "quit"}) + "\n")
        self.p.stdin.flush()
        self.p.wait()


class Spinner:
    """Another process spinning in a tight loop (not pinned: the OS places it), until it is
    killed or its parent is gone."""

    def __enter__(self):
        self.p = subprocess.Popen([sys.executable, "-c", f"import os\nwhile os.getppid() == "
                                   f"{os.getpid()}: pass"])
        time.sleep(0.05)
        return self

    def __exit__(self, *exc):
        self.p.kill()
        self.p.wait()


def measure_cell(workers, op, n, n_rounds, batch, conds):
    """{cond: {config: [per-round times]}} for one operation and size."""
    # warm every configuration (compiles, pools), calibrate the batch on the first
    first = None
    for w, which in workers:
        t = w.ask(cmd="warm", op=op, n=n, which=which, number=1)
        first = t if first is None else first
    number = max(1, min(100_000, math.ceil(batch / max(first, 1e-8))))
    measures = {}
    for w, which in workers:
        key = w.name if which == "flex" else "numpy"
        measures[key] = (lambda w=w, which=which:
                         w.ask(cmd="time", op=op, n=n, which=which, number=number))
    res = {}
    for cond in conds:
        ctx = Spinner() if cond == "busy" else None
        if ctx:
            ctx.__enter__()
        try:
            # the order rotated each round; a pause after each measurement: the last
            # worker's helpers stop polling (~2 ms)
            res[cond] = rounds(measures, n_rounds, gap=0.005)
        finally:
            if ctx:
                ctx.__exit__()
    return res


def summarize(times):
    med = median(times)
    ratio = {}
    for k in times:
        if k != "one":
            ratio[f"{k}/one"] = paired_ratio(times, k, "one")
    for k in ("one", "default", "forced"):
        if k in times:
            ratio[f"{k}/numpy"] = paired_ratio(times, k, "numpy")
    return med, ratio


def fmt(t):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6)):
        if t >= scale:
            return f"{t / scale:6.2f} {unit}"
    return f"{t * 1e9:6.0f} ns"


def size_name(n):
    for unit, scale in (("M", 1 << 20), ("K", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale}{unit}"
    return str(n)


def parse_size(s):
    s = s.strip().upper()
    mult = {"K": 1 << 10, "M": 1 << 20}.get(s[-1:], 1)
    return int(s[:-1] if mult > 1 else s) * mult


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--forced", action="store_true",
                    help="also time two threads with every thread gate at 1 element")
    ap.add_argument("--ops", default="", help="comma-separated subset of the operations")
    ap.add_argument("--min-size", default="1")
    ap.add_argument("--max-size", default="64M")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--batch", type=float, default=0.004, help="seconds per measurement")
    ap.add_argument("--conds", default="idle,busy")
    ap.add_argument("--max-call", type=float, default=0.25,
                    help="an operation's larger sizes are skipped once one call takes longer "
                         "(seconds, one thread): keeps the sweep near 10 minutes")
    ap.add_argument("--sizes", default="",
                    help="comma-separated sizes (e.g. 1,4K,2M) instead of the default sweep")
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    if args.worker:
        return worker(args.forced)

    ops = _ops()
    names = [o for o in args.ops.split(",") if o] or list(ops)
    lo, hi = parse_size(args.min_size), parse_size(args.max_size)
    sweep = [parse_size(v) for v in args.sizes.split(",") if v] or SIZES
    sizes = [n for n in sweep if lo <= n <= hi]
    conds = args.conds.split(",")
    one = Worker("one", 1)
    default = Worker("default", None)
    workers = [(one, "flex"), (default, "flex"), (one, "numpy")]
    if args.forced:
        workers.insert(2, (Worker("forced", None, forced=True), "flex"))
    configs = [w.name if which == "flex" else "numpy" for w, which in workers]
    print(f"threads: default {os.cpu_count()} CPUs; configs {configs}; {args.rounds} rounds; "
          f"load average {os.getloadavg()}", flush=True)
    results = []
    t0 = time.time()
    try:
        for op in names:
            kind = ops[op][0]
            head = ["size"] + [f"{c} {cond}" for cond in conds for c in configs] + \
                [f"{r} {cond}" for cond in conds for r in _ratio_names(configs)]
            table = Table(head, f"{op} ({kind})")
            for n in sizes:
                cell = measure_cell(workers, op, n, args.rounds, args.batch, conds)
                row = {"op": op, "kind": kind, "n": n}
                cols_t, cols_r = [], []
                for cond in conds:
                    med, ratio = summarize(cell[cond])
                    row[cond] = {"times": cell[cond], "median": med, "ratio": ratio}
                    cols_t += [fmt(med[c]) for c in configs]
                    cols_r += [f"{ratio[r]:.2f}" for r in _ratio_names(configs)]
                results.append(row)
                table.row(size_name(n), *cols_t, *cols_r)
                if row[conds[0]]["median"]["one"] > args.max_call:
                    break
    finally:
        for w in {id(w): w for w, _ in workers}.values():
            w.close()
    print(f"\n{time.time() - t0:.0f} s")
    print_summary(results, conds)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"configs": configs, "conds": conds, "rounds": args.rounds,
                       "batch": args.batch, "cpus": os.cpu_count(),
                       "loadavg_end": os.getloadavg(), "results": results}, f)
        print(f"wrote {args.json}")


def _ratio_names(configs):
    return [f"{c}/one" for c in configs if c not in ("one", "numpy")] + ["default/numpy"]


def print_summary(results, conds, slower=1.10, faster=0.90):
    """Per operation: the smallest size from which two threads win (``forced`` when timed,
    else ``default``: ratio below ``faster`` there and at every larger size), and the worst
    default/one ratio."""
    table = Table(["op"] + [f"2 threads win from ({c})" for c in conds] +
                  [f"worst default/one ({c})" for c in conds],
                  "Summary (default/one above 1: the default thread count is slower)")
    by_op = {}
    for row in results:
        by_op.setdefault(row["op"], []).append(row)
    for op, rows in by_op.items():
        wins, worst = [], []
        for cond in conds:
            key = "forced/one" if "forced/one" in rows[0][cond]["ratio"] else "default/one"
            win = None
            for row in reversed(rows):
                if row[cond]["ratio"][key] < faster:
                    win = row["n"]
                else:
                    break
            wins.append(size_name(win) if win else "-")
            w = max(rows, key=lambda r: r[cond]["ratio"]["default/one"])
            flag = " (!)" if w[cond]["ratio"]["default/one"] > slower else ""
            worst.append(f"{w[cond]['ratio']['default/one']:.2f} at {size_name(w['n'])}{flag}")
        table.row(op, *wins, *worst)


if __name__ == "__main__":
    main()
