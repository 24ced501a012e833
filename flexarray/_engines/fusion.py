"""The fusion engine: a chain of elementwise operations, and a reduction that ends one,
computed in one pass over memory, block by block, with the eager calls' bits.

A chain is a tree of :class:`Node`: an operation of the elementwise table (its standard
name and its function), its operands and the result's shape and dtype. An operand is
another node, a *leaf* (a NumPy array, or an object whose ``_arr`` is one: the copy-on-write
snapshot of an array that no write can reach, see ``flexarray._deferred``) or a scalar
as the eager call passes it. :func:`evaluate` runs the tree by one of two executors (or
call by call, as eagerly, where neither pays):

- blocks (from the first call, nothing to compile): over blocks of about
  ``gates.FUSION_BLOCK`` elements on the pool's threads, each operation the function the
  eager call runs (NumPy's ufunc, or the table's NumPy-level fix) with ``out=`` into
  block-sized scratch memory that stays in the cache: only the leaves are read from
  memory, only the result is written;
- generated loops (``flexarray._kernels.fusion``, from ``gates.FUSION_KERNEL_MIN``
  elements, once compiled: until then the blocks serve): one Numba loop per chain's
  structure, every element computed by the same IEEE operations, on the pool's threads.

Same bits as eager: only operations whose every element is rounded once, exactly as IEEE
arithmetic defines it, whatever the loop (:data:`FUSIBLE`: the basic arithmetic, square
roots, comparisons, logic, rounding to integers...), so a block gives each element the
value the whole array's call gives it; transcendental functions (exp, log, sin, ...),
whose NumPy loops differ between contiguous and strided operands, are not fused.
Reductions over every axis (:func:`reduce_all`) add the chain's values along NumPy's
pairwise summation tree (``flexarray._engines.reductions``), its leaves computed block by
block: NumPy's single call's bits; integer sums, which do not round, in any blocks. Sums
over axis 0 (:func:`reduce_rows`) add the rows in turn, as NumPy does.

Layouts: the result is laid out as the eager call's order "K" lays it out: in C order
when every operand of the result's shape is (:func:`c_like`), or in the one memory order
they share (``Node.perm``, :func:`memory_order`: SciPy's stats move the axis last, and
a C array's columns become an F-ordered view); the chain then runs on its operands seen
in that order (:func:`permuted`) and the result is transposed back; its reductions run
over its axes in memory order (:func:`in_memory_order`: the eager reductions' order
follows memory, not the axes' names). With every array operand of the result's
shape contiguous in that order the blocks are flat runs; otherwise they are runs of rows
(the outermost axis in memory), each operand cut along it where it has that extent and
broadcast whole otherwise.
"""
from __future__ import annotations

import math
import os
import threading

import numpy as np

from .. import _memory, _threads
from .._fp import fp_quiet
from . import gates
from . import elementwise as _elementwise
from .reductions import _numpy_tree_holds, _tree_combine, _tree_leaves

__all__ = ["BLOCKS_MIN", "MIN", "FUSIBLE", "Node", "c_like", "evaluate", "fusible",
           "in_memory_order", "is_flat", "leading", "memory_order", "permuted", "reduce_all",
           "reduce_rows", "where_into"]

#: elements from which an elementwise call waits to be fused: ``gates.FUSION_MIN``;
#: ``FLEXARRAY_FUSION=0`` turns fusion off (never), ``FLEXARRAY_FUSION_MIN`` sets the gate
#: (0: every call, as the tests run it)
MIN = (math.inf if os.environ.get("FLEXARRAY_FUSION", "1") == "0" else
       int(os.environ.get("FLEXARRAY_FUSION_MIN", gates.FUSION_MIN)))
#: elements from which blocks compute a chain whose generated loop is not there (yet):
#: ``gates.FUSION_BLOCKS_MIN``; 0 where ``FLEXARRAY_FUSION_MIN`` lowers fusion's gate (the
#: tests: every executor at every size)
BLOCKS_MIN = gates.FUSION_BLOCKS_MIN if MIN >= gates.FUSION_MIN else 0

