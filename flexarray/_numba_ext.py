"""flexarray arrays as arguments of Numba-compiled functions (docs/numpy-interop.md, "Numba").

Numba imports this module through its own ``numba_extensions`` entry point (pyproject.toml)
when it creates its first compiled function, in any process where flexarray is installed;
flexarray itself never imports it, so ``import flexarray`` does not import Numba.

What a compiled function sees: an ``Array`` argument is typed as the NumPy array of its
elements (:class:`FlexArrayType`, a subclass of Numba's array type, so every array
operation Numba has applies to it) and unboxed through the array's export path,
``Array._export()``, exactly what ``np.asarray(x)`` does: the family's memory is made its
own (a lazy copy's source and its other copies never see a write) and pinned, and the
compiled code reads and writes that memory in place, with view semantics. Read-only arrays
(broadcasts, sliding windows) are typed read-only: Numba refuses a write at compile time.
bfloat16 has no Numba type: a TypeError names it and says what to do. Arrays a compiled
function returns are NumPy arrays, as everything Numba returns (``return x`` gives the
NumPy view of x's memory that ``np.asarray(x)`` gives).
"""
from __future__ import annotations

import ml_dtypes
from numba.core import cgutils, types
from numba.core.datamodel.models import ArrayModel
from numba.extending import NativeValue, register_model, typeof_impl, unbox

from ._array import Array

_BFLOAT16 = ml_dtypes.bfloat16


class FlexArrayType(types.Array):
    """A flexarray ``Array`` argument: Numba's array type of its elements' NumPy view,
    under its own name (its own compiled signatures, its own unboxing)."""

    def __init__(self, dtype, ndim, layout, readonly=False, aligned=True):
        kind = ("readonly " if readonly else "") + ("" if aligned else "unaligned ")
        super().__init__(dtype, ndim, layout, readonly=readonly, aligned=aligned,
                         name=f"flexarray.Array({kind}{dtype}, {ndim}d, {layout})")

    def as_numpy(self) -> types.Array:
        """Numba's plain array type of the same elements and layout."""
        return types.Array(self.dtype, self.ndim, self.layout, readonly=not self.mutable,
                           aligned=self.aligned)


register_model(FlexArrayType)(ArrayModel)


@typeof_impl.register(Array)
def _typeof_array(val, c):
    nd = val._arr
    if nd.dtype == _BFLOAT16:
        raise TypeError(
            f"Numba has no type for bfloat16: a flexarray array of dtype bfloat16 (shape "
            f"{nd.shape}) cannot be passed to a compiled function; pass "
            f"x.astype(flexarray.float32) instead")
    t = typeof_impl(nd, c)
    if not isinstance(t, types.Array):  # (Numba's answer for a dtype it cannot type)
        return t
    return FlexArrayType(t.dtype, t.ndim, t.layout, readonly=not t.mutable,
                         aligned=t.aligned)


@unbox(FlexArrayType)
def _unbox_array(typ, obj, c):
    """``obj._export()`` (the NumPy view ``__array__`` gives: own memory, pinned), then
    Numba's own unboxing of that ndarray."""
    builder = c.builder
    nd = c.pyapi.call_method(obj, "_export", ())
    value = cgutils.alloca_once(builder, c.context.get_value_type(typ))
    failed = cgutils.alloca_once_value(builder, cgutils.true_bit)
    with builder.if_then(cgutils.is_not_null(builder, nd), likely=True):
        native = c.unbox(typ.as_numpy(), nd)
        builder.store(native.value, value)
        builder.store(native.is_error, failed)
        if c.context.enable_nrt:  # (the array's meminfo holds nd from here on)
            c.pyapi.decref(nd)
    return NativeValue(builder.load(value), is_error=builder.load(failed))


def init() -> None:
    """Numba's ``numba_extensions`` entry point: importing this module registered
    everything above."""
