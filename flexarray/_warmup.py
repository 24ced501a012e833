"""Warm-up recipes: small calls that compile every Numba kernel for every dtype and mode
the frontend sends it, one recipe per kernel family (``python -m flexarray warm`` runs them
in processes of ``flexarray._kernels._warm``; the background process runs one family's for
one dtype when a kernel of it compiles on a caller's thread).

Each recipe takes ``only`` (a sequence of NumPy dtypes, or None for all) where its family
has dtype variants worth filtering. The calls go through the kernel modules' NumPy-level
entry points where those have no gates, else through the public functions with inputs
above the gates (``flexarray._engines.gates``): this module sits at the top of the layers.
A new kernel family needs a recipe here; ``python -m flexarray warm --check`` lists the
kernels the recipes leave uncompiled.
"""
import numpy as np

__all__ = ["RECIPES"]

def _rng():
    return np.random.default_rng(0)


def _only(dts, only):
    """The dtypes of ``dts`` in ``only`` (all of them when ``only`` is None)."""
    return [d for d in dts if only is None or np.dtype(d) in only]


def _fft(only=None):
    from flexarray._kernels.fft import rfft
    r = _rng()
    for dt in _only((np.float32, np.float64), only):
        for n in (64, 4096):
            x = r.standard_normal((3, n)).astype(dt)
            rfft.irfft(rfft.rfft(x), n)


def _half(only=None):
    import ml_dtypes
    from flexarray._kernels.elementwise import half
    for dt in (np.float16, ml_dtypes.bfloat16):
        a = np.arange(12, dtype=np.float32).reshape(3, 4).astype(dt)
        half.binary("add", a, a, np.empty_like(a))
        half.from_float32(half.to_float32(a[:, ::2]), dt)


def _argminmax(only=None):
    import ml_dtypes
    from flexarray._kernels.reductions import argminmax
    dts = [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
           np.uint64, np.float16, ml_dtypes.bfloat16, np.float32, np.float64]
    for dt in dts:
        a = (np.arange(4 * 6 * 8) % 7).reshape(4, 6, 8).astype(dt)
        argminmax.argmax(a, 2)                  # runs
        argminmax.argmax(a, 0)                  # outer
        argminmax.argmax(a[:, :, ::2], 2)       # inner


def _sort(only=None):
    import flexarray as xp
    r = _rng()
    for name in ("float16", "bfloat16", "float32", "float64", "int8", "int16", "int32",
                 "int64", "uint8", "uint16", "uint32", "uint64"):
        dt = _dtypes((name,))[0]
        a = xp.asarray((r.standard_normal((2, 1 << 12)) * 50).astype(dt))
        for descending in (False, True):
            xp.sort(a, descending=descending)
            xp.argsort(a, descending=descending)
        xp.argsort(xp.asarray(np.zeros((2, 1 << 12), dt)))       # long runs of ties
        if dt.kind == "f" or name == "bfloat16":                   # NaN and -0.0 kept
            xp.sort(xp.asarray(np.full((2, 1 << 12), np.nan).astype(dt)))
        xp.unique_values(a)
        xp.unique_inverse(a)
        xp.unique_counts(a)
        xp.unique_all(a)


def _pool(only=None):
    import flexarray as xp
    from flexarray import nn
    for dt in _only((xp.float32, xp.float64), only):
        x = xp.reshape(xp.arange(2 * 3 * 8 * 8, dtype=dt), (2, 3, 8, 8))
        nn.max_pool2d(x, 2)
        nn.max_pool2d(x, 2, return_indices=True)
        nn.avg_pool2d(x, 2)
        nn.adaptive_avg_pool2d(x, 3)
        nn.adaptive_max_pool2d(x, 3)
        nn.adaptive_max_pool2d(x, 3, return_indices=True)
        nn.adaptive_avg_pool2d(x, 1)


def _conv(only=None):
    import flexarray as xp
    from flexarray import nn
    r = _rng()
    for dt in _only((xp.float32, xp.float64), only):
        def a(*shape):
            return xp.asarray(r.standard_normal(shape), dtype=dt)
        x = a(1, 32, 12, 12)
        nn.conv2d(x, a(32, 32, 3, 3), a(32), padding=1)              # Winograd 3x3
        nn.conv2d(x, a(64, 32, 1, 4), padding=(0, 2))                # Winograd along W
        nn.conv2d(x, a(16, 32, 2, 2), stride=2)                      # im2col + GEMM
        nn.conv2d(x, a(32, 1, 3, 3), padding=1, groups=32)           # direct (depthwise)
        nn.conv1d(a(2, 4, 16), a(8, 4, 3))
        nn.conv3d(a(1, 2, 4, 6, 6), a(4, 2, 3, 3, 3))
        nn.conv_transpose2d(a(1, 4, 6, 6), a(4, 3, 3, 3), stride=2)


