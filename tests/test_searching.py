"""Searching functions against NumPy and plain loops, over random dtypes and layouts."""
import bisect
import math
import re

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import flexarray as xp
from helpers.strategies import (std_kind, ALL_DTYPES, REAL_DTYPES, arrays, assert_bits, fx, to_np,
                               value_pool)


def wide(ref):
    """``ref`` in a dtype whose NumPy comparisons are exact (bfloat16 -> float32)."""
    return ref.astype(np.float32) if ref.dtype == xp.bfloat16 else ref


def assert_index(r, expected):
    assert r.dtype is xp.int64
    assert_bits(r, np.asarray(expected, np.int64))


def axis_or_none(ndim):
    return st.none() | (st.integers(-ndim, ndim - 1) if ndim else st.none())


# --- argmax / argmin ------------------------------------------------------------------------

def first_extremum(values, better):
    """A plain loop: index of the first max/min (first NaN if any, as max/min propagate)."""
    best = 0
    for i, v in enumerate(values):
        if math.isnan(v):
            return i
        if better(v, values[best]):
            best = i
    return best


@pytest.mark.parametrize("func,pick", [(xp.argmax, lambda v, b: v > b),
                                       (xp.argmin, lambda v, b: v < b)])
@settings(max_examples=60)
@given(data=st.data())
def test_argmax_argmin(func, pick, data):
    x, ref = data.draw(arrays(dtypes=REAL_DTYPES, min_side=1))
    axis = data.draw(axis_or_none(x.ndim))
    keepdims = data.draw(st.booleans())
    w = wide(ref)
    r = func(x, axis=axis, keepdims=keepdims)
    if axis is None:
        expected = first_extremum(w.reshape(-1).tolist(), pick)
        expected = np.full((1,) * x.ndim, expected) if keepdims else np.int64(expected)
    else:
        moved = np.moveaxis(w, axis, -1)
        expected = np.empty(moved.shape[:-1], np.int64)
        for pos in np.ndindex(*moved.shape[:-1]):
            expected[pos] = first_extremum(moved[pos].tolist(), pick)
        if keepdims:
            expected = np.expand_dims(expected, axis)
    assert_index(r, expected)


def test_argmax_ties_take_the_first_index_along_strided_axes():
    a = np.zeros((5, 7), np.float32)
    a[[1, 3], 2] = 4.0
    a[4, [0, 5]] = 4.0
    x = fx(a)
    assert_index(xp.argmax(x, axis=0), np.array([4, 0, 1, 0, 0, 4, 0]))
    assert_index(xp.argmax(xp.flip(x, axis=0), axis=0), np.array([0, 0, 1, 0, 0, 0, 0]))
    assert_index(xp.argmin(x), np.int64(0))
    assert_index(xp.argmax(x), np.int64(9))
    assert_index(xp.argmax(x.mT, axis=1, keepdims=True), np.array([[4, 0, 1, 0, 0, 4, 0]]).T)


ARGMAX = (xp.argmax, lambda v, b: v > b)
ARGMIN = (xp.argmin, lambda v, b: v < b)
# (op, dtype, layout, axis): large enough for the Numba argminmax paths. Few cases, as each
# costs a cold compile (1-4 s); the kernels' own tests cover their dtypes and layouts.
KERNEL_CASES = [(ARGMAX, xp.float32, "c", 0), (ARGMIN, xp.float32, "c", 0),
                (ARGMAX, xp.float16, "c", 1), (ARGMIN, xp.bfloat16, "c", 0),
                (ARGMAX, xp.float32, "t", None), (ARGMIN, xp.float32, "t", None),
                # contiguous axis (NumPy's scan, see _numpy_rows) and C-contiguous
                # axis=None (the kernels' runs mode)
                (ARGMAX, xp.float32, "c", 1), (ARGMIN, xp.float32, "t", 0),
                (ARGMAX, xp.float32, "c", None)]


@pytest.mark.parametrize("op,dtype,layout,axis", KERNEL_CASES)
def test_argmax_argmin_large_strided(op, dtype, layout, axis):
    func, pick = op
    from flexarray._engines import argminmax, gates
    n = int((gates.ARG_KERNEL_FLAT_MIN if axis is None else gates.ARG_KERNEL_MIN) ** 0.5) + 5
    rng = np.random.default_rng(n)
    vals = value_pool(dtype)
    base = vals[rng.integers(0, len(vals), size=(n, n + 3))]
    if std_kind(dtype) == "f":  # mostly NaN-free columns, so ties decide most results
        base[rng.random(base.shape) < 0.999] = vals[2]
        base[rng.integers(0, n, 40), rng.integers(0, n + 3, 40)] = np.nan
    ref = base if layout == "c" else base.T
    x = xp.asarray(ref)
    assert argminmax.chosen_kernel(x._arr, axis) is not None, \
        "flexarray._kernels.reductions.argminmax is missing"
    w = wide(ref)
    r = func(x, axis=axis, keepdims=True)
    if axis is None:
        expected = np.full((1, 1), first_extremum(w.reshape(-1).tolist(), pick))
    else:
        moved = np.moveaxis(w, axis, -1)
        expected = np.expand_dims([first_extremum(row.tolist(), pick) for row in moved], axis)
    assert_index(r, expected)


