"""Every elementwise function against NumPy over random dtypes, shapes and layouts."""
import math
import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra import numpy as hnp

import flexarray as xp
from helpers.strategies import std_kind, DTYPES, KINDS, layouts, np_values, shapes, to_np
from helpers.threads import run_threads


def _floor_divide(a, b):
    """The standard's floor_divide: an infinity beside a finite number divides exactly."""
    r = np.floor_divide(a, b)
    if std_kind(r.dtype) == "f":
        r = np.where(np.isinf(a) != np.isinf(b), np.true_divide(a, b), r)
    return r


# name: (NumPy reference, allowed dtype kinds)
FLOAT, NUM, REAL = ["float", "complex"], ["int", "float", "complex"], ["int", "float"]
UNARY = {
    "abs": (np.abs, NUM), "acos": (np.arccos, FLOAT), "acosh": (np.arccosh, FLOAT),
    "asin": (np.arcsin, FLOAT), "asinh": (np.arcsinh, FLOAT), "atan": (np.arctan, FLOAT),
    "atanh": (np.arctanh, FLOAT), "bitwise_invert": (np.invert, ["int", "bool"]),
    "ceil": (np.ceil, REAL), "conj": (np.conj, NUM), "cos": (np.cos, FLOAT),
    "cosh": (np.cosh, FLOAT), "exp": (np.exp, FLOAT), "expm1": (np.expm1, ["float"]),
    "floor": (np.floor, REAL), "imag": (np.imag, ["complex"]),
    "isfinite": (np.isfinite, NUM), "isinf": (np.isinf, NUM), "isnan": (np.isnan, NUM),
    "log": (np.log, FLOAT), "log1p": (np.log1p, FLOAT), "log2": (np.log2, FLOAT),
    "log10": (np.log10, FLOAT), "logical_not": (np.logical_not, ["bool"]),
    "negative": (np.negative, NUM), "positive": (np.positive, NUM),
    "real": (np.real, NUM), "reciprocal": (np.reciprocal, FLOAT),
    "round": (np.round, NUM), "sign": (np.sign, REAL), "signbit": (np.signbit, ["float"]),
    "sin": (np.sin, FLOAT), "sinh": (np.sinh, FLOAT), "square": (np.square, NUM),
    "sqrt": (np.sqrt, FLOAT), "tan": (np.tan, FLOAT), "tanh": (np.tanh, FLOAT),
    "trunc": (np.trunc, REAL),
}
BINARY = {
    "add": (np.add, NUM), "atan2": (np.arctan2, ["float"]),
    "bitwise_and": (np.bitwise_and, ["int", "bool"]),
    "bitwise_or": (np.bitwise_or, ["int", "bool"]),
    "bitwise_xor": (np.bitwise_xor, ["int", "bool"]),
    "bitwise_left_shift": (np.left_shift, ["int"]),
    "bitwise_right_shift": (np.right_shift, ["int"]),
    "copysign": (np.copysign, ["float"]), "divide": (np.true_divide, FLOAT),
    "equal": (np.equal, NUM + ["bool"]), "floor_divide": (_floor_divide, REAL),
    "greater": (np.greater, REAL), "greater_equal": (np.greater_equal, REAL),
    "hypot": (np.hypot, ["float"]), "less": (np.less, REAL),
    "less_equal": (np.less_equal, REAL), "logaddexp": (np.logaddexp, ["float"]),
    "logical_and": (np.logical_and, ["bool"]), "logical_or": (np.logical_or, ["bool"]),
    "logical_xor": (np.logical_xor, ["bool"]), "maximum": (np.maximum, REAL),
    "minimum": (np.minimum, REAL), "multiply": (np.multiply, NUM),
    "nextafter": (np.nextafter, ["float"]), "not_equal": (np.not_equal, NUM + ["bool"]),
    "pow": (np.power, FLOAT), "remainder": (np.remainder, REAL),
    "subtract": (np.subtract, NUM),
}
HALF = (np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))


