"""Sliding windows as a zero-copy view."""
import numpy as np

from .. import _array
from .._helpers import check_array, check_int, normalize_axis

__all__ = ["unfold"]

_Array = _array.Array
_ndarray = np.ndarray
_as_strided = np.lib.stride_tricks.as_strided
_new = _array._new


def unfold(x, axis, size, step=1):
    """Sliding windows of ``size`` elements every ``step`` along ``axis``: a view.

    Like PyTorch's ``Tensor.unfold(dimension, size, step)``: the result has ``x``'s shape
    with ``axis`` replaced by the number of windows, ``(n - size) // step + 1``, and a new
    last axis of length ``size``; ``result[..., i, ..., j] == x[..., i * step + j, ...]``.

    O(1): no element is copied, the result shares ``x``'s elements, so it sees writes to
    ``x``. Windows overlap when ``step < size``, so the view is read-only, as NumPy's
    ``sliding_window_view``: writing to it (``w[0, 0] = 1``) raises ValueError.

    Raises TypeError for a non-array or non-integer arguments, IndexError (AxisError) for
    an axis out of range, ValueError for ``size`` < 0 or larger than the axis, ``step`` < 1.
    """
    # This is a ~1 us call, so every step counts (measured, best of 15-20 rounds: keyword
    # arguments to np.ndarray +0.3 us; making the view read-only afterwards with
    # ``w.flags.writeable = False`` +0.36 us, ``w.setflags(write=False)`` +0.2 us, where
    # a read-only memoryview as the buffer makes it read-only at birth for ~0.1 us less).
    if type(x) is not _Array:
        check_array(x, "unfold", "x")
    nd = x._arr
    shape = nd.shape
    ndim = len(shape)
    if type(axis) is not int or not -ndim <= axis < ndim:
        if ndim == 0:
            raise ValueError("unfold: 'x' must have at least one dimension, got a 0-d array")
        axis = normalize_axis(axis, ndim, "unfold", "axis")
    if type(size) is not int or type(step) is not int:
        size = check_int(size, "unfold", "size")
        step = check_int(step, "unfold", "step")
    n = shape[axis]
    if not 0 <= size <= n or step < 1:
        _bad_window(shape, axis, size, step)
    if step > n:  # one window, whatever the step (a huge one would overflow the stride)
        step = n + 1
    s = nd.strides[axis]
    if ndim == 1:
        wshape = ((n - size) // step + 1, size)
        wstrides = (s * step, s)
    else:
        axis %= ndim
        st = nd.strides
        wshape = shape[:axis] + ((n - size) // step + 1,) + shape[axis + 1:] + (size,)
        wstrides = st[:axis] + (s * step,) + st[axis + 1:] + (s,)
    try:
        # A new header on nd's memory: ~0.5 us (as_strided: ~7 us). A contiguous nd (C
        # or F order) exports exactly its own memory starting at its first element, and
        # NumPy checks that the strided view stays inside it; a non-contiguous nd raises
        # BufferError here.
        w = _ndarray(wshape, nd.dtype, memoryview(nd).toreadonly(), 0, wstrides)
    except (TypeError, ValueError, BufferError):
        w = _other_view(nd, wshape, wstrides)
    return _new(w, x._buf, x._dtype)  # in x's family: sees x's writes, read-only itself


def _other_view(nd, shape, strides):
    """The read-only view when the fast path cannot take it: dtypes the buffer protocol
    cannot describe (bfloat16: NumPy still takes its own array as a buffer) and
    non-contiguous arrays (as_strided)."""
    try:
        w = _ndarray(shape, nd.dtype, nd, 0, strides)
    except (TypeError, ValueError, BufferError):
        return _as_strided(nd, shape, strides, writeable=False)
    w.setflags(write=False)
    return w


def _bad_window(shape, axis, size, step):
    if size < 0 or size > shape[axis]:
        raise ValueError(f"unfold: 'size' must be between 0 and the length of axis {axis} "
                         f"({shape[axis]}) for x of shape {shape}, got {size}")
    raise ValueError(f"unfold: 'step' must be positive, got {step}")
