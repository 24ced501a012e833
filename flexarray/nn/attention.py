"""Scaled dot-product attention (PyTorch-compatible signature)."""
import math

import numpy as np

from .._helpers import check_array, check_bool
from . import _common
from .._engines.nn import attention as engine

__all__ = ["scaled_dot_product_attention"]

_F = "scaled_dot_product_attention"


def scaled_dot_product_attention(query, key, value, attn_mask=None, is_causal=False,
                                 scale=None, enable_gqa=False):
    """softmax(query @ key^T * scale + mask) @ value, like
    ``torch.nn.functional.scaled_dot_product_attention`` (without dropout).

    Parameters
    ----------
    query : Array (..., L, E)
    key : Array (..., S, E)
    value : Array (..., S, Ev)
        Real floating; the batch dimensions (...) broadcast against each other.
    attn_mask : Array or None
        Broadcastable to (..., L, S). Boolean: True means "may attend". Floating: added
        to the scaled scores (use -inf to forbid).
    is_causal : bool
        Query i attends to keys j <= i (top-left aligned, as PyTorch). Combines with
        ``attn_mask`` (both must allow a key), where PyTorch refuses the pair.
    scale : float or None
        Defaults to 1 / sqrt(E).
    enable_gqa : bool
        Grouped-query attention: query heads (axis -3) = key/value heads x groups; query
        head h reads key/value head h // groups.

    Returns an Array (..., L, Ev). A query whose keys are all masked gets zeros, never NaN.
    float16/bfloat16 are computed in float32 and rounded once. Small problems materialize
    each head's (L, S) scores; large ones run a tiled online softmax ("flash") whose
    memory is O(tile^2) per worker, whatever L and S.
    """
    q = check_array(query, _F, "query")
    k = check_array(key, _F, "key")
    v = check_array(value, _F, "value")
    result = _common.float_result_dtype(_F, query=q, key=k, value=v)
    for name, a in (("query", q), ("key", k), ("value", v)):
        if a.ndim < 2:
            raise ValueError(f"{_F}: '{name}' must have at least 2 dimensions (..., seq, "
                             f"features), got shape {a.shape}")
    L, E = q.shape[-2:]
    S = k.shape[-2]
    Ev = v.shape[-1]
    if k.shape[-1] != E:
        raise ValueError(f"{_F}: query and key feature sizes differ: query {q.shape}, key "
                         f"{k.shape} (last dimensions must match)")
    if v.shape[-2] != S:
        raise ValueError(f"{_F}: key and value sequence lengths differ: key {k.shape}, "
                         f"value {v.shape} (dimension -2 must match)")
    check_bool(is_causal, _F, "is_causal")
    check_bool(enable_gqa, _F, "enable_gqa")
    if scale is None:
        scale = 1.0 / math.sqrt(E) if E else 1.0
    elif isinstance(scale, (bool, np.bool_)) or not isinstance(scale, (int, float,
                                                                      np.integer, np.floating)):
        raise TypeError(f"{_F}: 'scale' must be a real number or None, got "
                        f"{type(scale).__name__}")
    try:
        scale = float(scale)
    except OverflowError:
        raise ValueError(f"{_F}: 'scale'={scale} is beyond the float64 range") from None

    rep = 1
    try:
        if enable_gqa:
            if q.ndim < 3 or k.ndim < 3 or v.ndim < 3:
                raise ValueError(f"{_F}: enable_gqa needs a heads dimension (-3) in query, "
                                 f"key and value, got {q.shape}, {k.shape}, {v.shape}")
            Hq, Hk, Hv = q.shape[-3], k.shape[-3], v.shape[-3]
            if Hk != Hv or Hk == 0 or Hq % Hk:
                raise ValueError(f"{_F}: with enable_gqa the key and value heads must be "
                                 f"equal and divide the query heads, got query {q.shape}, "
                                 f"key {k.shape}, value {v.shape}")
            rep = Hq // Hk
            outer = np.broadcast_shapes(q.shape[:-3], k.shape[:-3], v.shape[:-3])
            qbatch, kvbatch = outer + (Hq,), outer + (Hk,)
        else:
            qbatch = kvbatch = np.broadcast_shapes(q.shape[:-2], k.shape[:-2], v.shape[:-2])
    except ValueError as e:
        if "broadcast" not in str(e) and "mismatch" not in str(e):
            raise
        raise ValueError(f"{_F}: the batch dimensions of query {q.shape}, key {k.shape} and "
                         f"value {v.shape} do not broadcast (for grouped-query attention "
                         f"pass enable_gqa=True)") from None

    if attn_mask is not None:
        check_array(attn_mask, _F, "attn_mask")
        _common.dt.check_dtype(_F, "attn_mask", attn_mask, "real floating or bool")
        target = qbatch + (L, S)
        ok = attn_mask.ndim <= len(target) and all(
            m in (1, t) for m, t in zip(attn_mask.shape[::-1], target[::-1]))
        if not ok:
            raise ValueError(f"{_F}: 'attn_mask' of shape {attn_mask.shape} does not "
                             f"broadcast to (..., L, S) = {target}")

    cdt = _common.compute_dtype(result)
    mask = None if attn_mask is None else engine.flat_mask(attn_mask._arr, qbatch, cdt)
    qn = _batch3(q, qbatch, cdt)
    kn = _batch3(k, kvbatch, cdt)
    vn = _batch3(v, kvbatch, cdt)
    out = engine.sdpa(qn, kn, vn, mask, bool(is_causal), scale, rep)
    return _common.finish(out.reshape(qbatch + (L, Ev)), result)


def _batch3(a, batch, cdt):
    """a as a C-contiguous (prod(batch), seq, features) array in the compute dtype."""
    nd = a._arr
    if nd.shape[:-2] != batch:
        nd = np.broadcast_to(nd, batch + nd.shape[-2:])
    nd = np.ascontiguousarray(nd, dtype=cdt)
    return nd.reshape((math.prod(batch),) + nd.shape[-2:])
