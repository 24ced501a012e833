"""The timing and printing shared by the benchmarks in bench/.

Every benchmark times flexarray beside its peers (NumPy, and PyTorch CPU where a case has a
torch call) in one process, on the same data, and prints a Markdown table of times and
ratios. The pieces, from the bottom up:

- a *measurement* is a zero-argument callable returning seconds per call: ``batch(f, ...)``
  times a batch of calls of ``f`` locally; a benchmark whose calls run elsewhere (a worker
  process, a fresh process per run) passes its own callable returning the remote figure;
- ``rounds(measures, n)`` asks every measurement once per round, round-robin, the order
  rotated each round (so that no contender always runs right after the same one, whose
  spinning threads would tax it), and returns each one's per-round results;
- ``best``, ``median`` and ``paired_ratio`` summarize them (a paired ratio is the median of
  the per-round ratios: slow drifts of a shared machine cancel);
- ``side_by_side(funcs, ...)`` does all three for the common case (calibrate, warm up,
  rounds, summary);
- ``Table`` prints a Markdown table row by row; ``fmt`` formats a time; ``meta`` and
  ``write_json`` record a run.

Ratios are peer time / flexarray time unless a benchmark says otherwise (above 1:
flexarray is faster). Run benchmarks with OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset:
``env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/...``.

Importing this module turns flexarray's background compiles off for the process and its
children (``FLEXARRAY_BACKGROUND_COMPILE=0`` unless set): a kernel's first call then
compiles it during the warm-up, and the timed calls run the kernel, not the stand-in
that serves calls while a background compile is pending (bench/bench_first_call.py
measures those first calls).
"""
import gc
import json
import os
import platform
import statistics
import sys
import time
import timeit

os.environ.setdefault("FLEXARRAY_BACKGROUND_COMPILE", "0")

try:
    import torch
    torch.set_num_threads(2)
except ImportError:  # pragma: no cover
    torch = None

PEERS = ("numpy", "torch")


# --------------------------------------------------------------------------- one contender
def best_time(f, min_time=0.2, repeat=5):
    """Best per-call time of ``f`` over ``repeat`` batches of at least ``min_time`` s
    (``f`` alone, not interleaved with other contenders)."""
    f()  # warm up (compiles, caches)
    n, t = 1, 0.0
    while True:
        t = timeit.timeit(f, number=n)
        if t >= min_time / repeat or n >= 1 << 20:
            break
        n *= 4
    return min(timeit.repeat(f, number=n, repeat=repeat)) / n


def time_calls(f, number, clock=time.perf_counter, gc_off=False):
    """Mean time of ``number`` back-to-back calls of ``f`` (one measurement of a round)."""
    if gc_off:
        gc.disable()
    try:
        t0 = clock()
        for _ in range(number):
            f()
        return (clock() - t0) / number
    finally:
        if gc_off:
            gc.enable()


def call_times(f, repeat):
    """The times of ``repeat`` single calls of ``f`` after one warm-up call (long calls:
    Dask and xarray graphs)."""
    f()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return times


def calibrate(f, min_batch, max_number=100_000, tries=3, first=None):
    """How many calls of ``f`` fill a batch of ``min_batch`` seconds (``f`` already warm:
    the best of ``tries`` single calls sets the pace; ``first``, the time of a warm-up
    call, spares them when it alone fills the batch)."""
    if first is not None and first >= min_batch:
        return 1
    t1 = min(time_calls(f, 1) for _ in range(tries))
    return max(1, min(max_number, int(min_batch / max(t1, 1e-8))))


def batch(f, number=1, block=1, clock=time.perf_counter, pause=0.0, warm=0, settle=0.0,
          gc_off=False):
    """A measurement of ``f``: seconds per call, the best of ``block`` timings of ``number``
    back-to-back calls. Before them: a ``pause`` (seconds of sleep: the previous
    contender's idle threads stop spinning), ``warm`` untimed calls, and untimed calls for
    ``settle`` seconds (this contender's own threads and caches warm, as in back-to-back
    work)."""
    def measure():
        if pause:
            time.sleep(pause)
        for _ in range(warm):
            f()
        if settle:
            end = time.perf_counter() + settle
            f()
            while time.perf_counter() < end:
                f()
        return min(time_calls(f, number, clock, gc_off) for _ in range(block))
    return measure


# --------------------------------------------------------------------------- side by side
def rounds(measures, n, rotate=True, gap=0.0, min_total=0.0, max_rounds=None):
    """Ask every measurement of ``measures`` ({name: callable}) once per round, ``n`` rounds,
    the order rotated each round when ``rotate``; ``gap`` seconds of sleep after each
    measurement. When ``min_total`` is set, more rounds (up to ``max_rounds``) follow while
    the measured seconds (the results when they are numbers) add up to less. Returns
    {name: [result of each round]}."""
    names = list(measures)
    out = {k: [] for k in names}
    spent, r = 0.0, 0
    while r < n or (spent < min_total and (max_rounds is None or r < max_rounds)):
        k = r % len(names) if rotate and names else 0
        for name in names[k:] + names[:k]:
            res = measures[name]()
            out[name].append(res)
            if isinstance(res, (int, float)):
                spent += res
            if gap:
                time.sleep(gap)
        r += 1
    return out


