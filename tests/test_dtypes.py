"""Dtypes and type promotion, checked against the standard's tables (transcribed from
spec/2025.12/API_specification/type_promotion.rst), and the data type functions."""
import itertools
import re
import sys

import ml_dtypes
import numpy as np
import pytest

import flexarray as xp

ABBREV = {"b": xp.bool, "i1": xp.int8, "i2": xp.int16, "i4": xp.int32, "i8": xp.int64,
          "u1": xp.uint8, "u2": xp.uint16, "u4": xp.uint32, "u8": xp.uint64,
          "f4": xp.float32, "f8": xp.float64, "c8": xp.complex64, "c16": xp.complex128}

# The standard's promotion tables, row dtype with column dtype.
SPEC_TABLES = """
|        | i1 | i2 | i4 | i8 |
| **i1** | i1 | i2 | i4 | i8 |
| **i2** | i2 | i2 | i4 | i8 |
| **i4** | i4 | i4 | i4 | i8 |
| **i8** | i8 | i8 | i8 | i8 |

|        | u1 | u2 | u4 | u8 |
| **u1** | u1 | u2 | u4 | u8 |
| **u2** | u2 | u2 | u4 | u8 |
| **u4** | u4 | u4 | u4 | u8 |
| **u8** | u8 | u8 | u8 | u8 |

|        | u1 | u2 | u4 |
| **i1** | i2 | i4 | i8 |
| **i2** | i2 | i4 | i8 |
| **i4** | i4 | i4 | i8 |
| **i8** | i8 | i8 | i8 |

|         |  f4 |  f8 |  c8 | c16 |
| **f4**  |  f4 |  f8 |  c8 | c16 |
| **f8**  |  f8 |  f8 | c16 | c16 |
| **c8**  |  c8 | c16 |  c8 | c16 |
| **c16** | c16 | c16 | c16 | c16 |
"""


def spec_pairs():
    pairs = {("b", "b"): "b"}
    for block in SPEC_TABLES.strip().split("\n\n"):
        rows = [[c.strip(" *") for c in line.strip().strip("|").split("|")]
                for line in block.splitlines()]
        cols = rows[0][1:]
        for row in rows[1:]:
            for col, res in zip(cols, row[1:]):
                pairs[row[0], col] = res
                pairs[col, row[0]] = res
    return pairs


SPEC = spec_pairs()


@pytest.mark.parametrize("a,b", sorted(SPEC))
def test_promotion_follows_the_standard(a, b):
    expected = ABBREV[SPEC[a, b]]
    assert xp.result_type(ABBREV[a], ABBREV[b]) is expected
    x, y = xp.ones(2, dtype=ABBREV[a]), xp.ones(2, dtype=ABBREV[b])
    assert xp.result_type(x, y) is expected
    op = xp.logical_and if expected is xp.bool else xp.multiply
    assert op(x, y).dtype is expected
    assert xp.can_cast(ABBREV[a], ABBREV[b]) == (expected is ABBREV[b])


def test_unspecified_pairs_follow_numpy_unless_data_would_be_lost():
    std = [d for d in ABBREV.values()]
    for a, b in itertools.product(std, std):
        if (a.name[0], b.name[0]) in (("i", "u"), ("u", "i")) and "uint64" in (a.name, b.name):
            with pytest.raises(TypeError, match="no type promotion"):
                xp.result_type(a, b)
            continue
        r = xp.result_type(a, b)
        assert r == np.result_type(a, b), (a, b)
    assert xp.result_type(xp.float16, xp.bfloat16) is xp.float32
    assert xp.result_type(xp.int8, xp.bfloat16) is xp.bfloat16
    assert xp.result_type(xp.float16, xp.float32) is xp.float32


@pytest.mark.parametrize("scalar,dtype,expected", [
    (1, xp.int8, xp.int8), (1, xp.float32, xp.float32), (1.5, xp.float32, xp.float32),
    (1j, xp.float32, xp.complex64), (1j, xp.float64, xp.complex128), (True, xp.bool, xp.bool),
    (1.5, xp.int16, xp.float64), (2, xp.uint64, xp.uint64),
])
def test_result_type_with_python_scalars(scalar, dtype, expected):
    assert xp.result_type(dtype, scalar) is expected
    op = xp.logical_and if expected is xp.bool else xp.add
    assert op(xp.ones(1, dtype=dtype), scalar).dtype is expected


