"""NumPy-level elementwise kernels that follow the standard's special cases where NumPy's
own ufunc does not (each function says which cases it mends)."""
import numpy as np

left_shift = np.left_shift
right_shift = np.right_shift
remainder = np.remainder
expm1 = np.expm1
sign = np.sign
pow = np.power


def floor_divide(a, b, out=None, dtype=None):
    """``np.floor_divide``, except that an infinite operand beside a finite one gives the
    correctly signed infinity or zero (NumPy returns NaN / -1.0 there)."""
    r = np.floor_divide(a, b, out=out, dtype=dtype)
    if r.dtype.kind == "f":
        a_inf, b_inf = np.isinf(a), np.isinf(b)
        fix = a_inf != b_inf
        if fix.any():
            q = np.true_divide(a, b, dtype=dtype)
            np.copyto(r, q, where=fix)
    return r
