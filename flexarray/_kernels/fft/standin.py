"""The real FFT kernel's NumPy stand-in (private): while ``rfft._unit`` compiles in the
background (~6 s of CPU per dtype), :func:`launch` computes what ``rfft._launch`` would,
bit for bit: every addition, product and fused multiply-add of the kernel in the same
order, on all the rows at once (NumPy's arrays take the place of the kernel's lanes: each
lane's arithmetic is independent of the others').

What the kernel does, step by step (``rfft.py``): z[j] = x[2j] + i x[2j+1] (rfft, the
complex transforms) or the packing of the half spectrum (irfft); the complex FFT of
length nc: one in-place decimation-in-time (:func:`_dit`, the stages of ``_fft_lanes``:
a twiddle-free radix-2/4/8 first stage, then radix-4 stages) of rows in ``perm1`` order,
or for nc >= lanes^2 the six-step (column FFTs, the twiddle ``w^(k1 j2)`` and transpose
into ``perm2`` order, row FFTs); the inverse transforms run the forward one on (im, re);
then the unpacking into the spectrum (rfft) or the scaled stores.

Fused multiply-adds are rounded once, as the hardware's: float32 through a float64 sum
made round-to-odd from its exact error, float64 by an exact product (Veltkamp/Dekker) and
a round-to-odd sum (Boldo and Melquiond's emulation). The float64 emulation is exact
without underflow or overflow: inputs outside the ranges it checks (:func:`fits`), and
any product that comes near them (:class:`Unsafe`), go to the kernel instead.
"""
import numpy as np

from flexarray._kernels.fft.codegen import _dft4, _dft8
from flexarray._kernels.fft.plans import get_plan

RFFT, IRFFT, CFFT, ICFFT = 0, 1, 2, 3           # (rfft.py's kinds)
_SPLIT = 134217729.0                             # 2^27 + 1 (Veltkamp's split of a float64)


class Unsafe(Exception):
    """A float64 product near underflow or overflow: the emulated fused multiply-add might
    round differently from the hardware's (the caller runs the kernel)."""


def fits(flat, dtype):
    """Whether the stand-in's arithmetic is exact for this input: finite, and for float64
    of magnitudes in [2^-400, 2^400] (or zero); float32 from 2^100 down."""
    if not flat.size:
        return True
    a = np.abs(flat)
    if not np.isfinite(a).all():
        return False
    if np.dtype(dtype) == np.float32:
        return bool(a.max() < 2.0 ** 100)
    nz = a[a != 0]
    return bool(a.max() < 2.0 ** 400 and (not nz.size or nz.min() > 2.0 ** -400))


def _two_sum(a, b):
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _round_odd(s, e):
    """The round-to-odd value of the exact sum s + e (s its rounding to nearest)."""
    fix = (e != 0) & ((s.view(np.int64) & 1) == 0) & np.isfinite(s)
    if fix.any():
        s = s.copy()
        s[fix] = np.nextafter(s[fix], np.where(e[fix] > 0, np.inf, -np.inf))
    return s


def _fma(a, b, c):
    """a*b + c rounded once (the kernel's ``llvm.fma``), elementwise; a, b, c arrays of
    one float dtype (broadcastable)."""
    with np.errstate(all="ignore"):
        if a.dtype == np.float32:
            p = a.astype(np.float64) * b.astype(np.float64)            # exact
            s, e = _two_sum(p, np.broadcast_to(c, p.shape).astype(np.float64))
            return _round_odd(s, e).astype(np.float32)
        a, b = np.broadcast_arrays(a, b)
        p = a * b
        ap = np.abs(p)
        if ((ap > 2.0 ** 900) | ((ap < 2.0 ** -900) & (p != 0))).any():
            raise Unsafe
        ca = _SPLIT * a
        ah = ca - (ca - a)
        al = a - ah
        cb = _SPLIT * b
        bh = cb - (cb - b)
        bl = b - bh
        pe = ((ah * bh - p) + ah * bl + al * bh) + al * bl              # a*b = p + pe
        th, tl = _two_sum(np.broadcast_to(c, p.shape), p)
        return th + _round_odd(*_two_sum(tl, pe))


