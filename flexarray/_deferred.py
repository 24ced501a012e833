"""Deferred arrays: results of large elementwise calls that wait to be computed with the
calls that use them (transparent fusion; the engine is :mod:`._engines.fusion`).

A call that may fuse (:func:`defer`) validates and promotes as eagerly, takes
copy-on-write snapshots of its array operands, and returns a :class:`Deferred` array
whose shape and dtype are known; its values are computed when anything looks at them
(:func:`settle`). A reduction of a deferred array (``_statistical``) computes it in the same
pass. ``docs/fusion.md`` describes what is fused and what stays as it is.
"""
from __future__ import annotations

import builtins
import math
import threading

import numpy as np

from . import _dtypes as _dt
from ._array import _BY_NP, Array, Buffer, _new_object
from ._buffer import lazy_copy
from ._engines import copy as _copy
from ._engines import fusion as _fusion
from ._engines.elementwise import _broadcast_shape
from ._fp import fp_quiet

__all__ = ["Deferred", "Relayout", "adopt", "defer", "defer_where", "deferred",
           "fusion_operands", "hold", "pending", "relayout", "settle", "settled"]

_ARR = Array.__dict__["_arr"]  # the slot itself (Deferred's property stands in front of it)


class Deferred(Array):
    """An array whose values are not computed yet: the result of a large elementwise call
    that later calls may fuse with (:mod:`._engines.fusion`). Its ``_arr`` slot holds the
    chain's :class:`~._engines.fusion.Node`; its shape and dtype are known. Anything that
    reads ``_arr`` (every look at the elements: a read, an export, a write, a call that
    does not fuse) computes the values first, once, under the node's lock, and the object
    becomes a plain :class:`Array` (its class changes: the fast paths that test
    ``type(x) is Array`` skip a deferred one at no cost).

    The chain's inputs are copy-on-write snapshots (:func:`._buffer.lazy_copy`), so a
    later write to an input does not change the values."""

    __slots__ = ()

    @property
    def _arr(self):
        return settle(self)

    @property
    def shape(self) -> tuple:
        return _ARR.__get__(self).shape  # (the node's, or the values' once computed)

    @property
    def ndim(self) -> int:
        return len(_ARR.__get__(self).shape)

    @property
    def size(self) -> int:
        return math.prod(_ARR.__get__(self).shape)

    def __getitem__(self, key):
        node = _ARR.__get__(self)
        if type(node) is Relayout and (r := node.element(key)) is not None:
            return r
        return Array.__getitem__(self, key)


class Relayout:
    """A copy of an array in a shape that no view of it gives (``reshape``), pending:
    ``args`` holds the array's copy-on-write snapshot, copied in C order when anything
    reads the values (:func:`settle`), except a single element, read from the snapshot
    (:meth:`element`: array-api-compat's ``is_lazy_array`` reads ``reshape(x, (-1,))[0]``
    of every array type it does not know, then drops the copy). Not a fusion node:
    :func:`pending` is None for it, so a call that uses it reads the values."""

    __slots__ = ("args", "shape", "dtype", "users", "lock")

    def __init__(self, snapshot, shape):
        self.args = (snapshot,)
        self.shape, self.dtype = shape, snapshot._arr.dtype
        self.users = 0
        self.lock = threading.Lock()

    def evaluate(self) -> np.ndarray:
        return _copy.contiguous(self.args[0]._arr).reshape(self.shape)

    def element(self, key):
        """The element at ``key``, an int in range for every axis, as a 0-d Array (a
        copy, as eagerly); None for any other key, or once the values are computed."""
        if type(key) is int:
            key = (key,)
        elif type(key) is not tuple:
            return None
        args, shape = self.args, self.shape
        if not args or len(key) != len(shape):
            return None
        flat = 0
        for i, n in zip(key, shape):
            if type(i) is not int or not -n <= i < n:
                return None
            flat = flat * n + (i + n if i < 0 else i)
        a = args[0]._arr
        at = [0] * a.ndim
        for axis in range(a.ndim - 1, -1, -1):
            flat, at[axis] = divmod(flat, a.shape[axis])
        out = _new_object(Array)
        out._arr = np.asarray(a[tuple(at)])
        out._buf = Buffer()
        out._dtype = args[0]._dtype
        return out


Deferred.__name__ = Deferred.__qualname__ = "Array"  # (what users see: an Array)


def deferred(node) -> Deferred:
    """A Deferred array of the values of ``node`` (a fusion Node, or a Relayout)."""
    d = _new_object(Deferred)
    _ARR.__set__(d, node)
    d._buf = Buffer()
    d._dtype = _BY_NP[node.dtype]
    return d


