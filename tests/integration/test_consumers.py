"""Everyday consumers of arrays, each given flexarray arrays and the same values as NumPy
arrays, with the results compared: pandas (DataFrame and Series), matplotlib (plot, imshow,
hist, rendered on the Agg backend), h5py and zarr (whole and partial writes, read back),
einops' array-API functions, pint quantities around flexarray arrays, and torch through
DLPack both ways (memory shared, strided views). Each library is skipped where it is not
installed; all but torch are in the ``test`` extra (docs/consumers.md)."""
import io

import numpy as np
import pytest

import flexarray as xp

RNG = np.random.default_rng(3)
A = RNG.standard_normal((6, 4))


# --- pandas ---------------------------------------------------------------------------------

def test_pandas_dataframe_and_series():
    pd = pytest.importorskip("pandas")
    x = xp.asarray(A)
    got = pd.DataFrame(x, columns=list("abcd"))
    want = pd.DataFrame(A, columns=list("abcd"))
    pd.testing.assert_frame_equal(got, want)
    pd.testing.assert_frame_equal(got.describe(), want.describe())
    pd.testing.assert_series_equal(pd.Series(x[:, 1]), pd.Series(A[:, 1]))
    pd.testing.assert_series_equal(pd.Series(x.T[2], name="c"), pd.Series(A.T[2], name="c"))
    cols = {"i": xp.arange(6), "f": xp.asarray(A[:, 0].astype(np.float32)),
            "b": xp.asarray(A[:, 1] > 0)}
    got = pd.DataFrame(cols)
    want = pd.DataFrame({k: np.asarray(v).copy() for k, v in cols.items()})
    pd.testing.assert_frame_equal(got, want)
    assert list(got.dtypes) == [np.int64, np.float32, np.bool_]
    pd.testing.assert_series_equal(got.groupby("b")["f"].sum(), want.groupby("b")["f"].sum())


# --- matplotlib -----------------------------------------------------------------------------

def _render(plot):
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(3, 2), dpi=50)
    try:
        out = plot(ax)
        fig.canvas.draw()
        return out, np.asarray(fig.canvas.buffer_rgba()).copy()
    finally:
        plt.close(fig)


@pytest.mark.parametrize("kind", ["plot", "imshow", "hist"])
def test_matplotlib_as_numpy(kind):
    def draw(m):
        def plot(ax):
            if kind == "plot":
                (line,) = ax.plot(m[:, 0], m[:, 1], "o-")
                return line.get_xydata()
            if kind == "imshow":
                return np.asarray(ax.imshow(m, cmap="viridis").get_array())
            counts, edges, _ = ax.hist(m[:, 2], bins=4)
            return np.concatenate([counts, edges])
        return plot

    got, got_pixels = _render(draw(xp.asarray(A)))
    want, want_pixels = _render(draw(A))
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(got_pixels, want_pixels)  # the same picture


# --- h5py and zarr --------------------------------------------------------------------------

def test_h5py_write_partial_write_read_back(tmp_path):
    h5py = pytest.importorskip("h5py")
    x = xp.asarray(A)
    with h5py.File(tmp_path / "data.h5", "w") as f:
        f["whole"] = x
        f["transposed"] = x.T  # a strided view
        ds = f.create_dataset("parts", shape=A.shape, dtype="f8", fillvalue=0.0)
        ds[1:4, ::2] = x[1:4, ::2]
        ds[5] = x[5]
        half = f.create_dataset("half", data=xp.astype(x, xp.float16))
        assert half.dtype == np.float16
    want = np.zeros_like(A)
    want[1:4, ::2] = A[1:4, ::2]
    want[5] = A[5]
    with h5py.File(tmp_path / "data.h5", "r") as f:
        np.testing.assert_array_equal(f["whole"][...], A)
        np.testing.assert_array_equal(f["transposed"][...], A.T)
        np.testing.assert_array_equal(f["parts"][...], want)
        back = xp.asarray(f["whole"][2:5])
        np.testing.assert_array_equal(np.asarray(back), A[2:5])
        np.testing.assert_array_equal(f["half"][...], A.astype(np.float16))


def test_zarr_write_partial_write_read_back(tmp_path):
    zarr = pytest.importorskip("zarr")
    x = xp.asarray(A)
    z = zarr.create_array(store=str(tmp_path / "a.zarr"), shape=A.shape, dtype="f8",
                          chunks=(4, 3), fill_value=0.0)
    z[...] = x
    z[1:5, 1:3] = x[1:5, 1:3] * 2  # across chunk boundaries
    z[:, 3] = x.T[3]
    want = A.copy()
    want[1:5, 1:3] *= 2
    np.testing.assert_array_equal(z[...], want)
    back = zarr.open_array(str(tmp_path / "a.zarr"), mode="r")
    np.testing.assert_array_equal(np.asarray(xp.asarray(back[2:, ::2])), want[2:, ::2])
    i = zarr.create_array(store=str(tmp_path / "i.zarr"), shape=(10,), dtype="i4",
                          chunks=(4,))
    i[...] = xp.arange(10, dtype=xp.int32)
    np.testing.assert_array_equal(i[...], np.arange(10, dtype=np.int32))


