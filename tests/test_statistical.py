"""Statistical functions against NumPy references over random dtypes, shapes, axes and
memory layouts (contiguous, stepped, offset, reversed, transposed, broadcast; zero-size
and 0-d included), plus the standard's dtype rules and bad-input errors.

References are computed independently: integer results in NumPy at the expected
accumulation dtype (wrapping arithmetic is order-independent, so they must match exactly),
floating results in float64/complex128 with an error bound of the form
``eps * (n + 2) * sum(|x|)``.
"""
import contextlib
import math

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import flexarray as xp
from helpers.strategies import std_kind, ALL_DTYPES, arrays, to_np
from helpers.statistical import (assert_close, assert_exact, axis_args, eps, moderate_pool,
                                 norm_axes, special_pool, wide)

NUMERIC = [d for d in ALL_DTYPES if d is not xp.bool]
REAL = [d for d in NUMERIC if std_kind(d) != "c"]
FLOATING = [d for d in NUMERIC if std_kind(d) in "fc"]
REAL_FLOATING = [d for d in NUMERIC if std_kind(d) == "f"]

#: the standard's sum/prod result dtype, written out (not derived from the code under test)
SUM_DTYPE = {xp.bool: xp.int64, xp.int8: xp.int64, xp.int16: xp.int64, xp.int32: xp.int64,
             xp.int64: xp.int64, xp.uint8: xp.uint64, xp.uint16: xp.uint64,
             xp.uint32: xp.uint64, xp.uint64: xp.uint64}






def prod_pool(dtype):
    """Values whose products of up to ~100 factors stay finite and normal."""
    if std_kind(dtype) in "biu":
        return moderate_pool(dtype)
    v = np.array([0.5, 0.75, 1.0, 1.25, 1.5, -0.8, -1.1, 2.0, -0.5])
    if std_kind(dtype) == "c":
        v = v * np.exp(1j * np.linspace(0, 3, v.size))
    return v.astype(dtype)














# --- sum and prod ---------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["sum", "prod"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_sum_prod_against_numpy(name, data):
    pool = special_pool if name == "sum" else prod_pool
    x, v = data.draw(arrays(dtypes=ALL_DTYPES[:1] + NUMERIC, max_dims=3, pool=pool))
    axis = data.draw(axis_args(x.ndim))
    keepdims = data.draw(st.booleans())
    r = getattr(xp, name)(x, axis=axis, keepdims=keepdims)
    assert_sum_prod(name, r, x, v, norm_axes(axis, x.ndim), keepdims)


def assert_sum_prod(name, r, x, v, axes, keepdims):
    """``r`` is ``name`` ("sum" or "prod") of ``x`` (values ``v``): exact for integers,
    within the pairwise error bound for floats (inf where the sum overflows the dtype)."""
    npf = getattr(np, name)
    out = SUM_DTYPE.get(x.dtype, x.dtype)
    if std_kind(out) in "iu":
        assert_exact(r, npf(v.astype(out), axis=axes, keepdims=keepdims), out)
        return
    with np.errstate(all="ignore"):
        ref = npf(wide(v), axis=axes, keepdims=keepdims)
        n = math.prod(v.shape[a] for a in axes)
        scale = np.sum(np.abs(wide(v)), axis=axes, keepdims=keepdims) if name == "sum" \
            else np.abs(ref)
        rounded = ref.astype(out)
        ref = np.where(np.isinf(rounded), rounded, ref)  # overflows the dtype: inf
    # products may underflow into subnormals, where each rounding can be off by half the
    # smallest subnormal: that absolute error adds to the relative bound
    real = {xp.complex64: xp.float32, xp.complex128: xp.float64}.get(out, out)
    tiny = float(ml_dtypes.finfo(real).smallest_subnormal) if name == "prod" else 0.0
    assert_close(r, ref, eps(out) * (n + 2) * scale + tiny * (n + 2), out)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_sum_dtype_argument(data):
    """``dtype=``: the input is cast first (int64 -> int8 wraps, int -> float accumulates
    in float), then summed."""
    x, v = data.draw(arrays(dtypes=[d for d in NUMERIC if std_kind(d) in "iu"], max_dims=3,
                            pool=moderate_pool))
    target = data.draw(st.sampled_from([xp.int8, xp.int64, xp.uint64, xp.float64,
                                        xp.float32, xp.complex128]))
    if std_kind(x.dtype) == "i" and std_kind(target) == "u":
        target = xp.int64
    axis = data.draw(axis_args(x.ndim))
    r = xp.sum(x, axis=axis, dtype=target)
    axes = norm_axes(axis, x.ndim)
    if std_kind(target) in "iu":
        assert_exact(r, np.sum(v.astype(target), axis=axes, dtype=target), target)
    else:
        assert_close(r, np.sum(v.astype(np.float64), axis=axes), 0.0, target)


