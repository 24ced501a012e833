"""Linear algebra in the main namespace: matmul, matrix_transpose, tensordot, vecdot.

The functions validate and call the matrix-product engine (``flexarray._engines.matmul``):
float32/64 and complex go to BLAS through NumPy (strided operands with a unit inner stride
need no copy), on the thread pool where OpenBLAS's own threads cost more; float16/bfloat16
compute through float32 BLAS and round once; integers use exact float64 BLAS when the
operands' magnitudes allow it, else the Numba kernel (NumPy's integer matmul has no BLAS
path: int32 1024^3 takes ~4 s).
"""
from __future__ import annotations

import builtins
import math
import operator

import numpy as np

from . import _dtypes as _dt
from . import _memory
from ._array import Array, wrap
from ._engines import matmul as engine
from ._helpers import check_array

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot"]

_F32 = np.dtype(np.float32)


def numeric_pair(func, x1, x2):
    """The promoted dtype of two numeric flexarray arrays (TypeError otherwise)."""
    check_array(x1, func, "x1")
    check_array(x2, func, "x2")
    dt = _dt.promote(x1._dtype, x2._dtype, func)
    _dt.check_dtype(func, "x1' and 'x2", dt, "numeric", of_array=True)
    return dt


def compute_np(dt):
    """The NumPy dtype BLAS/LAPACK work happens in for flexarray dtype ``dt``."""
    return _F32 if dt in _dt.HALF else dt


def as_compute(a, dt):
    """NumPy array ``a`` in the compute dtype of ``dt`` (no copy when it already is)."""
    return a.astype(compute_np(dt), copy=False)


_BLAS_DTYPES = frozenset({_dt.float32, _dt.float64, _dt.complex64, _dt.complex128})


def matmul(x1, x2, /):
    """Matrix product of the last two axes, broadcast over the leading ones (PEP 465: a 1-D
    operand is a row/column vector whose added axis is removed afterwards)."""
    if type(x1) is Array and type(x2) is Array and x1._dtype is x2._dtype and \
            x1._dtype in _BLAS_DTYPES:
        # the common case (~2 us less): two matrices of one BLAS dtype, a result too
        # small for recycled memory: the engine's BLAS product, no further checks
        a, b = x1._arr, x2._arr
        if a.ndim == 2 and b.ndim == 2 and a.shape[1] == b.shape[0] and \
                a.shape[0] * b.shape[1] * a.itemsize < _memory.RECYCLE_MIN_BYTES:
            return wrap(engine.matmul(a, b))
    dt = numeric_pair("matmul", x1, x2)
    s1, s2 = x1.shape, x2.shape
    if not s1 or not s2:
        raise ValueError(f"matmul: operands must have at least 1 dimension, got shapes "
                         f"{s1} and {s2}; use multiply() for scalars")
    k1 = s1[-1]
    k2 = s2[-2] if len(s2) > 1 else s2[0]
    if k1 != k2:
        raise ValueError(f"matmul: x1 {s1} has {k1} columns but x2 {s2} has {k2} rows; "
                         f"they must match")
    try:
        if len(s1) > 2 and len(s2) > 2:  # (batch dimensions on one side only always fit)
            np.broadcast_shapes(s1[:-2], s2[:-2])
    except ValueError:
        raise ValueError(f"matmul: the batch dimensions of x1 {s1} and x2 {s2} do not "
                         f"broadcast") from None
    return wrap(engine.product(x1._arr, x2._arr, dt))


def matrix_transpose(x, /):
    """The transpose of the last two axes (a zero-copy view)."""
    check_array(x, "matrix_transpose")
    if x.ndim < 2:
        raise ValueError(f"matrix_transpose: 'x' must have at least 2 dimensions, got shape "
                         f"{x.shape}")
    return x.mT


