"""Recycled memory for large results: a few blocks, reused once no array holds them.

A fresh large NumPy array costs a page fault per page on first touch, and the kernel zeroes
every page it maps: measured here, writing ``exp`` of 16M float32 into a fresh output takes
1.9x as long as into memory written before (2.5x for float16 ``add``, whose kernel is
otherwise memory-bound). glibc returns blocks of this size to the system on ``free``, so
a loop of large operations would pay that on every call.

:func:`empty` hands out views of recycled blocks (1-D ``uint8`` arrays). Every view of a
block, and everything derived from it (NumPy views, exports, DLPack capsules), keeps a
reference to the block, so a block whose only reference is this module's list is free:
the reference count is the free list, and no finalizer or callback is needed. The blocks
kept total at most ``FLEXARRAY_RECYCLE_BYTES`` bytes (default: 1/16 of physical memory, at
most 1 GiB; 0 turns recycling off; the former name ``FLEXARRAY_POOL_BYTES`` is still
read), so it never holds more than that much memory that no array uses. In a process that
has imported cubed, recycling is off unless ``FLEXARRAY_RECYCLE_BYTES`` is set: cubed
bounds each task's memory and cannot see the blocks kept here. Only blocks of
``RECYCLE_MIN_BYTES`` or more are recycled; smaller requests go to NumPy (its own
small-block cache and malloc's free lists are warm already).
"""
import os
import sys
import threading

import numpy as np
from ._engines import gates

__all__ = ["empty", "release"]

RECYCLE_MIN_BYTES = gates.RECYCLE_MIN_BYTES  # measured: flexarray/_engines/gates.py


def _default_cap() -> int:
    try:
        physical = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        physical = 1 << 34
    return min(physical // 16, 1 << 30)


_env = os.environ.get("FLEXARRAY_RECYCLE_BYTES", os.environ.get("FLEXARRAY_POOL_BYTES", ""))
CAP = int(_env) if _env.isdigit() else _default_cap()
CAP_GIVEN = _env.isdigit()


def _recycling() -> bool:
    """Whether recycling is on: ``CAP`` > 0, and, unless ``FLEXARRAY_RECYCLE_BYTES`` says
    otherwise, on the main thread of a process not running cubed. cubed bounds each task's
    memory (``allowed_mem``) without seeing blocks kept warm here (measured: a cubed run
    with allowed_mem=1GB peaked at 1.5 GB with recycling, 0.9 GB without); tasks on other
    threads (Dask's threaded scheduler) free their results in no order recycling can reuse
    (measured, 2 GB standardize-and-reduce on Dask's threads: 9.6-11.5 s with recycling,
    8.7 s without, NumPy chunks 8.5-9.0 s; again with tasks inline, 9.3-10.7 s against
    8.4-9.1 s and 3.05 GB peak against 2.6-2.8: recycling halved the ``std`` tasks' time,
    but the Zarr reads beside them took 300-400 ms a chunk instead of 60-150 ms: on a VM
    that hands freed memory back to the host, the pages kept here are the ones the
    reads would have reused warm; docs/scaling.md)."""
    return CAP > 0 and (CAP_GIVEN or ("cubed" not in sys.modules and
                                      threading.current_thread() is threading.main_thread()))

_blocks: list = []  # recycled blocks, least recently handed out first
_lock = threading.Lock()


def fresh_lock_in_forked_child(namespace: dict, name: str = "_lock") -> None:
    """Give a forked child a fresh ``namespace[name]`` lock: one that another thread of
    the parent held at the fork (a move or a search for a free block, for milliseconds)
    would stay held in the child for ever."""
    if hasattr(os, "register_at_fork"):
        os.register_at_fork(after_in_child=lambda: namespace.__setitem__(name,
                                                                         threading.Lock()))


fresh_lock_in_forked_child(globals())


def _free_refs() -> int:
    """``sys.getrefcount(b)`` inside the search loop for a block only ``_blocks`` holds."""
    blocks = [np.empty(1, np.uint8)]
    for b in blocks:
        return sys.getrefcount(b)


_FREE_REFS = _free_refs()


def empty(shape, dtype) -> np.ndarray:
    """An uninitialized C-contiguous array, in warm recycled memory when it is large."""
    dtype = np.dtype(dtype)
    n = 1
    for s in shape:
        n *= s
    nbytes = n * dtype.itemsize
    if nbytes < RECYCLE_MIN_BYTES or nbytes > CAP or not _recycling():
        return np.empty(shape, dtype)
    with _lock:
        for i in range(len(_blocks)):
            b = _blocks[i]
            # a free block of the same size, or up to 1/8 larger
            if nbytes <= b.size <= nbytes + (nbytes >> 3) and \
                    sys.getrefcount(b) == _FREE_REFS:
                del _blocks[i]
                break
        else:
            b = None  # (drops the loop's reference before the search for free blocks)
            b = _new_block(nbytes)
        if b is not None:
            _blocks.append(b)  # most recently handed out last
            return b[:nbytes].view(dtype).reshape(shape)
    return np.empty(shape, dtype)  # the blocks in use fill CAP: not recycled


def empty_like_order(a, shape, dtype) -> np.ndarray:
    """:func:`empty` of ``shape`` (``a``'s number of dimensions) with ``a``'s axes in its
    memory order, outermost first, as NumPy's order "K" lays out a result."""
    if a.ndim < 2 or a.flags.c_contiguous:
        return empty(shape, dtype)
    order = sorted(range(a.ndim), key=lambda d: -abs(a.strides[d]))  # outermost first
    return empty(tuple(shape[d] for d in order), dtype).transpose(np.argsort(order))


def _new_block(nbytes: int):
    """A new block after dropping free blocks (oldest first) to stay within ``CAP``; None
    when the blocks still in use leave no room."""
    total = nbytes
    for b in _blocks:
        total += b.size
    i = 0
    while total > CAP and i < len(_blocks):
        b = _blocks[i]
        if sys.getrefcount(b) == _FREE_REFS:
            total -= b.size
            del _blocks[i]
        else:
            i += 1
    return np.empty(nbytes, np.uint8) if total <= CAP else None


def release() -> int:
    """Give every free block back to the system; returns the number of bytes released."""
    with _lock:
        kept, freed = [], 0
        for b in _blocks:  # (the same reference pattern as in empty: see _free_refs)
            if sys.getrefcount(b) == _FREE_REFS:
                freed += b.size
            else:
                kept.append(b)
        _blocks[:] = kept
        return freed
