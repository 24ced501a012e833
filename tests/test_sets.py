"""Set functions against plain-Python set semantics (value equality: each NaN distinct,
-0.0 == +0.0), over random dtypes and layouts."""
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import flexarray as xp
from helpers.strategies import std_kind, ALL_DTYPES, arrays, assert_bits, fx, to_np


def py_values(a):
    """Elements of NumPy ``a`` (flattened, row-major) as exact Python numbers."""
    a = np.asarray(a)
    if a.dtype == xp.bfloat16:
        a = a.astype(np.float32)
    return a.reshape(-1).tolist()


def is_nan(v):
    return v != v


def check_unique(x, ref, values, indices=None, inverse=None, counts=None):
    flat = py_values(ref)
    got = py_values(to_np(values))
    assert values.dtype is x.dtype and values.ndim == 1
    # every non-NaN value once, every NaN element its own entry
    distinct = {v for v in flat if not is_nan(v)}
    assert sum(not is_nan(v) for v in got) == len(distinct)
    assert {v for v in got if not is_nan(v)} == distinct
    assert sum(is_nan(v) for v in got) == sum(is_nan(v) for v in flat)
    if std_kind(x.dtype) in "biuf":  # ascending, NaN last
        keys = [(1, 0) if is_nan(v) else (0, v) for v in got]
        assert keys == sorted(keys)
    if indices is not None:
        assert indices.dtype is xp.int64 and indices.shape == values.shape
        for k, i in enumerate(to_np(indices).tolist()):
            v = got[k]
            if is_nan(v):
                assert is_nan(flat[i])
            else:  # the first occurrence, and bit for bit its element
                assert flat.index(v) == i
                assert_bits(values[k], ref.reshape(-1)[i])
    if counts is not None:
        assert counts.dtype is xp.int64 and counts.shape == values.shape
        for v, c in zip(got, to_np(counts).tolist()):
            assert c == (1 if is_nan(v) else sum(e == v for e in flat))
    if inverse is not None:
        assert inverse.dtype is xp.int64 and inverse.shape == x.shape
        inv = to_np(inverse).reshape(-1).tolist()
        nan_slots = [inv[j] for j, e in enumerate(flat) if is_nan(e)]
        assert len(set(nan_slots)) == len(nan_slots)
        for e, k in zip(flat, inv):
            assert (is_nan(got[k]) and is_nan(e)) or got[k] == e


@settings(max_examples=70)
@given(data=st.data())
def test_unique_functions(data):
    x, ref = data.draw(arrays(dtypes=ALL_DTYPES, max_dims=3, max_side=6))
    check_unique(x, ref, xp.unique_values(x))
    r = xp.unique_counts(x)
    assert r._fields == ("values", "counts")
    check_unique(x, ref, r.values, counts=r.counts)
    r = xp.unique_inverse(x)
    assert r._fields == ("values", "inverse_indices")
    check_unique(x, ref, r.values, inverse=r.inverse_indices)
    r = xp.unique_all(x)
    assert r._fields == ("values", "indices", "inverse_indices", "counts")
    check_unique(x, ref, r.values, indices=r.indices, inverse=r.inverse_indices,
                 counts=r.counts)


def test_unique_nan_and_signed_zero():
    x = fx(np.array([[np.nan, -0.0, 1.0], [0.0, np.nan, 1.0]]))
    r = xp.unique_all(x)
    assert_bits(r.values, np.array([-0.0, 1.0, np.nan, np.nan]))
    assert_bits(r.indices, np.array([1, 2, 0, 4]))
    assert_bits(r.inverse_indices, np.array([[2, 0, 1], [0, 3, 1]]))
    assert_bits(r.counts, np.array([2, 2, 1, 1]))
    c = xp.unique_counts(fx(np.array([complex(np.nan, 0), 1j, complex(0, np.nan), 1j])))
    assert to_np(c.counts).tolist().count(2) == 1 and c.values.shape == (3,)


ISIN_PAIRS = [(d, d) for d in ALL_DTYPES] + [
    (xp.int8, xp.int16), (xp.uint8, xp.int16), (xp.float32, xp.float64), (xp.int16, xp.float32),
    (xp.int64, xp.uint64), (xp.uint64, xp.int64), (xp.complex64, xp.float32),
    (xp.bfloat16, xp.float16)]


@settings(max_examples=80)
@given(data=st.data(), invert=st.booleans())
def test_isin(data, invert):
    d1, d2 = data.draw(st.sampled_from(ISIN_PAIRS))
    scalar = data.draw(st.sampled_from([None, 1, 2])) if std_kind(d1) in "iu" else None
    if scalar == 1:
        v = data.draw(st.integers(-2**64, 2**64))
        x1, a1 = v, [v]
        x2, r2 = data.draw(arrays(dtypes=[d1], max_dims=2))
        a2 = py_values(r2)
    else:
        x1, r1 = data.draw(arrays(dtypes=[d1], max_dims=3))
        a1 = py_values(r1)
        if scalar == 2:
            v = data.draw(st.integers(-300, 300))
            x2, a2 = v, [v]
        else:
            x2, r2 = data.draw(arrays(dtypes=[d2], max_dims=2))
            a2 = py_values(r2)
    r = xp.isin(x1, x2, invert=invert) if invert or data.draw(st.booleans()) else xp.isin(x1, x2)
    expected = [any(e == f for f in a2) != invert for e in a1]  # NaN == anything is False
    shape = x1.shape if isinstance(x1, xp.Array) else ()
    assert_bits(r, np.array(expected, np.bool_).reshape(shape))


