"""Max, average and adaptive pooling (channels-first, PyTorch-compatible).

One 3-D implementation (1-D and 2-D inputs get size-1 depth/height). Max pooling
propagates NaN and, with ``return_indices``, reports PyTorch's flat index into each
input plane (``(z * H + y) * W + x``); ties keep the first element, NaN the last NaN.
"""
from .._helpers import check_alloc, check_array, check_bool, check_int
from . import _common
from .._engines.nn import pool as engine

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d"]


def _input(n, func, x):
    """Checks x; returns (spatial shape, unbatched, a function giving x as 5-D NumPy)."""
    check_array(x, func, "x")
    _common.dt.check_dtype(func, "x", x, "real floating")
    if x.ndim not in (n + 1, n + 2):
        raise ValueError(f"{func}: 'x' must be {n + 1}-D (C, {_common.spatial_names(n)}) or "
                         f"{n + 2}-D (N, C, {_common.spatial_names(n)}), got shape {x.shape}")
    unbatched = x.ndim == n + 1
    spatial = x.shape[-n:]
    if 0 in spatial:
        raise ValueError(f"{func}: spatial dimensions of 'x' must be non-zero, got shape "
                         f"{x.shape}")

    def operand():  # converted only once every parameter is checked
        xn = _common.to_compute(x, _common.compute_dtype(x.dtype))
        return _common.to5d(xn[None] if unbatched else xn, n)
    return spatial, unbatched, operand


