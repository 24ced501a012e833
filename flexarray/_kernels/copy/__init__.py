"""Copy kernels: strided copies between any two layouts (``strided``), gathers along an axis
(``gather``, the kernel of ``take``).

Contract: elements move as raw bits (same item size, no casting); the destination is given
(the engines, ``flexarray._engines.copy`` and ``.gather``, allocate it); indices arrive
bounds-checked and are clamped again inside the kernel; work is tiled for the caches and
split over the number of worker threads the caller gives.
"""