def reference(func, *arrays):
    """NumPy's result; half floats computed in float32 and rounded once, but nextafter in
    their own precision (NumPy's float16 loop, ml_dtypes' bfloat16 one)."""
    dt = np.result_type(*arrays) if len(arrays) > 1 else arrays[0].dtype
    if dt in HALF and func is np.nextafter:
        return func(*(a.astype(dt) for a in arrays))
    if dt in HALF:
        r = func(*(a.astype(np.float32) for a in arrays))
        return r.astype(dt) if std_kind(r.dtype) == "f" else r
    return func(*arrays)


def assert_same(actual, expected, tol_ulps=0):
    assert actual.shape == expected.shape
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    if actual.dtype in HALF:  # NumPy's comparison does not know bfloat16's NaN
        actual, expected = actual.astype(np.float32), expected.astype(np.float32)
    if std_kind(actual.dtype) in "fc":  # SIMD and scalar loops of NumPy differ by an ulp
        eps = np.finfo(actual.dtype).eps if tol_ulps else 0
        np.testing.assert_allclose(actual, expected, rtol=tol_ulps * eps, atol=0)
    else:
        np.testing.assert_array_equal(actual, expected)


def dtype_names(kinds):
    return st.sampled_from([n for k in kinds for n in KINDS[k]])


@pytest.mark.parametrize("name", sorted(UNARY))
@settings(max_examples=25, deadline=None)
@given(data=st.data(), shape=shapes, seed=st.integers(0, 2**32 - 1))
def test_unary(name, data, shape, seed):
    ref, kinds = UNARY[name]
    dname = data.draw(dtype_names(kinds))
    v = np_values(DTYPES[dname][1], shape, np.random.default_rng(seed))
    x = data.draw(layouts(v))
    with np.errstate(all="ignore"):
        expected = reference(ref, v)
    assert_same(to_np(getattr(xp, name)(x)), np.asarray(expected), tol_ulps=4)


@pytest.mark.parametrize("name", sorted(BINARY))
@settings(max_examples=25, deadline=None)
@given(data=st.data(), shape=shapes, seed=st.integers(0, 2**32 - 1))
def test_binary_broadcasting(name, data, shape, seed):
    ref, kinds = BINARY[name]
    kind = data.draw(st.sampled_from(kinds))
    d1, d2 = data.draw(dtype_names([kind])), data.draw(dtype_names([kind]))
    if {d1, d2} == {"float16", "bfloat16"} or (
            "uint64" in (d1, d2) and {d1, d2} & {"int8", "int16", "int32", "int64"}):
        d2 = d1  # no dtype holds both: covered by test_bad_operands
    if name == "pow" and kind == "int":
        return
    # x2 takes a suffix of x1's shape, with some axes set to 1: broadcasting both ways
    k = data.draw(st.integers(0, len(shape)))
    shape2 = tuple(n if data.draw(st.booleans()) else 1 for n in shape[k:])
    rng = np.random.default_rng(seed)
    v1, v2 = np_values(DTYPES[d1][1], shape, rng), np_values(DTYPES[d2][1], shape2, rng)
    if name in ("bitwise_left_shift", "bitwise_right_shift"):
        v2 = np.abs(v2.astype(np.int64)).astype(v2.dtype) % 8
    if kind == "int" and name in ("floor_divide", "remainder"):
        v2 = np.where(v2 == 0, 1, v2).astype(v2.dtype)
    x1, x2 = data.draw(layouts(v1)), data.draw(layouts(v2))
    with np.errstate(all="ignore"):
        expected = np.asarray(reference(ref, v1, v2))
    assert_same(to_np(getattr(xp, name)(x1, x2)), expected, tol_ulps=4)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "pow", "maximum",
                                  "equal", "less", "remainder", "floor_divide", "atan2"])
