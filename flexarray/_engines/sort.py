"""The sort engine: ``sort``, ``argsort`` and the counting path of the ``unique_*`` functions,
by NumPy's sorts, the stability repairs, the radix kernel or the counting kernel.

Chooses (gates and their measurements in :mod:`.gates`, Sorting):

- ``sort`` of integers and bools is NumPy's default sort (SIMD quicksort) whatever
  ``stable`` says: equal integers are the same bits, so every correct sort is the stable
  one. Floats from ``gates.SORT_TIES_MIN`` elements: NumPy's SIMD sort, then
  ``_kernels.sort.ties.stable_values`` puts the only equal-comparing elements whose bits
  differ (runs of ``-0.0``/``+0.0`` and of NaNs) in their original order (O(log n) a row
  when there are none). float16 from ``gates.RADIX_KERNEL_MIN`` elements along the axis:
  the radix kernel.
- ``argsort(stable=True)`` of 32/64-bit numbers (``gates.SORT_TIES_MIN`` elements or more,
  axes up to ``gates.SORT_TIES_MAX``): NumPy's SIMD argsort, then ``ties.stable_ties``
  sorts the indices inside each run of equal values; a run longer than
  ``gates.SORT_TIES_MAXRUN`` (many ties) hands the call to the radix kernel
  (``flexarray._kernels.sort.radix``, axes of ``gates.RADIX_KERNEL_MIN`` or more) or to
  NumPy's stable sort. Longer axes: the radix kernel. Rows in pieces on the pool's
  threads from ``gates.SORT_THREADS_MIN`` elements.
- ``stable=False``: NumPy's SIMD sorts; float16 sorts and argsorts as with ``stable=True``
  (the radix kernel, or NumPy's stable sort: NumPy's default float16 sort is wrong on
  AVX-512 CPUs without AVX512-FP16, see ``_kind``).
- Everything else and small calls: NumPy's sorts (``kind='stable'`` when stability is asked
  for), which radix-sort 8/16-bit integers and bool themselves.
- The radix kernel's rows go to threads from ``gates.RADIX_THREADS_MIN`` elements.
- ``unique_*`` of integer and bool arrays of ``gates.UNIQUE_COUNTING_MIN`` elements or
  more whose values span at most as many integers as there are elements: one counting pass
  (``flexarray._kernels.sort.counting``) instead of a sort (:func:`unique_by_counting`).

Descending order sorts a key that reverses the order exactly, ascending and stable: ``-x``
for floats (NaN stays NaN, so it still sorts last; ``-0.0``/``+0.0`` stay equal), ``~x``
for integers and bools (no overflow); ``sort`` negates the sorted key back, which restores
every bit (sign of NaN included).

Operands are NumPy arrays the frontend has validated: ``raw`` the array's own elements,
``a`` its ordered operand (bfloat16 as float32); results are fresh NumPy arrays laid out as
NumPy's sorts lay them out.
"""
import numpy as np

from .._helpers import moved
from .._threads import run_split, threads_for
from . import gates
from .copy import contiguous

__all__ = ["argsort", "sort", "unique_by_counting"]

#: dtypes NumPy sorts and argsorts with SIMD (x86-simd-sort), after bfloat16 -> float32
_SIMD = frozenset(np.dtype(t) for t in (np.float32, np.float64, np.int32, np.int64,
                                        np.uint32, np.uint64))


def _ties():
    from .._kernels.sort import ties
    return ties


def _radix_rows(raw, ax):
    """(radix kernel module, ``raw``'s elements as C-contiguous rows along ``ax``), or
    None."""
    n = raw.shape[ax]
    if n < gates.RADIX_KERNEL_MIN:
        return None
    from .._kernels.sort import radix
    if not radix.supports(raw.dtype):
        return None
    a = _last(raw, ax)
    return radix, np.ascontiguousarray(a).reshape(-1, n)


