"""flexarray.special (SciPy's single-output ufuncs on flexarray arrays) against SciPy's own
calls on NumPy arrays: the same bits, on one thread and in pieces on the pool's threads,
with broadcasting, scalars, both float widths and SciPy's per-thread error handling."""
import numpy as np
import pytest

import flexarray as xp
from flexarray._engines import gates

sc = pytest.importorskip("scipy.special")

from helpers.strategies import assert_bits  # noqa: E402
from helpers.threads import no_blas_spin  # noqa: E402,F401  (parallel calls use the pool)

UNARY = ["expit", "logit", "erf", "erfc", "ndtr", "log_ndtr", "gammaln", "i0e", "entr",
         "log_expit", "psi"]
BINARY = ["xlogy", "gammainc", "rel_entr", "kl_div"]


@pytest.fixture(params=["one thread", "pool"])
def threads(request, monkeypatch):
    monkeypatch.setattr(gates, "SPECIAL_THREADS_MIN", 1 << 60 if request.param ==
                        "one thread" else 0)
    return request.param


def values(rng, shape, dtype):
    v = rng.standard_normal(shape) * 4
    v.flat[: min(v.size, 4)] = [np.nan, np.inf, -np.inf, 0.0][: min(v.size, 4)]
    return v.astype(dtype)


@pytest.mark.parametrize("name", UNARY)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_functions_give_scipys_bits(name, dtype, threads):
    rng = np.random.default_rng(0)
    for shape in [(), (1,), (7,), (1001,), (33, 65), (3, 1, 40)]:
        a = values(rng, shape, dtype)
        with np.errstate(all="ignore"):
            assert_bits(getattr(xp.special, name)(xp.asarray(a, copy=True)),
                        np.asarray(getattr(sc, name)(a)))


@pytest.mark.parametrize("name", BINARY)
def test_binary_functions_broadcast_and_take_scalars_as_scipy(name, threads):
    rng = np.random.default_rng(1)
    f = getattr(xp.special, name)
    ref = getattr(sc, name)
    for s1, s2 in [((50, 30), (50, 30)), ((50, 30), (1, 30)), ((50, 1), (30,)),
                   ((1, 30), (50, 1)), ((4, 5, 6), (6,))]:
        a, b = np.abs(values(rng, s1, np.float64)), np.abs(values(rng, s2, np.float32))
        with np.errstate(all="ignore"):
            assert_bits(f(xp.asarray(a), xp.asarray(b)), ref(a, b))
            # a Python scalar as SciPy converts it (a float64 0-d array)
            assert_bits(f(xp.asarray(b), 2.5), ref(b, np.asarray(2.5)))
            assert_bits(f(0.5, xp.asarray(a)), ref(np.asarray(0.5), a))


def test_a_pending_operand_is_computed_first(threads):
    a = np.linspace(-3, 3, 1 << 12)
    x = xp.asarray(a, copy=True)
    assert_bits(xp.special.expit(x * 2.0 - 1.0), sc.expit(a * 2.0 - 1.0))


def test_scipys_error_handling_of_the_calling_thread_holds_on_other_threads(monkeypatch):
    import threading
    from flexarray import special

    def each_on_a_thread_of_its_own(fn, args, total, nthreads, pieces_per_thread):
        errors = []

        def run(lo, hi):
            try:
                fn(*args, lo, hi)
            except BaseException as e:
                errors.append(e)

        for lo in range(total):
            t = threading.Thread(target=run, args=(lo, lo + 1))
            t.start()
            t.join()
        if errors:
            raise errors[0]

    monkeypatch.setattr(gates, "SPECIAL_THREADS_MIN", 0)
    monkeypatch.setattr(special, "run_split", each_on_a_thread_of_its_own)
    a = np.full(1 << 12, -1.0)
    x = xp.asarray(a, copy=True)
    assert_bits(xp.special.gammaln(x), sc.gammaln(a))  # (the pole: inf, ignored by default)
    with sc.errstate(singular="raise"):
        with pytest.raises(sc.SpecialFunctionError):
            xp.special.gammaln(x)


def test_only_scipys_single_output_ufuncs_are_there():
    assert callable(xp.special.expit) and xp.special.expit.__name__ == "expit"
    for name in ["airy", "ellipj", "logsumexp", "softmax", "not_a_function", "_private"]:
        assert not hasattr(xp.special, name)
    with pytest.raises(AttributeError, match="single-output ufuncs"):
        xp.special.airy