def test_dtype_objects():
    assert xp.float32 == xp.float32 and xp.float32 != xp.float64
    assert len({xp.int8, xp.int8, xp.uint8}) == 2
    assert repr(xp.bfloat16) == repr(np.dtype(ml_dtypes.bfloat16))
    assert str(xp.float64) == "float64" and repr(xp.float64) == "dtype('float64')"
    import pickle
    d = pickle.loads(pickle.dumps(xp.complex64))  # NumPy unpickles an equal dtype object
    assert d == xp.complex64 and xp.asarray([1], dtype=d).dtype is xp.complex64
    assert pickle.loads(pickle.dumps(xp.ones(2, dtype=xp.complex64))).dtype is xp.complex64
    assert xp.asarray(np.zeros(2, ml_dtypes.bfloat16)).dtype is xp.bfloat16


@pytest.mark.parametrize("kind,members", [
    ("bool", {"bool"}), ("signed integer", {"int8", "int16", "int32", "int64"}),
    ("unsigned integer", {"uint8", "uint16", "uint32", "uint64"}),
    ("real floating", {"float16", "bfloat16", "float32", "float64"}),
    ("complex floating", {"complex64", "complex128"}),
])
def test_isdtype(kind, members):
    all_dtypes = [getattr(xp, n) for n in ("bool", "int8", "int16", "int32", "int64", "uint8",
                  "uint16", "uint32", "uint64", "float16", "bfloat16", "float32", "float64",
                  "complex64", "complex128")]
    assert {d.name for d in all_dtypes if xp.isdtype(d, kind)} == members
    assert xp.isdtype(xp.int8, ("bool", xp.int8))
    with pytest.raises(ValueError, match="isdtype: 'kind' 'floaty' is not a kind"):
        xp.isdtype(xp.int8, "floaty")


def test_dtype_categories_are_one_table():
    """isdtype's kinds are the table's; the unions are the union of their parts; isdtype
    takes only the standard's kind names (the table's other rows are for checks)."""
    from flexarray import _dtypes
    cats = _dtypes.CATEGORIES
    for kind in _dtypes.ISDTYPE_KINDS:
        assert cats[kind] == {d for d in _dtypes.ALL if xp.isdtype(d, kind)}
    assert cats["integral"] == cats["signed integer"] | cats["unsigned integer"]
    assert cats["floating-point"] == cats["real floating"] | cats["complex floating"]
    assert cats["numeric"] == cats["integral"] | cats["floating-point"]
    assert cats["real numeric"] == cats["integral"] | cats["real floating"]
    assert cats["integral or bool"] == cats["integral"] | cats["bool"]
    assert cats["real numeric or bool"] == cats["real numeric"] | cats["bool"]
    assert cats["real floating or bool"] == cats["real floating"] | cats["bool"]
    assert cats["numeric or bool"] == set(_dtypes.ALL)
    with pytest.raises(ValueError, match="not a kind"):
        xp.isdtype(xp.int8, "real numeric")


def test_check_dtype_names_function_argument_dtype_and_category():
    from flexarray._dtypes import check_dtype
    x = xp.asarray([1, 2], dtype=xp.int32)
    assert check_dtype("f", "x", x, "integral") is xp.int32
    assert check_dtype("f", "x", xp.bfloat16, "real floating") is xp.bfloat16
    assert check_dtype("f", "x", np.zeros(2, np.float32), "real floating") is xp.float32
    with pytest.raises(TypeError, match=r"^fft\.rfft: 'x' must have a real floating dtype, got "
                                        r"int32; allowed: float16, bfloat16, float32, "
                                        r"float64; cast it$"):
        check_dtype("fft.rfft", "x", x, "real floating", "cast it")
    with pytest.raises(TypeError, match=r"^f: 'y' must be an integral dtype, got float64; "
                                        r"allowed: int8, int16, int32, int64, uint8, uint16, "
                                        r"uint32, uint64$"):
        check_dtype("f", "y", xp.float64, "integral")


