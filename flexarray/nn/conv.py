"""Convolution and transposed convolution (channels-first, PyTorch-compatible).

``conv1d/2d/3d`` and ``conv_transpose1d/2d/3d`` share one 3-D implementation: 1-D and 2-D
inputs are viewed with size-1 depth/height. Engines (``flexarray/_engines/nn/conv.py``): direct loops for
depthwise and thin reductions, Winograd F(2x2, 3x3) for 3x3 stride-1 layers with >= 16
channels per group, Winograd F(4, 4) along the rows for 7x7 stride-2 (and 4-wide
stride-1) layers with >= 32 output channels, im2col + BLAS GEMM in cache-sized blocks
otherwise.
"""
from .._helpers import check_alloc, check_array, check_int
from . import _common
from .._engines.nn import conv as engine

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d"]


def _prologue(n, func, x, weight, bias):
    """Common checks: types, dtypes, ranks. Returns (result dtype, batched x shape, unbatched)."""
    check_array(x, func, "x")
    check_array(weight, func, "weight")
    if bias is not None:
        check_array(bias, func, "bias")
    result = _common.float_result_dtype(func, x=x, weight=weight, bias=bias)
    if x.ndim not in (n + 1, n + 2):
        raise ValueError(f"{func}: 'x' must be {n + 1}-D (C, {_common.spatial_names(n)}) or "
                         f"{n + 2}-D (N, C, {_common.spatial_names(n)}), got shape {x.shape}")
    if weight.ndim != n + 2:
        raise ValueError(f"{func}: 'weight' must be {n + 2}-D, got shape {weight.shape}")
    unbatched = x.ndim == n + 1
    xshape = (1,) + x.shape if unbatched else x.shape
    if any(k == 0 for k in weight.shape[2:]):
        raise ValueError(f"{func}: kernel size must be positive, got weight shape "
                         f"{weight.shape}")
    return result, xshape, unbatched


def _check_bias(func, bias, cout):
    if bias is not None and bias.shape != (cout,):
        raise ValueError(f"{func}: 'bias' must have shape ({cout},) (one value per output "
                         f"channel), got {bias.shape}")


def _check_groups(func, groups):
    g = check_int(groups, func, "groups")
    if g < 1:
        raise ValueError(f"{func}: 'groups' must be positive, got {groups}")
    return g


def _operands(x, weight, bias, result, n, unbatched):
    cdt = _common.compute_dtype(result)
    xn = _common.to_compute(x, cdt)
    if unbatched:
        xn = xn[None]
    wn = _common.to_compute(weight, cdt)
    bn = None if bias is None else _common.to_compute(bias, cdt)
    return _common.to5d(xn, n), _common.to5d(wn, n), bn


