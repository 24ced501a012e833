"""The view model, run side by side with NumPy: views share, copies are lazy.

Every flexarray array is paired with a NumPy array made by the same steps: a view of a
view's model is a NumPy view, a copy's model is a NumPy copy, an export (``np.asarray(x)``)
is modelled by x's model itself (NumPy's ``asarray`` of an ndarray is the array), an import
shares like NumPy's ``asarray``. Writes (``__setitem__`` of every key kind, in-place
operators, writes through exports and imports) run on both; after every step every
flexarray array must equal its NumPy twin, so views share exactly where NumPy's share and
copies never do.
"""
import numpy as np
import pytest
from hypothesis import settings, strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule

import flexarray as xp
from flexarray import _array
from helpers.lazy import lazy_small_copies  # noqa: F401 (autouse: lazy copies of small arrays)


def slices_for(shape):
    """A basic index (ints, slices with any step, Ellipsis/None) valid for ``shape``."""
    def one(n):
        ints = st.integers(-n, n - 1) if n else st.nothing()
        sl = st.builds(slice, st.none() | st.integers(-n - 1, n + 1),
                       st.none() | st.integers(-n - 1, n + 1),
                       st.none() | st.sampled_from([1, 2, -1, -2, 3]))
        return sl | ints
    return st.tuples(*(one(n) for n in shape)).flatmap(
        lambda key: st.sampled_from([key, key + (Ellipsis,), (None,) + key]))


def broadcasts_into(shape, target):
    """Whether an operand of ``shape`` broadcasts to exactly ``target``."""
    try:
        return np.broadcast_shapes(target, shape) == target
    except ValueError:
        return False


def same_outcome(f, g):
    """Run ``f`` (flexarray) and ``g`` (NumPy): both succeed, or both raise ValueError."""
    try:
        g()
    except ValueError:
        with pytest.raises(ValueError):
            f()
        return
    f()


