"""flexarray arrays as arguments of a user's Numba-compiled functions (flexarray/_numba_ext.py,
registered through Numba's ``numba_extensions`` entry point): each function runs on
flexarray arrays and on NumPy arrays of the same values, and the results, the writes and
the errors must agree; writes reach views and the base, never a lazy copy's source."""
import importlib.metadata
import pickle
import subprocess
import sys

import numpy as np
import pytest

import flexarray as xp

numba = pytest.importorskip("numba")
from numba import guvectorize, njit, prange, vectorize  # noqa: E402
from numba.core.errors import TypingError  # noqa: E402

from helpers.lazy import lazy_small_copies  # noqa: E402,F401  (copies lazy from 0 bytes)

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float32", "float64", "complex64", "complex128"]


@njit
def total(a):
    s = 0.0 * a.flat[0] if a.size else 0.0 * a.sum()
    for v in a.flat:
        s += v
    return s


@njit
def bump(a):
    """a[i] += 1 along the first axis (dtype-preserving), every element."""
    for idx in np.ndindex(a.shape):
        a[idx] = a[idx] + 1


@njit
def identity(a):
    return a


@njit
def write_first(a, v):
    a.flat[0] = v


def values(dtype, shape=(3, 4)):
    n = int(np.prod(shape))
    return (np.arange(n) % 7 + 1).astype(dtype).reshape(shape)