def _radix_threads(rows):
    """Threads for the radix kernel over the 2-D ``rows``."""
    return threads_for(rows.size, gates.RADIX_THREADS_MIN)


def _unrows(r, raw, ax):
    """Rows from ``_radix_rows`` back in ``raw``'s shape (the sorted axis at ``ax``)."""
    shape = raw.shape
    if ax == len(shape) - 1:
        return r.reshape(shape)
    return moved(r.reshape(shape[:ax] + shape[ax + 1:] + (shape[ax],)), -1, ax)


def _last(a, ax):
    """``a`` with axis ``ax`` moved last (a view)."""
    return a if ax == a.ndim - 1 else moved(a, ax, -1)


def _rows(m):
    """``m`` (sorted axis last) as 2-D rows: a view of C-contiguous results (np.argsort's
    are); inputs may come back as a copy (the kernels only read those)."""
    return m if m.ndim == 2 else m.reshape(-1, m.shape[-1])


def _reverse_key(a):
    """A key whose ascending order is ``a``'s descending order (NaN still last)."""
    return np.negative(a) if a.dtype.kind == "f" else np.invert(a)


def _kind(dtype, stable):
    """NumPy's sort kind for ``dtype``: "stable" where stability is asked for and matters
    (floats: bits of equal values differ), and always for float16: NumPy 2.4's default
    float16 sort (x86-simd-sort's emulated float16, on AVX-512 CPUs without AVX512-FP16)
    returned unsorted arrays with negative values (4,096 of arange % 7 - 3)."""
    if dtype == np.float16:
        return "stable"
    return "stable" if stable and dtype.kind == "f" else None


def _as_laid_out(r, raw):
    """Sorted values ``r`` in the memory order NumPy's ``np.sort`` gives (its copy of the
    input is order "K"), so that reshapes of the result are views exactly where NumPy's
    are."""
    if raw.ndim < 2 or (r.flags.c_contiguous and raw.flags.c_contiguous) or (
            r.flags.f_contiguous and raw.flags.f_contiguous):
        return r
    if raw.flags.c_contiguous:  # (sorted along another axis than the last: a moved view)
        return np.ascontiguousarray(r)
    out = np.empty_like(raw, dtype=r.dtype)  # (order "K": the input's layout, compacted)
    out[...] = r
    return out


def sort(raw, a, ax, descending, stable):
    """``raw`` sorted along ``ax`` (NaN last), in ``raw``'s dtype; ``a`` is its ordered
    operand."""
    if a.dtype == np.float16 and (radix := _radix_rows(raw, ax)) is not None:  # (see _kind)
        mod, rows = radix
        return _as_laid_out(_unrows(mod.sort(rows, descending, _radix_threads(rows)), raw, ax),
                            raw)
    key = _reverse_key(a) if descending else a  # (the ordered operand, reversed)
    # floats: a SIMD sort made stable; equal integers and bools are the same bits: any
    # sort of them is the stable one
    if (stable and key.dtype.kind == "f" and key.size >= gates.SORT_TIES_MIN
            and key.dtype in _SIMD):
        m = _last(key, ax)
        r = np.array(m, order="C")  # (np.sort's copy keeps m's layout: rows would copy)
        r.sort(axis=-1)
        _ties().stable_values(_rows(r), _rows(m))
        if ax != key.ndim - 1:
            r = moved(r, -1, ax)
    else:
        r = key.copy()  # the ndarray methods skip np.sort's Python wrapper (~0.3 us)
        r.sort(axis=ax, kind=_kind(key.dtype, stable))
    if descending:
        r = _reverse_key(r)
    return _as_laid_out(r.astype(raw.dtype, copy=False), raw)


def _c_ordered(p):
    """Indices ``p`` C-contiguous, as NumPy's ``np.argsort`` lays out every result
    (whatever the input's layout: unlike ``np.sort``'s values)."""
    return p if p.flags.c_contiguous else contiguous(p)


