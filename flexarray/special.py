"""SciPy's special functions on flexarray arrays: ``flexarray.special.<name>`` is the
elementwise function ``scipy.special.<name>`` (any of its single-output ufuncs), computed
by SciPy's own ufunc loop, so with SciPy's values bit for bit, and on the pool's threads
(SciPy runs every call on one thread) where the result has ``gates.SPECIAL_THREADS_MIN``
elements or more.

SciPy itself calls these: with ``SCIPY_ARRAY_API=1``, ``scipy.special.expit(x)`` of an
array whose namespace has ``special.expit`` calls it (as it calls ``torch.special``'s)
instead of converting to NumPy and back. Needs SciPy, imported on first use; without it
(or for a name that is not one of its single-output ufuncs) the attribute does not exist.
"""
import numpy as np

from ._array import Array, wrap
from ._deferred import settled
from ._engines import gates
from ._threads import run_split, threads_for

_cache = {}


def __getattr__(name):
    f = _cache.get(name)
    if f is None:
        try:
            from scipy.special import _ufuncs
        except ImportError:
            raise AttributeError(f"flexarray.special.{name} needs SciPy, which is not "
                                 f"installed") from None
        ufunc = getattr(_ufuncs, name, None) if not name.startswith("_") else None
        if not isinstance(ufunc, np.ufunc) or ufunc.nout != 1:
            raise AttributeError(f"module 'flexarray.special' has no attribute {name!r} "
                                 f"(it has scipy.special's single-output ufuncs)")
        from scipy.special import errstate, geterr
        f = _cache[name] = _threaded(ufunc, errstate, geterr)
    return f


def _threaded(ufunc, errstate, geterr):
    def f(*args, **kwargs):
        # (each operand as SciPy's own fallback converts it: Python scalars too)
        ops = [settled(a)._arr if isinstance(a, Array) else np.asarray(a) for a in args]
        if kwargs:
            return wrap(np.asarray(ufunc(*ops, **kwargs)))
        shape = np.broadcast_shapes(*(np.shape(a) for a in ops))
        n = shape[0] if shape else 0
        nthreads = threads_for(np.prod(shape, dtype=np.int64), gates.SPECIAL_THREADS_MIN)
        nthreads = min(nthreads, n)
        if nthreads < 2:
            return wrap(np.asarray(ufunc(*ops)))
        # the loop's result dtype, from empty operands of the same dtypes
        dtype = ufunc(*(a.reshape(-1)[:0] for a in ops)).dtype
        out = np.empty(shape, dtype)
        ndim = len(shape)
        state = geterr()  # (SciPy's error handling is per thread: the caller's, on each)

        def piece(lo, hi):
            with errstate(**state):
                ufunc(*(a[lo:hi] if a.ndim == ndim and a.shape[0] > 1 else a for a in ops),
                      out=out[lo:hi])

        run_split(piece, (), n, nthreads, pieces_per_thread=4)
        return wrap(out)

    f.__name__ = f.__qualname__ = ufunc.__name__
    f.__module__ = __name__
    f.__doc__ = (f"scipy.special.{ufunc.__name__} on flexarray arrays (SciPy's ufunc, on "
                 f"the pool's threads).\n\n" + (ufunc.__doc__ or ""))
    return f