def test_sum_dtype_rules_and_zero_d():
    for d, out in SUM_DTYPE.items():
        x = xp.ones((3,), dtype=d)
        assert xp.sum(x).dtype == out and xp.prod(x).dtype == out
        assert xp.cumulative_sum(x).dtype == out
    for d in FLOATING:
        assert xp.sum(xp.ones((3,), dtype=d)).dtype == d
    r = xp.sum(xp.asarray([1.0, 2.0]))
    assert isinstance(r, xp.Array) and r.shape == () and float(r) == 3.0
    assert xp.sum(xp.zeros((0,), dtype=xp.int32)).shape == ()
    assert int(xp.prod(xp.zeros((2, 0), dtype=xp.int32))) == 1
    assert int(xp.sum(xp.zeros((2, 0), dtype=xp.int32))) == 0


@pytest.mark.parametrize("half", [xp.float16, xp.bfloat16])
def test_half_sum_accumulates_in_float32(half):
    if half is xp.float16:  # NumPy's float16 sum gives inf here (60000 + 60000 overflows)
        x = xp.asarray(np.array([6e4, 6e4, -6e4, -6e4], dtype=half))
        assert float(xp.sum(x)) == 0.0
    v = np.full(4096, 0.1, dtype=half)
    ref = half.type(np.sum(v.astype(np.float64)))
    assert to_np(xp.sum(xp.asarray(v))) == ref
    assert to_np(xp.mean(xp.asarray(v))) == v[0]


# --- max and min ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["max", "min"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_max_min_against_numpy(name, data):
    x, v = data.draw(arrays(dtypes=ALL_DTYPES[:1] + REAL, max_dims=3, min_side=1,
                            pool=special_pool))
    axis = data.draw(axis_args(x.ndim))
    keepdims = data.draw(st.booleans())
    r = getattr(xp, name)(x, axis=axis, keepdims=keepdims)
    ref = getattr(np, name)(wide(v), axis=norm_axes(axis, x.ndim), keepdims=keepdims)
    assert_exact(r, np.asarray(ref).astype(x.dtype), x.dtype)


def test_max_min_empty_and_nan():
    x = xp.zeros((2, 0))
    for f in (xp.max, xp.min):
        with pytest.raises(ValueError, match=r"(max|min): cannot reduce over a zero-size axis"):
            f(x)
        with pytest.raises(ValueError, match="zero-size"):
            f(x, axis=1)
        assert f(x, axis=0).shape == (0,)  # nothing to reduce per output element
        assert math.isnan(float(f(xp.asarray([1.0, math.nan, 3.0]))))
    with pytest.raises(TypeError, match="max: 'x' must have a real numeric or bool dtype, "
                                        "got complex128; .*complex numbers have no order"):
        xp.max(xp.asarray([1j]))