class ViewModel(RuleBasedStateMachine):
    arrays = Bundle("arrays")

    def __init__(self):
        super().__init__()
        self.pairs = []      # (flexarray array, its NumPy twin)
        self.shared = []     # (NumPy array sharing flexarray memory, its NumPy twin)

    def _add(self, x, model):
        assert type(model) is np.ndarray and x.shape == model.shape, (x.shape, model)
        self.pairs.append((x, model))
        return len(self.pairs) - 1

    @rule(target=arrays, shape=st.lists(st.integers(0, 4), min_size=0, max_size=3),
          seed=st.integers(0, 2**16))
    def new(self, shape, seed):
        data = np.random.default_rng(seed).integers(-50, 50, size=shape).astype(np.float64)
        return self._add(xp.asarray(data, copy=True), data)

    @rule(target=arrays, shape=st.lists(st.integers(1, 4), min_size=1, max_size=3),
          seed=st.integers(0, 2**16))
    def imported(self, shape, seed):
        """``asarray(ndarray)`` shares the ndarray's memory, as NumPy's asarray does."""
        data = np.random.default_rng(seed).integers(-50, 50, size=shape).astype(np.float64)
        twin = data.copy()
        self.shared.append((data, twin))
        return self._add(xp.asarray(data), twin)

    @rule(target=arrays, i=arrays, data=st.data())
    def basic_view(self, i, data):
        x, m = self.pairs[i]
        key = data.draw(slices_for(m.shape))
        view = m[key]  # an integer for every axis: NumPy gives a scalar, flexarray a copy
        return self._add(x[key], view if type(view) is np.ndarray else np.array(view))

    @rule(target=arrays, i=arrays, data=st.data())
    def permute(self, i, data):
        x, m = self.pairs[i]
        perm = data.draw(st.permutations(range(m.ndim)))
        return self._add(xp.permute_dims(x, tuple(perm)), m.transpose(perm))

    @rule(target=arrays, i=arrays, data=st.data())
    def transpose(self, i, data):
        x, m = self.pairs[i]
        if m.ndim == 0:
            return self._add(x[...], m[...])
        if m.ndim == 1:
            return self._add(xp.flip(x), np.flip(m))
        return self._add(x.mT, np.swapaxes(m, -1, -2))

    @rule(target=arrays, i=arrays)
    def reshape_flat(self, i):
        """A view exactly where NumPy's reshape gives one, else a fresh copy."""
        x, m = self.pairs[i]
        return self._add(xp.reshape(x, (-1,)), m.reshape(-1))

    @rule(target=arrays, i=arrays)
    def expand_squeeze(self, i):
        x, m = self.pairs[i]
        e = xp.expand_dims(x, axis=0)
        return self._add(xp.squeeze(e, axis=0), np.expand_dims(m, 0)[0, ...])

    @rule(target=arrays, i=arrays, extra=st.integers(1, 3))
    def broadcast(self, i, extra):
        x, m = self.pairs[i]
        shape = (extra,) + m.shape
        return self._add(xp.broadcast_to(x, shape), np.broadcast_to(m, shape))

    @rule(target=arrays, i=arrays, size=st.integers(1, 3), step=st.integers(1, 3))
    def unfold(self, i, size, step):
        x, m = self.pairs[i]
        if m.ndim == 0 or m.shape[0] < size:
            return self._add(x[...], m[...])
        w = np.lib.stride_tricks.sliding_window_view(m, size, axis=0)[::step]
        return self._add(xp.nn.unfold(x, 0, size, step), w)

    @rule(target=arrays, i=arrays, how=st.sampled_from(["asarray", "astype", "reshape",
                                                         "dlpack"]))
    def copy(self, i, how):
        x, m = self.pairs[i]
        c = {"asarray": lambda: xp.asarray(x, copy=True),
             "astype": lambda: xp.astype(x, x.dtype),
             "reshape": lambda: xp.reshape(x, m.shape, copy=True),
             "dlpack": lambda: xp.from_dlpack(x, copy=True)}[how]()
        # NumPy's own copy for each (the layout decides whether later reshapes are views):
        # order "K" for asarray/astype/from_dlpack, C for reshape(copy=True)
        twin = {"asarray": lambda: np.asarray(m, copy=True), "astype": lambda: m.astype(m.dtype),
                "reshape": lambda: np.reshape(m, m.shape, copy=True),
                "dlpack": lambda: np.array(m, copy=True)}[how]()
        return self._add(c, twin)

    @rule(target=arrays, i=arrays)
    def same_array(self, i):
        """``asarray(x)``/``asarray(x, copy=False)``/``from_dlpack(x)``: x itself."""
        x, m = self.pairs[i]
        return self._add(xp.asarray(xp.from_dlpack(xp.asarray(x, copy=False))), m)

    @rule(target=arrays, i=arrays, j=arrays, op=st.sampled_from(["add", "multiply"]))
    def result(self, i, j, op):
        """Results of operations never share with their inputs."""
        (x, m), (y, n) = self.pairs[i], self.pairs[j]
        if not broadcasts_into(n.shape, m.shape):
            return self._add(xp.sum(x, axis=None, keepdims=True),
                             np.asarray(np.sum(m, keepdims=True)))
        return self._add(getattr(xp, op)(x, y), np.asarray(getattr(np, op)(m, n)))

    @rule(target=arrays, i=arrays, call=st.sampled_from(
        ["sum", "cumulative_sum", "sort", "flip", "rfft", "max_pool1d"]))
    def result_of_call(self, i, call):
        """Results of reductions, sorts, FFTs and nn calls never share with their input
        (``flip`` is a view: shares exactly as NumPy's)."""
        x, m = self.pairs[i]
        if call == "sum":
            return self._add(xp.sum(x, axis=-1) if m.ndim else xp.sum(x),
                             np.asarray(np.sum(m, axis=-1) if m.ndim else np.sum(m)))
        if m.ndim == 0 or m.shape[-1] == 0:
            return self._add(xp.asarray(x, copy=True), m.copy())
        if call == "cumulative_sum":
            return self._add(xp.cumulative_sum(x, axis=-1), np.cumsum(m, axis=-1))
        if call == "sort":
            return self._add(xp.sort(x, axis=-1), np.sort(m, axis=-1))
        if call == "flip":
            return self._add(xp.flip(x, axis=-1), np.flip(m, axis=-1))
        if call == "rfft":  # the real part, a float64 array; its twin starts from its own
            # values (the kernel's rounding is not the point here, sharing is)
            r = xp.real(xp.fft.rfft(x))
            np.testing.assert_allclose(np.asarray(r), np.fft.rfft(m).real, atol=1e-9)
            return self._add(r, np.array(r))
        if m.ndim not in (2, 3):  # max_pool1d takes (C, L) or (N, C, L)
            return self._add(xp.asarray(x, copy=True), m.copy())
        r = xp.nn.max_pool1d(x, 1)
        return self._add(r, m.copy())

    @rule(i=arrays, data=st.data(), value=st.integers(-9, 9))
    def setitem_scalar(self, i, data, value):
        x, m = self.pairs[i]
        key = data.draw(slices_for(m.shape))

        def g():
            m[key] = value
        same_outcome(lambda: x.__setitem__(key, float(value)), g)

    @rule(i=arrays, data=st.data(), value=st.integers(-9, 9))
    def setitem_advanced(self, i, data, value):
        """Boolean masks and integer arrays write into the array (and so its views)."""
        x, m = self.pairs[i]
        if m.ndim == 0 or m.shape[0] == 0:
            return
        if data.draw(st.booleans()):
            mask = data.draw(st.lists(st.booleans(), min_size=m.shape[0],
                                      max_size=m.shape[0]))
            key_np, key_xp = np.array(mask), xp.asarray(mask)
        else:
            idx = data.draw(st.lists(st.integers(-m.shape[0], m.shape[0] - 1), max_size=3))
            key_np, key_xp = np.array(idx, np.int64), xp.asarray(idx, dtype=xp.int64)

        def g():
            m[key_np] = value
        same_outcome(lambda: x.__setitem__(key_xp, float(value)), g)

    @rule(i=arrays, j=arrays)
    def setitem_array(self, i, j):
        (x, m), (y, n) = self.pairs[i], self.pairs[j]
        if not broadcasts_into(n.shape, m.shape):
            return

        def g():
            m[...] = n
        same_outcome(lambda: x.__setitem__(Ellipsis, y), g)

    @rule(i=arrays, j=arrays, op=st.sampled_from(["__iadd__", "__imul__", "__isub__"]))
    def inplace(self, i, j, op):
        (x, m), (y, n) = self.pairs[i], self.pairs[j]
        if not broadcasts_into(n.shape, m.shape):
            return
        same_outcome(lambda: getattr(x, op)(y), lambda: getattr(m, op)(n))

    @rule(i=arrays, value=st.integers(-9, 9))
    def inplace_scalar(self, i, value):
        x, m = self.pairs[i]
        same_outcome(lambda: x.__iadd__(float(value)), lambda: m.__iadd__(value))

    @rule(i=arrays)
    def export(self, i):
        """``np.asarray(x)`` shares x's elements, writable where x is."""
        x, m = self.pairs[i]
        e = np.asarray(x)
        assert e.flags.writeable == m.flags.writeable
        self.shared.append((e, m))

    @rule(k=st.integers(0, 50), value=st.integers(-9, 9))
    def write_shared(self, k, value):
        """A write through an export or an imported NumPy array."""
        if not self.shared:
            return
        e, m = self.shared[k % len(self.shared)]
        if e.size and e.flags.writeable:  # the first element by index (reshape(-1) of a
            # non-contiguous export would be a copy, and the write would be lost)
            e[(0,) * e.ndim] = value
            m[(0,) * m.ndim] = value

    @invariant()
    def every_array_equals_its_twin(self):
        for x, m in self.pairs:
            np.testing.assert_array_equal(np.array(x._arr), m)
        for e, m in self.shared:
            np.testing.assert_array_equal(e, m)


