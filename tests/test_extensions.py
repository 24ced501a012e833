"""The NumPy-named extensions (flexarray/_extensions.py) against NumPy's own functions:
every dtype category, axes and keepdims, NaN patterns (none, some, all-NaN slices), empty
arrays, strided inputs; warnings and errors where NumPy gives them; routing of ``np.nan*``
and ``np.einsum`` through ``__array_function__``; bad input.
"""
import itertools
import warnings

import numpy as np
import pytest

import flexarray as xp
from flexarray._protocols.numpy_protocols import FUNCTIONS

NAN_FUNCS = ["nansum", "nanprod", "nanmax", "nanmin", "nanargmax", "nanargmin", "nanmean",
             "nanvar", "nanstd", "nancumsum", "nancumprod", "cumsum", "cumprod"]
CUMULATIVE = {"nancumsum", "nancumprod", "cumsum", "cumprod"}
ORDERED = {"nanmax", "nanmin", "nanargmax", "nanargmin"}
DTYPES = ["bool", "int8", "int32", "uint8", "int64", "float16", "float32", "float64",
          "complex64", "complex128"]
PATTERNS = ["none", "some", "all-nan-row"]
#: rtol per result precision (float16 results are compared with a float32 reference)
SLICE_WARNING = "slice"  # in each of NumPy's messages: All-NaN / Mean of empty / Degrees of freedom
RTOL = {"e": 2e-3, "f": 2e-5, "d": 1e-12, "F": 2e-5, "D": 1e-12}


def sample(dtype, pattern, shape=(4, 5), seed=0):
    rng = np.random.default_rng(seed)
    dt = np.dtype(dtype)
    if dt.kind == "b":
        return rng.random(shape) < 0.5
    if dt.kind in "iu":
        return rng.integers(0 if dt.kind == "u" else -3, 4, shape).astype(dt)
    a = rng.uniform(-2, 2, shape)
    if dt.kind == "c":
        a = a + 1j * rng.uniform(-2, 2, shape)
    a = a.astype(dt)
    if pattern != "none" and a.size:
        flat = a.reshape(-1)
        flat[rng.random(flat.size) < 0.3] = np.nan
        if dt.kind == "c":
            flat[1] = complex(1.0, np.nan)  # NaN in the imaginary part only counts as NaN
        if pattern == "all-nan-row":
            a[1] = np.nan
    return a


def reference(func, a, **kw):
    """NumPy's answer, with its warnings and errors. float16 is computed in float32 and
    rounded (NumPy's float16 sums round every step; flexarray's round once)."""
    half = a.dtype == np.float16
    src = a.astype(np.float32) if half else a
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = np.asarray(getattr(np, func)(src, **kw))
        except (ValueError, TypeError) as e:
            return e, w
    if half and r.dtype == np.float32:
        r = r.astype(np.float16)
    return r, w


def check_against_numpy(func, a, **kw):
    expected, np_warns = reference(func, a, **kw)
    x = xp.asarray(a)
    if isinstance(expected, Exception):
        with pytest.raises(type(expected)):
            getattr(xp, func)(x, **kw)
        return
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = getattr(xp, func)(x, **kw)
    assert isinstance(r, xp.Array)
    assert r.dtype == expected.dtype, (func, a.dtype, kw)
    assert r.shape == expected.shape
    got = np.asarray(r)
    if expected.dtype.char in "efdFD":
        tol = RTOL[expected.dtype.char]
        np.testing.assert_allclose(got, expected, rtol=tol, atol=tol * 10, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected)
    # NumPy's warnings about empty or all-NaN slices are given too (flexarray's IEEE
    # arithmetic is quiet otherwise: inf - inf is NaN without "invalid value")
    if any(SLICE_WARNING in str(i.message) for i in np_warns):
        assert any(issubclass(i.category, RuntimeWarning) and SLICE_WARNING in str(i.message)
                   for i in w), (func, kw)


