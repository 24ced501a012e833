"""Buffers and copy-on-write: views share, copies are lazy.

Three objects hold an array's memory (see docs/value-model.md for the picture):

* :class:`Storage`: a block of memory, ``root``, a C- or F-contiguous NumPy array. It exists
  only once the block is shared by more than one :class:`Buffer` (a lazy copy was made).
* :class:`Buffer`: what a family of views shares. Every view of an array (basic indexing,
  ``permute_dims``, ``reshape`` when it is a view, ...) holds the same Buffer, and its NumPy
  view (``Array._arr``) points into the same memory, so a write through one is seen by all,
  as in NumPy. A Buffer is either

  - an *owner* (``views is None``): its memory is its own or it is the original of some
    lazy copies. An owner's views are never moved, so they are not tracked: making a view
    of an owner costs nothing extra. Every fresh result starts as the owner of its memory.
  - a *lazy copy* (``views`` a list of weak references to the Arrays of the family): an O(1)
    copy, ``asarray(x, copy=True)``, that reads the original's memory until one of them is
    written.

Before any write (:func:`unshare`), the memory is made the writer's alone: an owner whose
Storage has live lazy copies moves those copies to one fresh copy of the block (each
tracked view gets a NumPy view of the new block at the same byte offset); a lazy copy moves
itself to a fresh block, or, when nothing else holds the block any more, simply becomes its
owner. So a copy never sees a write to its original, nor the original a write to its copy.

*Pinned* Buffers share their memory with code outside flexarray: imports
(``asarray(numpy_array)``, ``from_dlpack``) and exports (``__array__``, ``__dlpack__``).
Their memory is never moved, and copies of them are real copies made at once, since the
foreign side may write at any time.
"""
from __future__ import annotations

import threading
import weakref

import numpy as np

from . import _memory

__all__ = ["Buffer", "Storage", "lazy_copy", "track", "unshare", "is_private"]


class Storage:
    """A block of memory shared by an owner Buffer and its lazy copies."""

    __slots__ = ("root", "owner", "copies", "prune_at")

    def __init__(self, root: np.ndarray, owner):
        self.root = root                  # C- or F-contiguous: every view lies inside it
        self.owner = owner                # weak reference to the owner Buffer, or None
        self.copies = []                  # weak references to the lazy-copy Buffers
        self.prune_at = 64                # len(copies) at which dead references are dropped


class Buffer:
    """What a family of views shares (see the module docs). ``Buffer()`` is the owner of
    fresh private memory; its fields are class defaults until set (no ``__init__``: every
    array result makes one, and an ``__init__`` doubles its cost, ~0.05 us)."""

    storage = None                        # a Storage once a lazy copy shares the memory
    views = None                          # None (an owner) or weakrefs to the family
    pinned = False                        # memory shared with code outside flexarray


def pinned_buffer() -> Buffer:
    """The Buffer of memory shared with code outside flexarray."""
    buf = Buffer()
    buf.pinned = True
    return buf


_lock = threading.Lock()  # moves are rare; one lock keeps concurrent writers consistent
_memory.fresh_lock_in_forked_child(globals())


def track(array, buf: Buffer) -> None:
    """Register ``array`` (a new view) with the family of ``buf``, a lazy copy."""
    views = buf.views
    views.append(weakref.ref(array))
    if len(views) & 63 == 0:  # drop the dead now and then (amortized O(1))
        views[:] = [r for r in views if r() is not None]


def _root_of(nd: np.ndarray):
    """The contiguous array whose memory holds ``nd`` and all its views, or None."""
    root = nd if nd.base is None else nd.base
    if type(root) is not np.ndarray or not (root.flags.c_contiguous or root.flags.f_contiguous):
        return None
    return root