def _attention(only=None):
    import flexarray as xp
    from flexarray import nn
    r = _rng()
    for dt in _only((xp.float32, xp.float64), only):
        def a(*shape):
            return xp.asarray(r.standard_normal(shape), dtype=dt)
        q, k, v = a(2, 2, 8, 16), a(2, 2, 8, 16), a(2, 2, 8, 16)
        nn.scaled_dot_product_attention(q, k, v)
        nn.scaled_dot_product_attention(q, k, v, is_causal=True)
        nn.scaled_dot_product_attention(q, k, v, attn_mask=xp.ones((8, 8), dtype=xp.bool))
        nn.scaled_dot_product_attention(q, k, v, attn_mask=a(8, 8))
        q, k, v = a(1, 2, 700, 16), a(1, 2, 700, 16), a(1, 2, 700, 16)   # tiled path
        nn.scaled_dot_product_attention(q, k, v)


_NUMERIC = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
            "float16", "bfloat16", "float32", "float64", "complex64", "complex128")


def _dtypes(names=_NUMERIC):
    import ml_dtypes
    return [np.dtype(ml_dtypes.bfloat16) if n == "bfloat16" else np.dtype(n) for n in names]


def _reduce(only=None):
    import flexarray as xp
    for dt in _only([np.dtype(np.bool_)] + _dtypes(), only):
        # (above the kernels' gates: flexarray._engines.gates.REDUCE_KERNEL_MIN)
        a = xp.asarray((np.arange(4 * 8 * 8200) % 3).reshape(4, 8, 8200).astype(dt))
        for axis in (2, 0, None, 1, (0, 2)):
            xp.sum(a, axis=axis)
            xp.prod(a, axis=axis)
            if dt.kind != "c":
                xp.max(a, axis=axis)
                xp.min(a, axis=axis)
            if dt.kind in "fc" or dt.name == "bfloat16":
                xp.mean(a, axis=axis)
                xp.nansum(a, axis=axis)
                xp.nanmean(a, axis=axis)
            xp.sum(a[:, ::2, ::-1], axis=axis)


def _copy(only=None):
    from flexarray._kernels.copy import gather, strided
    for size in (1, 2, 4, 8, 16):
        dt = {1: np.uint8, 2: np.uint16, 4: np.float32, 8: np.float64, 16: np.complex128}[size]
        a = np.arange(4 * 6 * 8).reshape(4, 6, 8).astype(dt)
        strided.ascontiguous(a.transpose(2, 0, 1))
        strided.copy_into(np.empty((4, 6, 8), dt)[:, ::-1], a[::2].repeat(2, 0))
        idx = np.array([3, 0, 1], np.intp)
        gather.take(a, idx, 1, np.empty((4, 3, 8), dt))
        gather.take(a.reshape(-1), idx, 0, np.empty(3, dt))


def _select(only=None):
    from flexarray._kernels.elementwise import select
    for dt in _dtypes(("uint8", "uint16", "float32", "float64")):
        a = np.ones((4, 5), dt)
        c = np.arange(20).reshape(4, 5) % 2 == 0
        select.where(c, a, a[::-1], np.empty((4, 5), dt))
        select.where(c, a[:, :1], a, np.empty((4, 5), dt))


def _matmul(only=None):
    from flexarray._kernels.linalg import matmul
    for dt in _dtypes(("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                       "uint64")):
        a = np.ones((4, 5), dt)
        matmul.int_matmul(a, a.T, np.zeros((4, 4), dt))
        matmul.int_matmul(a, a.T[:, ::2], np.zeros((4, 2), dt))
    from flexarray._kernels.elementwise import half
    for dt in _dtypes(("float16", "bfloat16")):     # (the half products' conversions)
        a = np.ones((4, 5), dt)
        half.from_float32(np.matmul(half.to_float32(a), half.to_float32(a.T)), dt)


def _threads(only=None):
    # the pool's helpers poll with a kernel of their own (asked for by the helpers, never
    # compiled on a caller's thread): compiled here directly, since a helper would compile
    # it after this recipe returned
    from flexarray._kernels._intrinsics import linger
    linger(np.zeros(8, np.int64), 0, 1)


RECIPES = {             # (the longest first: ``warm`` hands them out in this order)
    "argminmax": _argminmax,
    "reduce": _reduce,
    "fft": _fft,
    "conv": _conv,
    "pool": _pool,
    "half": _half,
    "copy": _copy,
    "attention": _attention,
    "sort": _sort,
    "select": _select,
    "matmul": _matmul,
    "threads": _threads,
}