ViewModel.TestCase.settings = settings(max_examples=100, stateful_step_count=25,
                                       deadline=None)
test_view_model = ViewModel.TestCase


def test_views_share_writes_both_ways():
    x = xp.reshape(xp.arange(12.0), (3, 4))
    v = x.T[::-1]
    v[0, 0] = 100.0                      # v[0, 0] is x[0, 3]
    assert float(x[0, 3]) == 100.0
    x[1, 3] = -1.0
    assert float(v[0, 1]) == -1.0
    row = x[2]
    row += 1.0
    np.testing.assert_array_equal(np.asarray(x)[2], [9.0, 10.0, 11.0, 12.0])


def test_unique_array_is_written_in_place():
    x = xp.zeros(1000)
    before = x._arr.__array_interface__["data"][0]
    x += 1
    x[3] = 5.0
    assert x._arr.__array_interface__["data"][0] == before
    assert float(x[3]) == 5.0 and float(x[0]) == 1.0


def test_small_copies_are_real_at_once(monkeypatch):
    """Below gates.LAZY_COPY_MIN_BYTES a copy is made at once (cheaper than the lazy copy's
    bookkeeping); it is private both ways, as a lazy one is."""
    monkeypatch.setattr(_array, "_LAZY_COPY_MIN", 1 << 14)
    x = xp.arange(8.0)
    c = xp.asarray(x, copy=True)
    assert not np.shares_memory(c._arr, x._arr) and c._buf.storage is None
    c[0] = 5.0
    x[1] = 7.0
    assert np.asarray(x).tolist() == [0.0, 7.0, 2, 3, 4, 5, 6, 7]
    assert np.asarray(c).tolist() == [5.0, 1.0, 2, 3, 4, 5, 6, 7]