@pytest.mark.parametrize("dname", ["int16", "float32", "float64", "complex64", "uint8"])
@pytest.mark.parametrize("scalar", [3, -2.5, True, 2j])
def test_python_scalar_operands(name, dname, scalar):
    """A scalar adopts the array's dtype where its kind fits, else NumPy 2's weak rule."""
    ref, kinds = BINARY[name]
    v = np_values(DTYPES[dname][1], (4,), np.random.default_rng(0), special=False)
    x = xp.asarray(v)
    promoted = np.result_type(v.dtype, scalar)  # NEP 50: the scalar is weak
    kind = {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}[std_kind(promoted)]
    if name in ("divide", "pow"):
        kinds = kinds + ["int"]
    if kind not in kinds:
        with pytest.raises(TypeError, match=name):
            getattr(xp, name)(x, scalar)
        return
    if name == "pow" and kind == "int":
        return  # integer powers: covered with non-negative exponents elsewhere
    with np.errstate(all="ignore"):
        expected = np.asarray(ref(v, scalar))
        expected_r = np.asarray(ref(scalar, v))
    assert_same(to_np(getattr(xp, name)(x, scalar)), expected)
    assert_same(to_np(getattr(xp, name)(scalar, x)), expected_r)


def test_large_arrays_run_in_chunks_and_match():
    """Outputs above the threading threshold are split across threads: same values."""
    n = 3 * (1 << 20) + 7
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal(n), rng.standard_normal((1,))
    x, y = xp.asarray(a), xp.asarray(b)
    assert_same(to_np(xp.exp(x)), np.exp(a))
    assert_same(to_np(x * y + x), a * b + a)
    m = rng.standard_normal((3, n // 3 + 1)).astype(np.float32)
    assert_same(to_np(xp.sin(xp.asarray(m).T)), np.sin(m.T))
    z = xp.asarray(a.copy(), copy=True)
    z += y
    assert_same(to_np(z), a + b)


def test_floor_divide_special_cases_follow_the_standard():
    inf = math.inf
    x1 = xp.asarray([inf, inf, -inf, 5.0, 5.0, -5.0, -5.0, inf, 0.0])
    x2 = xp.asarray([2.0, -2.0, 2.0, inf, -inf, inf, -inf, inf, 3.0])
    r = to_np(xp.floor_divide(x1, x2))
    expected = [inf, -inf, -inf, 0.0, -0.0, -0.0, 0.0, math.nan, 0.0]
    np.testing.assert_array_equal(r, expected)
    assert list(np.signbit(r[3:7])) == [False, True, True, False]


def test_clip_against_numpy():
    v = np.array([-5, 0, 3, 9, 120], np.int8)
    x = xp.asarray(v)
    assert_same(to_np(xp.clip(x, 0, 5)), np.clip(v, 0, 5))
    assert_same(to_np(xp.clip(x, -1000, 1000)), v)
    f = np.array([np.nan, -1.0, 2.0, 7.0])
    assert_same(to_np(xp.clip(xp.asarray(f), min=xp.asarray([0.0]), max=3.0)),
                np.clip(f, 0.0, 3.0))
    b = np.array([[0.0], [2.0]])
    assert_same(to_np(xp.clip(xp.asarray(f), min=xp.asarray(b))), np.clip(f, b, None))
    with pytest.raises(ValueError, match="clip: 'min' of shape \\(2,\\) does not broadcast"):
        xp.clip(xp.asarray([1.0, 2.0, 3.0]), min=xp.asarray([0.0, 1.0]))


@pytest.mark.parametrize("lo,hi", [(None, math.inf), (0.5, None), (-math.inf, 2.5),
                                   (1.5, 3.5), (-1e300, 1e300), (math.inf, None),
                                   (None, -math.inf), (-2**70, 2**70)])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int64, np.uint64])
def test_clip_of_integers_by_python_floats_is_exact(dtype, lo, hi):
    """A float bound clamps an integer x to the nearest integer inside [lo, hi] (saturated
    to x's range), exactly: no round trip through float64 for the large int64/uint64."""
    info = np.iinfo(dtype)
    v = np.array([info.min, info.min + 1, 0, 1, 2, 3, 4, info.max - 1, info.max], dtype)

    def clamp(i):  # a plain loop over Python ints: the reference
        if lo is not None:
            i = max(i, min(max(math.ceil(lo) if math.isfinite(lo) else
                               (info.max if lo > 0 else info.min), info.min), info.max))
        if hi is not None:
            i = min(i, max(min(math.floor(hi) if math.isfinite(hi) else
                               (info.max if hi > 0 else info.min), info.max), info.min))
        return i
    r = xp.clip(xp.asarray(v), min=lo, max=hi)
    assert r.dtype == xp.asarray(v).dtype
    assert [int(i) for i in to_np(r)] == [clamp(int(i)) for i in v]


