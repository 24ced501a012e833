"""The elementwise engine: the standard's elementwise functions on NumPy operands, by NumPy's
ufuncs (in chunks on the pool's threads when large) or the half-precision kernels.

Chooses (gates in :mod:`.gates`, Elementwise):

- float16/bfloat16 ``add``, ``subtract``, ``multiply``, ``divide``, ``maximum`` and
  ``minimum`` of one dtype: the half kernels (``flexarray._kernels.elementwise.half``,
  float32 arithmetic rounded once, ~30x NumPy's float16 add), on threads from
  ``gates.HALF_THREADS_MIN`` elements (None: never); the other half operations compute
  through float32 NumPy ufuncs and round once (``nextafter`` natively: its float32
  neighbour would round back to the input);
- every other dtype: NumPy's ufunc on the operands' strided views (its SIMD transcendentals
  beat Numba's 4-12x), split along the result's longest axis over the pool's threads from
  ``gates.ELEMENTWISE_THREADS_MIN_BYTES`` of output (by the widest operand's item size), or
  from ``gates.ELEMENTWISE_COMPUTE_THREADS_MIN`` elements for the compute-bound (ufunc,
  dtype) pairs of ``gates.ELEMENTWISE_COMPUTE_BOUND`` (NumPy's ufuncs use one core);
- results from ``flexarray._memory.RECYCLE_MIN_BYTES`` come from recycled memory, laid out in
  the memory order of the operand of their shape (NumPy's order "K").

Below :data:`FAST_MAX` elements no call can use threads or recycled memory: the frontend's
fast paths (``flexarray._elementwise``) call NumPy's ufunc straight away there.

Operands are NumPy arrays or Python scalars that the frontend has validated and promoted;
``func`` is the table's implementation (a NumPy ufunc, or a NumPy-level fix from
``flexarray._special``) and ``name`` its standard name.
"""
import math

import numpy as np

from .. import _dtypes as _dt
from .. import _memory, _threads
from .._fp import fp_quiet_call
from . import gates

__all__ = ["FAST_MAX", "apart", "compute", "fits", "ufunc"]

#: (name, NumPy dtype of the first array operand) of the compute-bound ufuncs
_COMPUTE_BOUND = frozenset((name, np.dtype(dt))
                           for dt, names in gates.ELEMENTWISE_COMPUTE_BOUND.items()
                           for name in names)

