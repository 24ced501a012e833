"""Coarse-grained parallelism for flexarray.nn: worker threads, each serial inside.

(The threads are the package's one pool, ``flexarray._threads``; nn adds single-threaded
BLAS for the duration of its calls, and per-thread scratch memory.)

Convolution and attention alternate BLAS GEMMs with Numba kernels block by block. Running
both multithreaded (OpenBLAS's pool, then Numba's OpenMP pool, then OpenBLAS's again, ...)
makes the two pools' spinning threads fight over the cores: measured on this 2-core machine
under load from other processes, an im2col conv went from 0.13 s to 4.7 s. Instead each
worker thread takes whole blocks and runs single-threaded GEMMs (BLAS limited to one thread
for the duration of the call) and serial ``nogil`` Numba kernels: no barriers between
blocks, L2-resident scratch per core, graceful degradation when the machine is busy.
"""
import contextlib
import threading

import numpy as np

from ... import _threads
from ..matmul import SingleThreadedBLAS

workers = _threads.workers


def run(fn, items, parallel=True, blas=True):
    """Call ``fn(item)`` for every item; across worker threads when ``parallel``.

    ``fn`` must only write to disjoint parts of shared outputs. Inline when ``parallel``
    is false, there is one item, or one worker. With ``blas`` (fn calls BLAS), BLAS runs
    single-threaded while the items run (unless there is a single item, run inline).
    """
    items = list(items)
    nw = workers()
    # NumPy's floating-point warnings off, as everywhere in flexarray (an inf in a GEMM
    # is data here, not an error); the helper threads have them off for good
    with np.errstate(all="ignore"):
        _run(fn, items, parallel, blas, nw)


def _run(fn, items, parallel, blas, nw):
    if not parallel or len(items) <= 1 or nw <= 1 or _threads.runs_inline():
        # Inline. Blocks that alternate serial kernels with BLAS still get single-threaded
        # BLAS: OpenBLAS's idle threads spin after each GEMM and starve the next kernel
        # (measured under load: k7 s2 conv inline 38-211 ms with BLAS's threads, against
        # 14 ms on the workers).
        single = blas and len(items) > 1
        with SingleThreadedBLAS() if single else contextlib.nullcontext():
            for it in items:
                fn(it)
        return
    with SingleThreadedBLAS() if blas else contextlib.nullcontext():
        # Dynamic scheduling on the package's pool; the calling thread works too: one
        # thread fewer to wake (measured after an idle pause: a k7 s2 conv took 8.6 ms with
        # two pool threads, 7.2 ms this way).
        _threads.run_items(fn, items, nw)


def run_ranges(fn, n, parallel=True):
    """fn(lo, hi) over range(n) cut into contiguous chunks, on the workers when parallel.

    For serial ``nogil`` Numba kernels over independent planes/jobs (``fn`` runs no NumPy
    arithmetic, so it needs no ``errstate``): measured under load on this 2-core machine,
    Numba's OpenMP ``prange`` waited ~20 ms per call for a descheduled thread at its
    barrier, where worker threads with dynamic scheduling just share the chunks out; and a
    serial kernel compiles several times faster. Serial calls go straight to ``fn`` (the
    way through :func:`run` costs ~4 us).
    """
    nw = workers()
    if not parallel or nw <= 1 or n <= 1:
        fn(0, n)
        return
    nchunks = min(n, 4 * nw)
    bounds = [n * i // nchunks for i in range(nchunks + 1)]
    run(lambda i: fn(bounds[i], bounds[i + 1]), range(nchunks), parallel, blas=False)


_local = threading.local()

# Each thread's scratch arrays are carved from one arena in transparent huge pages (2 MB,
# physically contiguous) when the kernel grants them, so that their placement in the
# caches is the same in every process. Measured on the k7 s2 convolution benchmark (two
# threads, median of 40 calls, 8 processes each): 4.75-5.29 ms with the arena, against
# 4.52-7.31 ms with ordinary 4 KB pages, whose random physical placement put some
# processes in a persistent slow mode (~7.2 ms; reallocating the same buffers elsewhere
# moved a process in and out of it).
_HUGE = 2 << 20
_ARENA_BYTES = 4 << 20  # per thread; larger requests get ordinary memory


def _new_arena():
    import mmap
    try:
        # private (anonymous shared memory would be shmem, which THP usually skips)
        m = mmap.mmap(-1, _ARENA_BYTES + _HUGE, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
        raw = np.frombuffer(m, np.uint8)
        start = -raw.ctypes.data % _HUGE
        if hasattr(mmap, "MADV_HUGEPAGE"):
            m.madvise(mmap.MADV_HUGEPAGE)
    except (OSError, ValueError, AttributeError):  # no such mmap (not POSIX): ordinary memory
        raw, start = np.empty(_ARENA_BYTES, np.uint8), 0
    return [raw[start:start + _ARENA_BYTES], 0]  # the arena and its used bytes


def scratch(name, shape, dtype):
    """A per-thread scratch array (reused across calls; contents undefined), in the
    thread's huge-page arena while it has room."""
    dtype = np.dtype(dtype)
    key = (name, dtype.str)
    cache = getattr(_local, "cache", None)
    if cache is None:
        cache = _local.cache = {}
        _local.arena = _new_arena()
    size = 1
    for s in shape:
        size *= s
    buf = cache.get(key)
    if buf is None or buf.size < size:
        arena = _local.arena
        nbytes = max(size, 1) * dtype.itemsize
        start = -(-arena[1] // 64) * 64
        if start + nbytes <= arena[0].size:
            buf = arena[0][start:start + nbytes].view(dtype)
            arena[1] = start + nbytes
        else:
            buf = np.empty(max(size, 1), dtype)
        cache[key] = buf
    return buf[:size].reshape(shape)
