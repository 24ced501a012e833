"""The fft extension (Array API 2025.12): 14 functions.

The functions validate and call the FFT engine (``flexarray._engines.fft``): ``rfft``/
``irfft`` (and the last axis of ``rfftn``/``irfftn``, and ``hfft``/``ihfft``) run
flexarray's own Numba real FFT for power-of-two lengths from its gate (1024 points):
radix-4/2 butterflies on SIMD lanes, batches and huge transforms split over threads (see
docs/fft.md). Everything else, the shorter transforms and the other lengths, is pocketfft
through NumPy, called with as little in front of it as possible.

Precision follows the input: float32 -> complex64 -> float32, float64 -> complex128 ->
float64, never silently upcast. float16/bfloat16 input computes in float32. Transforms of
complex input also accept real floating input (taken as complex of the same precision);
integer and boolean input raise TypeError (cast with ``astype`` first).

``norm`` is "backward" (default: the inverse scales by 1/n), "ortho" (both by 1/sqrt(n))
or "forward" (the forward transform scales by 1/n).
"""
from __future__ import annotations

import sys

import numpy as np

from . import _dtypes as _dt
from ._array import Array, wrap
from ._device import check_device
from ._engines import fft as engine
from ._helpers import check_alloc, check_array, check_choice, check_int, normalize_axis

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft",
           "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_NORMS = ("backward", "ortho", "forward")
_COMPLEX = {"f": np.complex64, "d": np.complex128}


# --- argument checks ---------------------------------------------------------------------

def _norm(func, norm):
    return check_choice(norm, _NORMS, func, "norm")


def _length(func, name, v, default):
    """A transform length: `default` when None; ValueError below 1 and beyond the intp
    range."""
    n = default if v is None else check_int(v, func, name)
    if n < 1:
        hint = (f" (the default for x's length along the axis); pass {name} explicitly"
                if v is None else "")
        raise ValueError(f"{func}: the transform length {name}={n} is invalid, it must be "
                         f">= 1{hint}")
    check_alloc((n,), 16, func, lambda: f"a transform of length '{name}'={n}")
    return n


def _real_input(func, x):
    """NumPy view of a real floating x (float16/bfloat16 computed in float32)."""
    _dt.check_dtype(func, "x", x, "real floating",
                    "use fft/fftn for complex input" if _dt.is_complex(x.dtype) else
                    "cast it first, e.g. astype(x, flexarray.float64)")
    a = x._arr
    return a if a.dtype in (np.float32, np.float64) else a.astype(np.float32)


def _complex_input(func, x):
    """NumPy view of a floating x as complex of the same precision."""
    _dt.check_dtype(func, "x", x, "floating-point",
                    "cast it first, e.g. astype(x, flexarray.complex128)")
    a = x._arr
    if a.dtype in (np.complex64, np.complex128):
        return a
    return a.astype(np.complex128 if a.dtype == np.float64 else np.complex64)


def _axis_list(func, x, axes):
    """``axes`` (a sequence of integers) as a list of distinct normalized axes of x."""
    if not isinstance(axes, (tuple, list, range)):
        raise TypeError(f"{func}: 'axes' must be a sequence of integers, got "
                        f"{type(axes).__name__}")
    ax = [normalize_axis(check_int(a, func, "axes"), x.ndim, func, "axes") for a in axes]
    if len(set(ax)) != len(ax):
        raise ValueError(f"{func}: 'axes' has repeated axes: {list(axes)}; give each "
                         f"axis at most once")
    return ax


def _axes(func, x, s, axes):
    """(s, axes) of an n-dimensional transform, both lists; s entries resolved."""
    if axes is None:
        if s is not None:
            raise ValueError(f"{func}: 's' was given without 'axes'; pass 'axes' too "
                             f"(the standard requires both)")
        ax = list(range(x.ndim))
    else:
        ax = _axis_list(func, x, axes)
    if s is None:
        for a in ax:
            if x.shape[a] < 1:
                raise ValueError(f"{func}: axis {a} of x (shape {x.shape}) has length 0, an "
                                 f"invalid transform length; pass 's' and 'axes'")
        return None, ax
    if not isinstance(s, (tuple, list, range)):
        raise TypeError(f"{func}: 's' must be a sequence of integers, got {type(s).__name__}")
    s = [check_int(v, func, "s") for v in s]
    if len(s) != len(ax):
        raise ValueError(f"{func}: 's' has {len(s)} entries but 'axes' has {len(ax)}; "
                         f"give one length per transformed axis")
    out = []
    for v, a in zip(s, ax):
        v = x.shape[a] if v == -1 else v
        if v < 1:
            raise ValueError(f"{func}: s={s} holds an invalid length {v}; lengths must be "
                             f">= 1 (or -1 for the input's size along the axis)")
        check_alloc((v,), 16, func, lambda: f"a transform of length {v} (from 's'={s})")
        out.append(v)
    return out, ax


