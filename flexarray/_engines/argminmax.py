"""The argmax/argmin engine: NumPy's SIMD scan (its rows on threads) or the Numba kernels.

Chooses (gates in :mod:`.gates`, Reductions):

- along a contiguous axis of a native dtype (not float16): NumPy's argmax/argmin on a
  writable alias of the memory (NumPy 2.4 copies read-only input first, 1.6-2.3x slower;
  it only reads the alias), the rows split over threads from
  ``gates.ARG_NUMPY_THREADS_MIN`` elements (:func:`numpy_rows`);
- the kernels of ``flexarray._kernels.reductions.argminmax`` from ``gates.ARG_KERNEL_MIN``
  elements where they measured faster: an axis that is not the most contiguous dim,
  float16, a strided axis with a more contiguous dim beside it, and ``axis=None`` from
  ``gates.ARG_KERNEL_FLAT_MIN`` elements (never bool: NumPy stops at the first True), a
  layout other than C-contiguous copied first by the copy engine (:func:`kernel`);
- NumPy otherwise (the caller's, when these return None).

Operands are NumPy arrays the frontend has validated (ordered dtypes, a non-empty axis).
"""
import numpy as np

from .. import _threads
from . import copy as _copy
from . import gates

__all__ = ["chosen_kernel", "kernel", "numpy_rows"]


def numpy_rows(npfunc, a, ax):
    """``npfunc(a, axis=ax)`` along a contiguous axis, its rows split across threads when
    large; None when that does not apply (half floats, a strided axis, unwritable memory)."""
    if a.strides[ax] != a.itemsize or a.dtype.kind not in "biuf" or a.dtype == np.float16:
        return None
    if not a.flags.writeable:
        alias = a.view()
        try:
            alias.flags.writeable = True  # NumPy only reads it (see above)
        except ValueError:  # memory nobody may write: the kernel reads it as it is
            return None
        a = alias
    split = max((d for d in range(a.ndim) if d != ax), key=lambda d: a.shape[d], default=None)
    if (_threads.NTHREADS < 2 or a.size < gates.ARG_NUMPY_THREADS_MIN or split is None
            or a.shape[split] < 2 * _threads.NTHREADS):
        return npfunc(a, axis=ax)
    out = np.empty(a.shape[:ax] + a.shape[ax + 1:], np.intp)
    osplit = split - (split > ax)

    def part(lo, hi):
        sl = slice(lo, hi)
        npfunc(a[(slice(None),) * split + (sl,)], axis=ax,
               out=out[(slice(None),) * osplit + (sl,)])

    _threads.run_split(part, (), a.shape[split], _threads.NTHREADS, pieces_per_thread=4)
    return out


def chosen_kernel(a, ax):
    """The argminmax kernel module when it is faster for ``a`` along ``ax``, else None."""
    if a.size < gates.ARG_KERNEL_MIN:
        return None
    if a.dtype != np.float16:
        if ax is None:
            if a.size < gates.ARG_KERNEL_FLAT_MIN or a.dtype == np.bool_:
                return None
        elif abs(a.strides[ax]) != a.itemsize:
            s = abs(a.strides[ax])
            if not any(abs(st) < s for d, (n, st) in enumerate(zip(a.shape, a.strides))
                       if d != ax and n > 1):
                return None
    from .._kernels.reductions import argminmax
    return argminmax


def kernel(func, a, ax):
    """``func`` ("argmax" or "argmin") of ``a`` along ``ax`` (None: all elements, flat
    indices) by the kernels, as an int64 array without the axis; None where NumPy is the
    faster (see the module's docstring)."""
    if a.size < gates.ARG_KERNEL_MIN:  # (checked first: small calls skip a call)
        return None
    mod = chosen_kernel(a, ax)
    if mod is None:
        return None
    if ax is None and not a.flags.c_contiguous:
        a = _copy.contiguous(a)  # (the kernel scans C-contiguous input as one run)
    return getattr(mod, func)(a, ax)