AXES = [dict(), dict(axis=0), dict(axis=1), dict(axis=-1, keepdims=True),
        dict(axis=(0, 1)), dict(axis=None, keepdims=True)]


def axes_for(func):
    if func in CUMULATIVE:
        return [dict(), dict(axis=0), dict(axis=-1)]
    if func in ("nanargmax", "nanargmin"):
        return [dict(), dict(axis=0), dict(axis=1, keepdims=True), dict(axis=None,
                                                                       keepdims=True)]
    return AXES


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("func", NAN_FUNCS)
def test_against_numpy(func, dtype):
    patterns = PATTERNS if np.dtype(dtype).kind in "fc" else ["none"]
    for pattern, kw in itertools.product(patterns, axes_for(func)):
        a = sample(dtype, pattern)
        if func in ORDERED and np.dtype(dtype).kind == "c":
            with pytest.raises(TypeError, match="complex"):
                getattr(xp, func)(xp.asarray(a), **kw)
            continue
        check_against_numpy(func, a, **kw)


@pytest.mark.parametrize("func", NAN_FUNCS)
@pytest.mark.parametrize("shape", [(0,), (0, 3), (3, 0)])
def test_empty(func, shape):
    for kw in axes_for(func):
        if "axis" in kw and kw["axis"] not in (None, 0) and len(shape) == 1:
            continue
        check_against_numpy(func, np.zeros(shape, np.float64), **kw)


@pytest.mark.parametrize("func", NAN_FUNCS)
def test_strided_and_0d(func):
    base = sample("float64", "some", (6, 8), seed=3)
    for a in (base[::2, ::-3], base.T, base[1:4, 2:7]):
        check_against_numpy(func, a)
        check_against_numpy(func, a, axis=0)
    check_against_numpy(func, np.array(2.5))
    check_against_numpy(func, np.array(np.nan))


def test_nan_positions_match_numpy():
    """NaN next to infinities: replaced by the neutral value exactly as NumPy does."""
    a = np.array([[np.nan, -np.inf, 1.0], [np.inf, np.nan, np.nan], [np.nan, -np.inf, np.nan]])
    for func in ("nanmax", "nanmin", "nanargmax", "nanargmin", "nansum"):
        for axis in (None, 0, 1):
            check_against_numpy(func, a, axis=axis)


@pytest.mark.parametrize("ddof", [0, 1, 2, 1.5])
def test_nanvar_ddof(ddof):
    for dtype in ("float32", "float64", "complex128", "int32"):
        a = sample(dtype, "some", (5, 4), seed=1)
        for func, axis in itertools.product(("nanvar", "nanstd"), (None, 0, 1)):
            check_against_numpy(func, a, axis=axis, ddof=ddof)
            expected, _ = reference(func, a, axis=axis, correction=ddof)
            with warnings.catch_warnings():  # (checked above, with ddof)
                warnings.simplefilter("ignore", RuntimeWarning)
                got = getattr(xp, func)(xp.asarray(a), axis=axis, correction=ddof)
            np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-5, equal_nan=True)


def test_dtype_argument():
    f32 = sample("float32", "some", seed=2)
    i8 = sample("int8", "none")
    check_against_numpy("nansum", f32, axis=0, dtype=np.float64)
    check_against_numpy("nanprod", i8, axis=1, dtype=np.int64)
    check_against_numpy("nanmean", f32, axis=1, dtype=np.float64)
    check_against_numpy("nanmean", i8, dtype=np.float32)
    check_against_numpy("nanvar", i8, axis=0, dtype=np.float32)
    check_against_numpy("nancumsum", i8, axis=1, dtype=np.int64)
    check_against_numpy("nancumsum", f32, dtype=np.float64)


