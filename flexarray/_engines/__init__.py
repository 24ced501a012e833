"""The engine layer, between the chapters and the kernels: which kernel, NumPy path or
thread count runs each call.

- :mod:`.gates`: every threshold, with the measurement behind it (pure data, readable from
  every layer, kernels included).
- one module per family, the only place that chooses between a kernel, NumPy and threads
  for it and that allocates the kernels' outputs: :mod:`.elementwise`, :mod:`.select`
  (``where``), :mod:`.copy`, :mod:`.gather` (``take``), :mod:`.sort` (with ``unique_*``'s
  counting), :mod:`.argminmax`; the chapters validate and call them.
- :mod:`.dispatch`: the choices that need more than a threshold (reductions, integer and
  half-precision matmul), and lazy access to the Numba kernel modules, so that
  ``import flexarray`` and small calls never import Numba.

Engines import kernel modules lazily, inside the functions that run them; the thread count
under a gate is ``flexarray._threads.threads_for(work, gate)``.
"""
