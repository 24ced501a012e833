"""Data types, their categories and type promotion (the standard's chapter of data type
functions, ``astype`` to ``result_type``, is ``_data_type_functions.py``).

flexarray's dtypes are NumPy dtype objects (``flexarray.float64 is np.dtype("float64")``;
``bfloat16`` is ml_dtypes' NumPy dtype), as in CuPy, JAX, Dask and pydata/sparse: every
consumer that normalizes through ``np.dtype(...)``, ``isinstance(d, np.dtype)`` or
``np.finfo(d)`` takes them unchanged. Each array's dtype is the canonical (singleton) object,
so identity comparisons hold.

The standard's categories are one table, :data:`CATEGORIES` (built from :data:`KIND`, not
from ``d.kind``: ml_dtypes' bfloat16 has NumPy kind ``"V"``), and :func:`check_dtype` is the
one check of an argument's dtype against it. The check lives here rather than in
``_helpers.py`` (the home of the other argument checks) because it needs nothing but the
dtypes, and here, at the storage layer, every layer that holds a dtype can use it: the
Array's own checks, ``_helpers`` and the chapters, the extensions and ``flexarray.nn``.

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
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "float16", "bfloat16", "float32", "float64", "complex64", "complex128",
]

bool = np.dtype(np.bool_)
int8 = np.dtype(np.int8)
int16 = np.dtype(np.int16)
int32 = np.dtype(np.int32)
int64 = np.dtype(np.int64)
uint8 = np.dtype(np.uint8)
uint16 = np.dtype(np.uint16)
uint32 = np.dtype(np.uint32)
uint64 = np.dtype(np.uint64)
float16 = np.dtype(np.float16)
bfloat16 = np.dtype(ml_dtypes.bfloat16)
float32 = np.dtype(np.float32)
float64 = np.dtype(np.float64)
complex64 = np.dtype(np.complex64)
complex128 = np.dtype(np.complex128)

ALL = (bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
       float16, bfloat16, float32, float64, complex64, complex128)
#: the supported dtypes, for membership tests (``d in SUPPORTED``: a hash, no comparisons)
SUPPORTED = frozenset(ALL)
#: the dtypes the standard defines (float16/bfloat16 are storage extensions)
STANDARD = tuple(d for d in ALL if d not in (float16, bfloat16))
#: the half-precision storage dtypes (a frozenset: ``d in HALF`` hashes, a tuple would call
#: NumPy's dtype comparison for each member)
HALF = frozenset((float16, bfloat16))

#: each dtype's category: 'b' bool, 'i' signed, 'u' unsigned, 'f' real float, 'c' complex.
#: Use this, not ``d.kind``: ml_dtypes' bfloat16 has NumPy kind 'V'.
KIND = {d: ("f" if d is bfloat16 else d.kind) for d in ALL}
#: bits per element
BITS = {d: d.itemsize * 8 for d in ALL}


def kind_of(d) -> str:
    """The category of flexarray dtype ``d``: 'b', 'i', 'u', 'f' or 'c' (see :data:`KIND`)."""
    return KIND[d]


default_float = float64
default_int = int64
default_complex = complex128
default_index = int64

_BY_NP = {d: d for d in ALL}  # any equal NumPy dtype -> the canonical object
_BY_NAME = {d.name: d for d in ALL}
_NAMES = ", ".join(d.name for d in ALL)


def from_np(np_dtype):
    """The canonical flexarray dtype of a NumPy dtype (TypeError for dtypes it lacks)."""
    try:
        return _BY_NP[np_dtype]
    except (KeyError, TypeError):
        pass
    try:
        return _BY_NP[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        raise TypeError(f"unsupported data type {np_dtype!r}; flexarray supports "
                        f"{_NAMES}") from None


def normalize(dtype, func: str, name: str = "dtype", allow_none: builtins.bool = True,
              what: str = "a dtype"):
    """``dtype`` as the canonical flexarray dtype.

    Takes what ``np.dtype()`` takes for a supported dtype (``xp.float32``, ``np.float32``,
    ``np.dtype("float32")``, ``"float32"``, ``"f4"``, ``"<f4"``, and Python ``bool``, ``int``,
    ``float``, ``complex`` with NumPy's meaning), and ``None`` when ``allow_none`` (returned
    as None). Anything else (unsupported NumPy dtypes such as float128, object or str,
    non-native byte order, arrays, other objects) raises a TypeError naming ``func`` and the
    argument ``name`` (``what`` says what it must be, for arguments that take more than
    dtypes). The canonical objects themselves cost one dict lookup.
    """
    try:
        d = _BY_NP.get(dtype)
    except TypeError:  # unhashable
        d = None
    if d is not None:
        return d
    if dtype is None and allow_none:
        return None
    return _normalize_slow(dtype, func, name, allow_none, what)


def _normalize_slow(dtype, func, name, allow_none, what="a dtype"):
    """:func:`normalize` for anything but the canonical objects: through ``np.dtype()``."""
    allowed = (f"allowed: {_NAMES}, in any spelling np.dtype() takes (xp.float32, "
               f"np.float32, 'float32', 'f4', float){', or None' if allow_none else ''}")
    is_array = hasattr(dtype, "__array_namespace__") and not isinstance(dtype, type)
    nd = None
    if dtype is not None and not is_array:  # np.dtype(None) is float64; np.dtype(array)
        try:                                # is the array's dtype: neither is a dtype here
            nd = np.dtype(dtype)
        except Exception:  # np.dtype raises TypeError, ValueError, ... for non-dtypes
            pass
    if nd is None:
        got = (f"an array ({type(dtype).__name__}; pass its .dtype)" if is_array
               else repr(dtype))
        raise TypeError(f"{func}: '{name}' must be {what}, got {got}; {allowed}")
    d = _BY_NP.get(nd)
    if d is not None:
        return d
    if not nd.isnative and nd.newbyteorder("=") in _BY_NP:
        raise TypeError(f"{func}: '{name}' must have the native byte order, got {dtype!r} "
                        f"(byte order {nd.byteorder!r}); {allowed}")
    raise TypeError(f"{func}: '{name}' must be a supported dtype, got {dtype!r} (NumPy "
                    f"dtype {nd}, which flexarray does not support); {allowed}")


# --- categories ----------------------------------------------------------------------------
#
# The one table of dtype categories, keyed by the standard's names (``isdtype``'s kinds and
# the unions its functions' signatures name), and the one check against it. Both live here,
# beside ``normalize`` (the other dtype check), at the storage layer: every layer that holds
# a dtype may use them, the Array's own checks included, and they need nothing but the dtypes.


def _of_kinds(kinds):
    return frozenset(d for d in ALL if KIND[d] in kinds)


#: category name -> the frozenset of flexarray dtypes in it (float16 and bfloat16 count as
#: real floating)
CATEGORIES = {
    "bool": _of_kinds("b"),
    "signed integer": _of_kinds("i"),
    "unsigned integer": _of_kinds("u"),
    "integral": _of_kinds("iu"),
    "real floating": _of_kinds("f"),
    "complex floating": _of_kinds("c"),
    "floating-point": _of_kinds("fc"),
    "numeric": _of_kinds("iufc"),
    "real numeric": _of_kinds("iuf"),  # the standard's "real-valued" dtypes
    "integral or bool": _of_kinds("biu"),
    "real numeric or bool": _of_kinds("biuf"),
    "real floating or bool": _of_kinds("bf"),
    "numeric or bool": SUPPORTED,
}
#: the kinds ``isdtype`` takes by name (the standard's)
ISDTYPE_KINDS = ("bool", "signed integer", "unsigned integer", "integral", "real floating",
                 "complex floating", "numeric")

# the table's predicates (``d in`` a frozenset: a hash), for choices that are not checks
is_bool = CATEGORIES["bool"].__contains__
is_integer = CATEGORIES["integral"].__contains__
is_real_floating = CATEGORIES["real floating"].__contains__
is_complex = CATEGORIES["complex floating"].__contains__
is_floating = CATEGORIES["floating-point"].__contains__
is_numeric = CATEGORIES["numeric"].__contains__
is_real_numeric = CATEGORIES["real numeric"].__contains__
is_integer_or_bool = CATEGORIES["integral or bool"].__contains__


def check_dtype(func: str, argname: str, x_or_dtype, category: str, hint: str = "", *,
                of_array: builtins.bool = None):
    """The dtype of ``x_or_dtype`` (an array, flexarray's or NumPy's, or a dtype) if it is in
    ``category`` (a key of :data:`CATEGORIES`); else TypeError naming the function, the
    argument, the dtype given and the category allowed with its dtypes (then ``hint``, if
    given: what to do instead). The message says the argument "must have" a dtype of the
    category when it is an array, "must be" one when it is a dtype; ``of_array=True`` says
    that a dtype given is arrays' (a promoted dtype checked for its operands)."""
    d = getattr(x_or_dtype, "_dtype", None)
    is_dtype = d is None and isinstance(x_or_dtype, np.dtype) and not of_array
    if d is None:
        d = x_or_dtype if isinstance(x_or_dtype, np.dtype) else x_or_dtype.dtype
    if d not in CATEGORIES[category]:
        raise TypeError(dtype_message(func, argname, d, category, hint, is_dtype))
    return d


