"""Real FFT benchmark: flexarray vs numpy.fft, scipy.fft (workers=2) and torch.fft.

Run:  env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/bench_fft.py [--reps N]

Prints the best-of-N time of each library per case and the ratio other/flexarray
(> 1 means flexarray is faster). All libraries are timed in one run, round-robin, so
machine load hits them alike.
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from flexarray._kernels.fft import rfft as K  # noqa: E402

try:
    import scipy.fft as sfft
except ImportError:             # pragma: no cover
    sfft = None
try:
    import torch
except ImportError:             # pragma: no cover
    torch = None

CASES = [((256, 4096), np.float32), ((256, 4096), np.float64),
         ((1, 1 << 20), np.float32), ((1, 1 << 20), np.float64)]


def _frontend():
    """flexarray.fft.rfft/irfft on Arrays, when the frontend exists."""
    try:
        import flexarray as xp
        from flexarray import fft as xfft
        xfft.rfft
        return xp, xfft
    except Exception:
        return None, None


def candidates(kind, x, n):
    """name -> zero-argument callable computing `kind` of x (rfft) or of its spectrum."""
    c = {}
    if kind == "rfft":
        c["flexarray"] = lambda: K.rfft(x)
        c["numpy"] = lambda: np.fft.rfft(x)
        if sfft is not None:
            c["scipy(w=2)"] = lambda: sfft.rfft(x, workers=2)
        if torch is not None:
            tx = torch.from_numpy(x)
            c["torch"] = lambda: torch.fft.rfft(tx)
        xp, xfft = _frontend()
        if xp is not None:
            ax = xp.asarray(x)
            c["flexarray.fft"] = lambda: xfft.rfft(ax)
    else:
        c["flexarray"] = lambda: K.irfft(x, n)
        c["numpy"] = lambda: np.fft.irfft(x, n)
        if sfft is not None:
            c["scipy(w=2)"] = lambda: sfft.irfft(x, n, workers=2)
        if torch is not None:
            tx = torch.from_numpy(x)
            c["torch"] = lambda: torch.fft.irfft(tx, n)
        xp, xfft = _frontend()
        if xp is not None:
            ax = xp.asarray(x)
            c["flexarray.fft"] = lambda: xfft.irfft(ax, n=n)
    return c


def best_times(funcs, reps):
    for f in funcs.values():        # warm up (compiles, plans, thread pools)
        f()
        f()
    best = {k: float("inf") for k in funcs}
    for _ in range(reps):
        for k, f in funcs.items():
            t0 = time.perf_counter()
            f()
            best[k] = min(best[k], time.perf_counter() - t0)
    return best


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=15)
    args = ap.parse_args()
    if torch is not None:
        torch.set_num_threads(2)
    rng = np.random.default_rng(0)
    rows = []
    for kind in ("rfft", "irfft"):
        for shape, dt in CASES:
            x = rng.standard_normal(shape).astype(dt)
            n = shape[-1]
            arg = x if kind == "rfft" else np.fft.rfft(x)
            rows.append((kind, shape, dt, best_times(candidates(kind, arg, n), args.reps)))
    names = []
    for *_, t in rows:
        names += [k for k in t if k not in names]
    others = [k for k in names if k != "flexarray"]
    head = f"{'op':6} {'shape':>12} {'dtype':8}" + "".join(f"{k:>14}" for k in names)
    head += "".join(f"{k + '/fa':>16}" for k in others)
    print("times in ms (best of %d); ratio = other / flexarray (> 1: flexarray faster)" % args.reps)
    print(head)
    for kind, shape, dt, t in rows:
        line = f"{kind:6} {'x'.join(map(str, shape)):>12} {np.dtype(dt).name:8}"
        line += "".join(f"{t[k] * 1e3:14.3f}" if k in t else f"{'-':>14}" for k in names)
        line += "".join(f"{t[k] / t['flexarray']:16.2f}" if k in t else f"{'-':>16}"
                        for k in others)
        print(line)


if __name__ == "__main__":
    main()
