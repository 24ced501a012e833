"""Transparent fusion: deferred elementwise chains and their reductions give exactly what the
eager calls give (values bit for bit, dtype, shape, memory layout, errors at the call), and
keep eager semantics for snapshots, writes, exports and threads.

The reference is flexarray with fusion off (``fusion.MIN`` infinite), itself checked
against NumPy by the rest of the suite; the programs also run against NumPy directly.
"""
import contextlib
import copy
import math
import operator
import pickle
import threading

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import flexarray as xp
from flexarray import _deferred, _elementwise
from flexarray._engines.elementwise import FAST_MAX
from flexarray._deferred import Deferred
from flexarray._engines import fusion


@contextlib.contextmanager
def gate(value):
    """Fusion's gates set to ``value`` (0: every call fused, reductions too, by blocks
    where there is no generated loop; inf: fusion off)."""
    old, fusion.MIN = fusion.MIN, value
    fast, _elementwise._FAST_MAX = _elementwise._FAST_MAX, min(FAST_MAX, value)
    reduce_min, extrema_min = fusion.gates.FUSION_REDUCE_MIN, fusion.gates.FUSION_EXTREMA_MIN
    fusion.gates.FUSION_REDUCE_MIN = min(reduce_min, value)
    fusion.gates.FUSION_EXTREMA_MIN = min(extrema_min, value)
    blocks, fusion.BLOCKS_MIN = fusion.BLOCKS_MIN, min(fusion.BLOCKS_MIN, value)
    try:
        yield
    finally:
        fusion.MIN, _elementwise._FAST_MAX = old, fast
        fusion.gates.FUSION_REDUCE_MIN = reduce_min
        fusion.gates.FUSION_EXTREMA_MIN = extrema_min
        fusion.BLOCKS_MIN = blocks


@pytest.fixture
def every_call_fused():
    with gate(0):
        yield


def run_both(program):
    """``program()`` with fusion off, then with every call fused: both results."""
    with gate(math.inf):
        eager = program()
    with gate(0):
        fused = program()
        half = len(fused) // 2  # (the first half read under the gate: by blocks)
        fused = [np.asarray(r) if isinstance(r, xp.Array) and i < half else r
                 for i, r in enumerate(fused)]
    return eager, fused


def same(eager, fused):
    """Bit for bit: dtype, shape, memory layout and bytes (NaN payloads included)."""
    e, f = np.asarray(eager), np.asarray(fused)
    assert f.dtype == e.dtype and f.shape == e.shape
    if e.ndim and e.size > 1:
        assert f.strides == e.strides
    assert np.ascontiguousarray(f).tobytes() == np.ascontiguousarray(e).tobytes()


# --- programs: random chains over random operands -------------------------------------------

DTYPES = [np.float64, np.float32, np.int64, np.int32, np.uint8, np.bool_]
BINARY = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "less", "greater_equal",
          "equal", "logical_and", "bitwise_xor", "copysign", "pow", "floor_divide"]
UNARY = ["negative", "abs", "square", "sqrt", "floor", "isnan", "logical_not", "sign",
         "exp", "reciprocal"]
REDUCTIONS = [None, "sum", "mean", "max", "min", "var", "std", "prod", "all", "any"]
#: in-place operators a program applies to an earlier result (or an input)
INPLACE = {"add": operator.iadd, "subtract": operator.isub, "multiply": operator.imul,
           "divide": operator.itruediv, "pow": operator.ipow, "bitwise_xor": operator.ixor}


def values(dtype):
    if np.dtype(dtype).kind == "f":
        return st.floats(-1e3, 1e3, width=np.dtype(dtype).itemsize * 8) | st.sampled_from(
            [0.0, -0.0, np.inf, -np.inf, np.nan])
    if np.dtype(dtype).kind == "b":
        return st.booleans()
    info = np.iinfo(dtype)
    return st.integers(max(info.min, -100), min(info.max, 100))


@st.composite
def programs(draw):
    shape = draw(hnp.array_shapes(min_dims=1, max_dims=3, min_side=0, max_side=6))
    inputs = []
    for _ in range(draw(st.integers(1, 3))):
        dt = draw(st.sampled_from(DTYPES))
        sub = draw(hnp.broadcastable_shapes(shape, min_dims=0, max_dims=len(shape),
                                            min_side=0))
        data = draw(hnp.arrays(dt, sub, elements=values(dt)))
        view = draw(st.sampled_from(["plain", "reversed", "transposed", "memory order"]))
        inputs.append((data, view))
    steps = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["unary", "binary", "binary", "inplace"]))
        if kind == "unary":
            steps.append(("unary", draw(st.sampled_from(UNARY)), draw(st.integers(0, 99))))
        elif kind == "inplace":
            other = draw(st.one_of(st.tuples(st.just("array"), st.integers(0, 99)),
                                   st.tuples(st.just("scalar"), st.sampled_from([2, 0.5, 3]))))
            steps.append(("inplace", draw(st.sampled_from(sorted(INPLACE))),
                          draw(st.integers(0, 99)), other))
        else:
            other = draw(st.one_of(st.tuples(st.just("array"), st.integers(0, 99)),
                                   st.tuples(st.just("scalar"),
                                             st.sampled_from([2, -1, 0.5, 3, 1.5, True]))))
            steps.append(("binary", draw(st.sampled_from(BINARY)), draw(st.integers(0, 99)),
                          other, draw(st.booleans())))
    return inputs, steps, draw(st.sampled_from(REDUCTIONS)), draw(st.permutations(
        range(len(steps))))


