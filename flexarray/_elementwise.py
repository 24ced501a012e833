"""Elementwise functions (the standard's 67), generated from one table.

The frontend: validation, type promotion and the table. The arithmetic runs on the
elementwise engine (``flexarray._engines.elementwise``: NumPy ufuncs on strided views of the
buffers, in chunks on the pool's threads for large outputs; float16/bfloat16 in float32,
rounded once); calls below its ``FAST_MAX`` elements, which can use neither threads nor the
recycled memory, call the ufunc here directly. Where NumPy's result differs from the standard's
special cases, a small NumPy-level fix in :mod:`._special` is used.
"""
from __future__ import annotations

import builtins
import math
import sys

import numpy as np

from . import _dtypes as _dt
from . import _array, _special
from ._array import Array, copy_of, wrap
from ._buffer import is_private
from ._deferred import Deferred, adopt, defer, fusion_operands, pending, settle
from ._engines import fusion as _fusion
from ._engines import gates
from ._engines.elementwise import FAST_MAX
from ._engines.elementwise import apart as _apart
from ._engines.elementwise import compute as _compute
from ._engines.elementwise import fits as _fits
from ._engines.elementwise import ufunc as _ufunc
from ._fp import fp_quiet, fp_quiet_numpy_caller
from ._helpers import numpy_as_array, python_scalar

#: below this many elements a call takes the fast paths straight to NumPy's ufunc (the
#: engine's FAST_MAX: no threads, no recycled memory), unless fusion's gate is lower
_FAST_MAX = min(FAST_MAX, _fusion.MIN)

# --- the table ----------------------------------------------------------------------------
# name: (implementation, input category, result rule, may warn)
#   category: which (promoted) dtypes are accepted, a key of _dtypes.CATEGORIES
#   result:   'same' (the promoted dtype), 'bool', 'real' (complex -> its real dtype),
#             'float' (integers -> the default float dtype)

UNARY = {
    "abs": (np.absolute, "numeric", "real"),
    "acos": (np.arccos, "floating-point", "same"),
    "acosh": (np.arccosh, "floating-point", "same"),
    "asin": (np.arcsin, "floating-point", "same"),
    "asinh": (np.arcsinh, "floating-point", "same"),
    "atan": (np.arctan, "floating-point", "same"),
    "atanh": (np.arctanh, "floating-point", "same"),
    "bitwise_invert": (np.invert, "integral or bool", "same"),
    "ceil": (np.ceil, "real numeric", "same"),
    "conj": (np.conjugate, "numeric", "same"),
    "cos": (np.cos, "floating-point", "same"),
    "cosh": (np.cosh, "floating-point", "same"),
    "exp": (np.exp, "floating-point", "same"),
    "expm1": (_special.expm1, "floating-point", "same"),
    "floor": (np.floor, "real numeric", "same"),
    "imag": (_special.imag, "numeric", "real"),
    "isfinite": (np.isfinite, "numeric", "bool"),
    "isinf": (np.isinf, "numeric", "bool"),
    "isnan": (np.isnan, "numeric", "bool"),
    "log": (np.log, "floating-point", "same"),
    "log1p": (np.log1p, "floating-point", "same"),
    "log2": (np.log2, "floating-point", "same"),
    "log10": (np.log10, "floating-point", "same"),
    "logical_not": (np.logical_not, "numeric or bool", "bool"),
    "negative": (np.negative, "numeric", "same"),
    "positive": (np.positive, "numeric", "same"),
    "real": (_special.real, "numeric", "real"),
    "reciprocal": (np.reciprocal, "floating-point", "same"),
    "round": (np.round, "numeric", "same"),
    "sign": (_special.sign, "numeric", "same"),
    "signbit": (np.signbit, "real floating", "bool"),
    "sin": (np.sin, "floating-point", "same"),
    "sinh": (np.sinh, "floating-point", "same"),
    "square": (np.square, "numeric", "same"),
    "sqrt": (np.sqrt, "floating-point", "same"),
    "tan": (np.tan, "floating-point", "same"),
    "tanh": (np.tanh, "floating-point", "same"),
    "trunc": (np.trunc, "real numeric", "same"),
}

