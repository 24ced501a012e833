"""Elementwise functions (the standard's 67), generated from one table.

Engine: NumPy ufuncs on strided views of the buffers (their SIMD transcendentals beat
Numba's 4-12x here), run on both cores in chunks for large outputs (NumPy's ufuncs use one
core). float16/bfloat16 compute in float32 and round once. Where NumPy's result differs
from the standard's special cases, a small NumPy-level fix in :mod:`._special` is used.
"""
from __future__ import annotations

import builtins
import math
import sys

import numpy as np

from . import _dtypes as _dt
from . import _array, _memory, _special, _threads
from ._array import Array, Buffer, _new, copy_of, wrap
from ._buffer import is_private

# --- the table ----------------------------------------------------------------------------
# name: (implementation, input category, result rule, may warn)
#   category: which (promoted) dtypes are accepted
#   result:   'same' (the promoted dtype), 'bool', 'real' (complex -> its real dtype),
#             'float' (integers -> the default float dtype)

_CATEGORIES = {
    "any": lambda d: True,
    "numeric": _dt.is_numeric,
    "real numeric": _dt.is_real_numeric,
    "integer": _dt.is_integer,
    "integer or boolean": _dt.is_integer_or_bool,
    "floating": _dt.is_floating,
    "real floating": _dt.is_real_floating,
    "complex floating": _dt.is_complex,
    "boolean": _dt.is_bool,
    "numeric or boolean": lambda d: True,
}

UNARY = {
    "abs": (np.absolute, "numeric", "real"),
    "acos": (np.arccos, "floating", "same"),
    "acosh": (np.arccosh, "floating", "same"),
    "asin": (np.arcsin, "floating", "same"),
    "asinh": (np.arcsinh, "floating", "same"),
    "atan": (np.arctan, "floating", "same"),
    "atanh": (np.arctanh, "floating", "same"),
    "bitwise_invert": (np.invert, "integer or boolean", "same"),
    "ceil": (np.ceil, "real numeric", "same"),
    "conj": (np.conjugate, "numeric", "same"),
    "cos": (np.cos, "floating", "same"),
    "cosh": (np.cosh, "floating", "same"),
    "exp": (np.exp, "floating", "same"),
    "expm1": (_special.expm1, "floating", "same"),
    "floor": (np.floor, "real numeric", "same"),
    "imag": (_special.imag, "numeric", "real"),
    "isfinite": (np.isfinite, "numeric", "bool"),
    "isinf": (np.isinf, "numeric", "bool"),
    "isnan": (np.isnan, "numeric", "bool"),
    "log": (np.log, "floating", "same"),
    "log1p": (np.log1p, "floating", "same"),
    "log2": (np.log2, "floating", "same"),
    "log10": (np.log10, "floating", "same"),
    "logical_not": (np.logical_not, "numeric or boolean", "bool"),
    "negative": (np.negative, "numeric", "same"),
    "positive": (np.positive, "numeric", "same"),
    "real": (_special.real, "numeric", "real"),
    "reciprocal": (np.reciprocal, "floating", "same"),
    "round": (np.round, "numeric", "same"),
    "sign": (_special.sign, "numeric", "same"),
    "signbit": (np.signbit, "real floating", "bool"),
    "sin": (np.sin, "floating", "same"),
    "sinh": (np.sinh, "floating", "same"),
    "square": (np.square, "numeric", "same"),
    "sqrt": (np.sqrt, "floating", "same"),
    "tan": (np.tan, "floating", "same"),
    "tanh": (np.tanh, "floating", "same"),
    "trunc": (np.trunc, "real numeric", "same"),
}

