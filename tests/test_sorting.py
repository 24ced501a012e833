"""sort and argsort against Python's stable ``sorted`` (NaN last), over random layouts."""
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import flexarray as xp
from helpers.strategies import REAL_DTYPES, arrays, assert_bits, fx, to_np


def python_order(values, descending):
    """Indices that sort ``values`` (Python numbers) stably, NaN last in both directions."""
    def key(i):
        v = values[i]
        if math.isnan(v):
            return (1, 0)
        return (0, -v if descending else v)  # -v: exact for Python ints and floats
    return sorted(range(len(values)), key=key)


def expected_order(ref, axis, descending):
    w = ref.astype(np.float32) if ref.dtype == xp.bfloat16 else ref
    moved = np.moveaxis(w, axis, -1)
    order = np.empty(moved.shape, np.int64)
    for pos in np.ndindex(*moved.shape[:-1]):
        order[pos] = python_order(moved[pos].tolist(), descending)
    return np.moveaxis(order, -1, axis)


@settings(max_examples=80, deadline=None)  # arrays of 512+ elements compile the ties kernels
@given(data=st.data(), descending=st.booleans(), stable=st.booleans())
def test_sort_and_argsort(data, descending, stable):
    check_sort_and_argsort(data, descending, stable)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), descending=st.booleans(), stable=st.booleans())
def test_radix_sort_kernel_on_every_layout(data, descending, stable):
    """The radix kernel (flexarray._kernels.sort.radix), forced on for short axes."""
    from flexarray._engines import gates
    saved, gates.RADIX_KERNEL_MIN = gates.RADIX_KERNEL_MIN, 1
    try:
        check_sort_and_argsort(data, descending, stable)
    finally:
        gates.RADIX_KERNEL_MIN = saved


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16", "int32",
                                   "int64", "uint32", "uint64"])
@pytest.mark.parametrize("descending", [False, True])
def test_radix_sort_of_long_rows_on_threads(dtype, descending):
    rng = np.random.default_rng(7)
    ref = (rng.standard_normal((6, 5000)) * 300).astype(getattr(xp, dtype))
    if ref.dtype.kind != "f" and dtype != "bfloat16":
        ref[1, ::3] = np.iinfo(ref.dtype).max
        ref[2, ::5] = np.iinfo(ref.dtype).min
    else:
        ref[1, ::7] = np.nan  # one row with NaN, one with -0.0, the rest plain
        ref[2, ::5] = -0.0
        ref[2, ::9] = 0.0
    ref[3] = ref[3, :40].repeat(125)  # many ties
    x = fx(ref)
    for axis in (-1, 0):
        order = expected_order(ref, axis, descending)
        assert_bits(xp.argsort(x, axis=axis, descending=descending), order)
        assert_bits(xp.sort(x, axis=axis, descending=descending),
                    np.take_along_axis(ref, order, axis=axis))


def check_sort_and_argsort(data, descending, stable):
    x, ref = data.draw(arrays(dtypes=REAL_DTYPES, min_dims=1, max_side=7))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    kw = {"axis": axis, "descending": descending, "stable": stable}
    order = expected_order(ref, axis, descending)
    expected = np.take_along_axis(ref, order, axis=axis)
    s = xp.sort(x, **kw)
    i = xp.argsort(x, **kw)
    assert i.dtype is xp.int64 and i.shape == x.shape
    if stable:
        assert_bits(i, order)
        assert_bits(s, expected)
    else:  # equal elements may come in any order: compare the values they sort to
        got_i = to_np(i)
        assert (np.sort(got_i, axis=axis) == np.arange(x.shape[axis]).reshape(
            [-1 if d == axis % x.ndim else 1 for d in range(x.ndim)])).all()
        wide = np.float32 if ref.dtype == xp.bfloat16 else ref.dtype  # NumPy can't compare
        expected = expected.astype(wide)                                  # bfloat16 NaN
        np.testing.assert_array_equal(np.take_along_axis(ref, got_i, axis=axis).astype(wide),
                                      expected)
        assert to_np(s).dtype == ref.dtype
        np.testing.assert_array_equal(to_np(s).astype(wide), expected)


