"""Benchmarks beside bench_reductions.py: argmax, sort, take and transpose-copy through the
flexarray namespace; flexarray vs NumPy vs PyTorch CPU in one run.

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/bench_namespace.py
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
import flexarray as xp  # noqa: E402
from _harness import run, torch  # noqa: E402


def main():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((4096, 4096)).astype(np.float32)
    x = xp.asarray(a.copy())
    t = torch.from_numpy(a.copy()) if torch else None
    cases = []
    for axis in (0, 1):
        cases.append((f"argmax axis {axis} 4096^2 float32", {
            "flexarray": lambda axis=axis: xp.argmax(x, axis=axis),
            "numpy": lambda axis=axis: np.argmax(a, axis=axis),
            "torch": t is not None and (lambda axis=axis: t.argmax(dim=axis))},
            ">= 3x NumPy" if axis == 0 else ">= 1x NumPy"))
    s = rng.standard_normal(1 << 20).astype(np.float32)
    sx = xp.asarray(s.copy())
    st = torch.from_numpy(s.copy()) if torch else None
    cases.append(("sort 1M float32", {
        "flexarray": lambda: xp.sort(sx), "numpy": lambda: np.sort(s, kind="stable"),
        "torch": st is not None and (lambda: st.sort(stable=True))}, ">= 1x NumPy"))
    st64 = torch.from_numpy(s.astype(np.float64)) if torch else None
    s64, sx64 = s.astype(np.float64), xp.asarray(s.astype(np.float64))
    cases.append(("argsort 1M float64", {
        "flexarray": lambda: xp.argsort(sx64), "numpy": lambda: np.argsort(s64, kind="stable"),
        "torch": st64 is not None and (lambda: st64.argsort(stable=True))}, ">= 1x NumPy"))
    flat = a.reshape(-1)
    idx = rng.integers(0, flat.size, 1 << 22)
    fx_flat, fx_idx = xp.reshape(x, (-1,)), xp.asarray(idx)
    tflat, tidx = (torch.from_numpy(flat.copy()), torch.from_numpy(idx)) if torch else (None,) * 2
    cases.append(("take 4M random of 16M float32", {
        "flexarray": lambda: xp.take(fx_flat, fx_idx), "numpy": lambda: np.take(flat, idx),
        "torch": tflat is not None and (lambda: tflat[tidx])}, ">= 1x NumPy"))
    cases.append(("transpose-copy 4096^2 float32", {
        "flexarray": lambda: xp.reshape(x.T, (-1,)),
        "numpy": lambda: np.ascontiguousarray(a.T),
        "torch": t is not None and (lambda: t.T.contiguous())}, ">= 3x NumPy"))
    run(cases, "Searching, sorting, copies (times: best of 5; ratios: peer / flexarray)")


if __name__ == "__main__":
    main()
