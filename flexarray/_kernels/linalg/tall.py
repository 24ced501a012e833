"""The SVD of a tall matrix through its Gram matrix (private; NumPy and LAPACK).

LAPACK's ``gesdd`` on a tall matrix (m >> n) first reduces it with a Householder QR, whose
panel of n <= 64 columns is level-2 BLAS: one pass over the whole matrix per column,
memory-bound (50,000 x 64 float64: ~160 ms). CholeskyQR2 (Fukaya, Nakatsukasa, Yanagisawa,
Yamamoto 2014) gets the same factors from matrix products: ``G = X^H X``, ``R1 = chol(G)``,
``Q1 = X R1^-1``, then once more on ``Q1``; the SVD of the small ``R = R2 R1`` gives
``S`` and ``Vh``, and ``U = Q1 R2^-1 U_R``. Two passes make ``Q`` orthonormal to working
precision while ``cond(X)`` stays below ~``eps^-1/2``; past :data:`MAX_COND`, or when a
Cholesky factorization fails (rank deficiency, NaN), the caller's LAPACK SVD runs instead,
so the answer is always LAPACK's or as accurate as it (:func:`cholesky_qr2_svd`,
:func:`accepted`).

A well-conditioned ``X`` (cond <= :data:`MAX_COND_GRAM`) takes a shorter way from the same
``G``: its eigendecomposition ``G = V S^2 V^H`` gives ``S`` and ``V``, and ``U = X V S^-1``
(two passes over ``X`` instead of four: 50,000 x 64 float64 ~11 ms against ~25 ms). The
orthogonality of that ``U`` degrades as ``eps * cond(X)^2``; measured on 50,000 x 64 with
prescribed condition numbers (max |U^H U - I|; LAPACK 1.6-2.7e-15, CholeskyQR2 1.4-2.2e-15):
cond 1 2.2e-15, 10 7.4e-15, 30 3.8e-14, 100 3.2e-13. Singular values agreed with LAPACK's to
2e-15 of the largest up to cond 100 (:func:`gram_svd`).

The engine (``flexarray._engines.matmul.tall_svd``) chooses the way, forms ``G``, and
passes the m x n outputs, its product (``matmul``, on the thread pool) and the thread
context of LAPACK's calls (``lapack``); the functions here assume a 2-D float64/complex128
``x`` with m >= n.
"""
from __future__ import annotations

import numpy as np

__all__ = ["accepted", "cholesky_qr2_svd", "gram_svd"]

#: largest condition number taken through Cholesky QR (float64 work: eps^-1/2 ~ 6.7e7)
MAX_COND = 1e6
#: largest condition number taken through the eigendecomposition of the Gram matrix
MAX_COND_GRAM = 8.0


def _nn(lapack, f, a, **kwargs):
    """LAPACK's ``f`` on an n x n factor in the context ``lapack(a)`` (one thread for small
    n, so that no BLAS thread spins over the m x n products on the pool that follow)."""
    with lapack(a):
        return f(a, **kwargs)


def gram_svd(x, g, compute_uv, u, matmul, lapack):
    """The SVD of ``x`` from ``G = X^H X``'s eigendecomposition, ``U = X V S^-1`` written
    into ``u`` (m x n, of x's dtype; None without ``compute_uv``); None when cond(X)
    exceeds MAX_COND_GRAM (NaN included)."""
    lam, v = _nn(lapack, np.linalg.eigh, g)  # ascending
    if not lam[0] * MAX_COND_GRAM ** 2 >= lam[-1] > 0:
        return None
    s = np.sqrt(lam[::-1])
    if not compute_uv:
        return s
    v = v[:, ::-1]
    u = matmul(x, v / s, out=u)  # X V S^-1
    return u, s, np.ascontiguousarray(v.conj().T)


def cholesky_qr2_svd(x, g, compute_uv, q, u, matmul, lapack):
    """The SVD of ``x`` from CholeskyQR2 (R1 = L1^H, R2 = L2^H, ``Q1 = X R1^-1`` written
    into ``q``), with ``U = Q1 R2^-1 U_R`` written into ``u`` (None without
    ``compute_uv``). Raises LinAlgError where a Cholesky factorization fails."""
    l1 = _nn(lapack, np.linalg.cholesky, g)
    r1_inv = _nn(lapack, np.linalg.inv, l1).conj().T
    q1 = matmul(x, r1_inv, out=q)  # x R1^-1
    l2 = _nn(lapack, np.linalg.cholesky, matmul(q1.conj().T, q1))
    r = l2.conj().T @ l1.conj().T  # R2 R1
    if not compute_uv:
        return _nn(lapack, np.linalg.svd, r, compute_uv=False)
    u_r, s, vh = _nn(lapack, np.linalg.svd, r)
    w = _nn(lapack, np.linalg.inv, l2).conj().T @ u_r
    return matmul(q1, w, out=u), s, vh  # Q1 R2^-1 U_R


def accepted(r, compute_uv):
    """The SVD ``r`` (``(U, S, Vh)``, or ``S`` without ``compute_uv``), or None when its
    condition number exceeds MAX_COND (NaN included)."""
    s = r[1] if compute_uv else r
    return r if s[-1] * MAX_COND > s[0] else None  # (False for NaN too)