BINARY = {
    "add": (np.add, "numeric", "same"),
    "atan2": (np.arctan2, "real floating", "same"),
    "bitwise_and": (np.bitwise_and, "integer or boolean", "same"),
    "bitwise_left_shift": (_special.left_shift, "integer", "same"),
    "bitwise_or": (np.bitwise_or, "integer or boolean", "same"),
    "bitwise_right_shift": (_special.right_shift, "integer", "same"),
    "bitwise_xor": (np.bitwise_xor, "integer or boolean", "same"),
    "copysign": (np.copysign, "real floating", "same"),
    "divide": (np.true_divide, "numeric", "float"),
    "equal": (np.equal, "any", "bool"),
    "floor_divide": (_special.floor_divide, "real numeric", "same"),
    "greater": (np.greater, "real numeric", "bool"),
    "greater_equal": (np.greater_equal, "real numeric", "bool"),
    "hypot": (np.hypot, "real floating", "same"),
    "less": (np.less, "real numeric", "bool"),
    "less_equal": (np.less_equal, "real numeric", "bool"),
    "logaddexp": (np.logaddexp, "real floating", "same"),
    "logical_and": (np.logical_and, "numeric or boolean", "bool"),
    "logical_or": (np.logical_or, "numeric or boolean", "bool"),
    "logical_xor": (np.logical_xor, "numeric or boolean", "bool"),
    "maximum": (np.maximum, "real numeric", "same"),
    "minimum": (np.minimum, "real numeric", "same"),
    "multiply": (np.multiply, "numeric", "same"),
    "nextafter": (np.nextafter, "real floating", "same"),
    "not_equal": (np.not_equal, "any", "bool"),
    "pow": (_special.pow, "numeric", "same"),
    "remainder": (_special.remainder, "real numeric", "same"),
    "subtract": (np.subtract, "numeric", "same"),
}

# --- engine -------------------------------------------------------------------------------

_SCALARS = (builtins.bool, int, float, complex)
_HALF_NP = (np.dtype(np.float16), _dt.bfloat16)
_BY_NP = _dt._BY_NP
#: below this many output elements one thread does the work (thread hand-off ~20-40 us)
PARALLEL_MIN = 1 << 20


def _check_category(name, cat, dtype, what="x"):
    if not _CATEGORIES[cat](dtype):
        raise TypeError(f"{name}: '{what}' must have a {cat} dtype, got {dtype}")


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
            return x1._arr, _scalar_operand(name, x2, dt), dt
    elif type(x2) is Array:
        if isinstance(x1, _SCALARS):
            dt = _dt.promote(x2._dtype, _dt.scalar_dtype(x1, x2._dtype), name)
            return _scalar_operand(name, x1, dt), x2._arr, dt
    if isinstance(x1, np.generic) or isinstance(x2, np.generic):
        # NumPy scalars combine with arrays as the Python scalars they hold
        return _operands(name, _python_scalar(x1), _python_scalar(x2))
    for i, x in enumerate((x1, x2), 1):
        if not isinstance(x, (Array,) + _SCALARS):
            raise TypeError(f"{name}: 'x{i}' must be a flexarray array or a Python scalar, got "
                            f"{type(x).__name__}")
    raise TypeError(f"{name}: at least one of 'x1', 'x2' must be a flexarray array "
                    f"(got two Python scalars)")


def _python_scalar(x):
    """A numeric NumPy scalar as the Python scalar it holds (other objects unchanged)."""
    if isinstance(x, np.generic) and type(x) not in _SCALARS and x.dtype in _dt.SUPPORTED:
        return x.item()
    return x


_scalar_operand = _dt.scalar_operand


def _broadcast(name, *shapes):
    """The broadcast shape of ``shapes``; ValueError naming the function otherwise."""
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(f"{name}: the shapes {' and '.join(map(str, shapes))} of 'x1' and "
                         f"'x2' cannot be broadcast together") from None


try:  # NumPy 2 keeps its floating-point error state in a context variable: setting it
    # directly costs ~0.1 us, where ``with np.errstate(...)`` costs ~1-2 us per call
    from numpy._core._multiarray_umath import _extobj_contextvar as _ERRSTATE
    from numpy._core._multiarray_umath import _make_extobj
    _IGNORE_ALL = _make_extobj(all="ignore")
except ImportError:  # pragma: no cover - other NumPy versions
    _ERRSTATE = None


def _quiet(func, args, out=None):
    """``func(*args[, out=out])`` with floating-point warnings off: IEEE results (inf, NaN)
    are the defined behaviour of these functions, not an error."""
    if _ERRSTATE is None:
        with np.errstate(all="ignore"):
            return func(*args) if out is None else func(*args, out=out)
    token = _ERRSTATE.set(_IGNORE_ALL)
    try:
        return func(*args) if out is None else func(*args, out=out)
    finally:
        _ERRSTATE.reset(token)


