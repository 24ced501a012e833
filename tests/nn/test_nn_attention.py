"""flexarray.nn.scaled_dot_product_attention against a float64 einsum reference and torch."""
import math

import numpy as np
import pytest

import flexarray as xp
import flexarray.nn as nn
from flexarray._engines import gates
from flexarray._engines.nn import attention as _attention_engines
from helpers.nn import FLOATS, LAYOUTS, assert_close, layout, np_of

sdpa = nn.scaled_dot_product_attention


def ref_sdpa(q, k, v, mask=None, causal=False, scale=None, rep=1):
    """softmax(q k^T * scale + mask) v in float64 by definition; a row whose keys are all
    masked gives zeros."""
    if rep > 1:  # grouped-query attention: repeat each key/value head
        k = np.repeat(k, rep, axis=-3)
        v = np.repeat(v, rep, axis=-3)
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    s = np.einsum("...le,...se->...ls", q, k) * scale
    L, S = s.shape[-2:]
    allowed = np.ones(s.shape, bool)
    if causal:
        allowed &= np.tril(np.ones((L, S), bool))
    if mask is not None:
        if mask.dtype == bool:
            allowed = allowed & mask
        else:
            s = s + mask
    s = np.where(allowed, s, -np.inf)
    m = s.max(-1, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    p = np.exp(s - m)
    tot = p.sum(-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.einsum("...ls,...se->...le", p, v) / tot
    return np.where(tot > 0, out, 0.0)


def _case(rng, qshape, kshape, vshape, dname):
    npdt = FLOATS[dname][1]
    return [rng.standard_normal(s).astype(npdt) for s in (qshape, kshape, vshape)]


@pytest.mark.parametrize("seed", range(24))
def test_attention_random(seed):
    rng = np.random.default_rng(seed)
    B, H = int(rng.integers(1, 3)), int(rng.integers(1, 4))
    L, S = int(rng.integers(1, 30)), int(rng.integers(1, 30))
    E, Ev = int(rng.integers(1, 9)), int(rng.integers(1, 9))
    dname = "float64" if seed % 2 else "float32"
    # broadcast batch dims: key/value may drop the batch axis
    kb = (H,) if seed % 4 == 3 else (B, H)
    q, k, v = _case(rng, (B, H, L, E), kb + (S, E), kb + (S, Ev), dname)
    causal = seed % 3 == 1
    mask = None
    if seed % 5 in (1, 2):
        mask = rng.random((1 if seed % 2 else B, 1, L, S)) < 0.7  # boolean, broadcast
    elif seed % 5 == 3:
        mask = (rng.standard_normal((L, S)) * 2).astype(FLOATS[dname][1])  # additive
        mask[:, : S // 3] = -np.inf
    scale = None if seed % 6 else float(rng.uniform(-1, 2))
    got = sdpa(xp.asarray(q), xp.asarray(k), xp.asarray(v),
               None if mask is None else xp.asarray(mask), is_causal=causal, scale=scale)
    ref = ref_sdpa(q.astype(float), k.astype(float), v.astype(float),
                   None if mask is None else (mask if mask.dtype == bool else mask.astype(float)),
                   causal, scale)
    assert got.dtype == FLOATS[dname][0]
    assert not np.isnan(np_of(got)).any()
    assert_close(got, ref, dname)


@pytest.mark.parametrize("dname", ["float32", "float64"])
@pytest.mark.parametrize("mask_kind", [None, "bool", "float", "causal", "causal+bool"])
def test_attention_flash_path(dname, mask_kind, monkeypatch):
    """Scores larger than the materialization budget: tiled online softmax."""
    rng = np.random.default_rng(3)
    L, S = 300, 420
    monkeypatch.setattr(gates, "ATTENTION_MATERIALIZE_MAX", 1 << 14)  # force tiles
    monkeypatch.setattr(_attention_engines, "_BQ", 128)
    monkeypatch.setattr(_attention_engines, "_BK", 96)
    q, k, v = _case(rng, (2, L, 16), (2, S, 16), (2, S, 8), dname)
    q *= 3  # peaky softmax: the running max moves between tiles
    mask = None
    if mask_kind in ("bool", "causal+bool"):
        mask = rng.random((L, S)) < 0.5
        mask[5] = False  # a fully masked row
    elif mask_kind == "float":
        mask = rng.standard_normal((2, 1, S)).astype(FLOATS[dname][1])
        mask[1, 0, 100:] = -np.inf
    causal = mask_kind is not None and mask_kind.startswith("causal")
    got = sdpa(xp.asarray(q), xp.asarray(k), xp.asarray(v),
               None if mask is None else xp.asarray(mask), is_causal=causal)
    ref = ref_sdpa(q.astype(float), k.astype(float), v.astype(float),
                   None if mask is None else (mask if mask.dtype == bool else mask.astype(float)),
                   causal)
    assert_close(got, ref, dname)
    if mask_kind in ("bool", "causal+bool"):
        np.testing.assert_array_equal(np_of(got)[:, 5], 0.0)


def test_attention_default_tiles_large():
    """The default flash tiling (budget, 256 x 512 tiles) on a sequence longer than one
    tile, causal, with more heads than workers."""
    rng = np.random.default_rng(4)
    q, k, v = _case(rng, (3, 700, 32), (3, 700, 32), (3, 700, 16), "float32")
    got = sdpa(xp.asarray(q), xp.asarray(k), xp.asarray(v), is_causal=True)
    assert_close(got, ref_sdpa(q.astype(float), k.astype(float), v.astype(float), None, True),
                 "float32")


def test_attention_materialized_many_heads_parallel():
    rng = np.random.default_rng(11)
    q, k, v = _case(rng, (2, 8, 128, 64), (2, 8, 128, 64), (2, 8, 128, 64), "float32")
    mask = rng.random((2, 1, 1, 128)) < 0.9  # a padding mask, broadcast over heads/queries
    got = sdpa(xp.asarray(q), xp.asarray(k), xp.asarray(v), xp.asarray(mask))
    assert_close(got, ref_sdpa(q.astype(float), k.astype(float), v.astype(float), mask),
                 "float32")


def test_attention_fully_masked_rows_are_zero():
    rng = np.random.default_rng(5)
    q, k, v = _case(rng, (2, 6, 4), (2, 5, 4), (2, 5, 3), "float64")
    mask = np.ones((6, 5), bool)
    mask[2] = False
    out = np_of(sdpa(xp.asarray(q), xp.asarray(k), xp.asarray(v), xp.asarray(mask)))
    np.testing.assert_array_equal(out[:, 2], 0.0)
    assert np.isfinite(out).all()
    fmask = np.zeros((6, 5))
    fmask[4] = -np.inf
    out = np_of(sdpa(xp.asarray(q), xp.asarray(k), xp.asarray(v), xp.asarray(fmask)))
    np.testing.assert_array_equal(out[:, 4], 0.0)
    assert np.isfinite(out).all()
    # no keys at all
    out = sdpa(xp.asarray(q), xp.asarray(k[:, :0]), xp.asarray(v[:, :0]))
    assert out.shape == (2, 6, 3)
    np.testing.assert_array_equal(np_of(out), 0.0)


def test_attention_nan_stays_in_its_row():
    rng = np.random.default_rng(6)
    q, k, v = _case(rng, (1, 4, 4), (1, 5, 4), (1, 5, 2), "float32")
    q[0, 1, 2] = np.nan
    out = np_of(sdpa(xp.asarray(q), xp.asarray(k), xp.asarray(v)))
    assert np.isnan(out[0, 1]).all()
    assert np.isfinite(np.delete(out[0], 1, axis=0)).all()


@pytest.mark.parametrize("dname", ["float16", "bfloat16"])
def test_attention_half(dname):
    rng = np.random.default_rng(7)
    q, k, v = _case(rng, (2, 3, 20, 8), (2, 3, 24, 8), (2, 3, 24, 8), dname)
    got = sdpa(xp.asarray(q), xp.asarray(k), xp.asarray(v), is_causal=True)
    assert got.dtype == FLOATS[dname][0]
    assert_close(got, ref_sdpa(q.astype(float), k.astype(float), v.astype(float), None, True),
                 dname)


@pytest.mark.parametrize("flash", [False, True])
def test_attention_gqa(flash, monkeypatch):
    if flash:
        monkeypatch.setattr(gates, "ATTENTION_MATERIALIZE_MAX", 16)
        monkeypatch.setattr(_attention_engines, "_BQ", 4)
        monkeypatch.setattr(_attention_engines, "_BK", 4)
    rng = np.random.default_rng(8)
    q, k, v = _case(rng, (2, 6, 7, 4), (2, 2, 9, 4), (2, 2, 9, 5), "float64")
    got = sdpa(xp.asarray(q), xp.asarray(k), xp.asarray(v), enable_gqa=True)
    assert_close(got, ref_sdpa(q, k, v, rep=3), "float64")
    with pytest.raises(ValueError, match="enable_gqa"):
        sdpa(xp.asarray(q), xp.asarray(k), xp.asarray(v))


@pytest.mark.parametrize("kind", LAYOUTS)
def test_attention_any_layout(kind):
    rng = np.random.default_rng(9)
    q, k, v = _case(rng, (2, 3, 10, 6), (2, 3, 12, 6), (2, 3, 12, 5), "float64")
    mask = rng.random((3, 10, 12)) < 0.8
    got = sdpa(layout(q, kind), layout(k, kind), layout(v, kind), layout(mask, kind),
               is_causal=True)
    assert_close(got, ref_sdpa(q, k, v, mask, True), "float64")


def test_attention_2d_and_mixed_dtypes():
    rng = np.random.default_rng(10)
    q = rng.standard_normal((5, 3)).astype(np.float32)
    k = rng.standard_normal((7, 3))
    v = rng.standard_normal((7, 2))
    got = sdpa(xp.asarray(q), xp.asarray(k), xp.asarray(v))
    assert got.dtype == xp.float64 and got.shape == (5, 2)
    assert_close(got, ref_sdpa(q.astype(float), k, v), "float64")


@pytest.mark.parametrize("call, err, match", [
    (lambda q, k, v: sdpa(q, k[..., :3], v), ValueError, "feature sizes"),
    (lambda q, k, v: sdpa(q, k, v[:, :4]), ValueError, "sequence lengths"),
    (lambda q, k, v: sdpa(q, k, v, xp.asarray(np.ones((3, 5), bool))), ValueError,
     "attn_mask"),
    (lambda q, k, v: sdpa(q, k, v, xp.asarray(np.ones((6, 5), np.int32))), TypeError,
     "attn_mask"),
    (lambda q, k, v: sdpa(q, xp.asarray(np.ones((3, 5, 4))), xp.asarray(np.ones((3, 5, 4)))),
     ValueError, "do not broadcast"),
    (lambda q, k, v: sdpa(q, k, v, is_causal=1), TypeError, "is_causal"),
    (lambda q, k, v: sdpa(q, k, v, scale="x"), TypeError, "scale"),
    (lambda q, k, v: sdpa(q, xp.asarray(np.ones((3, 5, 4))), xp.asarray(np.ones((3, 5, 4))),
                          enable_gqa=True), ValueError, "heads"),
    (lambda q, k, v: sdpa(q[0], k[0], v[0], enable_gqa=True), ValueError, "heads"),
    (lambda q, k, v: sdpa(q[0, 0], k, v), ValueError, "at least 2"),
    (lambda q, k, v: sdpa(np.ones((2, 6, 4)), k, v), TypeError, "query"),
    (lambda q, k, v: sdpa(xp.asarray(np.ones((2, 6, 4), np.int64)), k, v), TypeError,
     "floating"),
])
def test_attention_bad_input(call, err, match):
    q = xp.asarray(np.ones((2, 6, 4)))
    k = xp.asarray(np.ones((2, 5, 4)))
    v = xp.asarray(np.ones((2, 5, 4)))
    with pytest.raises(err, match=match):
        call(q, k, v)


@pytest.mark.torch
@pytest.mark.parametrize("seed", range(12))
def test_attention_against_torch(seed):
    torch = pytest.importorskip("torch")
    import torch.nn.functional as F
    rng = np.random.default_rng(100 + seed)
    B, Hk = int(rng.integers(1, 3)), int(rng.integers(1, 3))
    rep = 2 if seed % 4 == 0 else 1
    L = int(rng.integers(1, 40)) if seed < 9 else 600  # the last ones take the flash path
    S = int(rng.integers(L, 60)) if seed < 9 else 700
    E = int(rng.integers(1, 17))
    q, k, v = _case(rng, (B, Hk * rep, L, E), (B, Hk, S, E), (B, Hk, S, E), "float32")
    mask = None
    if seed % 3 == 1:
        mask = rng.random((B, 1, L, S)) < 0.7
        mask[..., 0] = True  # torch gives NaN for fully masked rows; flexarray zeros
    elif seed % 3 == 2:
        mask = rng.standard_normal((L, S)).astype(np.float32)
    causal = seed % 2 == 1 and mask is None
    scale = None if seed % 5 else 0.3
    t = [torch.from_numpy(a) for a in (q, k, v)]
    ref = F.scaled_dot_product_attention(*t, None if mask is None else torch.from_numpy(mask),
                                         is_causal=causal, scale=scale,
                                         enable_gqa=rep > 1).numpy()
    got = sdpa(*(xp.asarray(a) for a in (q, k, v)), None if mask is None else xp.asarray(mask),
               is_causal=causal, scale=scale, enable_gqa=rep > 1)
    assert_close(got, ref.astype(float), "float32")
