"""The value model, checked by random programs against a copy-everything model.

Every flexarray array is paired with a NumPy array that owns its own copy of the expected
elements. Views, copies, writes, in-place operators and exports run on both; after every
step every flexarray array must equal its model: a write through one array may never show
up in another one.
"""
import numpy as np
import pytest
from hypothesis import settings, strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule

import flexarray as xp


def slices_for(shape):
    """A basic index (ints, slices with any step, Ellipsis/None) valid for ``shape``."""
    def one(n):
        ints = st.integers(-n, n - 1) if n else st.nothing()
        sl = st.builds(slice, st.none() | st.integers(-n - 1, n + 1),
                       st.none() | st.integers(-n - 1, n + 1),
                       st.none() | st.sampled_from([1, 2, -1, -2, 3]))
        return sl | ints
    return st.tuples(*(one(n) for n in shape))


def broadcasts_into(shape, target):
    """Whether an operand of ``shape`` broadcasts to exactly ``target``."""
    try:
        return np.broadcast_shapes(target, shape) == target
    except ValueError:
        return False


class ValueModel(RuleBasedStateMachine):
    arrays = Bundle("arrays")

    def __init__(self):
        super().__init__()
        self.pairs = []      # (flexarray array, NumPy model)
        self.exports = []    # (exported NumPy array, snapshot of it)

    def _add(self, x, model):
        assert x.shape == model.shape
        self.pairs.append((x, model))
        return len(self.pairs) - 1

    @rule(target=arrays, shape=st.lists(st.integers(0, 4), min_size=0, max_size=3),
          seed=st.integers(0, 2**16))
    def new(self, shape, seed):
        data = np.random.default_rng(seed).integers(-50, 50, size=shape).astype(np.float64)
        return self._add(xp.asarray(data.copy()), data)

    @rule(target=arrays, i=arrays, data=st.data())
    def basic_view(self, i, data):
        x, m = self.pairs[i]
        key = data.draw(slices_for(m.shape))
        return self._add(x[key], np.array(m[key]))

    @rule(target=arrays, i=arrays)
    def flip(self, i):
        x, m = self.pairs[i]
        key = (slice(None, None, -1),) * m.ndim
        return self._add(x[key], np.array(m[key]))

    @rule(target=arrays, i=arrays, data=st.data())
    def permute(self, i, data):
        x, m = self.pairs[i]
        perm = data.draw(st.permutations(range(m.ndim)))
        return self._add(xp.permute_dims(x, tuple(perm)), m.transpose(perm).copy())

    @rule(target=arrays, i=arrays)
    def reshape_flat(self, i):
        x, m = self.pairs[i]
        return self._add(xp.reshape(x, (-1,)), m.reshape(-1).copy())

    @rule(target=arrays, i=arrays, extra=st.integers(1, 3))
    def broadcast(self, i, extra):
        x, m = self.pairs[i]
        shape = (extra,) + m.shape
        return self._add(xp.broadcast_to(x, shape), np.broadcast_to(m, shape).copy())

    @rule(target=arrays, i=arrays)
    def copy(self, i):
        x, m = self.pairs[i]
        return self._add(xp.asarray(x, copy=True), m.copy())

    @rule(i=arrays, data=st.data(), value=st.integers(-9, 9))
    def setitem_scalar(self, i, data, value):
        x, m = self.pairs[i]
        key = data.draw(slices_for(m.shape))
        x[key] = float(value)
        m[key] = value

    @rule(i=arrays, j=arrays)
    def setitem_array(self, i, j):
        (x, m), (y, n) = self.pairs[i], self.pairs[j]
        if not broadcasts_into(n.shape, m.shape):
            return
        x[...] = y
        m[...] = n

    @rule(i=arrays, j=arrays, op=st.sampled_from(["__iadd__", "__imul__", "__isub__"]))
    def inplace(self, i, j, op):
        (x, m), (y, n) = self.pairs[i], self.pairs[j]
        if not broadcasts_into(n.shape, m.shape):
            return
        r = getattr(x, op)(y)
        assert r is x
        getattr(m, op)(n)

    @rule(i=arrays)
    def export(self, i):
        x, _ = self.pairs[i]
        e = np.asarray(x)
        self.exports.append((e, e.copy()))

    @invariant()
    def values_unchanged_by_others(self):
        for x, m in self.pairs:
            np.testing.assert_array_equal(np.array(x._arr), m)
        for e, snap in self.exports:
            np.testing.assert_array_equal(e, snap)