BINARY = {
    "add": (np.add, "numeric or bool", "same"),  # bools: logical or (NumPy, torch)
    "atan2": (np.arctan2, "real floating", "same"),
    "bitwise_and": (np.bitwise_and, "integral or bool", "same"),
    "bitwise_left_shift": (_special.left_shift, "integral", "same"),
    "bitwise_or": (np.bitwise_or, "integral or bool", "same"),
    "bitwise_right_shift": (_special.right_shift, "integral", "same"),
    "bitwise_xor": (np.bitwise_xor, "integral or bool", "same"),
    "copysign": (np.copysign, "real floating", "same"),
    "divide": (np.true_divide, "numeric", "float"),
    "equal": (np.equal, "numeric or bool", "bool"),
    "floor_divide": (_special.floor_divide, "real numeric", "same"),
    "greater": (np.greater, "real numeric", "bool"),
    "greater_equal": (np.greater_equal, "real numeric", "bool"),
    "hypot": (np.hypot, "real floating", "same"),
    "less": (np.less, "real numeric", "bool"),
    "less_equal": (np.less_equal, "real numeric", "bool"),
    "logaddexp": (np.logaddexp, "real floating", "same"),
    "logical_and": (np.logical_and, "numeric or bool", "bool"),
    "logical_or": (np.logical_or, "numeric or bool", "bool"),
    "logical_xor": (np.logical_xor, "numeric or bool", "bool"),
    "maximum": (np.maximum, "real numeric", "same"),
    "minimum": (np.minimum, "real numeric", "same"),
    "multiply": (np.multiply, "numeric or bool", "same"),  # bools: logical and
    "nextafter": (np.nextafter, "real floating", "same"),
    "not_equal": (np.not_equal, "numeric or bool", "bool"),
    "pow": (_special.pow, "numeric", "same"),
    "remainder": (_special.remainder, "real numeric", "same"),
    "subtract": (np.subtract, "numeric", "same"),
}

_SCALARS = (builtins.bool, int, float, complex)


def _operands(name, x1, x2):
    """NumPy operands and the promoted dtype of a binary call (arrays or Python scalars)."""
    if type(x1) is Array:
        if type(x2) is Array:
            d1, d2 = x1._dtype, x2._dtype
            if d1 is d2:
                return x1._arr, x2._arr, d1
            return x1._arr, x2._arr, _dt.PROMOTION.get((d1, d2)) or _dt.promote(d1, d2, name)
        if isinstance(x2, _SCALARS):
            dt = _dt.promote(x1._dtype, _dt.scalar_dtype(x2, x1._dtype), name)
            return x1._arr, _dt.scalar_operand(name, x2, dt), dt
    elif type(x2) is Array:
        if isinstance(x1, _SCALARS):
            dt = _dt.promote(x2._dtype, _dt.scalar_dtype(x1, x2._dtype), name)
            return _dt.scalar_operand(name, x1, dt), x2._arr, dt
    if isinstance(x1, np.generic) or isinstance(x2, np.generic):
        # NumPy scalars combine with arrays as the Python scalars they hold
        return _operands(name, python_scalar(x1), python_scalar(x2))
    if type(x1) is Deferred or type(x2) is Deferred:  # (computed first: plain Arrays)
        for x in (x1, x2):
            if type(x) is Deferred:
                settle(x)
        return _operands(name, x1, x2)
    for i, x in enumerate((x1, x2), 1):
        if not isinstance(x, (Array,) + _SCALARS):
            raise TypeError(f"{name}: 'x{i}' must be a flexarray array or a Python scalar, got "
                            f"{type(x).__name__}")
    raise TypeError(f"{name}: at least one of 'x1', 'x2' must be a flexarray array "
                    f"(got two Python scalars)")


def _broadcast(name, *shapes):
    """The broadcast shape of ``shapes``; ValueError naming the function otherwise."""
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(f"{name}: the shapes {' and '.join(map(str, shapes))} of 'x1' and "
                         f"'x2' cannot be broadcast together") from None


