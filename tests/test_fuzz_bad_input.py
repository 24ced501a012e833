"""Bad-input fuzz of the whole public surface (see docs/reliability.md).

Every public function of ``flexarray``, ``flexarray.linalg``, ``flexarray.fft`` and
``flexarray.nn`` (taken from their ``__all__``, so new functions are covered without a
change here) and every method of ``flexarray.Array`` is called with plausible arguments
(chosen from each parameter's name) of which one or two are replaced by bad ones: wrong
types, wrong dtype categories, out-of-range and repeated axes, negative and astronomically
large sizes, NaN/inf where integers belong, zero-size and mismatched shapes, NumPy arrays,
Python objects, unknown keywords.

A call passes if it returns, or raises one of :data:`ALLOWED` with a non-empty message. It
fails on any other exception (AttributeError, KeyError, AssertionError, ZeroDivisionError,
RecursionError, Numba errors, ...) and on a hang: each call runs under a SIGALRM deadline
(Python-level loops), with a faulthandler watchdog that dumps the stacks and ends the
process if a call is stuck where no signal can reach it (a kernel, a C loop).

The generator is seeded per function, so a failure reproduces. ``FLEXARRAY_FUZZ_EXAMPLES``
sets the number of calls per function (default 24: ~30 s on 2 cores);
``FLEXARRAY_FUZZ_SEED`` changes the seed.
"""
import faulthandler
import inspect
import math
import os
import signal
import sys
import zlib

import numpy as np
import pytest

import flexarray as xp

EXAMPLES = int(os.environ.get("FLEXARRAY_FUZZ_EXAMPLES", "24"))
SEED = int(os.environ.get("FLEXARRAY_FUZZ_SEED", "0"))
#: seconds one call may take (a cold Numba compile of a new signature fits easily)
DEADLINE = float(os.environ.get("FLEXARRAY_FUZZ_DEADLINE", "20"))

#: what bad input may raise (OverflowError/MemoryError: a size that cannot be met;
#: BufferError: DLPack's own error)
ALLOWED = (TypeError, ValueError, IndexError, OverflowError, MemoryError, BufferError)


# --- the surface ----------------------------------------------------------------------------

def _functions():
    out = []
    for mod, prefix in ((xp, "xp"), (xp.linalg, "linalg"), (xp.fft, "fft"), (xp.nn, "nn")):
        for name in mod.__all__:
            f = getattr(mod, name)
            if callable(f) and not isinstance(f, (type, np.dtype)):
                out.append((f"{prefix}.{name}", f))
    return out


#: Array methods called with their own signature: (name, parameter names)
def _methods():
    out = []
    for name, attr in vars(xp.Array).items():
        if name in ("__init__", "__reduce__", "__hash__", "__weakref__", "__slots__",
                    "__module__", "__doc__") or (name.startswith("_") and
                                                 not name.startswith("__")):
            continue
        if isinstance(attr, property):
            out.append((f"Array.{name}", name))
        elif callable(attr):
            out.append((f"Array.{name}", name))
    return out


FUNCTIONS = dict(_functions())
METHODS = dict(_methods())


# --- values ---------------------------------------------------------------------------------

DTYPES = [xp.bool, xp.int8, xp.int16, xp.int32, xp.int64, xp.uint8, xp.uint16, xp.uint32,
          xp.uint64, xp.float16, xp.bfloat16, xp.float32, xp.float64, xp.complex64,
          xp.complex128]
SHAPES = [(), (0,), (1,), (3,), (2, 3), (3, 3), (2, 0), (1, 2, 3), (2, 2, 2, 2), (1, 2, 4, 4),
          (1, 1, 2, 3, 3)]
HUGE = [2**40, 2**62, 2**63 - 1, 2**63, 2**64, 10**30, -(2**63), -(2**62)]


class Opaque:
    """A Python object no function should accept."""

    def __repr__(self):
        return "Opaque()"


class Explosive:
    """An object whose every conversion raises: no handler may swallow that into an
    internal error."""

    def __index__(self):
        raise TypeError("Explosive.__index__")

    def __float__(self):
        raise TypeError("Explosive.__float__")

    def __len__(self):
        raise TypeError("Explosive.__len__")

    def __repr__(self):
        return "Explosive()"


def _array(rng, dtype=None, shape=None, numpy=False):
    dtype = DTYPES[rng.integers(len(DTYPES))] if dtype is None else dtype
    shape = SHAPES[rng.integers(len(SHAPES))] if shape is None else shape
    with np.errstate(all="ignore"):
        v = (rng.standard_normal(shape) * 4).astype(np.float64)
        if v.size and rng.random() < 0.3:
            v.flat[rng.integers(v.size)] = rng.choice([np.nan, np.inf, -np.inf, 0.0])
        v = v.astype(dtype) if dtype.kind != "b" else v > 0
    if numpy:
        return v
    a = xp.asarray(v)
    r = rng.random()
    if r < 0.15 and a.ndim:
        a = xp.flip(xp.asarray(np.flip(v, 0).copy()), axis=0)  # negative strides
    elif r < 0.25 and a.ndim >= 2:
        a = xp.matrix_transpose(xp.asarray(np.swapaxes(v, -1, -2).copy()))
    elif r < 0.32 and a.ndim:
        a = xp.broadcast_to(a[..., :1], a.shape) if a.shape[-1] else a  # read-only view
    return a


