"""A short tour: ``python -m flexarray``."""
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


if __name__ == "__main__":
    main()
