"""Small helpers shared by the flexarray.nn kernel files (private)."""
from flexarray._kernels import kernel


@kernel
def _valid_range(n_out, k_off, stride, n_in):
    """Output positions o in [lo, hi) with 0 <= o*stride + k_off < n_in."""
    if k_off >= 0:
        lo = 0
    else:
        lo = (-k_off + stride - 1) // stride
    last = n_in - 1 - k_off
    if last < 0:
        return 0, 0
    hi = last // stride + 1
    if hi > n_out:
        hi = n_out
    if lo > hi:
        lo = hi
    return lo, hi
