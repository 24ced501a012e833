"""Utility functions: all, any, diff."""
from __future__ import annotations

import builtins

import numpy as np

from . import _dtypes as _dt
from ._array import Array, wrap
from ._deferred import pending
from ._helpers import cast_result, check_array, check_int, normalize_axis, reduction_axes
from ._engines import fusion as _fusion
from ._engines import reductions as engine

__all__ = ["all", "any", "diff"]

_F32 = np.dtype(np.float32)
_U8 = np.dtype(np.uint8)


def all(x, /, *, axis=None, keepdims=False):
    """Whether every element over ``axis`` is true (nonzero; NaN counts as true). The empty
    reduction is True. Returns a bool array (0-d for a full reduction)."""
    return _truth(np.logical_and, "min", "all", x, axis, keepdims)


def any(x, /, *, axis=None, keepdims=False):
    """Whether any element over ``axis`` is true (nonzero; NaN counts as true). The empty
    reduction is False."""
    return _truth(np.logical_or, "max", "any", x, axis, keepdims)


def _truth(ufunc, byte_op, func, x, axis, keepdims):
    """``all``/``any``: the logical ufunc's reduce in bool, as ``np.all``/``np.any`` compute
    it (without their ~1.5 us of Python). Over one outer axis of a bool array (sklearn's
    ``all(isnan(X), axis=0)``), the bytes' min/max (``byte_op``) instead, which the
    reductions' row folds and threads take (50,000 x 64: 0.69 -> 0.32 ms, 50,000 x 3:
    0.46 -> 0.02 ms; along the innermost axis NumPy's logical reduce is faster)."""
    if axis is None and keepdims is False and type(x) is Array:  # (~1-2 us less)
        a = x._arr
        if a.ndim == 0:  # one element: its truth (NaN is true)
            return wrap(np.array(builtins.bool(a)))
        return wrap(np.asarray(ufunc.reduce(a, None, np.bool_)))
    axes = reduction_axes(func, x, axis, keepdims)
    if (node := pending(x)) is not None and axes and axes[0] == 0 and (
            len(axes) == len(node.shape) or len(axes) == 1):
        r = _decided_early(ufunc, node, axes, keepdims)
        if r is not None:
            return r
    a = x._arr
    if (x._dtype is _dt.bool and len(axes) == 1 and a.ndim > 1 and a.shape[axes[0]] > 1
            and abs(a.strides[axes[0]]) > 1):  # 0/1 bytes: min is all, max is any
        r = engine.reduce(byte_op, a.view(np.uint8), axes, _U8, keepdims)
        return wrap(r.view(np.bool_))
    r = ufunc.reduce(a, None if len(axes) == a.ndim else axes, np.bool_, None, keepdims)
    return wrap(np.asarray(r))


def _decided_early(ufunc, node, axes, keepdims):
    """``all``/``any`` (``ufunc`` logical and/or) over every axis or axis 0 of a pending
    chain ``node``, decided by its first block of rows alone (fusion's
    :func:`~._engines.fusion.leading`): every result already False for ``all`` (True for
    ``any``), whatever the other rows hold; None otherwise (the caller computes the
    values). scikit-learn's ``_nanmin``/``_nanmax`` ask ``all(isnan(X), axis=0)`` after
    the fused min/max: one row of numbers decides it, and the mask is never made. (A chain
    in another memory order than C's is left to the caller: the result's layout follows
    its memory order, as NumPy's reduce lays it out.)"""
    if node.shape[0] < 2 or node.perm is not None:
        return None
    part = ufunc.reduce(_fusion.leading(node), None if len(axes) > 1 else 0, np.bool_,
                        None, keepdims)
    decided = not part.any() if ufunc is np.logical_and else part.all()
    return wrap(np.asarray(part)) if decided else None


def _edge(value, name, x, ax, dt):
    """``prepend``/``append`` as a NumPy operand of dtype ``dt`` matching ``x`` off ``ax``."""
    if isinstance(value, Array):
        a = value._arr
        if a.ndim != x.ndim or builtins.any(
                n != m for i, (n, m) in enumerate(zip(a.shape, x.shape)) if i != ax):
            raise ValueError(f"diff: '{name}' must have x's shape {x.shape} except along "
                             f"axis {ax}, got shape {a.shape}")
        return a.astype(dt, copy=False)
    shape = list(x.shape)
    shape[ax] = 1
    return np.broadcast_to(_dt.scalar_operand("diff", value, dt), shape)


def diff(x, /, n=1, axis=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``axis``: ``out[i] = x[i+1] - x[i]``, applied
    ``n`` times (``n`` may be given positionally, as in NumPy: ``diff(x, 2)``).

    ``prepend``/``append`` (arrays shaped like ``x`` except along ``axis``, or Python
    scalars) are joined to ``x`` first; their dtypes promote with x's. Booleans differ by
    ``!=``, as in NumPy. float16/bfloat16 compute in float32 and round once.
    """
    check_array(x, "diff")
    if isinstance(n, builtins.bool):
        raise TypeError("diff: 'n' must be an int, got bool")
    n = check_int(n, "diff", "n")
    if n < 0:
        raise ValueError(f"diff: 'n' must be >= 0, got {n}")
    if x.ndim == 0:
        raise ValueError("diff: 'x' must have at least one dimension, got a 0-d array")
    ax = normalize_axis(axis, x.ndim, "diff")
    operands = [x]
    for value, name in ((prepend, "prepend"), (append, "append")):
        if value is None:
            continue
        if not isinstance(value, (Array, int, float, complex)):
            raise TypeError(f"diff: '{name}' must be None, a flexarray array or a Python "
                            f"scalar, got {type(value).__name__}")
        operands.append(value)
    dt = _dt.result_type(*operands, func="diff")
    parts = [x._arr]
    if prepend is not None:
        parts.insert(0, _edge(prepend, "prepend", x, ax, dt))
    if append is not None:
        parts.append(_edge(append, "append", x, ax, dt))
    a = np.concatenate(parts, axis=ax, dtype=dt) if len(parts) > 1 else x._arr
    if n == 0:
        return wrap(np.array(a, dtype=dt))
    if dt in _dt.HALF:
        a = a.astype(_F32)
    # each difference shortens the axis by one: from its length on, every further one is
    # empty (np.diff would loop n times, forever for a huge n)
    n = min(n, a.shape[ax])
    with np.errstate(all="ignore"):
        r = np.diff(a, n=n, axis=ax)
    return wrap(cast_result(r, dt))  # np.diff's result is always fresh