@pytest.mark.parametrize("source", ["import", "computed", "read-only bytes"])
@pytest.mark.parametrize("dtype,shape,axis", [("float32", (600, 1800), 1),
                                              ("int16", (3, 400, 900), -1),
                                              ("float64", (900, 3, 400), 2),
                                              ("float32", (1800, 600), 0),
                                              ("bool", (1200, 900), 1)])
@pytest.mark.parametrize("threads", [True, False])
def test_argmax_argmin_contiguous_axis_on_threads(source, dtype, shape, axis, threads,
                                                  monkeypatch):
    """Along a contiguous axis: NumPy's argmax/argmin (flexarray._engines.argminmax's
    numpy_rows), rows on threads or not, for writable, read-only and unwritable memory."""
    from flexarray._engines import gates
    monkeypatch.setattr(gates, "ARG_NUMPY_THREADS_MIN", 1 << 20 if threads else 1 << 40)
    assert math.prod(shape) >= 1 << 20
    rng = np.random.default_rng(3)
    ref = (rng.standard_normal(shape) * 20).astype(dtype)
    if dtype.startswith("float"):
        ref[rng.random(shape) < 1e-4] = np.nan
        ref[::7] = ref[::7].max()  # ties on whole rows
    mem = np.ascontiguousarray(np.moveaxis(ref, axis, -1))  # the axis contiguous, wherever
    if source == "import":
        x = xp.asarray(mem)
    elif source == "computed":
        x = xp.asarray(mem, copy=True)
    else:
        x = xp.asarray(np.frombuffer(mem.tobytes(), ref.dtype).reshape(mem.shape))
    x = xp.moveaxis(x, -1, axis)
    moved = np.moveaxis(ref, axis, -1).reshape(-1, shape[axis])
    for func, pick in (ARGMAX, ARGMIN):
        expected = np.array([first_extremum(row.tolist(), pick) for row in moved[::97]])
        r = to_np(func(x, axis=axis, keepdims=True))
        assert r.shape == tuple(1 if d == axis % len(shape) else n for d, n in enumerate(shape))
        np.testing.assert_array_equal(np.moveaxis(r, axis, -1).reshape(-1)[::97], expected)


# --- count_nonzero / nonzero ----------------------------------------------------------------

def nonzero_mask(ref):
    if std_kind(ref.dtype) == "c":
        return (ref.real != 0) | (ref.imag != 0)
    return wide(ref) != 0


@settings(max_examples=60)
@given(data=st.data())
def test_count_nonzero(data):
    x, ref = data.draw(arrays())
    axis = data.draw(axis_or_none(x.ndim) | st.lists(st.integers(0, max(x.ndim - 1, 0)),
                                                     unique=True, max_size=x.ndim).map(tuple))
    keepdims = data.draw(st.booleans())
    r = xp.count_nonzero(x, axis=axis, keepdims=keepdims)
    assert_index(r, nonzero_mask(ref).sum(axis=axis, keepdims=keepdims, dtype=np.int64))


@settings(max_examples=60)
@given(data=st.data())
def test_nonzero(data):
    x, ref = data.draw(arrays(min_dims=1))
    out = xp.nonzero(x)
    assert isinstance(out, tuple) and len(out) == x.ndim
    mask = nonzero_mask(ref)
    expected = [pos for pos in np.ndindex(*ref.shape) if mask[pos]]  # row-major order
    for d, r in enumerate(out):
        assert_index(r, np.array([p[d] for p in expected], np.int64))


# --- searchsorted ---------------------------------------------------------------------------

def nan_last_key(v):
    """Sort key of a Python number: NaN after everything (ints stay exact)."""
    return (True, 0) if math.isnan(v) else (False, v)


