"""Reliability promises (docs/reliability.md): the interpreter-dependent temporary reuse,
the Numba cache key, serialization (pickle, copy), against NumPy."""
import copy
import os
import pickle
import subprocess
import sys

import ml_dtypes
import numpy as np
import pytest

import flexarray as xp
from helpers.lazy import lazy_small_copies  # noqa: F401 (autouse: lazy copies of small arrays)
from flexarray import _elementwise, _extensions, _protocols
from flexarray._protocols import operators as _operators

N = _elementwise.ELIDE_MIN  # from this size a temporary left operand takes the result


# --- interpreter: reference-count based reuse of temporaries ---------------------------------

def test_elision_is_enabled_only_where_proven():
    proven = (sys.implementation.name == "cpython" and (3, 11) <= sys.version_info[:2] <= (3, 13)
              and not __import__("sysconfig").get_config_var("Py_GIL_DISABLED"))
    assert _operators.ELISION is proven
    op = xp.Array.__add__
    assert ("_forward_eliding" in op.__qualname__) is proven


@pytest.fixture
def elisions(monkeypatch):
    """The number of results written into a temporary operand (operators reinstalled
    around a counting ``apply_elided``)."""
    count = [0]
    original = _elementwise.apply_elided

    def counting(name, x, other, reflected=False):
        r = original(name, x, other, reflected=reflected)
        count[0] += r is not None
        return r

    monkeypatch.setattr(_elementwise, "apply_elided", counting)
    _protocols.install(xp, numpy_named=_extensions.__all__)
    yield count
    monkeypatch.undo()
    _protocols.install(xp, numpy_named=_extensions.__all__)


class Holder:
    def __init__(self, v):
        self.v = v


G = None  # a module global for the test below


def _operands():
    va = np.linspace(-3, 3, N)
    vb = np.linspace(1, 2, N)
    return va, vb, xp.asarray(va.copy()), xp.asarray(vb.copy())


def test_named_arrays_are_never_overwritten(elisions):
    """Every way a name can hold the left operand: the operand keeps its value, the result
    is NumPy's. (On CPython 3.14 the locals here would be borrowed references with a
    temporary's count: the reason elision is off there.)"""
    global G
    va, vb, a, b = _operands()
    checks = []

    def same(arr, ref):
        checks.append(np.array_equal(np.asarray(arr), ref))

    r = a + b
    same(a, va), same(r, va + vb)
    r = a * b + a
    same(a, va), same(r, va * vb + va)

    def local_temps(x, y):
        t = x * y          # a named temporary: must survive t + x
        u = t + x
        return t, u
    t, u = local_temps(a, b)
    same(t, va * vb), same(u, va * vb + va), same(a, va)

    def last_use(x, y):
        t = x - y
        return t + y, t    # t's last use in the expression still leaves t holding it
    s, t = last_use(a, b)
    same(s, va - vb + vb), same(t, va - vb)

    h = Holder(a * b)
    r = h.v + b
    same(h.v, va * vb), same(r, va * vb + vb)
    L = [a * b]
    r = L[0] + b
    same(L[0], va * vb)
    d = {"k": a - b}
    r = d["k"] * b
    same(d["k"], va - vb), same(r, (va - vb) * vb)
    G = a * 2.0
    r = G + b
    same(G, va * 2.0), same(r, va * 2.0 + vb)
    r = (w := a * b) + b
    same(w, va * vb), same(r, va * vb + vb)
    rs = [v + b for v in (a * b,)]
    same(rs[0], va * vb + vb)
    f = (lambda x, y=a * b: y + x)  # noqa: E731 (a default argument holds it)
    same(f(b), va * vb + vb), same(f.__defaults__[0], va * vb)
    v = a[:]                # a view names the same memory
    r = (a * 1.0)[:] + b    # a temporary view: its buffer is the temporary's
    same(v, va), same(r, va + vb)
    t = a * b
    r = t.__add__(b)        # an explicit call shows a temporary's count: never elided
    same(t, va * vb), same(r, va * vb + vb)
    gen = (x + b for x in [a * b])
    same(next(gen), va * vb + vb)
    assert all(checks), [i for i, ok in enumerate(checks) if not ok]
    # the temporaries above did take results where the interpreter allows it
    if _operators.ELISION:
        assert elisions[0] > 0
    else:
        assert elisions[0] == 0