def _generic_bad(rng):
    """A value of the wrong kind for almost any parameter."""
    choices = [
        lambda: None, lambda: "abc", lambda: b"\x00", lambda: Opaque(), lambda: Explosive(),
        lambda: [1, 2], lambda: [[1], [2, 3]], lambda: {}, lambda: {1: 2}, lambda: set(),
        lambda: 1.5, lambda: math.nan, lambda: math.inf, lambda: -math.inf, lambda: True,
        lambda: -1, lambda: 0, lambda: complex(1, 2), lambda: HUGE[rng.integers(len(HUGE))],
        lambda: np.float64(np.nan), lambda: np.int64(-5), lambda: np.uint64(2**64 - 1),
        lambda: np.array(["a", "b"]), lambda: np.array([1, "a"], dtype=object),
        lambda: np.array(["2020-01-01"], dtype="datetime64[D]"),
        lambda: _array(rng, numpy=True), lambda: _array(rng),
        lambda: slice(None), lambda: Ellipsis, lambda: (0, 0), lambda: (-9,), lambda: (1.5,),
        lambda: (2**62,), lambda: (), lambda: (None,), lambda: xp.float32,
        lambda: np.dtype("U3"), lambda: np.dtype("datetime64[s]"), lambda: "float64",
        lambda: len, lambda: xp, lambda: np.zeros((2, 2), dtype=[("a", "i4")]),
    ]
    return choices[rng.integers(len(choices))]()


INT_LIKE = {"n", "k", "num", "size", "n_rows", "n_cols", "shift", "repeats", "repetitions",
            "offset", "decimals", "correction", "groups", "step", "d", "start", "stop",
            "ord", "stride", "padding", "dilation", "kernel_size", "output_size",
            "output_padding", "divisor_override", "s", "shape"}


def _bad_for(name, rng, generic=0.4):
    """A bad value aimed at parameter ``name``'s kind, or a generic bad value."""
    r = rng.random()
    if r < generic:
        return _generic_bad(rng)
    if name in ("axis", "axes", "source", "destination", "dim"):
        return [lambda: int(rng.integers(-12, 12)), lambda: (0, 0), lambda: (0, -1, 0),
                lambda: (5, 9), lambda: HUGE[rng.integers(len(HUGE))], lambda: 1.0,
                lambda: (1.0,), lambda: math.nan, lambda: [0, 1], lambda: np.int64(7),
                lambda: (np.int8(0),), lambda: xp.asarray(0), lambda: (True,)][rng.integers(13)]()
    if name in INT_LIKE:
        return [lambda: HUGE[rng.integers(len(HUGE))], lambda: -int(rng.integers(1, 4)),
                lambda: 0, lambda: math.nan, lambda: math.inf, lambda: 2.5, lambda: True,
                lambda: (2**62, 2), lambda: (-1, 3), lambda: (0, 0, 0), lambda: (1, 2, 3, 4, 5),
                lambda: (math.nan,), lambda: xp.asarray(3), lambda: xp.asarray(2.0),
                lambda: np.int64(2**62), lambda: [2, 2]][rng.integers(16)]()
    if name in ("dtype", "type", "from_", "to"):
        return [lambda: "float64", lambda: np.dtype("U3"), lambda: object, lambda: float,
                lambda: np.dtype("datetime64[s]"), lambda: np.dtype([("a", "i4")]),
                lambda: np.float64, lambda: "bogus", lambda: 5,
                lambda: _array(rng)][rng.integers(10)]()
    if name in ("x", "x1", "x2", "a", "b", "weight", "bias", "query", "key", "value",
                "attn_mask", "condition", "indices", "obj", "fill_value", "min", "max",
                "prepend", "append", "sorter", "other", "rtol", "scale"):
        return [lambda: _array(rng), lambda: _array(rng, numpy=True),
                lambda: _array(rng, shape=(0,)), lambda: _array(rng, shape=()),
                lambda: _array(rng, dtype=xp.bool), lambda: _array(rng, dtype=xp.complex64),
                lambda: _array(rng, dtype=xp.bfloat16), lambda: [[1, 2], [3]],
                lambda: math.nan, lambda: 2**70, lambda: -(2**70), lambda: [1.0, 2.0],
                lambda: np.float16(1)][rng.integers(13)]()
    if name in ("arrays", "shapes", "arrays_and_dtypes"):
        return [lambda: (), lambda: [_array(rng), _array(rng)], lambda: (_array(rng), 1),
                lambda: ((2, 3), (4,)), lambda: ((-1,),), lambda: [(2**62,), (2,)],
                lambda: (xp.float32, Opaque()), lambda: [None]][rng.integers(8)]()
    return _generic_bad(rng)