_ALLOWED = {name: _dt.CATEGORIES[cat] for name, (_, cat, _) in BINARY.items()}


def _make_unary(name, func, cat):
    allowed = _dt.CATEGORIES[cat]

    def f(x, /):
        if type(x) is not Array:
            if type(x) is not Deferred:
                raise TypeError(f"{name}: 'x' must be a flexarray array, got "
                                f"{type(x).__name__}")
            if x._dtype in allowed and (r := defer(name, func, (x,))) is not None:
                return r
            settle(x)
        if x._dtype not in allowed:
            _dt.check_dtype(name, "x", x, cat)
        a = x._arr
        if a.size < _FAST_MAX and x._dtype in fast:  # (~0.5 us less)
            return wrap(run(a))
        if a.size >= _fusion.MIN and (r := defer(name, func, (x,))) is not None:
            return r
        return wrap(_compute(name, func, (a,), x._dtype))
    fast = allowed - set(_dt.HALF)
    run = fp_quiet_numpy_caller(func, 1)  # func, floating-point warnings off: the fast path
    return f


_EXACT = 1 << 53  # Python ints of smaller magnitude convert to any float dtype's range
_INT64, _INT64_MIN, _INT64_MAX = _dt.int64, -(1 << 63), (1 << 63) - 1


def _make_binary(name, func, cat):
    allowed = _dt.CATEGORIES[cat]

    def f(x1, x2, /):
        # fast paths (~1 us less): small operands NumPy computes natively in the result dtype
        t1, t2 = type(x1), type(x2)
        if t1 is Array:
            a1 = x1._arr
            if a1.size < _FAST_MAX:
                if t2 is Array:  # one dtype; one shape, or one broadcasts to the other's
                    if x1._dtype is x2._dtype and x1._dtype in fast:
                        a2 = x2._arr
                        if a1.shape == a2.shape or _fits(a2.shape, a1.shape) or (
                                a2.size < _FAST_MAX and _fits(a1.shape, a2.shape)):
                            return wrap(run(a1, a2))
                elif (t2 is float or t2 is int and -_EXACT < x2 < _EXACT) and \
                        x1._dtype in fast_float:
                    return wrap(run(a1, x2))  # NumPy 2 keeps the float dtype
                elif t2 is int and x1._dtype is _INT64 and _INT64_MIN <= x2 <= _INT64_MAX and \
                        x1._dtype in fast:
                    return wrap(run(a1, x2))  # an int64 scalar beside int64
        elif (t1 is float or t1 is int and -_EXACT < x1 < _EXACT) and t2 is Array and \
                x2._dtype in fast_float and x2._arr.size < _FAST_MAX:
            return wrap(run(x1, x2._arr))
        if t1 is Deferred or t2 is Deferred or (
                t1 is Array and x1._arr.size >= _fusion.MIN) or (
                t2 is Array and x2._arr.size >= _fusion.MIN):
            ops = fusion_operands(name, x1, x2)
            if ops is not None and ops[2] in allowed and (
                    r := defer(name, func, ops[:2])) is not None:
                return r
        a1, a2, dt = _operands(name, x1, x2)
        if dt not in allowed:
            _dt.check_dtype(name, "x1' and 'x2", dt, cat, of_array=True)
        try:
            return wrap(_compute(name, func, (a1, a2), dt))
        except ValueError:
            _broadcast(name, np.shape(a1), np.shape(a2))  # the likely cause, named
            raise
    def with_ndarray(x1, x2):
        """``f(x1, x2)`` with one operand a NumPy array (an operator's), in the fast case
        only (small operands of one dtype, one broadcasting to the other's shape): NumPy
        computes it from that array as it is (~1.5 us less than taking it as an Array
        first). None otherwise."""
        a1 = x1._arr if type(x1) is Array else x1
        a2 = x2._arr if type(x2) is Array else x2
        if (a1.dtype is a2.dtype and a1.dtype in fast and a1.size < _FAST_MAX
                and a2.size < _FAST_MAX and (a1.shape == a2.shape or _fits(a2.shape, a1.shape)
                                             or _fits(a1.shape, a2.shape))):
            return wrap(run(a1, a2))
        return None

    fast = allowed - set(_dt.HALF)
    fast_float = fast & {_dt.float32, _dt.float64}
    run = fp_quiet_numpy_caller(func, 2)  # func, floating-point warnings off: the fast paths
    f.with_ndarray = with_ndarray
    return f


