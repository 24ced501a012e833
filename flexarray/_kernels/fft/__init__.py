"""FFT kernels: power-of-two radix-4/2 real transforms on SIMD lanes, real-to-complex
packing, Bluestein for the other lengths the engine sends (``rfft``); pocketfft through
NumPy over a batch split on the thread pool (``pocket``), and a lone long row as a four-step
FFT of pocketfft's batches (``fourstep``).

Contract: rows along any axis of float32/float64 (complex64/complex128) input, NumPy's
normalizations; plans and twiddles cached per (length, dtype); the real transforms' rows
split over the worker threads above the gates of ``flexarray._engines.gates``; pocketfft
writes into the output and on the thread count the engine (``flexarray._engines.fft``)
gives.
"""
