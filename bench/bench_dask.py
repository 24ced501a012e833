"""Dask over flexarray chunks vs Dask over NumPy chunks (docs/scaling.md), threaded
scheduler, one process. Run it twice to see flexarray's own thread pool inside Dask:

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/bench_dask.py
    FLEXARRAY_NUM_THREADS=1 env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/bench_dask.py

Ratios are NumPy-chunk time / flexarray-chunk time (above 1: flexarray chunks faster)."""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _harness import call_times, fmt  # noqa: E402

import dask  # noqa: E402
import dask.array as da  # noqa: E402

import flexarray as xp  # noqa: E402

N = int(os.environ.get("BENCH_N", 4096))
CASES = {
    "(d * 2 + 1).sum()": lambda d: (d * 2 + 1).sum(),
    "d.mean(axis=0)": lambda d: d.mean(axis=0),
    "d.std()": lambda d: d.std(),
    "nanmean(d, axis=1)": lambda d: da.nanmean(d, axis=1),
    "exp(d).max(axis=0)": lambda d: da.exp(d).max(axis=0),
    "argmax(d, axis=0)": lambda d: da.argmax(d, axis=0),
    "(d @ d.T)[:512].sum()": lambda d: (d @ d.T)[:512].sum(),
}


def best(f, repeat=3):
    return min(call_times(f, repeat))


def main():
    a = np.random.default_rng(0).random((N, N))
    a[a < 0.01] = np.nan
    a_clean = np.nan_to_num(a)
    threads = os.environ.get("FLEXARRAY_NUM_THREADS", "default")
    print(f"{N}x{N} float64, FLEXARRAY_NUM_THREADS={threads}, load {os.getloadavg()[0]:.1f}")
    for chunk in (512, 1024, 2048):
        print(f"\nchunks {chunk}x{chunk} ({chunk * chunk * 8 / 2**20:.0f} MB)")
        print("| case | flexarray chunks | NumPy chunks | numpy/flexarray |")
        print("|---|---|---|---|")
        for name, fn in CASES.items():
            src = a if "nan" in name else a_clean
            dx = da.from_array(xp.asarray(src), chunks=chunk)
            dn = da.from_array(src, chunks=chunk)
            with dask.config.set(scheduler="threads"):
                tx = best(lambda: fn(dx).compute())
                tn = best(lambda: fn(dn).compute())
            print(f"| {name} | {fmt(tx)} | {fmt(tn)} | {tn / tx:.2f}x |")


if __name__ == "__main__":
    main()
