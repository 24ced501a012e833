"""NumPy's override protocols on :class:`Array`: ufuncs (NEP 13) and functions (NEP 18).

``np.exp(x)``, ``np.add(x, 1, out=x)`` or ``ndarray * x`` run flexarray's elementwise
functions; ``np.sum(x)``, ``np.concatenate([x, y])`` run the namespace's function of the
same meaning, and NumPy's own implementation on the shared memory where flexarray has none
or the arguments are NumPy's alone (``out=``, ``order=``): flexarray arrays in, flexarray
arrays out. Arrays NumPy writes (``out=``, ``ufunc.at``, ``np.copyto``'s ``dst``) are
registered as written for the duration of the call (:class:`._buffer.writing`).
"""
from __future__ import annotations

import contextlib
import inspect

import numpy as np

from .. import _dtypes as _dt
from .. import _elementwise
from .._array import Array, _new, wrap, wrap_foreign
from .._deferred import Deferred, settled
from .._buffer import writing
from .._creation import asarray
from .._dtypes import from_np

__all__ = ["install", "UFUNCS", "FUNCTIONS", "array_ufunc", "array_function"]


# --- NumPy's ufunc protocol (NEP 13) --------------------------------------------------------

def _ufunc_table():
    """NumPy ufunc -> flexarray elementwise function of the same meaning."""
    table = {}
    for name, (func, _, _) in {**_elementwise.UNARY, **_elementwise.BINARY}.items():
        if isinstance(func, np.ufunc):
            table[func] = name
    table.update({np.expm1: "expm1", np.sign: "sign", np.left_shift: "bitwise_left_shift",
                  np.right_shift: "bitwise_right_shift", np.floor_divide: "floor_divide",
                  np.power: "pow", np.remainder: "remainder"})
    return {u: getattr(_elementwise, n) for u, n in table.items()}


UFUNCS = _ufunc_table()
#: binary ufunc -> its function's path for small operands of one dtype (``ndarray * x``)
_UFUNC_FAST = {u: f.with_ndarray for u, f in UFUNCS.items() if hasattr(f, "with_ndarray")}


def _operand(a):
    """An input of a NumPy ufunc call as flexarray takes it: arrays as they are, NumPy
    arrays shared (as NumPy's asarray shares), NumPy scalars as Python scalars."""
    if type(a) is Array:
        return a
    if isinstance(a, np.ndarray):
        return asarray(a)
    if isinstance(a, np.generic) and a.dtype in _dt.SUPPORTED:  # bfloat16 has kind "V"
        return a.item()
    return a


def _numpy_input(a):
    return a._arr if type(a) is Array else a


def _result(r, out):
    """A NumPy ufunc's result back as flexarray arrays (``out`` arrays as given)."""
    if isinstance(r, tuple):
        return tuple(_result(e, o) for e, o in zip(r, out or (None,) * len(r)))
    if out is not None:
        return out
    if isinstance(r, np.ndarray) or isinstance(r, np.generic):
        try:
            return wrap(np.asarray(r))
        except TypeError:  # a dtype flexarray does not have (object, datetime, ...)
            return r
    return r


def _upcast(a) -> bool:
    """Whether ``a`` is an array type of its own that takes part in NumPy's protocols
    (Dask, xarray, ...): flexarray defers to it (NEP 13's type hierarchy)."""
    return hasattr(type(a), "__array_ufunc__") and not isinstance(a, (Array, np.ndarray,
                                                                      np.generic))