#: the elementwise operations a chain may hold: each rounds every element once as IEEE
#: arithmetic defines it (or is exact), so the blocks' values are the whole call's
FUSIBLE = frozenset({
    "abs", "add", "bitwise_and", "bitwise_invert", "bitwise_or", "bitwise_xor", "ceil",
    "conj", "copysign", "divide", "equal", "floor", "greater", "greater_equal", "isfinite",
    "isinf", "isnan", "less", "less_equal", "logical_and", "logical_not", "logical_or",
    "logical_xor", "maximum", "minimum", "multiply", "negative", "not_equal", "positive",
    "pow", "reciprocal", "sign", "signbit", "sqrt", "square", "subtract", "trunc", "where",
})
# (pow: only its exact forms, see fusible)


class Node:
    """``func(*args)`` of the elementwise operation ``name``, deferred: a ``shape`` and
    ``dtype`` known now, the values computed by :func:`evaluate`. ``ops``: the operations
    in the chain (a limit keeps the scratch memory in the cache); ``users``: the nodes made
    on this one; ``value``: once computed and kept by its array, a leaf of the result."""

    __slots__ = ("name", "func", "args", "shape", "dtype", "ops", "flat", "perm", "users",
                 "value", "lock", "__weakref__")

    def __init__(self, name, func, args, shape, dtype, flat, perm=None):
        self.name, self.func, self.args = name, func, args
        self.shape, self.dtype, self.flat = shape, dtype, flat
        self.perm = perm  # (None: C order; else the axes outermost first in memory)
        self.ops = 1 + sum(a.ops for a in args if type(a) is Node)
        self.users = 0  # (counted by the caller, under each operand's lock)
        self.value = None
        self.lock = threading.Lock()


def fusible(name, args) -> bool:
    """Whether the elementwise call ``name`` of the operands ``args`` (NumPy arrays,
    nodes, scalars as the eager call passes them) may join a chain: a :data:`FUSIBLE`
    operation on real or bool dtypes (complex arithmetic's NumPy loops differ by layout);
    ``pow`` only where it is exact (integers) or one of its exact forms (``x ** 2``,
    ``x ** -1``, ``x ** 0.5``: ``flexarray._special.pow``)."""
    if name not in FUSIBLE:
        return False
    for a in args:
        if type(a) is complex or getattr(a, "dtype", _F8).kind not in "biuf":
            return False
    if name == "pow":
        base, e = args
        if not isinstance(e, np.generic) or e.dtype != base.dtype:
            return False
        kind = base.dtype.kind
        return (e == 2 and kind in "iuf") or (kind == "f" and (e == -1 or e == 0.5)) or (
            kind in "iu" and e >= 0)
    return True


_F8 = np.dtype(np.float64)


def where_into(condition, x1, x2, out=None):
    """``np.where(condition, x1, x2)``, into ``out`` when given (a selection: the same
    values on any block)."""
    r = np.where(condition, x1, x2)
    if out is None:
        return r
    out[...] = r  # (3x faster than copyto of one side, then of the other where condition)
    return out


def c_like(a: np.ndarray) -> bool:
    """Whether NumPy's order "K" lays out a result of ``a``'s shape in C order (``a``'s
    axes outermost first in memory: strides by size, not increasing)."""
    if a.flags.c_contiguous:
        return True
    s = [abs(t) for n, t in zip(a.shape, a.strides) if n > 1]
    return all(s[i] >= s[i + 1] for i in range(len(s) - 1))


def memory_order(a: np.ndarray):
    """The axes of ``a`` outermost first in memory (NumPy's order "K" lays out a result of
    ``a``'s shape so): None where that is C order (:func:`c_like`) or not one order
    (an axis of one element, whose place NumPy's stride rules decide)."""
    if c_like(a) or 1 in a.shape:
        return None
    perm = tuple(sorted(range(a.ndim), key=lambda i: -abs(a.strides[i])))
    return perm if c_like(a.transpose(perm)) else None


def in_memory_order(root: Node) -> tuple:
    """``root``'s shape, its axes in its memory order (outermost first)."""
    return root.shape if root.perm is None else tuple(root.shape[i] for i in root.perm)


def permuted(a, perm):
    """NumPy array ``a`` (broadcastable to a result of ``len(perm)`` axes) as a view in
    the result's memory order ``perm``."""
    if a.ndim < len(perm):
        a = a.reshape((1,) * (len(perm) - a.ndim) + a.shape)
    return a.transpose(perm)


def is_flat(shape, arrays) -> bool:
    """Whether every one of NumPy ``arrays`` is C-contiguous of ``shape`` (or of one
    element): the blocks are then flat runs of memory."""
    return all(a.shape == shape and a.flags.c_contiguous or a.size == 1 for a in arrays)