def test_chained_temporaries_give_numpy_results(elisions):
    va, vb, a, b = _operands()
    r = a * b + a * 2.0 - b / 3.0 + 1.0
    np.testing.assert_array_equal(np.asarray(r), va * vb + va * 2.0 - vb / 3.0 + 1.0)
    np.testing.assert_array_equal(np.asarray(a), va)
    np.testing.assert_array_equal(np.asarray(b), vb)
    assert elisions[0] == (3 if _operators.ELISION else 0)


def test_reflected_operators_elide_only_temporaries(elisions):
    """A scalar on the left (``2.0 - t``, ``-2 * t``) calls the right operand's reflected
    method: a temporary there takes the result; named right operands keep their values."""
    global G
    va, vb, a, b = _operands()
    r = -2 * (a * b)
    np.testing.assert_array_equal(np.asarray(r), -2 * (va * vb))
    r = 1.0 - (a + b) / 3.0
    np.testing.assert_array_equal(np.asarray(r), 1.0 - (va + vb) / 3.0)
    assert elisions[0] == (3 if _operators.ELISION else 0)
    t = a * b
    r = 2.0 - t
    np.testing.assert_array_equal(np.asarray(t), va * vb)
    h, L, G = Holder(a * b), [a * b], a * b
    for held in (lambda: h.v, lambda: L[0], lambda: G):
        r = 2.0 ** held()
        np.testing.assert_array_equal(np.asarray(held()), va * vb)
        np.testing.assert_array_equal(np.asarray(r), 2.0 ** (va * vb))
    r = 3.0 / a
    np.testing.assert_array_equal(np.asarray(a), va)
    np.testing.assert_array_equal(np.asarray(r), 3.0 / va)


def test_classifiers_state_the_proven_versions():
    text = open(os.path.join(os.path.dirname(__file__), "..", "pyproject.toml")).read()
    for v in ("3.11", "3.12", "3.13"):
        assert f"Programming Language :: Python :: {v}\"" in text
    assert "Python :: 3.14" not in text


# --- the Numba cache directory ---------------------------------------------------------------

def test_numba_cache_dir_is_keyed_by_versions(tmp_path):
    """Stale machine code never runs after an upgrade: the cache directory names the
    flexarray, Numba and Python versions and the kernel sources' digest (checked in a
    fresh process)."""
    code = ("import flexarray._kernels as k, numba, flexarray, sys; "
            "print(numba.config.CACHE_DIR); print(k.cache_key())")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path),
               PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(xp.__file__))))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    import numba
    assert out[0] == os.path.join(str(tmp_path), out[1])
    assert xp.__version__ in out[1] and numba.__version__ in out[1]
    assert sys.implementation.cache_tag in out[1]
    assert os.path.isdir(out[0])


def _kernels_copy(tmp_path):
    """A copy of the kernels' package and of gates.py beside it; its ``_kernels`` path."""
    import shutil
    from flexarray import _kernels
    src = os.path.dirname(_kernels.__file__)
    shutil.copytree(src, tmp_path / "_kernels", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "_engines").mkdir()
    shutil.copy(os.path.join(src, os.pardir, "_engines", "gates.py"), tmp_path / "_engines")
    return str(tmp_path / "_kernels")


def test_numba_cache_dir_follows_the_kernel_sources(tmp_path):
    """A change to any kernel source (a helper another kernel inlines) names another cache
    directory, and the same sources the same one: Numba itself checks only the kernel's
    own file."""
    from flexarray import _kernels
    here = _kernels_copy(tmp_path)
    assert _kernels._sources_digest(here) == _kernels._sources_digest()
    changed = tmp_path / "_kernels" / "reductions" / "reduce.py"
    text = changed.read_text()
    changed.write_text(text + "\n# edited\n")
    assert _kernels._sources_digest(here) != _kernels._sources_digest()
    changed.write_text(text)
    assert _kernels._sources_digest(here) == _kernels._sources_digest()


