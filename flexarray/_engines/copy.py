"""The copy engine: contiguous copies of any layout, by NumPy or the strided copy kernel.

Chooses (gates in :mod:`.gates`, Copies and gathers):

- NumPy's copy below ``gates.COPY_KERNEL_MIN`` elements; from there the tiled Numba copy
  (``flexarray._kernels.copy.strided``), into recycled memory
  (:mod:`flexarray._memory`), on threads from ``gates.COPY_THREADS_MIN`` elements per
  kernel launch (the whole copy, or one slab of its leading dims when more than 4 dims
  remain after coalescing: ``strided.launch_size``).

On a first call whose kernel is not in the disk cache the kernel module copies by NumPy
(an exact stand-in) while the kernel compiles in the background
(``strided.copy_standin``).

Operands are NumPy arrays the frontend has validated; results are fresh NumPy arrays.
"""
import numpy as np

from .. import _memory
from .._threads import threads_for
from . import gates

__all__ = ["contiguous"]


def contiguous(a: np.ndarray) -> np.ndarray:
    """A fresh C-contiguous copy of the NumPy array ``a``."""
    if a.size >= gates.COPY_KERNEL_MIN:
        from .._kernels.copy import strided
        out = _memory.empty(a.shape, a.dtype)
        nthreads = threads_for(a.size, gates.COPY_THREADS_MIN)
        if nthreads > 1:  # (a launch is at most the whole copy: weigh it when that counts)
            nthreads = threads_for(strided.launch_size(out, a), gates.COPY_THREADS_MIN)
        return strided.ascontiguous(a, out, nthreads)
    return np.array(a, order="C", copy=True)