def test_finfo_iinfo_against_numpy():
    for d in (xp.float32, xp.float64, xp.complex64, xp.complex128):
        f, n = xp.finfo(d), np.finfo(d)
        assert (f.bits, f.eps, f.max, f.min, f.smallest_normal) == (
            n.bits, float(n.eps), float(n.max), float(n.min), float(n.smallest_normal))
    assert xp.finfo(xp.bfloat16).eps == float(ml_dtypes.finfo(ml_dtypes.bfloat16).eps)
    for d in (xp.int8, xp.uint64, xp.int64):
        i, n = xp.iinfo(d), np.iinfo(d)
        assert (i.bits, i.min, i.max, i.dtype) == (n.bits, n.min, n.max, d)
    with pytest.raises(TypeError, match="finfo: 'type' must be a floating-point dtype, got "
                                        "int8; allowed: float16, .*; use iinfo"):
        xp.finfo(xp.int8)
    with pytest.raises(TypeError, match="iinfo: 'type' must be an integral dtype, got "
                                        "float32; allowed: int8, .*; use finfo"):
        xp.iinfo(xp.float32)


def test_astype():
    x = xp.asarray([1.7, -2.5, 0.0])
    np.testing.assert_array_equal(np.asarray(xp.astype(x, xp.int32)),
                                  np.array([1.7, -2.5, 0.0]).astype(np.int32))
    assert xp.astype(x, xp.float64, copy=False) is x
    y = xp.astype(x, xp.float64)
    y[0] = 9.0
    assert float(x[0]) == 1.7
    with pytest.raises(TypeError, match="drop the imaginary part"):
        xp.astype(xp.asarray([1j]), xp.float64)
    assert xp.astype(x, "float32").dtype is xp.float32  # any spelling np.dtype() takes
    with pytest.raises(TypeError, match="astype: 'dtype' must be a supported dtype, got "
                                        "'float128'"):
        xp.astype(x, "float128")


def test_namespace_info():
    info = xp.__array_namespace_info__()
    assert info.capabilities() == {"boolean indexing": True, "data-dependent shapes": True,
                                   "max dimensions": 64}
    assert info.default_dtypes() == {"real floating": xp.float64,
                                     "complex floating": xp.complex128,
                                     "integral": xp.int64, "indexing": xp.int64}
    assert set(info.dtypes(kind="integral")) == {"int8", "int16", "int32", "int64", "uint8",
                                                 "uint16", "uint32", "uint64"}
    assert info.devices() == (info.default_device(),)  # 2025.12: a tuple (a list before)
    with pytest.raises(ValueError, match="device"):
        info.dtypes(device="gpu")


# --- the dtype objects are NumPy's ----------------------------------------------------------
# NumPy (with ml_dtypes for bfloat16) is the reference throughout: ``np.dtype(spelling)`` is
# what a spelling means, NumPy's own functions say what a dtype is.

NAMES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
         "float16", "float32", "float64", "complex64", "complex128"]
BF16 = np.dtype(ml_dtypes.bfloat16)


@pytest.mark.parametrize("name", NAMES)
def test_dtypes_are_the_numpy_singletons(name):
    d = getattr(xp, name)
    assert d is np.dtype(name) is np.dtype(getattr(np, name if name != "bool" else "bool_"))
    assert isinstance(d, np.dtype) and np.dtype(d) is d
    assert d.name == np.dtype(name).name == name
    assert d.kind == np.dtype(name).kind


def test_bfloat16_is_ml_dtypes():
    assert xp.bfloat16 is BF16 and np.dtype(xp.bfloat16) is BF16
    assert xp.bfloat16.name == "bfloat16" and xp.bfloat16.itemsize == 2
    assert xp.bfloat16.kind == BF16.kind  # NumPy says "V"; flexarray still treats it as a float
    assert xp.isdtype(xp.bfloat16, "real floating") and xp.isdtype(xp.bfloat16, "numeric")
    assert not xp.isdtype(xp.bfloat16, ("integral", "complex floating", "bool"))


def test_numpy_functions_take_flexarray_dtypes():
    for name in ("float16", "float32", "float64", "complex64", "complex128"):
        got, ref = np.finfo(getattr(xp, name)), np.finfo(np.dtype(name))
        assert (got.eps, got.max, got.bits, got.dtype) == (ref.eps, ref.max, ref.bits, ref.dtype)
    for name in ("int8", "uint16", "int64", "uint64"):
        got, ref = np.iinfo(getattr(xp, name)), np.iinfo(np.dtype(name))
        assert (got.min, got.max, got.bits) == (ref.min, ref.max, ref.bits)
    assert ml_dtypes.finfo(xp.bfloat16).eps == ml_dtypes.finfo(ml_dtypes.bfloat16).eps
    assert np.zeros(2, xp.int16).dtype == np.int16
    assert np.result_type(xp.int8, xp.float32) == np.result_type(np.int8, np.float32)