ValueModel.TestCase.settings = settings(max_examples=150, stateful_step_count=25,
                                        deadline=None)
test_value_model = ValueModel.TestCase


def test_unique_array_is_written_in_place():
    x = xp.zeros(1000)
    before = x._arr.__array_interface__["data"][0]
    x += 1
    x[3] = 5.0
    assert x._arr.__array_interface__["data"][0] == before
    assert float(x[3]) == 5.0 and float(x[0]) == 1.0


def test_shared_buffer_is_copied_before_write():
    x = xp.zeros(10)
    y = x[2:5]
    y[0] = 7.0
    assert float(x[2]) == 0.0 and float(y[0]) == 7.0


def test_export_is_read_only_and_stays_unchanged():
    x = xp.arange(5)
    e = np.asarray(x)
    with pytest.raises(ValueError):
        e[0] = 9
    x[0] = 9
    assert e[0] == 0 and int(x[0]) == 9


def test_foreign_numpy_memory_is_never_written():
    a = np.arange(5.0)
    x = xp.asarray(a)
    x[1] = 100.0
    x += 1
    assert a.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert np.asarray(x).tolist() == [1.0, 101.0, 3.0, 4.0, 5.0]


def test_views_share_memory_and_cost_no_copy():
    x = xp.zeros((100, 100))
    base = np.asarray(x)
    for v in (x.T, x[::-1, 2:], x[None], xp.permute_dims(x, (1, 0)), x.mT):
        assert np.shares_memory(np.asarray(v), base)


def test_copies_of_foreign_memory_are_snapshots():
    a = np.arange(4.0)
    x = xp.asarray(a)  # aliases a (read-only)
    copies = [xp.asarray(x, copy=True), xp.astype(x, xp.float64),
              xp.reshape(x, (2, 2), copy=True), xp.from_dlpack(x, copy=True)]
    a[0] = 99.0  # the owner changes its memory: x sees it, the copies must not
    assert float(x[0]) == 99.0
    for c in copies:
        assert float(xp.reshape(c, (-1,))[0]) == 0.0


def test_temporaries_take_results_but_named_arrays_never_change():
    """``a * b + c`` computes ``+ c`` into the temporary ``a * b`` (no fresh allocation);
    no array anybody can still reach is written, however the operator is invoked."""
    import functools
    import operator
    n = 1 << 17  # above the elision threshold
    rng = np.random.default_rng(3)
    a, b, c = (rng.standard_normal(n) for _ in range(3))
    x, y, z = (xp.asarray(v, copy=True) for v in (a, b, c))
    np.testing.assert_array_equal(np.asarray(x * y + z), a * b + c)
    np.testing.assert_array_equal(np.asarray((x * y)[::2] - z[::2]), (a * b)[::2] - c[::2])
    t = x * y
    snapshot = np.array(t._arr)
    results = [t + z, t.__add__(z), operator.add(t, z), functools.reduce(operator.add, [t, z]),
               sum([z], start=t), t[::2] + z[::2], t * 2.0]
    for r in results[:5]:
        np.testing.assert_array_equal(np.asarray(r), a * b + c)
    np.testing.assert_array_equal(t._arr, snapshot)
    for v, orig in ((x, a), (y, b), (z, c)):
        np.testing.assert_array_equal(v._arr, orig)
    r = (x * y) + xp.ones((2, n))  # the result is larger than the temporary: a new array
    assert r.shape == (2, n)
    i = xp.asarray(np.arange(n, dtype=np.int32))
    assert ((i * 2) / 2).dtype is xp.float64  # int / int: a float result, not in place