def dtype_message(func: str, argname: str, d, category: str, hint: str = "",
                  is_dtype: builtins.bool = False) -> str:
    """:func:`check_dtype`'s message, for callers that raise it themselves."""
    allowed = ", ".join(x.name for x in ALL if x in CATEGORIES[category])
    article = "an" if category[0] in "aeiou" else "a"
    verb = "be" if is_dtype else "have"
    return (f"{func}: '{argname}' must {verb} {article} {category} dtype, got {d}; "
            f"allowed: {allowed}" + (f"; {hint}" if hint else ""))


def isdtype(dtype, kind) -> builtins.bool:
    """Whether ``dtype`` is of ``kind``: a kind name ('bool', 'signed integer', 'unsigned
    integer', 'integral', 'real floating', 'complex floating', 'numeric'), a dtype (then the
    dtypes are compared: ``isdtype(d, xp.float32)`` is ``d == xp.float32``), or a tuple of
    those (any of them). float16 and bfloat16 count as 'real floating'."""
    dtype = normalize(dtype, "isdtype", allow_none=False)
    if isinstance(kind, tuple):
        return any(_isdtype_one(dtype, k) for k in kind)
    return _isdtype_one(dtype, kind)


def _isdtype_one(dtype, kind):
    if type(kind) is str:
        if kind in ISDTYPE_KINDS:
            return dtype in CATEGORIES[kind]
        try:  # a dtype's name or another spelling np.dtype() takes ("float32", "f4")
            return dtype is normalize(kind, "isdtype", "kind", allow_none=False)
        except TypeError:
            raise ValueError(f"isdtype: 'kind' {kind!r} is not a kind; allowed: "
                             f"{', '.join(map(repr, ISDTYPE_KINDS))}, a dtype, or a tuple of "
                             f"those") from None
    try:
        return dtype is normalize(kind, "isdtype", "kind", allow_none=False)
    except TypeError:
        raise TypeError(f"isdtype: 'kind' must be a kind name "
                        f"({', '.join(map(repr, ISDTYPE_KINDS))}), a dtype, or a tuple of "
                        f"those, got {kind!r}") from None


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
    if KIND[a] == "b":
        return b
    if KIND[b] == "b":
        return a
    if KIND[a] in "fc":
        a, b = b, a
    if KIND[a] in "iu" and KIND[b] in "fc":
        f = _INT_TO_FLOAT[BITS[a]]
        if b is bfloat16 and BITS[a] == 8:
            return bfloat16
        return _lub(f, b)
    return None  # int64 with uint64: no dtype holds both


