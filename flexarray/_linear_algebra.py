"""Linear algebra in the main namespace: matmul, matrix_transpose, tensordot, vecdot.

float32/64 and complex go to BLAS through NumPy (strided operands with a unit inner stride
need no copy); float16/bfloat16 compute through float32 and round once.
"""
import builtins
import operator

import numpy as np

from . import _dtypes as _dt
from ._array import Array, _new, wrap
from ._helpers import check_array

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot"]


def _numeric_pair(func, x1, x2):
    check_array(x1, func, "x1")
    check_array(x2, func, "x2")
    dt = _dt.promote(x1._dtype, x2._dtype)
    if not _dt.is_numeric(dt):
        raise TypeError(f"{func}: needs numeric arrays, got {x1._dtype} and {x2._dtype}")
    return dt


def _compute_dtype(dt):
    return np.float32 if dt in _dt.HALF else dt.np


def _finish(r, dt):
    return wrap(r.astype(dt.np, copy=False))


def matmul(x1, x2, /):
    """Matrix product of the last two axes, broadcast over the leading ones (1-D operands
    are promoted to a row/column vector and the added axis removed afterwards)."""
    dt = _numeric_pair("matmul", x1, x2)
    if x1.ndim == 0 or x2.ndim == 0:
        raise ValueError(f"matmul: operands must have at least 1 dimension, got shapes "
                         f"{x1.shape} and {x2.shape}")
    k1 = x1.shape[-1]
    k2 = x2.shape[-2] if x2.ndim > 1 else x2.shape[0]
    if k1 != k2:
        raise ValueError(f"matmul: contracted dimensions differ: x1 {x1.shape} has {k1} "
                         f"columns, x2 {x2.shape} has {k2} rows")
    try:
        np.broadcast_shapes(x1.shape[:-2], x2.shape[:-2])
    except ValueError:
        raise ValueError(f"matmul: batch dimensions of {x1.shape} and {x2.shape} do not "
                         f"broadcast") from None
    if dt.kind in "iu":
        from ._kernels_bridge import int_matmul
        r = int_matmul(x1._arr, x2._arr, dt.np)
        if r is not None:
            return wrap(r)
    ct = _compute_dtype(dt)
    return _finish(np.matmul(x1._arr, x2._arr, dtype=ct), dt)


def matrix_transpose(x, /):
    """The transpose of the last two axes: a zero-copy view."""
    check_array(x, "matrix_transpose")
    return x.mT


def tensordot(x1, x2, /, *, axes=2):
    """Sum of products over the given axes (an int ``n``: last n of x1, first n of x2)."""
    dt = _numeric_pair("tensordot", x1, x2)
    if isinstance(axes, builtins.bool):
        raise TypeError(f"tensordot: 'axes' must be an int or a pair of sequences, got {axes!r}")
    if isinstance(axes, int):
        if axes < 0 or axes > builtins.min(x1.ndim, x2.ndim):
            raise ValueError(f"tensordot: axes={axes} must be in [0, "
                             f"{builtins.min(x1.ndim, x2.ndim)}] for shapes {x1.shape}, "
                             f"{x2.shape}")
        a1, a2 = list(range(x1.ndim - axes, x1.ndim)), list(range(axes))
    else:
        try:
            a1, a2 = ([operator.index(a) for a in ax] for ax in axes)
        except (TypeError, ValueError):
            raise TypeError(f"tensordot: 'axes' must be an int or a pair of sequences of "
                            f"ints, got {axes!r}") from None
        if len(a1) != len(a2):
            raise ValueError(f"tensordot: axes lists differ in length: {axes!r}")
    for a, b in zip(a1, a2):
        for ax, x, name in ((a, x1, "x1"), (b, x2, "x2")):
            if not -x.ndim <= ax < x.ndim:
                raise ValueError(f"tensordot: axis {ax} is out of range for {name} of shape "
                                 f"{x.shape}")
        if x1.shape[a] != x2.shape[b]:
            raise ValueError(f"tensordot: x1 axis {a} has size {x1.shape[a]} but x2 axis {b} "
                             f"has size {x2.shape[b]}")
    ct = _compute_dtype(dt)
    r = np.tensordot(x1._arr.astype(ct, copy=False), x2._arr.astype(ct, copy=False),
                     axes=(a1, a2))
    return _finish(np.asarray(r), dt)


def vecdot(x1, x2, /, *, axis=-1):
    """Dot products of vectors along ``axis`` (conjugating x1), broadcast over the rest."""
    dt = _numeric_pair("vecdot", x1, x2)
    if isinstance(axis, builtins.bool) or not isinstance(axis, int):
        raise TypeError(f"vecdot: 'axis' must be an int, got {axis!r}")
    nd = builtins.max(x1.ndim, x2.ndim)
    if not -nd <= axis < nd or x1.ndim == 0 or x2.ndim == 0:
        raise ValueError(f"vecdot: axis={axis} is out of range for shapes {x1.shape}, "
                         f"{x2.shape}")
    try:
        shape = np.broadcast_shapes(x1.shape, x2.shape)
    except ValueError:
        raise ValueError(f"vecdot: shapes {x1.shape} and {x2.shape} do not broadcast") from None
    ax = axis % nd - nd
    if -ax > builtins.min(x1.ndim, x2.ndim) or x1.shape[ax] != x2.shape[ax]:
        raise ValueError(f"vecdot: x1 {x1.shape} and x2 {x2.shape} must have the same size "
                         f"along axis {axis}")
    ct = _compute_dtype(dt)
    a, b = (np.broadcast_to(x._arr, shape) for x in (x1, x2))
    r = np.vecdot(a, b, axis=ax, dtype=ct) if dt.kind not in "iu" else np.sum(
        np.conj(a) * b, axis=ax, dtype=ct)
    return _finish(np.asarray(r), dt)
