"""The engines of flexarray.nn (private): which kernel, BLAS call and thread split runs
each convolution, pooling and attention call. The fronts (``flexarray/nn/*.py``) validate
and call them; the kernels (``flexarray/_kernels/nn/``) compute.

- :mod:`.conv`: direct loops, Winograd (2-D 3x3, and along W), pointwise and im2col GEMMs,
  transposed convolution;
- :mod:`.pool`: max, average, global and adaptive pooling;
- :mod:`.attention`: scaled-dot-product attention, materialized or flash;
- :mod:`.par`: the blocks on the package's thread pool, single-threaded BLAS while they
  run, per-thread scratch memory.
"""
