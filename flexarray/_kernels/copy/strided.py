"""Strided copies: ``copy_into(dst, src)`` for any two layouts of the same shape.

Elements are moved as raw bits (``src`` and ``dst`` have the same item size; no casting).
The dims are ordered by the destination's strides and coalesced (see ``_intrinsics.plan``);
then:

- when the source also runs along the destination's innermost dim (stride 0 or 1), rows are
  copied directly (contiguous rows become a memcpy);
- otherwise (a transpose) the source's most contiguous dim and the destination's innermost
  dim are walked in square tiles of four cache lines a side, staged through a small buffer:
  both sides then touch whole cache lines. Measured on 4096x4096 float32
  (``np.ascontiguousarray(a.T)``): 5-9x NumPy on one thread; the other tile shapes tried
  (plain i-j loops, 16x16 up to 128x128 tiles) were 1.2-2x slower.

Work is split into rows or tile strips and spread over ``nthreads`` Python threads (the
caller's choice: ``flexarray._engines.copy``). One specialization per item size (1, 2, 4,
8, 16 bytes); cold compile ~1 s CPU each.

First calls: ``copy_flat`` asks ``flexarray._kernels.ready`` first; while the kernel's
specialization compiles in the background, :func:`copy_standin` copies the same bits with
NumPy (``np.copyto`` between views of the same unsigned-integer bits over the same
elements: a copy moves bits, so any copy of them is exact; 16-byte items move as two
8-byte words, NaN payloads and signed zeros included).

Entry points: ``copy_into(dst, src, nthreads)``, ``ascontiguous(src, out, nthreads)`` and
``copy_flat(shape, src, so, ss, dst, do, sd, nthreads)`` on flat buffers; ``launch_size(dst,
src)``: the elements each launch of the kernel copies (the work to weigh against a thread
gate: more than 4 dims left after coalescing are copied one slab of the leading dims per
launch).
"""
import numpy as np
from numpy.lib.stride_tricks import as_strided

from flexarray._kernels import kernel, ready
from flexarray._kernels._intrinsics import flat_view, plan, row_item
from flexarray._threads import run_split

__all__ = ["copy_into", "ascontiguous", "copy_flat", "copy_standin", "launch_size"]

# NumPy dtype the bits move as, by item size
_BITS = {1: np.dtype(np.uint8), 2: np.dtype(np.uint16), 4: np.dtype(np.uint32),
         8: np.dtype(np.uint64), 16: np.dtype(np.complex128)}
_CHUNK = 1 << 16         # elements per work item in row mode


def _copy_kernel(src, so, ss, dst, do, sd, shape, tile, lo, hi):
    """Work items ``[lo, hi)``. ``tile == 0``: row mode, items are runs of up to ``_CHUNK``
    elements along dim 3. ``tile > 0``: items are strips of ``tile`` indices of dim 2, each
    copied in ``tile x tile`` blocks of dims (2, 3) through a buffer."""
    n0, n1, n2, n3 = shape
    if tile == 0:
        s3, d3 = ss[3], sd[3]
        for t in range(lo, hi):
            i0, i1, i2, start, m = row_item(t, shape, _CHUNK)
            ps = so + i0 * ss[0] + i1 * ss[1] + i2 * ss[2] + start * s3
            pd = do + i0 * sd[0] + i1 * sd[1] + i2 * sd[2] + start * d3
            if s3 == 1 and d3 == 1:  # (a loop: slice assignment compiles ~2x longer)
                for i in range(m):
                    dst[np.uint64(pd + i)] = src[np.uint64(ps + i)]
            elif s3 == 0:
                v = src[ps]
                for i in range(m):
                    dst[np.uint64(pd + i * d3)] = v
            else:
                for i in range(m):
                    dst[np.uint64(pd + i * d3)] = src[np.uint64(ps + i * s3)]
        return
    buf = np.empty(tile * tile, dst.dtype)
    nstrips = (n2 + tile - 1) // tile
    for t in range(lo, hi):
        g = t % nstrips
        r = t // nstrips
        i1 = r % n1
        i0 = r // n1
        a0 = g * tile
        ti = min(tile, n2 - a0)
        ps0 = so + i0 * ss[0] + i1 * ss[1] + a0 * ss[2]
        pd0 = do + i0 * sd[0] + i1 * sd[1] + a0 * sd[2]
        for b0 in range(0, n3, tile):
            tj = min(tile, n3 - b0)
            ps = ps0 + b0 * ss[3]
            pd = pd0 + b0 * sd[3]
            s2, s3, d2, d3 = ss[2], ss[3], sd[2], sd[3]
            if ti == tile and tj == tile and s2 == 1 and d3 == 1:
                # full tile, unit inner strides: fixed trip counts and constant strides let
                # LLVM vectorize (bounds from min() here cost 1.7x)
                for j in range(tile):
                    q = ps + j * s3
                    for i in range(tile):
                        buf[i * tile + j] = src[np.uint64(q + i)]
                for i in range(tile):
                    q = pd + i * d2
                    for j in range(tile):
                        dst[np.uint64(q + j)] = buf[i * tile + j]
            else:
                for j in range(tj):
                    q = ps + j * s3
                    for i in range(ti):
                        buf[i * tile + j] = src[np.uint64(q + i * s2)]
                for i in range(ti):
                    q = pd + i * d2
                    for j in range(tj):
                        dst[np.uint64(q + j * d3)] = buf[i * tile + j]