def test_bfloat16_computes_as_float32():
    a = sample("float32", "some", seed=4)
    x = xp.astype(xp.asarray(a), xp.bfloat16)
    ref = np.asarray(xp.astype(x, xp.float32))  # the bfloat16 values, exactly
    for func in ("nansum", "nanmean", "nanmax", "nanvar", "nancumsum"):
        r = getattr(xp, func)(x, axis=0)
        assert r.dtype == xp.bfloat16
        expected = getattr(np, func)(ref, axis=0)
        np.testing.assert_allclose(np.asarray(xp.astype(r, xp.float32)), expected,
                                   rtol=2e-2, atol=2e-2, equal_nan=True)


@pytest.mark.parametrize("func", NAN_FUNCS + ["einsum"])
def test_numpy_calls_route_here(func):
    """np.nansum(x) & co. run flexarray's function (the __array_function__ table) and
    return flexarray arrays with NumPy's values."""
    npf = getattr(np, func)
    assert FUNCTIONS[npf] is getattr(xp, func)
    a = sample("float64", "some", seed=5)
    a[1] = 1.0  # no all-NaN slice
    x = xp.asarray(a)
    args = ("ij->j", x) if func == "einsum" else (x,)
    kw = {} if func == "einsum" else {"axis": 0}
    r = npf(*args, **kw)
    assert isinstance(r, xp.Array)
    np_args = ("ij->j", a) if func == "einsum" else (a,)
    np.testing.assert_allclose(np.asarray(r), npf(*np_args, **kw), rtol=1e-12)


def test_numpy_arguments_flexarray_does_not_take_run_numpy():
    a = sample("complex128", "some", seed=6)
    a[1] = 1.0
    x = xp.asarray(a)
    r = np.nanmax(x, axis=0)  # complex order: NumPy's lexicographic meaning
    assert isinstance(r, xp.Array)
    np.testing.assert_array_equal(np.asarray(r), np.nanmax(a, axis=0))
    out = xp.zeros((5,), dtype=xp.complex128)
    assert np.nansum(x, axis=0, out=out) is out
    np.testing.assert_allclose(np.asarray(out), np.nansum(a, axis=0))


# --- einsum ---------------------------------------------------------------------------------

