"""Buffers and copy-on-write: views share, copies are lazy, and the writer moves.

Three objects hold an array's memory (see docs/value-model.md for the picture):

* :class:`Buffer`: what a family of views shares. Every view of an array (basic indexing,
  ``permute_dims``, ``reshape`` when it is a view, ...) holds the same Buffer, and its NumPy
  view (``Array._arr``) points into the same memory, so a write through one is seen by all,
  as in NumPy.
* :class:`Storage`: a block of memory, ``root`` (a C- or F-contiguous NumPy array), and the
  families (Buffers) that share it. A family has one once it is *tracked*.
* A *tracked* family (``views`` a list of weak references to its Arrays) is one that takes
  part in lazy copies: the original of a lazy copy, or a lazy copy. Its views are known, so
  its memory can move. A family becomes tracked at its first lazy copy; until then, making
  a view of it costs nothing extra.

An O(1) copy, ``asarray(x, copy=True)``, is a new tracked family on the same Storage.
Before a write, a family whose Storage another live family shares *moves*: the writer takes
a fresh copy of the block (each of its views a NumPy view of the new block at the same byte
offset), and the other families keep the old block. This is Rust's ``Arc::make_mut``: the
copies are never written by the original's writes, so a read of a copy already in progress
on another thread never sees them. A family alone on its block writes in place.

Threads (docs/value-model.md, "Under threads"): one lock orders lazy copies and moves;
views and writes take it only when they meet a move. A write registers itself for its whole
duration, so that a copy taken meanwhile is made at once (as NumPy's copy, it may see part
of the write, but it never changes afterwards): a tracked family lists its writes in
progress (``writers``); a write to an untracked family holds a reference to its Buffer,
which a lazy copy sees in the Buffer's reference count and then copies at once. The same
count tells a lazy copy whether the family has views it does not know (untracked views):
then, too, it copies at once.

Without the lock, a new view or a write publishes itself first (appends to ``views`` or
``writers``) and then looks (at the family's block, at the families sharing it), while a
move publishes the family's new Storage first and then moves the views it finds, and a
lazy copy publishes its family on the Storage first and then looks for writers: of each
pair, at least one sees the other (the GIL orders one thread's stores before another's
loads), and the one that sees takes the lock and waits for the other to finish.

*Pinned* Buffers share their memory with code outside flexarray: imports
(``asarray(numpy_array)``, ``from_dlpack``) and exports (``__array__``, ``__dlpack__``).
Their memory never moves, and copies of them are real copies made at once, since the
foreign side may write at any time.
"""
from __future__ import annotations

import sys
import threading
import weakref

import numpy as np

from . import _memory

__all__ = ["Buffer", "Storage", "lazy_copy", "track", "tracked_write", "writing",
           "unshare", "pin", "is_private"]


class Storage:
    """A block of memory shared by the tracked families in ``families``."""

    __slots__ = ("root", "block", "families", "__weakref__")

    def __init__(self, root: np.ndarray, family):
        self.root = root                  # C- or F-contiguous: every view lies inside it
        self.block = root if root.base is None else root.base  # what NumPy views' .base is
        self.families = [weakref.ref(family)]  # the Buffers sharing the block


class Buffer:
    """What a family of views shares (see the module docs). ``Buffer()`` is a fresh,
    untracked family; its fields are class defaults until set (no ``__init__``: every array
    result makes one, and an ``__init__`` doubles its cost, ~0.05 us)."""

    storage = None                        # a Storage once tracked
    views = None                          # None (untracked) or weakrefs to the family
    pinned = False                        # memory shared with code outside flexarray
    writers = None                        # one item per write in progress (tracked)
    moved_from = None                     # {id(old block): its root's address} (moves)


def pinned_buffer() -> Buffer:
    """The Buffer of memory shared with code outside flexarray."""
    buf = Buffer()
    buf.pinned = True
    return buf


_lock = threading.Lock()  # lazy copies, moves and tracking are rare and short
_memory.fresh_lock_in_forked_child(globals())


