"""Counts and first occurrences of integers in a small range: the ``unique_*`` functions
of integer arrays whose values span at most about as many integers as there are elements
(class labels, counts, codes), in one pass instead of a sort.

``dense(a, lo, nbins, with_codes)``: ``counts[v - lo]`` (int64), the index of the first
``v`` in ``a`` (``first[v - lo]``; undefined where the count is 0) and, with
``with_codes``, ``codes[i] = a[i] - lo`` (int64). ``a`` is a 1-D integer array (bool as
uint8) whose values all lie in ``[lo, lo + nbins)``; ``lo`` has ``a``'s dtype, so the
difference is taken in ``a``'s own modular arithmetic and is exact for uint64. One thread.

Measured against a sort-based unique (NumPy's unstable argsort, int64 with 10 values):
see ``flexarray/_engines/gates.py`` (Sorting, UNIQUE_COUNTING_MIN).
"""
import numpy as np

from flexarray._kernels import kernel

__all__ = ["dense"]


@kernel
def _dense(a, lo, counts, first, codes):
    with_codes = codes.size > 0
    for i in range(a.size):
        v = np.int64(a[i] - lo)
        if counts[v] == 0:
            first[v] = i
        counts[v] += 1
        if with_codes:
            codes[i] = v


def dense(a: np.ndarray, lo, nbins: int, with_codes: bool):
    """(counts, first, codes or None) of the 1-D integer array ``a``; see the header."""
    counts = np.zeros(nbins, np.int64)
    first = np.empty(nbins, np.int64)
    codes = np.empty(a.size if with_codes else 0, np.int64)
    _dense(a, lo, counts, first, codes)
    return counts, first, codes if with_codes else None
