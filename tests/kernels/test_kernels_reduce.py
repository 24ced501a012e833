"""Reduction kernels against NumPy (exact for integers and max/min) and against exactly
rounded references with error bounds (sums and products of floats)."""
import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flexarray._engines import reductions as reduction_engine
from flexarray._kernels.reductions import reduce as reduce_kernels
from helpers.kernels import arrays, in_layout, random_values, same_bits, shapes

BF16 = np.dtype(ml_dtypes.bfloat16)
NP = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min}


@st.composite
def array_and_axes(draw, dtype, shape=shapes, **kw):
    a = draw(arrays(dtype, shape, **kw))
    axes = tuple(d for d in range(a.ndim) if draw(st.booleans()))
    return a, axes


def float_bound_ok(got, a, axes, op):
    """``got`` within the recursive-summation (or product) error bound of the exact value."""
    x = a.astype(np.longdouble)
    with np.errstate(invalid="ignore"):  # inf - inf in the reference
        exact = NP[op](x, axis=axes)
    n = max(1, int(np.prod([a.shape[d] for d in axes])))
    eps = np.finfo(got.dtype).eps if got.dtype != BF16 else 2.0 ** -8
    if op == "sum":
        scale = np.sum(np.abs(x), axis=axes)
    else:
        scale = np.abs(exact)
    got = np.asarray(got, np.longdouble)
    special = ~np.isfinite(exact)
    ok_special = np.array_equal(got[special], exact[special], equal_nan=True)
    err = np.abs(got[~special] - exact[~special])
    return ok_special and bool(np.all(err <= (n + 2) * eps * scale[~special]))


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([(np.float32, "sum"), (np.float32, "max"), (np.float32, "min"),
                        (np.float64, "sum"), (np.float64, "max")]), st.data())
def test_float_reductions(case, data):
    dtype, op = case
    a, axes = data.draw(array_and_axes(dtype))
    if op != "sum" and a.size == 0:
        return
    if op != "sum" and 0 in [a.shape[d] for d in axes]:
        with pytest.raises(ValueError):
            reduce_kernels.reduce(op, a, axes)
        return
    got = reduce_kernels.reduce(op, a, axes)
    assert got.dtype == a.dtype
    assert got.shape == tuple(n for d, n in enumerate(a.shape) if d not in axes)
    if op == "sum":
        assert float_bound_ok(got, a, axes, op)
    else:  # exact; which zero wins between -0.0 and +0.0 is left open
        with np.errstate(invalid="ignore"):
            want = NP[op](a, axis=axes)
        assert same_bits(got, want, signed_zeros=False)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_float32_summed_in_float64(data):
    """float32 input accumulated in float64 (``dtype=float64``; Dask's mean and moment
    chunks ask for it): a float64 result within float64's summation bound of the exact
    sum, in every layout the strategy draws."""
    a, axes = data.draw(array_and_axes(np.float32))
    got = reduce_kernels.reduce("sum", a, axes, np.float64)
    assert got.dtype == np.float64
    assert got.shape == tuple(n for d, n in enumerate(a.shape) if d not in axes)
    assert float_bound_ok(got, a, axes, "sum")


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([np.float32, np.float64, np.float16, BF16]), st.data())
def test_nan_skipping_sums_and_counts(dtype, data):
    """``nan="skip"``: NaN elements add nothing (NumPy's nansum, within the summation
    bound of the exact value); ``nan="count"``: exactly the number of non-NaN elements;
    both in every layout (values with NaN, infinities and signed zeros)."""
    a, axes = data.draw(array_and_axes(dtype))
    acc = np.float32 if a.dtype in (np.float16, BF16) else a.dtype
    got = reduce_kernels.reduce("sum", a, axes, acc, nan="skip")
    nan = np.isnan(a.astype(np.float32))
    filled = np.where(nan, 0, a.astype(np.float64))
    assert float_bound_ok(np.asarray(got).astype(acc), filled, axes, "sum")
    count = reduce_kernels.reduce("sum", a, axes, np.float64, nan="count")
    assert np.array_equal(count, np.sum(~nan, axis=axes).astype(np.float64))


@settings(max_examples=30, deadline=None)
@given(st.just(np.float32), st.data())
def test_float_products(dtype, data):
    shape = data.draw(shapes)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    v = rng.uniform(0.7, 1.4, shape) * rng.choice([1.0, -1.0], shape)
    if v.size:
        v.reshape(-1)[rng.random(v.size) < 0.05] = rng.choice([0.0, np.inf, np.nan])
    a = in_layout(v.astype(dtype), data.draw(st.sampled_from(["contiguous", "reversed",
                                                                "transposed", "sliced"])))
    axes = tuple(d for d in range(a.ndim) if data.draw(st.booleans()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = reduce_kernels.reduce("prod", a, axes)
        assert got.dtype == a.dtype
        assert float_bound_ok(got, a, axes, "prod")


# (input, accumulator, op): a few combinations, each a compiled specialization
INT_CASES = [(np.int8, np.int64, "sum"), (np.uint64, np.uint64, "sum"),
             (np.int32, np.int64, "prod")]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(INT_CASES), st.data())
def test_integer_sums_and_products_wrap_like_numpy(case, data):
    dtype, acc, op = case
    a, axes = data.draw(array_and_axes(dtype))
    got = reduce_kernels.reduce(op, a, axes, acc)
    ref = NP[op](a, axis=axes, dtype=acc)
    assert got.dtype == ref.dtype and np.array_equal(got, ref)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([(np.int16, "max"), (np.int16, "min")]), st.data())
