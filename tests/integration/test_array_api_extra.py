"""array-api-compat and array-api-extra on flexarray arrays give NumPy's answers.

Every public function of ``array_api_extra`` is called on flexarray inputs and
compared with the same call on NumPy inputs (or NumPy's own function).
"""
import math
import warnings

import numpy as np
import pytest

import array_api_compat as compat
import array_api_extra as xpx

import flexarray as xp

Array = type(xp.asarray(0))

FLOATS = ["float64", "float32"]
REALS = ["float64", "float32", "int64"]
ALL = ["float64", "float32", "int64", "bool", "complex128"]


def rng(seed=0):
    return np.random.default_rng(seed)


def sample(shape, dtype, seed=0, lo=-5, hi=5):
    """Deterministic small NumPy array of ``dtype``."""
    r = rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return r.integers(0, 2, size=shape).astype(bool)
    if dtype.kind in "iu":
        return r.integers(lo, hi, size=shape).astype(dtype)
    if dtype.kind == "c":
        return (r.uniform(lo, hi, size=shape) + 1j * r.uniform(lo, hi, size=shape)).astype(dtype)
    return r.uniform(lo, hi, size=shape).astype(dtype)


def fx(a):
    """flexarray copy of NumPy ``a`` (``xp.asarray`` alone may share ``a``'s memory)."""
    return xp.asarray(np.array(a, copy=True))


def check(res, ref, *, exact=True, rtol=None, atol=0, dtype=True):
    """``res`` is a flexarray Array with ``ref``'s shape, dtype and values."""
    assert isinstance(res, Array), type(res)
    got = np.asarray(res)
    ref = np.asarray(ref)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    if dtype:
        assert got.dtype == ref.dtype, (got.dtype, ref.dtype)
    if exact:
        np.testing.assert_array_equal(got, ref, strict=False)
    else:
        if rtol is None:
            rtol = 1e-5 if ref.dtype in (np.float32, np.complex64) else 1e-12
        np.testing.assert_allclose(got, ref, rtol=rtol, atol=atol, equal_nan=True)


# ---------------------------------------------------------------- array_api_compat


@pytest.mark.parametrize("dtype", ALL)
def test_compat_array_namespace(dtype):
    x = fx(sample((2, 3), dtype))
    assert compat.array_namespace(x) is xp
    assert compat.array_namespace(x, fx(sample(3, dtype))) is xp
    assert compat.array_namespace(x[0, :]) is xp  # a view
    assert x.__array_namespace__() is xp


def test_compat_predicates():
    x = fx(sample((2, 3), "float64"))
    assert compat.is_array_api_obj(x)
    assert compat.is_array_api_obj(x[1:, ::2])
    assert compat.is_writeable_array(x)
    assert compat.is_writeable_array(x[::2])
    assert not compat.is_numpy_array(x)
    assert not compat.is_jax_array(x)
    assert not compat.is_lazy_array(x)
    assert not compat.is_array_api_obj([1, 2])


@pytest.mark.parametrize("shape", [(), (0,), (3,), (2, 3), (2, 0, 4), (2, 3, 4)])
def test_compat_size(shape):
    a = np.zeros(shape)
    x = fx(a)
    assert compat.size(x) == a.size
    assert compat.size(x[..., ::2] if x.ndim else x) == (a[..., ::2] if a.ndim else a).size


def test_compat_device_to_device():
    a = sample((2, 3), "float32")
    x = fx(a)
    dev = compat.device(x)
    assert dev == x.device
    assert dev in xp.__array_namespace_info__().devices()
    y = compat.to_device(x, dev)
    assert isinstance(y, Array)
    assert compat.device(y) == dev
    check(y, a)
    z = compat.to_device(x, xp.__array_namespace_info__().default_device())
    check(z, a)
    assert compat.device(z) == dev


# ---------------------------------------------------------------- elementwise


@pytest.mark.parametrize("dtype", ["complex128", "complex64", "float64", "float32"])
@pytest.mark.parametrize("deg", [False, True])
def test_angle(dtype, deg):
    a = sample((3, 4), dtype)
    a.flat[0] = 0
    a.flat[1] = -1
    res = xpx.angle(fx(a), deg=deg)
    check(res, xpx.angle(a, deg=deg), exact=False)
    check(res, np.angle(a, deg=deg), exact=False)
    check(xpx.angle(fx(a), deg=deg, xp=xp), np.angle(a, deg=deg), exact=False)


@pytest.mark.parametrize("dtype", FLOATS)
def test_deg2rad_rad2deg(dtype):
    a = sample((5,), dtype, lo=-400, hi=400)
    check(xpx.deg2rad(fx(a)), np.deg2rad(a), exact=False)
    check(xpx.rad2deg(fx(a)), np.rad2deg(a), exact=False)
    check(xpx.deg2rad(fx(a), xp=xp), xpx.deg2rad(a), exact=False)
    check(xpx.rad2deg(fx(a), xp=xp), xpx.rad2deg(a), exact=False)


@pytest.mark.parametrize("dtype", FLOATS)
def test_sinc(dtype):
    a = sample((7,), dtype, lo=-3, hi=3)
    a[0] = 0
    a[1] = 1
    a[2] = -2
    check(xpx.sinc(fx(a)), np.sinc(a), exact=False, atol=1e-7)
    check(xpx.sinc(fx(a), xp=xp), xpx.sinc(a), exact=False, atol=1e-7)


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
@pytest.mark.parametrize("fill_value", [0.0, -1.5])
def test_nan_to_num(dtype, fill_value):
    a = sample((6,), dtype)
    a[1] = np.nan
    a[2] = np.inf
    a[3] = -np.inf
    if a.dtype.kind == "c":
        a[4] = complex(np.nan, np.inf)
    res = xpx.nan_to_num(fx(a), fill_value=fill_value)
    check(res, xpx.nan_to_num(a, fill_value=fill_value))
    check(res, np.nan_to_num(a, nan=fill_value))


