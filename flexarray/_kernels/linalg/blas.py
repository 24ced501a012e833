"""BLAS GEMM called from inside Numba kernels (private).

A kernel that alternates its own loops with GEMMs (Winograd transforms around their
products) otherwise returns to Python for each ``np.matmul``: ~10 us of interpreter work
and a GIL hand-off per product, and with two worker threads each hand-off may wait for a
sleeping thread to wake (20-50 us on a virtual machine). Calling the BLAS that NumPy loaded, through
its function pointer, keeps a whole block inside one ``nogil`` call.

:func:`gemm_pointer` finds ``cblas_sgemm``/``cblas_dgemm`` of the OpenBLAS that NumPy uses
(NumPy's wheels: ``scipy_cblas_sgemm64_``, 64-bit integers), through threadpoolctl; 0
when there is none such (another BLAS, 32-bit integers, threadpoolctl missing): callers
then keep their ``np.matmul`` path. The pointer is an argument of the kernels, not a
constant inside them, so that Numba's disk cache stays valid across processes.
"""
import ctypes
import functools

import numpy as np
from llvmlite import ir
from numba import types
from numba.extending import intrinsic

__all__ = ["gemm", "gemm_pointer"]

_ROW_MAJOR, _NO_TRANS = 101, 111


@functools.lru_cache(maxsize=None)
def gemm_pointer(dtype) -> int:
    """Address of the 64-bit-integer ``cblas_?gemm`` for float32/float64, or 0."""
    kind = {np.dtype(np.float32): "s", np.dtype(np.float64): "d"}.get(np.dtype(dtype))
    if kind is None:
        return 0
    try:
        import threadpoolctl
        libs = threadpoolctl.ThreadpoolController().select(internal_api="openblas")
        paths = [lib.filepath for lib in libs.lib_controllers]
    except Exception:
        return 0
    for path in paths:
        try:
            dll = ctypes.CDLL(path)
        except OSError:
            continue
        for name in (f"scipy_cblas_{kind}gemm64_", f"cblas_{kind}gemm64_"):
            fn = getattr(dll, name, None)
            if fn is not None:
                return ctypes.cast(fn, ctypes.c_void_p).value or 0
    return 0


@intrinsic
def gemm(typingctx, fn, m, n, k, a, ao, lda, b, bo, ldb, c, co, ldc):
    """c[co + i*ldc + j] = sum_l a[ao + i*lda + l] b[bo + l*ldb + j] for i < m, j < n
    (row-major, 1-D arrays of one float dtype, offsets in elements), through the
    ``cblas_?gemm`` at address ``fn`` (see :func:`gemm_pointer`). No bounds checks: the
    caller guarantees them."""
    def codegen(context, builder, sig, args):
        i32, i64 = ir.IntType(32), ir.IntType(64)
        ety = context.get_data_type(sig.args[4].dtype)
        pty = ety.as_pointer()
        fnty = ir.FunctionType(ir.VoidType(), [i32, i32, i32, i64, i64, i64, ety, pty, i64,
                                               pty, i64, ety, pty, i64])
        call = builder.inttoptr(args[0], fnty.as_pointer())

        def at(i):  # pointer to array argument i at its offset (argument i + 1)
            ary = context.make_array(sig.args[i])(context, builder, args[i])
            return builder.gep(ary.data, [args[i + 1]])
        builder.call(call, [i32(_ROW_MAJOR), i32(_NO_TRANS), i32(_NO_TRANS),
                            args[1], args[2], args[3], ir.Constant(ety, 1.0), at(4), args[6],
                            at(7), args[9], ir.Constant(ety, 0.0), at(10), args[12]])
        return context.get_dummy_value()
    if not (isinstance(a, types.Array) and a.dtype == b.dtype == c.dtype
            and a.dtype in (types.float32, types.float64)):
        return None
    i = types.int64
    return types.void(i, i, i, i, a, i, i, b, i, i, c, i, i), codegen