def _good_for(name, rng, x):
    """A plausible value for parameter ``name`` (``x``: the first array argument)."""
    nd = x.ndim if x is not None else 1
    if name in ("axis", "dim"):
        return int(rng.integers(-nd, nd)) if nd else None
    if name == "axes":
        return tuple(range(nd))[: rng.integers(0, nd + 1)] if nd else None
    if name in ("source", "destination"):
        return 0
    if name in ("dtype", "type", "from_", "to"):
        return DTYPES[rng.integers(len(DTYPES))]
    if name in ("shape", "s", "output_size"):
        return tuple(int(v) for v in rng.integers(0, 4, size=rng.integers(0, 3)))
    if name in ("n", "num", "n_rows", "k", "n_cols", "size", "repeats", "shift", "stop"):
        return int(rng.integers(0, 5))
    if name in ("kernel_size",):
        return int(rng.integers(1, 3))
    if name in ("stride", "dilation", "groups", "step", "repetitions"):
        return 1 if name != "repetitions" else (2,)
    if name in ("padding", "output_padding", "start", "offset", "decimals", "correction"):
        return 0
    if name in ("keepdims", "copy", "endpoint", "descending", "stable", "include_initial",
                "ceil_mode", "return_indices", "count_include_pad", "upper", "is_causal",
                "full_matrices", "invert", "enable_gqa"):
        return bool(rng.integers(2))
    if name in ("norm",):
        return ["backward", "ortho", "forward"][rng.integers(3)]
    if name in ("arrays",):
        return [_array(rng, dtype=x.dtype if x is not None else None,
                       shape=x.shape if x is not None else None) for _ in range(2)]
    if name == "arrays_and_dtypes":
        return (_array(rng), DTYPES[rng.integers(len(DTYPES))])
    if name == "shapes":
        return [(2, 3), (3,)]
    if name in ("fill_value", "min", "max"):
        return float(rng.standard_normal())
    if name in ("d", "scale", "rtol"):
        return 1.0
    if name in ("device", "stream", "divisor_override", "prepend", "append", "sorter",
                "bias", "attn_mask", "ord", "mode", "kind", "side", "indexing",
                "max_version", "dl_device", "api_version"):
        return None
    if name == "obj":
        return _array(rng, numpy=bool(rng.integers(2)))
    if name == "indices":
        return xp.asarray(rng.integers(0, 2, size=3))
    if name in ("x2", "other", "weight", "key", "value") and x is not None and rng.random() < .6:
        return _array(rng, dtype=x.dtype, shape=x.shape)
    return _array(rng)


# --- calling --------------------------------------------------------------------------------

class Hang(Exception):
    """Raised by the SIGALRM deadline."""


def _alarm(signum, frame):
    raise Hang(f"no result after {DEADLINE} s")


def _params(func):
    try:
        return list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):
        return []


def _example(func, rng, target=None):
    """(args, kwargs, names of the parameters given bad values) for one call: parameter
    number ``target`` bad, or one or two chosen at random."""
    params = [p for p in _params(func) if p.kind not in (p.VAR_KEYWORD,)]
    args, kwargs, bad = [], {}, []
    x = None
    n_bad = 1 + (rng.random() < 0.3)
    if target is not None:
        targets = {target}
    else:
        targets = set(rng.choice(len(params), size=min(n_bad, len(params)), replace=False)) \
            if params else set()
    for i, p in enumerate(params):
        if p.kind is p.VAR_POSITIONAL:
            values = [_array(rng) for _ in range(rng.integers(0, 3))]
            if i in targets:
                values.append(_bad_for("arrays", rng))
                bad.append(p.name)
            args.extend(values)
            continue
        optional = p.default is not p.empty
        if optional and i not in targets and rng.random() < 0.6:
            continue
        if i in targets:
            v = _bad_for(p.name, rng)
            bad.append(p.name)
        else:
            v = _good_for(p.name, rng, x)
        if x is None and isinstance(v, xp.Array):
            x = v
        if p.kind is p.POSITIONAL_ONLY or (p.kind is p.POSITIONAL_OR_KEYWORD and not kwargs
                                           and (not optional or rng.random() < 0.5)):
            args.append(v)
        else:
            kwargs[p.name] = v
    if rng.random() < 0.08 or not params:
        kwargs["bogus_keyword"] = 1
        bad.append("bogus_keyword")
    return args, kwargs, bad


def _method_example(name, rng):
    """(bound callable or None for a property, args, kwargs, bad names)."""
    self = _array(rng)
    if name.startswith("__") and name[2:-2] in _BINARY_DUNDERS:
        other = _bad_for("other", rng) if rng.random() < 0.7 else _generic_bad(rng)
        return self, [other], {}, ["other"]
    if name == "__getitem__" or name == "__setitem__":
        key = _bad_key(rng, self)
        args = [key] if name == "__getitem__" else [key, _bad_for("value", rng)
                                                     if rng.random() < 0.5 else 1]
        return self, args, {}, ["key"]
    attr = vars(xp.Array)[name]
    if isinstance(attr, property):
        return self, None, {}, []
    params = _params(attr)[1:]
    args, kwargs, bad = [], {}, []
    for p in params:
        if p.kind is p.VAR_KEYWORD or p.kind is p.VAR_POSITIONAL:
            continue
        if rng.random() < 0.5:
            v = _bad_for(p.name, rng)
            bad.append(p.name)
            if p.kind is p.POSITIONAL_ONLY:
                args.append(v)
            else:
                kwargs[p.name] = v
    if rng.random() < 0.15:
        kwargs["bogus_keyword"] = 1
        bad.append("bogus_keyword")
    return self, args, kwargs, bad