@settings(max_examples=80)
@given(data=st.data(), side=st.sampled_from(["left", "right"]), use_sorter=st.booleans())
def test_searchsorted(data, side, use_sorter):
    pair = data.draw(st.sampled_from([(d, d) for d in REAL_DTYPES] + [
        (xp.int8, xp.int16), (xp.uint8, xp.int32), (xp.float32, xp.float64),
        (xp.float16, xp.float32), (xp.bfloat16, xp.float32), (xp.int16, xp.int8)]))
    x1, r1 = data.draw(arrays(dtypes=[pair[0]], max_dims=1, min_dims=1, max_side=8))
    w1 = wide(r1).tolist()
    svals = r1[np.array(sorted(range(len(w1)), key=lambda i: nan_last_key(w1[i])), np.intp)]
    kind = data.draw(st.sampled_from(["array", "scalar"]))
    if kind == "array":
        x2, r2 = data.draw(arrays(dtypes=[pair[1]], max_dims=2))
        queries = r2
    else:
        pool = value_pool(pair[0]).tolist() if pair[0] is not xp.bfloat16 else [1.5, -2.0]
        q = data.draw(st.sampled_from(pool) | st.integers(-300, 300))
        if isinstance(q, float) and std_kind(pair[0]) in "iub":
            q = int(q) if math.isfinite(q) else 7
        if isinstance(q, int) and std_kind(pair[0]) == "b":
            q = bool(q % 2)
        x2, queries = q, np.asarray(q)
    if use_sorter:
        perm = np.asarray(data.draw(st.permutations(range(len(svals)))), np.intp)
        x1 = fx(svals[perm])
        sorter = xp.asarray(np.argsort(perm).astype(
            data.draw(st.sampled_from([np.int64, np.int16, np.uint8]))))
        r = xp.searchsorted(x1, x2, side=side, sorter=sorter)
    else:
        x1 = fx(svals)
        r = xp.searchsorted(x1, x2, side=side)
    keys = [nan_last_key(v) for v in wide(svals).tolist()]
    find = bisect.bisect_left if side == "left" else bisect.bisect_right
    qv = queries.astype(np.float32) if queries.dtype == xp.bfloat16 else queries
    expected = np.array([find(keys, nan_last_key(q)) for q in qv.reshape(-1).tolist()],
                        np.int64).reshape(np.shape(queries))
    assert_index(r, expected)


def test_searchsorted_python_int_beyond_the_dtype():
    x1 = fx(np.array([-5, 0, 7], np.int8))
    assert_index(xp.searchsorted(x1, 1000), np.int64(3))
    assert_index(xp.searchsorted(x1, -1000, side="right"), np.int64(0))
    assert_index(xp.searchsorted(x1, 0, side="right"), np.int64(2))
    assert_index(xp.searchsorted(fx(np.array([1.0, 2.0])), 1), np.int64(0))


# --- where ----------------------------------------------------------------------------------

WHERE_PAIRS = [(d, d) for d in ALL_DTYPES] + [
    (xp.int8, xp.int64), (xp.uint8, xp.int8), (xp.float32, xp.complex128),
    (xp.float16, xp.bfloat16), (xp.bool, xp.bool), (xp.uint32, xp.uint64)]


@settings(max_examples=80)
@given(data=st.data())
def test_where(data):
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4))
    d1, d2 = data.draw(st.sampled_from(WHERE_PAIRS))

    def sub_shape():
        k = data.draw(st.integers(0, len(shape)))
        return tuple(1 if data.draw(st.booleans()) else n for n in shape[len(shape) - k:])

    c, cref = data.draw(arrays(dtypes=[xp.bool], shape=sub_shape()))
    ops, refs = [], []
    scalar_slot = data.draw(st.sampled_from([None, 0, 1]))
    for i, d in enumerate((d1, d2)):
        if i == scalar_slot:  # a value of the other operand's dtype, as a Python scalar
            other = (d1, d2)[1 - i]
            s = data.draw(st.sampled_from(value_pool(other).tolist()))
            s = {"b": bool, "i": int, "u": int, "f": float, "c": complex}[std_kind(other)](s)
            ops.append(s)
            refs.append(s)
        else:
            a, aref = data.draw(arrays(dtypes=[d], shape=sub_shape()))
            ops.append(a)
            refs.append(aref)
    r = xp.where(c, *ops)
    dt = xp.result_type(*ops)
    assert r.dtype is dt
    expected = np.where(cref, *(np.asarray(v, dt) if not isinstance(v, np.ndarray)
                                else v.astype(dt) for v in refs))
    assert_bits(r, expected)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.float32, np.float64, np.bool_,
                                   np.complex128, ml_dtypes.bfloat16])
