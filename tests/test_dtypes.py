"""Dtypes and type promotion, checked against the standard's tables (transcribed from
spec/2025.12/API_specification/type_promotion.rst), and the data type functions."""
import itertools

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
        assert r.np == np.result_type(a.np, b.np), (a, b)
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
    assert repr(xp.bfloat16) == "flexarray.bfloat16"
    import pickle
    assert pickle.loads(pickle.dumps(xp.complex64)) is xp.complex64
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
    with pytest.raises(ValueError, match="unknown kind 'floaty'"):
        xp.isdtype(xp.int8, "floaty")


def test_finfo_iinfo_against_numpy():
    for d in (xp.float32, xp.float64, xp.complex64, xp.complex128):
        f, n = xp.finfo(d), np.finfo(d.np)
        assert (f.bits, f.eps, f.max, f.min, f.smallest_normal) == (
            n.bits, float(n.eps), float(n.max), float(n.min), float(n.smallest_normal))
    assert xp.finfo(xp.bfloat16).eps == float(ml_dtypes.finfo(ml_dtypes.bfloat16).eps)
    for d in (xp.int8, xp.uint64, xp.int64):
        i, n = xp.iinfo(d), np.iinfo(d.np)
        assert (i.bits, i.min, i.max, i.dtype) == (n.bits, n.min, n.max, d)
    with pytest.raises(TypeError, match="finfo: needs a floating-point dtype"):
        xp.finfo(xp.int8)
    with pytest.raises(TypeError, match="iinfo: needs an integer dtype"):
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
    with pytest.raises(TypeError, match="'dtype' must be a flexarray dtype"):
        xp.astype(x, "float32")


def test_namespace_info():
    info = xp.__array_namespace_info__()
    assert info.capabilities() == {"boolean indexing": True, "data-dependent shapes": True,
                                   "max dimensions": 64}
    assert info.default_dtypes() == {"real floating": xp.float64,
                                     "complex floating": xp.complex128,
                                     "integral": xp.int64, "indexing": xp.int64}
    assert set(info.dtypes(kind="integral")) == {"int8", "int16", "int32", "int64", "uint8",
                                                 "uint16", "uint32", "uint64"}
    assert info.devices() == (info.default_device(),)
    with pytest.raises(ValueError, match="device"):
        info.dtypes(device="gpu")
