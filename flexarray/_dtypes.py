"""Data types and type promotion.

Promotion is a small lattice (each dtype names the dtypes it promotes to directly); the
promotion table is derived from it as least upper bounds, as JAX does. Pairs the standard
leaves unspecified (bool with numbers, integers with floats) follow NumPy 2, except where
NumPy silently loses data (``int64`` with ``uint64`` gives ``float64`` there): those raise.
"""
from __future__ import annotations

import builtins

import ml_dtypes
import numpy as np

__all__ = [
    "DType", "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
]


class DType:
    """A flexarray data type: a singleton, hashable, compared by identity."""

    __slots__ = ("name", "np", "kind", "bits", "__weakref__")

    def __init__(self, name: str, np_dtype, kind: str):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.kind = kind  # 'b' bool, 'i' signed, 'u' unsigned, 'f' real float, 'c' complex
        self.bits = self.np.itemsize * 8

    def __repr__(self):
        return f"flexarray.{self.name}"

    __str__ = __repr__

    def __reduce__(self):  # pickle as the singleton
        return (_by_name, (self.name,))

    @property
    def itemsize(self) -> int:
        return self.np.itemsize


bool = DType("bool", np.bool_, "b")
int8 = DType("int8", np.int8, "i")
int16 = DType("int16", np.int16, "i")
int32 = DType("int32", np.int32, "i")
int64 = DType("int64", np.int64, "i")
uint8 = DType("uint8", np.uint8, "u")
uint16 = DType("uint16", np.uint16, "u")
uint32 = DType("uint32", np.uint32, "u")
uint64 = DType("uint64", np.uint64, "u")
float16 = DType("float16", np.float16, "f")
bfloat16 = DType("bfloat16", ml_dtypes.bfloat16, "f")
float32 = DType("float32", np.float32, "f")
float64 = DType("float64", np.float64, "f")
complex64 = DType("complex64", np.complex64, "c")
complex128 = DType("complex128", np.complex128, "c")

ALL = (bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
       float16, bfloat16, float32, float64, complex64, complex128)
#: the dtypes the standard defines (float16/bfloat16 are storage extensions)
STANDARD = tuple(d for d in ALL if d not in (float16, bfloat16))
HALF = (float16, bfloat16)

default_float = float64
default_int = int64
default_complex = complex128
default_index = int64

_BY_NP = {d.np: d for d in ALL}
_BY_NAME = {d.name: d for d in ALL}


def _by_name(name):
    return _BY_NAME[name]


def from_np(np_dtype) -> DType:
    """The flexarray dtype of a NumPy dtype (TypeError for dtypes flexarray lacks)."""
    try:
        return _BY_NP[np_dtype]
    except (KeyError, TypeError):
        pass
    try:
        return _BY_NP[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        raise TypeError(f"unsupported data type {np_dtype!r}; flexarray supports "
                        f"{', '.join(d.name for d in ALL)}") from None


# --- kinds -------------------------------------------------------------------------------

def is_bool(d): return d.kind == "b"
def is_integer(d): return d.kind in "iu"
def is_real_floating(d): return d.kind == "f"
def is_complex(d): return d.kind == "c"
def is_floating(d): return d.kind in "fc"
def is_numeric(d): return d.kind in "iufc"
def is_real_numeric(d): return d.kind in "iuf"
def is_integer_or_bool(d): return d.kind in "biu"


_KIND_TESTS = {
    "bool": is_bool,
    "signed integer": lambda d: d.kind == "i",
    "unsigned integer": lambda d: d.kind == "u",
    "integral": is_integer,
    "real floating": is_real_floating,
    "complex floating": is_complex,
    "numeric": is_numeric,
}


def isdtype(dtype, kind) -> builtins.bool:
    """Whether ``dtype`` is ``kind``: a dtype, a kind name, or a tuple of those."""
    if not isinstance(dtype, DType):
        raise TypeError(f"isdtype: 'dtype' must be a flexarray dtype, got {dtype!r}")
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, DType):
        return dtype is kind
    if isinstance(kind, str):
        try:
            return _KIND_TESTS[kind](dtype)
        except KeyError:
            raise ValueError(f"isdtype: unknown kind {kind!r}; allowed: "
                             f"{', '.join(map(repr, _KIND_TESTS))}") from None
    raise TypeError(f"isdtype: 'kind' must be a dtype, a kind name or a tuple of those, "
                    f"got {kind!r}")


# --- the promotion lattice -----------------------------------------------------------------

#: each dtype's direct supertypes; promotion of two dtypes is their least upper bound
_LATTICE = {
    bool: (),
    int8: (int16,), int16: (int32,), int32: (int64,), int64: (),
    uint8: (uint16, int16), uint16: (uint32, int32), uint32: (uint64, int64), uint64: (),
    float16: (float32,), bfloat16: (float32,), float32: (float64, complex64),
    float64: (complex128,), complex64: (complex128,), complex128: (),
}


