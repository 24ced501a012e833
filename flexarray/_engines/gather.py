"""The gather engine: ``take`` and ``take_along_axis`` by NumPy or the gather kernels.

Chooses (gates in :mod:`.gates`, Copies and gathers):

- NumPy's ``take`` for results below ``gates.GATHER_KERNEL_MIN_BYTES`` (it is the faster
  there), for rows of more than one element (``take(x, idx, axis=0)`` of a 2-D ``x``: NumPy
  copies each row with memcpy) and for layouts that are not C-contiguous;
- else the Numba gather (``flexarray._kernels.copy.gather``) into memory from the result
  pool, on threads from ``gates.GATHER_THREADS_MIN`` moves.
- ``take_along_axis`` along the last axis of a 2-D array (any layout) with indices of its
  shape, from ``gates.GATHER_ALONG_KERNEL_MIN_BYTES`` of result: the row
  gather kernel, its rows on threads as above (NumPy's fancy indexing runs one thread and
  reads a strided row element by element); else NumPy's ``take_along_axis``.

On a first call whose kernel is not in the disk cache the kernel module gathers by NumPy's
take (an exact stand-in) while the kernel compiles in the background
(``gather.take_standin``).

Operands are NumPy arrays; results are fresh NumPy arrays.
"""
import math

import numpy as np

from .. import _memory
from .._threads import threads_for
from . import gates

__all__ = ["take", "take_along", "take_checking"]


def take_checking(a: np.ndarray, idx: np.ndarray, axis: int, nbytes: int):
    """``a.take(idx, axis=axis)`` when NumPy's take is this call's engine and checks the
    indices itself, so the caller need not: intp indices and a non-empty result of
    ``nbytes`` below the kernel's gate. Raises NumPy's IndexError for an index out of
    range; None when that does not apply."""
    if idx.dtype == np.intp and 0 < nbytes < gates.GATHER_KERNEL_MIN_BYTES:
        return a.take(idx, axis=axis)
    return None


def take(a: np.ndarray, idx: np.ndarray, axis: int, shape: tuple, nbytes: int) -> np.ndarray:
    """``np.take(a, idx, axis=axis)`` of the result ``shape`` (``nbytes`` bytes); ``idx`` is a
    1-D intp array of indices in ``[0, a.shape[axis])`` (checked by the caller)."""
    if (a.size and a.flags.c_contiguous and nbytes >= gates.GATHER_KERNEL_MIN_BYTES
            and math.prod(a.shape[axis + 1:]) == 1):  # rows of a 2-D x: NumPy's memcpy
        from .._kernels.copy import gather
        out = _memory.empty(shape, a.dtype)
        return gather.take(a, idx, axis, out, threads_for(gather.work(out),
                                                          gates.GATHER_THREADS_MIN))
    return np.take(a, idx, axis=axis)


def take_along(a: np.ndarray, idx: np.ndarray, axis: int) -> np.ndarray:
    """``np.take_along_axis(a, idx, axis)``; ``idx`` intp of ``a``'s rank, indices in
    ``[0, a.shape[axis])`` (checked by the caller). The row gather kernel along the last
    axis of a 2-D ``a`` (any layout) and ``idx`` of its shape, for results of
    ``gates.GATHER_ALONG_KERNEL_MIN_BYTES`` or more, on threads from
    ``gates.GATHER_THREADS_MIN`` moves; else NumPy's. (Results C-contiguous, as NumPy's.)"""
    if (axis == 1 and a.ndim == 2 and a.shape == idx.shape and a.shape[0] > 1
            and idx.size * a.itemsize >= gates.GATHER_ALONG_KERNEL_MIN_BYTES):
        from .._kernels.copy import gather
        out = _memory.empty(idx.shape, a.dtype)
        return gather.take_rows(a, np.ascontiguousarray(idx), out, threads_for(
            gather.work(out), gates.GATHER_THREADS_MIN))
    return np.take_along_axis(a, idx, axis=axis)