PROMOTION = {}
for _a in ALL:
    for _b in ALL:
        _r = _lub(_a, _b) if (KIND[_a] == "b") == (KIND[_b] == "b") else None
        if _r is None:
            _r = _cross_kind(_a, _b)
        if _r is not None:
            PROMOTION[_a, _b] = _r


def promote(a, b, func=""):
    """The promoted dtype of two dtypes; TypeError (naming ``func``) when no dtype holds
    both."""
    try:
        return PROMOTION[a, b]
    except KeyError:
        where = f"{func}: " if func else ""
        raise TypeError(f"{where}no type promotion between {a} and {b}: no flexarray dtype "
                        f"holds every value of both; cast one with astype()") from None


def scalar_dtype(value, other=None):
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
    k = KIND[other]
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


def result_type(*arrays_and_dtypes, func="result_type"):
    """The dtype from applying type promotion to arrays, dtypes and Python scalars."""
    dtypes, scalars, numpy_scalars = [], [], []
    for a in arrays_and_dtypes:
        if isinstance(a, np.generic) and a.dtype in _BY_NP:
            numpy_scalars.append(_BY_NP[a.dtype])
            scalars.append(a.item())  # NumPy scalars count as the Python scalars they hold
        elif isinstance(a, (builtins.bool, int, float, complex)):
            scalars.append(a)
        elif isinstance(getattr(a, "dtype", None), np.dtype) and a.dtype in _BY_NP and \
                not isinstance(a, (np.dtype, np.generic, type)):
            dtypes.append(_BY_NP[a.dtype])  # an array (flexarray's, or one with a NumPy dtype)
        elif isinstance(a, (np.dtype, str, type)):  # a dtype (TypeError if not a supported one)
            dtypes.append(normalize(a, "result_type", "arrays_and_dtypes", allow_none=False))
        else:
            dt = getattr(a, "dtype", None)
            what = type(a).__name__ + (f" of unsupported dtype {dt}"
                                       if isinstance(dt, np.dtype) else "")
            raise TypeError(f"result_type: 'arrays_and_dtypes' must be arrays, dtypes or "
                            f"Python scalars (bool, int, float, complex), got {what}")
    if not dtypes and numpy_scalars:  # NumPy scalars alone: their dtypes, as NumPy's
        dtypes = numpy_scalars
        scalars = [a for a in arrays_and_dtypes if not isinstance(a, np.generic)]
    if not dtypes:
        raise ValueError("result_type: at least one array or dtype is required; "
                         "Python scalars alone have no dtype")
    r = dtypes[0]
    for d in dtypes[1:]:
        r = promote(r, d, func)
    for s in scalars:
        r = promote(r, scalar_dtype(s, r), func)
    return r