def _upper_set(d):
    seen, todo = {d}, [d]
    while todo:
        for up in _LATTICE[todo.pop()]:
            if up not in seen:
                seen.add(up)
                todo.append(up)
    return seen


_UPPER = {d: _upper_set(d) for d in ALL}


def _lub(a, b):
    common = _UPPER[a] & _UPPER[b]
    least = [d for d in common if _UPPER[d] >= common]
    return least[0] if least else None


# Smallest float that holds every value of an integer dtype of that size, as in NumPy 2.
_INT_TO_FLOAT = {8: float16, 16: float32, 32: float64, 64: float64}


def _cross_kind(a, b):
    """Promotion the standard leaves unspecified: bool with numbers, ints with floats."""
    if a.kind == "b":
        return b
    if b.kind == "b":
        return a
    if a.kind in "fc":
        a, b = b, a
    if a.kind in "iu" and b.kind in "fc":
        f = _INT_TO_FLOAT[a.bits]
        if b is bfloat16 and a.bits == 8:
            return bfloat16
        return _lub(f, b)
    return None  # int64 with uint64: no dtype holds both


PROMOTION = {}
for _a in ALL:
    for _b in ALL:
        _r = _lub(_a, _b) if (_a.kind == "b") == (_b.kind == "b") else None
        if _r is None:
            _r = _cross_kind(_a, _b)
        if _r is not None:
            PROMOTION[_a, _b] = _r


def promote(a: DType, b: DType) -> DType:
    """The promoted dtype of two dtypes; TypeError when no dtype holds both."""
    try:
        return PROMOTION[a, b]
    except KeyError:
        raise TypeError(f"no type promotion between {a} and {b}: no flexarray dtype holds "
                        f"every value of both; cast one with astype()") from None


def scalar_dtype(value, other: DType | None = None) -> DType:
    """The dtype a Python scalar takes beside an array of dtype ``other``.

    The standard's rule: a scalar adopts the array's dtype when its kind fits (bool with
    bool, int with integer or float, float with float, complex with float). Other pairs
    follow NumPy 2: an int or bool array with a float scalar gives the default float.
    """
    t = type(value)
    if other is None:
        if t is builtins.bool or isinstance(value, np.bool_):
            return bool
        if isinstance(value, (int, np.integer)):
            return default_int
        if isinstance(value, (float, np.floating)):
            return default_float
        return default_complex
    k = other.kind
    if t is builtins.bool or isinstance(value, np.bool_):
        return other
    if isinstance(value, (int, np.integer)):
        return other if k != "b" else default_int
    if isinstance(value, (float, np.floating)):
        return other if k in "fc" else default_float
    if k == "c":
        return other
    if k == "f":
        return complex64 if other is float32 or other in HALF else complex128
    return default_complex


def result_type(*arrays_and_dtypes) -> DType:
    """The dtype from applying type promotion to arrays, dtypes and Python scalars."""
    dtypes, scalars = [], []
    for a in arrays_and_dtypes:
        if isinstance(a, DType):
            dtypes.append(a)
        elif isinstance(a, (builtins.bool, int, float, complex)):
            scalars.append(a)
        elif hasattr(a, "dtype") and isinstance(a.dtype, DType):
            dtypes.append(a.dtype)
        else:
            raise TypeError(f"result_type: expected arrays, dtypes or Python scalars, "
                            f"got {type(a).__name__}")
    if not dtypes:
        raise ValueError("result_type: at least one array or dtype is required "
                         "(Python scalars alone have no dtype)")
    r = dtypes[0]
    for d in dtypes[1:]:
        r = promote(r, d)
    for s in scalars:
        r = promote(r, scalar_dtype(s, r))
    return r


# --- casting rules (can_cast) ----------------------------------------------------------------

def can_cast(from_: DType, to: DType) -> builtins.bool:
    """Whether ``from_`` casts to ``to`` by the promotion rules (no loss of kind or range)."""
    return PROMOTION.get((from_, to)) is to


# --- finfo / iinfo -------------------------------------------------------------------------

class finfo_object:
    """Machine limits of a floating-point dtype (fields as the standard names them)."""

    __slots__ = ("bits", "eps", "max", "min", "smallest_normal", "dtype")

    def __init__(self, d: DType):
        real = {complex64: float32, complex128: float64}.get(d, d)
        info = ml_dtypes.finfo(real.np)
        self.bits, self.dtype = info.bits, real
        self.eps, self.max = float(info.eps), float(info.max)
        self.min, self.smallest_normal = float(info.min), float(info.smallest_normal)

    def __repr__(self):
        return (f"finfo(bits={self.bits}, eps={self.eps}, max={self.max}, min={self.min}, "
                f"smallest_normal={self.smallest_normal}, dtype={self.dtype})")


class iinfo_object:
    """Machine limits of an integer dtype."""

    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, d: DType):
        info = np.iinfo(d.np)
        self.bits, self.max, self.min, self.dtype = info.bits, int(info.max), int(info.min), d

    def __repr__(self):
        return f"iinfo(bits={self.bits}, max={self.max}, min={self.min}, dtype={self.dtype})"
