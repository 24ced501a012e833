"""Side-by-side timing: each case runs on flexarray, NumPy and (when installed) PyTorch in
one process, one after another, and is reported as times and ratios (peer / flexarray:
above 1 means flexarray is faster). Run benchmarks with OPENBLAS_CORETYPE and
OPENBLAS_L2_SIZE unset: `env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/...`."""
import time
import timeit

try:
    import torch
    torch.set_num_threads(2)
except ImportError:  # pragma: no cover
    torch = None


def best_time(f, min_time=0.2, repeat=5):
    """Best per-call time of ``f`` over ``repeat`` batches of at least ``min_time`` s."""
    f()  # warm up (compiles, caches)
    n, t = 1, 0.0
    while True:
        t = timeit.timeit(f, number=n)
        if t >= min_time / repeat or n >= 1 << 20:
            break
        n *= 4
    return min(timeit.repeat(f, number=n, repeat=repeat)) / n


def time_calls(f, number):
    """Mean time of ``number`` back-to-back calls of ``f`` (one measurement of a round)."""
    t0 = time.perf_counter()
    for _ in range(number):
        f()
    return (time.perf_counter() - t0) / number


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


def fmt(t):
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if t >= scale:
            return f"{t / scale:7.2f} {unit}"
    return f"{t * 1e9:7.2f} ns"


def run(cases, title):
    """``cases``: (name, {"flexarray": f, "numpy": g, "torch": h or None}, target text)."""
    print(f"\n{title}\n")
    peers = ["numpy"] + (["torch"] if torch is not None else [])
    header = "| case | flexarray | " + " | ".join(peers) + " | " + " | ".join(
        f"{p}/flexarray" for p in peers) + " | target |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    rows = []
    for name, funcs, target in cases:
        t = {k: best_time(f) for k, f in funcs.items() if f is not None}
        ratios = [f"{t[p] / t['flexarray']:.2f}x" if p in t else "-" for p in peers]
        times = [fmt(t[p]) if p in t else "-" for p in peers]
        row = f"| {name} | {fmt(t['flexarray'])} | " + " | ".join(times) + " | " + \
            " | ".join(ratios) + f" | {target} |"
        print(row, flush=True)
        rows.append((name, t))
    return rows
