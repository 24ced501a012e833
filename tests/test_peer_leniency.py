"""What cubed's, xarray's and Dask's own code asks of the namespace beyond the letter of the
standard, each against NumPy: NumPy arrays given to ``mean`` and ``expand_dims`` (cubed),
an int fill for a bool ``full`` (cubed; NumPy, torch and array-api-strict take it), the
device equal to ``"cpu"`` (cubed's arrays report that string), NumPy's dates and times
handed back to NumPy (xarray's ``idxmax``/``idxmin`` along a time coordinate), and
``da.unique``'s ``return_*`` options on flexarray chunks."""
import numpy as np
import pytest

import flexarray as xp


@pytest.mark.parametrize("kw", [{}, {"axis": 0}, {"axis": 1, "keepdims": True},
                                {"axis": (0, 1), "dtype": xp.float32}])
def test_mean_takes_numpy_arrays_as_asarray_does(kw):
    a = np.arange(12.0).reshape(3, 4) ** 1.5
    got = xp.mean(a, **kw)
    assert isinstance(got, xp.Array)
    np_kw = {k: v for k, v in kw.items()}
    np.testing.assert_allclose(np.asarray(got), np.mean(a, **np_kw), rtol=1e-6)
    assert got.dtype == np.mean(a, **np_kw).dtype
    assert xp.mean(np.arange(4)).dtype == xp.float64  # integers: the default float
    with pytest.raises(TypeError, match="mean: 'x' must be a flexarray array"):
        xp.mean(np.array(["a"]))


def test_expand_dims_takes_numpy_arrays_as_a_view():
    a = np.arange(6.0).reshape(2, 3)
    got = xp.expand_dims(a, axis=(0, 2))
    assert isinstance(got, xp.Array) and got.shape == np.expand_dims(a, (0, 2)).shape
    a[0, 0] = 99.0  # shared, as asarray shares a NumPy array's memory
    np.testing.assert_array_equal(np.asarray(got), np.expand_dims(a, (0, 2)))


@pytest.mark.parametrize("fill", [0, 1, 2, -7])
def test_full_of_bool_takes_an_int_fill(fill):
    for got in (xp.full((3,), fill, dtype=xp.bool),
                xp.full_like(xp.zeros(3, dtype=xp.bool), fill)):
        assert got.dtype == xp.bool
        np.testing.assert_array_equal(np.asarray(got), np.full((3,), fill, dtype=bool))
    with pytest.raises(TypeError, match="float fill_value cannot fill a bool array; allowed"):
        xp.full((3,), 0.5, dtype=xp.bool)


def test_device_equals_cpu_string():
    d = xp.asarray(0).device
    assert d == "cpu" and "cpu" == d and d == xp.__array_namespace_info__().default_device()
    assert d != "gpu" and d != 0 and d is not None
    assert {d: 1}["cpu"] == 1 and hash(d) == hash("cpu")
    assert xp.zeros(2, device=d).device == "cpu"


def test_numpy_dates_and_times_stay_numpy():
    t = np.array(["2020-01-01", "2021-06-30"], dtype="datetime64[D]")
    assert xp.asarray(t) is t
    c = xp.asarray(t, copy=True)
    assert type(c) is np.ndarray and c is not t and np.array_equal(c, t)
    nat = np.datetime64("NaT", "ns")
    assert xp.result_type(t, nat) == np.result_type(t, nat)
    assert xp.result_type(t, np.dtype("datetime64[s]")) == np.dtype("datetime64[s]")
    cond = xp.asarray([True, False])
    got = xp.where(cond, t, nat)
    np.testing.assert_array_equal(got, np.where([True, False], t, nat))
    assert got.dtype == np.result_type(t, nat)
    np.testing.assert_array_equal(xp.astype(t, "datetime64[s]"), t.astype("datetime64[s]"))
    with pytest.raises(TypeError, match="where: NumPy's where of dates or times"):
        xp.where(cond, xp.asarray([1, 2]), t)
    with pytest.raises(TypeError, match="asarray: cannot make an array of NumPy dtype "
                                        "datetime64"):
        xp.asarray(t, dtype=xp.int64)  # (a flexarray dtype asked for: refused as before)


@pytest.mark.parametrize("func", ["idxmax", "idxmin"])
@pytest.mark.parametrize("kind", ["datetime", "timedelta", "numeric"])
def test_xarray_idxmax_idxmin_along_time_coordinates(func, kind):
    xr = pytest.importorskip("xarray")
    pd = pytest.importorskip("pandas")
    a = np.array([[3.0, 1, np.nan, 7], [0, 5, 2, 1], [np.nan] * 4])
    time = {"datetime": pd.date_range("2020-01-01", periods=4),
            "timedelta": pd.timedelta_range("1h", periods=4),
            "numeric": np.array([0.5, 1.5, 2.5, 3.5])}[kind]
    coords = {"time": time, "x": [10, 20, 30]}
    fx = xr.DataArray(xp.asarray(a), dims=("x", "time"), coords=coords)
    ref = xr.DataArray(a, dims=("x", "time"), coords=coords)
    for kw in ({}, {"skipna": False}, {"fill_value": ref.time.values[1]}):
        got, want = getattr(fx, func)("time", **kw), getattr(ref, func)("time", **kw)
        assert got.identical(want), (kw, got.values, want.values)
        if kind == "numeric":  # numeric coordinates stay flexarray arrays
            assert isinstance(got.data, xp.Array)


@pytest.mark.parametrize("opts", [{"return_counts": True}, {"return_index": True},
                                  {"return_inverse": True},
                                  {"return_index": True, "return_inverse": True,
                                   "return_counts": True}])
def test_dask_unique_return_options_on_flexarray_chunks(opts):
    da = pytest.importorskip("dask.array")
    a = np.array([[3, 1, 2, 3], [1, 1, 5, 2], [7, 3, 3, 0]])
    d = da.from_array(xp.asarray(a), chunks=(2, 3))
    got = da.compute(*da.unique(d, **opts))
    want = np.unique(a, **opts)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, xp.Array), type(g)
        np.testing.assert_array_equal(np.asarray(g), w.reshape(g.shape) if w.ndim else w)
    values = da.unique(d).compute()  # (no option: flexarray chunks throughout, as before)
    assert isinstance(values, xp.Array)
    np.testing.assert_array_equal(np.asarray(values), np.unique(a))