ELIDE_MIN = gates.ELIDE_MIN  # measured: flexarray/_engines/gates.py


def apply_elided(name, x, other, reflected=False):
    """``x <op> other`` (``other <op> x`` when ``reflected``) written into ``x``, a
    temporary about to be dropped, and ``x`` returned; None when the result cannot go there
    (another dtype or shape, memory that another array, a lazy copy or a foreign holder may
    see), and the caller allocates."""
    func, cat, result = BINARY[name]
    if not is_private(x._buf) or not x._arr.flags.writeable or \
            sys.getrefcount(x._buf) > _array._UNIQUE_REFS:
        return None
    a1, a2, dt = _operands(name, x, other)
    if dt is not x._dtype or dt not in _ALLOWED[name] or (result == "float" and
                                                         _dt.KIND[dt] in "biu"):
        return None
    if type(other) is Array and other._arr.shape != a1.shape and \
            _broadcast(name, a1.shape, other._arr.shape) != a1.shape:
        return None
    _compute(name, func, (a2, a1) if reflected else (a1, a2), dt, out=a1)
    return x


_INPLACE_FAST = {name: _ALLOWED[name] & {_dt.float32, _dt.float64} for name in BINARY}
#: name -> ``func(x, y, out=x)`` with floating-point warnings off (apply_inplace's fast path)
_INPLACE_RUN = {name: fp_quiet_numpy_caller(func, 2, into_first=True)
                for name, (func, _, _) in BINARY.items()}


def apply_inplace(name, x, other):
    """``x <op>= other``: written into x's memory (seen by its views), dtype unchanged."""
    func, cat, result = BINARY[name]
    if type(x) is Deferred and _defer_inplace(name, func, cat, x, other):
        return
    if x._dtype in _INPLACE_FAST[name] and x._arr.size < _FAST_MAX:
        # fast path (~3 us less): a small float x with a Python float (or an int a float
        # holds exactly) or an array of its dtype that broadcasts to it, NumPy's ufunc
        # straight into x's memory (NumPy copies overlapping operands itself)
        t = type(other)
        if t is float or t is int and -_EXACT < other < _EXACT:
            buf = x._buf  # (held until the write ends: Array._write, inlined)
            a = x._arr
            if buf.views is None and a.flags.writeable:
                _INPLACE_RUN[name](a, other)
            else:
                x._write(_INPLACE_RUN[name], other)
            return
        if t is Array and other._dtype is x._dtype and (
                other._arr.shape == x._arr.shape or _fits(other._arr.shape, x._arr.shape)):
            x._write(_run_with, _INPLACE_RUN[name], other)
            return
    a1, a2, dt = _operands(name, x, other)
    _dt.check_dtype(name, "x1' and 'x2", dt, cat, of_array=True)
    rdt = _dt.default_float if result == "float" and _dt.KIND[dt] in "biu" else dt
    if type(other) is Array and other._arr.shape != x._arr.shape:
        shape = _broadcast(name, x._arr.shape, other._arr.shape)
        if shape != x._arr.shape:
            raise ValueError(f"{name} in place: the result shape {shape} differs from x's "
                             f"shape {x._arr.shape}")
    if rdt is not x._dtype:
        # x keeps its dtype; a wider result of the same kind is cast back into it, as
        # NumPy and torch do (int32 += int64, float32 += float64); a change of kind raises
        if _dt.KIND[rdt] != _dt.KIND[x._dtype] or rdt.itemsize < x._dtype.itemsize:
            raise TypeError(f"{name} in place would change the kind of x's dtype from "
                            f"{x._dtype} to {rdt}; in-place operators keep the left "
                            f"operand's dtype")
        r = _compute(name, func, (a1, a2), dt)
        with fp_quiet():
            x._write(_assign, r)
        return
    if x._rewritten(lambda out: _compute(name, func, (a1, a2), dt, out=out)):
        return  # the family's move: the result went straight to its new memory
    x._write(_compute_into, name, func, other if type(other) is Array else a2, dt)