def _tensordot_axes(axes, x1, x2):
    """``axes`` as two lists of non-negative axes (validated)."""
    n1, n2 = x1.ndim, x2.ndim
    if isinstance(axes, builtins.bool):
        raise TypeError(f"tensordot: 'axes' must be an int or a pair of sequences of ints, "
                        f"got {axes!r}")
    if isinstance(axes, (int, np.integer)):
        if not 0 <= axes <= builtins.min(n1, n2):
            raise ValueError(f"tensordot: axes={axes} must be in [0, {builtins.min(n1, n2)}] "
                             f"for shapes {x1.shape} and {x2.shape}")
        return list(range(n1 - axes, n1)), list(range(axes))
    try:
        ax1, ax2 = axes
        ax1 = [operator.index(a) for a in ax1]
        ax2 = [operator.index(a) for a in ax2]
    except (TypeError, ValueError):
        raise TypeError(f"tensordot: 'axes' must be an int or a pair of sequences of ints, "
                        f"got {axes!r}") from None
    if len(ax1) != len(ax2):
        raise ValueError(f"tensordot: the two axes sequences differ in length: {axes!r}")
    out = []
    for ax, n, name, shape in ((ax1, n1, "x1", x1.shape), (ax2, n2, "x2", x2.shape)):
        for a in ax:
            if not -n <= a < n:
                raise ValueError(f"tensordot: axis {a} is out of range for {name} of shape "
                                 f"{shape}; allowed: {-n} <= axis < {n}")
        norm = [a % n for a in ax]
        if len(set(norm)) != len(norm):
            raise ValueError(f"tensordot: repeated axes for {name}: {list(ax)}")
        out.append(norm)
    return out


def tensordot(x1, x2, /, *, axes=2):
    """Sum of products over the given axes: an int ``n`` contracts the last n axes of x1
    with the first n of x2; a pair of sequences names the axes. Runs as one matmul."""
    dt = numeric_pair("tensordot", x1, x2)
    ax1, ax2 = _tensordot_axes(axes, x1, x2)
    s1, s2 = x1.shape, x2.shape
    for a, b in zip(ax1, ax2):
        if s1[a] != s2[b]:
            raise ValueError(f"tensordot: x1 axis {a} has size {s1[a]} but x2 axis {b} has "
                             f"size {s2[b]}; contracted axes must match (no broadcasting)")
    free1 = [i for i in range(x1.ndim) if i not in ax1]
    free2 = [i for i in range(x2.ndim) if i not in ax2]
    shape1, shape2 = tuple(s1[i] for i in free1), tuple(s2[i] for i in free2)
    k = math.prod(s1[a] for a in ax1)
    a = x1._arr.transpose(free1 + ax1).reshape(math.prod(shape1), k)
    b = x2._arr.transpose(ax2 + free2).reshape(k, math.prod(shape2))
    out_shape = shape1 + shape2
    r = engine.product(a, b, dt).reshape(out_shape)
    return wrap(r)


def vecdot(x1, x2, /, *, axis=-1):
    """Dot products of vectors along ``axis`` (x1 conjugated), broadcast over the other
    axes. ``axis`` counts from the end: -1 is the last axis."""
    dt = numeric_pair("vecdot", x1, x2)
    if isinstance(axis, builtins.bool) or not isinstance(axis, (int, np.integer)):
        raise TypeError(f"vecdot: 'axis' must be an int, got {type(axis).__name__}")
    n = builtins.min(x1.ndim, x2.ndim)
    if axis >= 0 and x1.ndim == x2.ndim:
        axis -= n  # unambiguous when both have the same rank
    if not -n <= axis <= -1:
        raise ValueError(f"vecdot: axis={axis} is out of range for shapes {x1.shape} and "
                         f"{x2.shape}; allowed: {-n} <= axis <= -1 (or 0 <= axis < {n} when "
                         f"both have the same rank)")
    if x1.shape[axis] != x2.shape[axis]:
        raise ValueError(f"vecdot: x1 {x1.shape} and x2 {x2.shape} must have the same size "
                         f"along axis {axis}; the contracted axis is not broadcast")
    try:
        np.broadcast_shapes(x1.shape, x2.shape)
    except ValueError:
        raise ValueError(f"vecdot: shapes {x1.shape} and {x2.shape} do not broadcast") from None
    ct = compute_np(dt)
    return wrap(engine.vecdot(x1._arr.astype(ct, copy=False), x2._arr.astype(ct, copy=False),
                              axis, dt))