def test_copies_are_lazy_and_private():
    x = xp.arange(8.0)
    c = xp.asarray(x, copy=True)
    address = x._arr.__array_interface__["data"][0]
    assert c._arr.__array_interface__["data"][0] == address      # O(1): no copy yet
    cv = c[2:]
    xv = x[1:]
    x[3] = 30.0                                          # the writer moves, views and all
    assert float(c[3]) == 3.0 and float(cv[1]) == 3.0 and float(xv[2]) == 30.0
    assert c._arr.__array_interface__["data"][0] == address      # the copy stays
    assert x._arr.__array_interface__["data"][0] != address
    cv[0] = -2.0                                         # alone on the block: in place
    assert float(c[2]) == -2.0 and float(x[2]) == 2.0
    assert c._arr.__array_interface__["data"][0] == address


def test_a_lazy_copy_written_first_leaves_the_original():
    x = xp.arange(4.0)
    xv = x[1:]
    c = xp.asarray(x, copy=True)
    c[1] = 10.0
    assert float(x[1]) == 1.0 and float(xv[0]) == 1.0 and float(c[1]) == 10.0


def test_broadcast_and_window_views_are_read_only():
    x = xp.arange(4.0)
    b = xp.broadcast_to(x, (2, 4))
    with pytest.raises(ValueError, match="read-only"):
        b[0, 0] = 1.0
    w = xp.nn.unfold(x, 0, 2, 1)
    with pytest.raises(ValueError, match="read-only"):
        w += 1.0
    x[0] = 7.0                       # writes to the base show through both
    assert float(b[1, 0]) == 7.0 and float(w[0, 0]) == 7.0


def test_export_is_writable_and_shares():
    x = xp.arange(5)
    e = np.asarray(x)
    e[0] = 9
    assert int(x[0]) == 9
    x[1] = 8
    assert e[1] == 8


def test_export_of_a_lazy_copy_never_reaches_the_original():
    x = xp.arange(5.0)
    c = xp.asarray(x, copy=True)
    e = np.asarray(c)                # c takes private memory before it is handed out
    e[0] = 99.0
    assert float(x[0]) == 0.0 and float(c[0]) == 99.0
    d = xp.asarray(c, copy=True)     # exported memory: copies of it are real copies
    e[1] = -1.0
    assert float(d[1]) == 1.0


def test_imported_numpy_memory_is_shared_like_numpy():
    a = np.arange(5.0)
    x = xp.asarray(a)
    x[1] = 100.0
    x += 1
    assert a.tolist() == [1.0, 101.0, 3.0, 4.0, 5.0]
    a[0] = -5.0
    assert float(x[0]) == -5.0
    ro = np.arange(3.0)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        xp.asarray(ro)[0] = 1.0


def test_copies_of_foreign_memory_are_snapshots():
    a = np.arange(4.0)
    x = xp.asarray(a)  # shares a
    copies = [xp.asarray(x, copy=True), xp.astype(x, xp.float64),
              xp.reshape(x, (2, 2), copy=True), xp.from_dlpack(x, copy=True),
              xp.asarray(a, copy=True)]
    a[0] = 99.0  # the owner changes its memory: x sees it, the copies must not
    assert float(x[0]) == 99.0
    for c in copies:
        assert float(xp.reshape(c, (-1,))[0]) == 0.0