def test_stable_descending_keeps_equal_elements_in_original_order():
    x = fx(np.array([1.0, -0.0, 3.0, np.nan, 1.0, 0.0, 3.0, -np.inf, np.nan]))
    assert_bits(xp.argsort(x, descending=True), np.array([2, 6, 0, 4, 1, 5, 7, 3, 8]))
    assert_bits(xp.sort(x, descending=True),
                np.array([3.0, 3.0, 1.0, 1.0, -0.0, 0.0, -np.inf, np.nan, np.nan]))
    assert_bits(xp.argsort(x), np.array([7, 1, 5, 0, 4, 2, 6, 3, 8]))
    u = fx(np.array([0, 2**64 - 1, 5, 0, 2**64 - 1], np.uint64))
    assert_bits(xp.argsort(u, descending=True), np.array([1, 4, 2, 0, 3]))
    i = fx(np.array([-2**63, 2**63 - 1, -2**63], np.int64))
    assert_bits(xp.sort(i, descending=True), np.array([2**63 - 1, -2**63, -2**63]))


def test_sort_keeps_nan_bits():
    nans = np.array([0x7FF8000000000001, 0xFFF8000000000002], np.uint64).view(np.float64)
    a = np.array([nans[0], 1.0, nans[1]])
    for descending in (False, True):
        r = to_np(xp.sort(fx(a), descending=descending)).view(np.uint64)
        assert r[1:].tolist() == nans.view(np.uint64).tolist()


def test_sort_is_a_fresh_value():
    base = np.array([3.0, 1.0, 2.0])
    x = fx(base)
    s = xp.sort(x)
    s[0] = 9.0
    assert_bits(x, base)


v3 = fx(np.array([3.0, 1.0, 2.0]))

BAD = [
    (lambda: xp.sort(fx(np.array([1j, 2]))), TypeError, r"sort: 'x' must have a real numeric "
     r"or bool dtype, got complex128"),
    (lambda: xp.argsort(fx(np.array([1j, 2]))), TypeError, r"argsort: 'x' must have a "
     r"real numeric or bool dtype"),
    (lambda: xp.sort(v3, axis=1), IndexError, r"sort: axis=1 is out of range"),
    (lambda: xp.argsort(v3, axis=-2), IndexError, r"argsort: axis=-2 is out of range"),
    (lambda: xp.sort(fx(np.float64(1.0))), IndexError, r"sort: 'x' must have at least one "
     r"dimension to sort along, got a 0-d array"),
    (lambda: xp.sort(v3, descending="yes"), TypeError, r"sort: 'descending' must be a bool, got "
     r"str"),
    (lambda: xp.argsort(v3, stable=None), TypeError, r"argsort: 'stable' must be a bool, got "
     r"NoneType"),
    (lambda: xp.sort([3, 1]), TypeError, r"sort: 'x' must be a flexarray array, got list"),
]


@pytest.mark.parametrize("call,exc,message", BAD, ids=[re.sub(r"\W+", "_", m[:40]) for *_, m
                                                        in BAD])
def test_bad_input(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


def _sorting_data(rng, dtype, shape, kind):
    if kind == "ties":  # runs of equal values longer than TIES_MAXRUN
        a = rng.integers(0, 4, shape).astype(dtype)
    else:
        a = (rng.standard_normal(shape) * 300).astype(dtype)
    if a.dtype.kind == "f":
        a.reshape(-1)[::7] = np.nan
        a.reshape(-1)[1::9] = -0.0
        a.reshape(-1)[2::11] = 0.0
        a.reshape(-1)[3::13] = np.array(0xFFF8000000000002, np.uint64).view(np.float64)
    return a


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32", "uint32",
                                   "uint64", "float16", "bfloat16", "int16"])
