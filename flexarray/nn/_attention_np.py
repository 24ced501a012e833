"""NumPy-level scaled-dot-product attention (no validation: flexarray.nn.attention does it).

Work items are (head, query block) pairs run by worker threads (flexarray.nn._par). Each
walks the key/value sequence in tiles with an online softmax: scores by one BLAS GEMM,
scale/mask/running max in a Numba kernel, ``exp`` by NumPy, the value GEMM by BLAS. When
the whole score matrix of a head is small (``_MATERIALIZE_MAX`` elements) it is one tile
(the materialized path); otherwise tiles of ``_BQ`` x ``_BK`` keep memory at O(Bq x Bk)
per worker whatever the sequence lengths (the flash path). Causal tiles above the
diagonal are skipped.
"""
import numpy as np

from . import _par

# One head's whole (L, S) score matrix is materialized up to this many elements (1 MB of
# float32: it stays in L2 between the two GEMMs).
_MATERIALIZE_MAX = 1 << 18
_BQ = 256  # flash query block
_BK = 512  # flash key/value tile
_PAR_MIN_FLOPS = 1 << 22


def sdpa(q, k, v, mask, is_causal, scale, gqa_rep):
    """softmax(q k^T * scale + mask) v over the last two axes.

    q (B, L, E), k (Bkv, S, E), v (Bkv, S, Ev): C-contiguous, same float dtype; query
    batch b reads key/value batch b // gqa_rep. mask: None or (buf, boff, qs, ks) from
    :func:`flat_mask`: element (b, i, j) at buf[boff[b] + i*qs + j*ks].
    """
    from flexarray._kernels import nn_attention as K_

    B, L, E = q.shape
    S = k.shape[1]
    Ev = v.shape[2]
    dtype = q.dtype
    out = np.empty((B, L, Ev), dtype)
    if out.size == 0:
        return out
    if S == 0:
        out[...] = 0
        return out
    scale = dtype.type(scale)
    if mask is None:
        mkind, mbuf, boff, mqs, mks = 0, np.zeros(1, dtype), None, 0, 0
    else:
        mbuf, boff, mqs, mks = mask
        mkind = 2 if mbuf.dtype == np.uint8 else 1

    if L * S <= _MATERIALIZE_MAX:
        bq, bk = L, S
    else:
        bq, bk = min(L, _BQ), min(S, _BK)
    fused = dtype == np.float32
    items = [(b, r0, min(L, r0 + bq)) for r0 in range(0, L, bq) for b in range(B)]
    if is_causal:  # heavy (late) query blocks first: better balance across workers
        items.sort(key=lambda it: -it[1])

    def item_fn(item):
        b, r0, r1 = item
        nb = r1 - r0
        qb = q[b, r0:r1]
        kb = k[b // gqa_rep]
        vb = v[b // gqa_rep]
        mrow = np.full(nb, -np.inf, dtype)
        alpha = _par.scratch("attn_alpha", (nb,), dtype)
        sub = _par.scratch("attn_sub", (nb,), dtype)
        rs = _par.scratch("attn_colsum", (nb,), dtype)
        l = np.zeros(nb, dtype)
        acc = np.zeros((nb, Ev), dtype)
        tmp = _par.scratch("attn_pv", (nb, Ev), dtype)
        cend = min(S, r1) if is_causal else S  # causal: keys <= last query
        for c0 in range(0, cend, bk):
            c1 = min(cend, c0 + bk)
            ST = _par.scratch("attn_scores", (c1 - c0, nb), dtype)  # transposed scores
            np.matmul(kb[c0:c1], qb.T, out=ST)
            moff = 0 if mkind == 0 else int(boff[b]) + r0 * mqs + c0 * mks
            K_.softmax_tile(ST, scale, mbuf, moff, mqs, mks, mkind, is_causal,
                            r0, c0, mrow, alpha, sub, rs, fused)
            if not fused:
                np.exp(ST, out=ST)
                np.sum(ST, axis=0, out=rs)
            if c0 == 0:
                l[:] = rs
                np.matmul(ST.T, vb[c0:c1], out=acc)
            else:
                l *= alpha
                l += rs
                acc *= alpha[:, None]
                np.matmul(ST.T, vb[c0:c1], out=tmp)
                acc += tmp
        K_.finish_rows(acc, l, out[b, r0:r1])

    flops = 2 * B * L * S * (E + Ev)
    _par.run(item_fn, items, flops >= _PAR_MIN_FLOPS)
    return out


def flat_mask(mask, batch_shape, dtype):
    """A mask broadcastable to batch_shape + (L, S) as (buf, boff, qs, ks) for sdpa.

    Never materializes the broadcast: buf holds the mask at its own size (bool as uint8,
    float masks cast to the compute dtype once), boff[b] is the element offset of
    flattened batch b, qs/ks the element strides along queries and keys (0 when
    broadcast)."""
    nd = len(batch_shape) + 2
    m = mask.reshape((1,) * (nd - mask.ndim) + mask.shape)
    if m.dtype == np.bool_:
        buf = np.ascontiguousarray(m).view(np.uint8)
    else:
        buf = np.ascontiguousarray(m, dtype=dtype)
    st = [0 if n == 1 else s // buf.itemsize for n, s in zip(buf.shape, buf.strides)]
    boff = np.zeros(batch_shape, np.int64)
    for d in range(len(batch_shape)):
        if st[d]:
            shape = [1] * len(batch_shape)
            shape[d] = batch_shape[d]
            boff = boff + (np.arange(batch_shape[d], dtype=np.int64) * st[d]).reshape(shape)
    return buf.reshape(-1), boff.reshape(-1), st[-2], st[-1]
