"""Reductions and matmul; flexarray vs NumPy vs PyTorch CPU in one run.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/bench_reductions.py

int32 matmul runs twice: with values in [-1000, 1000] (flexarray proves the float64 BLAS
result exact and uses dgemm) and with full-range values (the Numba kernel). NumPy's int32
matmul has no BLAS path (~4 s per call at 1024^3), so that row takes a while.
"""
import os
import sys

import ml_dtypes
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import flexarray as xp  # noqa: E402
import flexarray.nn  # noqa: E402
from _harness import run, torch  # noqa: E402

_TORCH_DTYPES = {"float32": "float32", "float16": "float16", "bfloat16": "bfloat16",
                 "int32": "int32", "float64": "float64"}


def operands(shape, dtype, seed=0, lo=None, hi=None):
    """The same values as NumPy, flexarray and torch arrays."""
    rng = np.random.default_rng(seed)
    if np.dtype(dtype).kind in "iu":
        a = rng.integers(lo, hi, shape, dtype=dtype, endpoint=True)
    else:
        a = rng.standard_normal(shape).astype(dtype)
    t = None
    if torch is not None:
        name = _TORCH_DTYPES[np.dtype(dtype).name]
        t = torch.from_numpy(a.astype(np.float32) if name == "bfloat16" else a.copy())
        t = t.to(getattr(torch, name))
    return a, xp.asarray(a.copy()), t


def reduction_cases():
    cases = []
    a, x, t = operands((4096, 4096), np.float32)
    for label, axis, tdim in (("all", None, None), ("axis 0", 0, 0), ("axis 1", 1, 1)):
        cases.append((f"sum {label} 4096^2 float32", {
            "flexarray": lambda axis=axis: xp.sum(x, axis=axis),
            "numpy": lambda axis=axis: np.sum(a, axis=axis),
            "torch": t is not None and (lambda tdim=tdim: t.sum() if tdim is None
                                        else t.sum(dim=tdim))}, ">= 1x NumPy"))
    cases.append(("max axis 0 4096^2 float32", {
        "flexarray": lambda: xp.max(x, axis=0), "numpy": lambda: np.max(a, axis=0),
        "torch": t is not None and (lambda: t.amax(dim=0))}, ">= 1x NumPy"))
    for dt in (np.float16, ml_dtypes.bfloat16):
        h, hx, ht = operands((4096, 4096), dt)
        name = np.dtype(dt).name
        cases.append((f"sum axis 1 4096^2 {name}", {
            "flexarray": lambda hx=hx: xp.sum(hx, axis=1),
            "numpy": lambda h=h: np.sum(h, axis=1, dtype=np.float32).astype(h.dtype),
            "torch": ht is not None and (lambda ht=ht: ht.sum(dim=1))}, ">= 1x NumPy"))
    v, vx, vt = operands(1 << 20, np.float32)
    w = flexarray.nn.unfold(vx, 0, 64)  # overlapping windows: shape (1M-63, 64), strides (4, 4)
    cases.append(("sum of unfold(1M float32, 64) windows", {
        "flexarray": lambda: xp.sum(w, axis=-1),
        "numpy": lambda: np.lib.stride_tricks.sliding_window_view(v, 64).sum(-1),
        "torch": vt is not None and (lambda: vt.unfold(0, 64, 1).sum(-1))}, ">= 1x torch"))
    i, ix, it = operands((4096, 4096), np.int32, lo=-1000, hi=1000)
    cases.append(("sum all 4096^2 int32 -> int64", {
        "flexarray": lambda: xp.sum(ix), "numpy": lambda: np.sum(i),
        "torch": it is not None and (lambda: it.sum())}, ">= 1x NumPy"))
    return cases


def matmul_cases():
    cases = []
    for n in (1024, 2048):
        a, x, ta = operands((n, n), np.float32)
        b, y, tb = operands((n, n), np.float32, seed=1)
        cases.append((f"matmul {n} float32", {
            "flexarray": lambda x=x, y=y: x @ y, "numpy": lambda a=a, b=b: a @ b,
            "torch": ta is not None and (lambda ta=ta, tb=tb: ta @ tb)}, "within 5% of NumPy"))
    info = np.iinfo(np.int32)
    for label, lo, hi in (("|v| <= 1000", -1000, 1000), ("full range", info.min, info.max)):
        a, x, ta = operands((1024, 1024), np.int32, lo=lo, hi=hi)
        b, y, tb = operands((1024, 1024), np.int32, seed=1, lo=lo, hi=hi)
        cases.append((f"matmul 1024 int32 {label}", {
            "flexarray": lambda x=x, y=y: x @ y, "numpy": lambda a=a, b=b: a @ b,
            "torch": ta is not None and (lambda ta=ta, tb=tb: ta @ tb)}, ">= 20x NumPy"))
    a, x, ta = operands((1024, 1024), np.float16)
    b, y, tb = operands((1024, 1024), np.float16, seed=1)
    cases.append(("matmul 1024 float16", {
        "flexarray": lambda: x @ y, "numpy": lambda: a @ b,
        "torch": ta is not None and (lambda: ta @ tb)}, ">= 1x NumPy"))
    return cases


def main():
    run(reduction_cases(), "Reductions (times per call; peer/flexarray > 1: flexarray faster)")
    run(matmul_cases(), "Matrix products")


if __name__ == "__main__":
    main()
