"""The argsort of a permutation is its inverse: rows holding each of ``0 .. n-1`` once (an
argsort's result, sorted again: scikit-learn and SciPy rank by ``argsort(argsort(x))``)
need no sort. ``inverse(p, out, seen)`` writes ``out[r, p[r, i]] = i`` for every row, in
one pass, and returns False as soon as a row is not a permutation (a value out of range,
or seen twice): the caller sorts then. A permutation's values are distinct, so every
sort of it, stable or not, gives this one result.

Rows: 2-D arrays of any layout (the sorted axis last); ``seen`` is scratch of one row's
length; one thread.
"""
from flexarray._kernels import kernel

__all__ = ["inverse"]


@kernel
def inverse(p, out, seen):
    n = p.shape[1]
    for r in range(p.shape[0]):
        row = p[r]
        o = out[r]
        for i in range(n):
            seen[i] = False
        for i in range(n):
            k = row[i]
            if k < 0 or k >= n or seen[k]:
                return False
            seen[k] = True
            o[k] = i
    return True
