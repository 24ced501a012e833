"""``python -m flexarray``: a short tour. ``python -m flexarray warm``: compile every kernel
into the disk cache (see ``warm --help``)."""
import argparse
import os
import sys
import time

import numpy as np

import flexarray as xp


def _best(f, repeat=5):
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        best = min(best, time.perf_counter() - t)
    return best


def main():
    print(f"flexarray {xp.__version__} - Array API {xp.__array_api_version__}, "
          f"device {xp.__array_namespace_info__().default_device()}")
    print("\nViews share, copies are lazy:")
    x = xp.arange(6, dtype=xp.float64)
    v = xp.reshape(x, (2, 3)).T
    print(f"  x = {x}")
    print(f"  v = a transposed view of x, O(1), no copy:\n  {v}")
    v[0, 1] = 100.0
    print(f"  after v[0, 1] = 100: x = {x}   (the view shares x's elements, as in NumPy)")
    c = xp.asarray(x, copy=True)
    x[0] = -1.0
    print(f"  c = asarray(x, copy=True); then x[0] = -1: c = {c}   (a copy never changes: "
          f"O(1) until written from 512 KiB, a real copy below)")
    n = 1 << 24
    a = xp.linspace(0.0, 1.0, n, dtype=xp.float32)
    an = np.asarray(a)
    t_np = _best(lambda: np.exp(an))
    t_fx = _best(lambda: xp.exp(a))
    print(f"\nexp of {n:,} float32 elements: NumPy {t_np * 1e3:.1f} ms, flexarray "
          f"{t_fx * 1e3:.1f} ms ({t_np / t_fx:.2f}x NumPy, both cores)")


def _bar(done, total, name, seconds, started, width=30):
    fill = width * done // total
    sys.stderr.write(f"\r[{'#' * fill}{'.' * (width - fill)}] {done}/{total} {name} "
                     f"({seconds:.1f} s) {time.perf_counter() - started:.0f} s elapsed  ")
    sys.stderr.flush()


def warm(argv):
    from flexarray import _warmup
    from flexarray._kernels import _warm, cache_dir
    if argv == ["--serve"]:             # the background process (flexarray._kernels._warm)
        _warm.serve(_warmup.RECIPES)
        return 0
    ap = argparse.ArgumentParser(
        prog="python -m flexarray warm",
        description="Compile flexarray's Numba kernels (every dtype and mode) into the disk "
                    "cache, so that no call compiles later: for images of Dask/cubed workers "
                    "and CI. The cache is NUMBA_CACHE_DIR/<flexarray, kernels, Numba and "
                    "Python versions> (default ~/.cache/flexarray/numba/...); workers may "
                    "read it from a read-only directory (docs/reliability.md).")
    ap.add_argument("families", nargs="*", metavar="FAMILY",
                    help=f"only these ({', '.join(_warmup.RECIPES)}); default: all")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                    help="compile in this many processes (default: the CPU count)")
    ap.add_argument("--check", action="store_true",
                    help="then run the recipes here and list the kernels they left "
                         "uncompiled (a kernel family without a recipe)")
    args = ap.parse_args(argv)
    names = args.families or list(_warmup.RECIPES)
    unknown = [f for f in names if f not in _warmup.RECIPES]
    if unknown:
        ap.error(f"unknown families {unknown}; known: {', '.join(_warmup.RECIPES)}")
    print(f"warming flexarray's kernels into {cache_dir()}", file=sys.stderr)
    t0 = time.perf_counter()
    failed = _warm.warm(names, args.jobs, lambda d, n, name, s: _bar(d, n, name, s, t0))
    sys.stderr.write("\n")
    for name, msg in failed:
        print(f"failed: {name}: {msg}", file=sys.stderr)
    print(f"warmed {len(names) - len(failed)} kernel families in "
          f"{time.perf_counter() - t0:.1f} s", file=sys.stderr)
    if args.check:
        for name in names:
            _warmup.RECIPES[name]()
        left = [f"{d.py_func.__module__}.{d.py_func.__qualname__}" for d in _warm.uncompiled()]
        print("uncompiled kernels: " + (", ".join(left) or "none"), file=sys.stderr)
        failed += [(k, "uncompiled") for k in left]
    return 1 if failed else 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["warm"]:
        sys.exit(warm(sys.argv[2:]))
    main()
