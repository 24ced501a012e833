"""einsum in NumPy's other forms, against ``np.einsum``: the operand-sublist (interleaved)
form with NumPy arrays and other sequences as sublists, and ``optimize=`` as NumPy takes
it (names, (name, size limit) pairs, explicit paths), through ``xp.einsum`` and through
``np.einsum`` on flexarray arrays."""
import numpy as np
import pytest

import flexarray as xp

RNG = np.random.default_rng(7)
A = RNG.standard_normal((3, 4))
B = RNG.standard_normal((4, 5))
C = RNG.standard_normal((5, 2))


def check(got, want):
    assert isinstance(got, xp.Array)
    np.testing.assert_allclose(np.asarray(got), want, rtol=1e-12, atol=1e-12)


OPTIMIZE = [True, False, None, "greedy", "optimal", ("greedy", 10), ("optimal", 1e6),
            ["einsum_path", (0, 1), (0, 1)], ("einsum_path", (1, 2), (0, 1)),
            np.einsum_path("ij,jk,kl->il", A, B, C, optimize="optimal")[0]]


@pytest.mark.parametrize("optimize", OPTIMIZE, ids=repr)
def test_optimize_as_numpy_takes_it(optimize):
    want = np.einsum("ij,jk,kl->il", A, B, C, optimize=optimize)
    ops = [xp.asarray(A), xp.asarray(B), xp.asarray(C)]
    check(xp.einsum("ij,jk,kl->il", *ops, optimize=optimize), want)
    check(np.einsum("ij,jk,kl->il", *ops, optimize=optimize), want)  # (NEP 18)
    check(xp.einsum(ops[0], [0, 1], ops[1], [1, 2], ops[2], [2, 3], [0, 3],
                    optimize=optimize), want)


@pytest.mark.parametrize("sublist", [[0, 1], (0, 1), range(2), np.array([0, 1]),
                                     np.array([0, 1], np.int32), [np.int64(0), 1]],
                         ids=["list", "tuple", "range", "int64 array", "int32 array",
                              "numpy ints"])
def test_sublists_as_numpy_takes_them(sublist):
    want = np.einsum(A, sublist, B, [1, 2], [2, 0])
    check(xp.einsum(xp.asarray(A), sublist, xp.asarray(B), [1, 2], [2, 0]), want)
    check(np.einsum(xp.asarray(A), sublist, xp.asarray(B), [1, 2], [2, 0]), want)


@pytest.mark.parametrize("first_numpy", [True, False])
def test_interleaved_form_takes_numpy_operands_as_asarray_does(first_numpy):
    x, y = (A, xp.asarray(B)) if first_numpy else (xp.asarray(A), B)
    want = np.einsum(A, [0, 1], B, [1, 2], [0, 2])
    check(xp.einsum(x, [0, 1], y, [1, 2], [0, 2]), want)
    check(np.einsum(x, [0, 1], y, [1, 2], [0, 2]), want)
    check(xp.einsum(x, [0, 1], y, [1, 2]), np.einsum(A, [0, 1], B, [1, 2]))  # implicit out


def test_interleaved_form_ellipsis_dtype_and_one_operand():
    t = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    want = np.einsum(t, [Ellipsis, 1], [Ellipsis], dtype=np.float64)
    got = xp.einsum(xp.asarray(t), [Ellipsis, 1], [Ellipsis], dtype=xp.float64)
    assert got.dtype == xp.float64
    check(got, want)
    check(xp.einsum(xp.asarray(A), [1, 0]), np.einsum(A, [1, 0]))  # a transpose, a copy


def test_bad_optimize_and_sublists_name_the_argument():
    x = xp.asarray(A)
    with pytest.raises(TypeError, match=r"'optimize' must be .*got int 1"):
        xp.einsum("ij->i", x, optimize=1)
    with pytest.raises(ValueError, match=r"'optimize' must be .*got 'fast'"):
        xp.einsum("ij->i", x, optimize="fast")
    with pytest.raises(ValueError, match=r"'optimize' must be .*got \('fast', 10\)"):
        xp.einsum("ij->i", x, optimize=("fast", 10))
    with pytest.raises(ValueError, match="largest intermediate size .* got -1"):
        xp.einsum("ij->i", x, optimize=("greedy", -1))
    with pytest.raises(ValueError, match="path 'optimize' must be"):
        xp.einsum("ij->i", x, optimize=["einsum_path", "x"])
    with pytest.raises(TypeError, match="the sublist of operand 0 must be a list"):
        xp.einsum(x, np.array([0.0, 1.0]))
    with pytest.raises(TypeError, match=r"the last operand \(Array\) has none"):
        xp.einsum(x, [0, 1], x)
    with pytest.raises(ValueError, match="holds True"):
        xp.einsum(x, [True, 1])
    with pytest.raises(TypeError, match="'subscripts' must be a str .* got float"):
        xp.einsum(1.5, [0], x, [0])