def test_clip_of_integers_rejects_float_arrays_and_nan():
    x = xp.asarray(np.array([1, 2], np.int64))
    with pytest.raises(TypeError, match="clip: 'max' must have an integral dtype, got float64; "
                                        "allowed: int8, .*; x is int64"):
        xp.clip(x, max=xp.asarray([2.5]))
    with pytest.raises(ValueError, match="clip: 'min' is NaN"):
        xp.clip(x, min=math.nan)


@pytest.mark.parametrize("dtype,exponent", [
    (np.float64, 0.5 + 0j), (np.float64, 2 + 0j), (np.float64, -1 + 0j),
    (np.float32, 0.5 + 0j), (np.float16, 0.5 + 0j), (np.int8, 2.0), (np.int16, 2.0),
    (np.float64, 2), (np.float32, 0.5), (np.float64, -1.0), (np.int64, 2)])
def test_pow_by_a_python_scalar_promotes_as_numpy(dtype, exponent):
    """``x ** s`` takes NumPy's weak-scalar promotion, also for the exponents computed
    another way (2: square, -1: reciprocal, 0.5: sqrt): a complex or float exponent that
    changes the dtype changes the computation too."""
    v = np.array([-4.0, -0.0, 0.0, 2.0, 100.0]).astype(dtype)
    expected = np.power(v, exponent)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for r in (xp.pow(xp.asarray(v), exponent), xp.asarray(v) ** exponent):
            r = to_np(r)
            assert r.dtype == expected.dtype
            if exponent == 0.5:  # the standard's pow(-0, 0.5) = +0 (NumPy's sqrt: -0)
                expected = np.where(v == 0, 0.0, expected).astype(expected.dtype)
            np.testing.assert_allclose(r, expected, rtol=1e-3 if dtype == np.float16 else
                                       1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float16, ml_dtypes.bfloat16])
def test_nextafter_of_half_floats_steps_in_their_own_precision(dtype):
    """NumPy's float16 loop and ml_dtypes' bfloat16 loop are the reference (a float32
    neighbour rounded back is the input itself)."""
    a = np.array([1.0, 0.0, -1.0, 3.0, 1.0], dtype)
    b = np.array([2.0, 1.0, -2.0, 0.0, 1.0], dtype)
    r = to_np(xp.nextafter(xp.asarray(a), xp.asarray(b)))
    assert r.dtype == dtype
    np.testing.assert_array_equal(r.view(np.uint16), np.nextafter(a, b).view(np.uint16))
    assert (r[:4] != a[:4]).all()


@pytest.mark.parametrize("name,arg,pattern", [
    ("exp", xp.asarray([1, 2]), "exp: 'x' must have a floating-point dtype, got int64; "
     "allowed: float16, bfloat16, float32, float64, complex64, complex128"),
    ("bitwise_and", xp.asarray([1.0]), "'x1' and 'x2' must have an integral or bool dtype"),
    ("less", xp.asarray([1j]), "real numeric dtype"),
])
def test_wrong_dtype_is_a_type_error_naming_the_function(name, arg, pattern):
    with pytest.raises(TypeError, match=pattern):
        f = getattr(xp, name)
        f(arg) if name in UNARY else f(arg, arg)


def test_bad_operands():
    x = xp.asarray([1, 2])
    with pytest.raises(TypeError, match="add: 'x2' must be a flexarray array or a Python"):
        xp.add(x, [1, 2])
    with pytest.raises(TypeError, match="at least one of 'x1', 'x2'"):
        xp.add(1, 2)
    with pytest.raises(TypeError, match="no type promotion between"):
        xp.asarray([1], dtype=xp.int64) + xp.asarray([1], dtype=xp.uint64)
    with pytest.raises(OverflowError, match="out of range for int8"):
        xp.asarray([1], dtype=xp.int8) + 1000
    with pytest.raises(TypeError, match="unsupported operand"):
        x + "a"


