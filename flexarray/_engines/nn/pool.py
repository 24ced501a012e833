"""NumPy-level pooling engines (no validation: flexarray.nn.pool validates first).

Inputs are C-contiguous float32/float64 arrays (N, C, D, H, W); outputs are fresh arrays.
"""
import math

import numpy as np

from .. import gates
from . import par


def pool_out_size(n, k, s, p, d, ceil_mode):
    """PyTorch's pooling_output_shape: floor or ceil, and with ceil_mode the last window
    must start inside the input or the left padding."""
    span = n + 2 * p - d * (k - 1) - 1
    if ceil_mode:
        o = -(-span // s) + 1
        if (o - 1) * s >= n + p:
            o -= 1
    else:
        o = span // s + 1
    return max(o, 0)


def _geometry(shape, ks, st, pad, dil, osp):
    return tuple(int(v) for v in (*shape, *ks, *st, *pad, *dil, *osp))


def max_pool3d(x, ks, st, pad, dil, ceil_mode, return_indices):
    """Max pooling; returns (out, int64 indices or None)."""
    from flexarray._kernels.nn import pool as nn_pool_kernels
    N, C, D, H, W = x.shape
    osp = tuple(pool_out_size(n, k, s, p, d, ceil_mode)
                for n, k, s, p, d in zip((D, H, W), ks, st, pad, dil))
    out = np.empty((N, C) + osp, x.dtype)
    idx = np.empty(out.shape if return_indices else (1,), np.int64)
    planes = N * C
    if out.size:
        g = _geometry((D, H, W), ks, st, pad, dil, osp)
        taps = out.size * ks[0] * ks[1] * ks[2]
        xf, of, jf, want = x.reshape(-1), out.reshape(-1), idx.reshape(-1), bool(return_indices)
        par.run_ranges(lambda p0, p1: nn_pool_kernels.max_pool(xf, of, jf, want, g, p0, p1), planes,
                        taps >= gates.POOL_THREADS_MIN)
    return out, (idx if return_indices else None)


def _avg_divisors(n, k, s, p, o, count_include_pad, dtype):
    start = np.arange(o, dtype=np.int64) * s - p
    end = np.minimum(start + k, n + p)
    if count_include_pad:
        cnt = end - start
    else:
        cnt = np.minimum(end, n) - np.maximum(start, 0)
    # an empty window sums to 0; give it divisor 1 so that it reports 0, as PyTorch does
    return np.where(cnt > 0, cnt, 1).astype(dtype)


def avg_pool3d(x, ks, st, pad, ceil_mode, count_include_pad, divisor_override):
    """Average pooling (PyTorch's divisor rules)."""
    from flexarray._kernels.nn import pool as nn_pool_kernels
    N, C, D, H, W = x.shape
    osp = tuple(pool_out_size(n, k, s, p, 1, ceil_mode)
                for n, k, s, p in zip((D, H, W), ks, st, pad))
    out = np.empty((N, C) + osp, x.dtype)
    if out.size == 0:
        return out
    if divisor_override is not None:
        divs = [np.full(osp[0], divisor_override, x.dtype), np.ones(osp[1], x.dtype),
                np.ones(osp[2], x.dtype)]
    else:
        divs = [_avg_divisors(n, k, s, p, o, count_include_pad, x.dtype)
                for n, k, s, p, o in zip((D, H, W), ks, st, pad, osp)]
    g = _geometry((D, H, W), ks, st, pad, (1, 1, 1), osp)
    planes = N * C
    taps = out.size * ks[0] * ks[1] * ks[2]
    xf, of = x.reshape(-1), out.reshape(-1)
    par.run_ranges(lambda p0, p1: nn_pool_kernels.avg_pool(xf, of, g, *divs, p0, p1), planes,
                    taps >= gates.POOL_THREADS_MIN)
    return out


def _adaptive_windows(n, o):
    i = np.arange(o, dtype=np.int64)
    return (i * n) // o, ((i + 1) * n + o - 1) // o


def global_avg_pool(x, n):
    """The mean of each (n-D) plane of x (C-contiguous, (..., *spatial)), keeping size-1
    spatial dims: adaptive average pooling to size 1 (a network's head). 16x512x7x7
    float32: 26 us for the kernel (vector sums), against 33 us for a BLAS matrix-vector
    product with weights 1/n; the 5-D detour of the general path cost ~2 us more."""
    from flexarray._kernels.nn import pool as nn_pool_kernels
    m = math.prod(x.shape[x.ndim - n:])
    planes = x.size // m
    out = np.empty(x.shape[:x.ndim - n] + (1,) * n, x.dtype)
    xf, of = x.reshape(-1), out.reshape(-1)
    par.run_ranges(lambda p0, p1: nn_pool_kernels.mean_rows(xf, of, m, p0, p1), planes,
                    x.size >= gates.POOL_THREADS_MIN)
    return out


def adaptive_pool3d(x, osp, mode):
    """Adaptive pooling to output size osp. mode: 'avg', 'max' or 'argmax' (max + indices).

    Returns (out, indices or None)."""
    N, C, D, H, W = x.shape
    planes = N * C
    from flexarray._kernels.nn import pool as nn_pool_kernels
    out = np.empty((N, C) + tuple(osp), x.dtype)
    want = mode == "argmax"
    idx = np.empty(out.shape if want else (1,), np.int64)
    if out.size == 0:
        return out, (idx if want else None)
    wins = []
    for n, o in zip((D, H, W), osp):
        wins.extend(_adaptive_windows(n, o))
    taps = N * C * D * H * W
    code = {"avg": 0, "max": 1, "argmax": 2}[mode]
    xf, of, jf = x.reshape(-1), out.reshape(-1), idx.reshape(-1)
    par.run_ranges(lambda p0, p1: nn_pool_kernels.adaptive(xf, of, jf, code, (D, H, W), *wins, p0, p1),
                    planes, taps >= gates.POOL_THREADS_MIN)
    return out, (idx if want else None)