@pytest.mark.parametrize("kind", ["distinct", "ties"])
def test_simd_sorts_made_stable_on_both_sides_of_their_gates(dtype, kind, monkeypatch):
    """NumPy's SIMD sorts plus the repairs of _kernels.sort.ties against the stable order,
    bit for bit (NaN payloads, signed zeros), on both sides of gates.SORT_TIES_MIN,
    SORT_TIES_MAX and SORT_TIES_MAXRUN; the repair kernels are checked to have run (or
    not)."""
    from flexarray._engines import gates
    from flexarray._kernels.sort import ties
    calls = []
    for name in ("stable_ties", "stable_values"):
        real = getattr(ties, name)
        monkeypatch.setattr(ties, name, lambda *a, real=real, name=name:
                            calls.append(name) or real(*a))
    rng = np.random.default_rng(5)
    simd = dtype not in ("float16", "int16")
    for shape in ((gates.SORT_TIES_MIN - 1,), (gates.SORT_TIES_MIN,), (40, 30), (3, 4, 60),
                  (1 << 12,)):
        ref = _sorting_data(rng, getattr(xp, dtype), shape, kind)
        size = ref.size
        for axis in range(ref.ndim):
            n = shape[axis]
            for descending in (False, True):
                calls.clear()
                order = expected_order(ref, axis, descending)
                x = fx(ref)
                assert_bits(xp.argsort(x, axis=axis, descending=descending), order)
                assert_bits(xp.sort(x, axis=axis, descending=descending),
                            np.take_along_axis(ref, order, axis=axis))
                big = size >= gates.SORT_TIES_MIN
                ties_ran = (simd and big and n <= gates.SORT_TIES_MAX[ref.dtype.itemsize if
                                                                     dtype != "bfloat16" else 4])
                assert ("stable_ties" in calls) == ties_ran, (shape, axis, calls)
                floats = dtype in ("float64", "float32", "bfloat16")
                assert ("stable_values" in calls) == (floats and big), (shape, axis, calls)
    monkeypatch.setattr(gates, "SORT_TIES_MAX", {4: 100, 8: 100})  # longer axes: radix
    ref = _sorting_data(rng, getattr(xp, dtype), (300,), kind)
    calls.clear()
    assert_bits(xp.argsort(fx(ref)), expected_order(ref, 0, False))
    assert "stable_ties" not in calls


def test_tie_repair_gives_up_on_long_runs():
    from flexarray._engines import gates
    from flexarray._kernels.sort import ties
    v = np.repeat(np.arange(3.0), gates.SORT_TIES_MAXRUN + 1)[None, ::-1].copy()
    p = v.argsort(axis=-1)
    assert not ties.stable_ties(v, p, gates.SORT_TIES_MAXRUN)
    v = np.repeat(np.arange(3.0), gates.SORT_TIES_MAXRUN)[None, ::-1].copy()  # repaired
    p = v.argsort(axis=-1)
    assert ties.stable_ties(v, p, gates.SORT_TIES_MAXRUN)
    np.testing.assert_array_equal(p, v.argsort(axis=-1, kind="stable"))


@pytest.mark.parametrize("n", [3_000, 4_096, 9_000])
@pytest.mark.parametrize("descending", [False, True])
def test_float16_sorts_whatever_stable_says(n, descending):
    """NumPy 2.4's default float16 sort (x86-simd-sort's emulated float16) returned
    unsorted arrays with negative values on AVX-512 CPUs without AVX512-FP16; Python's
    sorted() is the reference, for sort, argsort and the in-place method."""
    v = (np.arange(n) % 7 - 3).astype(np.float16)
    expected = np.array(sorted(v.tolist(), reverse=descending), np.float16)
    for stable in (False, True):
        got = to_np(xp.sort(xp.asarray(v), stable=stable, descending=descending))
        np.testing.assert_array_equal(got, expected)
        idx = to_np(xp.argsort(xp.asarray(v), stable=stable, descending=descending))
        np.testing.assert_array_equal(v[idx], expected)
    if not descending:
        y = xp.asarray(v.copy())
        y.sort()
        np.testing.assert_array_equal(to_np(y), expected)