def _np_reference_arrays():
    """NumPy arrays of every supported dtype, some with a non-canonical but equal dtype."""
    out = [np.ones(3, np.dtype(n)) for n in NAMES] + [np.ones(3, BF16)]
    out.append(np.ones(3, np.dtype("q")))  # long long: equal to int64, another object
    out.append(np.ones(3, np.dtype("f8").newbyteorder("=")))
    return out


@pytest.mark.parametrize("ref", _np_reference_arrays(), ids=lambda a: a.dtype.str)
def test_array_dtypes_are_the_canonical_objects(ref):
    x = xp.asarray(ref)
    assert isinstance(x.dtype, np.dtype) and x.dtype == ref.dtype
    assert x.dtype is getattr(xp, ref.dtype.name)  # one object per dtype: `is` works
    assert x.dtype.kind == ref.dtype.kind
    assert np.asarray(x).dtype == ref.dtype
    for y in (x[1:], xp.asarray(ref, copy=True), xp.astype(x, x.dtype), xp.zeros_like(x)):
        assert y.dtype is x.dtype


def test_the_kind_of_an_array_dtype_is_numpys():
    for values in ([1.0], [1], [True], [1j]):
        assert xp.asarray(values).dtype.kind == np.asarray(values).dtype.kind


# Every spelling np.dtype() takes for a supported dtype; np.dtype(spelling) is the reference.
SPELLINGS = [
    xp.float32, np.float32, np.dtype(np.float32), "float32", "f4", "=f4", "single",
    ("<" if sys.byteorder == "little" else ">") + "f8", "d", float, int, complex, bool,
    "int64", "i8", "q", np.longlong, "long", np.intc, "i2", "uint16", "u2", np.ubyte, "?",
    "bool", "c8", "complex64", "F", np.complex128, "e", np.half, "float16",
    "bfloat16", ml_dtypes.bfloat16, BF16,
]


def _ones_of(dtype):
    """A Python scalar 1 of the kind of NumPy ``dtype`` (True, 1, 1.0 or 1+0j)."""
    return np.ones((), np.dtype(dtype)).item()


def _numeric(ref):
    return ref != np.dtype(bool)


def _real(ref):
    return ref.kind != "c"


SPELLING_CALLS = {
    "asarray": (lambda s: xp.asarray([0, 1], dtype=s), None),
    "asarray(ndarray)": (lambda s: xp.asarray(np.zeros(2, np.int8), dtype=s), None),
    "zeros": (lambda s: xp.zeros(2, dtype=s), None),
    "ones": (lambda s: xp.ones((2, 1), dtype=s), None),
    "empty": (lambda s: xp.empty(2, dtype=s), None),
    "full": (lambda s: xp.full(2, _ones_of(s), dtype=s), None),
    "zeros_like": (lambda s: xp.zeros_like(xp.ones(2), dtype=s), None),
    "ones_like": (lambda s: xp.ones_like(xp.ones(2), dtype=s), None),
    "empty_like": (lambda s: xp.empty_like(xp.ones(2), dtype=s), None),
    "full_like": (lambda s: xp.full_like(xp.ones(2), _ones_of(s), dtype=s), None),
    "eye": (lambda s: xp.eye(2, dtype=s), None),
    "arange": (lambda s: xp.arange(3, dtype=s), lambda r: _numeric(r) and _real(r)),
    "linspace": (lambda s: xp.linspace(0, 1, 3, dtype=s), _numeric),
    "astype": (lambda s: xp.astype(xp.asarray([0, 1], dtype=xp.int8), s), None),
    "sum": (lambda s: xp.sum(xp.asarray([True, False]), dtype=s), _numeric),
    "prod": (lambda s: xp.prod(xp.asarray([True, False]), dtype=s), _numeric),
    "cumulative_sum": (lambda s: xp.cumulative_sum(xp.asarray([True]), dtype=s), _numeric),
    "cumulative_prod": (lambda s: xp.cumulative_prod(xp.asarray([True]), dtype=s), _numeric),
    "linalg.trace": (lambda s: xp.linalg.trace(xp.ones((2, 2), dtype=xp.int8), dtype=s),
                     _numeric),
    "fft.fftfreq": (lambda s: xp.fft.fftfreq(4, dtype=s),
                    lambda r: r in (np.float32, np.float64)),
    "fft.rfftfreq": (lambda s: xp.fft.rfftfreq(4, dtype=s),
                     lambda r: r in (np.float32, np.float64)),
}