EINSUM_CASES = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk,kl->il", [(3, 4), (4, 5), (5, 2)]),
    ("ij,jk,kl,lm->im", [(2, 30), (30, 3), (3, 40), (40, 2)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("i,i", [(6,), (6,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij,jk", [(3, 4), (4, 2)]),  # implicit output
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("ijk,kl->ijl", [(2, 3, 4), (4, 5)]),
    ("ij,ij->i", [(3, 4), (3, 4)]),
]


def operand(shape, dtype, seed):
    a = sample(dtype, "none", shape, seed)
    return a


@pytest.mark.parametrize("subscripts,shapes", EINSUM_CASES)
@pytest.mark.parametrize("dtype", ["bool", "int32", "uint8", "float16", "float32", "float64",
                                   "complex128"])
def test_einsum_against_numpy(subscripts, shapes, dtype):
    ops = [operand(s, dtype, i) for i, s in enumerate(shapes)]
    src = [o.astype(np.float32) for o in ops] if dtype == "float16" else ops
    expected = np.asarray(np.einsum(subscripts, *src))
    for optimize in (True, False, "optimal"):
        r = xp.einsum(subscripts, *map(xp.asarray, ops), optimize=optimize)
        assert isinstance(r, xp.Array)
        assert r.shape == expected.shape
        assert r.dtype == np.dtype(dtype)
        got = np.asarray(r)
        if dtype == "float16":
            np.testing.assert_allclose(got, expected.astype(np.float16), rtol=2e-3, atol=2e-3)
        elif dtype in ("float32", "float64", "complex128"):
            np.testing.assert_allclose(got, expected, rtol=RTOL[np.dtype(dtype).char] * 10)
        else:
            np.testing.assert_array_equal(got, expected)


def test_einsum_strided_mixed_and_dtype():
    a = sample("float64", "none", (6, 8), seed=7)[::2, ::-2]  # (3, 4), negative strides
    b = sample("int32", "none", (4, 5), seed=8)
    r = xp.einsum("ij,jk->ik", xp.asarray(a), xp.asarray(b))
    assert r.dtype == xp.float64
    np.testing.assert_allclose(np.asarray(r), np.einsum("ij,jk->ik", a, b), rtol=1e-12)
    f32 = sample("float32", "none", (3, 4), seed=9)
    r = xp.einsum("ij->i", xp.asarray(f32), dtype=xp.float64)
    assert r.dtype == xp.float64
    np.testing.assert_allclose(np.asarray(r), np.einsum("ij->i", f32, dtype=np.float64))
    path = np.einsum_path("ij,jk,kl->il", a, b, b.T, optimize="greedy")[0]
    r = xp.einsum("ij,jk,kl->il", xp.asarray(a), xp.asarray(b), xp.asarray(b.T), optimize=path)
    np.testing.assert_allclose(np.asarray(r), a @ b @ b.T, rtol=1e-12)


def test_einsum_result_does_not_share_memory():
    x = xp.reshape(xp.arange(9.0), (3, 3))
    before = np.asarray(x).copy()
    for subscripts in ("ii->i", "ij->ji", "ij->ij"):
        r = xp.einsum(subscripts, x)
        r[...] = -1.0
        np.testing.assert_array_equal(np.asarray(x), before)


@pytest.mark.parametrize("sublists,out", [
    ([[0, 1], [1, 2]], [0, 2]),          # matmul, explicit output
    ([[0, 1], [1, 2]], None),            # implicit output
    ([[1, 0]], None),                    # a transpose
    ([[Ellipsis, 1]], [Ellipsis]),       # a sum over the last axis, broadcast dimensions
    ([[0, 1]], []),                      # a full sum
    ([[0, 51], [51, 2]], [2, 0]),        # the last letter NumPy allows
])
def test_einsum_interleaved_form_against_numpy(sublists, out):
    """NumPy's interleaved form ``einsum(x, sublist, y, sublist, [out])``."""
    rng = np.random.default_rng(len(sublists))
    extent = {Ellipsis: 3}
    args_np, args_fx = [], []
    for sub in sublists:
        a = rng.standard_normal(tuple(extent.setdefault(s, 2 + len(extent)) for s in sub))
        args_np += [a, sub]
        args_fx += [xp.asarray(a), sub]
    tail = [] if out is None else [out]
    got = xp.einsum(*args_fx, *tail)
    assert type(got) is type(xp.asarray(0))
    np.testing.assert_allclose(np.asarray(got), np.einsum(*args_np, *tail), rtol=1e-12,
                               atol=1e-12)


def test_einsum_interleaved_form_bad_input():
    x = xp.ones((2, 3))
    with pytest.raises(TypeError, match="einsum: the interleaved form pairs every operand"):
        xp.einsum(x, [0, 1], x)
    with pytest.raises(ValueError, match="einsum: the sublist of operand 0 holds 52"):
        xp.einsum(x, [0, 52])
    with pytest.raises(TypeError, match="einsum: the sublist of operand 0 must be a list"):
        xp.einsum(x, 3)


def test_einsum_bad_input():
    x = xp.ones((2, 2))
    with pytest.raises(TypeError, match="subscripts"):
        xp.einsum([0, 1], x)
    with pytest.raises(TypeError, match=r"operands\[1\]"):
        xp.einsum("ij,jk", x, [[1.0, 2.0], [3.0, 4.0]])  # (a NumPy array is taken)
    with pytest.raises(ValueError, match="optimize"):
        xp.einsum("ij,jk", x, x, optimize="fast")
    with pytest.raises(ValueError, match="casting"):
        xp.einsum("ij", x, casting="whatever")
    with pytest.raises(TypeError, match="cannot cast"):
        xp.einsum("ij", x, dtype=xp.int32)
    with pytest.raises(ValueError, match="at least one"):
        xp.einsum("ij")
    with pytest.raises(ValueError):  # NumPy's own check of the subscripts
        xp.einsum("ij,jk->ik", x, xp.ones((3, 2)))


def test_nan_bad_input():
    x = xp.asarray([[1.0, np.nan]])
    with pytest.raises(TypeError, match="nansum: 'a' must be a flexarray array"):
        xp.nansum([1.0, 2.0])
    with pytest.raises(IndexError, match="nanmean: axis=2"):
        xp.nanmean(x, axis=2)
    with pytest.raises(TypeError, match="nanmax: 'keepdims'"):
        xp.nanmax(x, keepdims="yes")
    with pytest.raises(TypeError, match="nanargmax: 'axis' must be an integer"):
        xp.nanargmax(x, axis=(0, 1))
    with pytest.raises(ValueError, match="ddof.*correction"):
        xp.nanvar(x, ddof=1, correction=1)
    with pytest.raises(TypeError, match="nanmean: 'dtype' must be a floating"):
        xp.nanmean(x, dtype=xp.int64)
    with pytest.raises(TypeError, match="nanstd: 'correction'"):
        xp.nanstd(x, ddof="1")
    with pytest.raises(IndexError, match="nancumsum: axis=3"):
        xp.nancumsum(x, axis=3)


# --- NumPy names xarray calls on the namespace ----------------------------------------------

@pytest.mark.parametrize("dtype", ["int16", "float32", "float64", "complex128", "float16"])
def test_transpose_pad_median_quantile(dtype):
    a = sample(dtype, "none", (3, 4, 2), seed=11)
    x = xp.asarray(a)
    for axes in (None, (2, 0, 1), [1, 0, 2]):
        r = xp.transpose(x, axes)
        np.testing.assert_array_equal(np.asarray(r), np.transpose(a, axes))
    for kw in (dict(pad_width=1), dict(pad_width=((1, 0), (0, 2), (0, 0)), constant_values=7),
               dict(pad_width=2, mode="edge"), dict(pad_width=((0, 0), (2, 2), (0, 0)),
                                                     mode="reflect")):
        r = xp.pad(x, **kw)
        assert isinstance(r, xp.Array) and r.dtype == x.dtype
        np.testing.assert_array_equal(np.asarray(r), np.pad(a, **kw))
    if np.dtype(dtype).kind == "c":
        return
    for axis in (None, 0, (1, 2)):
        check_against_numpy("median", a, axis=axis)
        check_against_numpy("quantile", a, q=[0.1, 0.5], axis=axis)
        check_against_numpy("quantile", a, q=0.3, axis=axis, method="nearest", keepdims=True)


def test_transpose_is_a_view_and_pad_a_copy():
    x = xp.reshape(xp.arange(6.0), (2, 3))
    t = xp.transpose(x)
    x[0, 1] = 10.0
    assert float(t[1, 0]) == 10.0
    p = xp.pad(x, 1)
    p[1, 1] = -5.0
    assert float(x[0, 0]) == 0.0


def test_sliding_window_view():
    a = sample("float64", "some", (5, 6), seed=12)
    x = xp.asarray(a)
    for args in (((3, 2),), ((2, 2),), (3, 1), ((2,), (0,))):
        r = xp.lib.stride_tricks.sliding_window_view(x, *args)
        np.testing.assert_array_equal(np.asarray(r),
                                      np.lib.stride_tricks.sliding_window_view(a, *args))
    r = xp.lib.stride_tricks.sliding_window_view(x, 2, axis=0)
    with pytest.raises(ValueError, match="read-only"):
        r[0, 0, 0] = 1.0
    x[1, 0] = 42.0  # a view: the windows see writes to x
    assert float(r[0, 0, 1]) == 42.0 and float(r[1, 0, 0]) == 42.0
    with pytest.raises(ValueError, match="writeable"):
        xp.lib.stride_tricks.sliding_window_view(x, 2, writeable=True)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("func", ["nanvar", "nanstd"])
def test_large_nanvar_of_slices_with_infinities_is_nan(func, dtype):
    """An infinity in a slice makes NaN deviations (inf - inf), which must reach the result
    as NumPy's (only the input's own NaN are skipped): NaN for a slice holding +inf, or +inf
    and -inf; inf for a sum that merely overflows. Kernel-sized arrays; NumPy the
    reference."""
    from flexarray._engines import gates
    rows = gates.NAN_REDUCE_KERNEL_MIN // 50 + 3
    a = np.random.default_rng(5).random((rows, 50)).astype(dtype)
    a[::7, 3] = np.nan
    a[10, 0] = np.inf                      # column 0: +inf
    a[11, 1], a[12, 1] = np.inf, -np.inf   # column 1: both signs
    a[:, 2] = np.finfo(dtype).max          # column 2: the sum overflows, no infinity
    a[5, 4] = -np.inf                      # row 5, and column 4
    for kw in (dict(), dict(axis=0), dict(axis=1, ddof=1), dict(axis=0, keepdims=True)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expected = getattr(np, func)(a, **kw)
            got = np.asarray(getattr(xp, func)(xp.asarray(a), **kw))
        assert got.dtype == expected.dtype and got.shape == np.shape(expected)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(expected), err_msg=str(kw))
        np.testing.assert_array_equal(np.isinf(got), np.isinf(expected), err_msg=str(kw))


def test_namespace_exports():
    assert "lib" in xp.__all__
    for name in NAN_FUNCS + ["einsum", "transpose", "pad", "median", "quantile"]:
        assert name in xp.__all__
        assert getattr(xp, name).__module__ == "flexarray._extensions"


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("func", ["nansum", "nanprod", "nanmean", "nanvar", "nanstd"])
def test_large_arrays_take_the_nan_kernel(func, dtype, monkeypatch):
    """From gates.NAN_REDUCE_KERNEL_MIN elements the reduction kernel skips (or counts) NaN
    as it reads: NumPy's values (the reference in float64), dtypes, shapes and warnings
    (an all-NaN row), for C, F and reversed layouts, every axis and ddof."""
    from flexarray._engines import gates
    from flexarray._engines import reductions as engine
    used = []
    real = engine.nan_reduce
    monkeypatch.setattr(engine, "nan_reduce", lambda *a: used.append(1) or real(*a))
    a = sample(dtype, "all-nan-row", (gates.NAN_REDUCE_KERNEL_MIN // 300 + 7, 300), seed=4)
    if func == "nanprod":
        a = (1 + a / 1000).astype(dtype)  # (products of ~900 factors stay finite)
    extra = [dict(axis=0, ddof=1), dict(axis=1, ddof=2.5)] if func in ("nanvar", "nanstd") \
        else []
    rtol = 1e-4 if dtype == "float32" else 1e-10
    for b in (a, np.asfortranarray(a), a[::-1]):
        for kw in AXES + extra:
            with warnings.catch_warnings(record=True) as np_warns:
                warnings.simplefilter("always")
                expected = np.asarray(getattr(np, func)(b.astype(np.float64), **kw))
                np_dtype = np.asarray(getattr(np, func)(b, **kw)).dtype
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                r = getattr(xp, func)(xp.asarray(b), **kw)
            got = np.asarray(r)
            assert got.dtype == np_dtype and got.shape == expected.shape, (kw, got.dtype)
            scale = np.nansum(np.abs(b.astype(np.float64)), axis=kw.get("axis"),
                              keepdims=kw.get("keepdims", False)) / b.size * got.size
            np.testing.assert_allclose(got, expected, rtol=rtol, atol=rtol * np.max(scale),
                                       equal_nan=True)
            if any(SLICE_WARNING in str(i.message) for i in np_warns):
                assert any(SLICE_WARNING in str(i.message) for i in w), kw
    assert used, "the kernel was not asked"