@pytest.mark.parametrize("form", ["arrays", "scalar x1", "0-d x2", "(1, 1) x1", "broadcast"])
@pytest.mark.parametrize("truth", ["random", "all True", "all False"])
def test_where_on_large_operands_is_numpys(dtype, form, truth):
    """From gates.SELECT_KERNEL_MIN elements ``where`` runs the bit-select kernel (or a copy
    of one side when the condition is all True or all False): the elements of NumPy's
    where, bit for bit (NaN payloads, signed zeros), for every form of operand it takes and
    those it leaves to NumPy (complex, broadcast arrays)."""
    rng = np.random.default_rng(3)
    shape = (37, 300)
    cond = rng.random(shape) < {"random": 0.5, "all True": 2, "all False": -1}[truth]
    a = (rng.standard_normal(shape) * 50).astype(dtype)
    b = (rng.standard_normal(shape) * 50).astype(dtype)
    if np.dtype(dtype).kind == "f":
        a[0, :4] = [np.nan, -0.0, np.inf, -np.nan]
        b[0, :4] = [-0.0, np.nan, 0.0, 1.0]
    x1, x2 = fx(a), fx(b)
    n1, n2 = a, b
    if form == "scalar x1":
        x1 = n1 = True if dtype is np.bool_ else 7
    elif form == "0-d x2":
        n2 = b[0, 1].reshape(())
        x2 = fx(n2)
    elif form == "(1, 1) x1":
        n1 = a[:1, :1].copy()
        x1 = fx(n1)
    elif form == "broadcast":
        n2 = b[:1].copy()
        x2 = fx(n2)
    got = to_np(xp.where(fx(cond), x1, x2))
    expected = np.where(cond, n1, n2).astype(dtype)
    assert got.shape == expected.shape and got.dtype == expected.dtype
    assert np.array_equal(got.view(np.uint8), expected.view(np.uint8))