_UFUNC_METHODS = ("__call__", "reduce", "reduceat", "accumulate", "outer", "at")


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """NEP 13: ``np.<ufunc>(...)`` with flexarray arrays among the arguments.

    A plain call of a ufunc the standard has (``np.exp(x)``, ``np.add(x, 1)``,
    ``ndarray * x``) runs flexarray's function; every other call (``out=``, ``where=``,
    ``reduce``, ``accumulate``, ``at``, ufuncs the standard lacks, and inputs the standard
    refuses but NumPy takes, such as ``np.add`` of two bool arrays) runs NumPy's kernel on
    the arrays' memory, writes into ``out`` arrays through their views, and returns
    flexarray arrays.
    """
    if method == "__call__" and len(inputs) == 2 and not kwargs and ufunc in _UFUNC_FAST:
        a, b = inputs  # ``ndarray * x``, ``np.add(x, y)``: small, one dtype (~2.5 us less)
        if (type(a) is Array or type(a) is np.ndarray) and (
                type(b) is Array or type(b) is np.ndarray):
            r = _UFUNC_FAST[ufunc](a, b)
            if r is not None:
                return r
    # Numba's @vectorize gives a DUFunc: a NumPy ufunc inside (``.ufunc``) whose loops it
    # compiles for the NumPy arrays it is called on; it passes ``out`` as given, not as
    # NumPy's tuple
    dufunc = not isinstance(ufunc, np.ufunc) and isinstance(getattr(ufunc, "ufunc", None),
                                                            np.ufunc)
    if not (isinstance(ufunc, np.ufunc) or dufunc) or method not in _UFUNC_METHODS:
        raise TypeError(f"__array_ufunc__: 'ufunc' must be a NumPy ufunc and 'method' one of "
                        f"{', '.join(_UFUNC_METHODS)}; got {ufunc!r} and {method!r}")
    if dufunc and "out" in kwargs and not isinstance(kwargs["out"], tuple):
        kwargs["out"] = (kwargs["out"],)
    if any(_upcast(a) for a in inputs + kwargs.get("out", ())):
        return NotImplemented  # a duck array above flexarray (Dask, xarray) handles it
    if method == "__call__" and not kwargs:
        func = UFUNCS.get(ufunc)
        if func is not None:
            try:
                return func(*map(_operand, inputs))
            except TypeError:
                pass  # NumPy's meaning below
    out = kwargs.get("out")
    if out is not None:
        out = out if isinstance(out, tuple) else (out,)
    if "where" in kwargs:
        kwargs["where"] = _numpy_input(kwargs["where"])
    with contextlib.ExitStack() as writes:  # (each written array registered: _buffer)
        if out is not None:
            kwargs["out"] = tuple(writes.enter_context(writing(o)) if type(o) is Array else o
                                  for o in out)
        target = writes.enter_context(writing(inputs[0])) if (
            method == "at" and type(inputs[0]) is Array) else None
        args = list(map(_numpy_input, inputs))  # (after the moves the writes may make)
        if target is not None:
            args[0] = target  # (``at`` writes its first operand in place)
        r = getattr(ufunc, method)(*args, **kwargs)
    if out is not None and len(out) == 1 and not isinstance(r, tuple):
        return out[0]
    return _result(r, out)


# --- NumPy's function protocol (NEP 18) -----------------------------------------------------

def _function_table(flexarray, numpy_named=()):
    """NumPy function -> the function of the same name and meaning in the namespace
    ``flexarray`` (``numpy_named``: its extensions with NumPy's names, ``nansum`` ...
    ``einsum``). NumPy calls with arguments flexarray does not take (``np.sum(x, 0)``,
    ``out=``, ``order=``) raise TypeError there, and NumPy's implementation runs instead."""
    names = {np.concatenate: "concat", np.cumsum: "cumulative_sum",
             np.cumprod: "cumulative_prod", np.amax: "max", np.amin: "min"}
    for name in ("sum", "prod", "mean", "std", "var", "max", "min", "all", "any", "argmax",
                 "argmin", "sort", "argsort", "stack", "where", "clip", "reshape",
                 "expand_dims", "squeeze", "flip", "moveaxis", "roll", "tile", "repeat",
                 "broadcast_to", "broadcast_arrays", "meshgrid", "take", "take_along_axis",
                 "searchsorted", "nonzero", "count_nonzero", "diff", "tensordot", "round",
                 "zeros_like", "ones_like", "empty_like", "full_like", "tril", "triu",
                 "isdtype", "result_type", "can_cast", "vecdot", "matrix_transpose",
                 *numpy_named):  # nansum, ..., einsum: flexarray/_extensions.py
        if hasattr(np, name) and hasattr(flexarray, name):
            names[getattr(np, name)] = name
    return {f: getattr(flexarray, n) for f, n in names.items()}


FUNCTIONS = {}  # filled by install() (the namespace must be complete first)


def _same_dtype_as_numpy(x, *others, strong=False) -> bool:
    """Whether NumPy's promotion of flexarray array ``x`` with ``others`` (arrays, scalars,
    None) keeps x's dtype; ``strong``: scalars as NumPy arrays (``np.diff`` converts its
    ``prepend``/``append``), else as weak Python scalars (NEP 50)."""
    try:
        ops = [o._arr if type(o) is Array else np.asarray(o) if strong else o
               for o in others if o is not None]
        return np.result_type(x._arr, *ops) == x._arr.dtype
    except (TypeError, ValueError, AttributeError, OverflowError):
        return False


def _clip_guard(a, a_min=None, a_max=None, *args, min=None, max=None, **kwargs):
    return type(a) is Array and _same_dtype_as_numpy(a, a_min, a_max, min, max)