@pytest.mark.parametrize("call", sorted(SPELLING_CALLS))
@pytest.mark.parametrize("spelling", SPELLINGS, ids=repr)
def test_every_spelling_of_dtype_gives_the_numpy_dtype(call, spelling):
    make, applies = SPELLING_CALLS[call]
    ref = np.dtype(spelling)  # what NumPy makes of the spelling
    if applies is not None and not applies(ref):
        return
    r = make(spelling)
    assert r.dtype == ref, (r.dtype, ref)
    assert r.dtype is getattr(xp, ref.name)  # the canonical object, whatever the spelling


@pytest.mark.parametrize("spelling", SPELLINGS, ids=repr)
def test_data_type_functions_take_every_spelling(spelling):
    ref = np.dtype(spelling)
    canon = getattr(xp, ref.name)
    assert xp.isdtype(spelling, canon) and xp.isdtype(canon, spelling)
    assert xp.isdtype(spelling, ref.name)
    assert xp.result_type(spelling) is canon
    assert xp.result_type(spelling, canon) is canon
    assert xp.can_cast(spelling, spelling) and xp.can_cast(canon, spelling)
    info = xp.__array_namespace_info__()
    assert info.dtypes(kind=spelling) == {ref.name: canon}
    if ref.kind in "iu":
        got, want = xp.iinfo(spelling), np.iinfo(ref)
        assert (got.bits, got.min, got.max, got.dtype) == (want.bits, want.min, want.max, canon)
    elif ref.kind in "fc" or ref == BF16:
        got, want = xp.finfo(spelling), ml_dtypes.finfo(ref if ref.kind != "c" else
                                                        np.empty((), ref).real.dtype)
        assert (got.bits, got.eps, got.max) == (want.bits, float(want.eps), float(want.max))
        assert isinstance(got.dtype, np.dtype) and got.dtype == want.dtype


def test_data_type_functions_against_numpy():
    for a, b in (("i1", "int16"), (np.int16, "i1"), ("f4", np.float64), (float, "f4"),
                 ("u1", np.int16), (np.uint16, "int16")):
        assert xp.can_cast(a, b) == np.can_cast(a, b, "safe"), (a, b)
    for args, np_args in (((np.float32, "i1", 1.0), (np.float32, np.int8, 1.0)),
                          (("u1", "i1"), (np.uint8, np.int8)),
                          ((xp.ones(2, dtype="f4"), 1j), (np.float32, 1j)),
                          ((np.int8, np.float16), (np.int8, np.float16)),
                          ((float, "f4"), (np.float64, np.float32))):
        assert xp.result_type(*args) == np.result_type(*np_args), args
    assert xp.result_type(xp.ones(2, dtype=xp.int8), np.int16(3)) is xp.int8  # as a Python int
    assert xp.isdtype(xp.float32, np.float32) and not xp.isdtype(xp.float32, xp.float64)
    assert xp.isdtype(xp.int8, ("real floating", "i1")) and not xp.isdtype(xp.int8, ("f4",))
    f = xp.finfo(xp.complex64)
    assert f.dtype is xp.float32 and f.eps == float(np.finfo(np.complex64).eps)
    assert xp.finfo(xp.ones(1, dtype=np.float32)).dtype is xp.float32


# Unsupported dtypes and non-dtypes: a TypeError naming the function and the argument.
UNSUPPORTED = [object, "U3", "S2", "M8[s]", "m8[s]", "V2", "i8,i8", "O", str, bytes]
if np.dtype(np.longdouble).itemsize > 8:  # longdouble is float64 on some platforms
    UNSUPPORTED += [np.longdouble, np.clongdouble, "float128" if hasattr(np, "float128")
                    else np.longdouble]