def test_logical_functions_take_any_dtype_by_truthiness():
    """As NumPy's (and torch's): nonzero is True, for every dtype (NaN is True)."""
    a = np.array([0.0, -0.0, 1.5, np.nan, 0.0])
    b = np.array([0, 3, 0, 0, -1], dtype=np.int16)
    xa, xb = xp.asarray(a, copy=True), xp.asarray(b, copy=True)
    for name in ("logical_and", "logical_or", "logical_xor"):
        r = getattr(xp, name)(xa, xb)
        assert r.dtype == xp.bool
        np.testing.assert_array_equal(np.asarray(r), getattr(np, name)(a, b))
    np.testing.assert_array_equal(np.asarray(xp.logical_not(xa)), np.logical_not(a))


@pytest.mark.parametrize("decimals", [-2, -1, 0, 1, 3])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "complex128"])
def test_round_with_decimals_as_numpy(decimals, dtype):
    v = (np.array([1.2345, -2.5, 1234.5, 0.125, -0.0, 99.95, 1250.0]) *
         (1 + 1j if dtype == "complex128" else 1)).astype(dtype)
    r = xp.round(xp.asarray(v, copy=True), decimals=decimals)
    ref = np.round(v, decimals)
    assert np.asarray(r).dtype == ref.dtype
    np.testing.assert_array_equal(np.asarray(r), ref)


@pytest.mark.parametrize("dtype", [xp.complex64, xp.complex128])
def test_expm1_of_complex_zeros_follows_the_standard(dtype):
    """expm1(+-0 + 0j) is +0 + 0j (NumPy keeps a -0 real part); conjugates mirror it."""
    z = np.array([complex(0.0, 0.0), complex(-0.0, 0.0), complex(-0.0, -0.0),
                  complex(0.0, -0.0)])
    r = np.asarray(xp.expm1(xp.asarray(z, dtype=dtype)))
    assert not np.signbit(r.real).any()
    np.testing.assert_array_equal(np.signbit(r.imag), np.signbit(z.imag))
    assert (r == 0).all()


@pytest.mark.parametrize("name", ["add", "multiply"])
@given(a=hnp.arrays(np.bool_, st.integers(0, 6)), b=st.booleans())
@settings(max_examples=30, deadline=None)
def test_add_and_multiply_of_bools_are_numpys_logical_or_and(name, a, b):
    """NumPy and torch take bool + bool (or) and bool * bool (and); SciPy calls it."""
    f, ref = getattr(xp, name), getattr(np, name)
    np.testing.assert_array_equal(to_np(f(xp.asarray(a), xp.asarray(a[::-1]))),
                                  ref(a, a[::-1]))
    r = f(xp.asarray(a), b)
    assert r.dtype == xp.bool
    np.testing.assert_array_equal(to_np(r), ref(a, b))


def test_subtract_of_bools_stays_refused():
    b = xp.asarray([True, False])
    with pytest.raises(TypeError, match="subtract: 'x1' and 'x2' must have a numeric dtype"):
        xp.subtract(b, b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "pow", "maximum",
                                  "floor_divide", "remainder", "less", "equal", "atan2"])
@pytest.mark.parametrize("scalar", [2.0, 2, -3])
def test_small_arrays_with_python_floats_follow_the_standard_dtype(name, dtype, scalar):
    """The fast path (a float array and a Python float or int): the array's dtype is kept,
    as the standard's scalar rule says, and the values are NumPy's (both operand orders)."""
    a = np.array([1.5, -2.0, 0.0, np.inf, -np.inf, np.nan, 3.0], dtype)
    x = xp.asarray(a)
    f = getattr(xp, name)
    ref = {"pow": np.power}.get(name, getattr(np, name, None))
    with np.errstate(all="ignore"):
        pairs = [(f(x, scalar), ref(a, dtype(scalar))), (f(scalar, x), ref(dtype(scalar), a))]
    if name == "floor_divide":  # flexarray mends NumPy's infinities (the standard's cases):
        # the reference is the same function with the scalar as an array
        pairs = [(f(x, scalar), to_np(f(x, xp.full_like(x, scalar)))),
                 (f(scalar, x), to_np(f(xp.full_like(x, scalar), x)))]
    for got, expected in pairs:
        assert to_np(got).dtype == expected.dtype
        np.testing.assert_array_equal(to_np(got), expected)


