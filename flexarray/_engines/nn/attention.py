"""NumPy-level scaled-dot-product attention (no validation: flexarray.nn.attention does it).

Scores are computed transposed, S^T = K Q^T (keys x queries), by BLAS; a Numba kernel
scales, masks and runs the softmax down the columns (float32: with its own vectorized
exp and the column sums fused; float64: NumPy's exp); the value GEMM P V = (S^T)^T V is
BLAS again, reading the transposed tile in place. Work is split over worker threads
(:mod:`.par`), each single-threaded inside.

* Materialized path, when one head's (L, S) scores fit ``gates.ATTENTION_MATERIALIZE_MAX``
  elements (1 MB of float32, cache-resident between the two GEMMs): items are groups of
  heads (as many as balance gates.NN_BALANCE_THREADS threads: the same on any thread
  count).
* Flash path otherwise: items are (head, query block of ``_BQ``); each walks the keys in
  tiles of ``_BK`` with an online softmax (running max, rescaled sums and outputs), so
  memory is O(_BQ x _BK) per worker whatever L and S. Causal tiles above the diagonal
  are skipped and the diagonal tile is cut at the block's last query.
"""
import numpy as np

from .. import gates
from . import par

_BQ = 256  # flash query block
_BK = 2048  # flash key/value tile (fewer, larger tiles: less per-tile overhead)


def sdpa(q, k, v, mask, is_causal, scale, gqa_rep):
    """softmax(q k^T * scale + mask) v over the last two axes.

    q (B, L, E), k (Bkv, S, E), v (Bkv, S, Ev): C-contiguous, same float dtype; query
    batch b reads key/value batch b // gqa_rep. mask: None or (buf, boff, qs, ks) from
    :func:`flat_mask`: element (b, i, j) at buf[boff[b] + i*qs + j*ks].
    """
    from flexarray._kernels.nn import attention as nn_attention_kernels

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

    fused = dtype == np.float32  # float32: exp and sums inside the kernel
    flops = 2 * B * L * S * (E + Ev)
    parallel = flops >= gates.ATTENTION_THREADS_MIN

    def state(nh, nq):  # per-worker (alpha, sub, colsum) of the kernel
        return tuple(par.scratch(nm, (nh, nq), dtype)
                     for nm in ("attn_alpha", "attn_sub", "attn_colsum"))

    # Without a mask the scale goes into the queries (one small pass per item) and the
    # kernel's max pass over the scores becomes read-only.
    prescale = not mkind
    kscale = dtype.type(1) if prescale else scale

    def scaled_q(b0, b1, r0, r1):
        qb = q[b0:b1, r0:r1]
        if not prescale:
            return qb
        return np.multiply(qb, scale, out=par.scratch("attn_q", qb.shape, dtype))

    def kv(b0, b1):
        if gqa_rep == 1:
            return k[b0:b1], v[b0:b1]
        if b1 - b0 == 1:  # one query head: a view of its key/value head
            h = b0 // gqa_rep
            return k[h:h + 1], v[h:h + 1]
        sel = np.arange(b0, b1) // gqa_rep
        return k[sel], v[sel]

    def moffs(b0, b1, r0, c0):
        if mkind == 0:
            return np.zeros(b1 - b0, np.int64)
        return boff[b0:b1] + (r0 * mqs + c0 * mks)

    if L * S <= gates.ATTENTION_MATERIALIZE_MAX:
        # materialized: whole (S, L) score matrices, several heads per item (one BLAS
        # call per head, Python overhead per group); the groups are sized for
        # gates.NN_BALANCE_THREADS threads, never the actual count, so that the results do
        # not depend on it (a group's heads share one batched product)
        cend = min(S, L) if is_causal else S  # causal: later keys are never seen
        nh = max(1, min(gates.ATTENTION_MATERIALIZE_MAX // (L * S),
                        -(-B // (2 * gates.NN_BALANCE_THREADS))))

        def item_fn(b0):
            b1 = min(B, b0 + nh)
            kk, vv = kv(b0, b1)
            ST = par.scratch("attn_scores", (b1 - b0, cend, L), dtype)
            np.matmul(kk[:, :cend], scaled_q(b0, b1, 0, L).transpose(0, 2, 1), out=ST)
            m = np.full((b1 - b0, L), -np.inf, dtype)
            alpha, sub, cs = state(b1 - b0, L)
            nn_attention_kernels.softmax_tiles(ST, kscale, mbuf, moffs(b0, b1, 0, 0), mqs, mks, mkind, is_causal,
                             0, 0, m, alpha, sub, cs, fused)
            if not fused:
                np.exp(ST, out=ST)
                np.sum(ST, axis=1, out=cs)
            o = out[b0:b1]
            np.matmul(ST.transpose(0, 2, 1), vv[:, :cend], out=o)
            nn_attention_kernels.divide_rows(o, cs)

        par.run(item_fn, range(0, B, nh), parallel)
        return out

    # flash: (head, query block) items, key/value tiles with an online softmax
    bq, bk = min(L, _BQ), min(S, _BK)
    items = [(b, r0) for r0 in range(0, L, bq) for b in range(B)]
    if is_causal:  # heavy (late) query blocks first: better balance across workers
        items.sort(key=lambda it: -it[1])

    def flash_fn(item):
        b, r0 = item
        r1 = min(L, r0 + bq)
        nb = r1 - r0
        qT = scaled_q(b, b + 1, r0, r1).transpose(0, 2, 1)
        kk, vv = kv(b, b + 1)
        m = np.full((1, nb), -np.inf, dtype)
        alpha, sub, cs = state(1, nb)
        l = np.empty((1, nb), dtype)
        o = out[b:b + 1, r0:r1]  # the accumulator
        tmp = par.scratch("attn_pv", (1, nb, Ev), dtype)
        STbuf = par.scratch("attn_scores", (bk * nb,), dtype)
        cend = min(S, r1) if is_causal else S  # causal: keys <= last query
        for c0 in range(0, cend, bk):
            c1 = min(cend, c0 + bk)
            ST = STbuf[:(c1 - c0) * nb].reshape(1, c1 - c0, nb)  # transposed scores
            np.matmul(kk[:, c0:c1], qT, out=ST)
            nn_attention_kernels.softmax_tiles(ST, kscale, mbuf, moffs(b, b + 1, r0, c0), mqs, mks, mkind,
                             is_causal, r0, c0, m, alpha, sub, cs, fused)
            if not fused:
                np.exp(ST, out=ST)
                np.sum(ST, axis=1, out=cs)
            PT = ST.transpose(0, 2, 1)
            if c0 == 0:
                l[:] = cs
                np.matmul(PT, vv[:, c0:c1], out=o)
            else:
                l *= alpha
                l += cs
                o *= alpha[:, :, None]
                np.matmul(PT, vv[:, c0:c1], out=tmp)
                o += tmp
        nn_attention_kernels.divide_rows(o, l)

    par.run(flash_fn, items, parallel)
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
