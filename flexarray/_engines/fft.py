"""The FFT engine: pocketfft through NumPy, on the thread pool where a batch is large, or
flexarray's Numba real FFT (``flexarray._kernels.fft``).

Chooses (gates in :mod:`.gates`, FFT):

- ``rfft``/``irfft``/``hfft``/``ihfft`` (and the last axis of ``rfftn``/``irfftn``) run the
  real-FFT kernel from ``gates.FFT_KERNEL_MIN_N_F32``/``_F64`` points: radix-4/2 for powers
  of two, a Bluestein convolution on it for float32 lengths of a large prime factor
  (``gates.BLUESTEIN_MIN_N``, ``BLUESTEIN_MIN_FACTOR``); shorter transforms and the other
  lengths go to pocketfft, which beat the kernel there at every batch size.
- pocketfft: NumPy's call as it is below a quarter of ``gates.FFT_THREADS_MIN`` reals of
  work (no threads, NumPy's own allocation); from there into one output in recycled
  memory (:mod:`flexarray._memory`, in NumPy's layout), the batch cut along its longest other
  axis on the pool's threads from ``gates.FFT_THREADS_MIN`` (pocketfft releases the GIL;
  NumPy itself runs every batch on one thread) (``flexarray._kernels.fft.pocket``).
- a lone long row (complex transforms from ``gates.FFT_FOUR_STEP_MIN_N`` points, real
  ones of an even length from ``FFT_FOUR_STEP_MIN_N_REAL``, not powers of two there) whose
  length splits into a matrix: the four-step FFT of pocketfft's batches on the pool
  (``flexarray._kernels.fft.fourstep``; pocketfft alone runs it on one thread, out of
  cache: 810,000 reals 7-13 ms, this way ~5-6).
- ``fft``/``ifft`` of real input from ``gates.FFT_FROM_REAL_MIN`` elements, in rows of at
  least ``gates.FFT_FROM_REAL_MIN_N`` points: the real transform and its mirror image,
  as SciPy does (half the work, no complex copy of the input); NumPy converts to complex.

Operands are NumPy arrays the frontend has validated, in the transform's compute dtype
(float32/float64 for the real transforms, complex64/complex128 for the others; fft/ifft
also take real input as it is); results are fresh NumPy arrays.
"""
import math

import numpy as np

from .. import _memory
from .._threads import threads_for
from . import gates

__all__ = ["fftn", "irfftn", "kernel_min_n", "rfftn", "transform", "use_bluestein"]

_SWAP = {"backward": "forward", "ortho": "ortho", "forward": "backward"}
_NUMPY = {"fft": np.fft.fft, "ifft": np.fft.ifft, "rfft": np.fft.rfft,
          "irfft": np.fft.irfft, "hfft": np.fft.hfft, "ihfft": np.fft.ihfft}
_F64_KIND = frozenset(map(np.dtype, (np.float64, np.complex128)))


def kernel_min_n(dtype):
    """The length from which the real transforms of compute dtype ``dtype`` run the
    kernel (``gates.FFT_KERNEL_MIN_N_F32``/``_F64``)."""
    return gates.FFT_KERNEL_MIN_N_F64 if dtype in _F64_KIND else gates.FFT_KERNEL_MIN_N_F32


_rfft_module = None  # flexarray._kernels.fft.rfft, imported on first use (it imports Numba)


def _kernels():
    global _rfft_module
    if _rfft_module is None:
        from .._kernels.fft import rfft
        _rfft_module = rfft
    return _rfft_module


def _largest_prime_factor(n):
    p, f = 1, 2
    while f * f <= n:
        while n % f == 0:
            p, n = f, n // f
        f += 1
    return max(p, n)


def use_bluestein(n, dtype):
    """The measured choice for a length n that is not a power of two: a Bluestein
    convolution on the power-of-two kernel for float32 lengths with a large prime factor,
    pocketfft (NumPy) otherwise."""
    return (np.dtype(dtype) == np.float32 and n >= gates.BLUESTEIN_MIN_N
            and _largest_prime_factor(n) >= gates.BLUESTEIN_MIN_FACTOR)


def _is_pow2(n):
    return n >= 2 and n & (n - 1) == 0