def _diff_guard(a, n=1, axis=-1, prepend=None, append=None, *args, **kwargs):
    return type(a) is Array and _same_dtype_as_numpy(a, prepend, append, strong=True)


#: NumPy functions whose flexarray implementation has NumPy's meaning only for some
#: arguments -> the test (the others run NumPy's): NumPy promotes clip's bounds and diff's
#: prepend/append with x, where flexarray's keep x's dtype (the standard's rule)
_NUMPY_MEANING = {np.clip: _clip_guard, np.diff: _diff_guard}

#: NumPy functions that write into an argument (its name); ``nan_to_num`` only with
#: ``copy=False``. With ``out`` (by keyword or position) that argument is written through
#: the array's memory, as with NumPy arrays, after the array's memory is made its own (a
#: lazy copy must not write its original, nor the original its copies).
_WRITES_ARG = {np.copyto: "dst", np.place: "arr", np.put: "a", np.putmask: "a",
               np.fill_diagonal: "a", np.put_along_axis: "arr", np.nan_to_num: "x"}

_written = {}  # NumPy function -> ((position or None, name), ...) of what it may write


def _written_params(func):
    """The parameters of NumPy function ``func`` that it may write into: ``out`` and
    :data:`_WRITES_ARG`'s, each with its position when it can be passed by position."""
    try:
        return _written[func]
    except KeyError:
        pass
    names = {"out", _WRITES_ARG.get(func)}
    found = []
    try:
        params = list(inspect.signature(func).parameters.values())
    except (TypeError, ValueError):  # no signature: only the keyword ``out`` is known
        params = []
    for i, p in enumerate(params):
        if p.name in names:
            positional = p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and all(
                q.kind != q.VAR_POSITIONAL for q in params[:i])
            found.append((i if positional else None, p.name))
    if not any(name == "out" for _, name in found):
        found.append((None, "out"))
    _written[func] = found = tuple(found)
    return found


def _writable_arg(v, writes):
    """An argument NumPy may write into, for NumPy (a tuple of them, for ``out``), its
    write registered in ``writes`` (an ExitStack) until NumPy returns."""
    if type(v) is Array:
        return writes.enter_context(writing(v))
    if isinstance(v, tuple):
        return tuple(_writable_arg(o, writes) for o in v)
    return v


def _written_args(func, args, kwargs, writes):
    """The arguments this call of NumPy's ``func`` writes, each as (its position, or None
    for a keyword, its name, the argument, its writable NumPy form, registered as written
    in ``writes``)."""
    if func is np.nan_to_num and kwargs.get("copy", args[1] if len(args) > 1 else True):
        return ()  # (nan_to_num writes x only with copy=False)
    found = []
    for pos, name in _written_params(func):
        if name in kwargs:
            found.append((None, name, kwargs[name], _writable_arg(kwargs[name], writes)))
        elif pos is not None and pos < len(args):
            found.append((pos, name, args[pos], _writable_arg(args[pos], writes)))
    return found


#: NumPy functions making a new array like a flexarray one (-> position of their dtype
#: argument): a dtype flexarray does not have
#: (structured, object, datetime) raises TypeError, as with CuPy (Dask's argmax then keeps
#: its values and indices apart instead of in one structured array)
_LIKE_CREATION = {np.empty_like: 1, np.zeros_like: 1, np.ones_like: 1, np.full_like: 2}


def _to_numpy(obj):
    """Arguments for NumPy: flexarray arrays as NumPy views of their memory (nested in
    lists and tuples too)."""
    if type(obj) is Array:
        return obj._arr
    if isinstance(obj, (list, tuple)) and any(type(o) is Array or isinstance(o, (list, tuple))
                                              for o in obj):
        return type(obj)(_to_numpy(o) for o in obj)
    return obj


def _arrays_in(obj, found):
    if type(obj) is Array:
        found.append(obj)
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            _arrays_in(o, found)
    return found


def _foreign_in(obj, found):
    """The NumPy arrays among the arguments (nested in lists, tuples and dicts)."""
    if type(obj) is np.ndarray:
        found.append(obj)
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            _foreign_in(o, found)
    elif isinstance(obj, dict):
        for o in obj.values():
            _foreign_in(o, found)
    return found