def _holders(x):
    """``sys.getrefcount`` of ``x._buf`` seen from inside :func:`lazy_copy`'s check."""
    buf = x._buf
    return sys.getrefcount(buf)


class _Probe:
    __slots__ = ("_buf",)


def _sole_holder_refs() -> int:
    """:func:`_holders` of a Buffer that one object alone holds, measured in place."""
    p = _Probe()
    p._buf = Buffer()
    return _holders(p)


_SOLE = _sole_holder_refs()


# --- views ------------------------------------------------------------------------------------

def track(array, buf: Buffer) -> None:
    """Register ``array`` (a new view) with ``buf``'s family, a tracked one. A view made
    from a NumPy view read before the family moved points into the old block: it is
    moved to the family's block here."""
    views = buf.views
    if views is None:  # (a lazy copy that had begun tracking copied at once instead)
        return
    views.append(weakref.ref(array))  # (first: a move from now on finds it)
    if len(views) & 63 == 0:  # drop the dead now and then (amortized O(1))
        with _lock:
            n = len(views)  # (appends made meanwhile, after n, are kept)
            views[:n] = [r for r in views[:n] if r() is not None]
    st = buf.storage
    a = array._arr
    if st is not None and a.base is not st.block and a is not st.block and a.size:
        with _lock:  # (a move is running or ran since the view was read: wait, then move it)
            st = buf.storage
            if not _current(array._arr, st):
                array._arr = _rebased(array._arr, buf, st)


def _current(a: np.ndarray, st: Storage) -> bool:
    """Whether NumPy view ``a`` lies in ``st``'s block for sure (windows, whose base is
    NumPy's stride-tricks object, are looked up under the lock: :func:`_rebased`)."""
    return a.base is st.block or a is st.block


def _rebased(a: np.ndarray, buf: Buffer, st: Storage) -> np.ndarray:
    """``a``, a NumPy view into a block ``buf``'s family has left, as the same view of its
    block now (moves keep byte offsets)."""
    history = buf.moved_from or {}
    o = a
    while o is not None and id(o) not in history:
        o = getattr(o, "base", None)
    if o is None:  # not in a block of this family at all: it is in its block already
        return a
    return _view_in(st.root, a, _address(a) - history[id(o)])


def _view_in(root: np.ndarray, like: np.ndarray, offset: int) -> np.ndarray:
    """A NumPy view of ``root``'s memory laid out as ``like``, ``offset`` bytes in."""
    flat = root.reshape(-1, order="A")
    nv = np.ndarray(like.shape, like.dtype, flat, offset, like.strides)
    if not like.flags.writeable:
        nv.flags.writeable = False
    return nv


def _root_of(nd: np.ndarray):
    """The contiguous array whose memory holds ``nd`` and all its views, or None."""
    root = nd if nd.base is None else nd.base
    if type(root) is not np.ndarray or not (root.flags.c_contiguous or root.flags.f_contiguous):
        return None
    return root


# --- copies -----------------------------------------------------------------------------------

def lazy_copy(x, nd: np.ndarray | None = None):
    """An O(1) copy of Array ``x`` (laid out as ``nd``, a view of x's memory, if given) as
    a new Array on the same memory, or None when it must be copied at once: pinned memory
    (the foreign side may write it), memory not in one contiguous block, a write to the
    family in progress (it would go on into the copy's memory), or views of an untracked
    family that it cannot know (the family could not move away when written)."""
    buf = x._buf
    if buf.pinned:
        return None
    with _lock:
        if buf.writers:
            return None
        if buf.views is None:  # untracked: its first lazy copy
            root = _root_of(x._arr)
            if root is None:
                return None
            buf.writers = []
            buf.views = []  # (first: a view or write from now on registers itself)
            if _holders(x) != _SOLE + 1:  # (+1: the local ``buf``)
                buf.views = None  # other views, or a write in progress, hold it
                return None
            buf.views.append(weakref.ref(x))
            buf.storage = Storage(root, buf)
        st = buf.storage
        copy = Buffer()
        copy.storage = st
        copy.writers = []
        st.families.append(weakref.ref(copy))  # (first: a write from now on moves)
        if buf.writers:  # a write began meanwhile: it would go on into the copy's memory
            st.families.pop()
            return None
        if len(st.families) & 63 == 0:
            _prune(st)
        if not _current(x._arr, st):  # (a view whose move has not reached it yet)
            x._arr = _rebased(x._arr, buf, st)
        c = object.__new__(type(x))
        c._arr = x._arr if nd is None else nd
        c._buf = copy
        c._dtype = x._dtype
        if nd is not None and not _current(nd, st):
            c._arr = _rebased(nd, buf, st)
        copy.views = [weakref.ref(c)]
        return c


