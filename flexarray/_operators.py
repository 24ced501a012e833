"""Python operators and NumPy's ufunc protocol on :class:`Array`, installed from one table.

This module sits above the chapter modules: it binds their functions to the array's
dunder methods (``x + y`` is ``add(x, y)``, ``x += y`` writes into ``x``'s memory, ``x @ y``
is ``matmul``) and to NumPy's ``__array_ufunc__`` protocol (NEP 13), so that ``np.exp(x)``,
``np.add(x, 1)`` or ``ndarray * x`` run flexarray's code and return flexarray arrays.
"""
from __future__ import annotations

import dis
import sys

import numpy as np

from . import _elementwise
from ._array import Array, wrap
from ._creation import asarray
from ._linear_algebra import matmul

__all__ = ["install"]

#: dunder stem -> elementwise function, for ``x <op> y``, ``y <op> x`` and ``x <op>= y``
BINARY = {
    "add": "add", "sub": "subtract", "mul": "multiply", "truediv": "divide",
    "floordiv": "floor_divide", "mod": "remainder", "pow": "pow", "and": "bitwise_and",
    "or": "bitwise_or", "xor": "bitwise_xor", "lshift": "bitwise_left_shift",
    "rshift": "bitwise_right_shift",
}
COMPARISONS = {"lt": "less", "le": "less_equal", "gt": "greater", "ge": "greater_equal",
               "eq": "equal", "ne": "not_equal"}
UNARY = {"neg": "negative", "pos": "positive", "abs": "abs", "invert": "bitwise_invert"}

#: what an operator takes beside an array (NumPy scalars count as Python scalars; anything
#: else returns NotImplemented, so NumPy arrays reach the ufunc protocol below)
OPERAND_TYPES = (Array, bool, int, float, complex, np.generic)

_BINARY_OP = dis.opmap["BINARY_OP"]


def _called_by_operator() -> bool:
    """Whether the code that called the operator method (two frames up from here) is
    executing a binary operator (BINARY_OP), not an explicit call or a C function."""
    f = sys._getframe(2)
    return f.f_code.co_code[f.f_lasti] == _BINARY_OP


class _TempProbe:
    def __add__(self, other):  # the same shape as the operator methods below
        return sys.getrefcount(self)


#: reference count of ``self`` inside an operator method when ``self`` is a temporary
_TEMP_REFS = _TempProbe() + 0


def _forward(func):
    def op(self, other):
        if not isinstance(other, OPERAND_TYPES):
            return NotImplemented
        return func(self, other)
    return op


def _forward_eliding(name, func):
    """Like ``_forward``; a large temporary left operand (``a * b`` in ``a * b + c``)
    takes the result in its own memory, as NumPy's temporary elision does: a fresh
    output costs first-touch page faults (~5 ms per 8 MB here) while the temporary's
    memory is warm. It is a temporary only if nothing but the interpreter's stack
    holds it (the reference count) and the caller is the operator syntax itself
    (BINARY_OP): an explicit ``t.__add__(c)`` shows the same count for a named ``t``."""
    elide_min, apply_elided = _elementwise.ELIDE_MIN, _elementwise.apply_elided

    def op(self, other):
        if not isinstance(other, OPERAND_TYPES):
            return NotImplemented
        if (self._arr.size >= elide_min and sys.getrefcount(self) <= _TEMP_REFS
                and _called_by_operator()):
            r = apply_elided(name, self, other)
            if r is not None:
                return r
        return func(self, other)
    return op


def _reflected(func):
    def op(self, other):
        if not isinstance(other, OPERAND_TYPES):
            return NotImplemented
        return func(other, self)
    return op


def _inplace(name):
    def op(self, other):
        if not isinstance(other, OPERAND_TYPES):
            return NotImplemented
        _elementwise.apply_inplace(name, self, other)
        return self
    return op


def _imatmul(self, other):
    if not isinstance(other, Array):
        return NotImplemented
    r = matmul(self, other)
    if r.shape != self.shape or r.dtype != self.dtype:
        raise ValueError(f"x @= y must keep x's shape {self.shape} and dtype "
                         f"{self.dtype}; got {r.shape} {r.dtype}")
    self._writable()[...] = r._arr
    return self


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


def _operand(a):
    """An input of a NumPy ufunc call as flexarray takes it: arrays as they are, NumPy
    arrays shared (as NumPy's asarray shares), NumPy scalars as Python scalars."""
    if type(a) is Array:
        return a
    if isinstance(a, np.ndarray):
        return asarray(a)
    if isinstance(a, np.generic) and a.dtype.kind in "biufc":
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


def array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """NEP 13: ``np.<ufunc>(...)`` with flexarray arrays among the arguments.

    A plain call of a ufunc the standard has (``np.exp(x)``, ``np.add(x, 1)``,
    ``ndarray * x``) runs flexarray's function; every other call (``out=``, ``where=``,
    ``reduce``, ``accumulate``, ``at``, ufuncs the standard lacks, and inputs the standard
    refuses but NumPy takes, such as ``np.add`` of two bool arrays) runs NumPy's kernel on
    the arrays' memory, writes into ``out`` arrays through their views, and returns
    flexarray arrays.
    """
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
        kwargs["out"] = tuple(o._writable() if type(o) is Array else o for o in out)
    if "where" in kwargs:
        kwargs["where"] = _numpy_input(kwargs["where"])
    r = getattr(ufunc, method)(*map(_numpy_input, inputs), **kwargs)
    if out is not None and len(out) == 1 and not isinstance(r, tuple):
        return out[0]
    return _result(r, out)


def install() -> None:
    """Bind every operator, its reflected and in-place forms, and NumPy's protocols."""
    for stem, name in BINARY.items():
        func = getattr(_elementwise, name)
        setattr(Array, f"__{stem}__", _forward_eliding(name, func))
        setattr(Array, f"__r{stem}__", _reflected(func))
        setattr(Array, f"__i{stem}__", _inplace(name))
    for stem, name in COMPARISONS.items():
        setattr(Array, f"__{stem}__", _forward(getattr(_elementwise, name)))
    for stem, name in UNARY.items():
        setattr(Array, f"__{stem}__", getattr(_elementwise, name))
    Array.__matmul__ = _forward(matmul)
    Array.__rmatmul__ = _reflected(matmul)
    Array.__imatmul__ = _imatmul
    Array.__hash__ = None
    Array.__array_ufunc__ = array_ufunc