# --- mean, var, std -------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_mean_against_numpy(data):
    x, v = data.draw(arrays(dtypes=NUMERIC, max_dims=3, pool=special_pool))
    axis = data.draw(axis_args(x.ndim))
    keepdims = data.draw(st.booleans())
    r = xp.mean(x, axis=axis, keepdims=keepdims)
    axes = norm_axes(axis, x.ndim)
    out = xp.float64 if std_kind(x.dtype) in "iu" else x.dtype
    n = math.prod(v.shape[a] for a in axes)
    w = wide(v).astype(np.complex128 if std_kind(out) == "c" else np.float64)
    shape = np.sum(np.zeros_like(w), axis=axes, keepdims=keepdims).shape
    if n == 0:
        ref = np.full(shape, complex(np.nan, np.nan) if std_kind(out) == "c" else np.nan)
        tol = 0.0
    else:
        with np.errstate(all="ignore"):
            ref = np.sum(w, axis=axes, keepdims=keepdims) / n
            tol = eps(out) * (n + 2) * np.sum(np.abs(w), axis=axes, keepdims=keepdims) / n
    if std_kind(out) == "c":  # NaN in either component: compare NaN-ness of the whole number
        g = to_np(r)
        assert r.dtype == out and g.shape == ref.shape
        assert np.array_equal(np.isnan(g), np.isnan(ref))
        ok = ~np.isnan(ref) & np.isfinite(ref)
        assert np.all(np.abs(g[ok] - ref[ok]) <= np.broadcast_to(tol, ref.shape)[ok])
    else:
        assert_close(r, ref, tol, out)


@pytest.mark.parametrize("name", ["var", "std"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_var_std_against_numpy(name, data):
    x, v = data.draw(arrays(dtypes=[d for d in NUMERIC if std_kind(d) != "c"], max_dims=3,
                            pool=moderate_pool))
    axis = data.draw(axis_args(x.ndim))
    keepdims = data.draw(st.booleans())
    correction = data.draw(st.sampled_from([0, 1, 0.5, 2.0, 7]))
    r = getattr(xp, name)(x, axis=axis, correction=correction, keepdims=keepdims)
    axes = norm_axes(axis, x.ndim)
    out = xp.float64 if std_kind(x.dtype) in "iu" else x.dtype
    n = math.prod(v.shape[a] for a in axes)
    w = v.astype(np.float64)
    shape = np.sum(w, axis=axes, keepdims=keepdims).shape
    if n - correction <= 0:
        assert_close(r, np.full(shape, np.nan), 0.0, out)
        return
    mu = np.sum(w, axis=axes, keepdims=True) / n
    ref = np.sum((w - mu) ** 2, axis=axes, keepdims=keepdims) / (n - correction)
    msq = np.sum(w * w, axis=axes, keepdims=keepdims) / (n - correction)
    # measured over 4,500 random cases: errors up to 0.12 eps (n + 2) msq for var (float32),
    # 0.11 eps (n + 2) sqrt(msq) for std (bfloat16), none in float64; allowed: about twice
    scale = msq if name == "var" else np.sqrt(msq)
    if name == "std":
        ref = np.sqrt(ref)
    assert_close(r, ref, eps(out) * (n + 2) * scale / 4, out)


def test_moment_dtypes_and_special_cases():
    assert xp.mean(xp.asarray([1, 2], dtype=xp.int8)).dtype == xp.float64
    assert xp.var(xp.asarray([1, 2], dtype=xp.uint16)).dtype == xp.float64
    assert xp.std(xp.asarray([1, 2], dtype=xp.float32)).dtype == xp.float32
    assert math.isnan(float(xp.mean(xp.zeros((0,)))))
    m = complex(xp.mean(xp.zeros((0,), dtype=xp.complex64)))
    assert math.isnan(m.real) and math.isnan(m.imag)
    assert math.isnan(float(xp.var(xp.asarray([1.0, 2.0]), correction=2)))
    assert math.isnan(float(xp.std(xp.asarray([1.0]), correction=1)))
    assert float(xp.var(xp.asarray([1.0, 3.0]), correction=-2)) == 0.5  # divisor 4
    with pytest.raises(TypeError, match="var: 'x' must have a real numeric or bool dtype, "
                                        "got complex128; allowed: bool, .*, float64$"):
        xp.var(xp.asarray([1j]))


# --- cumulative -----------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["cumulative_sum", "cumulative_prod"])
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_cumulative_against_numpy(name, data):
    pool = moderate_pool if name == "cumulative_sum" else prod_pool
    x, v = data.draw(arrays(dtypes=ALL_DTYPES[:1] + NUMERIC, min_dims=1, max_dims=3,
                            pool=pool))
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1) | (st.none() if x.ndim == 1
                                                          else st.nothing()))
    initial = data.draw(st.booleans())
    r = getattr(xp, name)(x, axis=axis, include_initial=initial)
    ax = 0 if axis is None else axis % x.ndim
    out = SUM_DTYPE.get(x.dtype, x.dtype)
    ident = 0 if name == "cumulative_sum" else 1
    pad_shape = list(v.shape)
    pad_shape[ax] = 1
    acc = (np.cumsum if name == "cumulative_sum" else np.cumprod)
    if std_kind(out) in "iu":
        ref = acc(v.astype(out), axis=ax)
        if initial:
            ref = np.concatenate([np.full(pad_shape, ident, out), ref], axis=ax)
        assert_exact(r, ref, out)
        return
    w = wide(v)
    ref = acc(w, axis=ax)
    scale = np.cumsum(np.abs(w), axis=ax) if name == "cumulative_sum" else np.abs(ref)
    if initial:
        ref = np.concatenate([np.full(pad_shape, ident, w.dtype), ref], axis=ax)
        scale = np.concatenate([np.zeros(pad_shape), scale], axis=ax)
    assert_close(r, ref, eps(out) * (v.shape[ax] + 2) * scale, out)