def _prune(st: Storage) -> list:
    """The live families on ``st`` (dead references dropped)."""
    alive = [b for b in (r() for r in st.families) if b is not None and b.storage is st]
    st.families[:] = [weakref.ref(b) for b in alive]
    return alive


def is_private(buf: Buffer) -> bool:
    """Whether writes through ``buf``'s family can be seen by nothing else (no other family
    on its memory, not pinned): the condition for reusing its memory."""
    if buf.pinned:
        return False
    st = buf.storage
    if st is None:
        return True
    if len(st.families) == 1:
        return st.families[0]() is buf
    with _lock:
        return all(b is buf for b in _prune(st))


# --- writes -----------------------------------------------------------------------------------

def unshare(buf: Buffer, rewrite=None) -> bool:
    """Make ``buf``'s memory its family's alone (see the module docs); under the lock.

    ``rewrite``, for a write that gives every element of the block a new value computed
    from the old ones (``x -= mean`` on a lazy copy ``x``): ``(nd, write)``, ``nd`` a view
    of the family spanning its whole block. Where the family moves, ``write(new)`` fills
    the fresh block instead of a copy (``new``: its view laid out as ``nd``; ``write``
    reads the old block): one pass over the memory instead of two. Returns whether
    ``write`` ran (if not, the caller writes as usual)."""
    st = buf.storage
    if st is None or len(st.families) == 1:  # (alone on its block: the common case)
        return False
    others = [b for b in _prune(st) if b is not buf]
    if not others:
        return False
    if rewrite is not None and not _spans(rewrite[0], st.root):
        rewrite = None
    _move(buf, st, rewrite)  # (first: if it raises, nothing has changed)
    st.families[:] = [weakref.ref(b) for b in others]
    return rewrite is not None


def tracked_write(x, fn, *args):
    """``fn(target, *args)``: a write through Array ``x`` of a tracked family, ``target``
    x's NumPy view after the family's memory is made its own, the write registered for
    its duration (a lazy copy made meanwhile is made at once)."""
    writers = x._buf.writers
    if writers is None:  # (a first lazy copy that gave up: untracked, ``x`` holds it)
        return _write_into(x._arr, x, fn, args)
    writers.append(None)
    try:
        return _write_into(_own(x), x, fn, args)
    finally:
        writers.pop()


def _own(x) -> np.ndarray:
    """Array ``x``'s NumPy view, its family's memory made its own (a registered writer's
    view: no lazy copy can join the block meanwhile)."""
    buf = x._buf
    st = buf.storage
    if st is None:  # a first lazy copy is deciding (then it sees this write, see lazy_copy)
        with _lock:
            st = buf.storage
        if st is None:  # it copied at once: the family is untracked
            return x._arr
    a = x._arr
    if len(st.families) > 1 or not _current(a, st):  # shared, or a move is running
        with _lock:
            unshare(buf)
            st = buf.storage
            a = x._arr
            if not _current(a, st):
                a = x._arr = _rebased(a, buf, st)
    return a


def _write_into(a, x, fn, args):
    if not a.flags.writeable:
        raise ValueError(read_only_message(x))
    return fn(a, *args)