def _leaf(a) -> np.ndarray:
    return a if type(a) is np.ndarray else a._arr


# --- the blocks -------------------------------------------------------------------------------

class _Walk:
    """The pending nodes of a tree, operands before users (``order``), each with its
    function and operands as :class:`_Program` reads them (``resolved``), and how many
    times each is used (``uses``). (Methods, not nested functions calling each other:
    those would make a reference cycle that keeps the nodes and their operands' memory
    until the cyclic garbage collector runs.)"""

    def __init__(self, shape, flat, perm):
        self.shape, self.flat, self.perm = shape, flat, perm
        self.n0 = shape[0] if shape else 1
        self.resolved, self.order, self.uses = {}, [], {}

    def operand(self, a):
        if type(a) is Node:
            args = a.args  # (first: a node's value is set before its operands go)
            if a.value is None:
                self.uses[id(a)] = self.uses.get(id(a), 0) + 1
                if id(a) not in self.resolved:
                    self.resolved[id(a)] = None
                    self.visit(a, a.func, args)
                return a
            a = a.value  # computed: its values are a leaf
        if type(a) is np.ndarray or hasattr(a, "_arr"):
            arr = _leaf(a)
            if self.perm is not None:
                arr = permuted(arr, self.perm)
            if self.flat:
                return (1, arr.reshape(-1)) if arr.size > 1 else (0, arr.reshape(-1))
            shape = self.shape
            cut = shape and arr.ndim == len(shape) and arr.shape[0] == self.n0 > 1
            return (1, arr) if cut else (0, arr)
        return (0, a)

    def visit(self, node, func, args):
        self.resolved[id(node)] = (func, [self.operand(a) for a in args])
        self.order.append(node)