def best(times):
    return {k: min(v) for k, v in times.items() if v}


def median(times):
    return {k: statistics.median(v) for k, v in times.items() if v}


def paired_ratio(times, num, den):
    """The median over rounds of times[num][r] / times[den][r] (None if either is missing)."""
    a, b = times.get(num), times.get(den)
    if not a or not b:
        return None
    return statistics.median(x / y for x, y in zip(a, b))


def side_by_side(funcs, n=5, number=None, min_batch=0.04, stat="best", ref="flexarray",
                 rotate=True, warm=True, **batch_kw):
    """Time ``funcs`` ({name: zero-argument callable or None}) side by side: each warmed up
    (compiles, caches), its batch calibrated to ``min_batch`` seconds (or ``number`` calls:
    an int, or {name: int}), then ``n`` rounds of :func:`rounds`. Returns {"time": {name:
    best or median}, "ratio": {name: paired ratio name / ref}, "times": {name: per-round
    seconds}, "number": {name: calls per batch}}."""
    funcs = {k: f for k, f in funcs.items() if f is not None}
    first = {k: time_calls(f, 1) if warm else None for k, f in funcs.items()}
    if number is None:
        number = {k: calibrate(f, min_batch, first=first[k]) for k, f in funcs.items()}
    elif not isinstance(number, dict):
        number = {k: number for k in funcs}
    times = rounds({k: batch(f, number[k], **batch_kw) for k, f in funcs.items()}, n,
                   rotate=rotate)
    summary = (best if stat == "best" else median)(times)
    ratio = {k: paired_ratio(times, k, ref) for k in funcs if k != ref and ref in funcs}
    return {"time": summary, "ratio": ratio, "times": times, "number": number}


# --------------------------------------------------------------------------- printing
def fmt(t):
    """A time in s, ms, us or ns, 7.2f (right-aligned in tables)."""
    if t is None:
        return "-"
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if t >= scale:
            return f"{t / scale:7.2f} {unit}"
    return f"{t * 1e9:7.2f} ns"


def fmt_ratio(r, suffix="", bold_below=None, bold_above=None):
    """A ratio with two decimals, ``-`` when missing, bold outside the given bounds."""
    if r is None:
        return "-"
    s = f"{r:.2f}{suffix}"
    if (bold_below is not None and r < bold_below) or (bold_above is not None and r > bold_above):
        s = f"**{s}**"
    return s


class Table:
    """A Markdown table printed row by row (flushed, so long runs show progress)."""

    def __init__(self, columns, title=None, file=None):
        self.columns = list(columns)
        self.file = file or sys.stdout
        self.rows = []
        if title:
            print(f"\n{title}\n", file=self.file)
        print("| " + " | ".join(self.columns) + " |", file=self.file)
        print("|" + "---|" * len(self.columns), file=self.file, flush=True)

    def row(self, *cells):
        cells = [str(c).strip() if not isinstance(c, str) else c.strip() for c in cells]
        self.rows.append(cells)
        print("| " + " | ".join(cells) + " |", file=self.file, flush=True)


def peers(names=PEERS):
    """The peers present in this process (torch only when installed)."""
    return [p for p in names if p != "torch" or torch is not None]


def comparison_table(title=None, first="case", extra=(), peer_names=PEERS, unit_note=""):
    """The usual table: first column, flexarray, each peer, each peer/flexarray, extras."""
    ps = peers(peer_names)
    cols = [first, "flexarray" + unit_note] + [p + unit_note for p in ps] + \
        [f"{p}/flexarray" for p in ps] + list(extra)
    return Table(cols, title), ps


def run(cases, title, n=None, min_batch=0.04):
    """``cases``: (name, {"flexarray": f, "numpy": g, "torch": h or None}, target text).
    Each case side by side (:func:`side_by_side`: ``n`` rotated rounds of batches of at
    least ``min_batch`` s, best of each; ``BENCH_ROUNDS`` in the environment sets ``n``,
    5 by default); printed with times, ratios peer / flexarray (paired, median over rounds)
    and the target. Returns [(name, {contender: seconds})]."""
    n = n or int(os.environ.get("BENCH_ROUNDS", 5))
    table, ps = comparison_table(title, extra=["target"])
    rows = []
    for name, funcs, target in cases:
        res = side_by_side({k: (f or None) for k, f in funcs.items()}, n=n, min_batch=min_batch)
        t = res["time"]
        table.row(name, fmt(t["flexarray"]), *[fmt(t.get(p)) for p in ps],
                  *[fmt_ratio(res["ratio"].get(p), "x") for p in ps], target)
        rows.append((name, t))
    return rows


# --------------------------------------------------------------------------- records
def meta(**extra):
    """What a JSON record of a run starts with: versions, CPUs, load, time."""
    import numpy as np
    m = {"time": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
         "python": platform.python_version(), "machine": platform.machine(),
         "cpus": os.cpu_count(), "load": os.getloadavg(), "numpy": np.__version__,
         "torch": torch.__version__ if torch is not None else None}
    m.update(extra)
    return m


def write_json(path, payload):
    if path:
        with open(path, "w") as fh:
            json.dump(payload, fh, indent=1)
        print(f"wrote {path}")
