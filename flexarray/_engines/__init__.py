"""Engine choice: which kernel, NumPy path or thread count runs each call.

- :mod:`.gates`: every threshold, with the measurement behind it (pure data, readable from
  every layer, kernels included).
- :mod:`.dispatch`: the choices that need more than a threshold (reductions, integer and
  half-precision matmul), and lazy access to the Numba kernel modules, so that
  ``import flexarray`` and small calls never import Numba.
"""