def test_cumulative_axis_rules():
    x = xp.asarray([[1, 2], [3, 4]], dtype=xp.int16)
    with pytest.raises(ValueError, match="cumulative_sum: 'axis' is required"):
        xp.cumulative_sum(x)
    assert to_np(xp.cumulative_sum(x, axis=0, dtype=xp.int8)).dtype == np.int8
    assert to_np(xp.cumulative_sum(xp.asarray(5))).tolist() == [5]  # 0-d: as NumPy
    assert to_np(xp.cumulative_prod(xp.zeros((0,)), include_initial=True)).tolist() == [1.0]


# --- bad input ------------------------------------------------------------------------------

REDUCTIONS = [xp.sum, xp.prod, xp.max, xp.min, xp.mean, xp.var, xp.std]


@pytest.mark.parametrize("f", REDUCTIONS, ids=lambda f: f.__name__)
def test_reduction_bad_input(f):
    name = f.__name__
    x = xp.ones((2, 3))
    with pytest.raises(TypeError, match=f"{name}: 'x' must be a flexarray array, got list"):
        f([1.0, 2.0])
    with pytest.raises(IndexError, match=f"{name}: axis=2 is out of range .* -2 <= axis < 2"):
        f(x, axis=2)
    with pytest.raises(ValueError, match=f"{name}: 'axis' has repeated axes"):
        f(x, axis=(0, -2))
    with pytest.raises(TypeError, match=f"{name}: 'axis' must be an integer, got float"):
        f(x, axis=1.0)
    with pytest.raises(TypeError, match=f"{name}: 'keepdims' must be a bool, got int"):
        f(x, keepdims=1)


