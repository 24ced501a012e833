"""Argument checking and dtype handling shared by the flexarray.nn frontends."""
import sys

import numpy as np

from .._array import wrap
from .. import _dtypes as dt


def float_result_dtype(func, **arrays):
    """The promoted dtype of the arrays, which must all be real floating-point."""
    for name, a in arrays.items():
        if a is not None:
            dt.check_dtype(func, name, a, "real floating")
    return dt.result_type(*(a for a in arrays.values() if a is not None), func=func)


def compute_dtype(d):
    """NumPy dtype kernels compute in: float64 for float64, float32 otherwise."""
    return np.dtype(np.float64) if d is dt.float64 else np.dtype(np.float32)


def to_compute(a, cdt, contiguous=True):
    """``a._arr`` as a C-contiguous NumPy array of dtype cdt (no copy when it already is)."""
    nd = a._arr
    if nd.dtype == cdt and (not contiguous or nd.flags.c_contiguous):
        return nd
    return np.ascontiguousarray(nd, dtype=cdt) if contiguous else nd.astype(cdt)


def finish(nd, result):
    """Wrap a fresh compute-dtype result as an Array of dtype ``result`` (rounded once)."""
    if nd.dtype != result:
        nd = nd.astype(result)
    return wrap(nd)


def ntuple(v, n, func, name, minimum):
    """An int (repeated) or a sequence of n ints, each >= minimum, as a tuple of n ints."""
    if isinstance(v, (tuple, list)):
        if len(v) == 1 and n > 1:
            v = tuple(v) * n
        if len(v) != n:
            raise ValueError(f"{func}: '{name}' must be an int or a tuple of {n} ints, got "
                             f"{tuple(v)!r}")
        vals = tuple(check_int(e, func, name, "an int or a tuple of ints") for e in v)
    else:
        vals = (check_int(v, func, name, "an int or a tuple of ints"),) * n
    if any(e > sys.maxsize for e in vals):
        raise ValueError(f"{func}: '{name}' must be at most {sys.maxsize}, got {v!r}")
    if any(e < minimum for e in vals):
        what = "positive" if minimum == 1 else "non-negative"
        raise ValueError(f"{func}: '{name}' must be {what} (>= {minimum}), got "
                         f"{v if not isinstance(v, list) else tuple(v)!r}")
    return vals


def spatial_names(n):
    return ", ".join(("D", "H", "W")[3 - n:])


def to5d(nd, n):
    """(N, C, *spatial n) NumPy array as (N, C, D, H, W) with size-1 leading dims (a view)."""
    return nd.reshape(nd.shape[:2] + (1,) * (3 - n) + nd.shape[2:])


def pad3(t, n, fill):
    """An n-tuple of spatial parameters as the 3-D tuple (leading dims filled)."""
    return (fill,) * (3 - n) + tuple(t)
from .._helpers import check_int
