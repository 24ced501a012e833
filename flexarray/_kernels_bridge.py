"""Where the frontend reaches the Numba kernels: lazy imports, size gates, fallbacks.

Each function returns None when no kernel applies, and the caller uses NumPy.
"""


def int_matmul(a, b, np_dtype):
    """Integer matmul through the Numba kernel (NumPy has no BLAS path for integers)."""
    try:
        from ._kernels import matmul as k
    except ImportError:
        return None
    f = getattr(k, "int_matmul", None)
    return None if f is None else f(a, b, np_dtype)
