"""Sort kernels: stable LSD radix sort and argsort of the rows of a C-contiguous 2-D array
(``radix``), the repairs that make NumPy's SIMD sorts stable (``ties``), counting for the
``unique_*`` functions of small-range integers (``counting``), the inverse of a permutation
(``permutation``: its argsort).

Contract: keys in flexarray's order (ascending or descending, NaN last, -0.0 == +0.0,
stable); the radix sort's rows split over the number of worker threads the caller gives
(``flexarray._engines.sort`` chooses the kernel, NumPy's sorts and the threads); fresh
results.
"""