def _conv(n, func, x, weight, bias, stride, padding, dilation, groups):
    result, xshape, unbatched = _prologue(n, func, x, weight, bias)
    groups = _check_groups(func, groups)
    N, Cin = xshape[:2]
    spatial = xshape[2:]
    Cout, Cin_g = weight.shape[:2]
    ks = weight.shape[2:]
    if Cout % groups:
        raise ValueError(f"{func}: weight.shape[0] (out channels) = {Cout} must be "
                         f"divisible by groups = {groups}")
    if Cin_g * groups != Cin:
        raise ValueError(f"{func}: input has {Cin} channels but weight {weight.shape} with "
                         f"groups = {groups} expects {Cin_g * groups} "
                         f"(weight.shape[1] * groups)")
    _check_bias(func, bias, Cout)
    stride = _common.ntuple(stride, n, func, "stride", 1)
    dilation = _common.ntuple(dilation, n, func, "dilation", 1)
    if isinstance(padding, str):
        if padding == "valid":
            lo = hi = (0,) * n
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise ValueError(f"{func}: padding='same' needs stride 1, got stride "
                                 f"{stride}")
            total = [d * (k - 1) for d, k in zip(dilation, ks)]
            lo = tuple(t // 2 for t in total)          # PyTorch puts the odd extra
            hi = tuple(t - t // 2 for t in total)      # element at the end
        else:
            raise ValueError(f"{func}: 'padding' must be an int, a tuple of {n} ints, "
                             f"'same' or 'valid', got {padding!r}")
    else:
        lo = hi = _common.ntuple(padding, n, func, "padding", 0)
    for i in range(n):
        eff = dilation[i] * (ks[i] - 1) + 1
        if spatial[i] + lo[i] + hi[i] < eff:
            raise ValueError(
                f"{func}: the kernel window ({eff} with dilation {dilation[i]}) is larger "
                f"than the padded input ({spatial[i]} + padding {lo[i] + hi[i]}) in spatial "
                f"dimension {i}: input shape {x.shape}, weight shape {weight.shape}")
    padded = (N, Cin) + tuple(s + a + b for s, a, b in zip(spatial, lo, hi))
    check_alloc(padded, 8, func, lambda: f"the input padded by 'padding'={padding!r} "
                f"(shape {padded})")
    xn, wn, bn = _operands(x, weight, bias, result, n, unbatched)
    out = engine.conv3d(xn, wn, bn, _common.pad3(stride, n, 1), _common.pad3(lo, n, 0),
                          _common.pad3(hi, n, 0), _common.pad3(dilation, n, 1), groups)
    out = out.reshape(out.shape[:2] + out.shape[5 - n:])
    return _common.finish(out[0] if unbatched else out, result)


def _conv_transpose(n, func, x, weight, bias, stride, padding, output_padding, groups,
                    dilation):
    result, xshape, unbatched = _prologue(n, func, x, weight, bias)
    groups = _check_groups(func, groups)
    N, Cin = xshape[:2]
    spatial = xshape[2:]
    if weight.shape[0] != Cin:
        raise ValueError(f"{func}: weight.shape[0] must equal the input channels {Cin} "
                         f"(weight is (in_channels, out_channels / groups, "
                         f"{_common.spatial_names(n)})), got weight shape {weight.shape}")
    if Cin % groups:
        raise ValueError(f"{func}: input channels {Cin} must be divisible by groups = "
                         f"{groups}")
    Cout = weight.shape[1] * groups
    _check_bias(func, bias, Cout)
    ks = weight.shape[2:]
    stride = _common.ntuple(stride, n, func, "stride", 1)
    dilation = _common.ntuple(dilation, n, func, "dilation", 1)
    if isinstance(padding, str):
        raise ValueError(f"{func}: 'padding' must be an int or a tuple of {n} ints, got "
                         f"{padding!r}")
    padding = _common.ntuple(padding, n, func, "padding", 0)
    output_padding = _common.ntuple(output_padding, n, func, "output_padding", 0)
    sizes = []
    for i in range(n):
        if output_padding[i] >= max(stride[i], dilation[i]):
            raise ValueError(f"{func}: output_padding {output_padding} must be smaller "
                             f"than stride {stride} or dilation {dilation} in every "
                             f"dimension")
        if spatial[i] == 0:  # (the size formula below would give bias-filled output)
            raise ValueError(f"{func}: spatial dimension {i} of x is empty (input shape "
                             f"{x.shape}); a transposed convolution needs at least one "
                             f"input position per spatial dimension, as torch's")
        size = ((spatial[i] - 1) * stride[i] - 2 * padding[i] + dilation[i] * (ks[i] - 1)
                + output_padding[i] + 1)
        if size < 1:
            raise ValueError(f"{func}: padding {padding} is too large: output size in "
                             f"spatial dimension {i} would be {size} (input shape "
                             f"{x.shape}, weight shape {weight.shape})")
        sizes.append(size)
    check_alloc((N, Cout) + tuple(sizes), 8, func, lambda: (
        f"the output of shape {(N, Cout) + tuple(sizes)} (from 'stride'={stride}, "
        f"'padding'={padding}, 'output_padding'={output_padding}, 'dilation'={dilation})"))
    xn, wn, bn = _operands(x, weight, bias, result, n, unbatched)
    out = engine.conv_transpose3d(xn, wn, bn, _common.pad3(stride, n, 1), _common.pad3(padding, n, 0),
                                    _common.pad3(output_padding, n, 0), _common.pad3(dilation, n, 1),
                                    groups)
    out = out.reshape(out.shape[:2] + out.shape[5 - n:])
    return _common.finish(out[0] if unbatched else out, result)


_CONV_DOC = """{n}-D convolution (cross-correlation) over channels-first input, like
    ``torch.nn.functional.{name}``.

    Parameters
    ----------
    x : Array, shape (N, C_in, {sp}) or unbatched (C_in, {sp})
    weight : Array, shape (C_out, C_in / groups, {ksp})
    bias : Array of shape (C_out,) or None
    stride, dilation : int or tuple of {n} ints, >= 1
    padding : int or tuple of {n} ints >= 0, or 'valid' (0) or 'same' (output size equals
        input size; stride must be 1; an odd total pad puts the extra element at the end)
    groups : int, divides C_in and C_out

    Returns an Array (N, C_out, {osp}) of the promoted real floating dtype; float16 and
    bfloat16 are computed in float32 and rounded once. Raises TypeError for non-arrays or
    non-floating dtypes, ValueError for bad shapes or parameters (naming them).
    """

_CONVT_DOC = """{n}-D transposed convolution ("deconvolution"), like
    ``torch.nn.functional.{name}``: the adjoint of ``conv{n}d`` with the same stride,
    padding and dilation.

    Parameters
    ----------
    x : Array, shape (N, C_in, {sp}) or unbatched (C_in, {sp})
    weight : Array, shape (C_in, C_out / groups, {ksp})
    bias : Array of shape (C_out,) or None
    stride, dilation : int or tuple of {n} ints, >= 1
    padding : int or tuple of {n} ints >= 0 (removed from both sides of the output)
    output_padding : int or tuple, each < max(stride, dilation): extra size at the end
    groups : int, divides C_in

    Output size per dimension: (in - 1) * stride - 2 * padding + dilation * (k - 1)
    + output_padding + 1.
    """


def _make(n, transposed):
    name = f"conv_transpose{n}d" if transposed else f"conv{n}d"
    sp = _common.spatial_names(n)
    fmt = dict(n=n, name=name, sp=sp, ksp=", ".join("k" + s for s in sp.split(", ")),
               osp=", ".join(s + "_out" for s in sp.split(", ")))
    if transposed:
        def f(x, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
              dilation=1):
            return _conv_transpose(n, name, x, weight, bias, stride, padding,
                                   output_padding, groups, dilation)
        f.__doc__ = _CONVT_DOC.format(**fmt)
    else:
        def f(x, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
            return _conv(n, name, x, weight, bias, stride, padding, dilation, groups)
        f.__doc__ = _CONV_DOC.format(**fmt)
    f.__name__ = f.__qualname__ = name
    f.__module__ = "flexarray.nn"
    return f


conv1d, conv2d, conv3d = (_make(n, False) for n in (1, 2, 3))
conv_transpose1d, conv_transpose2d, conv_transpose3d = (_make(n, True) for n in (1, 2, 3))