# --- one-dimensional ---------------------------------------------------------------------
# One path for the six: the common case (float32/64 or complex64/128 input, an int axis, the
# default n, a valid norm) costs a few attribute reads on top of pocketfft's ~4 us small
# calls; anything else goes through the full checks, which raise the documented errors.

_REAL_IN = frozenset(map(np.dtype, (np.float32, np.float64)))
_COMPLEX_IN = frozenset(map(np.dtype, (np.complex64, np.complex128)))
_FLOAT_IN = _REAL_IN | _COMPLEX_IN
_MAX_N = sys.maxsize // 16     # longer: _length raises ValueError


def _one_dim(func, real_in, half_in, x, n, axis, norm):
    """The 1-D transform ``func`` of x along axis by the engine, on x read in the compute
    dtype (real_in: real, else complex; fft/ifft take real floating input as it is: the
    engine may transform it as real). half_in: x is a half spectrum, n defaults to
    2*(m-1)."""
    if not isinstance(x, Array):
        check_array(x, func)
    a = x._arr
    if a.dtype not in (_REAL_IN if real_in else _COMPLEX_IN) and not (
            func in ("fft", "ifft") and a.dtype in _REAL_IN):
        a = (_real_input if real_in else _complex_input)(func, x)
    nd = a.ndim
    if type(axis) is not int or not -nd <= axis < nd:
        axis = normalize_axis(axis, nd, func)
    elif axis < 0:
        axis += nd
    m = a.shape[axis]
    default = 2 * (m - 1) if half_in else m
    if n is None and default >= 1:
        n = default
    elif type(n) is not int or not 1 <= n <= _MAX_N:
        n = _length(func, "n", n, default)
    if type(norm) is not str or norm not in _NORMS:
        _norm(func, norm)
    if m == 0 and half_in:  # an empty half spectrum zero-padded to n: zeros (NumPy's
        shape = list(a.shape)  # irfft/hfft return unwritten memory there)
        shape[axis] = n
        return wrap(np.zeros(shape, np.finfo(a.dtype).dtype))
    return wrap(engine.transform(func, a, n, axis, norm))


def fft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """One-dimensional discrete Fourier transform along `axis` (cut or zero-padded to n)."""
    return _one_dim("fft", False, False, x, n, axis, norm)


def ifft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """One-dimensional inverse discrete Fourier transform along `axis`."""
    return _one_dim("ifft", False, False, x, n, axis, norm)


def rfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """Real-input FFT along `axis`: n//2 + 1 complex outputs (float32 -> complex64)."""
    return _one_dim("rfft", True, False, x, n, axis, norm)


def irfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """Inverse of :func:`rfft`: n real outputs (default n = 2*(m-1), m = x.shape[axis])."""
    return _one_dim("irfft", False, True, x, n, axis, norm)


def hfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """FFT of a signal with Hermitian symmetry given by its first half: n real outputs
    (default n = 2*(m-1))."""
    return _one_dim("hfft", False, True, x, n, axis, norm)


def ihfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: str = "backward") -> Array:
    """Inverse of :func:`hfft` for real input: n//2 + 1 complex outputs."""
    return _one_dim("ihfft", True, False, x, n, axis, norm)


# --- n-dimensional -----------------------------------------------------------------------

def _c2cn(func, x, s, axes, norm):
    check_array(x, func)
    s, ax = _axes(func, x, s, axes)
    _norm(func, norm)
    if len(ax) == 1 and x.dtype in _FLOAT_IN:  # the one-dimensional
        # transform's engines (threads; real input from the real transform)
        return (fft if func == "fftn" else ifft)(x, n=None if s is None else s[0],
                                                 axis=ax[0], norm=norm)
    a = _complex_input(func, x)
    if not ax:
        return wrap(a.copy())
    return wrap(engine.fftn(a, s, ax, norm, func == "ifftn"))


def fftn(x: Array, /, *, s=None, axes=None, norm: str = "backward") -> Array:
    """n-dimensional discrete Fourier transform over `axes` (all by default)."""
    return _c2cn("fftn", x, s, axes, norm)


def ifftn(x: Array, /, *, s=None, axes=None, norm: str = "backward") -> Array:
    """n-dimensional inverse discrete Fourier transform over `axes` (all by default)."""
    return _c2cn("ifftn", x, s, axes, norm)