def test_overlapping_in_place_operands_read_the_old_values():
    x = xp.arange(8.0)
    m = np.arange(8.0)
    x[1:] += x[:-1]
    m[1:] += m[:-1].copy()
    np.testing.assert_array_equal(np.asarray(x), m)
    y = xp.reshape(xp.arange(9.0), (3, 3))
    n = np.arange(9.0).reshape(3, 3)
    y += y.T
    n += n.T.copy()
    np.testing.assert_array_equal(np.asarray(y), n)


@pytest.mark.parametrize("operand", ["row", "scalar", "the original", "its own row",
                                     "its own column"])
@pytest.mark.parametrize("layout", ["C", "transposed"])
def test_first_in_place_write_of_a_lazy_copy_computes_into_its_own_memory(
        monkeypatch, operand, layout):
    """``c -= y`` as the first write to a lazy copy ``c`` spanning its whole block fills
    the fresh block with the result (no copy first): every view of c taken before sees
    the result, the original and other copies keep their values, and operands in the old
    block (the original, c itself) are read before the write, as NumPy reads them."""
    from flexarray import _buffer, _elementwise
    from flexarray._engines import elementwise as engine
    monkeypatch.setattr(_elementwise, "_FAST_MAX", 0)  # (small arrays: the general path)
    monkeypatch.setattr(engine, "FAST_MAX", 0)
    rewrites = []
    move = _buffer._move
    monkeypatch.setattr(_buffer, "_move", lambda b, st, rewrite=None: (
        rewrites.append(rewrite is not None), move(b, st, rewrite)))
    base = np.arange(20.0).reshape(4, 5) ** 1.5
    x = xp.asarray(base, copy=True)
    other = xp.asarray(x, copy=True)
    c = xp.asarray(x, copy=True)
    twin = base.copy()
    if layout == "transposed":
        c, twin = c.T, twin.T
    view, twin_view = c[1:, ::2], twin[1:, ::2]
    y, ny = {"row": (xp.asarray(base[0] if layout == "C" else base[:, 0]),
                     (base[0] if layout == "C" else base[:, 0]).copy()),
             "scalar": (2.5, 2.5),
             "the original": (x.T if layout == "transposed" else x, twin.copy()),
             "its own row": (c[1], twin[1].copy()),
             "its own column": (c[:, :1], twin[:, :1].copy())}[operand]
    c -= y
    twin -= ny
    assert rewrites == [True]
    np.testing.assert_array_equal(np.asarray(c), twin)
    np.testing.assert_array_equal(np.asarray(view), twin_view)
    np.testing.assert_array_equal(np.asarray(x), base)
    np.testing.assert_array_equal(np.asarray(other), base)


def test_a_first_write_that_fails_leaves_the_copy_private(monkeypatch):
    """If the computation of a lazy copy's first write raises (out of memory, ...), the
    copy still reads its own values: later writes to the original never reach it."""
    from flexarray import _elementwise
    from flexarray._engines import elementwise as engine
    monkeypatch.setattr(_elementwise, "_FAST_MAX", 0)
    monkeypatch.setattr(engine, "FAST_MAX", 0)
    base = np.arange(12.0).reshape(3, 4)
    x = xp.asarray(base, copy=True)
    c = xp.asarray(x, copy=True)
    compute = _elementwise._compute

    def fails(*args, **kwargs):
        raise MemoryError("test: no memory for the result")
    monkeypatch.setattr(_elementwise, "_compute", fails)
    with pytest.raises(MemoryError):
        c -= 1.0
    monkeypatch.setattr(_elementwise, "_compute", compute)
    x += 1.0
    np.testing.assert_array_equal(np.asarray(c), base)
    c -= 1.0
    np.testing.assert_array_equal(np.asarray(c), base - 1.0)
    np.testing.assert_array_equal(np.asarray(x), base + 1.0)