class writing:
    """``with writing(x) as target:``, a write through Array ``x`` by code that takes the
    target NumPy view now and writes later (NumPy's ``out=``): as :func:`tracked_write`,
    for any family."""

    __slots__ = ("x", "buf", "writers")

    def __init__(self, x):
        self.x = x
        self.buf = x._buf  # (held: an untracked family's write in progress, see lazy_copy)
        self.writers = None

    def __enter__(self) -> np.ndarray:
        x = self.x
        writers = self.buf.writers if self.buf.views is not None else None
        if writers is None:
            a = x._arr
        else:
            writers.append(None)
            self.writers = writers
            try:
                a = _own(x)
            except BaseException:
                self.__exit__()
                raise
        if not a.flags.writeable:
            self.__exit__()
            raise ValueError(read_only_message(x))
        return a

    def __exit__(self, *exc):
        if self.writers is not None:
            self.writers.pop()
            self.writers = None
        return False


def rewrite(x, write) -> bool:
    """Give every element of Array ``x`` a new value computed from the old ones,
    ``write(out)`` filling ``out`` while reading ``x._arr``, into fresh memory in one pass
    where the family would move (:func:`unshare`). False: nothing was written."""
    buf = x._buf
    if buf.views is None:
        return False
    with _lock:  # (held while ``write`` runs: no copy, move or tracked write meanwhile)
        if buf.storage is None or buf.writers or not x._arr.flags.writeable or \
                not _current(x._arr, buf.storage):
            return False
        return unshare(buf, (x._arr, write))


def pin(x) -> None:
    """Pin Array ``x``'s family (its memory is handed to code outside flexarray): its
    memory is made its own first, and never moves or is lazily shared again."""
    buf = x._buf
    with _lock:
        if buf.storage is not None:
            unshare(buf)
        buf.pinned = True


def read_only_message(x) -> str:
    what = ("read-only memory shared with another library" if x._buf.pinned and
            0 not in x._arr.strides else
            "a read-only view, as NumPy's (broadcast_to, meshgrid, nn.unfold windows: "
            "elements that overlap; diagonal, diag)")
    return (f"assignment destination is read-only: the array is {what}; write to a copy "
            f"(asarray(x, copy=True)) instead")


# --- moves ------------------------------------------------------------------------------------

def _spans(nd: np.ndarray, root: np.ndarray) -> bool:
    """Whether ``nd`` covers every byte of ``root``'s block (contiguous, from its start)."""
    return (nd.nbytes == root.nbytes and (nd.flags.c_contiguous or nd.flags.f_contiguous)
            and _address(nd) == _address(root))


def _address(a) -> int:
    return a.__array_interface__["data"][0]


def _move(buf: Buffer, st: Storage, rewrite=None) -> None:
    """Give ``buf``'s family (tracked, on ``st``) a fresh copy of the block, and each of
    its views a NumPy view of it at the same byte offset. With ``rewrite`` (see
    :func:`unshare`), ``rewrite[1]`` fills the fresh block instead of a copy."""
    root = st.root
    flat = root.reshape(-1, order="A")  # a view: the root is contiguous
    new_root = _memory.empty(flat.shape, flat.dtype)  # (warm memory: see _memory)
    if rewrite is None:
        np.copyto(new_root, flat)
    else:
        nd, write = rewrite
        write(np.ndarray(nd.shape, nd.dtype, new_root, 0, nd.strides))
    base = _address(flat)
    history = buf.moved_from = dict(buf.moved_from or {})
    history[id(st.block)] = base
    new = buf.storage = Storage(new_root, buf)  # (first: a view tracked from now on sees it)
    views = buf.views
    i = 0
    while i < len(views):  # (views appended meanwhile included)
        a = views[i]()
        i += 1
        if a is None or a._buf is not buf:
            continue
        v = a._arr
        if _current(v, new):  # (made from a view already moved)
            continue
        if v.size == 0:
            a._arr = np.empty(v.shape, v.dtype)
            continue
        if not _current(v, st):
            v = _rebased(v, buf, st)  # (windows; or made before an earlier move)
        a._arr = _view_in(new_root, v, _address(v) - base)
