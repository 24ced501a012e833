"""Elementwise kernels: float16/bfloat16 arithmetic and conversions (``half``), ``where`` as a
bit select (``select``).

Computes: add/subtract/multiply/divide/maximum/minimum of half-precision operands in float32,
rounded once to the storage type, and float16/bfloat16 <-> float32 conversions, for any
strided operands of one shape (broadcast strides 0 included), bit-exact with NumPy (float16)
and ml_dtypes (bfloat16); the bit select for C-contiguous operands. Contract: written into
the given output (the engines, ``flexarray._engines.elementwise`` and ``.select``, allocate
it), split over the number of worker threads the caller gives. Other dtypes run NumPy's
ufuncs.
"""