def test_integer_max_min(case, data):
    dtype, op = case
    a, axes = data.draw(array_and_axes(dtype, st.lists(st.integers(1, 6), max_size=3)
                                       .map(tuple)))
    got = reduce_kernels.reduce(op, a, axes)
    ref = NP[op](a, axis=axes)
    assert got.dtype == ref.dtype and np.array_equal(got, ref)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([(np.float16, "sum"), (BF16, "sum"), (np.float16, "max")]), st.data())
def test_half_reductions_accumulate_in_float32(case, data):
    dtype, op = case
    a, axes = data.draw(array_and_axes(dtype, st.lists(st.integers(1, 6), max_size=3)
                                       .map(tuple)))
    got = reduce_kernels.reduce(op, a, axes)
    assert got.dtype == a.dtype
    if op == "max":
        with np.errstate(invalid="ignore"):
            want = np.max(a.astype(np.float32), axis=axes).astype(dtype)
        assert same_bits(got, want, signed_zeros=False)
        return
    # the exact sum of the float32 values, rounded once to the half dtype, within the
    # float32 accumulation error (which is far below half an ulp of the result here)
    with np.errstate(invalid="ignore"):
        exact = np.sum(a.astype(np.longdouble), axis=axes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = exact.astype(np.float32).astype(dtype)
        err = np.abs(got.astype(np.float64) - want.astype(np.float64))
        ulp = np.spacing(np.abs(want.astype(np.float32))).astype(np.float64) * (
            8192 if np.dtype(dtype) == np.float16 else 65536)
    fin = np.isfinite(want.astype(np.float32))
    assert np.array_equal(np.isnan(got.astype(np.float32)), np.isnan(want.astype(np.float32)))
    assert np.all(err[fin] <= ulp[fin])


def test_float16_sum_neither_overflows_nor_rounds_in_between():
    a = np.tile(np.array([60000.0, 60000.0, -60000.0, -60000.0, 1.0], np.float16), 1000)
    assert reduce_kernels.reduce("sum", a, (0,)) == np.float16(1000.0)  # partial sums exceed 65504
    b = np.full(5000, 1.0, np.float16)  # a float16 accumulator would stop at 2048
    assert reduce_kernels.reduce("sum", b, (0,)) == np.float16(5000.0)


def test_complex_and_bool_sums():
    rng = np.random.default_rng(5)
    c = random_values(np.complex64, (7, 300), rng, special=False)[:, ::-1]
    got = reduce_kernels.reduce("sum", c, (1,))
    ref = np.sum(c.astype(np.complex128), axis=1)
    assert got.dtype == np.complex64 and np.allclose(got, ref, rtol=1e-5, atol=1e-3)
    b = rng.random((50, 70)) < 0.3
    assert np.array_equal(reduce_kernels.reduce("sum", b, (0,), np.int64), b.sum(axis=0))


@pytest.mark.parametrize("axes", [(0, 1), (0,), (1,)])
def test_large_sums_are_pairwise_accurate_and_thread_independent(axes, monkeypatch):
    """Big enough for threads and segments; the result does not depend on the thread
    count, and the error stays at pairwise-summation level (a naive float32 loop is ~100x
    worse here)."""
    rng = np.random.default_rng(7)
    a = (rng.random((1 << 11, 1 << 9)) + 0.5).astype(np.float32)
    if axes == (0,):
        a = np.ascontiguousarray(np.tile(a, (32, 1))[:, :64])  # 65536 rows per column
    exact = np.sum(a.astype(np.float64), axis=axes)
    results = []
    for nthreads in (1, 2, 3):
        results.append(reduce_kernels.reduce("sum", a, axes, nthreads=nthreads))
    assert all(same_bits(r, results[0]) for r in results)
    rel = np.max(np.abs(results[0] - exact) / exact)
    assert rel < 2e-6


def test_empty_and_degenerate_reductions():
    a = np.zeros((3, 0, 4), np.float32)
    assert same_bits(reduce_kernels.reduce("sum", a, (1,)), np.zeros((3, 4), np.float32))
    assert same_bits(reduce_kernels.reduce("prod", a, (1,)), np.ones((3, 4), np.float32))
    assert reduce_kernels.reduce("sum", a, (0,)).shape == (0, 4)
    with pytest.raises(ValueError):
        reduce_kernels.reduce("max", a, (1,))
    with pytest.raises(TypeError):
        reduce_kernels.reduce("max", np.ones(3, np.complex64), (0,))
    x = np.float64(3.5) * np.ones(())
    assert reduce_kernels.reduce("sum", x, ()) == 3.5 and reduce_kernels.reduce("sum", x, ()).shape == ()
    y = np.arange(12.0).reshape(3, 4)
    assert np.array_equal(reduce_kernels.reduce("max", y, ()), y)


def test_many_dims_fall_back_to_a_reordered_copy():
    rng = np.random.default_rng(2)
    a = random_values(np.float64, (3, 2, 3, 2, 3, 2, 3, 2), rng, special=False)[
        ::-1, :, ::2, :, ::-1, :, ::2, :]
    for axes in [(0, 2, 4, 6), (1, 3, 5, 7), (0, 1, 2, 3, 4, 5, 6, 7)]:
        got = reduce_kernels.reduce("sum", a, axes)
        assert np.allclose(got, np.sum(a, axis=axes), rtol=1e-12, atol=1e-12)


def windows(v, size):
    """Overlapping windows of 1-D ``v`` (rows one element apart), read-only."""
    return np.lib.stride_tricks.sliding_window_view(v, size)


@pytest.mark.parametrize("size", [1, 7, 64, 300])
def test_overlapping_window_sums_threads_and_accuracy(size, monkeypatch):
    """Sliding-window sums (compute-bound: their engine gives them threads from
    gates.REDUCE_OVERLAP_THREADS_MIN): the same bits for any thread count, within the error
    bound, and reversed or strided windows too."""
    rng = np.random.default_rng(21)
    v = rng.standard_normal(5000).astype(np.float32)
    for w in (windows(v, size), windows(v[::-1], size), windows(v[::3], size)[::2]):
        results = []
        for nthreads in (1, 2, 3):
            results.append(reduce_kernels.reduce("sum", w, (1,), nthreads=nthreads))
        assert all(same_bits(r, results[0]) for r in results)
        assert float_bound_ok(results[0], w, (1,), "sum")
        assert same_bits(reduce_kernels.reduce("max", w, (1,)), np.max(w, axis=1))
    h = windows(v.astype(np.float16), size)
    want = np.sum(h.astype(np.float64), axis=1).astype(np.float32).astype(np.float16)
    got = reduce_kernels.reduce("sum", h, (1,))
    assert np.allclose(got.astype(np.float32), want.astype(np.float32), rtol=2e-3, atol=1e-2)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([np.float32, np.float64, np.int16, np.int64, np.bool_]),
       st.sampled_from(["sum", "prod", "max", "min"]), st.integers(1, 40),
       st.integers(0, 2**32 - 1), st.sampled_from(["plain", "rows reversed", "reversed",
                                                    "rows strided"]))