def scalar_operand(name, value, dt):
    """A Python scalar as a NumPy operand of dtype ``dt`` (OverflowError if it cannot be)."""
    if KIND[dt] in "iu" and type(value) is int:
        info = np.iinfo(dt)
        if not info.min <= value <= info.max:
            raise OverflowError(f"{name}: the Python int {value} is out of range for {dt} "
                                f"[{info.min}, {info.max}]")
    elif type(value) is int and KIND[dt] in "fc":  # (ml_dtypes takes no Python int)
        try:
            value = float(value)
        except OverflowError:
            raise OverflowError(f"{name}: the Python int {value} is beyond the range of "
                                f"{dt}") from None
    return np.asarray(value, dtype=dt)[()]


def check_complex_cast(src, dst, func):
    """TypeError when casting ``src`` (a NumPy dtype) to flexarray dtype ``dst`` would drop
    imaginary parts (NumPy only warns)."""
    if src.kind == "c" and KIND[dst] != "c":
        raise TypeError(f"{func}: casting complex {src} to {dst} would drop the imaginary "
                        f"part; cast real(x) or imag(x) instead")


# --- casting rules (can_cast) ----------------------------------------------------------------

def can_cast(from_, to) -> builtins.bool:
    """Whether ``from_`` casts to ``to`` by the promotion rules (no loss of kind or range)."""
    return PROMOTION.get((from_, to)) is to


# --- finfo / iinfo -------------------------------------------------------------------------

class finfo_object:
    """Machine limits of a floating-point dtype (fields as the standard names them)."""

    __slots__ = ("bits", "eps", "max", "min", "smallest_normal", "dtype")

    def __init__(self, d):
        real = {complex64: float32, complex128: float64}.get(d, d)
        info = ml_dtypes.finfo(real)
        self.bits, self.dtype = info.bits, real
        self.eps, self.max = float(info.eps), float(info.max)
        self.min, self.smallest_normal = float(info.min), float(info.smallest_normal)

    def __repr__(self):
        return (f"finfo(bits={self.bits}, eps={self.eps}, max={self.max}, min={self.min}, "
                f"smallest_normal={self.smallest_normal}, dtype={self.dtype})")