_BINARY_DUNDERS = {s for stem in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow",
                                  "and", "or", "xor", "lshift", "rshift", "matmul")
                   for s in (stem, "r" + stem, "i" + stem)} | {
                       "lt", "le", "gt", "ge", "eq", "ne"}


def _bad_key(rng, x):
    choices = [
        lambda: 2**63, lambda: -(2**70), lambda: 99, lambda: 1.5, lambda: math.nan,
        lambda: "a", lambda: (0,) * (x.ndim + 2), lambda: (Ellipsis, Ellipsis),
        lambda: slice(0, 2**70, 2**65), lambda: slice(None, None, 0), lambda: slice(1.5, 2),
        lambda: [0, 2**70], lambda: [[0], [1, 2]], lambda: xp.asarray([True] * 7),
        lambda: xp.asarray([0.5]), lambda: np.array([2**40]), lambda: (None,) * 70,
        lambda: {0: 1}, lambda: Opaque(), lambda: xp.asarray(2**40),
        lambda: (slice(None), [0, 1], Ellipsis, [1]), lambda: _array(rng),
    ]
    return choices[rng.integers(len(choices))]()


def _call(func, args, kwargs):
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, DEADLINE)
    faulthandler.dump_traceback_later(3 * DEADLINE, exit=True)
    try:
        with np.errstate(all="ignore"):
            return func(*args, **kwargs)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        faulthandler.cancel_dump_traceback_later()
        signal.signal(signal.SIGALRM, old)


def _describe(label, args, kwargs):
    def short(v):
        if isinstance(v, xp.Array):
            return f"Array(shape={v.shape}, dtype={v.dtype})"
        if isinstance(v, np.ndarray):
            return f"ndarray(shape={v.shape}, dtype={v.dtype})"
        s = repr(v)
        return s if len(s) < 60 else s[:57] + "..."
    parts = [short(a) for a in args] + [f"{k}={short(v)}" for k, v in kwargs.items()]
    return f"{label}({', '.join(parts)})"


def _check(label, call, args, kwargs, bad, named=None):
    """None if the call behaved, else a description of what went wrong. ``named``: a word
    the message must contain (the function's name, so the user knows which call of a
    line failed; messages of NumPy's internals, "operands could not be broadcast", say
    neither what nor where)."""
    try:
        _call(call, args, kwargs)
    except Hang:
        return f"HANG {_describe(label, args, kwargs)}"
    except ALLOWED as e:
        msg = str(e)
        if not msg.strip():
            return f"EMPTY MESSAGE {type(e).__name__} from {_describe(label, args, kwargs)}"
        if named and named not in msg and not isinstance(e, MemoryError) and \
                not msg.startswith("Explosive"):  # (the argument's own error, passed on)
            return (f"UNNAMED {type(e).__name__} from {_describe(label, args, kwargs)}: "
                    f"{msg[:200]!r} does not say '{named}'")
        if STATS:
            named = len(bad) == 1 and bad[0].strip("_") in str(e)
            _stats.setdefault(label, []).append(
                (type(e).__name__, named, bad, str(e)[:150], _describe(label, args, kwargs)))
        return None
    except RecursionError as e:
        return f"RecursionError {_describe(label, args, kwargs)}: {e}"
    except Exception as e:  # noqa: BLE001 - the point of the test
        return f"{type(e).__module__}.{type(e).__name__} {_describe(label, args, kwargs)}: {e}"
    if STATS:
        _stats.setdefault(label, []).append(("ok", None, bad, "", _describe(label, args, kwargs)))
    return None


STATS = os.environ.get("FLEXARRAY_FUZZ_STATS")
_stats = {}


@pytest.fixture(scope="module", autouse=True)
def _stats_dump():
    """With FLEXARRAY_FUZZ_STATS=path: every call's outcome written there (repr lines)."""
    yield
    if STATS:
        with open(STATS, "a") as f:
            for label, rows in _stats.items():
                for row in rows:
                    f.write(repr((label,) + row) + "\n")


def _rng(label, i):
    return np.random.default_rng([SEED, zlib.crc32(label.encode()), i])


@pytest.mark.parametrize("label", sorted(FUNCTIONS))
def test_function_bad_input(label):
    func = FUNCTIONS[label]
    failures = []
    n_params = len([p for p in _params(func) if p.kind is not p.VAR_KEYWORD])
    # every parameter gets EXAMPLES bad values of its own, then EXAMPLES random mixes
    plan = [t for t in range(n_params) for _ in range(EXAMPLES)] + [None] * EXAMPLES
    for i, target in enumerate(plan):
        rng = _rng(label, i)
        args, kwargs, bad = _example(func, rng, target)
        f = _check(label, func, args, kwargs, bad, named=label.split(".")[-1])
        if f:
            failures.append(f"[example {i}] {f}")
    assert not failures, "\n".join(failures[:10])