f3 = fx(np.array([1.0, 2.0, 3.0]))

BAD = [
    (lambda: xp.unique_values([1, 2]), TypeError, r"unique_values: 'x' must be a flexarray "
     r"array, got list"),
    (lambda: xp.unique_all(np.zeros(2)), TypeError, r"unique_all: 'x' must be a flexarray array"),
    (lambda: xp.unique_counts(3), TypeError, r"unique_counts: 'x' must be a flexarray array"),
    (lambda: xp.unique_inverse(None), TypeError, r"unique_inverse: 'x' must be a flexarray"),
    (lambda: xp.isin(1, 2), TypeError, r"isin: at least one of 'x1', 'x2' must be a flexarray "
     r"array"),
    (lambda: xp.isin(f3, 1.5), TypeError, r"isin: 'x2' must be a flexarray array or a Python "
     r"int, got float"),
    (lambda: xp.isin([1], f3), TypeError, r"isin: 'x1' must be a flexarray array or a Python "
     r"int, got list"),
    (lambda: xp.isin(f3, f3, invert=1), TypeError, r"isin: 'invert' must be a bool, got int"),
]


@pytest.mark.parametrize("call,exc,message", BAD, ids=[re.sub(r"\W+", "_", m[:40]) for *_, m
                                                        in BAD])
def test_bad_input(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "uint64", "bool",
                                   "float64", "float32", "float16", "bfloat16"])
@pytest.mark.parametrize("spread", ["narrow", "wide"])
def test_unique_on_both_sides_of_the_counting_gate(dtype, spread, monkeypatch):
    """Counting (small-range integers, _kernels.sort.counting) and sorting engines against
    NumPy's np.unique (NaNs each their own value), on both sides of
    gates.UNIQUE_COUNTING_MIN and of the range rule; the engine that ran is checked
    through the kernel module."""
    from flexarray._engines import gates
    from flexarray._kernels.sort import counting
    rng = np.random.default_rng(11)
    calls = []
    real = counting.dense
    monkeypatch.setattr(counting, "dense", lambda *a: calls.append(1) or real(*a))
    for n in (gates.UNIQUE_COUNTING_MIN - 1, gates.UNIQUE_COUNTING_MIN, 3001):
        if dtype == "bool":
            ref = rng.random(n) < 0.3
        elif spread == "narrow":
            ref = rng.integers(-3, 9, n)
        else:
            ref = rng.integers(-10**6, 10**6, n) if dtype not in ("int8", "uint8") else \
                rng.integers(0, 2, n) * 100
        ref = ref.astype(getattr(xp, dtype))
        if dtype == "uint64":
            ref = ref + np.uint64(2**63)  # values above int64's range: exact differences
        if ref.dtype.kind == "f" or dtype == "bfloat16":
            ref[::17] = np.nan
            ref[1::13] = -0.0
            ref[5::11] = 0.0
        ref = ref.reshape(3, -1) if n % 3 == 0 else ref
        calls.clear()
        r = xp.unique_all(fx(ref))
        wide = ref.astype(np.float32) if dtype == "bfloat16" else ref
        v, i, inv, c = np.unique(wide.reshape(-1), return_index=True, return_inverse=True,
                                 return_counts=True, equal_nan=False)
        assert_bits(r.indices, i)
        assert_bits(r.inverse_indices, inv.reshape(ref.shape))
        assert_bits(r.counts, c)
        assert_bits(r.values, ref.reshape(-1)[i])  # each value as its first occurrence
        u = xp.unique_counts(fx(ref))
        assert_bits(u.counts, c)
        assert_bits(xp.unique_inverse(fx(ref)).inverse_indices, inv.reshape(ref.shape))
        np.testing.assert_array_equal(to_np(xp.unique_values(fx(ref))).astype(wide.dtype), v)
        counted = (dtype in ("int8", "uint8", "int32", "int64", "uint64", "bool")
                   and n >= gates.UNIQUE_COUNTING_MIN and (spread == "narrow" or dtype == "bool"
                                                    or dtype in ("int8", "uint8")))
        assert bool(calls) == counted, (n, calls)
        if ref.dtype.kind == "f" or dtype == "bfloat16":  # the first zero's sign
            flat = wide.reshape(-1)
            first = np.signbit(flat[flat == 0][0])
            for got in (u.values, xp.unique_inverse(fx(ref)).values, xp.unique_values(fx(ref))):
                g = to_np(got).astype(np.float32)
                assert np.signbit(g[g == 0]).tolist() == [first]