def test_dtype_and_correction_bad_input():
    x = xp.ones((3,))
    with pytest.raises(TypeError, match=r"sum: cannot accumulate float64 values in "
                                        r"dtype=int32"):
        xp.sum(x, dtype=xp.int32)
    assert xp.prod(x, dtype="float32").dtype is xp.float32  # any spelling np.dtype() takes
    with pytest.raises(TypeError, match=r"prod: 'dtype' must be a dtype, got 'floaty'; "
                                        r"allowed: bool, .*, or None"):
        xp.prod(x, dtype="floaty")
    with pytest.raises(TypeError, match="sum: 'dtype' must be a numeric dtype"):
        xp.sum(x, dtype=xp.bool)
    with pytest.raises(TypeError, match="sum: cannot accumulate complex128"):
        xp.sum(xp.ones((3,), dtype=xp.complex128), dtype=xp.float64)
    with pytest.raises(TypeError, match="std: 'correction' must be a real Python number, "
                                        "got bool"):
        xp.std(x, correction=True)
    with pytest.raises(TypeError, match="cumulative_prod: 'include_initial' must be a bool"):
        xp.cumulative_prod(x, include_initial=None)
    with pytest.raises(IndexError, match="cumulative_sum: axis=1 is out of range"):
        xp.cumulative_sum(x, axis=1)


# --- the Numba kernel path ------------------------------------------------------------------

KERNEL_DTYPES = [xp.float32, xp.float16, xp.bfloat16, xp.int32, xp.uint8, xp.bool]


@contextlib.contextmanager
def kernels_always():
    """Route every reduction the kernels take through them, whatever its size."""
    from flexarray._engines import gates
    from flexarray._engines import reductions as engine
    saved = gates.REDUCE_KERNEL_MIN, engine.KERNEL_MIN
    gates.REDUCE_KERNEL_MIN, engine.KERNEL_MIN = dict.fromkeys(saved[0], 0), 0
    try:
        yield
    finally:
        gates.REDUCE_KERNEL_MIN, engine.KERNEL_MIN = saved


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min"])
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_kernel_reductions_against_numpy(name, data):
    dtypes = KERNEL_DTYPES if name in ("sum", "prod") else KERNEL_DTYPES[:-1]
    pool = prod_pool if name == "prod" else special_pool
    x, v = data.draw(arrays(dtypes=dtypes, min_dims=1, max_dims=3, min_side=1, max_side=9,
                            pool=pool))
    axis = data.draw(axis_args(x.ndim))
    keepdims = data.draw(st.booleans())
    with kernels_always():
        r = getattr(xp, name)(x, axis=axis, keepdims=keepdims)
    axes = norm_axes(axis, x.ndim)
    if name in ("max", "min"):
        ref = getattr(np, name)(wide(v), axis=axes, keepdims=keepdims)
        assert_exact(r, np.asarray(ref).astype(x.dtype), x.dtype)
        return
    assert_sum_prod(name, r, x, v, axes, keepdims)


def test_sum_max_over_overlapping_windows_match_numpy():
    """Reductions over the innermost axis of sliding windows (rows one element apart, the
    kernels' compute-bound threaded path) against NumPy's sliding_window_view."""
    import flexarray.nn as fnn
    rng = np.random.default_rng(31)
    v = rng.standard_normal(1 << 17).astype(np.float32)  # 8M window elements: kernel sizes
    w = fnn.unfold(xp.asarray(v), 0, 64)
    ref = np.lib.stride_tricks.sliding_window_view(v, 64)
    assert np.allclose(np.asarray(xp.sum(w, axis=-1)), ref.astype(np.float64).sum(-1),
                       rtol=1e-5, atol=1e-4)
    assert np.array_equal(np.asarray(xp.max(w, axis=-1)), ref.max(-1))
    assert np.array_equal(np.asarray(xp.argmax(w, axis=-1)), ref.argmax(-1))


