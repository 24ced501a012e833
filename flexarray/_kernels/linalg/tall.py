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
"""
from __future__ import annotations

import numpy as np

from flexarray._memory import empty  # (the m x n factors in warm pooled memory)

__all__ = ["tall_svd"]

#: largest condition number taken through Cholesky QR (float64 work: eps^-1/2 ~ 6.7e7)
MAX_COND = 1e6


def _svd_of_r(x, compute_uv):
    """The SVD of x's ``R`` from CholeskyQR2 (R1 = L1^H, R2 = L2^H), with ``U`` lifted to
    x's."""
    l1 = np.linalg.cholesky(x.conj().T @ x)
    q1 = np.matmul(x, np.linalg.inv(l1).conj().T, out=empty(x.shape, x.dtype))  # x R1^-1
    l2 = np.linalg.cholesky(q1.conj().T @ q1)
    r = l2.conj().T @ l1.conj().T  # R2 R1
    if not compute_uv:
        return np.linalg.svd(r, compute_uv=False)
    u, s, vh = np.linalg.svd(r)
    w = np.linalg.inv(l2).conj().T @ u
    return np.matmul(q1, w, out=empty(q1.shape, q1.dtype)), s, vh  # Q1 R2^-1 U_R


def tall_svd(x, *, compute_uv: bool = True):
    """The reduced SVD ``(U, S, Vh)`` (or ``S`` alone) of a 2-D float64/complex128 ``x``
    with m >= n, or None when ``x`` is too ill-conditioned for Cholesky QR (a Cholesky
    factorization fails, or cond(x) > MAX_COND, or NaN)."""
    try:
        with np.errstate(all="ignore"):
            r = _svd_of_r(x, compute_uv)
    except np.linalg.LinAlgError:
        return None
    s = r[1] if compute_uv else r
    return r if s[-1] * MAX_COND > s[0] else None  # (False for NaN too)
