"""The SVD of a tall (or wide) matrix through Cholesky QR (private; NumPy engine).

LAPACK's ``gesdd`` on a tall matrix (m >> n) first reduces it with a Householder QR, whose
panel of n <= 64 columns is level-2 BLAS: one pass over the whole matrix per column,
memory-bound (50,000 x 64 float64: ~160 ms). CholeskyQR2 (Fukaya, Nakatsukasa, Yanagisawa,
Yamamoto 2014) gets the same factors from matrix products: ``G = X^H X``, ``R1 = chol(G)``,
``Q1 = X R1^-1``, then once more on ``Q1``; the SVD of the small ``R = R2 R1`` gives
``S`` and ``Vh``, and ``U = Q1 R2^-1 U_R``. Two passes make ``Q`` orthonormal to working
precision while ``cond(X)`` stays below ~``eps^-1/2``; past :data:`MAX_COND`, or when a
Cholesky factorization fails (rank deficiency, NaN), the caller's LAPACK SVD runs instead,
so the answer is always LAPACK's or as accurate as it.

A well-conditioned ``X`` (cond <= :data:`MAX_COND_GRAM`) takes a shorter way from the same
``G``: its eigendecomposition ``G = V S^2 V^H`` gives ``S`` and ``V``, and ``U = X V S^-1``
(two passes over ``X`` instead of four: 50,000 x 64 float64 ~11 ms against ~25 ms). The
orthogonality of that ``U`` degrades as ``eps * cond(X)^2``; measured on 50,000 x 64 with
prescribed condition numbers (max |U^H U - I|; LAPACK 1.6-2.7e-15, CholeskyQR2 1.4-2.2e-15):
cond 1 2.2e-15, 10 7.4e-15, 30 3.8e-14, 100 3.2e-13. Singular values agreed with LAPACK's to
2e-15 of the largest up to cond 100.
"""
from __future__ import annotations

import numpy as np

from flexarray import _blas
from flexarray._memory import empty  # (the m x n factors in warm pooled memory)

__all__ = ["tall_svd"]

#: largest condition number taken through Cholesky QR (float64 work: eps^-1/2 ~ 6.7e7)
MAX_COND = 1e6
#: largest condition number taken through the eigendecomposition of the Gram matrix
MAX_COND_GRAM = 8.0


def _nn(f, a, **kwargs):
    """LAPACK's ``f`` on an n x n factor in ``_blas.lapack_threads``: one thread for small
    n, so that no BLAS thread spins over the m x n products on the pool that follow."""
    with _blas.lapack_threads(a):
        return f(a, **kwargs)


def _from_gram(x, g, compute_uv):
    """The SVD from ``G = X^H X``'s eigendecomposition, or None when cond(X) exceeds
    MAX_COND_GRAM (NaN included)."""
    lam, v = _nn(np.linalg.eigh, g)  # ascending
    if not lam[0] * MAX_COND_GRAM ** 2 >= lam[-1] > 0:
        return None
    s = np.sqrt(lam[::-1])
    if not compute_uv:
        return s
    v = v[:, ::-1]
    u = _blas.matmul(x, v / s, out=empty(x.shape, x.dtype))  # X V S^-1
    return u, s, np.ascontiguousarray(v.conj().T)


def _svd_of_r(x, g, compute_uv):
    """The SVD of x's ``R`` from CholeskyQR2 (R1 = L1^H, R2 = L2^H), with ``U`` lifted to
    x's."""
    l1 = _nn(np.linalg.cholesky, g)
    r1_inv = _nn(np.linalg.inv, l1).conj().T
    q1 = _blas.matmul(x, r1_inv, out=empty(x.shape, x.dtype))  # x R1^-1
    l2 = _nn(np.linalg.cholesky, _blas.matmul(q1.conj().T, q1))
    r = l2.conj().T @ l1.conj().T  # R2 R1
    if not compute_uv:
        return _nn(np.linalg.svd, r, compute_uv=False)
    u, s, vh = _nn(np.linalg.svd, r)
    w = _nn(np.linalg.inv, l2).conj().T @ u
    return _blas.matmul(q1, w, out=empty(q1.shape, q1.dtype)), s, vh  # Q1 R2^-1 U_R


def tall_svd(x, *, compute_uv: bool = True):
    """The reduced SVD ``(U, S, Vh)`` (or ``S`` alone) of a 2-D float64/complex128 ``x``
    with m >= n, or None when ``x`` is too ill-conditioned for Cholesky QR (a Cholesky
    factorization fails, or cond(x) > MAX_COND, or NaN)."""
    try:
        with np.errstate(all="ignore"):
            g = _blas.matmul(x.conj().T, x)
            r = _from_gram(x, g, compute_uv)
            if r is None:
                r = _svd_of_r(x, g, compute_uv)
    except np.linalg.LinAlgError:
        return None
    s = r[1] if compute_uv else r
    return r if s[-1] * MAX_COND > s[0] else None  # (False for NaN too)