def test_nan_to_num_int():
    # For namespaces other than numpy/cupy/jax/torch, xpx uses its generic path,
    # ``where(isnan(x), 0.0, x)``, which promotes int to float64 (NumPy's own
    # ``where`` does too); the reference is that generic path run on NumPy.
    from array_api_extra._agnostic._elementwise import nan_to_num as generic
    import array_api_compat.numpy as cnp

    a = np.arange(-3, 3, dtype=np.int64)
    res = xpx.nan_to_num(fx(a))
    check(res, generic(a, xp=cnp))
    check(res, np.nan_to_num(a), dtype=False)


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128", "int64"])
@pytest.mark.parametrize("equal_nan", [False, True])
def test_isclose(dtype, equal_nan):
    a = sample((8,), dtype)
    b = a.copy()
    b[1:3] += 1 if a.dtype.kind in "iu" else 1e-9
    b[3] += 2
    if a.dtype.kind in "fc":
        a[4] = b[4] = np.nan
        a[5] = b[5] = np.inf
        a[6] = np.inf
        b[6] = -np.inf
    ref = np.isclose(a, b, equal_nan=equal_nan)
    check(xpx.isclose(fx(a), fx(b), equal_nan=equal_nan), ref)
    check(xpx.isclose(fx(a), fx(b), equal_nan=equal_nan, xp=xp),
          xpx.isclose(a, b, equal_nan=equal_nan))
    # custom tolerances
    check(xpx.isclose(fx(a), fx(b), rtol=0.0, atol=1.5), np.isclose(a, b, rtol=0.0, atol=1.5))


def test_isclose_broadcast_and_scalar():
    a = sample((3, 1), "float64")
    b = sample((1, 4), "float64", seed=1)
    check(xpx.isclose(fx(a), fx(b), atol=1.0), np.isclose(a, b, atol=1.0))
    check(xpx.isclose(fx(a), 0.5, atol=1.0), np.isclose(a, 0.5, atol=1.0))


def test_isclose_uint_and_bool():
    # For a namespace other than numpy/cupy/jax/torch xpx uses its generic
    # ``abs(a - b) <= atol`` path, which wraps around for unsigned a < b (it does
    # on NumPy too): the reference is that generic path run on NumPy.
    from array_api_extra._agnostic._elementwise import isclose as generic
    import array_api_compat.numpy as cnp

    a = np.asarray([0, 1, 255, 3], dtype=np.uint8)
    b = np.asarray([0, 2, 254, 3], dtype=np.uint8)
    check(xpx.isclose(fx(a), fx(b), atol=1),
          generic(a, b, rtol=1e-5, atol=1, equal_nan=False, xp=cnp))
    c = np.asarray([0, 0, 200, 2], dtype=np.uint8)  # c <= a: no wrap-around
    check(xpx.isclose(fx(a), fx(c), atol=1), np.isclose(a, c, atol=1))
    t = np.asarray([True, False, True])
    check(xpx.isclose(fx(t), fx(~t)), xpx.isclose(t, ~t))


# ---------------------------------------------------------------- apply_where


@pytest.mark.parametrize("dtype", FLOATS)
def test_apply_where_fill_value(dtype):
    a = sample((3, 4), dtype, lo=-2, hi=2)
    cond = a > 0

    def f1(x):
        return x ** 0.5

    ref = xpx.apply_where(cond, a, f1, fill_value=-1)
    res = xpx.apply_where(fx(cond), fx(a), f1, fill_value=-1)
    check(res, ref, exact=False)
    check(res, np.where(cond, np.sqrt(np.abs(a)), -1).astype(dtype), exact=False)


def test_apply_where_f2_and_two_args():
    a = sample((2, 5), "float64")
    b = sample((5,), "float64", seed=2)
    cond = a > b

    def f1(x, y):
        return x - y

    def f2(x, y):
        return x * y

    ref = xpx.apply_where(cond, (a, b), f1, f2)
    res = xpx.apply_where(fx(cond), (fx(a), fx(b)), f1, f2)
    check(res, ref, exact=False)
    check(res, np.where(cond, a - b, a * b), exact=False)
    check(xpx.apply_where(fx(cond), (fx(a), fx(b)), f1, f2, xp=xp), ref, exact=False)


def test_apply_where_fill_value_array_int():
    a = np.arange(-4, 4, dtype=np.int64)
    fill = np.full(8, 7, dtype=np.int64)

    def f1(x):
        return x * 10

    ref = xpx.apply_where(a % 2 == 0, a, f1, fill_value=fill)
    res = xpx.apply_where(fx(a % 2 == 0), fx(a), f1, fill_value=fx(fill))
    check(res, ref)


# ---------------------------------------------------------------- sorting


@pytest.mark.parametrize("dtype", REALS)
@pytest.mark.parametrize("kth", [0, 3, 6])
def test_partition(dtype, kth):
    a = sample((7,), dtype, seed=3)
    res = xpx.partition(fx(a), kth)
    assert isinstance(res, Array)
    got = np.asarray(res)
    ref = np.partition(a, kth)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    assert got[kth] == ref[kth]
    assert np.all(got[:kth] <= got[kth]) and np.all(got[kth + 1:] >= got[kth])
    np.testing.assert_array_equal(np.sort(got), np.sort(a))


@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_partition_nd(axis):
    a = sample((4, 5), "float64", seed=4)
    kth = 2
    res = xpx.partition(fx(a), kth, axis=axis, xp=xp)
    got = np.asarray(res)
    ref = np.partition(a, kth, axis=axis)
    assert isinstance(res, Array) and got.shape == ref.shape
    ax = -1 if axis is None else axis
    np.testing.assert_array_equal(np.take(got, kth, axis=ax), np.take(ref, kth, axis=ax))
    np.testing.assert_array_equal(np.sort(got, axis=ax), np.sort(ref, axis=ax))


@pytest.mark.parametrize("dtype", REALS)
@pytest.mark.parametrize("axis", [0, -1, None])
def test_argpartition(dtype, axis):
    a = sample((4, 6), dtype, seed=5, lo=-50, hi=50)
    kth = 2
    res = xpx.argpartition(fx(a), kth, axis=axis)
    assert isinstance(res, Array)
    idx = np.asarray(res)
    ref = np.argpartition(a, kth, axis=axis)
    assert idx.shape == ref.shape
    assert idx.dtype.kind in "iu"
    flat = a.reshape(-1) if axis is None else a
    ax = -1 if axis is None else axis
    got_vals = np.take_along_axis(flat, idx, axis=ax)
    ref_vals = np.take_along_axis(flat, ref, axis=ax)
    np.testing.assert_array_equal(np.take(got_vals, kth, axis=ax), np.take(ref_vals, kth, axis=ax))
    np.testing.assert_array_equal(np.sort(idx, axis=ax), np.sort(ref, axis=ax))
    np.testing.assert_array_equal(np.sort(got_vals, axis=ax), np.sort(ref_vals, axis=ax))


# ---------------------------------------------------------------- searching / sets


