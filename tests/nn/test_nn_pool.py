"""flexarray.nn pooling against plain-loop NumPy references and torch.nn.functional."""
import itertools

import numpy as np
import pytest

import flexarray as xp
import flexarray.nn as nn
from helpers.nn import FLOATS, LAYOUTS, assert_close, layout, np_of


# ------------------------------------------------------------------------ references

def out_len(n, k, s, p, d, ceil):
    span = n + 2 * p - d * (k - 1) - 1
    o = (-(-span // s) if ceil else span // s) + 1
    if ceil and (o - 1) * s >= n + p:
        o -= 1
    return o


def ref_max_pool(x, ks, st, pad, dil, ceil):
    """Loop over output positions; each window's elements in row-major order. PyTorch's
    rules: NaN wins (the last NaN's index), ties keep the first."""
    n = x.ndim - 2
    sp = x.shape[2:]
    osp = [out_len(sp[i], ks[i], st[i], pad[i], dil[i], ceil) for i in range(n)]
    out = np.empty(x.shape[:2] + tuple(osp))
    idx = np.empty(out.shape, np.int64)
    for b, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
        for o in np.ndindex(*osp):
            best, bi = -np.inf, None
            for t in np.ndindex(*ks):
                pos = [o[i] * st[i] + t[i] * dil[i] - pad[i] for i in range(n)]
                if not all(0 <= pos[i] < sp[i] for i in range(n)):
                    continue
                v = x[(b, c) + tuple(pos)]
                flat = int(np.ravel_multi_index(pos, sp))
                if bi is None or v > best or np.isnan(v):
                    best, bi = v, flat
            out[(b, c) + o], idx[(b, c) + o] = best, bi
    return out, idx


def ref_avg_pool(x, ks, st, pad, ceil, include_pad, divisor):
    n = x.ndim - 2
    sp = x.shape[2:]
    osp = [out_len(sp[i], ks[i], st[i], pad[i], 1, ceil) for i in range(n)]
    out = np.empty(x.shape[:2] + tuple(osp))
    for o in np.ndindex(*osp):
        lo = [o[i] * st[i] - pad[i] for i in range(n)]
        hi = [min(lo[i] + ks[i], sp[i] + pad[i]) for i in range(n)]  # padded window end
        size_pad = int(np.prod([h - l for l, h in zip(lo, hi)]))
        clo = [max(l, 0) for l in lo]
        chi = [min(h, s) for h, s in zip(hi, sp)]
        win = x[(slice(None), slice(None)) + tuple(slice(l, h) for l, h in zip(clo, chi))]
        total = win.reshape(win.shape[:2] + (-1,)).sum(-1)
        size_in = int(np.prod([h - l for l, h in zip(clo, chi)]))
        count = divisor or (size_pad if include_pad else size_in)
        out[(slice(None), slice(None)) + o] = total / count if win.size else 0.0
    return out


def ref_adaptive(x, osz, mode):
    n = x.ndim - 2
    sp = x.shape[2:]
    out = np.empty(x.shape[:2] + tuple(osz))
    idx = np.empty(out.shape, np.int64)
    for o in np.ndindex(*osz):
        lo = [(o[i] * sp[i]) // osz[i] for i in range(n)]
        hi = [-(-((o[i] + 1) * sp[i]) // osz[i]) for i in range(n)]
        if mode == "avg":
            win = x[(slice(None), slice(None)) + tuple(slice(l, h) for l, h in zip(lo, hi))]
            out[(slice(None), slice(None)) + o] = win.reshape(win.shape[:2] + (-1,)).mean(-1)
            continue
        for b, c in itertools.product(range(x.shape[0]), range(x.shape[1])):
            best, bi = -np.inf, None
            for pos in itertools.product(*[range(l, h) for l, h in zip(lo, hi)]):
                v = x[(b, c) + pos]
                if bi is None or v > best or np.isnan(v):
                    best, bi = v, int(np.ravel_multi_index(pos, sp))
            out[(b, c) + o], idx[(b, c) + o] = best, bi
    return out, idx


MAX = {n: getattr(nn, f"max_pool{n}d") for n in (1, 2, 3)}
AVG = {n: getattr(nn, f"avg_pool{n}d") for n in (1, 2, 3)}
AAVG = {n: getattr(nn, f"adaptive_avg_pool{n}d") for n in (1, 2, 3)}
AMAX = {n: getattr(nn, f"adaptive_max_pool{n}d") for n in (1, 2, 3)}


def random_window(rng, n, max_pool):
    ks = tuple(int(v) for v in rng.integers(1, 4, n))
    st = tuple(int(v) for v in rng.integers(1, 4, n))
    dil = tuple(int(v) for v in rng.integers(1, 3, n)) if max_pool else (1,) * n
    pad = tuple(int(rng.integers(0, k // 2 + 1)) for k in ks)
    sp = tuple(int(d * (k - 1) + 1 + rng.integers(0, 5)) for k, d in zip(ks, dil))
    return ks, st, pad, dil, sp


def special_values(rng, shape):
    x = rng.standard_normal(shape)
    r = rng.random(shape)
    x[r < 0.05] = np.nan
    x[(r >= 0.05) & (r < 0.1)] = -np.inf
    x[(r >= 0.1) & (r < 0.13)] = np.inf
    x[r > 0.85] = np.round(x[r > 0.85])  # ties
    return x


# ------------------------------------------------------------------------ max pooling

@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("seed", range(10))
def test_max_pool_random(n, seed):
    rng = np.random.default_rng(100 * n + seed)
    ks, st, pad, dil, sp = random_window(rng, n, True)
    ceil = bool(seed % 2)
    x = special_values(rng, (2, 3) + sp)
    dname = ["float64", "float32"][seed % 2]
    xa = xp.asarray(x.astype(FLOATS[dname][1]))
    ref, ridx = ref_max_pool(x.astype(FLOATS[dname][1]).astype(float), ks, st, pad, dil, ceil)
    got, gidx = MAX[n](xa, ks, st, pad, dil, ceil_mode=ceil, return_indices=True)
    np.testing.assert_array_equal(np_of(got), ref)
    assert gidx.dtype == xp.int64
    np.testing.assert_array_equal(np.array(gidx._arr), ridx)
    plain = MAX[n](xa, ks, st, pad, dil, ceil_mode=ceil)
    np.testing.assert_array_equal(np_of(plain), ref)


def test_max_pool_nan_propagates_and_all_neg_inf_window():
    x = np.array([[[1.0, np.nan, 3.0, np.nan, -np.inf, -np.inf, 2.0, 2.0]]])
    got, idx = nn.max_pool1d(xp.asarray(x), 2, return_indices=True)
    np.testing.assert_array_equal(np_of(got), [[[np.nan, np.nan, -np.inf, 2.0]]])
    np.testing.assert_array_equal(np.array(idx._arr), [[[1, 3, 4, 6]]])
    got, idx = nn.max_pool1d(xp.asarray(x), 4, return_indices=True)  # NaN: the last one
    np.testing.assert_array_equal(np.array(idx._arr), [[[3, 6]]])


@pytest.mark.parametrize("dname", sorted(FLOATS))
def test_max_pool_dtypes_exact(dname):
    xdt, npdt = FLOATS[dname]
    rng = np.random.default_rng(1)
    x = special_values(rng, (2, 4, 9, 10)).astype(npdt)
    got = nn.max_pool2d(xp.asarray(x), 3, 2, 1)
    assert got.dtype == xdt
    ref, _ = ref_max_pool(x.astype(float), (3, 3), (2, 2), (1, 1), (1, 1), False)
    np.testing.assert_array_equal(np_of(got), ref)  # max is exact in every dtype


@pytest.mark.parametrize("kind", LAYOUTS)
def test_pools_any_layout(kind):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((3, 4, 11, 9))
    a = layout(x, kind)
    ref, ridx = ref_max_pool(x, (3, 2), (2, 2), (1, 0), (1, 2), True)
    got, idx = nn.max_pool2d(a, (3, 2), 2, (1, 0), (1, 2), ceil_mode=True, return_indices=True)
    np.testing.assert_array_equal(np_of(got), ref)
    np.testing.assert_array_equal(np.array(idx._arr), ridx)
    assert_close(nn.avg_pool2d(a, 3, 2, 1),
                 ref_avg_pool(x, (3, 3), (2, 2), (1, 1), False, True, None), "float64")
    assert_close(nn.adaptive_avg_pool2d(a, (4, 3)), ref_adaptive(x, (4, 3), "avg")[0], "float64")


def test_max_pool_large_parallel():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 16, 64, 64)).astype(np.float32)  # on the worker threads
    got, idx = nn.max_pool2d(xp.asarray(x), 3, 2, 1, return_indices=True)
    ref, ridx = ref_max_pool(x[:1, :2].astype(float), (3, 3), (2, 2), (1, 1), (1, 1), False)
    np.testing.assert_array_equal(np_of(got)[:1, :2], ref)
    np.testing.assert_array_equal(np.array(idx._arr)[:1, :2], ridx)
    # every window's max, checked by a gather through the indices
    flat = x.reshape(4, 16, -1)
    winners = np.take_along_axis(flat, np.array(idx._arr).reshape(4, 16, -1), 2)
    np.testing.assert_array_equal(winners, np.array(got._arr).reshape(4, 16, -1))


# ------------------------------------------------------------------------ avg pooling

@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("seed", range(10))
def test_avg_pool_random(n, seed):
    rng = np.random.default_rng(300 * n + seed)
    ks, st, pad, _, sp = random_window(rng, n, False)
    ceil = bool(seed % 2)
    include = seed % 3 != 0
    divisor = int(rng.integers(1, 5)) if (n > 1 and seed % 4 == 1) else None
    dname = ["float64", "float32"][seed % 2]
    x = rng.standard_normal((2, 3) + sp).astype(FLOATS[dname][1])
    kw = dict(divisor_override=divisor) if n > 1 else {}
    got = AVG[n](xp.asarray(x), ks, st, pad, ceil, include, **kw)
    ref = ref_avg_pool(x.astype(float), ks, st, pad, ceil, include, divisor)
    assert_close(got, ref, dname)


@pytest.mark.parametrize("dname", ["float16", "bfloat16"])
def test_avg_pool_half(dname):
    xdt, npdt = FLOATS[dname]
    x = np.random.default_rng(4).standard_normal((2, 3, 10, 10)).astype(npdt)
    got = nn.avg_pool2d(xp.asarray(x), 2)
    assert got.dtype == xdt
    assert_close(got, ref_avg_pool(x.astype(float), (2, 2), (2, 2), (0, 0), False, True, None),
                 dname)


def test_avg_pool_specials_stay_in_their_windows():
    x = np.zeros((1, 1, 6))
    x[0, 0, 1] = np.inf
    x[0, 0, 4] = np.nan
    got = np_of(nn.avg_pool1d(xp.asarray(x), 2))
    np.testing.assert_array_equal(got, [[[np.inf, 0.0, np.nan]]])


# ------------------------------------------------------------------------ adaptive

@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("seed", range(6))
def test_adaptive_random(n, seed):
    rng = np.random.default_rng(700 * n + seed)
    sp = tuple(int(v) for v in rng.integers(1, 9, n))
    osz = tuple(int(v) for v in rng.integers(1, 7, n))
    x = special_values(rng, (2, 3) + sp) if seed % 2 else rng.standard_normal((2, 3) + sp)
    with np.errstate(invalid="ignore"):
        ref_avg, _ = ref_adaptive(x, osz, "avg")
    assert_close(AAVG[n](xp.asarray(x), osz), ref_avg, "float64")
    ref, ridx = ref_adaptive(x, osz, "max")
    got, idx = AMAX[n](xp.asarray(x), osz, return_indices=True)
    np.testing.assert_array_equal(np_of(got), ref)
    np.testing.assert_array_equal(np.array(idx._arr), ridx)
    np.testing.assert_array_equal(np_of(AMAX[n](xp.asarray(x), osz)), ref)


def test_adaptive_global_average_and_none_sizes():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((4, 64, 7, 7)).astype(np.float32)  # the global-average path
    got = nn.adaptive_avg_pool2d(xp.asarray(x), 1)
    assert got.shape == (4, 64, 1, 1)
    assert_close(got, x.astype(float).mean(axis=(2, 3), keepdims=True), "float32")
    got = nn.adaptive_avg_pool2d(xp.asarray(x), (None, 3))
    assert got.shape == (4, 64, 7, 3)
    assert_close(got, ref_adaptive(x.astype(float), (7, 3), "avg")[0], "float32")


@pytest.mark.parametrize("dname", list(FLOATS))
@pytest.mark.parametrize("n", [1, 2, 3])
def test_global_average_every_plane_length(dname, n):
    """Output size 1 has its own kernel (vector sums of 64 bytes, a scalar tail): plane
    lengths around the vector widths, specials, and -0.0 against a plain mean per plane."""
    xdt, ndt = FLOATS[dname]
    rng = np.random.default_rng(n)
    for m in [1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 49, 63, 64, 65, 100, 257, 1000]:
        sp = (7, m // 7) if n > 1 and m % 7 == 0 else (m,)  # planes of m elements
        sp = (1,) * (n - len(sp)) + sp
        x = special_values(rng, (2, 3) + sp) if m % 2 else rng.standard_normal((2, 3) + sp)
        x = x.astype(ndt)
        with np.errstate(invalid="ignore"):  # inf - inf
            ref = np.array([[np.mean(x[b, c].astype(np.float64)) for c in range(3)]
                            for b in range(2)]).reshape((2, 3) + (1,) * n)
        got = AAVG[n](xp.asarray(x), 1)
        assert got.dtype == xdt
        assert_close(got, ref, dname)
        assert_close(AAVG[n](xp.asarray(x[0]), 1), ref[0], dname)  # unbatched
    x = np.full((1, 2) + (5,) * n, -0.0, ndt)
    assert np.all(np.signbit(np_of(AAVG[n](xp.asarray(x), 1))))  # a mean of -0.0 is -0.0


@pytest.mark.parametrize("kind", LAYOUTS)
def test_global_average_any_layout(kind):
    x = np.random.default_rng(3).standard_normal((3, 5, 6, 7))
    a = layout(x, kind)
    assert_close(nn.adaptive_avg_pool2d(a, 1), x.mean(axis=(2, 3), keepdims=True), "float64")
    assert nn.adaptive_avg_pool2d(xp.zeros((0, 4, 3, 3)), (1, 1)).shape == (0, 4, 1, 1)


def test_unbatched_pools():
    x = np.random.default_rng(9).standard_normal((3, 8, 8))
    assert nn.max_pool2d(xp.asarray(x), 2).shape == (3, 4, 4)
    out, idx = nn.adaptive_max_pool2d(xp.asarray(x), 3, return_indices=True)
    assert out.shape == idx.shape == (3, 3, 3)
    assert_close(nn.avg_pool2d(xp.asarray(x), 2),
                 ref_avg_pool(x[None], (2, 2), (2, 2), (0, 0), False, True, None)[0], "float64")


# ------------------------------------------------------------------------ validation

@pytest.mark.parametrize("call, err, match", [
    (lambda x: nn.max_pool2d(x, 0), ValueError, "kernel_size"),
    (lambda x: nn.max_pool2d(x, 2, stride=0), ValueError, "stride"),
    (lambda x: nn.max_pool2d(x, 2, dilation=0), ValueError, "dilation"),
    (lambda x: nn.max_pool2d(x, 2, padding=2), ValueError, "padding"),
    (lambda x: nn.max_pool2d(x, 2, padding=-1), ValueError, "padding"),
    (lambda x: nn.max_pool2d(x, 9), ValueError, "larger than the padded input"),
    (lambda x: nn.max_pool2d(x, (2, 2, 2)), ValueError, "kernel_size"),
    (lambda x: nn.avg_pool2d(x, 3, padding=2), ValueError, "padding"),
    (lambda x: nn.avg_pool2d(x, 2, divisor_override=0), ValueError, "divisor_override"),
    (lambda x: nn.adaptive_avg_pool2d(x, 0), ValueError, "output_size"),
    (lambda x: nn.adaptive_max_pool2d(x, (2, 2, 2)), ValueError, "output_size"),
    (lambda x: nn.max_pool1d(x, 2), ValueError, "'x' must be"),
    (lambda x: nn.max_pool2d(x, 2.0), TypeError, "kernel_size"),
    (lambda x: nn.max_pool2d(np.ones((1, 1, 4, 4)), 2), TypeError, "flexarray array"),
    (lambda x: nn.avg_pool2d(xp.asarray(np.ones((1, 1, 4, 4), np.int32)), 2), TypeError,
     "floating"),
    (lambda x: nn.max_pool2d(xp.asarray(np.ones((1, 1, 0, 4))), 1), ValueError, "non-zero"),
])
def test_pool_bad_input(call, err, match):
    x = xp.asarray(np.ones((1, 2, 5, 5)))
    with pytest.raises(err, match=match):
        call(x)


# ------------------------------------------------------------------------ torch

@pytest.mark.torch
@pytest.mark.parametrize("n", [1, 2, 3])
@pytest.mark.parametrize("seed", range(8))
def test_pools_against_torch(n, seed):
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F
    rng = np.random.default_rng(900 * n + seed)
    ks, st, pad, dil, sp = random_window(rng, n, True)
    ceil = bool(seed % 2)
    x = special_values(rng, (2, 3) + sp).astype(np.float32)
    tx = torch.from_numpy(x)
    r, ri = getattr(F, f"max_pool{n}d")(tx, ks, st, pad, dil, ceil_mode=ceil, return_indices=True)
    g, gi = MAX[n](xp.asarray(x), ks, st, pad, dil, ceil_mode=ceil, return_indices=True)
    np.testing.assert_array_equal(np_of(g), r.numpy())
    np.testing.assert_array_equal(np.array(gi._arr), ri.numpy())
    x = rng.standard_normal((2, 3) + sp).astype(np.float32)
    tx = torch.from_numpy(x)
    include = bool(seed % 3)
    try:
        r = getattr(F, f"avg_pool{n}d")(tx, ks, st, pad, ceil, include).numpy()
    except RuntimeError:  # torch rejects some ceil_mode windows that start in the padding
        r = None
    if r is not None:
        assert_close(AVG[n](xp.asarray(x), ks, st, pad, ceil, include), r.astype(float),
                     "float32")
    osz = tuple(int(v) for v in rng.integers(1, 6, n))
    r = getattr(F, f"adaptive_avg_pool{n}d")(tx, osz).numpy()
    assert_close(AAVG[n](xp.asarray(x), osz), r.astype(float), "float32")
    r, ri = getattr(F, f"adaptive_max_pool{n}d")(tx, osz, return_indices=True)
    g, gi = AMAX[n](xp.asarray(x), osz, return_indices=True)
    np.testing.assert_array_equal(np_of(g), r.numpy())
    np.testing.assert_array_equal(np.array(gi._arr), ri.numpy())