@pytest.mark.parametrize("shape,axis", [((600, 7), 0), ((5, 700, 3), 1), ((5000, 3), 0),
                                        ((7, 600), -1)])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.float16])
@pytest.mark.parametrize("layout", ["C", "F", "reversed axes"])
def test_sorted_results_are_laid_out_as_numpys(shape, axis, dtype, layout):
    """sort's values are laid out as the input (NumPy's copy of it is order "K"), argsort's
    indices C-contiguous whatever the input, as NumPy's, at every size (the tie-repair and
    radix paths sort a moved view): so reshapes are views exactly where NumPy's are."""
    a = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    a = {"C": a, "F": np.asfortranarray(a), "reversed axes": a.T.copy().T}[layout]
    x = xp.asarray(a, copy=True)
    assert to_np(x).strides == a.strides
    for f, ref in ((xp.sort, np.sort(a, axis=axis, kind="stable")),
                   (xp.argsort, np.argsort(a, axis=axis, kind="stable"))):
        r = f(x, axis=axis)
        assert to_np(r).strides == ref.strides, f.__name__
        np.testing.assert_array_equal(to_np(r), ref)
        try:
            ref.reshape(-1, copy=False)
        except ValueError:
            continue
        xp.reshape(r, (-1,), copy=False)


def _permutations(rng, shape, axis):
    """Integer arrays of ``shape`` whose every row along ``axis`` is a permutation."""
    return np.argsort(rng.random(shape), axis=axis)


@pytest.mark.parametrize("case", ["1-D", "rows", "columns", "3-D middle", "strided view",
                                  "int32", "uint16"])
def test_argsort_of_a_permutation_is_its_inverse(case, monkeypatch):
    """The argsort of rows that are permutations (SciPy's rankdata: argsort of an argsort)
    is their inverse, computed without a sort: NumPy's argsort's values and memory layout,
    stable or not; a row that is not a permutation (a repeat, a value out of range) is
    sorted as before."""
    from flexarray._engines import gates
    n = gates.SORT_PERMUTATION_MIN + 37
    rng = np.random.default_rng(11)
    p, axis = {
        "1-D": (_permutations(rng, (n,), 0), 0),
        "rows": (_permutations(rng, (5, n), 1), 1),
        "columns": (_permutations(rng, (n, 6), 0), 0),
        "3-D middle": (_permutations(rng, (3, n, 4), 1), 1),
        "strided view": (None, 0),
        "int32": (_permutations(rng, (4, n), 1).astype(np.int32), 1),
        "uint16": (_permutations(rng, (n,), 0).astype(np.uint16), 0),
    }[case]
    a = xp.asarray(p) if p is not None else xp.asarray(_permutations(rng, (n, 6), 0))[:, ::2]
    p = np.asarray(a)  # (the strided view: every other column, each a permutation)
    broken = p.copy()
    broken[(0,) * p.ndim] = broken[(1,) + (0,) * (p.ndim - 1)] if axis == 0 else \
        broken[(0,) * (p.ndim - 1) + (1,)]  # (a repeat in the first row)
    out_of_range = p.copy()
    out_of_range[(-1,) * p.ndim] = p.shape[axis]
    from flexarray._engines import sort as engine
    inverted = []
    real = engine._inverse_permutation
    monkeypatch.setattr(engine, "_inverse_permutation", lambda *a: inverted.append(
        real(*a)) or inverted[-1])
    for v in (p, broken, out_of_range):
        x = xp.asarray(v) if v is not p else a
        for stable in (True, False):
            r = np.asarray(xp.argsort(x, axis=axis, stable=stable))
            expect = np.argsort(v, axis=axis, kind="stable")
            assert r.strides == expect.strides
            if stable or v is p:  # (unstable: ties in any order)
                np.testing.assert_array_equal(r, expect)
            else:
                np.testing.assert_array_equal(np.take_along_axis(v, r, axis),
                                              np.sort(v, axis=axis))
    assert [r is not None for r in inverted] == [True, True, False, False, False, False]
