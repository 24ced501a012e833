"""Stability after a fast unstable sort: NumPy's SIMD sorts (x86-simd-sort) are 3-10x
faster than its stable sorts and than the radix kernel at the sizes scikit-learn and SciPy
use, but equal elements come out in any order. Two repairs make their results stable:

- ``stable_ties(v, perm)``: ``perm`` (rows of an argsort of ``v``'s rows) becomes the stable
  argsort: within each run of equal values (NaN equal to NaN, ``-0.0`` to ``+0.0``; the
  runs are contiguous in any correct sort) the indices are put in ascending order by
  insertion sort. A run longer than ``maxrun`` stops the repair (many ties: the radix sort
  is the faster way then): the return value is False and ``perm`` is partly repaired.
- ``stable_values(s, a)``: ``s`` (rows of a sort of ``a``'s rows, NaN last) gets the
  stable order of the only elements that compare equal with different bits: a run of two
  or more zeros (``-0.0``/``+0.0``; NumPy's SIMD sort may even hand one zero's sign to the
  others) and the run of NaNs at the end of a row are rewritten from the row of ``a`` in
  their original order (one pass over the row). O(log n) per row without such runs (a
  binary search for the zero run).

Rows: 2-D arrays of any layout (the sorted axis last); one thread (the callers' rows are
small or few).
"""
import numpy as np

from flexarray._kernels import kernel, ready

__all__ = ["stable_ties", "stable_values"]


@kernel
def _ties(v, perm, maxrun):
    n = v.shape[1]
    for r in range(v.shape[0]):
        p = perm[r]
        row = v[r]
        i = 0
        while i < n:
            x = row[p[i]]
            j = i + 1
            if x == x:
                while j < n and row[p[j]] == x:
                    j += 1
            else:  # NaN: the rest of the row (NaN sorts last)
                j = n
            if j - i > 1:
                if j - i > maxrun:
                    return False
                for k in range(i + 1, j):  # insertion sort of the run's indices
                    t = p[k]
                    m = k - 1
                    while m >= i and p[m] > t:
                        p[m + 1] = p[m]
                        m -= 1
                    p[m + 1] = t
            i = j
    return True


@kernel
def _values(s, a):
    n = s.shape[1]
    for r in range(s.shape[0]):
        srow, arow = s[r], a[r]
        # the zero run: [lo, hi)
        lo, hi = 0, n
        while lo < hi:  # first element >= 0 (NaN counts as largest)
            mid = (lo + hi) // 2
            if srow[mid] < 0:
                lo = mid + 1
            else:
                hi = mid
        hi = lo
        while hi < n and srow[hi] == 0:
            hi += 1
        if hi - lo > 1:  # NumPy's SIMD sort may give equal zeros each other's sign
            k = lo
            for i in range(n):
                if arow[i] == 0:
                    srow[k] = arow[i]
                    k += 1
        if n and srow[n - 1] != srow[n - 1]:  # NaNs (payloads and signs may differ)
            k = n - 1
            while k > 0 and srow[k - 1] != srow[k - 1]:
                k -= 1
            for i in range(n):
                if arow[i] != arow[i]:
                    srow[k] = arow[i]
                    k += 1


def _key(*arrays):
    """What decides the kernels' Numba types: dtypes, layouts, writability."""
    return tuple((x.dtype.char, x.flags.c_contiguous, x.flags.f_contiguous,
                  x.flags.writeable) for x in arrays)


def stable_ties(v: np.ndarray, perm: np.ndarray, maxrun: int) -> bool:
    """Make ``perm`` (int64 rows, an argsort of ``v``'s rows; 2-D) stable in place; False
    when a run of equal values is longer than ``maxrun`` (``perm`` is then unusable).

    While the kernel compiles in the background (``flexarray._kernels.ready``), NumPy's
    stable argsort: the same indices (the stable argsort is unique; a caller told False
    gets them from the radix sort, stable too)."""
    if not ready(_ties, _key(v, perm), v, perm, maxrun):
        perm[...] = np.argsort(v, axis=1, kind="stable")
        return True
    return _ties(v, perm, maxrun)


def stable_values(s: np.ndarray, a: np.ndarray) -> None:
    """Give the sorted float rows ``s`` (2-D, writable) the stable order of ``a``'s rows
    in their runs of zeros and NaNs (in place): then ``s`` is NumPy's stable sort of ``a``
    bit for bit, which is what runs while the kernel compiles in the background."""
    if not ready(_values, _key(s, a), s, a):
        s[...] = np.sort(a, axis=1, kind="stable")
        return
    _values(s, a)
