"""FFT plans: per (length, dtype) the radix stage sizes, the input permutation and the
twiddle factors laid out for the lane kernels, computed in float64 and rounded once, kept
in a small least-recently-used cache (shared with the Bluestein chirps of ``rfft.py``)."""

import numpy as np

from flexarray._kernels.fft.codegen import _nlanes, aligned_empty, pad16

def _stage_sizes(n):
    """Stage lengths L of the radix plan of _fft_lanes for a power-of-two n."""
    k = n.bit_length() - 1
    if k == 0:
        return []
    sizes = [2 if k == 1 else (8 if k % 2 else 4)]
    while sizes[-1] * 4 <= n:
        sizes.append(sizes[-1] * 4)
    return sizes



def _perm(n):
    """Input order of the in-place DIT: lane-block row i takes sequence element perm[i]."""
    radices, prev = [], 1
    for L in _stage_sizes(n):
        radices.append(L // prev)
        prev = L

    def order(idx, rad):
        if len(idx) == 1 or not rad:
            return idx
        r = rad[-1]
        return np.concatenate([order(idx[p::r], rad[:-1]) for p in range(r)])

    return order(np.arange(n, dtype=np.int64), radices)



def _expi(num, den):
    """exp(-2 pi i num/den) in float64, the angle reduced exactly first."""
    num = np.asarray(num, dtype=np.int64) % den
    return np.exp(-2j * np.pi * (num / den))



def _lane_twiddles(n):
    """Twiddles w^j, w^2j, w^3j of the radix-4 stages, in the order _fft_lanes reads them."""
    parts = []
    for L in _stage_sizes(n)[1:]:
        j = np.arange(L // 4)
        parts.append(_expi(np.arange(1, 4)[None, :] * j[:, None], L).ravel())
    return np.concatenate(parts + [np.ones(1, np.complex128)])   # never empty



class Plan:
    """Everything one (nc, dtype) needs: orders and twiddles in the compute dtype.

    Twiddles are computed in float64 and rounded once, so float32 transforms stay well
    inside the 1e-5 accuracy target.
    """

    def __init__(self, nc, dtype):
        dtype = np.dtype(dtype)
        self.nc = nc
        self.dtype = dtype
        nl = _nlanes(dtype)
        k = nc.bit_length() - 1
        # four-step split nc = n1 * n2 with both factors multiples of the lane width
        self.rowwise = nc >= nl * nl
        if self.rowwise:
            self.n1 = 1 << (k // 2)
            self.n2 = nc // self.n1
        else:
            self.n1, self.n2 = nc, 1
        split = lambda w: (np.ascontiguousarray(w.real, dtype), np.ascontiguousarray(w.imag, dtype))
        self.perm1 = _perm(self.n1)
        self.tw1r, self.tw1i = split(_lane_twiddles(self.n1))
        self.perm2 = np.argsort(_perm(self.n2))     # destination row of each column j2
        self.tw2r, self.tw2i = split(_lane_twiddles(self.n2))
        # four-step twiddles w_nc^(k1*j2), laid out [k1, j2]
        k1 = np.arange(self.n1)[:, None]
        j2 = np.arange(self.n2)[None, :]
        self.tw4r, self.tw4i = split(_expi(k1 * j2, nc).ravel())
        # real <-> half-length complex twiddles w_(2nc)^k, k = 0..nc
        self.wr, self.wi = split(_expi(np.arange(nc + 1), 2 * nc))
        # the kernels take all of it as three arrays (see _plan): each array argument
        # costs the Numba dispatcher ~1 us, a tuple of arrays far more
        self.ip = np.concatenate([self.perm1, self.perm2])
        parts = [self.tw1r, self.tw1i, self.tw2r, self.tw2i, self.tw4r, self.tw4i, self.wr,
                 self.wi]
        self.tw = aligned_empty(sum(pad16(a.size) for a in parts), dtype)
        o = 0
        for a in parts:                 # each part 64-byte aligned, as _plan slices them
            self.tw[o:o + a.size] = a
            o += pad16(a.size)
        self.meta = np.array([self.n1, self.n2, self.tw1r.size, self.tw2r.size], np.int64)



_PLANS = {}



CACHE_ENTRIES = 32      # plans and Bluestein chirps kept (least recently used dropped)



def _cached(cache, key, make):
    """cache[key], made on a miss; the cache keeps its CACHE_ENTRIES most recent keys."""
    v = cache.pop(key, None)
    if v is None:
        v = make()
    cache[key] = v
    while len(cache) > CACHE_ENTRIES:
        del cache[next(iter(cache))]
    return v



def get_plan(nc, dtype):
    """The cached :class:`Plan` for complex length nc (a power of two) and float dtype."""
    return _cached(_PLANS, (nc, np.dtype(dtype).char), lambda: Plan(nc, dtype))

