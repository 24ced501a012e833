"""xarray operations on a flexarray-backed DataArray against the same on a NumPy-backed one
(docs/scaling.md "xarray", docs/benchmarks.md).

A 2,000 x 500 float64 DataArray (dims time, x) with NaN in every 11th row's every 5th
column; each operation runs on both, its result is checked against NumPy's (values, and
that it stays a flexarray array), then both are timed side by side (bench/_harness.py:
``--repeat`` rounds, one call each per round, the order rotated), median of each; ratio =
flexarray-backed time / NumPy-backed time (below 1: flexarray faster).

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE PYTHONPATH=. python bench/bench_xarray.py \
        [--repeat 7] [--only substring] [--json out.json]
"""
import argparse
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _harness import Table, fmt, meta, side_by_side, write_json  # noqa: E402


def _ops(xr):
    return {
        "mean('time') (skipna)": lambda d: d.mean("time"),
        "std('x') (skipna)": lambda d: d.std("x"),
        "max('time')": lambda d: d.max("time"),
        "argmax('time')": lambda d: d.argmax("time"),
        "cumsum('time')": lambda d: d.cumsum("time"),
        "median('time')": lambda d: d.median("time"),
        "quantile(0.9, 'time')": lambda d: d.quantile(0.9, dim="time"),
        "where(d > 0)": lambda d: d.where(d > 0),
        "fillna(0)": lambda d: d.fillna(0),
        "shift(time=3)": lambda d: d.shift(time=3),
        "roll(time=3)": lambda d: d.roll(time=3),
        "isel(time=slice)": lambda d: d.isel(time=slice(10, 1500, 3)),
        "sel(time=list)": lambda d: d.sel(time=[1, 5, 9, 100, 1500]),
        "d * 2 + 1": lambda d: d * 2 + 1,
        "astype('float32')": lambda d: d.astype("float32"),
        "round(2)": lambda d: d.round(2),
        "xr.dot(d, d, dims='x')": lambda d: xr.dot(d, d, dims="x"),
        "rolling(time=10).mean()": lambda d: d.rolling(time=10).mean(),
        "coarsen(time=10).mean()": lambda d: d.coarsen(time=10).mean(),
        "groupby(time % 12).mean()": lambda d: d.groupby(d.time % 12).mean(),
        "diff('time')": lambda d: d.diff("time"),
        "concat([d, d], 'time')": lambda d: xr.concat([d, d], "time"),
        "d.T.copy()": lambda d: d.T.copy(),
        "isnull().sum()": lambda d: d.isnull().sum(),
        "reindex(time=...)": lambda d: d.reindex(time=np.arange(0, 2000, 2)),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--only", default="", help="run the operations whose name contains this")
    ap.add_argument("--json", help="write the rows here")
    args = ap.parse_args()
    import xarray as xr
    import flexarray as xp
    warnings.simplefilter("ignore", RuntimeWarning)  # (all-NaN slices: both backends warn)
    a = np.random.default_rng(0).standard_normal((2000, 500))
    a[::11, ::5] = np.nan
    coords = {"time": np.arange(2000), "x": np.arange(500)}
    dn = xr.DataArray(a, dims=("time", "x"), coords=coords)
    df = xr.DataArray(xp.asarray(a), dims=("time", "x"), coords=coords)
    table = Table(["operation", "flexarray-backed", "NumPy-backed", "flexarray / NumPy",
                   "result"], f"median of {args.repeat} rounds; flexarray / NumPy below 1: "
                              f"flexarray faster")
    rows = []
    for name, f in _ops(xr).items():
        if args.only not in name:
            continue
        rn, rf = f(dn), f(df)
        kind = type(rf.data).__module__.split(".")[0]
        same = np.allclose(np.asarray(rf.data, dtype=float), np.asarray(rn.data, dtype=float),
                           rtol=1e-9, atol=1e-9, equal_nan=True)
        res = side_by_side({"flexarray": lambda: f(df), "numpy": lambda: f(dn)}, n=args.repeat,
                           number=1, stat="median")
        t = res["time"]
        ratio = t["flexarray"] / t["numpy"]
        table.row(name, fmt(t["flexarray"]), fmt(t["numpy"]), f"{ratio:.2f}",
                  f"{kind}{'' if same else ' **MISMATCH**'}")
        rows.append({"name": name, "time": t, "ratio": ratio, "result_type": kind,
                     "match": bool(same)})
    write_json(args.json, {"meta": meta(repeat=args.repeat), "rows": rows})


if __name__ == "__main__":
    main()
