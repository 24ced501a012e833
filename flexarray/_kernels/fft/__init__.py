"""Real FFT kernels: power-of-two radix-4/2 transforms on SIMD lanes, real-to-complex
packing, Bluestein for awkward lengths (``rfft``).

Contract: rows along the last axis of float32/float64 input, a fresh complex (rfft) or real
(irfft) output in NumPy's normalizations; plans and twiddles cached per (length, dtype);
batches split over the worker threads above the gates of ``flexarray._engines.gates``.
"""
