"""Where the frontend reaches the Numba kernels: lazy imports, size gates, fallbacks.

Each function takes NumPy operands the frontend has validated and returns a fresh NumPy
result, or None when no kernel applies (the caller then uses NumPy). Kernel modules are
imported on first use only, and only for inputs above the size gate, so ``import flexarray``
and small calls never import Numba.
"""
from __future__ import annotations

import importlib

import ml_dtypes
import numpy as np
from . import gates

_modules = {}


def kernel_module(name):
    """``flexarray._kernels.<name>``, imported on first use. A kernel module that fails to
    import is a bug, not a reason to fall back quietly: the error propagates."""
    try:
        return _modules[name]
    except KeyError:
        mod = _modules[name] = importlib.import_module(f"flexarray._kernels.{name}")
        return mod


def _entry(module, name):
    """Function ``name`` of kernel module ``module``."""
    return getattr(kernel_module(module), name)


# --- reductions -------------------------------------------------------------------------------

_HALF = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))
_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)

_GATES = gates.REDUCE_KERNEL_MIN  # measured: flexarray/_engines/gates.py
KERNEL_MIN = min(_GATES.values())  # below this, no kernel (checked first: ~0.2 us)


def _reduce_gate(op, a, axes, acc):
    dt = a.dtype
    if dt in _HALF:
        return _GATES["float16" if dt == _HALF[0] else "bfloat16"]
    if (op in ("max", "min") and dt.kind == "f" and a.nbytes >= _MINMAX_OUTER_BYTES
            and _reduces_outer(a, axes)):
        return 0
    if op in ("sum", "prod"):
        if (dt.kind in "biu" and dt.itemsize < 8 and acc.itemsize == 8) or (
                dt == _F32 and acc == _F64):
            return _GATES["widening"]
        if dt == _F32 and acc == _F32:
            return _GATES["float32 sum/prod"]
    return None


_MINMAX_OUTER_BYTES = gates.MINMAX_OUTER_KERNEL_MIN_BYTES


def _f32_product(a, axes, nan):
    """A float32 product by the kernel, accumulated in float64 and rounded once. In
    float32 its lanes, whose short products stay near 1 for data near 1, round with a bias
    (products of 4M values in [0.999, 1.001]: relative error -1.6e-3 against NumPy's
    3.7e-5, growing with the length); in float64 it is exact to ~1e-8 at that size and,
    over all axes or the innermost, as fast (4096^2: 1.7-2.3 ms either way, NumPy 17 ms).
    Over an outer axis float64 lanes cost 1.3-1.9x float32's (4096^2 axis 0: 3.3 ms,
    NumPy 2.0): :func:`reduce` leaves that to NumPy."""
    r = _entry("reductions.reduce", "reduce")("prod", a, axes, _F64, nan)
    with np.errstate(over="ignore"):  # (beyond float32's range: inf, the IEEE rounding)
        return r.astype(_F32)


def innermost_dim(a):
    """The dim of ``a`` innermost in memory (the smallest stride, sizes 1 aside); None when
    no dim has more than one element."""
    if a.flags.c_contiguous and a.ndim and a.shape[-1] > 1:
        return a.ndim - 1
    inner = min(((abs(s), d) for d, (n, s) in enumerate(zip(a.shape, a.strides)) if n > 1),
                default=None)
    return None if inner is None else inner[1]


def _reduces_outer(a, axes) -> bool:
    """Whether the innermost dim of ``a`` in memory is a kept one."""
    d = innermost_dim(a)
    return d is not None and d not in axes


def reduce(op, a, axes, acc, keepdims):
    """``op`` ("sum", "prod", "max", "min") of ``a`` over the sorted tuple ``axes``,
    accumulating in NumPy dtype ``acc`` (sum/prod), as a fresh array of dtype ``acc`` (or
    ``a.dtype`` for max/min); None when NumPy is faster (the caller uses it). The caller
    has rejected max/min over empty axes."""
    if a.size < KERNEL_MIN or not axes:
        return None
    gate = _reduce_gate(op, a, axes, np.dtype(acc))
    if gate is None or a.size < gate:
        return None
    if op == "prod" and a.dtype == _F32 and acc == _F32:
        if _reduces_outer(a, axes):
            return None  # (NumPy's row-by-row product: unbiased, and faster than float64's)
        r = _f32_product(a, axes, None)
    else:
        r = _entry("reductions.reduce", "reduce")(op, a, axes,
                                                  acc if op in ("sum", "prod") else None)
    if keepdims:
        r = r.reshape(tuple(1 if i in axes else n for i, n in enumerate(a.shape)))
    return r


_NAN_MIN = gates.NAN_REDUCE_KERNEL_MIN


def nan_reduce(op, a, axes, acc, nan, keepdims):
    """``op`` ("sum", "prod") of floating ``a`` over the sorted tuple ``axes`` with NaN
    elements skipped (``nan`` "skip": NumPy's nansum/nanprod) or counted ("count": the
    number of elements that are not NaN, with ``op`` "sum"), in NumPy dtype ``acc``, by the
    kernel; None below its gate (the caller runs NumPy's nan-functions)."""
    if a.size < _NAN_MIN or not axes:
        return None
    if op == "prod" and a.dtype == _F32 and acc == _F32:
        r = _f32_product(a, axes, nan)
    else:
        r = _entry("reductions.reduce", "reduce")(op, a, axes, acc, nan)
    if keepdims:
        r = r.reshape(tuple(1 if i in axes else n for i, n in enumerate(a.shape)))
    return r