def test_numba_cache_dir_follows_the_gate_values_not_their_comments(tmp_path, monkeypatch):
    """The cache key takes the gates' values: a comment-only change to gates.py keeps the
    cache directory (nothing recompiles), a changed value names another one, and a gate
    moved by a test (the module's value, not the file's) leaves the key alone."""
    from flexarray import _kernels
    from flexarray._engines import gates
    here = _kernels_copy(tmp_path)
    path = tmp_path / "_engines" / "gates.py"
    text = path.read_text()
    key = _kernels._sources_digest()
    assert _kernels._sources_digest(here) == key
    line = "COPY_THREADS_MIN = 1 << 23"
    assert line in text
    commented = text.replace(line, "# a comment, edited\n" + line + "  # and another")
    path.write_text(commented + "\n# edited\n")
    assert _kernels._sources_digest(here) == key
    path.write_text(text.replace(line, "COPY_THREADS_MIN = 1 << 22"))
    assert _kernels._sources_digest(here) != key
    path.write_text(text)
    assert _kernels._sources_digest(here) == key
    monkeypatch.setattr(gates, "COPY_THREADS_MIN", 1)
    assert _kernels._sources_digest() == key


# --- serialization ---------------------------------------------------------------------------

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "bfloat16", "float32", "float64", "complex64", "complex128"]


def _np_dtype(name):
    return np.dtype(ml_dtypes.bfloat16) if name == "bfloat16" else np.dtype(name)


def _layouts(v):
    """(name, flexarray array, NumPy reference) in every layout."""
    base = xp.asarray(v, copy=True)  # owned by flexarray (an import would be pinned)
    out = [("contiguous", base, v), ("reversed", xp.flip(base, axis=0), v[::-1]),
           ("strided", base[::2, 1::2], v[::2, 1::2]),
           ("transposed", xp.permute_dims(base, (1, 0)), v.T),
           ("broadcast", xp.broadcast_to(base[:1], v.shape), np.broadcast_to(v[:1], v.shape)),
           ("0-d", base[1, 2], v[1, 2]), ("0-d view", base[1, 2, ...], v[1, 2, ...]),
           ("zero-size", base[:0], v[:0]), ("lazy copy", xp.asarray(base, copy=True), v),
           ("export", xp.asarray(np.asarray(base)), v)]
    return out


def _same(x, ref):
    """Equal elements (NaN equal to NaN; bfloat16 compared through float32)."""
    got = np.asarray(x)
    if ref.dtype == ml_dtypes.bfloat16:
        got, ref = got.astype(np.float32), ref.astype(np.float32)
    np.testing.assert_array_equal(got, ref)


@pytest.mark.parametrize("name", DTYPES)
def test_pickle_roundtrip_every_dtype_and_layout(name):
    dt = _np_dtype(name)
    rng = np.random.default_rng(0)
    v = (rng.standard_normal((6, 5)) * 5).astype(dt) if name != "bool" else \
        rng.random((6, 5)) > 0.5
    if dt.kind in "fcV":
        v.flat[3] = np.nan
    for layout, x, ref in _layouts(v):
        for protocol in (2, pickle.HIGHEST_PROTOCOL):
            y = pickle.loads(pickle.dumps(x, protocol=protocol))
            assert type(y) is xp.Array, layout
            assert y.dtype == x.dtype == dt, layout
            assert y.shape == ref.shape, layout
            _same(y, ref)
            _same(pickle.loads(pickle.dumps(y)), ref)  # the unpickled array pickles again


def test_unpickled_arrays_are_writable_and_own_their_memory():
    base = xp.asarray(np.arange(12.0).reshape(3, 4))
    view = xp.broadcast_to(base[:1], (3, 4))  # read-only in place
    y = pickle.loads(pickle.dumps(view))
    y[0, 0] = -1.0
    assert float(y[0, 0]) == -1.0 and float(base[0, 0]) == 0.0


