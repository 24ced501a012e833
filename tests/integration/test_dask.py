"""flexarray arrays as Dask chunks (flexarray/_dask.py, docs/scaling.md): the Dask array
keeps flexarray chunks (``_meta`` and computed results are flexarray arrays) and gives
NumPy's answers (the same Dask graph over NumPy chunks is the reference), on the threaded
scheduler and on a two-process ``distributed.LocalCluster``. Skipped without Dask.
"""
import os
import pickle
import subprocess
import sys
import warnings

import numpy as np
import pytest

import flexarray as xp

da = pytest.importorskip("dask.array", reason="dask is not installed (pip install flexarray[dask])")
import dask  # noqa: E402

CHUNKS = (3, 4)


def data(seed=0, shape=(8, 6), nan=True):
    a = np.random.default_rng(seed).random(shape)
    if nan:
        a[a < 0.1] = np.nan
    a[5, :] = np.nan if nan else a[5, :]  # an all-NaN row for the nan-reductions
    return a


def nonan(d):
    return da.nan_to_num(d)


#: name -> function of a Dask array (run on flexarray chunks and on NumPy chunks)
OPS = {
    "add-scalar": lambda d: d + 1,
    "arith": lambda d: d * d - 2 * d / (abs(d) + 1),
    "ufunc-exp": lambda d: np.exp(d),
    "ufunc-hypot": lambda d: np.hypot(d, 2.0),  # not in the standard: NumPy's on chunks
    "compare": lambda d: d > 0.5,
    "sum": lambda d: nonan(d).sum(),
    "sum-axis0": lambda d: nonan(d).sum(axis=0),
    "mean": lambda d: nonan(d).mean(axis=1),
    "std": lambda d: nonan(d).std(),
    "var-ddof1": lambda d: nonan(d).var(axis=0, ddof=1),
    "max": lambda d: nonan(d).max(axis=0),
    "min": lambda d: nonan(d).min(),
    "argmax-axis0": lambda d: da.argmax(nonan(d), axis=0),
    "argmax": lambda d: da.argmax(nonan(d)),
    "argmin-axis1": lambda d: da.argmin(nonan(d), axis=1),
    "any": lambda d: (d > 0.9).any(axis=0),
    "cumsum": lambda d: da.cumsum(nonan(d), axis=1),
    "nansum": lambda d: da.nansum(d, axis=0),
    "nanmean": lambda d: da.nanmean(d, axis=0),
    "nanstd": lambda d: da.nanstd(d, axis=0),
    "nanvar-ddof1": lambda d: da.nanvar(d, ddof=1),
    "nanmax": lambda d: da.nanmax(d, axis=0),
    "nanmin": lambda d: da.nanmin(d),
    "nanargmax": lambda d: da.nanargmax(d, axis=0),
    "nancumsum": lambda d: da.nancumsum(d, axis=0),
    "matmul": lambda d: nonan(d) @ nonan(d).T,
    "dot": lambda d: da.dot(nonan(d).T, nonan(d)),
    "tensordot": lambda d: da.tensordot(nonan(d), nonan(d), axes=((0,), (0,))),
    "einsum": lambda d: da.einsum("ij,kj->ik", nonan(d), nonan(d)),
    "rechunk": lambda d: d.rechunk((4, 3)),
    "rechunk-single": lambda d: d.rechunk(-1),
    "map_blocks": lambda d: d.map_blocks(lambda b: b * 2 + 1),
    "map_blocks-drop": lambda d: nonan(d).map_blocks(lambda b: b.sum(axis=1), drop_axis=1),
    "blockwise": lambda d: da.blockwise(np.add, "ij", d, "ij", d.T.T, "ij", dtype=d.dtype),
    "blockwise-outer": lambda d: da.blockwise(lambda u, v: u[:, None] * v[None, :], "ij",
                                              nonan(d)[:, 0], "i", nonan(d)[0], "j",
                                              dtype=d.dtype),
    "slice": lambda d: d[1:7:2, ::-1],
    "slice-int": lambda d: d[3],
    "fancy": lambda d: d[[0, 3, 5]],
    "bool-mask": lambda d: nonan(d)[nonan(d)[:, 0] > 0.3],
    "where": lambda d: da.where(d > 0.5, d, 0.0),
    "isnan": lambda d: da.isnan(d),
    "transpose": lambda d: d.T,
    "concatenate": lambda d: da.concatenate([d, d], axis=0),
    "stack": lambda d: da.stack([d, d], axis=1),
    "reshape": lambda d: d.reshape(4, 2, 6),
    "ravel": lambda d: d.ravel(),
    "astype": lambda d: d.astype("float32"),
    "round": lambda d: d.round(2),
    "clip": lambda d: d.clip(0.2, 0.8),
    "moment": lambda d: da.moment(nonan(d), 2, axis=0),
    "topk": lambda d: da.topk(nonan(d), 2, axis=0),
    "percentile": lambda d: da.percentile(nonan(d).ravel(), [10, 50, 90]),
    "diff": lambda d: da.diff(d, axis=0),
    "linalg-qr-r": lambda d: abs(da.linalg.qr(nonan(d).rechunk((8, 6)))[1]),
    "cov": lambda d: da.cov(nonan(d)),
    "flip": lambda d: da.flip(d, axis=1),
    "roll": lambda d: da.roll(d, 2, axis=0),
    "pad": lambda d: da.pad(nonan(d), 1),
}
#: these build their meta with NumPy-only machinery; results are still flexarray arrays
NUMPY_META = {"percentile"}


def flex_dask(a, chunks=CHUNKS):
    return da.from_array(xp.asarray(a), chunks=chunks)