_CPLX = {"f": np.dtype(np.complex64), "d": np.dtype(np.complex128)}
_REAL = {"F": np.dtype(np.float32), "D": np.dtype(np.float64)}


def _fourstep():
    """``flexarray._kernels.fft.fourstep``, imported on first use (the package imports
    Numba)."""
    from .._kernels.fft import fourstep
    return fourstep


def _four_step(a, n, axis, points):
    """Whether a transform of ``n`` points along ``axis`` of ``a`` is a lone row that the
    four-step FFT takes (``gates.FFT_FOUR_STEP_MIN_N``, ``_REAL`` for the real transforms,
    whose complex transform has ``points = n // 2`` points): ``points`` splits into a
    matrix (``flexarray._kernels.fft.fourstep.split``)."""
    gate = gates.FFT_FOUR_STEP_MIN_N if points == n else gates.FFT_FOUR_STEP_MIN_N_REAL
    if n < gate or a.size != a.shape[axis]:
        return False
    return _fourstep().split(points) is not None


def _by_four_step(func, a, axis, length, out_len, out_dtype, points, cdt, *args):
    """``fourstep.<func>(row, *args, out, scratch, nthreads)`` of ``a``'s lone row along
    ``axis`` as a contiguous 1-D array of ``length`` points (cut, or zero-padded), into an
    output of ``a``'s shape with ``out_len`` along ``axis`` (returned), its scratch rows
    ``points`` complex points of ``cdt``; padding, output and scratch in recycled memory."""
    fourstep = _fourstep()
    row = a.reshape(-1)
    if row.shape[0] >= length:
        row = np.ascontiguousarray(row[:length])
    else:
        padded = _memory.empty((length,), a.dtype)
        padded[:row.shape[0]] = row
        padded[row.shape[0]:] = 0
        row = padded
    shape = list(a.shape)
    shape[axis] = out_len
    out = _memory.empty(tuple(shape), out_dtype)
    getattr(fourstep, func)(row, *args, out.reshape(-1),
                            _memory.empty((fourstep.SCRATCH[func], points), cdt),
                            threads_for(max(length, out_len), gates.FFT_THREADS_MIN))
    return out


