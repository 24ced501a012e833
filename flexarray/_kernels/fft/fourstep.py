"""A long lone transform as a four-step FFT of pocketfft's batched transforms, on the pool
(private; NumPy's functions as kernels).

pocketfft (NumPy's ``np.fft``) transforms one long row out of cache: ``rfft`` of 810,000
reals (a 5-smooth length, SciPy's ``fftconvolve`` of 800,000 points) took 7-13 ms, and
NumPy runs it on one thread. The four-step algorithm (Bailey, "FFTs in external or hierarchical
memory", 1990) views the ``m`` points as an ``n1 x n2`` matrix (``m = n1 n2``, both near
``sqrt(m)``: :func:`split`): the transforms of its ``n2`` columns (length ``n1``), one
twiddle factor per element, the transforms of its ``n1`` rows (length ``n2``), and a
transpose into the natural order. Each step is a batch of short transforms or a pass,
cut into ``PIECES`` pieces (by the shape alone: the same bits on any number of threads)
that the pool's threads take in turn: 810,000 reals ~5-6 ms.

Real transforms of an even length ``n`` take the complex transform of half the length of
the reals paired as complex numbers (``x[2j] + i x[2j+1]``: a view, no copy) and one pass
that separates the even and odd points' spectra (:func:`rfft`), or builds them for the
inverse (:func:`irfft`).

The FFT engine (``flexarray._engines.fft``) chooses these (a lone row from
``gates.FFT_FOUR_STEP_MIN_N`` points whose length splits), prepares contiguous operands
of the transform's length and allocates the outputs and the scratch rows (``SCRATCH``).
"""
from __future__ import annotations

import functools
import math

import numpy as np

from flexarray import _threads

__all__ = ["SCRATCH", "fft", "irfft", "norm_scale", "rfft", "split"]

#: complex scratch rows of the transform's complex length each function takes
SCRATCH = {"fft": 2, "rfft": 5, "irfft": 5}

#: pieces of each step, whatever the thread count
PIECES = 4
#: the shorter side of the matrix at least this long (else pocketfft's own way is as good)
MIN_SIDE = 16


def norm_scale(norm, n, inverse=False):
    """The factor NumPy's ``norm`` applies to a transform of ``n`` points (the forward
    one, or with ``inverse`` the inverse one)."""
    if norm == "ortho":
        return 1.0 / math.sqrt(n)
    return 1.0 / n if (norm == "forward") != inverse else 1.0


