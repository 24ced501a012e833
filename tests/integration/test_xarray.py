"""flexarray arrays inside xarray: ``DataArray(flexarray_array)`` keeps flexarray data
(``.data`` is a flexarray Array) through xarray's operations and gives the values xarray
gives for the same data as NumPy (the reference). Skipped without xarray.
"""
import warnings

import numpy as np
import pytest

import flexarray as xp

xr = pytest.importorskip("xarray", reason="xarray is not installed (pip install flexarray[xarray])")


def sample(dtype="float64", nan=True):
    rng = np.random.default_rng(0)
    a = rng.random((6, 8))
    if nan:
        a[a < 0.15] = np.nan
        a[:, 3] = np.nan  # an all-NaN column
    return a.astype(dtype)


COORDS = {"t": np.arange(6), "x": np.linspace(0.0, 1.0, 8), "g": ("t", [0, 1, 0, 1, 2, 2])}


def pair(a):
    """The same data as a flexarray-backed and a NumPy-backed DataArray."""
    return (xr.DataArray(xp.asarray(a), dims=("t", "x"), coords=COORDS),
            xr.DataArray(a, dims=("t", "x"), coords=COORDS))


OPS = {
    "arith": lambda d: d * 2 + d / 3 - 1,
    "ufunc": lambda d: np.sin(d),
    "compare": lambda d: d > 0.5,
    "mean": lambda d: d.mean("t"),
    "mean-noskip": lambda d: d.mean("t", skipna=False),
    "sum": lambda d: d.sum(),
    "sum-min_count": lambda d: d.sum("t", min_count=2),
    "max": lambda d: d.max("x"),
    "max-noskip": lambda d: d.max("x", skipna=False),
    "min": lambda d: d.min(),
    "std": lambda d: d.std("t"),
    "std-ddof1": lambda d: d.std("t", ddof=1),
    "var": lambda d: d.var("x"),
    "var-noskip": lambda d: d.var(skipna=False),
    "median": lambda d: d.median("t"),
    "prod": lambda d: d.prod("x"),
    "count": lambda d: d.count("x"),
    "argmax": lambda d: d.fillna(-1.0).argmax("x"),
    "argmax-skipna": lambda d: d.isel(x=[0, 1, 2, 4]).argmax("t"),
    "argmin-skipna": lambda d: d.isel(x=[0, 1, 2, 4]).argmin("x"),
    "cumsum": lambda d: d.cumsum("t"),
    "cumsum-noskip": lambda d: d.cumsum("t", skipna=False),
    "cumprod": lambda d: d.cumprod("x"),
    "where": lambda d: d.where(d > 0.5),
    "where-other": lambda d: d.where(d > 0.5, -1.0),
    "xr.where": lambda d: xr.where(d > 0.5, d, 0.0),
    "fillna": lambda d: d.fillna(0.0),
    "isnull": lambda d: d.isnull(),
    "shift": lambda d: d.shift(t=2),
    "shift-fill": lambda d: d.shift(x=-3, fill_value=0.0),
    "roll": lambda d: d.roll(x=3),
    "isel": lambda d: d.isel(t=slice(1, 4), x=[0, 2, 5]),
    "sel": lambda d: d.sel(x=slice(0.2, 0.8)),
    "sel-nearest": lambda d: d.sel(x=0.33, method="nearest"),
    "concat": lambda d: xr.concat([d, d * 2], dim="t"),
    "astype": lambda d: d.astype("float32"),
    "round": lambda d: d.round(2),
    "dot": lambda d: xr.dot(d.fillna(0.0), d.fillna(1.0), dim="x"),
    "rolling-mean": lambda d: d.rolling(t=3).mean(),
    "rolling-center": lambda d: d.rolling(x=3, center=True, min_periods=1).sum(),
    "rolling-max": lambda d: d.rolling(t=2).max(),
    "coarsen": lambda d: d.coarsen(x=2).mean(),
    "coarsen-trim": lambda d: d.coarsen(t=4, boundary="trim").max(),
    "groupby-mean": lambda d: d.groupby("g").mean(),
    "groupby-sum": lambda d: d.groupby("g").sum(),
    "groupby-std": lambda d: d.groupby("g").std(),
    "transpose": lambda d: d.T,
    "diff": lambda d: d.diff("t"),
    "quantile": lambda d: d.quantile([0.25, 0.5], dim="t"),
    "clip": lambda d: d.clip(0.2, 0.7),
    "stack": lambda d: d.stack(z=("t", "x")),
    "pad": lambda d: d.pad(t=1),
    "reindex": lambda d: d.reindex(t=[0, 2, 7]),
    "broadcast": lambda d: d + d.isel(x=0),
    "any": lambda d: (d > 0.5).any("t"),
    "dataset-mean": lambda d: xr.Dataset({"v": d, "w": d * 2}).mean("x")["w"],
}


@pytest.mark.parametrize("name", list(OPS))
def test_keeps_flexarray_with_numpys_values(name):
    fd, nd = pair(sample())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN slices, on both sides alike
        r, e = OPS[name](fd), OPS[name](nd)
    assert isinstance(r.data, xp.Array), (name, type(r.data))
    assert r.dims == e.dims and r.shape == e.shape and r.dtype == e.dtype, name
    xr.testing.assert_allclose(r.copy(data=np.asarray(r.data)), e)


@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_other_dtypes(dtype):
    fd, nd = pair(sample(dtype, nan=False))
    for name in ("mean", "std", "max", "cumsum", "argmax", "rolling-mean", "groupby-mean",
                 "shift", "astype"):
        r, e = OPS[name](fd), OPS[name](nd)
        assert isinstance(r.data, xp.Array), name
        assert r.dtype == e.dtype, name
        np.testing.assert_allclose(np.asarray(r.data), e.values, rtol=1e-6, err_msg=name)


def test_dataarray_wraps_without_copy():
    x = xp.asarray(sample())
    d = xr.DataArray(x, dims=("t", "x"))
    assert d.data is x
    assert d.variable._data is x or d.data is x


@pytest.mark.parametrize("op", [
    lambda d, n: d.where(d.x > 10), lambda d, n: d.where(d.x > 10, drop=True),
    lambda d, n: d.fillna(n), lambda d, n: d.where(d > 1, n),
    lambda d, n: xr.concat([d, d.copy(data=np.arange(6.0).reshape(3, 2))], "t"),
    lambda d, n: d.clip(n), lambda d, n: xr.dot(d, n), lambda d, n: d.weighted(n).mean("x"),
])
def test_numpy_backed_operands_beside_flexarray_data(op):
    """NumPy-backed coordinates and DataArrays beside flexarray data (``d.where(d.x > 10)``
    masks by a NumPy coordinate): xarray hands them to the namespace's where/astype/concat/
    clip/einsum, which take them as asarray does. Values as with NumPy data, flexarray out."""
    v = np.arange(6.0).reshape(3, 2)
    d = xr.DataArray(xp.asarray(v), dims=("t", "x"), coords={"x": [10, 20]})
    dn = xr.DataArray(v, dims=("t", "x"), coords={"x": [10, 20]})
    n = xr.DataArray(np.array([0.5, 1.5]), dims="x")
    got, ref = op(d, n), op(dn, n)
    assert isinstance(got.data, xp.Array)
    np.testing.assert_allclose(np.asarray(got.data), ref.data, equal_nan=True)