@pytest.mark.parametrize("form", ["arrays", "scalar x2", "0-d x1"])
def test_where_on_threads_is_numpys(form, monkeypatch):
    """From gates.SELECT_THREADS_MIN elements the bit-select kernel runs in pieces on the
    pool's threads (each piece indexes its slices from 0): NumPy's elements bit for bit."""
    from flexarray import _threads
    from flexarray._engines import gates
    monkeypatch.setattr(_threads, "NTHREADS", max(2, _threads.NTHREADS))
    monkeypatch.setattr(_threads, "_blas_spins_until", 0.0)
    rng = np.random.default_rng(8)
    shape = (gates.SELECT_THREADS_MIN // 1000 + 3, 1000)
    cond = rng.random(shape) < 0.5
    a, b = rng.standard_normal(shape), rng.standard_normal(shape)
    a[0, :4] = [np.nan, -0.0, np.inf, -np.nan]
    n1, n2 = a, b
    x1, x2 = fx(a), fx(b)
    if form == "scalar x2":
        x2 = n2 = 0.5
    elif form == "0-d x1":
        n1 = a[0, 1].reshape(())
        x1 = fx(n1)
    got = to_np(xp.where(fx(cond), x1, x2))
    expected = np.where(cond, n1, n2)
    assert np.array_equal(got.view(np.uint8), expected.view(np.uint8))

def test_where_scalars_adopt_the_array_dtype():
    c = fx(np.array([True, False]))
    assert_bits(xp.where(c, fx(np.array([1, 2], np.int8)), 5), np.array([1, 5], np.int8))
    assert_bits(xp.where(c, 0.5, fx(np.array([1, 2], np.float32))),
                np.array([0.5, 2], np.float32))
    assert_bits(xp.where(c, True, fx(np.array([False, False]))), np.array([True, False]))
    with pytest.raises(OverflowError, match=r"where: the Python int 300 is out of range for "
                                            r"int8"):
        xp.where(c, fx(np.array([1, 2], np.int8)), 300)


# --- bad input ------------------------------------------------------------------------------

f3 = fx(np.array([1.0, 2.0, 3.0]))
c3 = fx(np.array([1 + 1j, 2, 3]))
b3 = fx(np.array([True, False, True]))
e0 = fx(np.zeros((2, 0)))

BAD = [
    (lambda: xp.argmax(c3), TypeError, r"argmax: 'x' must have a real numeric or bool "
     r"dtype, got complex128; allowed: bool, .*; complex numbers have no order"),
    (lambda: xp.argmin(e0), ValueError, r"argmin: 'x' is empty \(shape \(2, 0\)\); an empty "
     r"array has no minimum"),
    (lambda: xp.argmax(e0, axis=1), ValueError, r"argmax: axis 1 of 'x' \(shape \(2, 0\)\) has "
     r"size 0"),
    (lambda: xp.argmax(f3, axis=1), IndexError, r"argmax: axis=1 is out of range"),
    (lambda: xp.argmax(f3, keepdims=1), TypeError, r"argmax: 'keepdims' must be a bool, got int"),
    (lambda: xp.argmin([1, 2]), TypeError, r"argmin: 'x' must be a flexarray array"),
    (lambda: xp.count_nonzero(f3, axis=(0, 0)), ValueError, r"count_nonzero: 'axis' has "
     r"repeated axes"),
    (lambda: xp.count_nonzero(f3, axis=2), IndexError, r"count_nonzero: axis=2 is out of range"),
    (lambda: xp.count_nonzero(f3, keepdims=None), TypeError, r"count_nonzero: 'keepdims' must "
     r"be a bool"),
    (lambda: xp.nonzero(fx(np.float64(1.0))), ValueError, r"nonzero: 'x' must have at least one "
     r"dimension, got a 0-d array"),
    (lambda: xp.searchsorted(fx(np.zeros((2, 2))), f3), ValueError, r"searchsorted: 'x1' must "
     r"be 1-D, got shape \(2, 2\)"),
    (lambda: xp.searchsorted(f3, f3, side="middle"), ValueError, r"searchsorted: 'side' must be "
     r"'left' or 'right', got 'middle'"),
    (lambda: xp.searchsorted(c3, c3), TypeError, r"searchsorted: 'x1' must have a real numeric "
     r"or bool dtype"),
    (lambda: xp.searchsorted(f3, 1j), TypeError, r"searchsorted: 'x2' must be a flexarray "
     r"array, an int or a float, got complex"),
    (lambda: xp.searchsorted(f3, [1.0]), TypeError, r"searchsorted: 'x2' must be"),
    (lambda: xp.searchsorted(f3, 1.0, sorter=fx(np.array([0, 1]))), ValueError,
     r"searchsorted: 'sorter' must have the shape of 'x1' \(3,\), got \(2,\)"),
    (lambda: xp.searchsorted(f3, 1.0, sorter=f3), TypeError, r"searchsorted: 'sorter' must have "
     r"an integral dtype, got float64"),
    (lambda: xp.searchsorted(f3, 1.0, sorter=fx(np.array([0, 1, 3]))), IndexError,
     r"searchsorted: index 3 in 'sorter' is out of bounds for an axis of size 3"),
    (lambda: xp.searchsorted(fx(np.array([1], np.int64)), fx(np.array([1], np.uint64))),
     TypeError, r"no type promotion between int64 and uint64"),
    (lambda: xp.where(f3, f3, f3), TypeError, r"where: 'condition' must have a bool dtype, got "
     r"float64; allowed: bool; compare it first"),
    (lambda: xp.where(b3, "a", f3), TypeError, r"where: 'x1' must be a flexarray array or a "
     r"Python scalar, got str"),
    (lambda: xp.where(b3, f3, fx(np.zeros(2))), ValueError, r"where: 'condition', 'x1' and 'x2' "
     r"of shapes \(3,\), \(3,\), \(2,\) cannot be broadcast together"),
    (lambda: xp.where(True, f3, f3), TypeError, r"where: 'condition' must be a flexarray array"),
]


@pytest.mark.parametrize("call,exc,message", BAD, ids=[re.sub(r"\W+", "_", m[:40]) for *_, m
                                                        in BAD])
def test_bad_input(call, exc, message):
    with pytest.raises(exc, match=message):
        call()


@pytest.mark.parametrize("x1,x2", [(0.5, 1), (1, 2), (True, False), (1j, 1), (True, 2),
                                   (2.5, True)])
def test_where_with_two_python_scalars_as_numpy(x1, x2):
    """The standard asks for one array; NumPy and torch take two scalars (SciPy does)."""
    cond = np.array([True, False, True])
    r = xp.where(xp.asarray(cond), x1, x2)
    expected = np.where(cond, x1, x2)
    assert to_np(r).dtype == expected.dtype
    np.testing.assert_array_equal(to_np(r), expected)
def test_where_takes_numpy_scalars_as_the_values_they_hold():
    x = xp.asarray(np.array([1.0, -2.0, 3.0], np.float32))
    r = xp.where(x > 0, x, np.float64(-1.5))  # a float32 result, as with the Python float
    assert r.dtype == xp.float32
    np.testing.assert_array_equal(np.asarray(r), np.array([1.0, -1.5, 3.0], np.float32))
    r = xp.where(x > 0, np.int64(7), x)
    assert r.dtype == xp.float32 and np.asarray(r).tolist() == [7.0, -2.0, 7.0]