def _defer_inplace(name, func, cat, x, other) -> bool:
    """``x <op>= other`` for a deferred ``x`` whose values are not computed yet, as the
    deferred ``x <op> other`` that ``x`` then stands for (no view of a pending array
    exists: any look at its memory computes it first; nodes made on its old values keep
    them), when that result has x's shape and dtype and fuses; False otherwise (the eager
    write below computes x first, and names any error)."""
    node = pending(x)
    if node is None or not isinstance(other, (Array,) + _SCALARS):
        return False
    ops = fusion_operands(name, x, other)
    if ops is None or ops[2] is not x._dtype or ops[2] not in _dt.CATEGORIES[cat]:
        return False
    if isinstance(other, Array):
        shape = other.shape
        if shape != node.shape and not _fits(shape, node.shape):
            return False
    r = defer(name, func, ops[:2])  # (of node's shape: other broadcasts into it)
    if r is None or r._dtype is not x._dtype:
        return False
    return adopt(x, node, r)


def _run_with(out, run, other):
    """``run(out, other's elements)``, ``other`` an Array read now (after x's move: it may
    be x's own view)."""
    run(out, other._arr)


def _assign(out, r):
    out[...] = r


def _compute_into(out, name, func, other, dt):
    """``out <op>= other`` into ``out`` (x's memory after a move: ``other``, an Array, is
    read now, as it may be one of x's views)."""
    a2 = other._arr if type(other) is Array else other
    _compute(name, func, (out, _apart(a2, out)), dt, out=out)


# --- the namespace functions: one per table entry, made from the table by name --------------

def _named(name, f):
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Elementwise ``{name}`` as the Array API standard defines it."
    return f


for _name, _entry in UNARY.items():
    globals()[_name] = _named(_name, _make_unary(_name, *_entry[:2]))
for _name, _entry in BINARY.items():
    globals()[_name] = _named(_name, _make_binary(_name, *_entry[:2]))
del _name, _entry


def clip(x, /, min=None, max=None):
    """Clamp each element of ``x`` to ``[min, max]`` (arrays or Python scalars); NaN stays.

    Array bounds broadcast with ``x``; the result has x's dtype.
    """
    if type(x) is not Array:
        if type(x) is not Deferred:
            raise TypeError(f"clip: 'x' must be a flexarray array, got {type(x).__name__}")
        settle(x)
    _dt.check_dtype("clip", "x", x, "real numeric")
    if min is None and max is None:
        return copy_of(x)
    bounds = []
    for bound, what in ((numpy_as_array(min), "min"), (numpy_as_array(max), "max")):
        if bound is None:
            bounds.append(None)
            continue
        if type(bound) is Array:
            _dt.check_dtype("clip", what, bound, "real numeric")
            if _dt.is_integer(x._dtype):  # (NumPy's float clamp would round large ints)
                _dt.check_dtype("clip", what, bound, "integral",
                                f"x is {x._dtype}: pass an integer array or a Python scalar")
            b = bound._arr
        elif isinstance(bound, (int, float)) and type(bound) is not builtins.bool:
            if _dt.KIND[x._dtype] in "iu":
                b = _integer_bound(bound, what, x._dtype)
            elif type(bound) is int:  # (ml_dtypes takes no Python int; beyond float64: inf)
                try:
                    b = float(bound)
                except OverflowError:
                    b = math.inf if bound > 0 else -math.inf
            else:
                b = bound
        else:
            raise TypeError(f"clip: '{what}' must be None, a flexarray array or a real Python "
                            f"scalar, got {type(bound).__name__}")
        bounds.append(b)
    # one pass: np.clip is minimum(maximum(x, min), max) (NaN stays; max wins over min),
    # on the pool's threads when large
    try:
        r = _ufunc(np.clip, (x._arr, *bounds))
    except ValueError:
        for b, what in zip(bounds, ("min", "max")):
            try:
                np.broadcast_shapes(x.shape, np.shape(b))
            except ValueError:
                raise ValueError(f"clip: '{what}' of shape {np.shape(b)} does not broadcast "
                                 f"with x of shape {x.shape}") from None
        raise ValueError(f"clip: x of shape {x.shape}, 'min' of shape {np.shape(bounds[0])} "
                         f"and 'max' of shape {np.shape(bounds[1])} do not broadcast "
                         f"together") from None
    return wrap(r.astype(x._dtype, copy=False))


