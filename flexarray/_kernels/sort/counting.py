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

from flexarray._kernels import kernel, ready

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
    if not ready(_dense, (a.dtype, a.flags.c_contiguous, a.flags.writeable), a, lo, counts,
                 first, codes):
        return _standin(a, lo, nbins, with_codes)
    _dense(a, lo, counts, first, codes)
    return counts, first, codes if with_codes else None


def _standin(a, lo, nbins, with_codes):
    """``dense`` in NumPy while its kernel compiles in the background: the differences in
    ``a``'s own arithmetic (exact: every value is at least ``lo``), their counts, and each
    one's first index (``np.unique``'s, a stable sort's); the same integers."""
    codes = np.subtract(a, lo, dtype=a.dtype).astype(np.int64)
    counts = np.bincount(codes, minlength=nbins).astype(np.int64, copy=False)
    first = np.zeros(nbins, np.int64)
    values, index = np.unique(codes, return_index=True)
    first[values] = index
    return counts, first, codes if with_codes else None