def adopt(x, node, r) -> bool:
    """Deferred ``x``, pending with ``node``, stands for the values of Deferred ``r`` from
    now on (an in-place operation fused: ``r`` is ``x <op> y``); False where another
    thread computed ``x`` meanwhile (under the node's lock, as :func:`settle`)."""
    with node.lock:
        if _ARR.__get__(x) is not node:
            return False
        _ARR.__set__(x, _ARR.__get__(r))
    return True


def pending(x):
    """The fusion Node of ``x`` if it is a Deferred array not computed yet, else None."""
    if type(x) is Deferred:
        node = _ARR.__get__(x)
        if type(node) is _fusion.Node:
            return node
    return None


def settle(x) -> np.ndarray:
    """The values of Deferred array ``x``, computed now if they were not (once: other
    threads wait for them); ``x`` is then a plain Array. A node that other nodes use keeps
    a copy-on-write snapshot of the values, so a write through ``x`` does not reach them."""
    node = _ARR.__get__(x)
    if type(node) is np.ndarray:
        return node
    with node.lock:
        v = _ARR.__get__(x)
        if type(v) is np.ndarray:
            return v
        nd = _fusion.evaluate(node) if type(node) is _fusion.Node else node.evaluate()
        _ARR.__set__(x, nd)
        x.__class__ = Array
        if node.users:
            node.value = _snapshot(x)  # (first: then the operands go)
        node.args = ()
    return nd


def hold(x, node=None):
    """The fusion Node of Deferred ``x`` (``node``, read from it earlier, if given), counted
    as used by one more node; None if ``x`` is not deferred. (Under the node's lock: a
    node computed meanwhile keeps a snapshot of its values for its user, see
    :func:`settle`.)"""
    if node is None:
        node = pending(x)
        if node is None:
            return None
    with node.lock:
        node.users += 1
        if node.value is None and not node.args:
            node.value = _snapshot(x)
    return node


def _snapshot(x):
    """A copy-on-write snapshot of plain Array ``x`` (a copy where none can be taken)."""
    c = lazy_copy(x)
    return c if c is not None else x._arr.copy(order="K")  # (in x's layout, as a view)


def relayout(x, shape):
    """The values of Array ``x`` in C order as an array of ``shape`` (of x's size), copied
    when read (:class:`Relayout`); None where no copy-on-write snapshot of x can be
    taken."""
    snapshot = lazy_copy(x)
    return None if snapshot is None else deferred(Relayout(snapshot, shape))


def settled(x):
    """``x``, computed first if it is a Deferred array (for code that tests
    ``type(x) is Array``)."""
    if type(x) is Deferred:
        settle(x)
    return x


# --- making them ------------------------------------------------------------------------------

_FUSION_SCALARS = (builtins.bool, int, float)


def fusion_operands(name, x1, x2):
    """As the elementwise chapter's operands, without reading a deferred operand's values:
    the operands (arrays as they are, Python scalars as NumPy operands) and the promoted
    dtype; None for operand types that are not fused (the eager path takes them)."""
    if isinstance(x1, Array):
        if isinstance(x2, Array):
            d1, d2 = x1._dtype, x2._dtype
            return x1, x2, d1 if d1 is d2 else (_dt.PROMOTION.get((d1, d2)) or
                                                _dt.promote(d1, d2, name))
        if type(x2) in _FUSION_SCALARS:
            dt = _dt.promote(x1._dtype, _dt.scalar_dtype(x2, x1._dtype), name)
            return x1, _dt.scalar_operand(name, x2, dt), dt
    elif isinstance(x2, Array) and type(x1) in _FUSION_SCALARS:
        dt = _dt.promote(x2._dtype, _dt.scalar_dtype(x1, x2._dtype), name)
        return _dt.scalar_operand(name, x1, dt), x2, dt
    return None


#: (name, operands' dtypes and kinds) -> the result's NumPy dtype, from a one-element call
_RESULT_DTYPES = {}


def _result_dtype(name, func, args):
    key = (name,) + tuple((type(a) is not np.ndarray and type(a) is not _fusion.Node,
                           a.dtype) for a in args)
    dt = _RESULT_DTYPES.get(key)
    if dt is None:
        probe = tuple(a if k else np.zeros(1, d) for a, (k, d) in zip(args, key[1:]))
        with fp_quiet():
            dt = _RESULT_DTYPES[key] = np.result_type(func(*probe))
    return dt


