"""Linear-algebra kernels: integer and float16/bfloat16 matmul (``matmul``), and BLAS GEMM
callable from inside Numba kernels (``blas``).

Contract: batched, broadcasting ``a @ b`` on C-contiguous operands; integers wrap modulo
2**bits as NumPy; halves compute through float32 SGEMM and round once. Floating-point
float32/float64/complex products stay with NumPy's BLAS (see ``flexarray._engines``).
"""