def make_inputs(inputs):
    arrays = []
    for data, view in inputs:
        a = xp.asarray(data, copy=True)
        if view == "reversed" and a.ndim:
            a = xp.flip(a, axis=0)
        elif view == "memory order" and a.ndim >= 2:  # (its axes in memory: last first)
            order = tuple(range(a.ndim))[::-1]
            laid = np.ascontiguousarray(np.transpose(data, order)).transpose(np.argsort(order))
            a = xp.asarray(laid, copy=True)
        elif view == "transposed" and a.ndim >= 2:
            a = xp.asarray(xp.permute_dims(a, tuple(range(a.ndim))[::-1]), copy=True)
            a = xp.permute_dims(a, tuple(range(a.ndim))[::-1])
        arrays.append(a)
    return arrays


def execute(inputs, steps, reduction, force_order):
    """Every step's result (or the exception type it raised), intermediate results read
    in ``force_order`` after all steps ran (so that deferred ones are read late)."""
    pool = make_inputs(inputs)
    results = []
    for step in steps:
        try:
            if step[0] == "unary":
                _, name, i = step
                r = getattr(xp, name)(pool[i % len(pool)])
            elif step[0] == "inplace":  # (x itself, written: every later read sees it)
                _, name, i, other = step
                x = pool[-1 - i % 2] if len(pool) > 1 else pool[0]  # (mostly a result)
                y = pool[other[1] % len(pool)] if other[0] == "array" else other[1]
                r = INPLACE[name](x, y)
            else:
                _, name, i, other, reflected = step
                x = pool[i % len(pool)]
                y = pool[other[1] % len(pool)] if other[0] == "array" else other[1]
                r = getattr(xp, name)(y, x) if reflected else getattr(xp, name)(x, y)
        except Exception as e:  # noqa: BLE001 - compared between the runs
            results.append(type(e))
            continue
        results.append(r)
        pool.append(r)
    last = next((r for r in reversed(results) if not isinstance(r, type)), None)
    if reduction is not None and last is not None:
        try:
            results.append(getattr(xp, reduction)(last))
        except Exception as e:  # noqa: BLE001
            results.append(type(e))
    for a in pool[:len(inputs)]:  # a write to every input: no result may see it
        a[...] = False if a.dtype == xp.bool else 0
    return [results[i] if i < len(results) else None for i in force_order] + results


@settings(max_examples=300, deadline=None)
@given(programs())
def test_fused_programs_give_eager_bits(prog):
    inputs, steps, reduction, order = prog
    eager, fused = run_both(lambda: execute(inputs, steps, reduction, order))
    assert len(eager) == len(fused)
    for e, f in zip(eager, fused):
        if e is None or isinstance(e, type):
            assert f is e or (isinstance(f, type) and f is e), (e, f)
        else:
            same(e, f)


@settings(max_examples=100, deadline=None)
@given(programs())
def test_fused_programs_against_numpy(prog):
    """The same programs' fused results against NumPy's for the steps NumPy computes as
    the standard does (float64/float32 arithmetic on arrays of one dtype)."""
    inputs, steps, reduction, _ = prog
    with gate(0):
        _against_numpy(inputs, steps)


def _against_numpy(inputs, steps):
    arrays = make_inputs(inputs)
    for a in arrays:
        if a.dtype not in (xp.float64, xp.float32):
            return
    x = arrays[0]
    expected = np.asarray(x)
    got = x
    for step in steps:
        if step[0] != "binary" or step[1] not in ("add", "subtract", "multiply", "divide"):
            continue
        got = getattr(xp, step[1])(got, 1.5)
        expected = getattr(np, step[1])(expected, expected.dtype.type(1.5))
    same(expected, got)


# --- chains large enough for the default gate, and their reductions -------------------------