#: operands below this size take the frontend's fast paths straight to the ufunc: their
#: result can neither use threads (below both thread gates, whatever the item size: at most
#: 16 bytes) nor recycled memory
FAST_MAX = min(gates.ELEMENTWISE_THREADS_MIN_BYTES // 16, gates.ELEMENTWISE_COMPUTE_THREADS_MIN,
               _memory.RECYCLE_MIN_BYTES // 16)

#: float16/bfloat16 operations with a Numba kernel (~30x NumPy's float16 add); the rest
#: compute through float32 NumPy ufuncs and round once
_HALF_KERNEL_OPS = {"add", "subtract", "multiply", "divide", "maximum", "minimum"}

#: float16/bfloat16 operations that NumPy (float16) and ml_dtypes (bfloat16) compute
#: natively, where a float32 result rounded back would be wrong (nextafter's neighbour in
#: float32 rounds back to the input)
_HALF_NATIVE_OPS = {"nextafter"}


def _broadcast_shape(shapes):
    """The broadcast shape of ``shapes`` without a NumPy call (``np.broadcast_shapes``
    costs 2-4 us): per axis, aligned on the right, the extent that is not 1; ValueError
    when two differ (the callers name the function)."""
    first = shapes[0]
    if all(sh == first for sh in shapes):
        return first  # the common case: no broadcasting
    n = max(map(len, shapes))
    result = []
    for axis in zip(*((1,) * (n - len(sh)) + sh for sh in shapes)):
        extent = 1
        for e in axis:
            if e != 1:
                if extent != 1 and e != extent:
                    raise ValueError(f"shapes {shapes} do not broadcast")
                extent = e
        result.append(extent)
    return tuple(result)


def fits(shape, target):
    """Whether ``shape`` broadcasts to ``target`` unchanged."""
    if len(shape) > len(target):
        return False
    for m, n in zip(reversed(shape), reversed(target)):
        if m != n and m != 1:
            return False
    return True


def _is_large(name, arrays, n, nbytes):
    """Whether ``name`` on NumPy ``arrays`` with ``n`` output elements of ``nbytes`` runs
    on threads (see the gates)."""
    if _threads.NTHREADS < 2:
        return False
    return nbytes >= gates.ELEMENTWISE_THREADS_MIN_BYTES or (
        n >= gates.ELEMENTWISE_COMPUTE_THREADS_MIN
        and (name, arrays[0].dtype) in _COMPUTE_BOUND)


def _result_like(shape, dtype, args):
    """A recycled result of ``shape`` in the memory order of the first operand of that shape,
    as NumPy's order "K" lays it out: a C-order result of a transposed operand makes the
    loop read across its rows (``x.T - m`` for a 50,000 x 64 ``x``: 26 ms against NumPy's
    2.9 ms)."""
    for a in args:
        if type(a) is np.ndarray and a.shape == shape:
            return _memory.empty_like_order(a, shape, dtype)
    return _memory.empty(shape, dtype)


def ufunc(func, args, out=None, name=None):
    """``func(*args)`` into ``out`` (or a new array, from recycled memory when large): on
    all cores in chunks when large. ``name``: the function's standard name (for the
    compute-bound gate; None for functions outside the table)."""
    bound, big = 1, None  # the product of the operands' sizes, an upper bound of the
    for a in args:        # result's size, and the largest operand
        if type(a) is np.ndarray:
            bound *= a.size
            if big is None or a.size > big.size:
                big = a
    if bound < FAST_MAX or big.size < FAST_MAX and all(  # (or the others broadcast to
            type(a) is not np.ndarray or a is big or fits(a.shape, big.shape)  # the largest:
            for a in args):  # the result has its size): neither threads nor recycled memory
        return fp_quiet_call(func, args, out)
    arrays = [a for a in args if type(a) is np.ndarray]
    shape = out.shape if out is not None else _broadcast_shape([a.shape for a in arrays])
    n = math.prod(shape)
    nbytes = n * max(a.itemsize for a in arrays)
    threads = _is_large(name, arrays, n, nbytes)
    if not threads and (out is not None or nbytes < _memory.RECYCLE_MIN_BYTES):
        return fp_quiet_call(func, args, out)
    if out is None:
        # the result dtype from one element of each operand: a view, never a copy
        # (reshape(-1) copies a non-contiguous operand: 55 of 109 ms in a skew+kurtosis)
        probe = fp_quiet_call(func, tuple(a[(slice(0, 1),) * a.ndim]
                                          if type(a) is np.ndarray else a for a in args))
        out = _result_like(shape, np.result_type(probe), args)
    if not threads:
        return fp_quiet_call(func, args, out)
    ax = int(np.argmax(out.shape))  # split the longest axis
    nd = out.ndim

    def cut(a, sl):
        if type(a) is not np.ndarray:
            return a
        k = ax - (nd - a.ndim)
        if k < 0 or a.shape[k] == 1:
            return a
        return a[(slice(None),) * k + (sl,)]

    def part(lo, hi):
        sl = slice(lo, hi)
        fp_quiet_call(func, tuple(cut(a, sl) for a in args), cut(out, sl))

    _threads.run_split(part, (), out.shape[ax], _threads.NTHREADS, pieces_per_thread=4)
    return out


def compute(name, func, args, dt, out=None):
    """``func`` (the table's function ``name``) of NumPy operands whose promoted dtype is
    ``dt``, into ``out`` when given (it may be an operand: see :func:`apart`)."""
    if dt not in _dt.HALF:
        return ufunc(func, args, out, name)
    if name in _HALF_NATIVE_OPS:
        return ufunc(func, tuple(x if type(x) is np.ndarray and x.dtype == dt else
                                 np.asarray(x).astype(dt) for x in args), out, name)
    if name in _HALF_KERNEL_OPS:
        from .._kernels.elementwise import half
        a, b = (x if type(x) is np.ndarray else np.asarray(x, dt) for x in args)
        if a.dtype == b.dtype == dt:
            if out is None:
                out = _memory.empty(np.broadcast_shapes(a.shape, b.shape), dt)
            elif np.shares_memory(out, b) and out is not b:
                b = b.copy()  # the kernel may not read an input it partially overwrites
            half.binary(name, a, b, out, _threads.threads_for(out.size, gates.HALF_THREADS_MIN))
            return out
    wide = tuple(a.astype(np.float32) if type(a) is np.ndarray else a for a in args)
    r = np.asarray(ufunc(func, wide, None, name))
    if r.dtype.kind == "f":
        r = fp_quiet_call(r.astype, (dt,))  # overflow to +-inf is the IEEE rounding
    if out is None:
        return r
    out[...] = r
    return out


def apart(a, out):
    """Operand ``a`` of a computation into ``out``, copied first if it overlaps ``out`` in
    another layout (``x[1:] += x[:-1]``): the kernels and the chunked ufuncs read each
    input element after writing some outputs. The same layout (``x += x``) is safe."""
    if type(a) is np.ndarray and a is not out and np.may_share_memory(a, out) and not (
            a.shape == out.shape and a.strides == out.strides and
            a.__array_interface__["data"][0] == out.__array_interface__["data"][0]):
        return a.copy()
    return a
