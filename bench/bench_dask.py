"""Dask over flexarray chunks vs Dask over NumPy chunks (docs/scaling.md), threaded
scheduler, one process. Run it twice to see flexarray's own thread pool inside Dask:

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/bench_dask.py [--repeat 3]
        [--n 4096] [--json out.json]
    FLEXARRAY_NUM_THREADS=1 env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/bench_dask.py

Each case computes on both side by side (bench/_harness.py: ``--repeat`` rounds, one
compute each per round, the order rotated), best of each. Ratios are NumPy-chunk time /
flexarray-chunk time (above 1: flexarray chunks faster)."""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import Table, fmt, meta, side_by_side, write_json  # noqa: E402

import dask  # noqa: E402
import dask.array as da  # noqa: E402

import flexarray as xp  # noqa: E402

CASES = {
    "(d * 2 + 1).sum()": lambda d: (d * 2 + 1).sum(),
    "d.mean(axis=0)": lambda d: d.mean(axis=0),
    "d.std()": lambda d: d.std(),
    "nanmean(d, axis=1)": lambda d: da.nanmean(d, axis=1),
    "exp(d).max(axis=0)": lambda d: da.exp(d).max(axis=0),
    "argmax(d, axis=0)": lambda d: da.argmax(d, axis=0),
    "(d @ d.T)[:512].sum()": lambda d: (d @ d.T)[:512].sum(),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=int(os.environ.get("BENCH_N", 4096)),
                    help="the array is n x n float64")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--chunks", default="512,1024,2048", help="comma-separated chunk sides")
    ap.add_argument("--json", help="write the rows here")
    args = ap.parse_args()
    n = args.n
    a = np.random.default_rng(0).random((n, n))
    a[a < 0.01] = np.nan
    a_clean = np.nan_to_num(a)
    threads = os.environ.get("FLEXARRAY_NUM_THREADS", "default")
    print(f"{n}x{n} float64, FLEXARRAY_NUM_THREADS={threads}, load {os.getloadavg()[0]:.1f}")
    rows = []
    for chunk in map(int, args.chunks.split(",")):
        table = Table(["case", "flexarray chunks", "NumPy chunks", "numpy/flexarray"],
                      f"chunks {chunk}x{chunk} ({chunk * chunk * 8 / 2**20:.0f} MB), best of "
                      f"{args.repeat}")
        for name, fn in CASES.items():
            src = a if "nan" in name else a_clean
            dx = da.from_array(xp.asarray(src), chunks=chunk)
            dn = da.from_array(src, chunks=chunk)
            with dask.config.set(scheduler="threads"):
                res = side_by_side({"flexarray": lambda: fn(dx).compute(),
                                    "numpy": lambda: fn(dn).compute()}, n=args.repeat,
                                   number=1)
            t = res["time"]
            ratio = t["numpy"] / t["flexarray"]
            table.row(name, fmt(t["flexarray"]), fmt(t["numpy"]), f"{ratio:.2f}x")
            rows.append({"chunk": chunk, "name": name, "time": t, "ratio": ratio})
    write_json(args.json, {"meta": meta(n=n, repeat=args.repeat,
                                        flexarray_num_threads=threads), "rows": rows})


if __name__ == "__main__":
    main()
