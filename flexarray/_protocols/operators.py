"""Python's operators on :class:`Array`, built from one table.

``x + y`` is ``add(x, y)``, ``y + x`` its reflection, ``x += y`` writes into ``x``'s memory
(seen by its views), ``x @ y`` is ``matmul``; each dunder method is made by one builder per
kind (forward, reflected, in place, comparison) from the table of stems below. A large
temporary left (or right) operand may take the result in its own memory, as NumPy's
temporary elision does (:data:`ELISION`).
"""
from __future__ import annotations

import dis
import sys
import sysconfig

import numpy as np

from .. import _elementwise
from .._array import Array
from .._deferred import Deferred
from .._creation import asarray
from .._linear_algebra import matmul

__all__ = ["install", "BINARY", "COMPARISONS", "UNARY", "ELISION"]

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

#: what an operator takes beside an array (NumPy scalars count as Python scalars; NumPy
#: arrays are shared as ``asarray`` shares them, see :func:`_coerce`; anything else returns
#: NotImplemented)
OPERAND_TYPES = (Array, float, int, complex, np.generic)  # (bool: an int)


def _coerce(other):
    """A NumPy array operand as flexarray takes it (shared memory), or None when it is not
    one or its dtype is not one of flexarray's. Operators take NumPy arrays themselves
    rather than through the ufunc protocol below: ``x += ndarray`` must write into ``x``
    (a NotImplemented there made Python rebind ``x`` to ``x + ndarray``, and views of ``x``
    kept the old values), and ``x * ndarray`` costs ~1 us, not ~3.5 us."""
    if type(other) is not np.ndarray:
        return None
    try:
        return asarray(other)
    except TypeError:
        return None


def _with_ndarray(func, a, b, other):
    """``func(a, b)`` with the NumPy array ``other`` (one of a, b) taken as flexarray's;
    NotImplemented, so that NumPy's reflected operator and the ufunc protocol give NumPy's
    meaning, for dtypes and promotions flexarray does not have (int8 + uint64 ndarray)."""
    fast = getattr(func, "with_ndarray", None)
    if fast is not None and type(other) is np.ndarray:
        r = fast(a, b)
        if r is not None:
            return r
    o = _coerce(other)
    if o is None:
        return NotImplemented
    try:
        return func(o, b) if a is other else func(a, o)
    except TypeError:
        return NotImplemented


#: whether temporaries may be told from named arrays by their reference count. Proven (by
#: tests/test_reliability.py) on CPython 3.11-3.13 with the GIL: there the interpreter's
#: stack owns a reference to every operand. CPython 3.14 pushes borrowed references
#: (LOAD_FAST_BORROW), so a named local shows a temporary's count and would be
#: overwritten; free-threaded builds count references differently; other interpreters
#: have no sys.getrefcount to trust. Elsewhere every operator allocates its result.
ELISION = (sys.implementation.name == "cpython" and (3, 11) <= sys.version_info[:2] <= (3, 13)
           and not sysconfig.get_config_var("Py_GIL_DISABLED"))

_BINARY_OP = dis.opmap.get("BINARY_OP")


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
            return _with_ndarray(func, self, other, other)
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
        if type(other) is not Array and not isinstance(other, OPERAND_TYPES):
            return _with_ndarray(func, self, other, other)
        if (self._arr.size >= elide_min and sys.getrefcount(self) <= _TEMP_REFS
                and _called_by_operator()):
            r = apply_elided(name, self, other)
            if r is not None:
                return r
        return func(self, other)
    return op


def _equality(stem, func):
    """``==``/``!=``: as the other comparisons, but a list or tuple operand raises
    TypeError (NumPy compares elementwise; Python's fallback would answer one False or
    True for the whole array: a silent wrong answer)."""
    symbol = "==" if stem == "eq" else "!="

    def op(self, other):
        if not isinstance(other, OPERAND_TYPES):  # (as _forward's, with the check)
            if isinstance(other, (list, tuple)):
                raise TypeError(f"{symbol}: a flexarray array compared with a "
                                f"{type(other).__name__} is not compared elementwise; "
                                f"convert it first: x {symbol} flexarray.asarray(...)")
            return _with_ndarray(func, self, other, other)
        return func(self, other)
    return op


def _reflected(func):
    def op(self, other):
        if not isinstance(other, OPERAND_TYPES):
            return _with_ndarray(func, other, self, other)
        return func(other, self)
    return op


def _reflected_eliding(name, func):
    """Like ``_reflected``; a large temporary right operand (``-2 * (a @ b)``) takes the
    result in its own memory, as in :func:`_forward_eliding` (NumPy elides it too: in
    scikit-learn's euclidean_distances, ``-2 * X @ Y.T`` of 256 x 50,000 float64)."""
    elide_min, apply_elided = _elementwise.ELIDE_MIN, _elementwise.apply_elided

    def op(self, other):
        if not isinstance(other, OPERAND_TYPES):
            return _with_ndarray(func, other, self, other)
        if (self._arr.size >= elide_min and sys.getrefcount(self) <= _TEMP_REFS
                and _called_by_operator()):
            r = apply_elided(name, self, other, reflected=True)
            if r is not None:
                return r
        return func(other, self)
    return op


def _inplace(name):
    def op(self, other):
        if not isinstance(other, OPERAND_TYPES):
            nd = other
            if (other := _coerce(nd)) is None:
                if type(nd) is np.ndarray:  # NotImplemented would rebind x: a lost write
                    raise TypeError(f"{name} in place: y is a NumPy array of dtype "
                                    f"{nd.dtype}, which flexarray does not have; allowed: "
                                    f"flexarray arrays, NumPy arrays of its dtypes, scalars")
                return NotImplemented
        _elementwise.apply_inplace(name, self, other)
        return self
    return op


def _imatmul(self, other):
    if not isinstance(other, Array) and (other := _coerce(other)) is None:
        return NotImplemented
    r = matmul(self, other)
    if r.shape != self.shape or r.dtype != self.dtype:
        raise ValueError(f"x @= y must keep x's shape {self.shape} and dtype "
                         f"{self.dtype}; got {r.shape} {r.dtype}")
    self._write(_assign, r._arr)
    return self


def _assign(out, r):
    out[...] = r


def install() -> None:
    """Bind every operator, its reflected and in-place forms, to :class:`Array`."""
    for stem, name in BINARY.items():
        func = getattr(_elementwise, name)
        setattr(Array, f"__{stem}__", _forward_eliding(name, func) if ELISION else
                _forward(func))
        setattr(Array, f"__r{stem}__", _reflected_eliding(name, func) if ELISION else
                _reflected(func))
        setattr(Array, f"__i{stem}__", _inplace(name))
        if ELISION:  # (a deferred result is not a temporary to write into: it fuses)
            setattr(Deferred, f"__{stem}__", _forward(func))
            setattr(Deferred, f"__r{stem}__", _reflected(func))
    for stem, name in COMPARISONS.items():
        setattr(Array, f"__{stem}__", _forward(getattr(_elementwise, name)) if stem not in
                ("eq", "ne") else _equality(stem, getattr(_elementwise, name)))
    for stem, name in UNARY.items():
        setattr(Array, f"__{stem}__", getattr(_elementwise, name))
    Array.__matmul__ = _forward(matmul)
    Array.__rmatmul__ = _reflected(matmul)
    Array.__imatmul__ = _imatmul
    Array.__hash__ = None