def _is_large(args, out):
    if out is not None:
        return out.size >= PARALLEL_MIN
    n = 1
    for a in args:
        if type(a) is np.ndarray:
            n *= a.size  # an upper bound of the broadcast size: exact check below
    if n < PARALLEL_MIN:
        return False
    return int(np.prod(np.broadcast_shapes(*(np.shape(a) for a in args)))) >= PARALLEL_MIN


def _ufunc(func, args, out=None):
    """``func(*args)`` into ``out`` (or a new array): on all cores in chunks when large."""
    if _threads.NTHREADS < 2 or not _is_large(args, out):
        return _quiet(func, args, out)
    if out is None:
        shape = np.broadcast_shapes(*(np.shape(a) for a in args))
        probe = _quiet(func, tuple(a.reshape(-1)[:1] if type(a) is np.ndarray else a
                                   for a in args))
        out = _memory.empty(shape, np.result_type(probe))
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
        _quiet(func, tuple(cut(a, sl) for a in args), cut(out, sl))

    _threads.run_split(part, (), out.shape[ax], _threads.NTHREADS, pieces_per_thread=4)
    return out


#: float16/bfloat16 operations with a Numba kernel (~30x NumPy's float16 add); the rest
#: compute through float32 NumPy ufuncs and round once
_HALF_KERNEL_OPS = {"add", "subtract", "multiply", "divide", "maximum", "minimum"}


def _compute(name, func, args, dt, out=None):
    """Apply ``func`` to NumPy operands whose promoted dtype is ``dt``."""
    if dt not in _dt.HALF:
        return _ufunc(func, args, out)
    if name in _HALF_KERNEL_OPS:
        from ._kernels import half
        a, b = (x if type(x) is np.ndarray else np.asarray(x, dt) for x in args)
        if a.dtype == b.dtype == dt:
            if out is None:
                out = _memory.empty(np.broadcast_shapes(a.shape, b.shape), dt)
            elif np.shares_memory(out, b) and out is not b:
                b = b.copy()  # the kernel may not read an input it partially overwrites
            half.binary(name, a, b, out)
            return out
    wide = tuple(a.astype(np.float32) if type(a) is np.ndarray else a for a in args)
    r = np.asarray(_ufunc(func, wide))
    if r.dtype.kind == "f":
        r = _quiet(r.astype, (dt,))  # overflow to +-inf is the IEEE rounding
    if out is None:
        return r
    out[...] = r
    return out


def _wrap(r):
    if type(r) is not np.ndarray:
        r = np.asarray(r)
    return _new(r, Buffer(), _BY_NP[r.dtype])


def _allowed(cat):
    return frozenset(d for d in _dt.ALL if _CATEGORIES[cat](d))


_ALLOWED = {name: _allowed(cat) for name, (_, cat, _) in BINARY.items()}


def _make_unary(name, func, cat):
    allowed = _allowed(cat)

    def f(x, /):
        if type(x) is not Array:
            raise TypeError(f"{name}: 'x' must be a flexarray array, got {type(x).__name__}")
        if x._dtype not in allowed:
            _check_category(name, cat, x._dtype)
        return _wrap(_compute(name, func, (x._arr,), x._dtype))
    return f


def _make_binary(name, func, cat):
    allowed = _allowed(cat)

    def f(x1, x2, /):
        a1, a2, dt = _operands(name, x1, x2)
        if dt not in allowed:
            _check_category(name, cat, dt, "x1' and 'x2")
        try:
            return _wrap(_compute(name, func, (a1, a2), dt))
        except ValueError:
            _broadcast(name, np.shape(a1), np.shape(a2))  # the likely cause, named
            raise
    return f


#: from this many elements a temporary left operand takes the result (see _array)
ELIDE_MIN = 1 << 16


def apply_elided(name, x, other):
    """``x <op> other`` written into ``x``, a temporary about to be dropped, and ``x``
    returned; None when the result cannot go there (another dtype or shape, memory that
    another array, a lazy copy or a foreign holder may see), and the caller allocates."""
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
    _compute(name, func, (a1, a2), dt, out=a1)
    return x


def _apart(a, out):
    """Operand ``a`` of a computation into ``out``, copied first if it overlaps ``out`` in
    another layout (``x[1:] += x[:-1]``): the kernels and the chunked ufuncs read each
    input element after writing some outputs. The same layout (``x += x``) is safe."""
    if type(a) is np.ndarray and a is not out and np.may_share_memory(a, out) and not (
            a.shape == out.shape and a.strides == out.strides and
            a.__array_interface__["data"][0] == out.__array_interface__["data"][0]):
        return a.copy()
    return a


