"""Copy kernels: strided copies between any two layouts (``strided``), gathers along an axis
(``gather``, the kernel of ``take``).

Contract: elements move as raw bits (same item size, no casting); the destination is given
(or allocated from the package's result pool); indices arrive bounds-checked and are clamped
again inside the kernel; work is tiled for the caches and split over the worker threads
above the gates of ``flexarray._engines.gates``.
"""