def _window_params(n, func, kernel_size, stride, padding, dilation):
    ks = _common.ntuple(kernel_size, n, func, "kernel_size", 1)
    if stride is None or (isinstance(stride, (tuple, list)) and len(stride) == 0):
        st = ks
    else:
        st = _common.ntuple(stride, n, func, "stride", 1)
    pad = _common.ntuple(padding, n, func, "padding", 0)
    dil = _common.ntuple(dilation, n, func, "dilation", 1)
    if any(p > k // 2 for p, k in zip(pad, ks)):  # PyTorch's rule, for max pooling too
        raise ValueError(f"{func}: padding {pad} must be at most half the kernel size {ks}")
    return ks, st, pad, dil


def _out_check(func, x, osp, ks, pad, dil, st):
    if any(o < 1 for o in osp):
        raise ValueError(f"{func}: the pooling window (kernel_size {ks}, dilation {dil}) is "
                         f"larger than the padded input (shape {x.shape}, padding {pad}): "
                         f"output size would be {osp}")
    # the extent the windows cover (the padded input the kernels read)
    extent = tuple((o - 1) * s + d * (k - 1) + 1 for o, s, d, k in zip(osp, st, dil, ks))
    check_alloc(x.shape[:-len(osp)] + extent, 8, func, lambda: (
        f"the input padded to shape {x.shape[:-len(osp)] + extent} for 'kernel_size'={ks}, "
        f"'stride'={st}, 'padding'={pad}, 'dilation'={dil}"))


def _max_pool(n, func, x, kernel_size, stride, padding, dilation, ceil_mode,
              return_indices):
    spatial, unbatched, operand = _input(n, func, x)
    ceil_mode = check_bool(ceil_mode, func, "ceil_mode")
    return_indices = check_bool(return_indices, func, "return_indices")
    ks, st, pad, dil = _window_params(n, func, kernel_size, stride, padding, dilation)
    osp = tuple(engine.pool_out_size(s, k, t, p, d, ceil_mode)
                for s, k, t, p, d in zip(spatial, ks, st, pad, dil))
    _out_check(func, x, osp, ks, pad, dil, st)
    out, idx = engine.max_pool3d(operand(), _common.pad3(ks, n, 1), _common.pad3(st, n, 1), _common.pad3(pad, n, 0),
                                   _common.pad3(dil, n, 1), ceil_mode, return_indices)
    res = _unpad(out, n, unbatched)
    res = _common.finish(res, x.dtype)
    if return_indices:
        return res, _common.wrap(_unpad(idx, n, unbatched))
    return res


def _unpad(a, n, unbatched):
    a = a.reshape(a.shape[:2] + a.shape[5 - n:])
    return a[0] if unbatched else a


def _avg_pool(n, func, x, kernel_size, stride, padding, ceil_mode, count_include_pad,
              divisor_override):
    spatial, unbatched, operand = _input(n, func, x)
    ceil_mode = check_bool(ceil_mode, func, "ceil_mode")
    count_include_pad = check_bool(count_include_pad, func, "count_include_pad")
    ks, st, pad, _ = _window_params(n, func, kernel_size, stride, padding, 1)
    if divisor_override is not None:
        divisor_override = check_int(divisor_override, func, "divisor_override")
        if divisor_override == 0:
            raise ValueError(f"{func}: 'divisor_override' must be non-zero")
    osp = tuple(engine.pool_out_size(s, k, t, p, 1, ceil_mode)
                for s, k, t, p in zip(spatial, ks, st, pad))
    _out_check(func, x, osp, ks, pad, (1,) * n, st)
    out = engine.avg_pool3d(operand(), _common.pad3(ks, n, 1), _common.pad3(st, n, 1), _common.pad3(pad, n, 0),
                              ceil_mode, count_include_pad, divisor_override)
    return _common.finish(_unpad(out, n, unbatched), x.dtype)


def _adaptive(n, func, x, output_size, mode):
    spatial, unbatched, operand = _input(n, func, x)
    if isinstance(output_size, (tuple, list)):
        if len(output_size) != n:
            raise ValueError(f"{func}: 'output_size' must be an int or a tuple of {n} ints "
                             f"(or None), got {tuple(output_size)!r}")
        osz = tuple(s if o is None else check_int(o, func, "output_size")
                    for o, s in zip(output_size, spatial))
    else:
        osz = (output_size if type(output_size) is int
               else check_int(output_size, func, "output_size"),) * n
    if min(osz) < 1:
        raise ValueError(f"{func}: 'output_size' must be positive, got {output_size!r}")
    check_alloc(x.shape[:-n] + osz, 8, func,
                lambda: f"the output of 'output_size'={output_size!r} (shape {x.shape[:-n] + osz})")
    if mode == "avg" and osz == (1,) * n:
        xn = _common.to_compute(x, _common.compute_dtype(x.dtype))
        return _common.finish(engine.global_avg_pool(xn, n), x.dtype)
    out, idx = engine.adaptive_pool3d(operand(), _common.pad3(osz, n, 1), mode)
    res = _common.finish(_unpad(out, n, unbatched), x.dtype)
    if mode == "argmax":
        return res, _common.wrap(_unpad(idx, n, unbatched))
    return res


_MAX_DOC = """{n}-D max pooling, like ``torch.nn.functional.max_pool{n}d``.

    x: (N, C, {sp}) or (C, {sp}), real floating. kernel_size, stride (default
    kernel_size), padding (implicit -inf, at most half the kernel size), dilation:
    int or tuple of {n}. ceil_mode: round the output size up (a window must still start
    inside the input or its left padding). NaN propagates. With return_indices, also
    returns int64 flat indices into each input plane (PyTorch's convention).
    """
_AVG_DOC = """{n}-D average pooling, like ``torch.nn.functional.avg_pool{n}d``.

    x: (N, C, {sp}) or (C, {sp}), real floating. kernel_size, stride (default
    kernel_size), padding (zeros, at most half the kernel): int or tuple of {n}.
    count_include_pad: divide by the window size including padding (True) or by the
    number of input elements. divisor_override (2-D/3-D): divide by this instead.
    """
_AAVG_DOC = """{n}-D adaptive average pooling, like
    ``torch.nn.functional.adaptive_avg_pool{n}d``: output_size (int or tuple of {n}, None
    keeps that input size); output i averages input [floor(i*L/out), ceil((i+1)*L/out)).
    """
_AMAX_DOC = """{n}-D adaptive max pooling, like
    ``torch.nn.functional.adaptive_max_pool{n}d``: windows as in adaptive average pooling;
    NaN propagates; with return_indices, also int64 flat indices into each input plane.
    """


def _make(kind, n):
    name = f"{kind}_pool{n}d"
    fmt = dict(n=n, sp=_common.spatial_names(n))
    if kind == "max":
        def f(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
              return_indices=False):
            return _max_pool(n, name, x, kernel_size, stride, padding, dilation, ceil_mode,
                             return_indices)
        doc = _MAX_DOC
    elif kind == "avg" and n == 1:
        def f(x, kernel_size, stride=None, padding=0, ceil_mode=False,
              count_include_pad=True):
            return _avg_pool(n, name, x, kernel_size, stride, padding, ceil_mode,
                             count_include_pad, None)
        doc = _AVG_DOC
    elif kind == "avg":
        def f(x, kernel_size, stride=None, padding=0, ceil_mode=False,
              count_include_pad=True, divisor_override=None):
            return _avg_pool(n, name, x, kernel_size, stride, padding, ceil_mode,
                             count_include_pad, divisor_override)
        doc = _AVG_DOC
    elif kind == "adaptive_avg":
        def f(x, output_size):
            return _adaptive(n, name, x, output_size, "avg")
        doc = _AAVG_DOC
    else:
        def f(x, output_size, return_indices=False):
            check_bool(return_indices, name, "return_indices")
            return _adaptive(n, name, x, output_size, "argmax" if return_indices else "max")
        doc = _AMAX_DOC
    f.__name__ = f.__qualname__ = name
    f.__module__ = "flexarray.nn"
    f.__doc__ = doc.format(**fmt)
    return f


max_pool1d = _make("max", 1)
max_pool2d = _make("max", 2)
max_pool3d = _make("max", 3)
avg_pool1d = _make("avg", 1)
avg_pool2d = _make("avg", 2)
avg_pool3d = _make("avg", 3)
adaptive_avg_pool1d = _make("adaptive_avg", 1)
adaptive_avg_pool2d = _make("adaptive_avg", 2)
adaptive_avg_pool3d = _make("adaptive_avg", 3)
adaptive_max_pool1d = _make("adaptive_max", 1)
adaptive_max_pool2d = _make("adaptive_max", 2)
adaptive_max_pool3d = _make("adaptive_max", 3)