def lazy_copy(buf: Buffer, nd: np.ndarray):
    """A new lazy-copy Buffer on ``buf``'s memory (``nd``: one of its NumPy views), or None
    when the memory cannot be shared lazily (pinned, or not in one contiguous block): the
    caller copies now."""
    if buf.pinned:
        return None
    with _lock:
        st = buf.storage
        if st is None:
            root = _root_of(nd)
            if root is None:
                return None
            st = buf.storage = Storage(root, weakref.ref(buf))
        copy = Buffer()
        copy.storage, copy.views = st, []
        copies = st.copies
        copies.append(weakref.ref(copy))
        if len(copies) >= st.prune_at:
            # copies that died unwritten leave dead references: drop them now and then
            # (the bar doubles with the live count: amortized O(1) per copy)
            copies[:] = [r for r in copies if r() is not None]
            st.prune_at = max(64, 2 * len(copies))
        return copy


def is_private(buf: Buffer) -> bool:
    """Whether writes through ``buf``'s family can be seen by nothing else (no lazy copy,
    not a lazy copy itself, not pinned): the condition for reusing its memory."""
    return buf.views is None and not buf.pinned and (buf.storage is None
                                                      or not buf.storage.copies)


def unshare(buf: Buffer, rewrite=None) -> bool:
    """Make ``buf``'s memory its family's alone before a write (see the module docs).

    ``rewrite``, for a write that gives every element of the block a new value computed
    from the old ones (``x -= mean`` on a lazy copy ``x``): ``(nd, write)``, ``nd`` a view
    of the family spanning its whole block. Where the write would first copy the block to
    a fresh one, ``write(new)`` fills the fresh block instead (``new``: its view laid out
    as ``nd``; ``write`` reads the old block): one pass over the memory instead of two.
    Returns whether ``write`` ran (if not, the caller writes as usual)."""
    with _lock:
        st = buf.storage
        if st is None:
            return False
        copies = [b for b in (r() for r in st.copies) if b is not None and b.storage is st]
        if buf.views is None:  # an owner: its lazy copies move away together
            if copies:
                _move(copies, st)
            st.copies = []
            return False
        copies.remove(buf)
        owner = st.owner() if st.owner is not None else None
        if owner is not None and owner.storage is not st:
            owner = None
        if owner is None and not copies:  # nothing else holds the block: take it over
            st.owner, st.copies = weakref.ref(buf), []
            buf.views = None
            return False
        if rewrite is not None and not _spans(rewrite[0], st.root):
            rewrite = None
        _move([buf], st, rewrite)  # (first: if it raises, nothing has changed)
        st.copies = [weakref.ref(b) for b in copies]
        buf.views = None  # its memory is its own from now on: an owner
        return rewrite is not None


def _spans(nd: np.ndarray, root: np.ndarray) -> bool:
    """Whether ``nd`` covers every byte of ``root``'s block (contiguous, from its start)."""
    return (nd.nbytes == root.nbytes and (nd.flags.c_contiguous or nd.flags.f_contiguous)
            and _address(nd) == _address(root))


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


def _move(buffers, st: Storage, rewrite=None) -> None:
    """Give ``buffers`` (lazy copies on ``st``) one fresh copy of the block, and each view
    of their families a NumPy view of it at the same byte offset. With ``rewrite`` (see
    :func:`unshare`), ``rewrite[1]`` fills the fresh block instead of a copy."""
    root = st.root
    flat = root.reshape(-1, order="A")  # a view: the root is contiguous
    new_root = _memory.empty(flat.shape, flat.dtype)  # (warm memory: see _memory)
    if rewrite is None:
        np.copyto(new_root, flat)
    else:
        nd, write = rewrite
        write(np.ndarray(nd.shape, nd.dtype, new_root, 0, nd.strides))
    new = Storage(new_root, None)
    base = _address(flat)
    for b in buffers:
        b.storage = new
        new.copies.append(weakref.ref(b))
        alive = []
        for r in b.views:
            a = r()
            if a is None or a._buf is not b:
                continue
            alive.append(r)
            v = a._arr
            if v.size == 0:
                nv = np.empty(v.shape, v.dtype)
            else:
                nv = np.ndarray(v.shape, v.dtype, new_root, _address(v) - base, v.strides)
            if not v.flags.writeable:
                nv.flags.writeable = False
            a._arr = nv
        b.views[:] = alive
    if len(buffers) == 1:  # a single copy holds the new block alone: its owner now
        new.owner, new.copies = new.copies[0], []
        buffers[0].views = None