def apply_inplace(name, x, other):
    """``x <op>= other``: written into x's memory (seen by its views), dtype unchanged."""
    func, cat, result = BINARY[name]
    a1, a2, dt = _operands(name, x, other)
    _check_category(name, cat, dt, "x1' and 'x2")
    rdt = _dt.default_float if result == "float" and _dt.KIND[dt] in "biu" else dt
    if rdt is not x._dtype:
        raise TypeError(f"{name} in place would change the dtype of x from {x._dtype} to "
                        f"{rdt}; in-place operators keep the left operand's dtype")
    if type(other) is Array and other._arr.shape != x._arr.shape:
        shape = _broadcast(name, x._arr.shape, other._arr.shape)
        if shape != x._arr.shape:
            raise ValueError(f"{name} in place: the result shape {shape} differs from x's "
                             f"shape {x._arr.shape}")
    out = x._writable()  # (x's memory may have moved: read both operands anew)
    if type(other) is Array:
        a2 = other._arr
    _compute(name, func, (out, _apart(a2, out)), dt, out=out)


_namespace = globals()
__all__ = []
for _name, (_func, _cat, _res) in UNARY.items():
    _namespace[_name] = _make_unary(_name, _func, _cat)
    __all__.append(_name)
for _name, (_func, _cat, _res) in BINARY.items():
    _namespace[_name] = _make_binary(_name, _func, _cat)
    __all__.append(_name)
for _name in __all__:
    _namespace[_name].__name__ = _namespace[_name].__qualname__ = _name
    _namespace[_name].__doc__ = f"Elementwise ``{_name}`` as the Array API standard defines it."


def clip(x, /, min=None, max=None):
    """Clamp each element of ``x`` to ``[min, max]`` (arrays or Python scalars); NaN stays.

    Array bounds broadcast with ``x``; the result has x's dtype.
    """
    if type(x) is not Array:
        raise TypeError(f"clip: 'x' must be a flexarray array, got {type(x).__name__}")
    _check_category("clip", "real numeric", x._dtype)
    if min is None and max is None:
        return copy_of(x)
    r = x._arr
    for bound, func, what in ((min, np.maximum, "min"), (max, np.minimum, "max")):
        if bound is None:
            continue
        if type(bound) is Array:
            _check_category("clip", "real numeric", bound._dtype, what)
            b = bound._arr
        elif isinstance(bound, (int, float)) and type(bound) is not builtins.bool:
            if _dt.KIND[x._dtype] in "iu":
                if isinstance(bound, float) and not float(bound).is_integer():
                    b = bound  # compared in float below
                else:
                    info = np.iinfo(x._dtype)
                    b = builtins.min(builtins.max(int(bound), info.min), info.max)
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
        try:
            r = func(r, b)
        except ValueError:
            raise ValueError(f"clip: '{what}' of shape {np.shape(b)} does not broadcast with "
                             f"x of shape {np.shape(r)}") from None
    return wrap(r.astype(x._dtype, copy=False))


__all__.append("clip")

_round_half_even = round  # the table's round(x)


def round(x, /, decimals=0):
    """Round to ``decimals`` decimal places, halves to even (NumPy's ``round``; the
    standard's ``round(x)`` is ``decimals=0``). Negative ``decimals`` round to tens,
    hundreds, ...; integers stay integers."""
    if type(decimals) is int and decimals == 0:
        return _round_half_even(x)
    if type(x) is not Array:
        raise TypeError(f"round: 'x' must be a flexarray array, got {type(x).__name__}")
    _check_category("round", "numeric", x._dtype)
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
    return _wrap(_compute("round", np.round, (a, decimals), x._dtype))


def _round_to_zero(a):
    """Real ``a`` rounded coarser than any finite value: zeros of a's sign, inf and NaN
    kept."""
    a = a.astype(np.float64)
    return np.where(np.isfinite(a), np.copysign(0.0, a), a)


#: from this many decimals (either sign) round's result is exact without computing: every
#: float64 has fewer than 341 significant decimal places and is below 10**309
_ROUND_EXACT = 350


round.__module__ = __name__