def defer(name, func, xs):
    """``func(*xs)``, the table's function ``name`` of the operands ``xs`` (arrays, some
    deferred, and NumPy scalars as the eager call passes them, validated and promoted), as
    a Deferred array that later calls may fuse with (:mod:`._engines.fusion`); None where
    it is computed now: an operation or dtype that does not fuse, a result below the gate
    (``fusion.MIN``), operands of the result's shape in no one memory order (C order, or
    another that all of them share: ``fusion.memory_order``), a broadcast operand over two
    axes or more not in C order (or beside operands in another order), or one whose
    copy-on-write snapshot cannot be taken (memory shared with another library, a write
    in progress, views that flexarray does not know)."""
    if name not in _fusion.FUSIBLE:
        return None
    nodes = [pending(x) for x in xs]
    shapes = [n.shape if n is not None else x._arr.shape
              for x, n in zip(xs, nodes) if isinstance(x, Array)]
    try:
        shape = _broadcast_shape(shapes) if shapes else ()
    except ValueError:
        return None  # (the eager call names the shapes)
    if math.prod(shape) < _fusion.MIN:
        return None
    operands, ops = [], 1  # (operand, its node, its NumPy array) in order
    orders = set()  # (the memory orders of the operands of the result's shape)
    planes = False  # (a broadcast operand spanning two axes or more)
    for x, node in zip(xs, nodes):
        a = None
        if isinstance(x, Array):
            if node is not None and (node.shape != shape or
                                     ops + node.ops > _fusion.gates.FUSION_MAX_OPS):
                settle(x)  # (a broadcast operand, or a chain at its length: computed now)
                node = None
            if node is not None:
                ops += node.ops
                orders.add(node.perm)
            else:
                a = x._arr
                if a.shape == shape:
                    perm = _fusion.memory_order(a)
                    if perm is None and not _fusion.c_like(a):
                        return None  # (no one memory order for eager's order "K")
                    orders.add(perm)
                elif a.ndim > 1 and sum(n > 1 for n in a.shape) > 1:
                    if not _fusion.c_like(a):
                        return None  # (eager's order "K" follows it too)
                    planes = True
        operands.append((x, node, a))
    if len(orders) > 1:
        return None  # (operands in different orders: eager's order "K" chooses)
    perm = orders.pop() if orders else None
    if perm is not None and planes:
        return None  # (a broadcast operand in C order beside them: eager's "K" weighs both)
    probe = [n if n is not None else a if a is not None else x for x, n, a in operands]
    if not _fusion.fusible(name, probe):
        return None
    if name == "pow" and (probe[1] == 2 or probe[1] == -1):  # (_special.pow's exact forms,
        func = np.square if probe[1] == 2 else np.reciprocal  # chosen once for the chain)
        operands, probe = operands[:1], probe[:1]
    args = []
    for x, node, a in operands:
        if a is not None:
            x = lazy_copy(x)  # (the snapshot: a later write to x moves x, not it)
            if x is None:
                return None
        args.append(node if node is not None else x)
    arrays = [a for _, _, a in operands if a is not None]
    if perm is not None:  # (the chain runs in that order: its operands seen in it)
        arrays = [_fusion.permuted(a, perm) for a in arrays]
    node = _fusion.Node(name, func, tuple(args), shape, _result_dtype(name, func, probe),
                        all(n.flat for _, n, _ in operands if n is not None) and
                        _fusion.is_flat(tuple(shape[i] for i in perm) if perm else shape,
                                        arrays), perm)
    for x, child, _ in operands:
        if child is not None:
            hold(x, child)
    return deferred(node)


_EXACT = 1 << 53  # Python ints of smaller magnitude are exact in float32/float64


def defer_where(condition, x1, x2):
    """``where(condition, x1, x2)`` as a Deferred array (:func:`defer`) for a bool
    ``condition`` and two arrays of one dtype, or an array of float32/float64 and a Python
    float (or an int it holds exactly): the cases whose result dtype is the array's; None
    otherwise."""
    if not isinstance(condition, Array) or condition._dtype is not _dt.bool:
        return None
    arr, other = (x1, x2) if isinstance(x1, Array) else (x2, x1)
    if not isinstance(arr, Array):
        return None
    dt = arr._dtype
    if isinstance(other, Array):
        if other._dtype is not dt:
            return None
    elif (type(other) is float or type(other) is int and -_EXACT < other < _EXACT) and \
            dt in (_dt.float32, _dt.float64):
        other = _dt.scalar_operand("where", other, dt)
    else:
        return None
    return defer("where", _fusion.where_into,
                 (condition, arr, other) if arr is x1 else (condition, other, arr))