def test_large_operands_that_do_not_broadcast_raise_valueerror():
    """The engine computes large results' shapes itself (no np.broadcast_shapes): shapes
    that do not broadcast still raise ValueError naming the function, never a huge
    allocation."""
    a = xp.ones((600_000,))
    b = xp.ones((600_000, 3))
    with pytest.raises(ValueError, match="add: the shapes"):
        xp.add(a, b)
    with pytest.raises(ValueError, match="multiply: the shapes"):
        xp.ones((700, 1000)) * xp.ones((1000, 700))


def _c_pow(t, e):
    """C's pow (math.pow) with its IEEE results where Python raises instead."""
    try:
        return math.pow(t, e)
    except OverflowError:
        return math.copysign(math.inf, t) if e == -1 else math.inf
    except (ValueError, ZeroDivisionError):
        return math.copysign(math.inf, t) if e == -1 and t == 0 else math.nan


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("e", [0.5, -1, 2])
def test_pow_with_cheaper_exact_forms_keeps_pows_special_cases(dtype, e):
    """x ** 0.5, x ** -1 and x ** 2 (computed as a mended sqrt, a reciprocal, a square)
    give C pow's values, signed zeros and infinities included (pow(-0, 0.5) = +0,
    pow(-inf, 0.5) = +inf, pow(-0, -1) = -inf), for arrays, 0-d arrays and in place."""
    with np.errstate(all="ignore"):  # (1e308 overflows float16, as intended)
        v = np.array([-0.0, 0.0, -np.inf, np.inf, np.nan, -4.0, 4.0, 2.0, 1e-310, -1e-310,
                      1e308, 3e-39, 7.0, -7.5]).astype(dtype)
        ref = np.array([_c_pow(float(t), e) for t in v]).astype(dtype)

    def same(got):
        got = np.asarray(got)
        nan = np.isnan(ref)
        assert got.dtype == ref.dtype
        np.testing.assert_array_equal(np.isnan(got), nan)
        np.testing.assert_array_equal(got[~nan], ref[~nan])
        np.testing.assert_array_equal(np.signbit(got[~nan]), np.signbit(ref[~nan]))

    x = xp.asarray(v)
    same(x ** e)
    same(xp.pow(x, e))
    same(np.array([np.asarray(xp.asarray(t) ** e) for t in v]))
    y = xp.asarray(v.copy())
    view = y[...]
    y **= e
    same(view)


@pytest.mark.parametrize("n", [4, 20_000])  # the fast path; one whose NumPy loop drops the GIL
def test_small_calls_give_ieee_results_quietly_and_keep_numpys_error_state(n):
    """Small elementwise calls (the fast paths) give inf/NaN without a warning or an error
    even under np.errstate(all="raise"), and leave the caller's NumPy error state as it
    was: plain NumPy code after them still raises."""
    big = xp.full((n,), 1e308)
    zero = xp.zeros((n,))
    with np.errstate(all="raise"), warnings.catch_warnings():
        warnings.simplefilter("error")
        for got, want in ((big * 10.0, np.inf), (big + big, np.inf), (zero / zero, np.nan),
                          (xp.log(zero), -np.inf), (xp.exp(big), np.inf),
                          (2.0 * big, np.inf), (big * np.full(n, 10.0), np.inf)):
            np.testing.assert_array_equal(to_np(got), np.full(n, want))
        with pytest.raises(FloatingPointError):
            np.full(n, 1e308) * 10.0
    assert np.geterr()["over"] == "warn"


def test_small_calls_from_many_threads_at_once():
    """Each thread runs the fast paths in its own error-state context (a context is entered
    by one thread at a time): eight threads of 20,000-element calls, whose NumPy loops drop
    the GIL, give NumPy's results."""
    v = np.random.default_rng(6).standard_normal(20_000)
    x = xp.asarray(v)
    results = {}

    def work(k):
        for _ in range(300):
            r = x * float(k) + x
            r = xp.exp(r / 50.0) + (x ** 2) // 4.0  # ufuncs, and _special's functions
        results[k] = to_np(r)

    run_threads(work, 8)
    for k in range(8):
        np.testing.assert_allclose(results[k], np.exp((v * k + v) / 50.0) + (v ** 2) // 4.0,
                                   rtol=1e-15)