class _Program:
    """A tree compiled for its blocks: each pending node once, operands before users, as
    ``(func, operands, register)``. An operand is ``(0, x)``: ``x`` passed as it is (a
    scalar, or an array broadcast whole to every block), ``(1, a)``: array ``a`` cut
    along the blocks, or ``(2, i)``: register ``i``. Registers are block-sized scratch
    arrays, reused once their value is used up (an operation may write over its own
    operand: NumPy's loops read each element before writing it); register -1 is the
    block of the result. The operands are read once, here: a node computed meanwhile by
    another thread is its value (its ``value`` is set before its ``args`` go).
    ``memory_ordered``: the arrays seen in the chain's memory order (``Node.perm``), its
    blocks then runs of memory; else in their own shapes (the call-by-call executor)."""

    def __init__(self, root: Node, flat=None, memory_ordered=True):
        self.perm = perm = root.perm if memory_ordered else None
        self.shape = shape = in_memory_order(root) if memory_ordered else root.shape
        self.flat = flat = root.flat if flat is None else flat
        self.root_dtype = root.dtype
        self.row = 1 if flat else math.prod(shape[1:])
        self.total = math.prod(shape) if flat else (shape[0] if shape else 1)
        self.step = max(1, gates.FUSION_BLOCK // max(self.row, 1))  # items per block
        self.block = (self.step,) if flat else (self.step,) + tuple(shape[1:])
        walk = _Walk(shape, flat, perm)
        args = root.args  # (first, as in _Walk.operand)
        if root.value is not None:  # (computed meanwhile by another thread: its values)
            walk.visit(root, np.positive, (root.value,))
        else:
            walk.visit(root, root.func, args)
        resolved, order, uses = walk.resolved, walk.order, walk.uses
        self.dtypes = []  # of each register
        self.nodes = []   # each step's node
        free, reg, self.steps = {}, {}, []
        for node in order:
            func, operands = resolved[id(node)]
            ops = []
            for a in operands:
                if type(a) is Node:
                    i = reg[id(a)]
                    ops.append((2, i))
                    uses[id(a)] -= 1
                    if not uses[id(a)]:
                        free.setdefault(a.dtype, []).append(i)
                else:
                    ops.append(a)
            if node is root:
                i = -1
            elif free.get(node.dtype):
                i = free[node.dtype].pop()
            else:
                i = len(self.dtypes)
                self.dtypes.append(node.dtype)
            reg[id(node)] = i
            self.steps.append((func, tuple(ops), i))
            self.nodes.append(node)

    def registers(self, items):
        """This thread's registers, for blocks of up to ``items`` items."""
        return [np.empty((items,) + self.block[1:], dt) for dt in self.dtypes]

    def run(self, lo, hi, out, regs):
        """The values of items ``[lo, hi)`` into ``out``, with this thread's ``regs``."""
        if hi - lo != regs[0].shape[0] if regs else False:
            regs = [r[:hi - lo] for r in regs]
        for func, ops, dst in self.steps:
            func(*[x if k == 0 else x[lo:hi] if k == 1 else regs[x] for k, x in ops],
                 out=out if dst < 0 else regs[dst])


def _run_blocks(prog, bounds, body):
    """``body(i, regs)`` for each block ``i`` of ``bounds`` (a list of ``(lo, hi)``), on
    the pool's threads from ``gates.ELEMENTWISE_THREADS_MIN_BYTES`` of work, each thread
    with its own registers."""
    items = max(hi - lo for lo, hi in bounds)

    def part(b0, b1):
        regs = prog.registers(items)
        with fp_quiet():
            for i in range(b0, b1):
                body(i, regs)

    nth = _threads.threads_for(prog.total * prog.row * prog.root_dtype.itemsize,
                               gates.FUSION_THREADS_MIN_BYTES)
    _threads.run_split(part, (), len(bounds), nth, pieces_per_thread=4)


def _blocks(prog):
    step, n = prog.step, prog.total
    return [(lo, min(n, lo + step)) for lo in range(0, n, step)]


# --- evaluation -------------------------------------------------------------------------------

def evaluate(root: Node) -> np.ndarray:
    """The values of ``root``'s chain as a fresh NumPy array: a chain of one operation
    as its eager call; longer ones by their generated loop, by blocks from
    :data:`BLOCKS_MIN` elements, else call by call as eagerly (:func:`_replay`: below that
    size the values fit in the cache, where the eager calls beat the blocks)."""
    n = math.prod(root.shape)
    if n == 0:
        return _memory.empty(root.shape, root.dtype)
    prog = _Program(root)
    if len(prog.steps) == 1:
        return _replay(root)  # (one operation: nothing to fuse, the eager call is best)
    loops = _loops(prog)
    if loops is not None:
        mod, inputs = loops
        out = _memory.empty(prog.shape, root.dtype)
        target = out.reshape(-1) if prog.flat else out
        args = (target,) + inputs
        if _kernels_ready(mod.fill, args + (0, prog.total)):  # (elements, or rows)
            _threads.run_split(mod.fill, args, prog.total, _threads.threads_for(
                out.nbytes, gates.ELEMENTWISE_THREADS_MIN_BYTES), pieces_per_thread=4)
            return _in_shape(out, root)
    if n < BLOCKS_MIN:
        return _replay(root)
    out = _memory.empty(prog.shape, root.dtype)
    target = out.reshape(-1) if prog.flat else out
    bounds = _blocks(prog)

    def body(i, regs):
        lo, hi = bounds[i]
        prog.run(lo, hi, target[lo:hi], regs)

    _run_blocks(prog, bounds, body)
    return _in_shape(out, root)


def _in_shape(out, root):
    """``out``, the values in ``root``'s memory order, as an array of its shape: laid out
    as NumPy's order "K" lays out the eager result."""
    return out if root.perm is None else out.transpose(np.argsort(root.perm))


def _replay(root) -> np.ndarray:
    """The chain computed call by call, each step as its eager call computes it
    (``elementwise.ufunc``: the pool's threads, recycled memory, NumPy's order "K"), from
    the leaves in their own layouts."""
    prog = _Program(root, flat=False, memory_ordered=False)  # (its operands whole, in
    # their shapes and layouts)
    regs = {}  # (a register's array, once made, takes the later values given to it, and
    for (func, ops, dst), node in zip(prog.steps, prog.nodes):  # the result those of a
        args = tuple(regs[x] if k == 2 else x for k, x in ops)  # register it reads last,
        out = regs.get(dst) if dst >= 0 else _spent(  # as eager temporaries do)
            [regs[x] for k, x in ops if k == 2], node)
        regs[dst] = np.asarray(_elementwise.ufunc(  # (a 0-d result as the eager call's,
            func, args, out, node.name))  # array)
    return np.asarray(regs[-1])


def _spent(registers, node):
    """One of the last step's operand ``registers`` (arrays made by :func:`_replay`, used
    up by that step) that can take the result: of ``node``'s shape and dtype and
    C-contiguous (the eager result's layout); None if none can."""
    for a in registers:
        if a.shape == node.shape and a.dtype == node.dtype and a.flags.c_contiguous:
            return a
    return None


def leading(root: Node) -> np.ndarray:
    """The values of ``root``'s first block of items along axis 0 (about
    ``gates.FUSION_BLOCK`` elements, whole rows), computed alone: for a reduction that the
    first values may decide (``all``/``any``: :func:`._utility._truth`)."""
    prog = _Program(root, flat=False, memory_ordered=False)
    hi = min(prog.total, prog.step)
    out = np.empty((hi,) + tuple(root.shape[1:]), root.dtype)
    with fp_quiet():
        prog.run(0, hi, out, prog.registers(hi))
    return out


#: reductions over every axis the fused path computes: op -> its ufunc
_REDUCE = {"sum": np.add, "max": np.maximum, "min": np.minimum}


def reduce_all(op: str, root: Node, acc):
    """``op`` ("sum", "max", "min") of ``root``'s values over every axis, accumulating in
    NumPy dtype ``acc`` (sums), with the eager reduction's bits, as a NumPy scalar; None
    where no blocked order gives them, or below ``gates.FUSION_REDUCE_MIN`` elements
    (``gates.FUSION_EXTREMA_MIN`` for max and min: where the values fit in the cache,
    NumPy's own reduce of them is faster than the fused pass): the caller computes the
    values and reduces them.

    - a float or complex sum in its own dtype: NumPy's pairwise tree, cut at its nodes
      (flat layouts, where NumPy's order is memory order); by the generated loop, a NaN
      result is left to the eager sum (its sign and payload are NumPy's loop's);
    - an integer or bool sum: exact in any order;
    - max and min of integers: exact in any order; of floats, the blocks' extrema (by the
      generated loop's ``extrema`` once compiled) unless the result is a zero or a NaN
      (whose sign and payload NumPy's loop decides: None).
    """
    dt = root.dtype
    n = math.prod(root.shape)
    if n == 0 or n < gates.FUSION_REDUCE_MIN or not root.flat:
        return None
    f = _REDUCE[op]
    prog = _Program(root)
    if op == "sum" and not (dt.kind in "biu" and np.dtype(acc).kind in "iu"):
        if dt != acc or dt.kind not in "fc" or not _numpy_tree_holds(dt):
            return None
        reals = n * (2 if dt.kind == "c" else 1)
        depth = (reals // gates.FUSION_BLOCK).bit_length()  # (leaves of about a block)
        leaves = _tree_leaves(n, dt.kind == "c", depth)
        loops = _loops(prog) if dt == _F8 else None
        if loops is not None:
            mod, inputs = loops
            starts = np.array([lo for lo, _, _ in leaves], np.int64)
            sizes = np.array([hi - lo for lo, hi, _ in leaves], np.int64)
            parts = np.empty(len(leaves))
            args = inputs + (starts, sizes, parts)
            if _kernels_ready(mod.sums, args + (0, len(leaves))):
                _threads.run_split(mod.sums, args, len(leaves), _threads.threads_for(
                    n * 8, gates.ELEMENTWISE_THREADS_MIN_BYTES), pieces_per_thread=4)
                r = _tree_combine(list(parts), leaves)
                # (a NaN: which one an addition of two returns is the machine code's
                # choice of operand order, the vector lanes' here: the eager sum's own)
                return r if r == r else None
        if n < BLOCKS_MIN:
            return None  # (no loop yet: the chain call by call, then NumPy's reduce)
        return _tree_combine(_block_reductions(prog, leaves, f.reduce), leaves)
    if op != "sum" and n < gates.FUSION_EXTREMA_MIN:
        return None
    if op != "sum" and dt in (_F4, _F8) and (loops := _loops(prog)) is not None:
        mod, inputs = loops
        bounds = _blocks(prog)
        highs, lows = np.empty(len(bounds), dt), np.empty(len(bounds), dt)
        args = inputs + (np.array([lo for lo, _ in bounds], np.int64),
                         np.array([hi - lo for lo, hi in bounds], np.int64), highs, lows)
        if _kernels_ready(mod.extrema, args + (0, len(bounds))):
            _threads.run_split(mod.extrema, args, len(bounds), _threads.threads_for(
                n * dt.itemsize, gates.ELEMENTWISE_THREADS_MIN_BYTES), pieces_per_thread=4)
            r = f.reduce(highs if op == "max" else lows)
            return r if r != 0 and r == r else None  # (see below)
    if op != "sum" and dt.kind not in "biuf" or n < BLOCKS_MIN:
        return None
    parts = _block_reductions(prog, _blocks(prog), lambda v: f.reduce(
        v, dtype=acc if op == "sum" else None))
    r = parts[0]
    with fp_quiet():  # (integer sums wrap, as eagerly)
        for p in parts[1:]:
            r = f(r, p)
    if dt.kind == "f" and not (r != 0 and r == r):
        return None  # a zero's sign or a NaN's payload: the eager loop's own
    return r


def reduce_rows(root: Node, acc, op="sum"):
    """``op`` ("sum", "max", "min") over axis 0 of ``root``'s values (two dimensions; the
    outer axis in memory: the last one of an F-ordered chain), as a fresh array, by the
    chain's generated loop (its columns on the pool's
    threads: each column's order is its own); None where there is none, or not compiled
    yet (the eager passes are then as fast as blocks of rows would be).

    - a float sum: NumPy's order for such a sum, row after row
      (``reductions.sums_rows_in_order`` says when the eager sum takes it);
    - max and min of floats: exact, unless a column's result is a zero or a NaN (whose
      sign and payload the eager loop decides: None)."""
    dt, shape = root.dtype, in_memory_order(root)
    if (dt != acc if op == "sum" else dt not in (_F4, _F8)) or dt.kind != "f" or \
            len(shape) != 2 or shape[0] < 2 or 0 in shape or math.prod(shape) < (
                gates.FUSION_REDUCE_MIN if op == "sum" else gates.FUSION_EXTREMA_MIN):
        return None
    prog = _Program(root, flat=False)
    loops = _loops(prog)
    if loops is None:
        return None
    mod, inputs = loops
    n = shape[0]
    if op == "sum":
        kernel, outs = mod.sum_rows, (np.empty(shape[1], dt),)
    else:
        kernel, outs = mod.extrema_rows, (np.empty(shape[1], dt), np.empty(shape[1], dt))
    args = outs + inputs + (n,)
    if not _kernels_ready(kernel, args + (0, shape[1])):
        return None
    _threads.run_split(kernel, args, shape[1], _threads.threads_for(
        shape[1] * n * dt.itemsize, gates.ELEMENTWISE_THREADS_MIN_BYTES),
        pieces_per_thread=1)
    if op == "sum":
        return outs[0]
    r = outs[0] if op == "max" else outs[1]
    return r if np.all(r != 0) and not np.isnan(r).any() else None


# --- the generated loops ----------------------------------------------------------------------

_F4, _B1 = np.dtype(np.float32), np.dtype(np.bool_)

#: the NumPy functions a generated loop computes (flexarray._kernels.fusion.TEMPLATES):
#: function -> (template, kind of its operands' dtype: "same" as the result's float dtype,
#: "float" (one float dtype, any result), "bool")
_LOOP_OPS = {
    np.add: ("add", "same"), np.subtract: ("subtract", "same"),
    np.multiply: ("multiply", "same"), np.true_divide: ("divide", "same"),
    np.positive: ("positive", "same"),
    np.square: ("square", "same"), np.sqrt: ("sqrt", "same"), np.absolute: ("abs", "same"),
    np.reciprocal: ("reciprocal", "same"), np.floor: ("floor", "same"),
    np.ceil: ("ceil", "same"), np.trunc: ("trunc", "same"),
    np.copysign: ("copysign", "same"),
    np.isnan: ("isnan", "float"), np.isinf: ("isinf", "float"),
    np.isfinite: ("isfinite", "float"), np.signbit: ("signbit", "float"),
    np.less: ("less", "float"), np.less_equal: ("less_equal", "float"),
    np.greater: ("greater", "float"), np.greater_equal: ("greater_equal", "float"),
    np.equal: ("equal", "float"), np.not_equal: ("not_equal", "float"),
    np.logical_and: ("logical_and", "bool"), np.logical_or: ("logical_or", "bool"),
    np.logical_not: ("logical_not", "bool"), np.logical_xor: ("logical_xor", "bool"),
    where_into: ("where", "where"),
}

_loop_cache = {}  # the program's structure -> (source or None)


def _operand_kind(prog, k, x):
    """How a generated loop reads operand ``(k, x)`` of ``prog``: ``(kind, value)`` (see
    ``flexarray._kernels.fusion.source``), or None where it cannot."""
    if k == 0 and type(x) is np.ndarray:
        if x.size == 1:
            return "s", x.reshape(-1)[0]  # (one element, broadcast)
        if prog.flat or x.shape[-1] != prog.shape[-1] or x.size != prog.shape[-1]:
            return None
        return "v", x.reshape(-1)  # (a row, broadcast along the rows)
    if k == 0:
        return "s", x
    if prog.flat:
        return "a", x
    if x.shape == prog.shape and x.flags.c_contiguous:
        return "a", x
    if x.shape == (prog.shape[0], 1):
        return "k", x.reshape(-1)  # (a column, one value per row)
    return None


def _loops(prog):
    """The generated loops of ``prog`` (a module of ``flexarray._kernels.fusion``) and the
    kernels' inputs, or None: below ``gates.FUSION_KERNEL_MIN`` elements, by rows of more
    than two dimensions, or an operation, dtype or operand the loops do not compute as
    NumPy does (the blocked executor runs those; ``negative`` among them: NumPy flips a
    NaN's sign, Numba's ``-x`` keeps it)."""
    if prog.total * prog.row < gates.FUSION_KERNEL_MIN or (
            not prog.flat and len(prog.shape) != 2):
        return None
    inputs, kinds, index, steps = [], [], {}, []
    reg_dtype = prog.dtypes
    for (func, ops, dst), node in zip(prog.steps, prog.nodes):
        entry = _LOOP_OPS.get(func)
        if entry is None:
            return None
        name, rule = entry
        refs, dts = [], []
        for k, x in ops:
            if k == 2:
                refs.append(("r", x))
                dts.append(reg_dtype[x])
                continue
            key = (k, id(x))
            if key not in index:
                got = _operand_kind(prog, k, x)
                if got is None:
                    return None
                index[key] = len(inputs)
                kinds.append(got[0])
                inputs.append(got[1])
            j = index[key]
            refs.append((kinds[j], j))
            dts.append(getattr(inputs[j], "dtype", None))
        dt = node.dtype
        if rule == "same":
            ok = dt in (_F4, _F8) and all(d == dt for d in dts)
        elif rule == "float":
            ok = dts[0] in (_F4, _F8) and all(d == dts[0] for d in dts)
        elif rule == "bool":
            ok = all(d == _B1 for d in dts)
        else:  # where
            ok = dts[0] == _B1 and dt in (_F4, _F8) and dts[1] == dts[2] == dt
        if not ok:
            return None
        steps.append((name, refs, dst))
    key = (tuple((n, tuple(r), d) for n, r, d in steps), tuple(kinds),
           tuple(getattr(x, "dtype", None) for x in inputs), prog.root_dtype, prog.flat)
    from .._kernels import fusion as loops
    text = _loop_cache.get(key)
    if text is None:
        text = _loop_cache[key] = loops.source(steps, kinds, prog.root_dtype.name,
                                               rows=not prog.flat)
    return loops.module(text), tuple(inputs)


def _kernels_ready(disp, args) -> bool:
    from .._kernels import ready
    return ready(disp, tuple(type(a) if type(a) is not np.ndarray else a.dtype
                             for a in args), *args)


def _block_reductions(prog, bounds, reduce_one):
    """``reduce_one`` of the chain's values on each ``(lo, hi, ...)`` of ``bounds``, in
    order (computed on the pool's threads; the caller combines them in its order)."""
    parts = [None] * len(bounds)
    items = max(b[1] - b[0] for b in bounds)

    def body(i, regs, out):
        lo, hi = bounds[i][:2]
        v = out[:hi - lo]
        prog.run(lo, hi, v, regs)
        parts[i] = reduce_one(v)

    def part(b0, b1):
        regs = prog.registers(items)
        out = np.empty(items, prog.root_dtype)
        with fp_quiet():
            for i in range(b0, b1):
                body(i, regs, out)

    nth = _threads.threads_for(prog.total * prog.root_dtype.itemsize,
                               gates.FUSION_THREADS_MIN_BYTES)
    _threads.run_split(part, (), len(bounds), nth, pieces_per_thread=4)
    return parts