NON_NATIVE = ">f8" if sys.byteorder == "little" else "<f8"
NOT_DTYPES = ["floaty", 3, 1.5, [1], (np.float32,), xp.ones(2), np.ones(2)]

BAD_CALLS = {
    "asarray": (lambda d: xp.asarray([1], dtype=d), "dtype"),
    "zeros": (lambda d: xp.zeros(2, dtype=d), "dtype"),
    "ones": (lambda d: xp.ones(2, dtype=d), "dtype"),
    "empty": (lambda d: xp.empty(2, dtype=d), "dtype"),
    "full": (lambda d: xp.full(2, 1, dtype=d), "dtype"),
    "zeros_like": (lambda d: xp.zeros_like(xp.ones(2), dtype=d), "dtype"),
    "full_like": (lambda d: xp.full_like(xp.ones(2), 1, dtype=d), "dtype"),
    "eye": (lambda d: xp.eye(2, dtype=d), "dtype"),
    "arange": (lambda d: xp.arange(3, dtype=d), "dtype"),
    "linspace": (lambda d: xp.linspace(0, 1, 3, dtype=d), "dtype"),
    "astype": (lambda d: xp.astype(xp.ones(2), d), "dtype"),
    "sum": (lambda d: xp.sum(xp.ones(2), dtype=d), "dtype"),
    "prod": (lambda d: xp.prod(xp.ones(2), dtype=d), "dtype"),
    "cumulative_sum": (lambda d: xp.cumulative_sum(xp.ones(2), dtype=d), "dtype"),
    "trace": (lambda d: xp.linalg.trace(xp.ones((2, 2)), dtype=d), "dtype"),
    "fftfreq": (lambda d: xp.fft.fftfreq(4, dtype=d), "dtype"),
    "can_cast": (lambda d: xp.can_cast(xp.float64, d), "to"),
    "finfo": (lambda d: xp.finfo(d), "type"),
    "iinfo": (lambda d: xp.iinfo(d), "type"),
    "isdtype": (lambda d: xp.isdtype(d, "numeric"), "dtype"),
    "result_type": (lambda d: xp.result_type(xp.float64, d), "arrays_and_dtypes"),
    "dtypes": (lambda d: xp.__array_namespace_info__().dtypes(kind=d), "kind"),
}


@pytest.mark.parametrize("func", sorted(BAD_CALLS))
@pytest.mark.parametrize("bad", UNSUPPORTED + [NON_NATIVE] + NOT_DTYPES, ids=repr)
def test_unsupported_dtypes_raise_naming_the_argument(func, bad):
    call, arg = BAD_CALLS[func]
    if func == "result_type" and isinstance(bad, (int, float, np.ndarray, xp.Array)):
        return  # Python scalars and arrays take part in result_type
    if func in ("finfo", "iinfo") and isinstance(bad, xp.Array):
        return  # an array is what they take besides a dtype
    if func == "dtypes" and isinstance(bad, tuple):
        return  # a tuple of kinds
    if func == "dtypes" and isinstance(bad, str):  # a string there is a kind name
        with pytest.raises(ValueError, match=rf"dtypes: 'kind' {re.escape(repr(bad))} is "
                                             rf"not a kind; allowed: one of 'bool'"):
            call(bad)
        return
    with pytest.raises(TypeError) as info:
        call(bad)
    msg = str(info.value)
    assert msg.startswith(f"{func}: '{arg}' must"), msg
    if isinstance(bad, str) and bad == NON_NATIVE:
        assert "native byte order" in msg, msg
    elif func != "result_type" or isinstance(bad, (str, type)):
        assert "allowed: bool, int8" in msg and "float32" in msg, msg


def test_none_is_no_dtype_where_one_is_required():
    for call, arg in ((lambda: xp.astype(xp.ones(2), None), "astype: 'dtype'"),
                      (lambda: xp.can_cast(xp.int8, None), "can_cast: 'to'"),
                      (lambda: xp.isdtype(None, "numeric"), "isdtype: 'dtype'"),
                      (lambda: xp.finfo(None), "finfo: 'type'")):
        with pytest.raises(TypeError, match=f"{arg} must be a dtype.*got None"):
            call()
    with pytest.raises(ValueError, match="isdtype: 'kind' 'floaty' is not a kind"):
        xp.isdtype(xp.int8, "floaty")
    with pytest.raises(ValueError, match="dtypes: 'kind' 'floaty' is not a kind"):
        xp.__array_namespace_info__().dtypes(kind="floaty")