def _from_numpy(r, inputs, foreign=()):
    """NumPy's result as flexarray arrays: a view of an input's memory (``np.ravel``,
    ``np.real``, ``np.split``) joins that input's family, so writes through it are seen
    as with NumPy; memory of a NumPy array argument (``foreign``: an ``out``, a view of
    one) is shared as an import is; fresh arrays become new arrays; other objects are
    returned as they are."""
    if isinstance(r, (list, tuple)) and not hasattr(r, "_fields"):
        return type(r)(_from_numpy(e, inputs, foreign) for e in r)
    if isinstance(r, tuple):  # a named tuple
        return type(r)(*(_from_numpy(e, inputs, foreign) for e in r))
    if isinstance(r, np.generic):
        r = np.asarray(r)
    if type(r) is not np.ndarray:
        return r
    try:
        dtype = from_np(r.dtype)
    except TypeError:  # a dtype flexarray does not have (object, datetime, ...)
        return r
    for x in inputs:
        if r.size and x._arr.size and np.may_share_memory(r, x._arr):
            return _new(r, x._buf, dtype)
    for nd in foreign:
        if r.size and nd.size and np.may_share_memory(r, nd):
            return wrap_foreign(r)
    return wrap(r)


def array_function(self, func, types, args, kwargs):
    """NEP 18: a NumPy function called with flexarray arrays among its arguments.

    Functions the standard has (``np.sum``, ``np.concatenate``, ``np.where``, ...; see
    :data:`FUNCTIONS`) run flexarray's implementation when NumPy's arguments fit it; every
    other function, and every call with arguments flexarray does not take, runs NumPy's
    implementation on the arrays' memory and returns flexarray arrays (flexarray in,
    flexarray out; ``docs/numpy-interop.md`` lists both)."""
    if not isinstance(args, tuple) or not isinstance(kwargs, dict):
        raise TypeError(f"__array_function__: 'args' must be a tuple and 'kwargs' a dict (as "
                        f"NumPy passes them), got {type(args).__name__} and "
                        f"{type(kwargs).__name__}")
    if not all(issubclass(t, (Array, np.ndarray)) for t in types):
        return NotImplemented  # a duck array above flexarray (Dask, xarray) handles it
    if func in _LIKE_CREATION:
        pos = _LIKE_CREATION[func]
        dtype = kwargs.get("dtype", args[pos] if len(args) > pos else None)
        if dtype is not None:  # flexarray in, flexarray out: no structured/object results
            _dt.normalize(dtype, f"np.{func.__name__} of a flexarray array")
    impl = FUNCTIONS.get(func)
    if impl is not None and (func not in _NUMPY_MEANING or _NUMPY_MEANING[func](*args,
                                                                              **kwargs)):
        try:
            return impl(*args, **kwargs)
        except (TypeError, ValueError, IndexError):
            pass  # NumPy's meaning below (NumPy raises its own error if there is one)
    inputs = _arrays_in(args, [])
    with contextlib.ExitStack() as writes:
        # what NumPy writes first: making its memory its own may move its family's memory
        written = _written_args(func, args, kwargs, writes)
        np_args = list(_to_numpy(args))
        np_kwargs = {k: _to_numpy(v) for k, v in kwargs.items()}
        out = np_out = None
        for where, name, v, w in written:
            if where is None:
                np_kwargs[name] = w
            else:
                np_args[where] = w
            if name == "out" and v is not None:
                out, np_out = v, w
        impl = getattr(func, "_implementation", func)  # C-level (np.asarray(like=))
        r = impl(*np_args, **np_kwargs)
    if out is not None and r is np_out:
        return out  # NumPy returns ``out`` itself
    return _from_numpy(r, inputs, _foreign_in((args, kwargs), []))


def _settle_all(obj):
    """Compute every deferred array in ``obj`` (an argument: arrays, sequences, dicts)."""
    if isinstance(obj, Array):
        settled(obj)
    elif isinstance(obj, (list, tuple)):
        for o in obj:
            _settle_all(o)
    elif isinstance(obj, dict):
        for o in obj.values():
            _settle_all(o)


def _settling(protocol):
    """``protocol`` (NEP 13 or 18) for deferred arrays: their values computed first, so
    that NumPy meets plain arrays only."""
    def run(self, *args, **kwargs):
        _settle_all(args)
        _settle_all(kwargs)
        return protocol(self, *args, **kwargs)
    return run


def install(namespace, numpy_named=()) -> None:
    """Install both protocols on :class:`Array` (``namespace``: the complete flexarray
    namespace, for NEP 18's function table; ``numpy_named``: its NumPy-named extensions,
    routed from ``np.<name>`` too)."""
    Array.__array_ufunc__ = array_ufunc
    FUNCTIONS.update(_function_table(namespace, numpy_named))
    Array.__array_function__ = array_function
    Deferred.__array_ufunc__ = _settling(array_ufunc)  # (NumPy asks subclasses first)
    Deferred.__array_function__ = _settling(array_function)
    Array.__array_priority__ = 0.0  # as ndarray's (Dask's tensordot picks by it)