@pytest.mark.parametrize("op", ["sum", "prod", "max", "min", "mean"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("k", [2, 3, 7, 8, 16, 17, 48, 49])
def test_reduction_over_a_short_innermost_axis_matches_numpy_bit_for_bit(op, dtype, k):
    """The column fold of a short innermost axis (gates.SHORT_AXIS_FOLD_MAX*) against
    NumPy's reduce: the same bits (NaN included; the sign of a zero sum, or of a max or
    min where +0 and -0 tie, aside), in C and transposed layouts, with and without
    keepdims; 600 rows of up to 48 (cached) and 20,000 of 16 and 17."""
    rng = np.random.default_rng(k)
    a = (rng.standard_normal((20_000 if k in (16, 17) else 600, k)) * 50).astype(dtype)
    if a.dtype.kind == "f":
        a[::37, 0] = np.nan
        a[5] = -0.0
    kw = {"dtype": np.int64} if op in ("sum", "prod") and a.dtype.kind == "i" else {}
    for arr, axis in ((a, 1), (a, -1), (np.ascontiguousarray(a.T), 0), (a.T, 0)):
        x = xp.asarray(arr)
        with np.errstate(all="ignore"):
            expected = getattr(np, op)(arr, axis=axis, **kw)
        got = to_np(getattr(xp, op)(x, axis=axis))
        assert got.dtype == expected.dtype
        assert np.array_equal(got, expected, equal_nan=True)
        nonzero = expected != 0  # NumPy's sign of a zero sum depends on the layout (its
        # contiguous reduce starts from +0.0); the fold gives IEEE's: -0.0 + -0.0 = -0.0
        assert np.array_equal(np.signbit(got[nonzero]), np.signbit(expected[nonzero]))
        kept = to_np(getattr(xp, op)(x, axis=axis, keepdims=True))
        assert kept.shape == np.expand_dims(expected, axis).shape
@pytest.mark.parametrize("op", ["sum", "prod", "max", "min", "mean", "var", "std"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("shape,axis", [((2000, 20), 0), ((1025, 3), 0), ((4, 2001, 3), 1),
                                        ((20, 2000), 1), ((3000, 1), 0)])
def test_reduction_over_a_long_outer_axis_with_small_slices(op, dtype, shape, axis):
    """The pairwise fold of halves (gates.ROW_FOLD_*) against NumPy: extrema and integer
    sums exactly (NaN propagates), floating sums to the pairwise error bound, in C and
    transposed layouts, with and without keepdims."""
    rng = np.random.default_rng(sum(shape))
    a = (rng.standard_normal(shape) * 3).astype(dtype)
    if op == "prod":
        a = (1 + a / 1e3).astype(dtype) if a.dtype.kind == "f" else np.sign(a).astype(dtype)
    if a.dtype.kind == "f":
        at = [0] * a.ndim
        at[axis] = 77
        a[tuple(at)] = np.nan  # one NaN, in the first output
    for arr in (a, np.asfortranarray(a)):  # the long axis outermost in one of them
        x = xp.asarray(arr)
        for keepdims in (False, True):
            got = to_np(getattr(xp, op)(x, axis=axis, keepdims=keepdims))
            wide_arr = arr.astype(np.float64) if op in ("mean", "var", "std") else arr
            with np.errstate(all="ignore"):
                expected = getattr(np, op)(wide_arr, axis=axis, keepdims=keepdims)
            assert got.shape == expected.shape
            if a.dtype.kind == "i" and op in ("sum", "prod", "max", "min"):
                assert np.array_equal(got, expected)
                continue
            assert np.array_equal(np.isnan(got), np.isnan(expected))
            finite = ~np.isnan(expected)
            bound = 8 * np.finfo(a.dtype if a.dtype.kind == "f" else np.float64).eps * \
                np.sum(np.abs(wide_arr), axis=axis, keepdims=keepdims)[finite] + 1e-300
            if op in ("var", "std"):  # measured: relative errors up to 104 eps for var
                # (int64, in float64), 52 for std, 13 and 7 for float64, 1.3 and 0.7 for float32
                bound = (256 if op == "var" else 128) * np.finfo(
                    a.dtype if a.dtype.kind == "f" else np.float64).eps * np.abs(expected[finite])
            assert np.all(np.abs(got[finite] - expected[finite]) <= bound + 1e-6 * (
                a.dtype == np.float32) * np.abs(expected[finite]))


@pytest.mark.parametrize("op", ["sum", "prod", "max", "min", "mean", "var"])
@pytest.mark.parametrize("axis", [0, 1, None, (0, 1)])
@pytest.mark.parametrize("layout", ["C", "F", "int32"])
def test_large_reductions_split_over_threads_match_numpy(op, axis, layout, monkeypatch):
    """From gates.REDUCE_SPLIT_MIN_BYTES (moved down here to 1 MB) NumPy's reduce runs in
    pieces on the pool's threads: extrema and integer sums exactly NumPy's, floating sums
    to the error bound, whichever axis the pieces cut (the outermost: reduced in C order
    for axis 0, kept in F order). (Fusion off: var's second pass over every axis would
    take the fusion engine's blocks instead, tests/test_fusion.py.)"""
    from flexarray import _threads
    from flexarray._engines import fusion, gates
    from flexarray._engines import reductions as engine
    monkeypatch.setattr(fusion, "MIN", float("inf"))
    monkeypatch.setattr(gates, "REDUCE_SPLIT_MIN_BYTES", 1 << 20)
    monkeypatch.setattr(_threads, "NTHREADS", max(2, _threads.NTHREADS))
    monkeypatch.setattr(_threads, "_blas_spins_until", 0.0)
    splits = []
    real = engine._reduce_split
    monkeypatch.setattr(engine, "_reduce_split", lambda *a: splits.append(1) or real(*a))
    shape = ((1 << 20) // 512 + 3, 517)
    rng = np.random.default_rng(7)
    a = rng.standard_normal(shape)
    if op == "prod":
        a = 1 + a / 1e4
    if layout == "int32":
        a = rng.integers(-1000, 1000, shape).astype(np.int32)
    elif layout == "F":
        a = np.asfortranarray(a)
    assert a.nbytes >= gates.REDUCE_SPLIT_MIN_BYTES
    got = to_np(getattr(xp, op)(xp.asarray(a), axis=axis))
    assert splits or (layout == "int32" and op in ("sum", "prod", "mean")), \
        "no split was tried"  # (integer sums widen in the Numba kernels instead)
    kw = {"dtype": np.int64} if layout == "int32" and op in ("sum", "prod") else {}
    expected = getattr(np, op)(a, axis=axis, **kw)
    assert got.shape == np.shape(expected)
    if op in ("max", "min") or (layout == "int32" and op in ("sum", "prod")):
        assert np.array_equal(got, expected)
    else:
        scale = np.sum(np.abs(a.astype(np.float64)), axis=axis) / (
            1 if op in ("sum", "prod") else a.size / np.size(expected))
        bound = 64 * np.finfo(np.float64).eps * (scale if op != "var" else scale ** 2 + 1)
        assert np.all(np.abs(got - expected) <= bound)



@pytest.mark.parametrize("shape,axis,splits", [((16387, 64), 0, True), ((64, 16387), 0, True),
                                               ((16387, 64), 1, True), ((4099, 256), 0, False)])
def test_short_row_reductions_split_from_their_own_gate(shape, axis, splits, monkeypatch):
    """Below REDUCE_SPLIT_MIN_BYTES, a reduction over one axis of rows of at most
    REDUCE_SHORT_ROW_MAX elements (the innermost dim in memory: the last of a C array,
    the first of its transpose) splits from REDUCE_SPLIT_SHORT_ROWS_MIN elements; longer
    rows do not. Values: NumPy's (extrema exactly, sums to the error bound)."""
    from flexarray import _threads
    from flexarray._engines import gates
    from flexarray._engines import reductions as engine
    monkeypatch.setattr(_threads, "NTHREADS", max(2, _threads.NTHREADS))
    monkeypatch.setattr(_threads, "_blas_spins_until", 0.0)
    tried = []
    real = engine._reduce_split
    monkeypatch.setattr(engine, "_reduce_split", lambda *a: tried.append(1) or real(*a))
    a = np.random.default_rng(3).standard_normal(shape)
    if shape[0] < shape[1]:
        a = a.T.copy().T  # F order: rows of 64 run down the columns
    assert gates.REDUCE_SPLIT_SHORT_ROWS_MIN <= a.size
    assert a.nbytes < gates.REDUCE_SPLIT_MIN_BYTES
    assert np.array_equal(to_np(xp.max(xp.asarray(a), axis=axis)), np.max(a, axis=axis))
    got, expected = to_np(xp.sum(xp.asarray(a), axis=axis)), np.sum(a, axis=axis)
    bound = 64 * np.finfo(np.float64).eps * np.sum(np.abs(a), axis=axis)
    assert np.all(np.abs(got - expected) <= bound)
    assert bool(tried) == splits


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("layout", ["C", "F"])
def test_large_outer_max_min_take_the_kernel_and_give_numpys_values(dtype, layout,
                                                                     monkeypatch):
    """max/min of floats over an axis that is not the innermost in memory, from
    gates.MINMAX_OUTER_KERNEL_MIN_BYTES: the kernel's outer mode on threads, NumPy's
    values exactly (NaN propagates per column; infinities; the column maxima at random
    rows)."""
    from flexarray._engines import gates
    from flexarray._engines import reductions as engine
    used = []
    real = engine._run_kernel
    monkeypatch.setattr(engine, "_run_kernel", lambda *a: used.append(a) or real(*a))
    rows = gates.MINMAX_OUTER_KERNEL_MIN_BYTES // (128 * np.dtype(dtype).itemsize) + 5
    rng = np.random.default_rng(11)
    a = rng.standard_normal((rows, 128)).astype(dtype)
    a[rng.integers(0, rows, 5), [3, 17, 64, 100, 127]] = np.nan
    a[rng.integers(0, rows, 3), [5, 6, 7]] = [np.inf, -np.inf, np.inf]
    axis = 0
    if layout == "F":
        a, axis = np.asfortranarray(a.T), 1
    assert a.nbytes >= gates.MINMAX_OUTER_KERNEL_MIN_BYTES
    x = xp.asarray(a)
    for func in ("max", "min"):
        for keepdims in (False, True):
            got = to_np(getattr(xp, func)(x, axis=axis, keepdims=keepdims))
            expected = getattr(np, func)(a, axis=axis, keepdims=keepdims)
            assert got.dtype == expected.dtype and got.shape == expected.shape
            assert np.array_equal(got, expected, equal_nan=True)
    assert len(used) == 4

def test_std_var_take_numpys_ddof_as_correction():
    """``ddof`` is accepted as NumPy's name for ``correction`` (xarray passes it)."""
    a = np.random.default_rng(5).random((4, 6))
    x = xp.asarray(a)
    for func in ("std", "var"):
        for ddof in (0, 1, 2.5):
            np.testing.assert_allclose(to_np(getattr(xp, func)(x, axis=1, ddof=ddof)),
                                       getattr(np, func)(a, axis=1, ddof=ddof), rtol=1e-12)
        with pytest.raises(ValueError, match="correction.*ddof"):
            getattr(xp, func)(x, correction=1, ddof=1)


@pytest.mark.parametrize("src,dtype", [("float64", "float32"), ("int32", "float32"),
                                       ("float32", "float64"), ("complex64", "complex128"),
                                       ("int8", "float64")])
def test_mean_takes_numpys_dtype(src, dtype):
    """``dtype``: NumPy's keyword of mean (cubed's backend calls it), the accumulation and
    result dtype."""
    a = (np.random.default_rng(7).random((5, 7)) * 10).astype(src)
    x = xp.asarray(a)
    for axis in (None, 0, 1):
        r = xp.mean(x, axis=axis, dtype=dtype)
        e = np.mean(a, axis=axis, dtype=dtype)
        assert r.dtype == np.dtype(dtype)
        np.testing.assert_allclose(to_np(r), e, rtol=1e-6)
    with pytest.raises(TypeError, match="mean: 'dtype' must be a floating-point dtype"):
        xp.mean(x, dtype=xp.int64)