@pytest.mark.parametrize("dtype", REALS)
@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted(dtype, side):
    x1 = np.sort(sample((8,), dtype, seed=6))
    x1[3] = x1[4]
    x2 = np.concatenate([sample((5,), dtype, seed=7), x1[2:5]])
    ref = np.searchsorted(x1, x2, side=side)
    res = xpx.searchsorted(fx(x1), fx(x2), side=side)
    check(res, ref, dtype=False)
    check(res, xpx.searchsorted(x1, x2, side=side))
    # 0-d needle
    check(xpx.searchsorted(fx(x1), fx(x1[3]), side=side, xp=xp),
          xpx.searchsorted(x1, x1[3:4].reshape(()), side=side))


@pytest.mark.parametrize("side", ["left", "right"])
def test_searchsorted_batched(side):
    x1 = np.sort(sample((3, 6), "float64", seed=8), axis=-1)
    x2 = sample((3, 4), "float64", seed=9)
    x2[0, 0] = x1[0, 2]
    ref = np.stack([np.searchsorted(x1[i], x2[i], side=side) for i in range(3)])
    res = xpx.searchsorted(fx(x1), fx(x2), side=side)
    check(res, ref, dtype=False)
    check(res, xpx.searchsorted(x1, x2, side=side))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "bool"])
@pytest.mark.parametrize("invert", [False, True])
def test_isin(dtype, invert):
    a = sample((3, 4), dtype, seed=10, lo=0, hi=6)
    b = sample((5,), dtype, seed=11, lo=0, hi=6)
    if a.dtype.kind == "f":
        a = np.round(a)
        b = np.round(b)
    ref = np.isin(a, b, invert=invert)
    check(xpx.isin(fx(a), fx(b), invert=invert), ref)
    check(xpx.isin(fx(a), fx(b), invert=invert, xp=xp), xpx.isin(a, b, invert=invert))


def test_isin_assume_unique():
    a = np.asarray([1, 4, 6, 9], dtype=np.int64)
    b = np.asarray([9, 1, 3], dtype=np.int64)
    check(xpx.isin(fx(a), fx(b), assume_unique=True), np.isin(a, b, assume_unique=True))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "bool", "complex128"])
def test_nunique(dtype):
    a = sample((4, 5), dtype, seed=12, lo=0, hi=4)
    if a.dtype.kind in "fc":
        a = np.round(a)
    res = xpx.nunique(fx(a))
    assert isinstance(res, Array)
    assert res.ndim == 0
    assert int(res) == np.unique(a).size
    check(res, xpx.nunique(a))


@pytest.mark.parametrize("dtype", ["float64", "int64", "bool"])
@pytest.mark.parametrize("assume_unique", [False, True])
def test_setdiff1d(dtype, assume_unique):
    a = sample((9,), dtype, seed=13, lo=0, hi=8)
    b = sample((4,), dtype, seed=14, lo=0, hi=8)
    if a.dtype.kind == "f":
        a = np.round(a)
        b = np.round(b)
    if assume_unique:
        a = np.unique(a)
        b = np.unique(b)
    ref = np.setdiff1d(a, b, assume_unique=assume_unique)
    check(xpx.setdiff1d(fx(a), fx(b), assume_unique=assume_unique), ref)
    check(xpx.setdiff1d(fx(a), fx(b), assume_unique=assume_unique, xp=xp),
          xpx.setdiff1d(a, b, assume_unique=assume_unique))


def test_setdiff1d_2d_input():
    a = np.asarray([[5, 1, 3], [3, 2, 7]], dtype=np.int64)
    b = np.asarray([3, 9], dtype=np.int64)
    check(xpx.setdiff1d(fx(a), fx(b)), np.setdiff1d(a, b))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "bool"])
def test_union1d(dtype):
    a = sample((2, 4), dtype, seed=15, lo=0, hi=6)
    b = sample((5,), dtype, seed=16, lo=0, hi=6)
    if a.dtype.kind == "f":
        a = np.round(a)
        b = np.round(b)
    check(xpx.union1d(fx(a), fx(b)), np.union1d(a, b))
    check(xpx.union1d(fx(a), fx(b), xp=xp), xpx.union1d(a, b))


# ---------------------------------------------------------------- statistical