def _stable_argsort(key, ax):
    """NumPy's SIMD argsort of ``key`` along ``ax`` made stable, or None (long tie runs);
    rows in pieces on the pool's threads from ``gates.SORT_THREADS_MIN`` elements (NumPy's
    sort releases the GIL; it sorts every row on one thread)."""
    m = _last(key, ax)
    rows = _rows(m)
    p = np.empty(rows.shape, np.intp)
    stable_ties, long_runs = _ties().stable_ties, []

    def piece(lo, hi):
        p[lo:hi] = rows[lo:hi].argsort(axis=-1)
        if not stable_ties(rows[lo:hi], p[lo:hi], gates.SORT_TIES_MAXRUN):
            long_runs.append((lo, hi))

    run_split(piece, (), rows.shape[0], threads_for(rows.size, gates.SORT_THREADS_MIN),
              pieces_per_thread=2)
    if long_runs:
        return None
    p = p.reshape(m.shape)
    return p if ax == key.ndim - 1 else moved(p, -1, ax)


def _inverse_permutation(raw, ax):
    """The argsort of integer ``raw`` along ``ax`` when every row along it is a
    permutation of ``0 .. n-1`` (its inverse, in one pass: no sort), else None (also
    while the kernel compiles: the sort gives the same result)."""
    from .._kernels import ready
    from .._kernels.sort import permutation
    p = _rows(_last(raw, ax))
    out = np.empty(p.shape, np.intp)
    seen = np.empty(p.shape[1], np.bool_)
    if not (ready(permutation.inverse, (raw.dtype, p.flags.c_contiguous), p, out, seen) and
            permutation.inverse(p, out, seen)):
        return None
    return _c_ordered(_unrows(out, raw, ax))


def argsort(raw, a, ax, descending, stable):
    """Indices (intp) that sort ``raw`` along ``ax`` (NaN last); ``a`` is its ordered
    operand."""
    n = a.shape[ax]
    if (not descending and raw.dtype.kind in "iu" and n >= gates.SORT_PERMUTATION_MIN
            and (p := _inverse_permutation(raw, ax)) is not None):
        return p
    key = _reverse_key(a) if descending else a
    if not stable and a.dtype != np.float16:
        return key.argsort(axis=ax)
    if (stable and a.size >= gates.SORT_TIES_MIN and a.dtype in _SIMD
            and n <= gates.SORT_TIES_MAX[a.dtype.itemsize]
            and (p := _stable_argsort(key, ax)) is not None):
        return _c_ordered(p)
    if n >= gates.RADIX_KERNEL_MIN and (radix := _radix_rows(raw, ax)) is not None:
        mod, rows = radix
        return _c_ordered(_unrows(mod.argsort(rows, descending, _radix_threads(rows)), raw,
                                  ax))
    return key.argsort(axis=ax, kind="stable" if stable else None)


def unique_by_counting(flat, shape, need):
    """``unique_*`` of the 1-D ``flat`` (an array of ``shape``, flattened) by counting:
    (values, first indices, inverse indices of ``shape`` or None, counts), the inverse
    only when ``need`` is "inverse" or "all"; None where the counting kernel does not
    apply (too few elements, not integers, a range wider than the element count)."""
    n = flat.size
    if n < gates.UNIQUE_COUNTING_MIN or flat.dtype.kind not in "iub":
        return None
    a = flat.view(np.uint8) if flat.dtype == np.bool_ else flat
    lo, hi = a.min(), a.max()
    nbins = int(hi) - int(lo) + 1
    if nbins > n:
        return None
    from .._kernels.sort import counting
    counts, first, codes = counting.dense(a, lo, nbins, need in ("inverse", "all"))
    present = counts.nonzero()[0]
    values = flat[first[present]]
    if codes is not None:
        lut = np.empty(nbins, np.int64)
        lut[present] = np.arange(present.size)
        codes = lut[codes].reshape(shape)
    return values, first[present], codes, counts[present]
