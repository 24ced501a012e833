"""Elementwise kernels: float16/bfloat16 arithmetic and conversions (``half``).

Computes: add/subtract/multiply/divide/maximum/minimum of half-precision operands in float32,
rounded once to the storage type; float16/bfloat16 <-> float32 conversions. Contract: any
strided operands of one shape (broadcast strides 0 included), written into the given output;
bit-exact with NumPy (float16) and ml_dtypes (bfloat16); split over the package's worker
threads above the size gate of ``flexarray._engines.gates``. Other dtypes run NumPy's ufuncs.
"""