def _integer_bound(bound, what, dtype):
    """A real Python scalar bound of an integer ``x`` as the integer in ``dtype``'s range
    that clamps the same way: a float ``min`` rounded up, a float ``max`` rounded down,
    then saturated (a bound beyond the range, infinite ones included, clamps nothing or
    everything to the range's end)."""
    if isinstance(bound, float):
        if math.isnan(bound):
            raise ValueError(f"clip: '{what}' is NaN, which an integer x ({dtype}) cannot "
                             f"hold")
        if math.isinf(bound):
            bound = -(1 << 64) if bound < 0 else 1 << 64
        else:
            bound = math.ceil(bound) if what == "min" else math.floor(bound)
    info = np.iinfo(dtype)
    return builtins.min(builtins.max(int(bound), info.min), info.max)


_round_half_even = _make_unary("round", *UNARY["round"][:2])  # the table's round(x)


def round(x, /, decimals=0):
    """Round to ``decimals`` decimal places, halves to even (NumPy's ``round``; the
    standard's ``round(x)`` is ``decimals=0``). Negative ``decimals`` round to tens,
    hundreds, ...; integers stay integers."""
    if type(decimals) is int and decimals == 0:
        return _round_half_even(x)
    if type(x) is not Array:
        if type(x) is not Deferred:
            raise TypeError(f"round: 'x' must be a flexarray array, got {type(x).__name__}")
        settle(x)
    _dt.check_dtype("round", "x", x, "numeric")
    if isinstance(decimals, builtins.bool) or not isinstance(decimals, (int, np.integer)):
        raise TypeError(f"round: 'decimals' must be an int, got {decimals!r}")
    decimals = int(decimals)
    a = x._arr
    if decimals >= _ROUND_EXACT or (decimals > 0 and _dt.KIND[x._dtype] in "biu"):
        return wrap(a.copy())  # finer than any element's last digit: nothing to round
    if decimals <= -_ROUND_EXACT or (_dt.KIND[x._dtype] in "iu" and decimals <= (
            -20 if x._dtype == _dt.uint64 else -19)):
        # coarser than any finite value (float64 < 1.8e308, int64 < 9.3e18): zeros
        # of x's sign; inf and NaN stay (NumPy's 10**decimals overflows: NaN, garbage)
        if _dt.KIND[x._dtype] == "c":  # (by parts: complex * real scalar makes inf*0 NaN)
            r = np.empty(a.shape, a.dtype)
            r.real, r.imag = _round_to_zero(a.real), _round_to_zero(a.imag)
            return wrap(r)
        return wrap(_round_to_zero(a).astype(a.dtype))
    return wrap(_compute("round", np.round, (a, decimals), x._dtype))


def _round_to_zero(a):
    """Real ``a`` rounded coarser than any finite value: zeros of a's sign, inf and NaN
    kept."""
    a = a.astype(np.float64)
    return np.where(np.isfinite(a), np.copysign(0.0, a), a)


#: from this many decimals (either sign) round's result is exact without computing: every
#: float64 has fewer than 341 significant decimal places and is below 10**309
_ROUND_EXACT = 350


round.__module__ = __name__


__all__ = sorted([*UNARY, *BINARY, "clip"])  # (the functions made from the tables above)