class iinfo_object:
    """Machine limits of an integer dtype."""

    __slots__ = ("bits", "max", "min", "dtype")

    def __init__(self, d):
        info = np.iinfo(d)
        self.bits, self.max, self.min, self.dtype = info.bits, int(info.max), int(info.min), d

    def __repr__(self):
        return f"iinfo(bits={self.bits}, max={self.max}, min={self.min}, dtype={self.dtype})"


# --- bfloat16 through DLPack -------------------------------------------------------------------
#
# DLPack has a bfloat16 code (kDLBfloat, 16 bits), which torch exchanges; NumPy's own DLPack
# refuses ml_dtypes' dtypes both ways. Export: NumPy's capsule of the memory viewed as uint16
# with its dtype code changed to kDLBfloat. Import: the producer's capsule with kDLBfloat
# changed to kDLUInt, read by NumPy as uint16, viewed as bfloat16. The capsule's layout is
# DLPack's ABI: DLTensor {void *data; DLDevice device (2 x int32); int32 ndim; DLDataType
# dtype {uint8 code; uint8 bits; uint16 lanes}; ...}, the dtype at byte 20; in a
# "dltensor" capsule the DLTensor comes first, in a "dltensor_versioned" one after
# {DLPackVersion (2 x uint32); void *manager_ctx; void *deleter; uint64 flags}, 32 bytes.

_DL_UINT, _DL_BFLOAT = 1, 4
_DL_DTYPE_AT = {b"dltensor": 20, b"dltensor_versioned": 32 + 20}


def _dlpack_dtype_field(capsule):
    """The address of the DLDataType of an unconsumed DLPack capsule, or None."""
    import ctypes
    get_name = ctypes.PYFUNCTYPE(ctypes.c_char_p, ctypes.py_object)(
        ("PyCapsule_GetName", ctypes.pythonapi))
    get_pointer = ctypes.PYFUNCTYPE(ctypes.c_void_p, ctypes.py_object, ctypes.c_char_p)(
        ("PyCapsule_GetPointer", ctypes.pythonapi))
    name = get_name(capsule)
    if name not in _DL_DTYPE_AT:
        return None
    return get_pointer(capsule, name) + _DL_DTYPE_AT[name]


def _recode(capsule, old: int, new: int) -> bool:
    """Change a 16-bit, one-lane DLPack dtype code ``old`` to ``new`` in place."""
    import ctypes
    at = _dlpack_dtype_field(capsule)
    if at is None:
        return False
    code = ctypes.c_uint8.from_address(at)
    if code.value != old or ctypes.c_uint8.from_address(at + 1).value != 16 or \
            ctypes.c_uint16.from_address(at + 2).value != 1:
        return False
    code.value = new
    return True


def bfloat16_dlpack(nd: np.ndarray, max_version=None, copy=None):
    """A DLPack capsule (kDLBfloat, 16 bits) of the bfloat16 NumPy array ``nd``'s memory."""
    capsule = nd.view(np.uint16).__dlpack__(max_version=max_version, copy=copy)
    _recode(capsule, _DL_UINT, _DL_BFLOAT)
    return capsule


class _Recoded:
    """A DLPack producer that hands out one given capsule (for ``np.from_dlpack``)."""

    def __init__(self, capsule, device):
        self.capsule, self.device = capsule, device

    def __dlpack__(self, **kwargs):
        return self.capsule

    def __dlpack_device__(self):
        return self.device


def bfloat16_from_dlpack(x):
    """``x``'s memory as a bfloat16 NumPy array if ``x`` exports DLPack's bfloat16, else
    None (the caller keeps NumPy's own error)."""
    try:
        capsule = x.__dlpack__(max_version=(1, 0))
    except TypeError:  # a producer of DLPack before 1.0 (no max_version)
        capsule = x.__dlpack__()
    if not _recode(capsule, _DL_BFLOAT, _DL_UINT):
        return None
    return np.from_dlpack(_Recoded(capsule, x.__dlpack_device__())).view(bfloat16)