def test_in_place_writes_to_part_of_a_lazy_copy_or_to_its_original_copy_first(monkeypatch):
    """Writes that do not give the whole block new values take the copy first."""
    from flexarray import _elementwise
    from flexarray._engines import elementwise as engine
    monkeypatch.setattr(_elementwise, "_FAST_MAX", 0)
    monkeypatch.setattr(engine, "FAST_MAX", 0)
    base = np.arange(12.0).reshape(3, 4)
    x = xp.asarray(base, copy=True)
    c = xp.asarray(x, copy=True)
    part = c[1:]
    part -= 1.0                         # part of the copy: the rest keeps its values
    expected = base.copy()
    expected[1:] -= 1.0
    np.testing.assert_array_equal(np.asarray(c), expected)
    d = xp.asarray(x, copy=True)
    x *= 2.0                            # the original written: its copy moves away
    np.testing.assert_array_equal(np.asarray(x), base * 2.0)
    np.testing.assert_array_equal(np.asarray(d), base)
    f = xp.asarray(xp.asarray(base.astype(np.float32), copy=True), copy=True)
    f += xp.asarray(base)               # a float64 operand: computed, cast back into f
    np.testing.assert_array_equal(np.asarray(f), (base * 2).astype(np.float32))


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
    assert ((i * 2) / 2).dtype == xp.float64  # int / int: a float result, not in place
    u = x * y
    view = u[::2]                   # a temporary with a live view is never reused
    s = u + z
    np.testing.assert_array_equal(np.asarray(view), (a * b)[::2])
    c2 = xp.asarray(x * y, copy=True)
    np.testing.assert_array_equal(np.asarray(s), a * b + c)
    np.testing.assert_array_equal(np.asarray(c2), a * b)


def test_copy_of_a_broadcast_is_laid_out_as_numpys_so_reshapes_share_as_numpys():
    """Found by the random programs, twice: a copy of a broadcast is laid out as NumPy's
    ``np.asarray(m, copy=True)`` (order "K": the zero-stride axis innermost), so its flat
    reshape is a copy exactly where NumPy's is, and a write through it reaches the copy
    exactly where NumPy's does (a C-contiguous copy, tried once, matched ``m.copy()``
    instead, and its reshape shared where NumPy's asarray copy does not)."""
    m = np.array([35.0, 13.0])
    for make, twin_of in ((lambda x: xp.asarray(x, copy=True), lambda t: np.asarray(t, copy=True)),
                          (lambda x: xp.astype(x, x.dtype), lambda t: t.astype(t.dtype))):
        c = make(xp.broadcast_to(xp.asarray(m), (2, 2)))
        twin = twin_of(np.broadcast_to(m, (2, 2)))
        r, tr = xp.reshape(c, (-1,)), twin.reshape(-1)
        assert np.shares_memory(r._arr, c._arr) == np.shares_memory(tr, twin)
        r += 1
        tr += 1
        np.testing.assert_array_equal(np.asarray(c), twin)
        np.testing.assert_array_equal(np.asarray(r), tr)
        np.testing.assert_array_equal(m, [35.0, 13.0])  # the copy never reaches the original


@pytest.mark.parametrize("make", ["asarray", "astype", "dlpack", "reshape", "sort", "import"])
@pytest.mark.parametrize("layout", ["transposed", "stepped"])
def test_copies_and_sorts_have_numpys_layout(make, layout):
    """A copy (or sort) is laid out as NumPy's (order "K"; reshape(copy=True) C), so a later
    reshape of it is a view exactly where NumPy's is: a write through the reshape reaches
    the copy in both or in neither (found by test_view_model: transpose, copy, reshape)."""
    base = np.arange(24.0).reshape(4, 6)
    m = base.T if layout == "transposed" else base[:, ::2]
    x = xp.asarray(base, copy=True)
    x = x.T if layout == "transposed" else x[:, ::2]
    c, mc = {
        "asarray": lambda: (xp.asarray(x, copy=True), np.asarray(m, copy=True)),
        "astype": lambda: (xp.astype(x, x.dtype), m.astype(m.dtype)),
        "dlpack": lambda: (xp.from_dlpack(x, copy=True), np.array(m, copy=True)),
        "reshape": lambda: (xp.reshape(x, m.shape, copy=True), np.reshape(m, m.shape, copy=True)),
        "sort": lambda: (xp.sort(x, axis=-1), np.sort(m, axis=-1)),
        "import": lambda: (xp.asarray(np.array(m), copy=True), np.asarray(np.array(m), copy=True)),
    }[make]()
    r, mr = xp.reshape(c, (-1,)), mc.reshape(-1)
    r += 1
    mr += 1
    np.testing.assert_array_equal(np.asarray(c), mc)