def check(name, fn, scheduler=None, client=None):
    a = data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NaN slices, on both sides alike
        r = fn(flex_dask(a))
        expected = fn(da.from_array(a, chunks=CHUNKS)).compute(scheduler="sync")
        got = client.compute(r).result() if client is not None else r.compute(
            scheduler=scheduler)
    if name not in NUMPY_META:
        assert isinstance(r._meta, xp.Array), (name, type(r._meta))
    assert isinstance(got, xp.Array), (name, type(got))
    assert got.shape == expected.shape and got.dtype == expected.dtype, name
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-12, atol=1e-14,
                               equal_nan=True, err_msg=name)


def test_registered_as_chunk_type():
    from dask.array.chunk_types import is_valid_chunk_type
    assert is_valid_chunk_type(xp.Array)


@pytest.mark.parametrize("order", ["flexarray-first", "dask-first"])
def test_registration_in_either_import_order(order):
    """Registration happens whichever of flexarray and dask.array is imported first."""
    imports = ["import flexarray", "import dask.array"]
    if order == "dask-first":
        imports.reverse()
    code = "; ".join(imports + [
        "from dask.array.chunk_types import is_valid_chunk_type",
        "print(is_valid_chunk_type(flexarray.Array))"])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "True"


def test_from_array_meta_and_chunks():
    d = flex_dask(data())
    assert isinstance(d._meta, xp.Array) and d._meta.dtype == xp.float64
    assert d.chunks == ((3, 3, 2), (4, 2))
    block = d.blocks[1, 1].compute(scheduler="sync")
    assert isinstance(block, xp.Array)
    np.testing.assert_array_equal(np.asarray(block), data()[3:6, 4:6])


@pytest.mark.parametrize("name", list(OPS))
def test_threaded(name):
    check(name, OPS[name], scheduler="threads")


def test_mixed_operands_are_dasks():
    """A flexarray array beside a Dask array: Dask's to handle (NEP 13 hierarchy)."""
    a = data(nan=False)
    x, d = xp.asarray(a), flex_dask(a)
    for r in (d + x, x + d, np.add(x, d), np.concatenate([x, d])):
        assert isinstance(r, da.Array)
    r = (x * d).compute(scheduler="threads")
    assert isinstance(r, xp.Array)
    np.testing.assert_allclose(np.asarray(r), a * a)


@pytest.mark.parametrize("target_kind", ["flexarray", "numpy"])
def test_store(target_kind):
    a = data(nan=False)
    d = flex_dask(a) * 2
    target = xp.zeros(a.shape) if target_kind == "flexarray" else np.zeros(a.shape)
    da.store(d, target, scheduler="threads")
    np.testing.assert_allclose(np.asarray(target), a * 2)


def test_to_zarr_and_back(tmp_path):
    pytest.importorskip("zarr", reason="zarr is not installed")
    a = data()
    d = flex_dask(a)
    d.to_zarr(str(tmp_path / "z.zarr"), compute=True)
    import zarr
    np.testing.assert_array_equal(zarr.open_array(str(tmp_path / "z.zarr"))[...], a)
    back = da.from_zarr(str(tmp_path / "z.zarr")).map_blocks(xp.asarray)
    assert isinstance(back._meta, xp.Array)
    r = back.sum(axis=0).compute(scheduler="threads")
    assert isinstance(r, xp.Array)
    np.testing.assert_allclose(np.asarray(r), a.sum(axis=0))


@pytest.mark.parametrize("x", [
    xp.asarray(data()),
    xp.asarray(data())[::2, ::-1],
    xp.astype(xp.asarray(data(nan=False)), xp.bfloat16),
    xp.asarray(np.arange(12, dtype=np.int16).reshape(3, 4)).T,
    xp.asarray(3.5),
])
def test_pickle_round_trip(x):
    y = pickle.loads(pickle.dumps(x))
    assert isinstance(y, xp.Array) and y.dtype == x.dtype and y.shape == x.shape
    as_f64 = (lambda v: np.asarray(xp.astype(v, xp.float64)))
    np.testing.assert_array_equal(as_f64(y), as_f64(x))
    y[...] = 0  # a copy: the original is unchanged
    assert not np.array_equal(as_f64(x), as_f64(y)) or not xp.any(x)


def test_sizeof_counts_the_elements():
    from dask.sizeof import sizeof
    x = xp.zeros((1000, 100))
    assert sizeof(x) >= 800_000


# --- distributed: two worker processes (pickling the chunks) --------------------------------

DISTRIBUTED_OPS = ["arith", "sum-axis0", "std", "argmax-axis0", "nanmean", "nanargmax",
                   "matmul", "rechunk", "map_blocks", "blockwise", "slice", "concatenate",
                   "percentile", "einsum"]


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed", reason="distributed is not installed")
    env = {"FLEXARRAY_NUM_THREADS": "1", "PYTHONPATH": os.pathsep.join(sys.path)}
    with dask.config.set({"distributed.nanny.pre-spawn-environ": env}):
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None, env=env)
        with cluster, distributed.Client(cluster) as c:
            yield c


def test_distributed(client):
    for name in DISTRIBUTED_OPS:
        check(name, OPS[name], client=client)
    # the chunks really were on the workers, as flexarray arrays
    d = flex_dask(data())
    kinds = client.gather(client.compute(d.map_blocks(
        lambda b: np.full((1, 1), type(b).__module__ == "flexarray._array"),
        chunks=(1, 1), dtype=bool)))
    assert np.asarray(kinds).all()
    workers = client.run(lambda: os.environ.get("FLEXARRAY_NUM_THREADS"))
    assert set(workers.values()) == {"1"}