GATE = 1 << 18  # fusion's gate in these tests (the default is larger: gates.FUSION_MIN)
N = 3 * GATE + 17  # several blocks and an uneven last one


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    a = rng.standard_normal(N)
    b = rng.standard_normal(N)
    m = rng.standard_normal((N // 64, 64))
    return a, b, m


CHAINS = {
    "sum((a - b) ** 2)": lambda a, b, m: xp.sum((a - b) ** 2),
    "mean((a - 0.5) ** 2)": lambda a, b, m: xp.mean((a - 0.5) ** 2),
    "sum(where(a > 0, a, 0.1 * a))": lambda a, b, m: xp.sum(xp.where(a > 0, a, 0.1 * a)),
    "sum(((m - mu) / sd) ** 2, axis=0)": lambda a, b, m: xp.sum(
        ((m - xp.mean(m, axis=0)) / xp.std(m, axis=0)) ** 2, axis=0),
    "(m - mu) / sd": lambda a, b, m: (m - xp.mean(m, axis=0)) / xp.std(m, axis=0),
    "2 * a + 3 * b": lambda a, b, m: 2 * a + 3 * b,
    "sqrt(a * a + b * b)": lambda a, b, m: xp.sqrt(a * a + b * b),
    "var(a - b)": lambda a, b, m: xp.var(a - b),
    "std(a * 2, correction=1)": lambda a, b, m: xp.std(a * 2, correction=1),
    "var(a)": lambda a, b, m: xp.var(a),
    "max(a * b)": lambda a, b, m: xp.max(a * b),
    "min(-abs(a))": lambda a, b, m: xp.min(-xp.abs(a)),
    "sum(int32 chain)": lambda a, b, m: xp.sum(xp.astype(a * 100, xp.int32) * 3 + 1),
    "sum(float32 chain)": lambda a, b, m: xp.sum(xp.astype(a, xp.float32) * 2 - 1),
    "mean(m * m, axis=0)": lambda a, b, m: xp.mean(m * m, axis=0),
    "var(m, axis=0)": lambda a, b, m: xp.var(m, axis=0),
    "std(m * 2, axis=0, keepdims)": lambda a, b, m: xp.std(m * 2, axis=0, keepdims=True),
    "sum(m[:, :8] - 1, axis=0) (short rows)": lambda a, b, m: xp.sum(
        xp.asarray(m[:, :8], copy=True) - 1, axis=0),
    "sum(float32 m - 1, axis=0)": lambda a, b, m: xp.sum(xp.astype(m, xp.float32) - 1, axis=0),
    "sum(a > b)": lambda a, b, m: xp.sum(a > b),
}


@st.composite
def chains_in_memory_order(draw):
    """Two to four operands of one shape (2-3 axes of 2-7) laid out in one memory order
    that is not C's, a broadcast operand, and a chain of steps over them."""
    shape = draw(hnp.array_shapes(min_dims=2, max_dims=3, min_side=2, max_side=7))
    order = draw(st.permutations(range(len(shape))).filter(
        lambda p: list(p) != sorted(p)))
    dt = draw(st.sampled_from([np.float64, np.float32]))
    full = [draw(hnp.arrays(dt, shape, elements=values(dt)))
            for _ in range(draw(st.integers(1, 3)))]
    small = draw(hnp.arrays(dt, draw(hnp.broadcastable_shapes(shape, min_dims=1)),
                            elements=values(dt)))
    steps = draw(st.lists(st.tuples(st.sampled_from(["add", "subtract", "multiply", "divide",
                                                     "maximum", "less", "sqrt", "abs"]),
                                    st.integers(0, 99), st.integers(0, 99)),
                          min_size=1, max_size=5))
    reduction = draw(st.sampled_from([None, "sum", "max", "all", "mean", "var"]))
    axis = draw(st.sampled_from([None, 0, -1]))
    return order, full, small, steps, reduction, axis


@settings(max_examples=150, deadline=None)
@given(chains_in_memory_order())
def test_chains_of_operands_in_another_memory_order_give_eager_bits(case):
    """Operands laid out in one order that is not C's (NumPy's order "K" lays the eager
    results out in it) fuse, computed in that order: the eager bits and layout."""
    order, full, small, steps, reduction, axis = case
    made = []
    real = fusion.Node.__init__

    def init(self, *args, **kw):
        real(self, *args, **kw)
        made.append(self.perm)

    def program():
        pool = [xp.permute_dims(xp.asarray(np.ascontiguousarray(np.transpose(v, order)),
                                           copy=True), tuple(np.argsort(order).tolist()))
                for v in full] + [xp.asarray(small, copy=True)]
        out = []
        for name, i, j in steps:
            x = pool[i % len(pool)]
            if name in ("sqrt", "abs"):
                r = getattr(xp, name)(x)
            else:
                r = getattr(xp, name)(x, pool[j % len(pool)])
            if r.dtype == xp.bool:
                r = xp.where(r, x, 0.5)
            pool.append(r)
            out.append(r)
        if reduction is not None:
            kw = {} if reduction == "all" and axis is None else {"axis": axis}
            out.append(getattr(xp, reduction)(out[-1], **kw))
        return out

    fusion.Node.__init__ = init
    try:
        eager, fused = run_both(program)
    finally:
        fusion.Node.__init__ = real
    for e, f in zip(eager, fused):
        same(e, f)
    if steps[0][0] in ("sqrt", "abs") and steps[0][1] % (len(full) + 1) < len(full):
        assert made and made[0] == tuple(order)  # (a full operand's first step: fused)


@pytest.mark.parametrize("op", ["sum", "mean", "max", "min"])
@pytest.mark.parametrize("axis", [-1, None])
def test_scipys_moved_axis_chains_fuse_in_their_memory_order(monkeypatch, data, op, axis):
    """SciPy's stats move the axis last: a C array's columns become the rows of an
    F-ordered view, and ``(x - mean) / sd`` over it waits and runs in one pass in memory
    order (the eager bits and F layout); its reduction along the last axis (the outer
    one in memory) in the same pass, the values never stored."""
    m = np.asarray(data[2])
    x = xp.moveaxis(xp.asarray(m, copy=True), 0, -1)
    assert x._arr.flags.f_contiguous  # (not exported: that would pin its memory)
    mu = xp.mean(x, axis=-1, keepdims=True)
    sd = xp.std(x, axis=-1, keepdims=True)
    evaluated = []
    real = fusion.evaluate
    monkeypatch.setattr(fusion, "evaluate", lambda node: evaluated.append(node) or
                        real(node))
    with gate(GATE):
        s = getattr(xp, op)(((x - mu) / sd) ** 2 - 0.5, axis=axis)
        assert (evaluated == []) == (axis == -1)  # (every axis: the operands broadcast
        # along the rows in memory, so no flat runs: computed, then reduced eagerly)
        z = ((x - mu) / sd) ** 2
        assert type(z) is Deferred and _deferred.pending(z).perm == (1, 0)
    with gate(math.inf):
        zx = ((x - mu) / sd) ** 2
        sx = getattr(xp, op)(zx - 0.5, axis=axis)
    same(zx, z)
    same(sx, s)


@pytest.mark.parametrize("op", ["sum", "mean", "max", "min"])
def test_a_reduction_of_an_f_ordered_chain_over_every_axis_in_its_pass(monkeypatch, data,
                                                                       op):
    """Operands all F-ordered: the chain's values are flat runs of memory, and its
    reduction over every axis runs in the pass, in memory order as the eager one."""
    m = np.asarray(data[2])
    x = xp.moveaxis(xp.asarray(m, copy=True), 0, -1)
    y = xp.moveaxis(xp.asarray(m[::-1], copy=True), 0, -1)
    evaluated = []
    real = fusion.evaluate
    monkeypatch.setattr(fusion, "evaluate", lambda node: evaluated.append(node) or
                        real(node))
    with gate(GATE):
        r = getattr(xp, op)((x - y) * 1.5 + 0.25)
    assert evaluated == []
    with gate(math.inf):
        same(getattr(xp, op)((x - y) * 1.5 + 0.25), r)


@pytest.mark.parametrize("name", CHAINS)
@pytest.mark.parametrize("blocks", [False, True])
def test_large_chains_give_eager_bits(monkeypatch, data, name, blocks):
    """At the default gate, by the generated loops (and call by call where a chain has
    none) or, ``blocks``, by the blocked executor."""
    args = [xp.asarray(v, copy=True) for v in data]
    with gate(math.inf):
        eager = CHAINS[name](*args)
    monkeypatch.setattr(fusion.gates, "FUSION_REDUCE_MIN", 0)  # (reductions in the pass)
    if blocks:
        monkeypatch.setattr(fusion.gates, "FUSION_KERNEL_MIN", 1 << 60)
        monkeypatch.setattr(fusion, "BLOCKS_MIN", 0)
    with gate(GATE):
        fused = CHAINS[name](*args)
    same(eager, fused)


def test_large_chains_fuse_at_the_gate(data):
    a, b = (xp.asarray(v, copy=True) for v in data[:2])
    with gate(GATE):
        r = (a - b) * 2
        small = xp.asarray(np.ones(10))
        assert type(small * 2) is xp.Array
    assert type(r) is Deferred and r.shape == (N,) and r.dtype == xp.float64
    c = xp.asarray(data[0][:fusion.gates.FUSION_MIN - 1], copy=True)
    assert type((c - c) * 2) is xp.Array  # (below the default gate: at once)


def test_a_sum_of_a_chain_reads_no_intermediate(monkeypatch, data):
    """``sum((a - b) ** 2)``: no array of the chain is computed (the blocks only)."""
    a, b = (xp.asarray(v, copy=True) for v in data[:2])
    calls = []
    monkeypatch.setattr(fusion.gates, "FUSION_REDUCE_MIN", 0)
    monkeypatch.setattr(fusion, "evaluate", lambda node: calls.append(node))
    with gate(GATE):
        s = xp.sum((a - b) ** 2)
    assert calls == []
    assert float(s) == float(np.sum((data[0] - data[1]) ** 2))


@pytest.mark.parametrize("where", ["first block", "last row", "nowhere"])
@pytest.mark.parametrize("func", ["all", "any"])
@pytest.mark.parametrize("axis,keepdims", [(None, False), (None, True), (0, False),
                                           (0, True), ((0, 1), False)])
def test_all_and_any_of_a_chain_decided_by_its_first_rows(monkeypatch, where, func, axis,
                                                          keepdims):
    """``all(isnan(X), axis=0)`` (scikit-learn's _nanmin): a first block of rows with a
    number in every column decides it, and the mask is never made; where the first rows
    do not decide (the deciding value in the last row, or nowhere) the values are
    computed: the eager result every time."""
    rows = 3 * fusion.gates.FUSION_BLOCK // 16
    v = np.full((rows, 16), np.nan)
    decide = {"first block": (slice(0, 2), slice(None)), "last row": (-1, slice(None)),
              "nowhere": (slice(0, 0), slice(None))}[where]
    v[decide] = 1.0
    if func == "any":  # (any(x == x): true for the numbers)
        def chain(x):
            return x == x
    else:
        def chain(x):
            return xp.isnan(x)
    want = getattr(np, func)(chain(v) if func == "any" else np.isnan(v), axis=axis,
                             keepdims=keepdims)
    evaluated = []
    real = fusion.evaluate
    monkeypatch.setattr(fusion, "evaluate", lambda node: evaluated.append(node) or
                        real(node))
    with gate(GATE):
        x = xp.asarray(v, copy=True)
        r = getattr(xp, func)(chain(x), axis=axis, keepdims=keepdims)
    same(want, r)
    assert (evaluated == []) == (where == "first block")


@pytest.mark.parametrize("func", ["all", "any"])
@pytest.mark.parametrize("keepdims", [False, True])
def test_all_and_any_of_a_chain_in_another_memory_order(func, keepdims):
    """A chain of operands in another memory order than C's (a permuted 3-D array) reduced
    along axis 0: the eager result, its layout included (the eager reduce lays it out in
    the memory order of the remaining axes), whether or not its first rows decide it."""
    for decided in (True, False):
        v = np.full((8, 4, 6), 1.0 if func == "all" else 0.0)
        v[0 if decided else -1] = 1.0 - v[0]  # (the first row decides every column, or not)
        a = np.ascontiguousarray(np.transpose(v, (0, 2, 1)))

        def program():
            x = xp.permute_dims(xp.asarray(a, copy=True), (0, 2, 1))
            return [getattr(xp, func)(x + x, axis=0, keepdims=keepdims)]

        (eager,), (fused,) = run_both(program)
        same(eager, fused)
        np.testing.assert_array_equal(np.asarray(fused),
                                      getattr(np, func)(v, axis=0, keepdims=keepdims))


# --- eager semantics ------------------------------------------------------------------------

def test_shape_dtype_device_at_once_and_errors_at_the_call(every_call_fused):
    a = xp.ones((3, 4))
    d = a * 2
    assert type(d) is Deferred
    assert d.shape == (3, 4) and d.ndim == 2 and d.size == 12 and d.dtype == xp.float64
    assert d.device == a.device and isinstance(d, xp.Array)
    assert type(d) is Deferred  # (none of these computed it)
    with pytest.raises(ValueError):
        d + xp.ones((5,))
    with pytest.raises(TypeError):
        xp.bitwise_and(d, d)
    with pytest.raises(TypeError):
        d + "x"


def test_inputs_are_snapshots(every_call_fused):
    a = xp.asarray(np.arange(12.0).reshape(3, 4))
    a = xp.asarray(a, copy=True)
    v = a[1]
    d = a * 2 + 1
    a[0, 0] = 100.0
    v[...] = -1.0
    a += 1
    np.add(a, 1, out=a)
    assert np.array_equal(np.asarray(d), np.arange(12.0).reshape(3, 4) * 2 + 1)


def test_a_computed_operand_written_later_does_not_change_its_users(every_call_fused):
    a = xp.asarray(np.arange(6.0), copy=True)
    d = a + 1
    e = d * 10
    np.asarray(d)  # d computed (e still waits)
    d[0] = 1000.0
    d += 5
    assert np.array_equal(np.asarray(e), (np.arange(6.0) + 1) * 10)
    assert np.array_equal(np.asarray(d), np.arange(6.0) + 1 + 5 + np.r_[999, 0, 0, 0, 0, 0])


def test_a_dropped_result_is_never_computed(monkeypatch, every_call_fused):
    calls = []
    evaluate = fusion.evaluate
    monkeypatch.setattr(fusion, "evaluate", lambda node: calls.append(node) or evaluate(node))
    a = xp.ones(100)
    d = a * 2
    del d
    e = (a - 1) * 3
    assert calls == []
    assert float(xp.sum(e)) == 0.0  # (the sum's pass, not evaluate)
    np.asarray(e)
    assert len(calls) == 1



def test_in_place_operators_on_a_pending_result_fuse(every_call_fused):
    """``d += b`` on a result not computed yet joins its chain (no view of it exists yet):
    aliases see the write, a result made from ``d`` before keeps the old values, a write
    that would change the dtype or grow the shape raises as eagerly; values as eager."""
    def program():
        a, b = xp.arange(20.0), xp.arange(20.0) * 0.5
        d = a * 2
        alias = d
        before = d - 1
        d += b
        d *= 3
        d -= 1.5
        m = xp.reshape(xp.arange(12.0), (3, 4)) * 1
        m += xp.asarray([1.0, 2.0, 3.0, 4.0])
        i = xp.arange(6, dtype=xp.int32) + 1
        errors = []
        for bad in (lambda: i.__itruediv__(2), lambda: m.__iadd__(xp.ones((2, 3, 4)))):
            try:
                bad()
            except (TypeError, ValueError) as e:
                errors.append(type(e))
        return [d, alias, before, m, i], errors

    with gate(math.inf):
        eager, eager_errors = program()
    with gate(0):
        ops = []
        real = _deferred.adopt
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(_elementwise, "adopt", lambda *a: ops.append(1) or real(*a))
            fused, fused_errors = program()
    assert len(ops) >= 4, "the in-place operators were not fused"
    assert fused_errors == eager_errors == [TypeError, ValueError]
    assert fused[1] is fused[0]
    for e, f in zip(eager, fused):
        same(e, f)


def test_in_place_on_a_pending_result_while_another_thread_reads_it(every_call_fused):
    """``d += 1`` on a pending ``d`` while another thread reads ``d``: whichever comes
    first, ``d`` ends as ``a * 2 + 1`` (the write joined the chain, or was written into
    the values the reader computed), and every element the reader saw is the old or the
    new value (as with NumPy's arrays, a read beside a write may see some of each)."""
    a = xp.asarray(np.arange(50_000.0), copy=True)
    old, new = np.arange(50_000.0) * 2, np.arange(50_000.0) * 2 + 1
    for _ in range(20):
        d = a * 2
        barrier = threading.Barrier(2)
        seen = []

        def write():
            barrier.wait()
            d.__iadd__(1.0)

        def read():
            barrier.wait()
            seen.append(np.array(d, copy=True))

        threads = [threading.Thread(target=write), threading.Thread(target=read)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        np.testing.assert_array_equal(np.asarray(d), new)
        assert np.all((seen[0] == old) | (seen[0] == new))


@pytest.mark.parametrize("read", ["values", "sum", "dropped"])
def test_chains_are_freed_without_the_cycle_collector(every_call_fused, read):
    """A chain's nodes, and with them the snapshots of its inputs (whole blocks of memory),
    go when the last array that uses them goes, by reference counting alone: a reference
    cycle would keep them until the cyclic collector runs, and large blocks would pile up
    meanwhile."""
    import gc
    import weakref
    a = xp.arange(3000.0)
    gc.collect()
    gc.disable()
    try:
        t = a * 2
        d = (t + 1) * (a - 3)
        nodes = [weakref.ref(_deferred.pending(x)) for x in (t, d)]
        if read == "values":
            np.asarray(d)
        elif read == "sum":
            float(xp.sum(d))
        del t, d
        assert [r() for r in nodes] == [None, None]
    finally:
        gc.enable()

EXPORTS = {
    "asarray": lambda d: np.asarray(d),
    "array copy": lambda d: np.array(d, copy=True),
    "dlpack": lambda d: np.from_dlpack(d),
    "pickle": lambda d: np.asarray(pickle.loads(pickle.dumps(d))),
    "copy": lambda d: np.asarray(copy.copy(d)),
    "float of one": lambda d: np.asarray(float(d[2])),
    "index": lambda d: np.asarray(d[1:3]),
    "mask": lambda d: np.asarray(d[d > 2]),
    "iterate": lambda d: np.asarray([float(v) for v in d]),
    "tolist by NumPy": lambda d: np.asarray(np.sin(d)),
    "concat": lambda d: np.asarray(xp.concat([d, d])),
    "repr": lambda d: np.asarray(eval(repr(d).replace("Array(", "np.array(").replace(
        "dtype=float64", "dtype=np.float64"))),
}


@pytest.mark.parametrize("name", EXPORTS)
def test_every_export_reads_the_values(every_call_fused, name):
    a = xp.asarray(np.arange(6.0), copy=True)
    got = EXPORTS[name](a * 2 + 1)
    ref = EXPORTS[name](xp.asarray(np.arange(6.0) * 2 + 1))
    assert np.array_equal(got, ref)


def test_writes_into_a_deferred_result(every_call_fused):
    a = xp.asarray(np.arange(6.0), copy=True)
    d = a * 2
    d[0] = -1.0
    d += 1
    v = d[1:]
    v *= 2
    assert np.array_equal(np.asarray(d), np.r_[0.0, 6, 10, 14, 18, 22])
    assert np.array_equal(np.asarray(a), np.arange(6.0))


def test_a_deferred_result_shared_between_threads_is_computed_once(monkeypatch,
                                                                    every_call_fused):
    calls = []
    evaluate = fusion.evaluate
    barrier = threading.Barrier(4)

    def slow(node):
        calls.append(node)
        return evaluate(node)

    monkeypatch.setattr(fusion, "evaluate", slow)
    a = xp.asarray(np.arange(100_000.0), copy=True)
    d = (a - 1) * 2
    out = [None] * 4

    def read(i):
        barrier.wait()
        out[i] = np.asarray(d).copy()

    threads = [threading.Thread(target=read, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1
    for o in out:
        assert np.array_equal(o, (np.arange(100_000.0) - 1) * 2)


def test_chains_built_and_read_from_threads_while_inputs_are_written(every_call_fused):
    """Threads build chains on one input while another writes it: every result is the
    input's value at its call, as eagerly."""
    x = xp.asarray(np.zeros(200_000), copy=True)
    errors = []

    def writer():
        for k in range(1, 30):
            x[...] = float(k)

    def reader():
        for _ in range(30):
            r = (x + 0.0) * 1.0
            v = np.asarray(r)
            if not (v == v[0]).all():
                errors.append("torn")

    ts = [threading.Thread(target=writer)] + [threading.Thread(target=reader) for _ in range(2)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    # (a snapshot taken during a write may see part of it, as NumPy's copy can; after the
    # writer ends every chain reads the final value)
    assert float(xp.max((x + 0.0) * 1.0)) == 29.0


@pytest.mark.parametrize("shape", [(0,), (3, 0), (0, 4)])
def test_zero_size_chains(every_call_fused, shape):
    a = xp.ones(shape)
    r = (a * 2 + 1) / 3
    assert type(r) is Deferred
    same((np.ones(shape) * 2 + 1) / 3, r)
    assert float(xp.sum(r)) == 0.0


def test_long_chains_are_cut_at_the_limit(every_call_fused):
    a = xp.asarray(np.arange(10.0), copy=True)
    r = a
    ref = np.arange(10.0)
    for _ in range(3 * fusion.gates.FUSION_MAX_OPS):
        r = r * 1.5 - 1
        ref = ref * 1.5 - 1
    assert _deferred.pending(r).ops <= fusion.gates.FUSION_MAX_OPS
    same(ref, r)


def test_fusion_off_by_environment():
    import subprocess
    import sys
    code = ("import flexarray as xp, numpy as np; from flexarray._deferred import Deferred; "
            "a = xp.asarray(np.ones(1 << 21), copy=True); print(type(a * 2) is Deferred)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**__import__("os").environ, "FLEXARRAY_FUSION": "0"})
    assert out.stdout.strip() == "False", out.stderr


# --- the generated loops (second executor) --------------------------------------------------

LOOP_CHAINS = {
    "(a - b) ** 2": lambda a, b: (a - b) ** 2,
    "2*a + 3*b": lambda a, b: 2 * a + 3 * b,
    "sqrt(a*a + b*b) / 3": lambda a, b: xp.sqrt(a * a + b * b) / 3,
    "where(a > b, a, 0.5 * b)": lambda a, b: xp.where(a > b, a, 0.5 * b),
    "a ** -1 + abs(b)": lambda a, b: a ** -1 + xp.abs(b),
    "floor(a) * ceil(b) - trunc(a)": lambda a, b: xp.floor(a) * xp.ceil(b) - xp.trunc(a),
    "copysign(a, b) / b": lambda a, b: xp.copysign(a, b) / b,
    "isnan(a / b) | (a < b)": lambda a, b: xp.logical_or(xp.isnan(a / b), a < b),
    "sum((a - b) ** 2)": lambda a, b: xp.sum((a - b) ** 2),
    "mean(where(a > 0, a, 0.1 * a))": lambda a, b: xp.mean(xp.where(a > 0, a, 0.1 * a)),
    "var(a * b)": lambda a, b: xp.var(a * b),
    "max(a * b)": lambda a, b: xp.max(a * b),  # (NaN: the eager call's)
    "max(where(a * b == a * b, a * b, -1.0))": lambda a, b: xp.max(
        xp.where(a * b == a * b, a * b, -1.0)),
    "min(where(a * b == a * b, a * b, -1.0) + 0.5)": lambda a, b: xp.min(
        xp.where(a * b == a * b, a * b, -1.0) + 0.5),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", LOOP_CHAINS)
def test_generated_loops_give_eager_bits(monkeypatch, name, dtype):
    """The chains as generated Numba loops (their gate moved down to 0) against fusion
    off, on values with zeros of both signs, infinities and NaN, over a length that is
    not a multiple of a block (its tail) and several leaves of the summation tree."""
    monkeypatch.setattr(fusion.gates, "FUSION_KERNEL_MIN", 0)
    rng = np.random.default_rng(3)
    n = 3 * fusion.gates.FUSION_BLOCK + 13
    an, bn = (rng.standard_normal(n) * 10 for _ in range(2))
    an[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-310]
    bn[:6] = [-0.0, 0.0, np.nan, 3.0, -np.inf, -1e-310]
    a, b = (xp.asarray(v.astype(dtype), copy=True) for v in (an, bn))
    with gate(math.inf):
        eager = LOOP_CHAINS[name](a, b)
    loads = []
    from flexarray._kernels import fusion as loops
    real = loops.module
    monkeypatch.setattr(loops, "module", lambda text: loads.append(text) or real(text))
    with gate(0):
        fused = LOOP_CHAINS[name](a, b)
        same(eager, fused)
    if dtype == "float64" or not name.startswith(("sum", "mean", "var")):
        assert loads, "the generated loops were not used"


def test_generated_sums_follow_numpys_summation_tree():
    """A generated ``sums`` kernel (NumPy's pairwise recursion over each leaf, runs of up
    to 128 values added in eight lanes) gives ``np.add.reduce``'s bits for every length up
    to 1,100 and 100 random ones up to 300,000, on values spanning many magnitudes (where
    any other order rounds differently)."""
    from flexarray._kernels import fusion as loops
    mod = loops.module(loops.source([("positive", [("a", 0)], -1)], ["a"], "float64"))
    rng = np.random.default_rng(1)
    a = rng.standard_normal(300_000) * np.exp(rng.standard_normal(300_000) * 5)
    lengths = list(range(1, 1100)) + [int(n) for n in rng.integers(1100, 300_000, 100)]
    parts = np.empty(1)
    for n in lengths:
        mod.sums(a, np.array([0]), np.array([n]), parts, 0, 1)
        assert parts[0] == np.add.reduce(a[:n]), n


# --- every kind of call takes a deferred array ------------------------------------------------

def _deferred_matrix():
    a = xp.asarray(np.arange(24.0).reshape(4, 6), copy=True)
    return a * 2 - 1


CALLS = {
    "asarray": lambda d: xp.asarray(d),
    "asarray copy": lambda d: xp.asarray(d, copy=True),
    "astype": lambda d: xp.astype(d, xp.float32),
    "reshape": lambda d: xp.reshape(d, (6, 4)),
    "concat": lambda d: xp.concat([d, d]),
    "stack": lambda d: xp.stack([d, d]),
    "matmul": lambda d: d @ d.T,
    "matmul fn": lambda d: xp.matmul(d, xp.matrix_transpose(d)),
    "sort": lambda d: xp.sort(d),
    "unique": lambda d: xp.unique_values(d),
    "result_type": lambda d: xp.asarray(0, dtype=xp.result_type(d, d)),
    "broadcast_arrays": lambda d: xp.broadcast_arrays(d, xp.ones(6))[0],
    "take": lambda d: xp.take(d, xp.asarray([0, 2]), axis=0),
    "argmax": lambda d: xp.argmax(d),
    "cumsum": lambda d: xp.cumulative_sum(d, axis=1),
    "clip": lambda d: xp.clip(d, 0, 10),
    "round": lambda d: xp.round(d / 3, decimals=1),
    "nonzero": lambda d: xp.nonzero(d > 5)[0],
    "all": lambda d: xp.all(d > 0),
    "any": lambda d: xp.any(d),
    "vecdot": lambda d: xp.vecdot(d, d),
    "norm": lambda d: xp.linalg.vector_norm(d),
    "fft": lambda d: xp.fft.rfft(d),
    "sum axis": lambda d: xp.sum(d, axis=0),
    "mean axis": lambda d: xp.mean(d, axis=1, keepdims=True),
    "std": lambda d: xp.std(d),
    "var axis": lambda d: xp.var(d, axis=0),
    "prod": lambda d: xp.prod(d / 10),
    "max": lambda d: xp.max(d),
    "min keep": lambda d: xp.min(d, keepdims=True),
    "exp": lambda d: xp.exp(d / 10),
    "isdtype": lambda d: xp.asarray(xp.isdtype(d.dtype, "real floating")),
    "getitem mask": lambda d: d[d > 3],
    "getitem int arr": lambda d: d[xp.asarray([1, 2])],
    "setitem deferred value":
        lambda d: (lambda z: (z.__setitem__((slice(None),), d), z)[1])(xp.zeros((4, 6))),
    "where": lambda d: xp.where(d > 3, d, -d),
    "expand": lambda d: xp.expand_dims(d, axis=0),
    "permute": lambda d: xp.permute_dims(d, (1, 0)),
    "flip": lambda d: xp.flip(d),
    "np.sum": lambda d: np.sum(d),
    "np.add": lambda d: np.add(d, 1),
    "np.asarray": lambda d: np.asarray(d),
    "np.concatenate": lambda d: np.concatenate([d, d]),
    "np.mean axis": lambda d: np.mean(d, axis=0),
    "iadd": lambda d: (lambda z: (z.__iadd__(d), z)[1])(xp.ones((4, 6))),
    "equal": lambda d: d == d,
    "searchsorted": lambda d: xp.searchsorted(xp.reshape(xp.sort(d), (-1,)), xp.asarray([3.0])),
    "diff": lambda d: xp.diff(d),
    "meshgrid": lambda d: xp.meshgrid(d[0], d[1])[0],
    "tile": lambda d: xp.tile(d, (2, 1)),
    "moveaxis": lambda d: xp.moveaxis(d, 0, 1),
    "count_nonzero": lambda d: xp.count_nonzero(d),
    "logsumexp-ish": lambda d: xp.log(xp.sum(xp.exp(d / 50))),
    "linalg.inv": lambda d: xp.linalg.inv(d[:4, :4] + 10 * xp.eye(4)),
    "len": lambda d: xp.asarray(len(d)),
    "float": lambda d: xp.asarray(float(d[1, 1])),
    "bool": lambda d: xp.asarray(bool(d[0, 0])),
    "int": lambda d: xp.asarray(int(d[0, 2])),
    "index": lambda d: xp.asarray(d[xp.astype(d[0, 2], xp.int64)]),
}


@pytest.mark.parametrize("name", CALLS)
def test_calls_take_deferred_arrays(name):
    """Functions of every chapter, NumPy's protocols, operators, indexing and conversions
    given a deferred array: the result of the same call on the computed array."""
    with gate(math.inf):
        eager = CALLS[name](_deferred_matrix())
    with gate(0):
        d = _deferred_matrix()
        assert type(d) is Deferred
        got = CALLS[name](d)
    e, g = np.asarray(eager), np.asarray(got)
    assert e.shape == g.shape and np.array_equal(e, g, equal_nan=True)


ROW_CHAINS = {
    "(m - mu) / sd": lambda m, mu, sd, col: (m - mu) / sd,
    "sum(((m - mu) / sd) ** 2, axis=0)": lambda m, mu, sd, col: xp.sum(
        ((m - mu) / sd) ** 2, axis=0),
    "var(m, axis=0)": lambda m, mu, sd, col: xp.var(m, axis=0),
    "std(m * 2, axis=0, correction=1)": lambda m, mu, sd, col: xp.std(m * 2, axis=0,
                                                                       correction=1),
    "mean(m * col, axis=0)": lambda m, mu, sd, col: xp.mean(m * col, axis=0),
    "where(m > mu, m, 0.5 * m) - col": lambda m, mu, sd, col: xp.where(m > mu, m, 0.5 * m)
    - col,
    "max(m * 2, axis=0)": lambda m, mu, sd, col: xp.max(m * 2, axis=0),  # (NaN: eager's)
    "max(where(m == m, m * 2, 1.5) + 0.25, axis=0)": lambda m, mu, sd, col: xp.max(
        xp.where(m == m, m * 2, 1.5) + 0.25, axis=0),
    "min(where(m == m, m * col, -1.5), axis=0, keepdims)": lambda m, mu, sd, col: xp.min(
        xp.where(m == m, m * col, -1.5), axis=0, keepdims=True),
}


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", ROW_CHAINS)
def test_generated_row_loops_give_eager_bits(monkeypatch, name, dtype):
    """Chains over rows (operands broadcast along rows or columns), sums, max and min over
    axis 0 as generated loops against fusion off, special values included."""
    monkeypatch.setattr(fusion.gates, "FUSION_KERNEL_MIN", 0)
    rng = np.random.default_rng(5)
    mn = rng.standard_normal((3 * fusion.gates.FUSION_BLOCK // 40 + 7, 40)) * 5
    mn[0, :5] = [0.0, -0.0, np.inf, np.nan, -np.inf]
    m = xp.asarray(mn.astype(dtype), copy=True)
    mu, sd = xp.mean(m, axis=0), xp.std(m, axis=0)
    col = xp.asarray(rng.standard_normal((mn.shape[0], 1)).astype(dtype), copy=True)
    with gate(math.inf):
        eager = ROW_CHAINS[name](m, mu, sd, col)
    loads = []
    from flexarray._kernels import fusion as loops
    real = loops.module
    monkeypatch.setattr(loops, "module", lambda text: loads.append(text) or real(text))
    with gate(0):
        fused = ROW_CHAINS[name](m, mu, sd, col)
    same(eager, fused)
    assert loads, "the generated loops were not used"


def test_threads_reduce_and_read_one_deferred_array(every_call_fused):
    """Threads sum, take the variance of and read one deferred array at once (each may
    compute it, or find it computed by another meanwhile): every result is eager's."""
    x = xp.asarray(np.random.default_rng(2).standard_normal(300_000), copy=True)
    with gate(math.inf):
        expect = [float(xp.sum(x * 2 - 1)), float(xp.var(x * 2 - 1)),
                  np.asarray(x * 2 - 1).copy()]
    for _ in range(20):
        d = x * 2 - 1
        barrier = threading.Barrier(3)
        out = [None] * 3

        def run(i):
            barrier.wait()
            try:
                out[i] = (lambda: float(xp.sum(d)), lambda: float(xp.var(d)),
                          lambda: np.asarray(d).copy())[i]()
            except Exception as e:  # noqa: BLE001 - reported below
                out[i] = e

        ts = [threading.Thread(target=run, args=(i,)) for i in range(3)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        assert out[0] == expect[0] and out[1] == expect[1]
        assert np.array_equal(out[2], expect[2])