def rfftn(x: Array, /, *, s=None, axes=None, norm: str = "backward") -> Array:
    """n-dimensional real-input FFT: rfft along the last of `axes`, then fft along the
    others (norm over the whole logical size prod(s))."""
    check_array(x, "rfftn")
    a = _real_input("rfftn", x)
    s, ax = _axes("rfftn", x, s, axes)
    _norm("rfftn", norm)
    if not ax:
        return wrap(a.astype(_COMPLEX[a.dtype.char]))
    s = [a.shape[i] for i in ax] if s is None else s
    if len(ax) == 1:  # scipy.signal.oaconvolve's blocks: rfft's engines (threads, kernel)
        return rfft(x, n=s[0], axis=ax[0], norm=norm)
    return wrap(engine.rfftn(a, s, ax, norm))


def irfftn(x: Array, /, *, s=None, axes=None, norm: str = "backward") -> Array:
    """Inverse of :func:`rfftn`: ifft along all but the last of `axes`, then irfft along
    the last (default length 2*(m-1))."""
    check_array(x, "irfftn")
    a = _complex_input("irfftn", x)
    s, ax = _axes("irfftn", x, s, axes)
    _norm("irfftn", norm)
    if not ax:
        return wrap(a.real.copy())
    if s is None:
        s = [a.shape[i] for i in ax]
        s[-1] = 2 * (s[-1] - 1)
        if s[-1] < 1:
            raise ValueError(f"irfftn: the default output length 2*(m-1) is {s[-1]} for "
                             f"m={a.shape[ax[-1]]} along axis {ax[-1]}; pass 's' and 'axes'")
    if len(ax) == 1:
        return irfft(x, n=s[0], axis=ax[0], norm=norm)
    if any(a.shape[i] == 0 for i in ax):  # no data: zeros (NumPy's irfftn: unwritten)
        shape = list(a.shape)
        for i, v in zip(ax, s):
            shape[i] = v
        return wrap(np.zeros(shape, np.finfo(a.dtype).dtype))
    return wrap(engine.irfftn(a, s, ax, norm))


# --- helpers -----------------------------------------------------------------------------

def _freq_args(func, n, d, dtype, device):
    n = check_int(n, func, "n")
    if n < 1:
        raise ValueError(f"{func}: the window length n must be >= 1, got {n}")
    check_alloc((n,), 8, func, lambda: f"the frequencies of 'n'={n}")
    check_device(device, func)
    if dtype is None:
        dtype = _dt.default_float
    elif (dtype := _dt.normalize(dtype, func)) not in (_dt.float32, _dt.float64):
        raise ValueError(f"{func}: 'dtype' must be a real floating-point dtype "
                         f"(float32 or float64), got {dtype}")
    if isinstance(d, bool) or not isinstance(d, (int, float, np.integer, np.floating)):
        raise TypeError(f"{func}: the sample spacing d must be a real number, got "
                        f"{type(d).__name__}")
    return n, float(d), dtype


def fftfreq(n: int, /, *, d: float = 1.0, dtype=None, device=None) -> Array:
    """Sample frequencies of a length-n FFT: [0, 1, ..., -2, -1] / (d*n)."""
    n, d, dtype = _freq_args("fftfreq", n, d, dtype, device)
    k = np.concatenate([np.arange(0, (n - 1) // 2 + 1), np.arange(-(n // 2), 0)])
    return wrap((k / (n * d)).astype(dtype))


def rfftfreq(n: int, /, *, d: float = 1.0, dtype=None, device=None) -> Array:
    """Sample frequencies of a length-n rfft: [0, 1, ..., n//2] / (d*n)."""
    n, d, dtype = _freq_args("rfftfreq", n, d, dtype, device)
    return wrap((np.arange(0, n // 2 + 1) / (n * d)).astype(dtype))


def _shift(func, x, axes, inverse):
    check_array(x, func)
    if axes is None:
        ax = list(range(x.ndim))
    elif isinstance(axes, (int, np.integer)) and not isinstance(axes, bool):
        ax = [normalize_axis(axes, x.ndim, func, "axes")]
    else:  # (a shift has no transform length: empty axes shift as nothing)
        ax = _axis_list(func, x, axes)
    a = x._arr
    shift = [-(a.shape[i] // 2) if inverse else a.shape[i] // 2 for i in ax]
    return wrap(np.roll(a, shift, ax) if ax else a.copy())


def fftshift(x: Array, /, *, axes=None) -> Array:
    """Move the zero-frequency term to the centre along `axes` (all by default)."""
    return _shift("fftshift", x, axes, False)


def ifftshift(x: Array, /, *, axes=None) -> Array:
    """Inverse of :func:`fftshift` (differs from it by one sample for odd lengths)."""
    return _shift("ifftshift", x, axes, True)
