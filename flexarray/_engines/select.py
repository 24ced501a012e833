"""The select engine: ``where(condition, x1, x2)`` by NumPy's where or the bit-select kernel.

Chooses (gates in :mod:`.gates`, Elementwise):

- from ``gates.SELECT_KERNEL_MIN`` elements, C-contiguous operands of the result's shape
  (or one element, a scalar) of 1, 2, 4 or 8 bytes: the bit-select kernel
  (``flexarray._kernels.elementwise.select``: no branch per element, 2-10x NumPy's where
  with a condition that is not mostly one value), into recycled memory, on
  threads from ``gates.SELECT_THREADS_MIN`` elements; a condition that is all True or all
  False copies the one side instead (twice as fast);
- otherwise NumPy's where (the caller's, when :func:`where` returns None).

On a first call whose kernel is not in the disk cache the kernel module selects by NumPy's
where on the same bits (an exact stand-in) while the kernel compiles in the background
(``select.where_standin``).

Operands are NumPy arrays (or scalars) the frontend has validated and cast to the result
dtype; results are fresh NumPy arrays.
"""
import numpy as np

from .. import _memory
from .._threads import threads_for
from . import gates

__all__ = ["count", "where"]


def count(c: np.ndarray):
    """The number of True elements of the bool condition ``c`` when the engine would count
    them (from the kernel's gate: a condition of one value makes ``where`` a copy of one
    side), else None."""
    if c.size >= gates.SELECT_KERNEL_MIN:
        return np.count_nonzero(c)
    return None


def where(c: np.ndarray, a1, a2, dt, k=None):
    """``where`` by the bit-select kernel when the operands are C-contiguous arrays of the
    result's shape or scalars, of an item size it moves; None otherwise (NumPy's where
    then). ``k``: the count of True in ``c`` when the caller has it."""
    n = c.size
    if n < gates.SELECT_KERNEL_MIN or dt.itemsize not in (1, 2, 4, 8) or \
            not c.flags.c_contiguous:
        return None
    ops = []
    for a in (a1, a2):
        if type(a) is not np.ndarray:
            a = np.asarray(a, dt)  # a scalar
        if a.size == 1 and a.ndim <= c.ndim:  # one element for all (broadcast)
            a = a.reshape(1)
        elif a.shape != c.shape or not a.flags.c_contiguous:
            return None
        ops.append(a)
    out = _memory.empty(c.shape, dt)  # (warm recycled memory when large)
    if k is None:
        k = np.count_nonzero(c)  # (~0.1 ns per element)
    if k == 0 or k == n:  # one side only (a NaN mask of clean data): a copy, 2x faster
        np.copyto(out, ops[0] if k else ops[1])  # (a one-element side broadcasts)
        return out
    from .._kernels.elementwise import select
    return select.where(c, ops[0], ops[1], out, threads_for(n, gates.SELECT_THREADS_MIN))