@pytest.mark.parametrize("label", sorted(METHODS))
def test_method_bad_input(label):
    name = METHODS[label]
    failures = []
    for i in range(max(4, EXAMPLES // 2)):
        rng = _rng(label, i)
        self, args, kwargs, bad = _method_example(name, rng)
        if args is None:  # a property
            call, args = (lambda s: getattr(s, name)), [self]
        else:
            call = getattr(self, name)
        f = _check(label, call, args, kwargs, bad)
        if f:
            failures.append(f"[example {i}] {f}")
    assert not failures, "\n".join(failures[:10])


def test_surface_is_enumerated():
    """The fuzz reaches every public function (a guard against an empty enumeration)."""
    assert len(FUNCTIONS) >= 190
    assert {"xp.diff", "linalg.solve", "fft.rfft", "nn.conv2d"} <= set(FUNCTIONS)
    assert {"Array.__add__", "Array.__getitem__", "Array.__dlpack__"} <= set(METHODS)


# --- regressions: the bugs this fuzz found, each pinned against NumPy or a plain rule ------

def test_diff_huge_n_returns_at_once():
    """diff(x, n) looped n times: once the axis is used up, every further difference is
    empty, so a huge n returns the empty result at once."""
    v = np.arange(12.0).reshape(3, 4)
    x = xp.asarray(v)
    for n in (4, 5, 2**62, 2**100):
        r = _call(xp.diff, (x,), {"n": n})
        assert r.shape == (3, 0) and r.dtype == xp.float64
    r = _call(xp.diff, (x,), {"n": 2**62, "axis": 0})
    assert r.shape == (0, 4)
    np.testing.assert_array_equal(np.asarray(xp.diff(x, n=2)), np.diff(v, n=2))


_TOO_BIG = [
    ("full", lambda: xp.full((2**62,), 1.0), lambda: np.full((2**62,), 1.0)),
    ("zeros", lambda: xp.zeros(2**70), lambda: np.zeros(2**70)),
    ("zeros", lambda: xp.zeros((2**40, 2**40)), lambda: np.zeros((2**40, 2**40))),
    ("ones", lambda: xp.ones(2**63), lambda: np.ones(2**63)),
    ("empty", lambda: xp.empty((0, 2**63 - 1)), lambda: np.empty((0, 2**63 - 1))),
    ("eye", lambda: xp.eye(2**40), lambda: np.eye(2**40)),
    ("eye", lambda: xp.eye(2**70), lambda: np.eye(2**70)),
    ("eye", lambda: xp.eye(0, 2**63 - 1), lambda: np.eye(0, 2**63 - 1)),
    ("linspace", lambda: xp.linspace(0, 1, num=2**62), lambda: np.linspace(0, 1, num=2**62)),
    ("linspace", lambda: xp.linspace(0, 1, num=2**70), lambda: np.linspace(0, 1, num=2**70)),
    ("arange", lambda: xp.arange(2**62), lambda: np.arange(2**62)),
    ("arange", lambda: xp.arange(2**70), lambda: np.arange(2**70)),
    ("repeat", lambda: xp.repeat(xp.arange(4), 2**62), None),
    ("repeat", lambda: xp.repeat(xp.arange(4), 2**70), None),
    ("tile", lambda: xp.tile(xp.arange(4), (2**61,)), None),
    ("reshape", lambda: xp.reshape(xp.empty((0,)), (2**70, 0)),
     lambda: np.empty(0).reshape(2**70, 0)),
    ("reshape", lambda: xp.reshape(xp.empty((0,)), (0, 2**62)),
     lambda: np.empty(0).reshape(0, 2**62)),
    ("broadcast_to", lambda: xp.broadcast_to(xp.asarray(1.0), (2**62,)),
     lambda: np.broadcast_to(np.asarray(1.0), (2**62,))),
    ("broadcast_to", lambda: xp.broadcast_to(xp.ones(1), (2**70,)),
     lambda: np.broadcast_to(np.ones(1), (2**70,))),
    ("broadcast_arrays", lambda: xp.broadcast_arrays(xp.broadcast_to(xp.ones(1), (2**33, 1)),
                                                     xp.broadcast_to(xp.ones(1), (1, 2**33))),
     None),
    ("meshgrid", lambda: xp.meshgrid(xp.broadcast_to(xp.ones(1), (2**33,)),
                                     xp.broadcast_to(xp.ones(1), (2**33,))), None),
    ("fftfreq", lambda: xp.fft.fftfreq(2**62), lambda: np.fft.fftfreq(2**62)),
    ("fftfreq", lambda: xp.fft.fftfreq(2**70), lambda: np.fft.fftfreq(2**70)),
    ("rfftfreq", lambda: xp.fft.rfftfreq(2**70), lambda: np.fft.rfftfreq(2**70)),
    ("fft", lambda: xp.fft.fft(xp.ones(4), n=2**62),
     lambda: np.fft.fft(np.ones(4), n=2**62)),
    ("adaptive_avg_pool1d", lambda: xp.nn.adaptive_avg_pool1d(xp.ones((1, 1, 4)), 2**62),
     None),
    ("max_pool1d", lambda: xp.nn.max_pool1d(xp.ones((2, 3)), 2**62, ceil_mode=True), None),
    ("conv_transpose2d",
     lambda: xp.nn.conv_transpose2d(xp.ones((2, 2, 2, 2)), xp.ones((2, 2, 2, 2)),
                                    dilation=(2**62, 2)), None),
    ("conv2d", lambda: xp.nn.conv2d(xp.ones((1, 1, 3, 3)), xp.ones((1, 1, 2, 2)),
                                    padding=2**61), None),
]


@pytest.mark.parametrize("name, call, numpy_call", _TOO_BIG)
def test_impossible_sizes_raise_value_error_naming_the_function(name, call, numpy_call):
    """A size no array can have at all (more elements or bytes than the intp range):
    ValueError, as NumPy raises ("Maximum allowed dimension exceeded", "array is too
    big"), with the function named and the largest size allowed; the library goes on
    working."""
    if numpy_call is not None:
        with pytest.raises(ValueError):  # the reference
            numpy_call()
    with pytest.raises(ValueError) as e:
        call()
    msg = str(e.value)
    assert msg.startswith(name + ":"), msg
    assert str(sys.maxsize) in msg, msg  # what is allowed
    assert xp.sum(xp.ones(3)) == 3


@pytest.mark.parametrize("name, call, numpy_call", [
    ("empty", lambda: xp.empty(2**50, dtype=xp.int8), lambda: np.empty(2**50, np.int8)),
    ("zeros", lambda: xp.zeros(2**50, dtype=xp.int8), lambda: np.zeros(2**50, np.int8)),
    ("ones", lambda: xp.ones(2**47), lambda: np.ones(2**47)),
    ("full", lambda: xp.full((2**47,), 1.0), lambda: np.full((2**47,), 1.0)),
    ("arange", lambda: xp.arange(2**47), lambda: np.arange(2**47)),
    ("eye", lambda: xp.eye(2**23), lambda: np.eye(2**23)),
    ("linspace", lambda: xp.linspace(0, 1, num=2**47), lambda: np.linspace(0, 1, num=2**47)),
    ("tile", lambda: xp.tile(xp.arange(4), (2**45,)), lambda: np.tile(np.arange(4), 2**45)),
])
def test_sizes_that_could_exist_but_do_not_fit_raise_memory_error(name, call, numpy_call):
    """A size within the intp range (1 PiB here: beyond this machine's memory and a 47-bit
    address space, not beyond every machine's) is a MemoryError, as NumPy's; the library
    goes on working."""
    with pytest.raises(MemoryError):  # the reference
        numpy_call()
    with pytest.raises(MemoryError):
        call()
    assert xp.sum(xp.ones(3)) == 3


@pytest.mark.parametrize("k", [-(2**70), -5, -3, 0, 2, 3, 4, 2**64, 2**70])
def test_offsets_beyond_the_matrix(k):
    """k/offset beyond the edge: all or nothing, as NumPy gives for the largest it takes."""
    v = np.arange(12.0).reshape(3, 4)
    kc = max(-3, min(4, k))
    x = xp.asarray(v)
    np.testing.assert_array_equal(np.asarray(xp.eye(3, 4, k=k)), np.eye(3, 4, k=kc))
    np.testing.assert_array_equal(np.asarray(xp.tril(x, k=k)), np.tril(v, k=kc))
    np.testing.assert_array_equal(np.asarray(xp.triu(x, k=k)), np.triu(v, k=kc))
    np.testing.assert_array_equal(np.asarray(xp.linalg.diagonal(x, offset=k)),
                                  np.diagonal(v, kc))
    assert float(xp.linalg.trace(x, offset=k)) == np.trace(v, kc)


@pytest.mark.parametrize("shift", [2**70 + 3, -(2**70), 2**63, 7])
def test_roll_huge_shift(shift):
    v = np.arange(10.0).reshape(2, 5)
    x = xp.asarray(v)
    np.testing.assert_array_equal(np.asarray(xp.roll(x, shift)), np.roll(v, shift % 10))
    np.testing.assert_array_equal(np.asarray(xp.roll(x, shift, axis=1)),
                                  np.roll(v, shift % 5, axis=1))


def test_round_extreme_decimals():
    """NumPy's round overflows 10**decimals (NaN for floats, garbage for integers); far
    beyond every digit the result is exact: x itself, or zeros of x's sign."""
    v = np.array([1.5, -2.25, 1e300, -3e-300, np.inf, -np.inf, np.nan, -0.0])
    x = xp.asarray(v)
    for d in (350, 400, 2**62):
        np.testing.assert_array_equal(np.asarray(xp.round(x, decimals=d)), v)
    r = np.asarray(xp.round(x, decimals=-(2**62)))
    np.testing.assert_array_equal(r, [0, -0.0, 0, -0.0, np.inf, -np.inf, np.nan, -0.0])
    np.testing.assert_array_equal(np.signbit(r), np.signbit(v))
    i = np.array([5 * 10**18, -9 * 10**18, 123], np.int64)
    np.testing.assert_array_equal(np.asarray(xp.round(xp.asarray(i), decimals=-19)), 0)
    np.testing.assert_array_equal(np.asarray(xp.round(xp.asarray(i), decimals=-2)),
                                  np.round(i, -2))
    c = xp.asarray(np.array([1 + 2j, np.inf - 3j]))
    np.testing.assert_array_equal(np.asarray(xp.round(c, decimals=-400)), [0j, np.inf + 0j])


def test_unfold_huge_step_is_one_window():
    x = xp.arange(10)
    w = xp.nn.unfold(x, 0, 3, 2**70)
    np.testing.assert_array_equal(np.asarray(w), [[0, 1, 2]])


def test_floor_divide_integer_and_bfloat16():
    """The pair promotes to float32; NumPy's result_type cannot promote it (it raised)."""
    import ml_dtypes
    b = np.array([1.0, -2.0, 3.0], ml_dtypes.bfloat16)
    for dt in (np.int16, np.uint16, np.int32):
        a = np.array([7, 8, 9], dt)
        r = xp.floor_divide(xp.asarray(a), xp.asarray(b))
        ref = np.floor_divide(a.astype(np.float64), b.astype(np.float64))
        assert r.dtype == xp.result_type(xp.asarray(a), xp.asarray(b))
        np.testing.assert_array_equal(np.asarray(r).astype(np.float64), ref)


def test_huge_python_ints_beside_floating_arrays():
    """ml_dtypes refuses Python ints (TypeError 'expected number'): they go through float."""
    import ml_dtypes
    b = xp.asarray(np.ones(2, ml_dtypes.bfloat16))
    r = xp.add(2**70, b)
    np.testing.assert_array_equal(np.asarray(r).astype(np.float64),
                                  np.float64(ml_dtypes.bfloat16(2.0**70)) + 1)
    np.testing.assert_array_equal(np.asarray(xp.linspace(10**30, 1, 3)),
                                  np.linspace(1e30, 1, 3))
    with pytest.raises(OverflowError, match="add: the Python int"):
        xp.add(xp.ones(2), 2**1100)
    assert bool(xp.isin(2**70, b)) is False


@pytest.mark.parametrize("call, exc, words", [
    (lambda: xp.add(xp.ones(3), xp.ones(4)), ValueError, ["add", "(3,)", "(4,)"]),
    (lambda: xp.ones(3).__iadd__(xp.ones((2, 3))), ValueError, ["add", "(2, 3)"]),
    (lambda: xp.linalg.outer(xp.ones(2, dtype=xp.int64), xp.ones(2, dtype=xp.uint64)),
     TypeError, ["outer", "int64", "uint64"]),
    (lambda: xp.concat([xp.ones(2, dtype=xp.int8), xp.ones(2, dtype=xp.uint64)]),
     TypeError, ["concat"]),
    (lambda: xp.zeros(3, device=np.zeros(2)), ValueError, ["zeros", "device"]),
    (lambda: xp.fft.fft(xp.ones(4), norm=np.zeros(2)), ValueError, ["fft", "norm"]),
    (lambda: xp.searchsorted(xp.ones(3), xp.ones(2), side=np.zeros(2)), ValueError,
     ["searchsorted", "side"]),
    (lambda: xp.meshgrid(xp.ones(2), indexing=np.zeros(2)), ValueError, ["indexing"]),
    (lambda: xp.asarray([1], copy=xp.ones(3)), ValueError, ["asarray", "copy"]),
    (lambda: xp.reshape(xp.ones(4), (2, 2), copy=np.zeros(2)), ValueError, ["copy"]),
    (lambda: xp.fft.fftn(xp.ones(0)), ValueError, ["fftn", "length 0"]),
    (lambda: xp.fft.fftn(xp.ones(3), axes=xp.asarray(0)), TypeError, ["fftn", "axes"]),
    (lambda: xp.nn.max_pool1d(xp.ones((1, 1, 4)), 2, ceil_mode=np.zeros(2)), TypeError,
     ["max_pool1d", "ceil_mode"]),
    (lambda: xp.nn.adaptive_max_pool1d(xp.ones((1, 1, 4)), 2, np.zeros(2)), TypeError,
     ["return_indices"]),
    (lambda: xp.arange(0, math.inf), ValueError, ["arange", "stop"]),
    (lambda: xp.ones(2).__array_ufunc__(np.float64(1), "abc"), TypeError, ["ufunc"]),
    (lambda: xp.round(xp.ones(2), decimals=np.zeros(2)), TypeError, ["round", "decimals"]),
    (lambda: xp.where(xp.asarray(True)), ValueError, ["where", "condition"]),
    (lambda: xp.cumulative_sum(xp.asarray(1.0), axis=np.zeros(2)), TypeError,
     ["cumulative_sum", "axis"]),
    (lambda: xp.from_dlpack(np.array(["2020-01-01"], "datetime64[D]")), BufferError,
     ["from_dlpack"]),
    (lambda: xp.ones(2).__array_function__(np.sum, (), (), set()), TypeError, ["kwargs"]),
    (lambda: xp.nn.scaled_dot_product_attention(xp.ones((2, 3)), xp.ones((2, 3)),
                                                xp.ones((2, 3)), enable_gqa=np.zeros(2)),
     TypeError, ["enable_gqa"]),
    (lambda: xp.linalg.pinv(xp.ones((1, 2, 3)), rtol=xp.ones((2, 1))), ValueError,
     ["pinv", "rtol"]),
])
def test_bad_input_messages_name_the_call(call, exc, words):
    """Bad input that reached NumPy's internals ('operands could not be broadcast', 'The
    truth value of an array ... is ambiguous', AttributeError) now says which call and
    which argument."""
    with pytest.raises(exc) as e:
        call()
    for w in words:
        assert w in str(e.value), (w, str(e.value))


def test_huge_python_ints_as_bounds_and_tolerances():
    b = xp.astype(xp.asarray([1.0, -2.0]), xp.bfloat16)
    np.testing.assert_array_equal(np.asarray(xp.clip(b, -2**70)).astype(np.float32), [1, -2])
    np.testing.assert_array_equal(np.asarray(xp.clip(xp.ones(2), 2**1100)), [np.inf] * 2)
    v = np.array([[3.0, 0.0, 0.0], [0.0, 1e-9, 0.0]])
    assert int(xp.linalg.matrix_rank(xp.asarray(v), rtol=2**70)) == 0
    assert int(xp.linalg.matrix_rank(xp.asarray(v), rtol=-2**70)) == 2


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
def test_svd_and_pinv_of_infinite_matrices_return(dtype):
    """LAPACK's gesdd loops forever on an infinite element (NumPy's svd and pinv hang);
    flexarray's answer at once: LinAlgError or NaN, as for NaN input."""
    v = np.array([[-np.inf, -4.6, 0.05], [7.1, -7.1, 1.9], [5.5, -1.2, -3.5]], dtype)
    x = xp.asarray(v)
    for f in (xp.linalg.svd, xp.linalg.pinv, xp.linalg.svdvals, xp.linalg.matrix_rank):
        try:
            r = _call(f, (x,), {})
        except xp.linalg.LinAlgError as e:
            assert f.__name__ in str(e)
        else:
            if f is not xp.linalg.matrix_rank:
                first = r[0] if isinstance(r, tuple) else r
                assert np.isnan(np.asarray(first)).any()
    ok = v.copy()
    ok[0, 0] = 1.0  # finite matrices are untouched
    np.testing.assert_allclose(np.asarray(xp.linalg.pinv(xp.asarray(ok))),
                               np.linalg.pinv(ok), rtol=1e-4, atol=1e-5)


def test_arange_and_full_with_huge_python_ints():
    np.testing.assert_array_equal(np.asarray(xp.arange(0, 2, 2**63)), [0])
    np.testing.assert_array_equal(np.asarray(xp.arange(3, -1, -(2**70))), [3])
    np.testing.assert_array_equal(np.asarray(xp.arange(10, 0, -3)), np.arange(10, 0, -3))
    r = xp.full((2,), 2**70, dtype=xp.bfloat16)
    assert r.dtype == xp.bfloat16 and float(r[0]) == float(np.float32(2.0**70))
    with pytest.raises(OverflowError, match="full"):
        xp.full((1,), 2**1100, dtype=xp.float32)


@pytest.mark.parametrize("src", [lambda: np.array([1 + 2j]), lambda: xp.asarray([1 + 2j])])
def test_asarray_refuses_to_drop_imaginary_parts(src):
    """asarray(complex, dtype=real) dropped the imaginary part with only NumPy's
    ComplexWarning; it raises as astype does."""
    with pytest.raises(TypeError, match="asarray: casting complex"):
        xp.asarray(src(), dtype=xp.float64)
    np.testing.assert_array_equal(np.asarray(xp.asarray(src(), dtype=xp.complex64)),
                                  np.array([1 + 2j], np.complex64))


def test_arange_empty_beyond_int64_and_odd_buffers():
    assert xp.arange(2**63, 4, dtype=xp.int16).shape == (0,)
    assert xp.arange(2**64, 1).shape == (0,)
    r = xp.asarray(b"\x07", dtype=xp.uint32)  # a buffer's values convert (bytes: uint8)
    assert r.dtype == xp.uint32 and np.asarray(r).tolist() == [7]


def test_roll_over_no_axes_is_a_copy():
    v = np.arange(6).reshape(2, 3)
    for x in (xp.asarray(v), xp.asarray(3)):
        r = xp.roll(x, 5, axis=())
        np.testing.assert_array_equal(np.asarray(r), np.asarray(x))
    r[...] = -1
    assert int(x) == 3
