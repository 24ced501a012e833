"""Sliding windows as a zero-copy view."""
import numpy as np

from .. import _array
from .._helpers import normalize_axis
from . import _common as C

__all__ = ["unfold"]


def unfold(x, axis, size, step=1):
    """Sliding windows of ``size`` elements every ``step`` along ``axis``: a view.

    Like PyTorch's ``Tensor.unfold(dimension, size, step)``: the result has ``x``'s shape
    with ``axis`` replaced by the number of windows, ``(n - size) // step + 1``, and a new
    last axis of length ``size``; ``result[..., i, ..., j] == x[..., i * step + j, ...]``.

    O(1): no element is copied, the result shares ``x``'s buffer. Windows overlap when
    ``step < size``, so the view is read-only underneath; writing to it (``w[0, 0] = 1``)
    follows the value model: ``w`` first gets its own copy, and ``x`` never changes.

    Raises TypeError for a non-array or non-integer arguments, IndexError (AxisError) for
    an axis out of range, ValueError for ``size`` < 0 or larger than the axis, ``step`` < 1.
    """
    if type(x) is not _array.Array:
        C.check_array(x, "unfold", "x")
    nd = x._arr
    ndim = nd.ndim
    if ndim == 0:
        raise ValueError("unfold: 'x' must have at least one dimension, got a 0-d array")
    if type(axis) is int and -ndim <= axis < ndim:  # the common case, without a call
        ax = axis % ndim
    else:
        ax = normalize_axis(axis, ndim, "unfold", "axis")
    if type(size) is not int:
        size = C._int(size, "unfold", "size")
    if type(step) is not int:
        step = C._int(step, "unfold", "step")
    n = nd.shape[ax]
    if size < 0 or size > n:
        raise ValueError(f"unfold: 'size' must be between 0 and the length of axis {axis} "
                         f"({n}) for x of shape {nd.shape}, got {size}")
    if step < 1:
        raise ValueError(f"unfold: 'step' must be positive, got {step}")
    st = nd.strides
    if ndim == 1:
        shape = ((n - size) // step + 1, size)
        strides = (st[0] * step, st[0])
    else:
        shape = nd.shape[:ax] + ((n - size) // step + 1,) + nd.shape[ax + 1:] + (size,)
        strides = st[:ax] + (st[ax] * step,) + st[ax + 1:] + (st[ax],)
    w = None
    flags = nd.flags
    if flags.c_contiguous:
        # ~1 us: a new header on the same memory (np.lib.stride_tricks.as_strided: ~7 us)
        try:
            w = np.ndarray(shape, nd.dtype, buffer=nd, strides=strides)
        except (TypeError, ValueError, BufferError):
            w = None
        else:
            if flags.writeable:  # (a read-only source already gives a read-only view)
                w.flags.writeable = False
    if w is None:
        w = np.lib.stride_tricks.as_strided(nd, shape, strides, writeable=False)
    return _array.view_of(x, w)  # shares x's buffer: writes copy first (value model)
