"""Linear-algebra kernels: integer matmul (``matmul``), BLAS GEMM callable from inside Numba
kernels (``blas``), and the SVD of a tall matrix through its Gram matrix (``tall``, NumPy
and LAPACK).

Contract: batched, broadcasting ``out = a @ b`` into the zero-filled output the engine
gives, on the thread count it gives; integers wrap modulo 2**bits as NumPy. Floating-point
products (float16/bfloat16 through float32 SGEMM, rounded once) stay with NumPy's BLAS,
chosen and run by ``flexarray._engines.matmul``.
"""