# --- bfloat16 ------------------------------------------------------------------------------

def test_bfloat16_promotion_and_arithmetic_against_numpy():
    # ml_dtypes registers bfloat16's promotions with NumPy: they are the reference
    for other in (np.float32, np.float64, np.complex64, np.int8, np.uint8, np.bool_):
        assert xp.result_type(xp.bfloat16, other) == np.result_type(BF16, other), other
    v = np.array([1.5, -2.25, 3.0, 1e3]).astype(BF16)
    w = np.array([0.5, 4.0, -1.0, 7.0], np.float32)
    x = xp.asarray(v)
    assert x.dtype is xp.bfloat16
    r = x * 3.5  # the scalar adopts bfloat16; computed in float32, rounded once
    assert r.dtype is xp.bfloat16
    np.testing.assert_array_equal(np.asarray(r).astype(np.float32),
                                  (v.astype(np.float32) * 3.5).astype(BF16).astype(np.float32))
    r = x + xp.asarray(w)
    assert r.dtype is xp.float32 and r.dtype == np.result_type(v, w)
    np.testing.assert_array_equal(np.asarray(r), v.astype(np.float32) + w)
    r = x + x
    assert r.dtype is xp.bfloat16
    np.testing.assert_array_equal(np.asarray(r).astype(np.float32),
                                  (v.astype(np.float32) * 2).astype(BF16).astype(np.float32))
    assert (x + ml_dtypes.bfloat16(1)).dtype is xp.bfloat16  # a NumPy scalar: a Python float
    assert xp.asarray([1.5], dtype="bfloat16").dtype is xp.bfloat16
    f = xp.finfo(xp.bfloat16)
    assert f.dtype is xp.bfloat16 and f.bits == 16
    assert f.eps == float(ml_dtypes.finfo(ml_dtypes.bfloat16).eps)


def test_namespace_info_dtypes_are_numpy_dtypes():
    info = xp.__array_namespace_info__()
    for name, d in info.dtypes().items():
        assert isinstance(d, np.dtype) and d is np.dtype(name) and d is getattr(xp, name)
    for kind, d in info.default_dtypes().items():
        assert isinstance(d, np.dtype) and d is getattr(xp, d.name), kind
    assert info.dtypes(kind=("bool", np.float32)) == {"bool": xp.bool, "float32": xp.float32}
    assert isinstance(info.devices(), tuple)  # 2025.12 changed the list to a tuple


def test_result_type_of_numpy_scalars_alone_is_numpys():
    """NumPy scalars carry a dtype: alone they promote as NumPy's result_type does (xarray
    asks ``xp.result_type(np.float64(nan))``); beside an array or dtype they still count as
    the Python scalars they hold; Python scalars alone have no dtype."""
    for args in [(np.float32(1),), (np.int8(1), np.int16(2)), (np.float32(1), 2.0),
                 (np.bool_(True),), (np.uint8(3), np.uint16(4), 5)]:
        assert xp.result_type(*args) == np.result_type(*args)
    assert xp.result_type(xp.float32, np.float64(1)) == xp.float32
    with pytest.raises(ValueError, match="at least one array or dtype"):
        xp.result_type(1.0, 2)


def test_result_type_of_one_operand_and_of_an_array_with_a_float():
    """The one-argument and array-with-float forms give the standard's dtypes (the
    canonical dtype objects), and what is not a supported dtype still raises."""
    for dt in (xp.float32, xp.float64, xp.int8, xp.bool, xp.complex64, xp.bfloat16):
        assert xp.result_type(dt) is dt
        assert xp.result_type(xp.ones(2, dtype=dt)) is dt
    for dt in (xp.float16, xp.float32, xp.float64, xp.complex64):
        assert xp.result_type(xp.ones(2, dtype=dt), 1.0) is dt
    assert xp.result_type(xp.ones(2, dtype=xp.int8), 1.0) is xp.float64
    assert xp.result_type(np.dtype("float64")) is xp.float64
    for bad in (None, np.dtype(">f8"), np.dtype("O")):
        with pytest.raises(TypeError, match="result_type"):
            xp.result_type(bad)
