"""Where the frontend reaches the Numba kernels: lazy imports, size gates, fallbacks.

Each function takes NumPy operands the frontend has validated and returns a fresh NumPy
result, or None when no kernel applies (the caller then uses NumPy). Kernel modules are
imported on first use only, and only for inputs above the size gate, so ``import flexarray``
and small calls never import Numba.
"""
from __future__ import annotations

import importlib

import numpy as np

_modules = {}


def _kernels(name):
    """``flexarray._kernels.<name>``, or None when it is missing (imported once)."""
    try:
        return _modules[name]
    except KeyError:
        pass
    try:
        mod = importlib.import_module(f"flexarray._kernels.{name}")
    except ImportError:
        mod = None
    _modules[name] = mod
    return mod


# --- reductions -------------------------------------------------------------------------------

def reduce(op, a, axes, acc, keepdims):
    """``op`` ("sum", "prod", "max", "min") of ``a`` over the sorted tuple ``axes`` in NumPy
    dtype ``acc``, or None (the caller uses NumPy)."""
    return None


# --- integer matmul ---------------------------------------------------------------------------

_F64_EXACT = 1 << 53  # every integer of magnitude below this is a float64


def _max_abs(a) -> int:
    if a.size == 0:
        return 0
    hi, lo = int(a.max()), int(a.min())
    return max(abs(hi), abs(lo))


def int_matmul(a, b, dt):
    """``a @ b`` for integer NumPy operands (both already of NumPy dtype ``dt``), wrapping
    on overflow as NumPy does; None when no fast path applies.

    NumPy has no BLAS path for integers (int32 1024^3: ~4 s). Two fast paths:

    - exact float64 BLAS: when ``K * max|a| * max|b| < 2**53`` every product and every
      partial sum is an integer float64 represents exactly, in any summation order, so
      dgemm gives the exact integer result (then wrapped through int64 like NumPy).
      Checking the bound costs two min/max passes over the operands.
    - the Numba kernel in ``_kernels/matmul.py`` otherwise.
    """
    k = a.shape[-1]
    if a.size == 0 or b.size == 0:
        return None
    if k * _max_abs(a) * _max_abs(b) < _F64_EXACT:
        r = np.matmul(a.astype(np.float64), b.astype(np.float64))
        return r.astype(np.int64).astype(dt, copy=False)
    mod = _kernels("matmul")
    f = getattr(mod, "int_matmul", None) if mod is not None else None
    if f is None:
        return None
    return f(a, b, dt)
