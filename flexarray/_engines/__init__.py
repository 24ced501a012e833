"""The engine layer, between the chapters and the kernels: which kernel, NumPy path or
thread count runs each call.

- :mod:`.gates`: every threshold, with the measurement behind it (pure data, readable from
  every layer, kernels included).
- one module per family, the only place that chooses between a kernel, NumPy and threads
  for it and that allocates the kernels' outputs: :mod:`.elementwise`, :mod:`.select`
  (``where``), :mod:`.copy`, :mod:`.gather` (``take``), :mod:`.sort` (with ``unique_*``'s
  counting), :mod:`.argminmax`, :mod:`.reductions` (sum, prod, max, min, the
  nan-reductions), :mod:`.matmul` (products, BLAS's threads, the tall SVD), :mod:`.fft`,
  :mod:`.nn` (convolution, pooling, attention); the chapters and the extensions validate
  and call them.

Engines import kernel modules lazily, inside the functions that run them; the thread count
under a gate is ``flexarray._threads.threads_for(work, gate)``.
"""