@pytest.mark.parametrize("func", ["nanmax", "nanmin", "nanmean", "nansum"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_nan_reductions(func, dtype, axis):
    a = sample((4, 5), dtype, seed=17)
    a[0, 1] = a[2, 3] = a[3, 0] = np.nan
    a[1, :] = np.nan if func == "nansum" else a[1, :]  # a full-NaN row for nansum
    res = getattr(xpx, func)(fx(a), axis=axis)
    ref = getattr(np, func)(a, axis=axis)
    check(res, ref, exact=False)
    check(res, getattr(xpx, func)(a, axis=axis), exact=False)


@pytest.mark.parametrize("func", ["nanmax", "nanmin", "nanmean", "nansum"])
def test_nan_reductions_all_nan_slice(func):
    a = np.asarray([[np.nan, np.nan], [1.0, np.nan], [2.0, 3.0]])
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ref = getattr(xpx, func)(a, axis=1)
    res = getattr(xpx, func)(fx(a), axis=1)
    check(res, ref, exact=False)


# nanmax/nanmin are left out: xpx's generic path fills integer arrays with
# -inf/+inf (``full_like(a, -inf)``), which NumPy only does with a garbage cast.
@pytest.mark.parametrize("func", ["nansum"])
def test_nan_reductions_int(func):
    a = sample((3, 4), "int64", seed=18)
    res = getattr(xpx, func)(fx(a), axis=0)
    check(res, getattr(xpx, func)(a, axis=0), exact=False)
    check(res, getattr(np, func)(a, axis=0), exact=False, dtype=False)


def test_nansum_complex():
    a = sample((3, 4), "complex128", seed=19)
    a[0, 0] = complex(np.nan, 0)
    check(xpx.nansum(fx(a), axis=1), xpx.nansum(a, axis=1), exact=False)
    check(xpx.nansum(fx(a), axis=1), np.nansum(a, axis=1), exact=False)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_cov_basic(dtype):
    m = sample((3, 6), dtype, seed=20)
    res = xpx.cov(fx(m))
    check(res, np.cov(m), exact=False)
    check(res, xpx.cov(m), exact=False)


def test_cov_complex_and_1d():
    m = sample((2, 5), "complex128", seed=21)
    check(xpx.cov(fx(m)), np.cov(m), exact=False)
    v = sample((7,), "float64", seed=22)
    check(xpx.cov(fx(v)), np.cov(v), exact=False)


def test_cov_int_input():
    m = sample((3, 5), "int64", seed=23)
    check(xpx.cov(fx(m)), np.cov(m), exact=False)


def test_cov_axis_correction_weights():
    m = sample((5, 3), "float64", seed=24)
    check(xpx.cov(fx(m), axis=0), np.cov(m, rowvar=False), exact=False)
    check(xpx.cov(fx(m.T), correction=0), np.cov(m.T, ddof=0), exact=False)
    fw = np.asarray([1, 2, 1, 3, 1], dtype=np.int64)
    aw = np.asarray([0.5, 1.0, 2.0, 1.5, 1.0])
    check(xpx.cov(fx(m.T), fweights=fx(fw)), np.cov(m.T, fweights=fw), exact=False)
    check(xpx.cov(fx(m.T), aweights=fx(aw)), np.cov(m.T, aweights=aw), exact=False)
    check(xpx.cov(fx(m.T), fweights=fx(fw), aweights=fx(aw), xp=xp),
          np.cov(m.T, fweights=fw, aweights=aw), exact=False)


# ---------------------------------------------------------------- creation / indexing


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("offset", [0, 1, -2])
def test_create_diagonal(dtype, offset):
    a = sample((4,), dtype, seed=25)
    check(xpx.create_diagonal(fx(a), offset=offset), np.diag(a, k=offset))


def test_create_diagonal_batched():
    a = sample((2, 3, 4), "float64", seed=26)
    res = xpx.create_diagonal(fx(a), offset=1)
    check(res, xpx.create_diagonal(a, offset=1))
    ref = np.stack([[np.diag(a[i, j], k=1) for j in range(3)] for i in range(2)])
    check(res, ref)


@pytest.mark.parametrize("dtype", ["int64", "float64", "float32", "bool", None])
@pytest.mark.parametrize("axis", [-1, 0])
def test_one_hot(dtype, axis):
    x = np.asarray([[0, 3, 1], [2, 2, 4]], dtype=np.int64)
    ref = np.moveaxis(np.eye(5)[x], -1, axis)
    if dtype is not None:
        ref = ref.astype(dtype)
        res = xpx.one_hot(fx(x), 5, dtype=getattr(xp, dtype), axis=axis)
    else:
        res = xpx.one_hot(fx(x), 5, axis=axis)
    check(res, ref)
    np_kw = {} if dtype is None else {"dtype": getattr(np, dtype)}
    check(res, xpx.one_hot(x, 5, axis=axis, **np_kw))


@pytest.mark.parametrize("kind,ref", [
    ("real floating", np.float64),
    ("complex floating", np.complex128),
    ("integral", np.int64),
    ("indexing", np.int64),
])
def test_default_dtype(kind, ref):
    dt = xpx.default_dtype(xp, kind)
    assert dt == xp.__array_namespace_info__().default_dtypes()[kind]
    assert dt == getattr(xp, np.dtype(ref).name)
    assert xp.zeros(1, dtype=dt).dtype == dt
    assert np.asarray(xp.zeros(1, dtype=dt)).dtype == ref
    dev = compat.device(xp.zeros(1))
    assert xpx.default_dtype(xp, kind, device=dev) == dt


@pytest.mark.parametrize("n,ndim", [(3, 2), (4, 3), (1, 1), (0, 2)])
def test_diag_indices(n, ndim):
    res = xpx.diag_indices(n, ndim=ndim, xp=xp)
    ref = np.diag_indices(n, ndim=ndim)
    assert isinstance(res, tuple) and len(res) == len(ref)
    for r, e in zip(res, ref):
        check(r, e, dtype=False)
        assert np.asarray(r).dtype.kind in "iu"


@pytest.mark.parametrize("n,offset,m", [(4, 0, None), (4, 1, None), (4, -1, 6), (3, 2, 5), (5, 0, 2)])
def test_tril_triu_indices(n, offset, m):
    for name in ("tril_indices", "triu_indices"):
        res = getattr(xpx, name)(n, offset=offset, m=m, xp=xp)
        ref = getattr(np, name)(n, k=offset, m=m)
        assert isinstance(res, tuple) and len(res) == 2
        for r, e in zip(res, ref):
            check(r, e, dtype=False)
        # the indices select the same elements
        a = sample((n, n if m is None else m), "float64", seed=27)
        check(fx(a)[res], a[ref])


@pytest.mark.parametrize("shape", [(3, 4), (2, 3, 4), (7,)])
def test_unravel_index(shape):
    size = math.prod(shape)
    idx = np.asarray([0, 1, size - 1, size // 2, 5 % size], dtype=np.int64)
    res = xpx.unravel_index(fx(idx), shape)
    ref = np.unravel_index(idx, shape)
    assert isinstance(res, tuple) and len(res) == len(ref)
    for r, e in zip(res, ref):
        check(r, e, dtype=False)
    res0 = xpx.unravel_index(fx(np.asarray(size - 2)), shape, xp=xp)
    for r, e in zip(res0, np.unravel_index(size - 2, shape)):
        assert isinstance(r, Array) and r.ndim == 0
        assert int(r) == e


# ---------------------------------------------------------------- linalg / manipulation


# bool is left out: kron multiplies, and the standard's multiply is numeric-only
# (flexarray refuses bool arithmetic by design).
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "complex128"])
def test_kron(dtype):
    a = sample((2, 3), dtype, seed=28)
    b = sample((3, 2), dtype, seed=29)
    check(xpx.kron(fx(a), fx(b)), np.kron(a, b), exact=False)
    check(xpx.kron(fx(a), fx(b), xp=xp), xpx.kron(a, b), exact=False)


def test_kron_mixed_ndim():
    a = sample((2,), "float64", seed=30)
    b = sample((2, 2, 3), "float64", seed=31)
    check(xpx.kron(fx(a), fx(b)), np.kron(a, b), exact=False)
    check(xpx.kron(fx(b), fx(a)), np.kron(b, a), exact=False)


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
@pytest.mark.parametrize("ndim", [0, 1, 2, 3, 4])
def test_atleast_nd(shape, ndim):
    a = sample(shape, "float64", seed=32)
    res = xpx.atleast_nd(fx(a), ndim=ndim)
    check(res, xpx.atleast_nd(a, ndim=ndim))
    assert res.ndim == max(ndim, len(shape))


def test_atleast_nd_is_view():
    a = np.zeros((3,))
    x = fx(a)
    y = xpx.atleast_nd(x, ndim=3)
    assert y.shape == (1, 1, 3)
    y[0, 0, 1] = 5.0
    assert float(x[1]) == 5.0  # a view, as in NumPy


@pytest.mark.filterwarnings("ignore:`xpx.broadcast_shapes` is deprecated:DeprecationWarning")
def test_broadcast_shapes():
    cases = [((2, 3), (3,)), ((4, 1, 3), (5, 1), (1,)), ((), (2, 2)), ((0, 3), (1, 3))]
    for shapes in cases:
        assert xpx.broadcast_shapes(*shapes) == np.broadcast_shapes(*shapes)
        assert xpx.broadcast_shapes(*shapes, xp=xp) == np.broadcast_shapes(*shapes)
    # consistent with flexarray's own broadcasting
    arrs = [xp.zeros(s) for s in cases[1]]
    assert tuple(xp.broadcast_arrays(*arrs)[0].shape) == xpx.broadcast_shapes(*cases[1])
    with pytest.raises(ValueError):
        xpx.broadcast_shapes((2, 3), (4,), xp=xp)


@pytest.mark.filterwarnings("ignore:`xpx.expand_dims` is deprecated:DeprecationWarning")
@pytest.mark.parametrize("axis", [0, -1, (0, 2), (1, -1), (0, 1, 2)])
def test_expand_dims(axis):
    a = sample((2, 3), "float32", seed=33)
    res = xpx.expand_dims(fx(a), axis=axis)
    check(res, np.expand_dims(a, axis=axis))
    check(res, xpx.expand_dims(a, axis=axis))


@pytest.mark.parametrize("dtype", ALL)
@pytest.mark.parametrize("pad_width", [1, (1, 2), [(0, 1), (2, 0)]])
def test_pad(dtype, pad_width):
    a = sample((2, 3), dtype, seed=34)
    cv = True if dtype == "bool" else 7
    res = xpx.pad(fx(a), pad_width, constant_values=cv)
    check(res, np.pad(a, pad_width, constant_values=cv))
    if dtype != "bool":  # the default constant_values=0 is an int: unspecified for bool
        check(xpx.pad(fx(a), pad_width, xp=xp), np.pad(a, pad_width))


def test_pad_strided_view():
    a = sample((4, 6), "float64", seed=35)
    x = fx(a)[::2, 1::2]
    check(xpx.pad(x, 1, constant_values=-1.0), np.pad(a[::2, 1::2], 1, constant_values=-1.0))


# ---------------------------------------------------------------- lazy_apply


def test_lazy_apply_eager():
    a = sample((3, 4), "float64", seed=36)

    def f(x, *, k):
        assert isinstance(x, Array)
        return xp.cumulative_sum(x, axis=1) * k

    res = xpx.lazy_apply(f, fx(a), k=2.0, shape=a.shape, dtype=xp.float64)
    check(res, np.cumsum(a, axis=1) * 2.0, exact=False)


def test_lazy_apply_as_numpy_multi_output():
    a = sample((5,), "float64", seed=37)

    def f(x):
        assert isinstance(x, np.ndarray)
        return np.sort(x), np.argsort(x)

    res = xpx.lazy_apply(f, fx(a), shape=[(5,), (5,)],
                         dtype=[xp.float64, xp.int64], as_numpy=True)
    assert isinstance(res, tuple) and len(res) == 2
    check(res[0], np.sort(a))
    check(res[1], np.argsort(a))


# ---------------------------------------------------------------- at


AT_OPS = ["set", "add", "subtract", "multiply", "divide", "power", "min", "max"]


def np_at(a, idx, op, y):
    """Reference ``at``: a NumPy copy updated with NumPy's operators."""
    out = a.copy()
    if op == "set":
        out[idx] = y
    elif op == "add":
        out[idx] += y
    elif op == "subtract":
        out[idx] -= y
    elif op == "multiply":
        out[idx] *= y
    elif op == "divide":
        out[idx] /= y
    elif op == "power":
        out[idx] **= y
    elif op == "min":
        out[idx] = np.minimum(out[idx], y)
    elif op == "max":
        out[idx] = np.maximum(out[idx], y)
    return out


def at_dtypes(op):
    # bool only for set: the standard's arithmetic is numeric-only (flexarray
    # refuses bool + bool by design, NumPy allows it).
    if op == "divide":
        return ["float64", "float32", "complex128"]
    if op in ("subtract",):
        return ["float64", "float32", "int64", "complex128"]
    if op in ("min", "max"):
        return ["float64", "float32", "int64"]
    if op == "power":
        return ["float64", "int64", "complex128"]
    if op in ("add", "multiply"):
        return ["float64", "float32", "int64", "complex128"]
    return ["float64", "float32", "int64", "bool", "complex128"]


def at_value(op, dtype):
    if dtype == "bool":
        return True
    if op == "power":
        return 2
    return {"float64": 2.5, "float32": 2.5, "int64": 3, "complex128": 1.5 - 2j}[dtype]


AT_CASES = [(op, dt) for op in AT_OPS for dt in at_dtypes(op)]

INDICES = {
    "int": lambda a: 1,
    "tuple": lambda a: (1, 2),
    "slice": lambda a: (slice(None), slice(1, None, 2)),
    "ellipsis": lambda a: (..., 0),
    "bool_mask": lambda a: a.real > 0 if a.dtype != np.bool_ else a,
    "bool_row": lambda a: np.asarray([True, False, True]),
    "int_array": lambda a: np.asarray([2, 0], dtype=np.int64),
    "int_arrays_2d": lambda a: (np.asarray([0, 2]), np.asarray([3, 1])),
}


def _fx_idx(idx):
    if isinstance(idx, np.ndarray):
        return fx(idx)
    if isinstance(idx, tuple):
        return tuple(_fx_idx(i) for i in idx)
    return idx


def _at_check(res, ref, op, dtype):
    # set/min/max and integer arithmetic are exact; floating arithmetic within rounding
    exact = op in ("set", "min", "max") or dtype in ("int64", "bool")
    check(res, ref, exact=exact, rtol=1e-6 if dtype == "float32" else 1e-14)


@pytest.mark.parametrize("op,dtype", AT_CASES)
@pytest.mark.parametrize("kind", list(INDICES))
def test_at(op, dtype, kind):
    a = sample((3, 4), dtype, seed=38, lo=1, hi=5)
    if dtype in ("float64", "float32", "complex128"):
        a[0, 0] = -a[0, 0]
    idx = INDICES[kind](a)
    y = at_value(op, dtype)
    ref = np_at(a, idx, op, y)
    fidx = _fx_idx(idx)
    for copy in (None, True, False):
        # the same call through array_api_extra on NumPy
        ref_xpx = getattr(xpx.at(a.copy(), idx), op)(y, copy=copy)
        np.testing.assert_array_equal(ref_xpx, ref)

        x = fx(a)
        kw = {} if copy is None else {"copy": copy}
        res = getattr(xpx.at(x, fidx), op)(y, **kw)
        _at_check(res, ref, op, dtype)
        if copy is True:
            check(x, a)  # the input is untouched
            assert res is not x
        else:  # a writeable namespace: written in place
            assert res is x
            _at_check(x, ref, op, dtype)
    # the alternate syntax at(x)[idx], explicit xp
    x2 = fx(a)
    res2 = getattr(xpx.at(x2)[fidx], op)(y, copy=True, xp=xp)
    _at_check(res2, ref, op, dtype)
    check(x2, a)


@pytest.mark.parametrize("op", AT_OPS)
def test_at_array_rhs(op):
    a = sample((3, 4), "float64", seed=39, lo=1, hi=5)
    yb = sample((4,), "float64", seed=40, lo=1, hi=3)
    ref = np_at(a, (slice(1, None),), op, yb)
    x = fx(a)
    res = getattr(xpx.at(x, (slice(1, None),)), op)(fx(yb))
    check(res, ref, exact=False)
    assert res is x


def test_at_copy_none_in_place_through_view():
    """copy=None writes in place; the base of a view sees it, as in NumPy."""
    base = xp.zeros((4, 4))
    v = base[1:3, ::2]
    out = xpx.at(v, (0, 1)).set(5.0)
    assert out is v
    nb = np.zeros((4, 4))
    nv = nb[1:3, ::2]
    xpx.at(nv, (0, 1)).set(5.0)
    check(base, nb)
    check(v, nv)


def test_at_copy_true_leaves_views_and_aliases_untouched():
    base = fx(np.arange(12.0).reshape(3, 4))
    alias = base[...]
    view = base[1]
    lazy = xp.asarray(base, copy=True)  # a lazy copy-on-write copy
    out = xpx.at(base, (1, slice(None))).add(100.0, copy=True)
    ref = np.arange(12.0).reshape(3, 4)
    check(base, ref)
    check(alias, ref)
    check(view, ref[1])
    check(lazy, ref)
    ref2 = ref.copy()
    ref2[1] += 100
    check(out, ref2)
    # and writing into the copy later does not leak back
    out[0, 0] = -1.0
    check(base, ref)


def test_at_copy_none_on_lazy_copy_does_not_leak():
    a = np.arange(6.0)
    x = fx(a)
    c = xp.asarray(x, copy=True)
    res = xpx.at(c, slice(0, 3)).multiply(2.0)
    assert res is c
    check(x, a)
    check(c, np.where(np.arange(6) < 3, a * 2, a))


def test_at_np_asarray_shares_memory():
    x = fx(np.zeros(4))
    n = np.asarray(x)
    xpx.at(x, 2).set(7.0)
    assert n[2] == 7.0
    xpx.at(n, 1).set(3.0)
    assert float(x[1]) == 3.0


def test_at_errors():
    x = fx(np.zeros(3))
    with pytest.raises(ValueError, match="Index has not been set"):
        xpx.at(x).set(1.0)
    with pytest.raises(ValueError, match="Index has already been set"):
        xpx.at(x, 0)[1]
    with pytest.raises(ValueError, match="copy must be"):
        xpx.at(x, 0).set(1.0, copy="yes")


def test_at_integer_index_duplicates_match_numpy():
    a = np.asarray([10, 20, 30], dtype=np.int64)
    idx = np.asarray([0, 0, 2])
    ref = xpx.at(a.copy(), idx).add(1)
    x = fx(a)
    res = xpx.at(x, fx(idx)).add(1)
    check(res, ref)


# ---------------------------------------------------------------- numpy ufuncs / mixed


def test_ufunc_on_xpx_result_is_flexarray():
    a = sample((3,), "float64", seed=41)
    res = xpx.sinc(fx(a))
    out = np.add(res, 1.0)
    assert isinstance(out, Array)
    check(out, np.sinc(a) + 1.0, exact=False)


# ---------------------------------------------------------------- xpx.testing


@pytest.mark.parametrize("dtype", ALL)
def test_testing_assert_equal(dtype):
    a = sample((2, 3), dtype, seed=42)
    xpx.testing.assert_equal(fx(a), fx(a))
    xpx.testing.assert_equal(fx(a), fx(a), xp=xp)
    b = a.copy()
    b[0, 0] = not b[0, 0] if dtype == "bool" else b[0, 0] + 1
    with pytest.raises(AssertionError):
        xpx.testing.assert_equal(fx(b), fx(a))
    with pytest.raises(AssertionError):  # shape
        xpx.testing.assert_equal(fx(a[:1]), fx(a))
    if dtype != "bool":
        with pytest.raises(AssertionError):  # dtype
            xpx.testing.assert_equal(fx(a.astype(np.complex64)), fx(a))


def test_testing_assert_equal_nan_and_0d():
    a = np.asarray([1.0, np.nan])
    xpx.testing.assert_equal(fx(a), fx(a))
    xpx.testing.assert_equal(fx(np.asarray(2.0)), fx(np.asarray(2.0)), check_scalar=True)
    with pytest.raises(AssertionError):
        xpx.testing.assert_equal(fx(a), fx(np.asarray([1.0, 2.0])))


@pytest.mark.parametrize("dtype", ["float64", "float32", "complex128"])
def test_testing_assert_close(dtype):
    a = sample((3, 3), dtype, seed=43)
    b = a * (1 + 1e-9)
    xpx.testing.assert_close(fx(b), fx(a))
    xpx.testing.assert_close(fx(a + 0.01), fx(a), atol=0.02)
    with pytest.raises(AssertionError):
        xpx.testing.assert_close(fx(a + 1), fx(a))


def test_testing_assert_close_nulp():
    a = sample((4,), "float64", seed=44)
    b = np.nextafter(a, np.inf)
    xpx.testing.assert_close_nulp(fx(b), fx(a), nulp=1)
    xpx.testing.assert_close_nulp(fx(a), fx(a), nulp=0)
    with pytest.raises(AssertionError):
        xpx.testing.assert_close_nulp(fx(a + 1), fx(a), nulp=2)


def test_testing_assert_less():
    a = sample((5,), "float64", seed=45)
    xpx.testing.assert_less(fx(a), fx(a + 1))
    with pytest.raises(AssertionError):
        xpx.testing.assert_less(fx(a), fx(a))


def test_testing_device_check():
    a = sample((3,), "int64", seed=46)
    xpx.testing.assert_equal(fx(a), fx(a), check_device=True)


def _plain(x):
    return xp.sum(x)


xpx.testing.lazy_xp_function(_plain)


def test_testing_patch_lazy_xp_functions(request):
    a = sample((4,), "float64", seed=47)
    with xpx.testing.patch_lazy_xp_functions(request, xp=xp):
        res = _plain(fx(a))
    check(res, np.sum(a), exact=False)


# ---------------------------------------------------------------- layouts and edge cases
#
# Each case is ``f(a, m)``: ``a`` is a 3x4 float64 array of ``m`` (numpy or flexarray);
# the same call through array_api_extra must give the same result on both.


def _nan(m):
    return float("nan")


EDGE_CASES = {
    "nansum_empty": lambda a, m: xpx.nansum(a[:0]),
    "nanmean_empty_axis": lambda a, m: xpx.nanmean(a[:, :0], axis=0),
    "nanmin_neg_axis": lambda a, m: xpx.nanmin(a, axis=-1),
    "nanmean_tuple_neg_axis": lambda a, m: xpx.nanmean(a, axis=(-1, 0)),
    "nanmax_all_nan": lambda a, m: xpx.nanmax(a * _nan(m)),
    "nanmean_all_nan": lambda a, m: xpx.nanmean(a * _nan(m), axis=0),
    "nanmax_signed_zero": lambda a, m: xpx.nanmax(m.asarray([-0.0, 0.0, _nan(m)])),
    "nanmean_f32": lambda a, m: xpx.nanmean(m.asarray([1.0, _nan(m), 2.0], dtype=m.float32)),
    "nanmean_c128": lambda a, m: xpx.nanmean(m.asarray([1.0j, complex(_nan(m), 0), 2.0])),
    "pad_empty": lambda a, m: xpx.pad(a[:0], 1),
    "pad_asymmetric": lambda a, m: xpx.pad(a, ((3, 0), (0, 5)), constant_values=-2.0),
    "pad_complex": lambda a, m: xpx.pad(m.asarray([1j, 2.0]), 2, constant_values=1 + 1j),
    "pad_f32": lambda a, m: xpx.pad(m.asarray([1.0, 2.0], dtype=m.float32), (0, 2), constant_values=0.1),
    "atleast_nd_0d": lambda a, m: xpx.atleast_nd(a[0, 0], ndim=2),
    "atleast_nd_reversed": lambda a, m: xpx.atleast_nd(a[::-1, ::-1], ndim=3),
    "kron_0d": lambda a, m: xpx.kron(a[0, 0], a),
    "kron_python_scalar": lambda a, m: xpx.kron(a, 2.0),
    "kron_int_float": lambda a, m: xpx.kron(m.asarray([1, 2]), m.asarray([0.5, 1.5])),
    "kron_transposed": lambda a, m: xpx.kron(a.T, a[:2, ::-2]),
    "setdiff1d_empty": lambda a, m: xpx.setdiff1d(a[:0, 0], a[:, 0]),
    "setdiff1d_scalar": lambda a, m: xpx.setdiff1d(a[:, 0], 5.0),
    "setdiff1d_int8": lambda a, m: xpx.setdiff1d(m.asarray([1, 2, 3], dtype=m.int8), m.asarray([2], dtype=m.int8)),
    "setdiff1d_nan": lambda a, m: xpx.setdiff1d(m.asarray([1.0, _nan(m), 2.0]), m.asarray([1.0])),
    "union1d_empty": lambda a, m: xpx.union1d(a[:0, 0], a[:0, 0]),
    "union1d_mixed_dtypes": lambda a, m: xpx.union1d(m.asarray([1, 2]), m.asarray([2.5])),
    "isin_0d": lambda a, m: xpx.isin(a[0, 0], a),
    "isin_nan": lambda a, m: xpx.isin(m.asarray([1.0, _nan(m)]), m.asarray([_nan(m)])),
    "isin_signed_zero": lambda a, m: xpx.isin(m.asarray([0.0, -0.0]), m.asarray([-0.0])),
    "isin_kind_sort": lambda a, m: xpx.isin(a, a[0], kind="sort"),
    "nunique_empty": lambda a, m: xpx.nunique(a[:0]),
    "nunique_nan": lambda a, m: xpx.nunique(m.asarray([1.0, _nan(m), _nan(m)])),
    "create_diagonal_empty": lambda a, m: xpx.create_diagonal(a[0, :0]),
    "create_diagonal_big_offset": lambda a, m: xpx.create_diagonal(a[0], offset=5),
    "create_diagonal_reversed": lambda a, m: xpx.create_diagonal(a[::-1, ::-2], offset=-1),
    "one_hot_0d": lambda a, m: xpx.one_hot(m.asarray(2), 3),
    "one_hot_axis_mid": lambda a, m: xpx.one_hot(m.asarray([[0, 1], [2, 0]]), 3, axis=1),
    "one_hot_int8": lambda a, m: xpx.one_hot(m.asarray([1, 0], dtype=m.int8), 2),
    "one_hot_uint16_f32": lambda a, m: xpx.one_hot(m.asarray([1, 0], dtype=m.uint16), 3, dtype=m.float32),
    "cov_0d": lambda a, m: xpx.cov(a[0, 0]),
    "cov_strided": lambda a, m: xpx.cov(a[::-1, 1::2]),
    "cov_nan": lambda a, m: xpx.cov(m.asarray([[1.0, _nan(m), 2.0]])),
    "cov_f32": lambda a, m: xpx.cov(m.asarray([[1.0, 2.0, 4.0], [3.0, 1.0, 0.0]], dtype=m.float32)),
    "cov_c64": lambda a, m: xpx.cov(m.asarray([[1.0, 2.0j, 4.0], [3.0, 1.0, 0.0]], dtype=m.complex64)),
    "sinc_0d": lambda a, m: xpx.sinc(a[1, 1]),
    "sinc_special": lambda a, m: xpx.sinc(m.asarray([float("inf"), 1e-300, -1e-10, 0.0])),
    "sinc_f32": lambda a, m: xpx.sinc(m.asarray([0.0, 0.5, 1.0], dtype=m.float32)),
    "nan_to_num_0d": lambda a, m: xpx.nan_to_num(a[0, 0]),
    "nan_to_num_python_scalar": lambda a, m: xpx.nan_to_num(_nan(m), xp=m),
    "nan_to_num_f32": lambda a, m: xpx.nan_to_num(
        m.asarray([float("inf"), -float("inf"), _nan(m)], dtype=m.float32), fill_value=2.0),
    "nan_to_num_c64": lambda a, m: xpx.nan_to_num(
        m.asarray([complex(float("inf"), _nan(m))], dtype=m.complex64)),
    "isclose_0d": lambda a, m: xpx.isclose(a[0, 0], a[0, 1]),
    "isclose_scalar_first": lambda a, m: xpx.isclose(1.0, a),
    "isclose_inf": lambda a, m: xpx.isclose(
        m.asarray([float("inf"), -float("inf"), 1.0]), m.asarray([float("inf")] * 3)),
    "isclose_complex_nan": lambda a, m: xpx.isclose(
        m.asarray([complex(_nan(m), 1)]), m.asarray([complex(_nan(m), 2)]), equal_nan=True),
    "isclose_int_float": lambda a, m: xpx.isclose(m.asarray([1, 2]), m.asarray([1.0, 2.1])),
    "isclose_int_big": lambda a, m: xpx.isclose(m.asarray([2**62]), m.asarray([2**62 + 10**6]), rtol=1e-3),
    "isclose_int_negative": lambda a, m: xpx.isclose(m.asarray([-5, 5]), m.asarray([-5, -5]), atol=3, rtol=0.0),
    "isclose_views": lambda a, m: xpx.isclose(a.T, a[::-1].T, atol=4.0),
    "searchsorted_empty": lambda a, m: xpx.searchsorted(a[0, :0], a[0]),
    "searchsorted_nan": lambda a, m: xpx.searchsorted(m.asarray([1.0, 2.0, _nan(m)]), m.asarray([_nan(m), 1.5])),
    "searchsorted_int_float": lambda a, m: xpx.searchsorted(m.asarray([1, 3, 5]), m.asarray([2.5, 3.0])),
    "searchsorted_f32_right": lambda a, m: xpx.searchsorted(
        m.asarray([1, 3, 5], dtype=m.float32), m.asarray([2.5, 3.0], dtype=m.float32), side="right"),
    "searchsorted_strided": lambda a, m: xpx.searchsorted(a[:, ::2], a[::-1, 1::2]),
    "partition_single": lambda a, m: xpx.partition(a[0, :1], 0),
    "angle_0d": lambda a, m: xpx.angle(a[0, 0]),
    "angle_signed_zero": lambda a, m: xpx.angle(m.asarray([-0.0, 0.0, -1.0])),
    "angle_complex_signed_zero": lambda a, m: xpx.angle(
        m.asarray([complex(-1.0, -0.0), complex(-0.0, 0.0), complex(-0.0, -0.0)])),
    "deg2rad_int": lambda a, m: xpx.deg2rad(m.asarray([180, 90])),
    "rad2deg_view": lambda a, m: xpx.rad2deg(a[::-1, ::3]),
    "apply_where_0d": lambda a, m: xpx.apply_where(a[0, 0] > 0, a[0, 0], lambda v: v + 1, fill_value=0.0),
    "apply_where_broadcast": lambda a, m: xpx.apply_where(
        m.asarray([True, False]), (m.asarray([[1.0], [2.0]]), m.asarray(3.0)),
        lambda u, v: u + v, lambda u, v: u - v),
    "apply_where_int": lambda a, m: xpx.apply_where(
        m.asarray([True, False]), m.asarray([1, 2]), lambda u: u * 2, fill_value=0),
    "apply_where_f32_nan_fill": lambda a, m: xpx.apply_where(
        m.asarray([True, False]), m.asarray([1.0, 4.0], dtype=m.float32), m.sqrt, fill_value=_nan(m)),
    "apply_where_views": lambda a, m: xpx.apply_where(a.T > 6, (a.T, a[::-1].T), lambda u, v: u / v, fill_value=a.T),
    "expand_dims_0d": lambda a, m: xpx.expand_dims(a[0, 0], axis=(0, 1)),
    "tril_indices_far_below": lambda a, m: xpx.tril_indices(3, offset=-5, xp=m),
    "triu_indices_far_above": lambda a, m: xpx.triu_indices(3, offset=5, xp=m),
    "diag_indices_0": lambda a, m: xpx.diag_indices(0, xp=m),
    "unravel_index_0d": lambda a, m: xpx.unravel_index(m.asarray(5), (2, 3)),
    "unravel_index_empty": lambda a, m: xpx.unravel_index(m.asarray([], dtype=m.int64), (2, 3)),
}


@pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::RuntimeWarning")
@pytest.mark.parametrize("case", list(EDGE_CASES))
def test_edge_cases_match_numpy(case):
    f = EDGE_CASES[case]
    a = np.arange(1.0, 13.0).reshape(3, 4)
    with np.errstate(all="ignore"):
        ref = f(a.copy(), np)
    res = f(fx(a), xp)
    if isinstance(ref, tuple):
        assert isinstance(res, tuple) and len(res) == len(ref)
    else:
        ref, res = (ref,), (res,)
    for r, e in zip(res, ref):
        check(r, e, exact=False, rtol=1e-6 if np.asarray(e).dtype in (np.float32, np.complex64) else 1e-14)


def test_at_on_view_of_lazy_copy():
    b = fx(np.arange(12.0).reshape(3, 4))
    c = xp.asarray(b, copy=True)  # lazy copy of b
    v = c[1:, ::2]
    n = np.asarray(c)  # shares c's elements
    out = xpx.at(v, (0, 1)).add(100.0)
    assert out is v
    ref = np.arange(12.0).reshape(3, 4)
    check(b, ref)  # the lazy copy's source is untouched
    ref[1, 2] += 100.0
    check(c, ref)  # the write went through the view into c
    assert n[1, 2] == ref[1, 2]
    r2 = xpx.at(b[::-1], 0).set(-1.0, copy=True)  # copy of a reversed view
    check(b, np.arange(12.0).reshape(3, 4))
    check(r2, np.arange(12.0).reshape(3, 4)[::-1] * np.asarray([[0], [1], [1]]) - np.asarray([[1], [0], [0]]))


def test_at_0d_and_0d_bool_index():
    z = fx(np.asarray(3.0))
    out = xpx.at(z, ()).add(1.0)
    assert out is z and float(z) == 4.0
    m = fx(np.asarray([1.0, -2.0, 3.0]))
    ref = xpx.at(np.asarray([1.0, -2.0, 3.0]), np.asarray(True)).set(0.0)
    check(xpx.at(m, xp.asarray(True)).set(0.0), ref)
    check(m, ref)