def split(m):
    """``(n1, n2)`` with ``n1 n2 = m``, ``n1`` the largest divisor of ``m`` up to
    ``sqrt(m)``; None when it is shorter than ``MIN_SIDE`` (m prime or nearly)."""
    n1 = math.isqrt(m)
    while m % n1:
        n1 -= 1
    return (n1, m // n1) if n1 >= MIN_SIDE else None


@functools.lru_cache(maxsize=4)  # (each as large as the transform's input)
def _twiddles(m, n1, n2, dtype, inverse):
    """``exp(-+2 pi i k1 j2 / m)`` for the ``n1 x n2`` matrix (the exponent's integer
    reduced modulo ``m`` first: every factor as accurate as one ``exp``), read-only."""
    k = np.multiply.outer(np.arange(n1, dtype=np.int64), np.arange(n2, dtype=np.int64)) % m
    t = np.exp((2j if inverse else -2j) * np.pi / m * k).astype(dtype, copy=False)
    t.flags.writeable = False
    return t


@functools.lru_cache(maxsize=4)
def _half_twiddles(n, dtype, inverse):
    """``-i/2 exp(-2 pi i k / n)`` for ``k = 0 .. n/2``: the odd points' factor of
    :func:`rfft`; with ``inverse`` its conjugate, ``i/2 exp(2 pi i k / n)``, that of
    :func:`irfft`; read-only."""
    t = -0.5j * np.exp(-2j * np.pi / n * np.arange(n // 2 + 1))
    t = (np.conjugate(t) if inverse else t).astype(dtype, copy=False)
    t.flags.writeable = False
    return t


def _pieces(total):
    p = min(PIECES, total)
    return [slice(total * i // p, total * (i + 1) // p) for i in range(p)]


def _steps(steps, nthreads):
    """Each step's pieces, the pool's threads taking them in turn; one step after another."""
    for step, pieces in steps:
        _threads.run_items(step, pieces, nthreads, pin=False)


def fft(z, inverse, scale, out, scratch, nthreads=1):
    """The complex transform of the 1-D contiguous ``z`` (forward, or with ``inverse`` the
    unnormalized inverse), times ``scale``, into ``out`` (1-D contiguous, ``z``'s length and
    dtype); ``split(len(z))`` must not be None; ``scratch``: ``SCRATCH["fft"]`` contiguous
    rows of ``z``'s length and dtype. Returns ``out``."""
    m = z.shape[0]
    n1, n2 = split(m)
    a = z.reshape(n1, n2)
    b, c = scratch[0].reshape(n1, n2), scratch[1].reshape(n1, n2)
    t = _twiddles(m, n1, n2, z.dtype, inverse)
    sub, norm = (np.fft.ifft, "forward") if inverse else (np.fft.fft, "backward")  # unscaled
    o = out.reshape(n2, n1)

    def columns(s):
        sub(a[:, s], axis=0, norm=norm, out=b[:, s])
        np.multiply(b[:, s], t[:, s], out=b[:, s])

    def rows(s):
        sub(b[s], axis=1, norm=norm, out=c[s])

    def transpose(s):
        if scale == 1.0:
            o[s] = c[:, s].T
        else:
            np.multiply(c[:, s].T, scale, out=o[s])

    _steps([(columns, _pieces(n2)), (rows, _pieces(n1)), (transpose, _pieces(n2))], nthreads)
    return out


def _combine(u, v, w, out, d):
    """``out = (u + v) / 2 + w (u - v)`` elementwise (``d``: scratch of their shape)."""
    np.subtract(u, v, out=d)
    np.multiply(d, w, out=d)
    np.add(u, v, out=out)
    np.multiply(out, 0.5, out=out)
    np.add(out, d, out=out)


def rfft(x, norm, out, scratch, nthreads=1):
    """NumPy's ``rfft(x, norm=norm)`` of the 1-D contiguous real ``x`` of even length
    ``n`` (``split(n // 2)`` not None) into ``out`` (complex, ``n // 2 + 1``);
    ``scratch``: ``SCRATCH["rfft"]`` complex rows of ``n // 2``."""
    n = x.shape[0]
    m = n // 2
    cdt = np.result_type(x.dtype, np.complex64)
    z, mirror, d = scratch[2], scratch[3], scratch[4]
    fft(x.view(cdt), False, 1.0, z, scratch, nthreads)
    w = _half_twiddles(n, cdt, False)
    scale = norm_scale(norm, n)
    # X[k] = (Z[k] + conj(Z[m - k])) / 2 - i/2 W^k (Z[k] - conj(Z[m - k])), with Z[m] = Z[0]
    np.conjugate(z[:1], out=mirror[:1])
    np.conjugate(z[:0:-1], out=mirror[1:])

    def post(s):
        _combine(z[s], mirror[s], w[s], out[s], d[s])
        if scale != 1.0:
            np.multiply(out[s], scale, out=out[s])

    _steps([(post, _pieces(m))], nthreads)
    _combine(z[:1], mirror[:1], w[m:], out[m:], d[:1])  # X[m]
    if scale != 1.0:
        np.multiply(out[m:], scale, out=out[m:])
    return out


def irfft(y, n, norm, out, scratch, nthreads=1):
    """NumPy's ``irfft(y, n, norm=norm)`` of the 1-D complex ``y`` of ``n // 2 + 1``
    points (``n`` even, ``split(n // 2)`` not None) into ``out`` (real, contiguous, ``n``);
    ``scratch``: ``SCRATCH["irfft"]`` complex rows of ``n // 2``."""
    m = n // 2
    cdt = y.dtype
    w = _half_twiddles(n, cdt, True)
    scale = norm_scale(norm, n, inverse=True)
    # Z[k] = E[k] + i O[k] = (Y[k] + conj(Y[m - k])) / 2 + i/2 W^-k (Y[k] - conj(Y[m - k]))
    # (the spectra of the even and odd points), and x = ifft_m(2 Z) scaled as irfft's norm
    mirror, z, d = scratch[2], scratch[3], scratch[4]
    np.conjugate(y[m:0:-1], out=mirror)
    _steps([(lambda s: _combine(y[s], mirror[s], w[s], z[s], d[s]), _pieces(m))], nthreads)
    ends = np.array([y[0].real, y[m].real], cdt)  # (as NumPy's, the imaginary parts of
    _combine(ends[:1], ends[1:], w[:1], z[:1], d[:1])  # the 0th and nth/2 points ignored)
    fft(z, True, 2.0 * scale, out.view(cdt), scratch, nthreads)
    return out