# --- einops ---------------------------------------------------------------------------------

@pytest.mark.parametrize("case", ["rearrange", "reduce", "repeat", "pack_unpack"])
def test_einops_array_api_functions_as_numpy(case):
    pytest.importorskip("einops")
    import einops
    from einops import array_api as ea
    t = RNG.standard_normal((2, 3, 4))
    x = xp.asarray(t)
    if case == "rearrange":
        got, want = ea.rearrange(x, "a b c -> (c a) b"), einops.rearrange(t, "a b c -> (c a) b")
    elif case == "reduce":
        got, want = ea.reduce(x, "a b (c d) -> a d", "max", d=2), \
            einops.reduce(t, "a b (c d) -> a d", "max", d=2)
    elif case == "repeat":
        got, want = ea.repeat(x, "a b c -> a b r c", r=3), einops.repeat(t, "a b c -> a b r c", r=3)
    else:
        packed, ps = ea.pack([x, x[..., 0]], "a b *")
        want_packed, want_ps = einops.pack([t, t[..., 0]], "a b *")
        assert ps == want_ps
        np.testing.assert_array_equal(np.asarray(packed), want_packed)
        got, want = ea.unpack(packed, ps, "a b *")[1], einops.unpack(want_packed, want_ps,
                                                                      "a b *")[1]
    assert isinstance(got, xp.Array)
    np.testing.assert_array_equal(np.asarray(got), want)


# --- pint -----------------------------------------------------------------------------------

def test_pint_quantities_around_flexarray_arrays():
    pint = pytest.importorskip("pint")
    u = pint.UnitRegistry()
    q, r = u.Quantity(xp.asarray(A), "m"), u.Quantity(A, "m")
    for got, want in [((q * 3).to("cm"), (r * 3).to("cm")), (q + q, r + r),
                      (q / u.Quantity(2.0, "s"), r / u.Quantity(2.0, "s")),
                      (q ** 2, r ** 2), (np.sqrt(q ** 2), np.sqrt(r ** 2)),
                      (q[1:3, ::2], r[1:3, ::2]), (q.T, r.T)]:
        assert isinstance(got.magnitude, xp.Array), type(got.magnitude)
        assert got.units == want.units
        np.testing.assert_allclose(np.asarray(got.magnitude), want.magnitude, rtol=1e-15)
    s = np.sum(q)
    assert s.units == u.m and float(s.magnitude) == pytest.approx(float(np.sum(r).magnitude))
    m = np.mean(q, axis=0)
    np.testing.assert_allclose(np.asarray(m.magnitude), np.mean(r, axis=0).magnitude)
    with pytest.raises(pint.DimensionalityError):
        q + u.Quantity(xp.asarray(A), "s")


# --- torch through DLPack -------------------------------------------------------------------

@pytest.mark.torch
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "bool",
                                   "complex64", "float16"])
def test_torch_dlpack_both_ways_share_memory(dtype):
    torch = pytest.importorskip("torch")
    base = (np.arange(24) % 5).astype(dtype).reshape(4, 6)
    x = xp.asarray(base.copy())
    views = [(x, base), (x.T, base.T), (x[1:, ::2], base[1:, ::2])]
    for v, ref in views:
        t = torch.from_dlpack(v)
        assert tuple(t.shape) == ref.shape and tuple(t.stride()) == tuple(
            s // ref.itemsize for s in ref.strides)
        np.testing.assert_array_equal(t.numpy(), ref)
    # (no negative strides: torch 2.13's from_dlpack aborts the process on them, NumPy's
    # arrays as flexarray's; docs/consumers.md)
    t = torch.from_dlpack(x)  # shared: a write through torch is seen by x, and back
    t[0, 0] = 1 if dtype != "bool" else True
    assert bool(x[0, 0] == (1 if dtype != "bool" else True))
    back = xp.from_dlpack(t.T[1:])
    np.testing.assert_array_equal(np.asarray(back), t.T[1:].numpy())
    x[1, 1] = False if dtype == "bool" else 0
    assert not bool(back[0, 1])  # (back is t.T[1:], a view of x's memory)


@pytest.mark.torch
def test_torch_tensors_into_flexarray_are_views():
    torch = pytest.importorskip("torch")
    t = torch.arange(12.0).reshape(3, 4)
    for src in (t, t.T, t[:, 1::2], t[1]):
        x = xp.from_dlpack(src)
        np.testing.assert_array_equal(np.asarray(x), src.numpy())
        assert xp.asarray(src).shape == tuple(src.shape)
    x = xp.from_dlpack(t[:, 1::2])
    x[0, 0] = -1.0
    assert float(t[0, 1]) == -1.0
    c = xp.from_dlpack(t, copy=True)
    c[0, 0] = 99.0
    assert float(t[0, 0]) == 0.0