def test_short_contiguous_runs(dtype, op, n, seed, layout):
    """Short contiguous reduced runs as the engine runs them (NumPy's loop below its
    _SHORT_RUN, the kernels for widening and halves): results match NumPy for any outer
    layout."""
    rng = np.random.default_rng(seed)
    a = random_values(dtype, (9, n), rng, special=False, small_ints=True)
    v = {"plain": a, "rows reversed": a[::-1], "reversed": a[:, ::-1],
         "rows strided": a[::2]}[layout]
    acc = {np.dtype(np.int16): np.int64, np.dtype(np.bool_): np.int64}.get(np.dtype(dtype))
    if op in ("max", "min"):
        acc = None
    with np.errstate(all="ignore"):
        got = reduction_engine._run_kernel(op, v, (1,), acc)
        ref = NP[op](v, axis=1, dtype=acc) if acc else NP[op](v, axis=1)
    assert got.dtype == ref.dtype
    if np.dtype(dtype).kind == "f" and op in ("sum", "prod"):
        assert np.allclose(got, ref, rtol=1e-5, atol=1e-5)
    else:
        assert np.array_equal(got, ref)


@pytest.mark.parametrize("func", ["prod", "nanprod"])
def test_long_float32_products_are_unbiased(func):
    """Kernel-sized float32 products of data near 1 (gates.REDUCE_KERNEL_MIN, NAN_REDUCE_
    KERNEL_MIN): accumulated in float32 the kernel's lanes, short products near 1, rounded
    with a bias that grew with the length (4M values: relative error 1.6e-3, NumPy's 3.7e-5);
    the float64 product of the same float32 values is the reference."""
    import flexarray as xp
    from flexarray._engines import gates
    n = gates.REDUCE_KERNEL_MIN["float32 sum/prod"]
    a = (1 + (np.random.default_rng(3).random(n) - 0.5) * 2e-3).astype(np.float32)
    a[::1001] = np.nan if func == "nanprod" else a[::1001]
    for b in (a, a.reshape(1024, -1), a.reshape(1024, -1).T):
        for axis in (None, b.ndim - 1):
            exact = getattr(np, func)(b.astype(np.float64), axis=axis)
            got = np.asarray(getattr(xp, func)(xp.asarray(b), axis=axis))
            assert got.dtype == np.float32
            rel = np.max(np.abs(got - exact) / np.abs(exact))
            assert rel < 1e-5, (b.shape, axis, rel)  # (NumPy's own: up to ~4e-6 here)