def test_pickled_small_view_does_not_carry_its_base():
    big = xp.asarray(np.arange(1_000_000, dtype=np.float64))
    small = big[10:20]
    n_small = len(pickle.dumps(small, protocol=pickle.HIGHEST_PROTOCOL))
    n_ref = len(pickle.dumps(np.arange(10.0), protocol=pickle.HIGHEST_PROTOCOL))
    assert n_small < n_ref + 400, (n_small, n_ref)
    strided = big[::100_000]
    assert len(pickle.dumps(strided)) < n_ref + 400
    np.testing.assert_array_equal(np.asarray(pickle.loads(pickle.dumps(strided))),
                                  np.arange(1_000_000.0)[::100_000])


@pytest.mark.parametrize("how", [copy.copy, copy.deepcopy])
def test_copy_and_deepcopy_are_copies(how):
    v = np.arange(12.0).reshape(3, 4)
    for x, ref in [(xp.asarray(v.copy()), v), (xp.asarray(v.copy())[::-1, 1:], v[::-1, 1:]),
                   (xp.asarray(np.asarray(xp.ones(3))), np.ones(3))]:
        y = how(x)
        assert type(y) is xp.Array and y.dtype == x.dtype
        np.testing.assert_array_equal(np.asarray(y), ref)
        y[...] = -7.0                       # writes to the copy ...
        np.testing.assert_array_equal(np.asarray(x), ref)   # ... leave x alone
        y2 = how(x)
        x[...] = 5.0                        # and writes to x leave the copy alone
        np.testing.assert_array_equal(np.asarray(y2), ref)


@pytest.mark.parametrize("how", [copy.copy, copy.deepcopy])
def test_copies_keep_numpys_layout(how):
    """copy.copy/deepcopy lay the copy out as NumPy's do (order "K"), small or large (the
    large ones lazy), and the copy is independent."""
    big = np.arange(2.0 * 600 * 500).reshape(1200, 500)
    for ref in (big, big.T, big[::2, ::-3], np.arange(12.0).reshape(3, 4).T,
                np.broadcast_to(np.arange(500.0), (1200, 500))):
        x = xp.asarray(ref) if ref.flags.writeable else xp.broadcast_to(
            xp.asarray(np.arange(500.0)), ref.shape)
        y, expected = how(x), how(ref)
        got = np.asarray(y)
        np.testing.assert_array_equal(got, expected)
        assert (got.flags.c_contiguous, got.flags.f_contiguous) == (
            expected.flags.c_contiguous, expected.flags.f_contiguous)
        y[0, 0] = -1.0
        assert float(x[0, 0]) == ref[0, 0]


def test_deepcopy_of_containers_copies_the_arrays():
    a = xp.ones(3)
    nested = {"a": a, "b": [a[1:]]}
    c = copy.deepcopy(nested)
    c["a"][0] = 9.0
    assert float(nested["a"][0]) == 1.0
    np.testing.assert_array_equal(np.asarray(c["b"][0]), [1.0, 1.0])


# --- bounds-checked kernels (the short version; tests/run_boundscheck runs them all) ---------

BOUNDSCHECK_SUBSET = ["tests/kernels/test_kernels_copy.py",
                      "tests/nn/test_nn_pool.py::test_max_pool_random[0-2]",
                      "tests/nn/test_nn_pool.py::test_avg_pool_random[0-2]"]


def test_kernels_pass_with_bounds_checking():
    """A few kernel tests with NUMBA_BOUNDSCHECK=1 (a fresh process; its own cache
    directory, shared with tests/run_boundscheck: ~25 s cold, ~5 s warm). The process first
    shows that an out-of-bounds read raises there, so the run cannot pass unchecked."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(xp.__file__)))
    code = f"""
import sys, numba, numpy as np, pytest
@numba.njit
def read(a, i):
    return a[i]
try:
    read(np.zeros(3), 5)
except IndexError:
    pass
else:
    sys.exit("bounds checking is off")
sys.exit(pytest.main(["-q", "-p", "no:xdist", "-p", "no:cacheprovider", *{BOUNDSCHECK_SUBSET!r}]))
"""
    cache = os.path.join(os.environ.get("TMPDIR", "/tmp"), "flexarray-numba-boundscheck")
    env = dict(os.environ, NUMBA_BOUNDSCHECK="1", NUMBA_CACHE_DIR=cache, PYTHONPATH=root)
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=root,
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    assert " passed" in out.stdout and "failed" not in out.stdout