def _rfft_kernel(a, n, axis, norm):
    """rfft by the kernel: powers of two, or Bluestein (:func:`use_bluestein`); a lone row
    of another even length by the four-step FFT (:func:`_four_step`); the other lengths by
    pocketfft into recycled memory."""
    if _is_pow2(n) or use_bluestein(n, a.dtype):
        return (_rfft_module or _kernels()).rfft(a, n, axis, norm)
    cdt = _CPLX[a.dtype.char]
    if n % 2 == 0 and _four_step(a, n, axis, n // 2):
        return _by_four_step("rfft", a, axis, n, n // 2 + 1, cdt, n // 2, cdt, norm)
    return _pocket_into(np.fft.rfft, a, n, axis, norm, n // 2 + 1, cdt)


def _irfft_kernel(a, n, axis, norm):
    """irfft by the kernel, as :func:`_rfft_kernel`."""
    rdt = _REAL[a.dtype.char]
    if _is_pow2(n) or use_bluestein(n, rdt):
        return (_rfft_module or _kernels()).irfft(a, n, axis, norm)
    if n % 2 == 0 and _four_step(a, n, axis, n // 2):
        return _by_four_step("irfft", a, axis, n // 2 + 1, n, rdt, n // 2, a.dtype, n, norm)
    return _pocket_into(np.fft.irfft, a, n, axis, norm, n, rdt)


def _hfft_kernel(a, n, axis, norm):
    return _irfft_kernel(np.conjugate(a), n, axis, _SWAP[norm])


def _ihfft_kernel(a, n, axis, norm):
    out = _rfft_kernel(a, n, axis, _SWAP[norm])
    return np.conjugate(out, out=out)


_REAL_FAMILY = frozenset({"rfft", "irfft", "hfft", "ihfft"})


def transform(func, a, n, axis, norm):
    """The 1-D transform ``func`` ("fft", "ifft", "rfft", "irfft", "hfft", "ihfft") of ``a``
    along the non-negative ``axis``, cut or zero-padded to ``n``, normalized by ``norm``
    (NumPy's semantics and result dtypes)."""
    if func in _REAL_FAMILY:
        if n >= (gates.FFT_KERNEL_MIN_N_F64 if a.dtype in _F64_KIND
                 else gates.FFT_KERNEL_MIN_N_F32):
            if func == "rfft":
                return _rfft_kernel(a, n, axis, norm)
            if func == "irfft":
                return _irfft_kernel(a, n, axis, norm)
            return (_hfft_kernel if func == "hfft" else _ihfft_kernel)(a, n, axis, norm)
    elif a.dtype.kind == "f":  # fft/ifft of real input
        if a.size >= gates.FFT_FROM_REAL_MIN and n >= gates.FFT_FROM_REAL_MIN_N:
            shape = list(a.shape)
            shape[axis] = n
            out = _memory.empty_like_order(a, shape, np.result_type(a.dtype, np.complex64))
            from .._kernels.fft import pocket
            return pocket.full_from_real(a, n, axis, norm, func == "ifft", out,
                                         _pocket_threads(a.shape, axis, n))
        a = a.astype(np.complex128 if a.dtype == np.float64 else np.complex64)
    if func in ("fft", "ifft") and _four_step(a, n, axis, n):
        inverse = func == "ifft"
        return _by_four_step("fft", a, axis, n, n, a.dtype, n, a.dtype, inverse,
                             _fourstep().norm_scale(norm, n, inverse))
    if a.size < gates.FFT_THREADS_MIN // 4:
        return _NUMPY[func](a, n, axis, norm)  # (no threads, NumPy's own allocation)
    real_in = func in ("rfft", "ihfft")
    out_len = n // 2 + 1 if real_in else n
    out_dtype = np.result_type(a.dtype, np.complex64) if real_in else \
        (np.finfo(a.dtype).dtype if func in ("irfft", "hfft") else a.dtype)
    return _pocket_into(_NUMPY[func], a, n, axis, norm, out_len, out_dtype)


def _pocket_threads(shape, axis, n):
    """The threads of a pocketfft batch: ``n`` points per row (the pool's, from
    ``gates.FFT_THREADS_MIN`` reals of work)."""
    return threads_for(n * (math.prod(shape) // max(shape[axis], 1)), gates.FFT_THREADS_MIN)


def _pocket_into(npfunc, a, n, axis, norm, out_len, out_dtype):
    """NumPy's 1-D transform ``npfunc`` with ``out_len`` outputs along ``axis`` of
    ``out_dtype``, into recycled memory in NumPy's layout, split over the pool's threads
    when large."""
    shape = list(a.shape)
    shape[axis] = out_len
    from .._kernels.fft import pocket
    return pocket.transform(npfunc, a, n, axis, norm,
                            _memory.empty_like_order(a, shape, out_dtype),
                            _pocket_threads(a.shape, axis, n))


def rfftn(a, s, axes, norm):
    """NumPy's ``rfftn(a, s, axes, norm)`` (real ``a``, two axes or more): the real-FFT
    kernel along the last axis from its gate, then NumPy's complex transforms along the
    others."""
    if s[-1] < kernel_min_n(a.dtype):
        return np.fft.rfftn(a, s, axes, norm)
    out = _rfft_kernel(a, s[-1], axes[-1], norm)
    return np.fft.fftn(out, s[:-1], axes[:-1], norm)


def irfftn(a, s, axes, norm):
    """NumPy's ``irfftn(a, s, axes, norm)`` (complex ``a``, two axes or more, none of
    length 0): NumPy's inverse transforms along all but the last axis, then the real-FFT
    kernel along it from its gate."""
    if s[-1] < kernel_min_n(a.dtype):
        return np.fft.irfftn(a, s, axes, norm)
    a = np.fft.ifftn(a, s[:-1], axes[:-1], norm)
    return _irfft_kernel(a, s[-1], axes[-1], norm)


def fftn(a, s, axes, norm, inverse):
    """NumPy's ``fftn`` (``ifftn`` with ``inverse``) of complex ``a`` over two axes or more
    (one axis: :func:`transform`)."""
    return (np.fft.ifftn if inverse else np.fft.fftn)(a, s, axes, norm)