_copy = kernel(_copy_kernel)


def copy_flat(shape, src, so, ss, dst, do, sd, nthreads=1):
    """``copy_into`` on flat buffers: 1-D arrays of one bits dtype (``src`` may be read-only),
    element offsets ``so``/``do`` and element strides ``ss``/``sd`` over ``shape``, on up to
    ``nthreads`` threads."""
    p = plan(shape, (sd, ss), (do, so))
    if p is None:  # more than 4 dims after coalescing: loop over the first
        for i in range(shape[0]):
            copy_flat(shape[1:], src, so + i * ss[0], ss[1:], dst, do + i * sd[0], sd[1:],
                      nthreads)
        return
    shp, (sd4, ss4), (do, so) = p
    n = shp[0] * shp[1] * shp[2] * shp[3]
    if n == 0:
        return
    tile = 0
    s3 = abs(ss4[3])
    if s3 > 1:
        # the source's most contiguous dim (besides dim 3) goes to position 2 and is tiled
        k = min(range(3), key=lambda d: (abs(ss4[d]) if shp[d] > 1 else 1 << 62))
        if shp[k] > 1 and abs(ss4[k]) < s3:
            perm = [d for d in range(3) if d != k] + [k, 3]
            shp = tuple(shp[d] for d in perm)
            ss4 = tuple(ss4[d] for d in perm)
            sd4 = tuple(sd4[d] for d in perm)
            tile = max(4, 256 // dst.itemsize)  # four cache lines a side
    if tile:
        items = shp[0] * shp[1] * ((shp[2] + tile - 1) // tile)
    else:
        items = shp[0] * shp[1] * shp[2] * ((shp[3] + _CHUNK - 1) // _CHUNK)
    args = (src, so, ss4, dst, do, sd4, shp, tile)
    if ready(_copy, (src.dtype, src.flags.writeable, dst.dtype), *args, 0, 1):
        run_split(_copy, args, items, nthreads)
    else:
        copy_standin(src, so, ss4, dst, do, sd4, shp)


def copy_standin(src, so, ss, dst, do, sd, shape):
    """The kernel's copy by NumPy (while it compiles in the background): ``np.copyto``
    between strided views of the flat buffers (``copy_flat``'s arguments). Both are bits
    of one unsigned dtype (complex128 words, for 16-byte items, viewed as pairs of
    uint64), so the copy moves bits exactly as the kernel does."""
    if src.dtype.itemsize == 16:
        src, dst = src.view(np.uint64), dst.view(np.uint64)
        so, do = 2 * so, 2 * do
        ss, sd = tuple(2 * s for s in ss) + (1,), tuple(2 * s for s in sd) + (1,)
        shape = tuple(shape) + (2,)
    it = src.itemsize
    sv = as_strided(src[so:], tuple(shape), tuple(s * it for s in ss), writeable=False)
    dv = as_strided(dst[do:], tuple(shape), tuple(s * it for s in sd))
    np.copyto(dv, sv, casting="no")


def _bits(a, readonly):
    v = a.view(_BITS[a.itemsize]) if a.dtype != _BITS[a.itemsize] else a
    return flat_view(v, readonly=readonly)


def copy_into(dst, src, nthreads=1):
    """``dst[...] = src`` for NumPy arrays of equal item size (bits are copied), any strides
    (negative, zero), on up to ``nthreads`` threads. ``src`` broadcasts to ``dst.shape``; the
    two must not overlap."""
    if src.shape != dst.shape:
        src = np.broadcast_to(src, dst.shape)
    if dst.size == 0:
        return dst
    fs = _bits(src, True)
    if fs is None:
        fs = _bits(np.ascontiguousarray(src), True)
    fd = _bits(dst, False)
    if fd is None:  # odd destination strides: NumPy handles them
        dst[...] = src
        return dst
    copy_flat(dst.shape, fs[0], fs[1], fs[2], fd[0], fd[1], fd[2], nthreads)
    return dst


def launch_size(dst, src):
    """The elements each kernel launch of ``copy_into(dst, src)`` copies: all of them, or
    one slab of the leading dims when more than 4 dims remain after coalescing (each slab
    is a launch of its own, split over ``nthreads`` in turn)."""
    fd = _bits(dst, False)
    if fd is None or dst.size == 0:  # (NumPy's copy: no launch)
        return 0
    if src.shape != dst.shape:
        src = np.broadcast_to(src, dst.shape)
    fs = _bits(src, True)
    shape, sd = dst.shape, fd[2]
    ss = fs[2] if fs is not None else tuple(  # (copy_into copies such a source C-ordered)
        int(np.prod(shape[d + 1:], dtype=np.int64)) for d in range(len(shape)))
    while plan(shape, (sd, ss), (0, 0)) is None:
        shape, ss, sd = shape[1:], ss[1:], sd[1:]
    n = 1
    for m in shape:
        n *= m
    return n


def ascontiguous(src, out=None, nthreads=1):
    """A C-contiguous copy of ``src``: into ``out`` (C-contiguous, ``src``'s shape and item
    size) when given, else into scratch memory of the kernel's own (``np.empty``)."""
    return copy_into(np.empty(src.shape, src.dtype) if out is None else out, src, nthreads)
