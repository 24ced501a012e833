"""FFT benchmark: flexarray.fft vs numpy.fft, scipy.fft and torch.fft, in one run.

Run:  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/bench_fft.py [--rounds N]
          [--small-only] [--json out.json]
      ... bench_fft.py --grid      the gate FFT_KERNEL_MIN_N_*: np.fft / kernel over (rows, n)

Cases: the batched (256 x 4096, 1024 x 1024, 64 x 16384) and 1-D (2^20) real FFTs, where
flexarray's kernel runs, lone rows of 360,000-1,500,000 points (not powers of two: the
four-step FFT of pocketfft's batches, or pocketfft), and small 1-D calls (256 points, and 64 segments of 256 as SciPy's
spectral functions transform them), where flexarray goes straight to pocketfft and only its
overhead shows.

Timing (bench/_harness.py): every round runs each library in turn, a block of calls each
(the best timing of the block counts: torch's OpenMP threads and flexarray's pool helpers
keep polling for a while after a call, which would tax whichever library ran next).
Printed: the best time of each library over the rounds, and the median over rounds of the
per-round ratio other / flexarray.fft (> 1: flexarray faster). "kernel" is flexarray's
Numba kernel called on NumPy arrays (no frontend); scipy runs with workers=2 on the big
cases, as torch runs with 2 threads.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import flexarray as xp  # noqa: E402
from flexarray._kernels.fft import rfft as K  # noqa: E402
from _harness import Table, batch, best, meta, paired_ratio, rounds, torch, write_json  # noqa: E402

try:
    import scipy.fft as sfft
except ImportError:             # pragma: no cover
    sfft = None

BIG = [(kind, shape, dt) for kind in ("rfft", "irfft")
       for shape in ((256, 4096), (1024, 1024), (64, 16384), (1 << 20,))
       for dt in (np.float32, np.float64)]
LONE = [(kind, (n,), np.float64) for kind in ("fft", "rfft", "irfft")
        for n in (360_000, 810_000, 1_500_000)]
SMALL = [(kind, shape, dt) for kind in ("fft", "ifft", "rfft", "irfft")
         for shape in ((256,), (64, 256)) for dt in (np.float32, np.float64)]
FA = "flexarray.fft"


def candidates(kind, shape, dt, rng, big, kernel):
    """name -> zero-argument callable computing `kind` along the last axis (``kernel``:
    flexarray's real-FFT kernel too)."""
    x = rng.standard_normal(shape).astype(dt)
    n = shape[-1]
    if kind == "irfft":
        x = np.fft.rfft(x)
    elif kind in ("fft", "ifft"):
        x = (x + 1j * rng.standard_normal(shape)).astype(np.result_type(dt, np.complex64))
    ax = xp.asarray(x)
    npf, xpf = getattr(np.fft, kind), getattr(xp.fft, kind)
    c = {FA: lambda: xpf(ax, n=n), "numpy": lambda: npf(x, n)}
    if sfft is not None:
        spf, w = getattr(sfft, kind), (2 if big else 1)
        c["scipy"] = lambda: spf(x, n, workers=w)
    if torch is not None:
        tx, tf = torch.from_numpy(x), getattr(torch.fft, kind)
        c["torch"] = lambda: tf(tx, n)
    if kernel:
        kf = getattr(K, kind)
        c["kernel"] = lambda: kf(x, n)
    return c


def measure(funcs, n_rounds, block, inner):
    """name -> best seconds per call in each round (a block of `block` timings of `inner`
    calls each), the libraries in a fixed order."""
    for f in funcs.values():        # warm up (compiles, plans, thread pools)
        f()
        f()
    return rounds({k: batch(f, inner, block) for k, f in funcs.items()}, n_rounds,
                  rotate=False)


def table(title, cases, n_rounds, block, inner, unit, scale, big, kernel=None):
    rng = np.random.default_rng(0)
    rows = []
    for kind, shape, dt in cases:
        rows.append((kind, shape, dt, measure(
            candidates(kind, shape, dt, rng, big, big if kernel is None else kernel),
            n_rounds, block, inner)))
    names = []
    for *_, t in rows:
        names += [k for k in t if k not in names]
    others = [k for k in names if k != FA]
    out = Table(["op", "shape", "dtype"] + [f"{k} ({unit})" for k in names]
                + [f"{k}/fa" for k in others],
                f"{title}: best {unit} per call over {n_rounds} rounds; ratio = median over "
                f"rounds of other / {FA} (> 1: flexarray faster)")
    records = []
    for kind, shape, dt, t in rows:
        b = best(t)
        ratio = {k: paired_ratio(t, k, FA) for k in others}
        out.row(kind, "x".join(map(str, shape)), np.dtype(dt).name,
                *[f"{b[k] * scale:.3f}" if k in b else "-" for k in names],
                *[f"{ratio[k]:.2f}" if ratio[k] is not None else "-" for k in others])
        records.append({"op": kind, "shape": list(shape), "dtype": np.dtype(dt).name,
                        "time": b, "ratio": {k: r for k, r in ratio.items() if r is not None}})
    return records


def grid(reps):
    """np.fft time / kernel time for rows x n (the gate FFT_KERNEL_MIN_N_*)."""
    rng = np.random.default_rng(0)
    for dt in (np.float64, np.float32):
        for kind in ("rfft", "irfft"):
            out = Table(["n"] + [f"{r} rows" for r in (1, 4, 16, 64, 256)],
                        f"{np.dtype(dt).name} {kind}: np.fft / kernel (> 1: kernel faster) "
                        f"[np.fft us]")
            for n in (256, 512, 1024, 2048, 4096, 16384):
                cells = []
                for rows in (1, 4, 16, 64, 256):
                    x = rng.standard_normal((rows, n)).astype(dt)
                    if kind == "irfft":
                        x = np.fft.rfft(x)
                    npf, kf = getattr(np.fft, kind), getattr(K, kind)
                    inner = max(1, 20000 // (rows * n))
                    t = measure({"np": lambda f=npf, x=x, n=n: f(x, n),
                                 "k": lambda f=kf, x=x, n=n: f(x, n)}, reps, 3, inner)
                    a, b = min(t["np"]), min(t["k"])
                    cells.append(f"{a / b:.2f} [{a * 1e6:.1f}]")
                out.row(str(n), *cells)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--grid", action="store_true")
    ap.add_argument("--small-only", action="store_true")
    ap.add_argument("--json", help="write the rows here")
    args = ap.parse_args()
    if args.grid:
        grid(args.rounds)
        return
    rows = []
    if not args.small_only:
        rows += table("Big real FFTs (flexarray's kernel)", BIG, args.rounds, 5, 1, "ms", 1e3,
                      True)
        rows += table("Lone long rows of 5-smooth lengths (the four-step FFT)", LONE,
                      args.rounds, 5, 1, "ms", 1e3, True, kernel=False)
    rows += table("Small calls (pocketfft behind flexarray's frontend)", SMALL, args.rounds, 5,
                  200, "us", 1e6, False)
    write_json(args.json, {"meta": meta(rounds=args.rounds), "rows": rows})


if __name__ == "__main__":
    main()