def _cmul(ar, ai, wr, wi):
    """codegen._cmul: (ar*wr - ai*wi, ar*wi + ai*wr), one fused multiply-add each."""
    return _fma(ar, wr, -(ai * wi)), _fma(ar, wi, ai * wr)


def _dit(re, im, twr, twi):
    """``_fft_lanes`` on (n, lanes) arrays (rows in the plan's input order): the forward
    FFT of each column, natural order out."""
    n = re.shape[0]
    if n < 2:
        return re, im
    dt = re.dtype
    k = n.bit_length() - 1
    L = 2 if k == 1 else (8 if k % 2 else 4)
    xr, xi = re.reshape(n // L, L, -1), im.reshape(n // L, L, -1)
    pr, pi = [xr[:, q] for q in range(L)], [xi[:, q] for q in range(L)]
    if L == 2:
        out = [(pr[0] + pr[1], pi[0] + pi[1]), (pr[0] - pr[1], pi[0] - pi[1])]
    elif L == 4:
        out = _dft4(np.add, np.subtract, pr, pi)
    else:
        h = dt.type(np.sqrt(0.5))
        out = _dft8(np.add, np.subtract, np.multiply, np.negative, h, pr, pi)
    re = np.stack([o[0] for o in out], axis=1).reshape(n, -1)
    im = np.stack([o[1] for o in out], axis=1).reshape(n, -1)
    L *= 4
    toff = 0
    while L <= n:
        Ls = L // 4
        xr, xi = re.reshape(n // L, 4, Ls, -1), im.reshape(n // L, 4, Ls, -1)
        t = toff + 3 * np.arange(Ls)
        pr, pi = [xr[:, 0]], [xi[:, 0]]
        for q in range(1, 4):
            wr, wi = twr[t + q - 1][None, :, None], twi[t + q - 1][None, :, None]
            a, b = _cmul(xr[:, q], xi[:, q], wr, wi)
            pr.append(a)
            pi.append(b)
        out = _dft4(np.add, np.subtract, pr, pi)
        re = np.stack([o[0] for o in out], axis=1).reshape(n, -1)
        im = np.stack([o[1] for o in out], axis=1).reshape(n, -1)
        toff += 3 * Ls
        L *= 4
    return re, im


def _fft(zr, zi, pl):
    """The complex FFT of each column of (nc, rows) arrays, as ``_unit`` computes it."""
    nc, R = zr.shape
    if not pl.rowwise:
        return _dit(zr[pl.perm1], zi[pl.perm1], pl.tw1r, pl.tw1i)
    n1, n2 = pl.n1, pl.n2
    ar = zr.reshape(n1, n2, R)[pl.perm1].reshape(n1, -1)
    ai = zi.reshape(n1, n2, R)[pl.perm1].reshape(n1, -1)
    ar, ai = _dit(ar, ai, pl.tw1r, pl.tw1i)
    tr, ti = _cmul(ar.reshape(n1, n2, R), ai.reshape(n1, n2, R),
                   pl.tw4r.reshape(n1, n2, 1), pl.tw4i.reshape(n1, n2, 1))
    qr, qi = np.empty((n2, n1, R), zr.dtype), np.empty((n2, n1, R), zr.dtype)
    qr[pl.perm2] = tr.transpose(1, 0, 2)
    qi[pl.perm2] = ti.transpose(1, 0, 2)
    qr, qi = _dit(qr.reshape(n2, -1), qi.reshape(n2, -1), pl.tw2r, pl.tw2i)
    return qr.reshape(nc, R), qi.reshape(nc, R)


def _pack(flat, offs, es, nc, pl, s, vector_first):
    """irfft's Z[j] (j < nc, natural order) times s from the half spectrum X[0..nc]:
    ``_pack_complex``'s scalar formula with its fix-up of Z[0], or (``vector_first``: the
    six-step on contiguous input, whose first stage packs) ``_pack_values``'s, which takes
    X[0]'s and X[nc]'s imaginary parts as zero."""
    dt = flat.dtype
    j = np.arange(nc)
    pa = offs[None, :] + (j * es)[:, None]
    pb = offs[None, :] + ((nc - j) * es)[:, None]
    ar, ai, br, bi = flat[pa], flat[pa + 1], flat[pb], flat[pb + 1]
    sc = dt.type(s)
    wr, wi = pl.wr[:nc, None], pl.wi[:nc, None]
    with np.errstate(all="ignore"):
        if vector_first:
            ai[0] = 0
            bi[0] = 0
        dr, di = ar - br, ai + bi
        tr = _fma(wr, dr, wi * di)
        ti = _fma(wr, di, -(wi * dr))
        zr = sc * ((ar + br) - ti)
        zi = sc * ((ai - bi) + tr)
        if not vector_first:
            zr[0] = sc * (ar[0] + br[0])
            zi[0] = sc * (ar[0] - br[0])
    return zr, zi


def _unpack(zr, zi, nc, pl, s, out, obase):
    """``_unpack_real``: the spectrum X[0..nc] of each real row from its half-length
    transform Z, times s, into ``out`` as float pairs from ``obase``."""
    dt = zr.dtype
    h = dt.type(0.5 * s)
    half = nc // 2
    with np.errstate(all="ignore"):
        if half > 0:
            k = np.arange(1, half + 1)
            ar, ai, br, bi = zr[k], zi[k], zr[nc - k], zi[nc - k]
            er, ei = ar + br, ai - bi
            orr, oi = ai + bi, br - ar
            wr, wi = pl.wr[k, None], pl.wi[k, None]
            pr = _fma(orr, wr, -(oi * wi))
            pi = _fma(orr, wi, oi * wr)
            o = obase[None, :] + 2 * k[:, None]
            out[o] = h * (er + pr)
            out[o + 1] = h * (ei + pi)
            lo = k != half                  # (X[nc - half] is X[half] when nc is even)
            k2 = k[lo]
            o2 = obase[None, :] + 2 * (nc - k2)[:, None]
            out[o2] = (h * (er - pr))[lo]
            out[o2 + 1] = (h * (pi - ei))[lo]
        h2 = dt.type(2) * h
        out[obase] = h2 * (zr[0] + zi[0])
        out[obase + 1] = h - h
        out[obase + 2 * nc] = h2 * (zr[0] - zi[0])
        out[obase + 2 * nc + 1] = h - h


def launch(kind, flat, offs, es, out, olen, nc, dtype, scale):
    """``rfft._launch`` in NumPy (the same arguments, the same bits). Raises
    :class:`Unsafe` (before writing ``out``) where the emulation could differ."""
    pl = get_plan(nc, dtype)
    R = offs.shape[0]
    obase = offs.dtype.type(olen) * np.arange(R, dtype=np.int64)
    with np.errstate(all="ignore"):
        if kind == IRFFT:
            zr, zi = _pack(flat, offs, es, nc, pl, scale, pl.rowwise and es == 2)
        else:
            j = np.arange(nc)
            p = offs[None, :] + (2 * j * es)[:, None]
            zr, zi = flat[p], flat[p + es]
        swap = kind in (IRFFT, ICFFT)
        if swap:                    # the inverse: the forward transform on (im, re)
            zr, zi = zi, zr
        zr, zi = _fft(zr, zi, pl)
        if swap:
            zr, zi = zi, zr
        if kind == RFFT:
            _unpack(zr, zi, nc, pl, scale, out, obase)
            return
        sc = dtype.type(1.0 if kind == IRFFT else scale)
        o = obase[None, :] + 2 * np.arange(nc)[:, None]
        out[o] = sc * zr
        out[o + 1] = sc * zi