def test_entry_point_and_no_numba_at_import():
    eps = importlib.metadata.entry_points(group="numba_extensions", name="init")
    assert [e.value for e in eps if e.value.startswith("flexarray")] == \
        ["flexarray._numba_ext:init"]
    out = subprocess.run([sys.executable, "-c", "import flexarray, sys; "
                          "print('numba' in sys.modules)"],
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == "False"


@njit
def total_then_write(a, b):
    """The sum of a's elements, then b's values written into a."""
    s = 0.0
    for v in a.flat:
        s += v
    for idx in np.ndindex(a.shape):
        a[idx] = b[idx]
    return s


@pytest.mark.parametrize("dtype", DTYPES)
def test_reads_and_writes_every_dtype_as_numpy(dtype):
    """One compile per dtype: the reference is the same function run by Python on the
    NumPy array (sums of small integers: exact either way)."""
    a = values(dtype)
    b = a[::-1, ::-1] == a if dtype == "bool" else a[::-1, ::-1] * 3
    x = xp.asarray(a.copy())
    assert total_then_write(x, b) == total_then_write.py_func(a, b)
    np.testing.assert_array_equal(np.asarray(x), b, strict=True)
    np.testing.assert_array_equal(a, b, strict=True)


def test_the_type_is_numpy_arrays_type_under_flexarrays_name():
    x = xp.reshape(xp.arange(12.0), (3, 4))
    t = numba.typeof(x)
    np_t = numba.typeof(np.asarray(x))
    assert isinstance(t, numba.types.Array)
    assert (t.dtype, t.ndim, t.layout, t.mutable) == (np_t.dtype, np_t.ndim, np_t.layout, True)
    assert str(t) == "flexarray.Array(float64, 2d, C)"
    assert numba.typeof(x.T).layout == "F" and numba.typeof(x[:, ::2]).layout == "A"
    assert pickle.loads(pickle.dumps(t)) == t  # (cache=True functions pickle their types)


@pytest.mark.parametrize("view", [lambda m, b: b[1:, ::2], lambda m, b: b.T,
                                  lambda m, b: m.flip(b, axis=1), lambda m, b: b[2],
                                  lambda m, b: m.reshape(b, (12,))])
def test_writes_through_a_view_reach_the_base(view):
    base = xp.reshape(xp.arange(12.0), (3, 4))
    ref = np.arange(12.0).reshape(3, 4)
    v, rv = view(xp, base), view(np, ref)
    bump(v)
    bump(rv)
    np.testing.assert_array_equal(np.asarray(base), ref)
    assert total(v) == total(rv)


def test_a_write_never_reaches_a_lazy_copy_or_its_source():
    x = xp.reshape(xp.arange(12.0), (3, 4))
    c1 = xp.asarray(x, copy=True)
    c2 = xp.asarray(x, copy=True)
    bump(c1)  # the copy written: its source and the other copy keep their values
    np.testing.assert_array_equal(np.asarray(x), np.arange(12.0).reshape(3, 4))
    np.testing.assert_array_equal(np.asarray(c2), np.arange(12.0).reshape(3, 4))
    np.testing.assert_array_equal(np.asarray(c1), np.arange(12.0).reshape(3, 4) + 1)
    c3 = xp.asarray(x, copy=True)
    write_first(x, -5.0)  # the source written: its copies keep theirs
    assert float(c3[0, 0]) == 0.0 and float(x[0, 0]) == -5.0
    assert float(c2[0, 0]) == 0.0
    view_of_copy = c2[1:]
    bump(view_of_copy)  # a view of a copy: the copy sees it, the source does not
    assert float(c2[1, 0]) == 5.0 and float(x[1, 0]) == 4.0


def test_a_returned_argument_is_a_numpy_view_of_its_memory():
    x = xp.arange(5.0)
    r = identity(x)
    assert type(r) is np.ndarray
    r[0] = 42.0  # (the exported memory: x sees it, as with np.asarray(x))
    assert float(x[0]) == 42.0
    y = xp.reshape(xp.arange(6.0), (2, 3)).T
    np.testing.assert_array_equal(identity(y), np.arange(6.0).reshape(2, 3).T)


@njit
def make_new(a):
    return a * 2 + 1, a[::-1].copy(), a.sum()


def test_new_arrays_come_back_as_numpy_arrays():
    a = np.arange(6.0).reshape(2, 3)
    got, want = make_new(xp.asarray(a)), make_new(a)
    for g, w in zip(got, want):
        assert type(g) is type(w)
        np.testing.assert_array_equal(g, w)


def test_read_only_arrays_arrive_read_only():
    @njit
    def read(a):
        return a.sum()

    @njit
    def write(a):
        a[0] = 1.0

    b = xp.broadcast_to(xp.asarray([1.0, 2.0]), (3, 2))
    w = xp.lib.stride_tricks.sliding_window_view(xp.arange(6.0), 3)
    u = xp.nn.unfold(xp.arange(6.0), 0, 3)
    for x, ref in ((b, np.broadcast_to(np.array([1.0, 2.0]), (3, 2))),
                   (w, np.lib.stride_tricks.sliding_window_view(np.arange(6.0), 3)),
                   (u, np.lib.stride_tricks.sliding_window_view(np.arange(6.0), 3))):
        assert not numba.typeof(x).mutable
        assert read(x) == read(ref)
        with pytest.raises(TypingError, match="setitem.*readonly") as e_fx:
            write(x)
        with pytest.raises(TypingError, match="setitem.*readonly"):
            write(ref)  # (NumPy's read-only arrays: the same refusal)
        assert "flexarray.Array(readonly float64" in str(e_fx.value)


def test_float16_as_numba_takes_numpy_float16():
    """Numba (0.68) types float16 arrays but compiles no CPU function taking one (its data
    model has no float16): the same error as for NumPy's float16; a uint16 view works."""
    @njit
    def bits(a):
        return a.shape[0], a.copy()

    a = np.array([1.5, -2.0, 65504.0], np.float16)
    x = xp.asarray(a)
    assert numba.typeof(x).dtype == numba.typeof(a).dtype
    with pytest.raises(NotImplementedError) as e_np:
        bits(a)
    with pytest.raises(NotImplementedError) as e_fx:
        bits(x)
    assert str(e_fx.value) == str(e_np.value) == "float16"
    n, got = bits(x.view(xp.uint16))
    assert n == 3
    np.testing.assert_array_equal(got, a.view(np.uint16))


def test_bfloat16_is_a_clear_type_error():
    x = xp.ones((2, 3), dtype=xp.bfloat16)
    with pytest.raises(TypeError, match=r"bfloat16.*astype\(flexarray\.float32\)"):
        total(x)
    assert total(x.astype(xp.float32)) == 6.0


def test_mixed_flexarray_and_numpy_arguments_zero_d_and_empty():
    @njit
    def axpy(alpha, x, y):
        for i in range(x.shape[0]):
            y[i] += alpha[()] * x[i]

    x, y = np.arange(4.0), np.ones(4)
    fx, fy = xp.asarray(x), xp.asarray(y.copy())
    axpy(np.array(2.0), fx, fy)
    axpy(xp.asarray(2.0), x, y)
    np.testing.assert_array_equal(np.asarray(fy), y)
    e = xp.zeros((0, 3))
    assert total(e) == 0.0 and identity(e).shape == (0, 3)


@njit(parallel=True)
def parallel_work(a, out):
    s = 0.0
    for i in prange(a.shape[0]):
        row = 0.0
        for j in range(a.shape[1]):
            row += a[i, j] * a[i, j]
        out[i] = np.sqrt(row)
        s += row
    return s, np.exp(a) + a.T.T


def test_parallel_njit_as_numpy():
    a = np.random.default_rng(0).standard_normal((300, 40))
    x = xp.asarray(a)
    out_fx, out_np = xp.zeros(300), np.zeros(300)
    s_fx, e_fx = parallel_work(x, out_fx)
    s_np, e_np = parallel_work(a, out_np)
    assert s_fx == pytest.approx(s_np, rel=1e-12)
    np.testing.assert_array_equal(np.asarray(out_fx), out_np)
    np.testing.assert_array_equal(e_fx, e_np)


@vectorize(["float64(float64, float64)", "int64(int64, int64)"])
def fused(a, b):
    return a * b + a


@vectorize
def fused_dynamic(a, b):
    return a - 2 * b


@guvectorize(["void(float64[:], float64[:])"], "(n)->()")
def norm1(a, out):
    s = 0.0
    for v in a:
        s += abs(v)
    out[0] = s


@guvectorize("(n)->(n)")
def running(a, out):
    s = a[0] - a[0]
    for i in range(a.shape[0]):
        s += a[i]
        out[i] = s


@pytest.mark.parametrize("func", [fused, fused_dynamic])
def test_vectorize_as_numpy(func):
    a = np.arange(12.0).reshape(3, 4) - 5
    b = np.linspace(-1, 1, 4)
    x = xp.asarray(a)
    got = func(x, xp.asarray(b))
    assert isinstance(got, xp.Array)
    np.testing.assert_array_equal(np.asarray(got), func(a, b))
    ia = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(np.asarray(func(xp.asarray(ia), 3)), func(ia, 3))
    out = xp.zeros((3, 4))
    assert func(x, xp.asarray(b), out=out) is out
    np.testing.assert_array_equal(np.asarray(out), func(a, b))


def test_guvectorize_as_numpy():
    a = np.arange(12.0).reshape(3, 4) - 5
    x = xp.asarray(a)
    got = norm1(x)
    assert isinstance(got, xp.Array)
    np.testing.assert_array_equal(np.asarray(got), norm1(a))
    np.testing.assert_array_equal(np.asarray(norm1(x.T)), norm1(a.T))  # strided core axis
    out_fx, out_np = xp.zeros((3, 4)), np.zeros((3, 4))
    running(x, out_fx)
    running(a, out_np)
    np.testing.assert_array_equal(np.asarray(out_fx), out_np)
    c = xp.asarray(out_fx, copy=True)
    running(x, out_fx)  # writing an out array with a lazy copy: the copy keeps its values
    np.testing.assert_array_equal(np.asarray(c), out_np)
