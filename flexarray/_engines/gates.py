"""Every engine gate of flexarray in one table: the size, dtype and thread-count thresholds
that choose between a Numba kernel, NumPy (BLAS, LAPACK, pocketfft) and one or several
threads, each with the measurement that set it.

This module is pure data (no imports), so every layer may read it, kernels included; each
module that applies a gate binds it to a local name (``PARALLEL_MIN = gates.COPY_THREADS_MIN``)
so tests can move it. To tune: change the value here, rerun ``bench/`` and the tests, and
update the measurement. Units are elements unless the name says otherwise (MACS:
multiply-adds, FLOPS, TAPS: window taps). Measured on the project's 2-core machine (AMD Zen 4,
shared with other jobs: +-30% between runs) unless noted.
"""

# --- Elementwise ---------------------------------------------------------------------
# Threads (bench/bench_threads.py --forced: two threads at every size against one thread, the
# median of 9 interleaved rounds, second core idle | busy with a spinning process; the
# machine's other jobs kept the load average near 2 even when "idle"). Below ~32 MB per
# operand the data stays in the cache hierarchy and one thread streams it faster than two
# can share it out: add float32 1M 1.79 | 1.84, 2M 1.56 | 1.26, 4M 1.00 | 0.81, 8M 0.81 |
# 0.59; add float64 2M 1.18 | 0.96, 4M 0.77 | 0.63; multiply by a scalar float64 2M 0.71 |
# 1.06, 4M 0.79 | 0.60. NumPy's SIMD transcendentals behave the same: exp float32 4M 1.11 |
# 1.05, 8M 0.42 | 0.34; sin float32 4M 1.15 | 1.30, 8M 0.24 | 0.43; exp float64 1M 1.88 |
# 1.25, 2M 0.67 | 0.66. Measured again on a quiet machine (load ~1.5, in one process, one
# thread vs two, min of 15): float64 50,000 x 64 (3.2M, 25.6 MB) d**2 1.88 -> 1.19 ms,
# x*2.0 1.79 -> 1.08 ms, x - mean(x, 0) 4.40 -> 3.03 ms, a transposed x.T - m 2.90 ->
# 1.57 ms; scipy.stats.skew(axis=0) of it 87 -> 46 ms; bench_threads.py --forced at 3.2M
# float64: add 0.98 | 1.11, multiply by a scalar 0.86 | 1.06; at 4M 0.57-0.73 | 0.91-1.11.
# The gate is in bytes of output (the widest operand's item size): threads from 16 MiB,
# i.e. 2M float64 or 4M float32 elements (float32 add at 2M, 8 MiB: 1.56 | 1.26 above).
# (used by _elementwise.MEMORY_PARALLEL_BYTES)
ELEMENTWISE_THREADS_MIN_BYTES = 16 << 20

# ... except the compute-bound ones (ELEMENTWISE_COMPUTE_BOUND: ~3 ns or more per element on
# one thread, where add costs 0.4-0.8 ns): two threads from this many output elements.
# sin float64 (~6-10 ns per element) 512K 1.05 | 0.61, 1M 0.89 | 0.91, 2M 0.88 | 0.88,
# 4M 0.79 | 0.89, 8M 0.46 | 0.91.
# (used by _elementwise.PARALLEL_MIN, with ELEMENTWISE_THREADS_MIN_BYTES)
ELEMENTWISE_COMPUTE_THREADS_MIN = 1 << 21

# The compute-bound ufuncs by dtype (the standard's names): one-thread ns per element at 256K
# elements, in cache: float32 logaddexp 45, floor_divide 9, remainder 9, hypot 3.1 (acosh
# 2.6, the rest 0.1-0.6); float64 logaddexp 45, floor_divide 33, remainder 18, hypot 6.2,
# sin 5.6, cos 4.3, acosh 3.7 (the rest 0.5-2.5); complex64/complex128: the transcendental
# functions and sqrt 6-270 (add, multiply, divide, abs, sign 0.4-4).
# (used by _elementwise._COMPUTE_BOUND)
_complex_math = ("exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "pow", "sin",
                 "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
                 "acosh", "atanh")
ELEMENTWISE_COMPUTE_BOUND = {
    "float32": ("logaddexp", "floor_divide", "remainder", "hypot"),
    "float64": ("logaddexp", "floor_divide", "remainder", "hypot", "sin", "cos", "acosh"),
    "complex64": _complex_math,
    "complex128": _complex_math,
}

# from this many elements a temporary left operand takes the result (see _array)
# (used by _elementwise.ELIDE_MIN)
ELIDE_MIN = 1 << 16

# Threads: None = never. This work is memory-bound and one thread keeps up with memory:
# float16 add, two threads against one (bench/bench_threads.py --forced, median of 9
# rounds, idle | busy second core): 1M 1.22 | 1.40, 4M 1.08 | 1.22, 8M 0.85 | 0.86, 16M
# 1.02 | 0.94, 32M 0.99 | 1.10, 64M 1.07 | 0.51: no size where it reliably wins.
# (used by _kernels.elementwise.half.PARALLEL_MIN)
HALF_THREADS_MIN = None

# where(condition, x1, x2) from this many elements uses the bit-select kernel: NumPy's
# where branches per element (~3.7 ns each with a random condition); the kernel, float64,
# random condition: 2x at 12,000 elements, 3.0-3.7x at 40,000, 2.3-7x at 3.2M; 0.5x at
# 5,000 (a Numba call costs ~3-5 us). (Since the kernel vectorizes, 2026-11-27: 9.5x at
# 40,000, 10x at 1M; and 1.1x where NumPy's branches predict a mostly-True condition.) Measure with a fresh condition per call: on the AMD
# EPYC machine kind the branch predictor learns one random condition repeated in a loop up
# to ~16K elements, and NumPy's where then takes 0.4 ns per element (8K float64: NumPy 3.6
# us against the kernel's 13.4 with one condition; 29.0 against 13.7 with 64 conditions in
# turn; 4K 15.5 / 16.7, 16K 56.6 / 21.6: this gate holds there too).
# (used by _searching._select)
SELECT_KERNEL_MIN = 1 << 13

# Threads for the bit-select kernel from this many elements. Measured again once the
# kernel vectorized (~0.35 ns per float64 element on one thread, was ~1.6), float64,
# random condition, two threads / one, median of 9 pairs in one process, idle | busy:
# 1M 0.71 | 1.15, 2M 0.69 | 1.08, 4M 0.78 | 1.04, 8M 0.84 | 1.02, 16M 0.96 | 1.02, 32M
# 0.85 | 1.03. (Before, with the scalar loop: 1M 0.66 | 1.10 ... 64M 0.52 | 0.99, gated at
# 32M.) From 2M elements, 16 MB of float64 output as the elementwise gate.
# (used by _kernels.elementwise.select.PARALLEL_MIN)
SELECT_THREADS_MIN = 1 << 21

# An input whose innermost stride (in the output's order) is not 0 or +-1, e.g. a transposed
# operand, is first copied into that order by copy.py's cache-blocked tiles: element-wise
# gathers with a 2048-element stride measured 15x slower than the copy plus a contiguous pass.
# (used by _kernels.elementwise.half._RESTAGE_MIN)
HALF_RESTAGE_MIN = 1 << 14


# --- Reductions -----------------------------------------------------------------------
# Input sizes (elements) from which the Numba reduction kernels beat NumPy, from
# bench/bench_reductions.py and sweeps over 64^2..4096^2 (NumPy time / kernel time; 2 cores
# shared with other jobs, so +-30% noise between runs):
# - float16: 3.5-20x from 256^2 (NumPy converts element by element); bfloat16: 1.4-6x from
#   1024^2, ~0.7x at 256^2.
# - sum/prod of 8/16/32-bit integers and bool into int64/uint64: 1.3-2.5x from 1024^2
#   (NumPy's widening cast is slow), ~1x at 256^2. Also float32 summed in float64 (Dask's
#   mean and moment chunks pass dtype="f8"; AMD EPYC kind, one thread, NumPy time /
#   kernel time): 65,536 x 256 axis 0 2.8x, axis 1 2.0x, all 4.6x; 4096^2 axis 0 3.7x;
#   512^2 2.4x; 256K elements 1-D 2.6x, 64K 1.4x; 256^2 axis 1 (short runs) 0.72x;
#   100,000 x 8 axis 0 1.06x.
# - float32 sums from 4M elements, on two threads (reduce.PARALLEL_MIN): 4096^2 axis 0
#   1.5x, axis 1 1.3x, all axes 1.25-1.35x (one thread: 1.07x, 0.85x and 0.63-0.80x);
#   ~1x at 2048^2, 0.8-0.9x at 1024^2. Along axis 0 the kernel is also more accurate
#   (pairwise, where NumPy adds row by row).
# Everywhere else NumPy is as fast or faster (float64 sums 0.6-0.9x, SIMD max/min of
# float32/float64/int64 0.5-1x, int64 sums 0.5-1.5x): NumPy does those.
# (used by _engines.__init__._GATES)
REDUCE_KERNEL_MIN = {"float16": 1 << 16, "bfloat16": 1 << 18, "widening": 1 << 18,
                     "float32 sum/prod": 1 << 22}

# max/min of floats over an axis that is not the innermost in memory (axis 0 of a C
# array) take the kernel's outer mode from this many bytes, on its threads. NumPy's
# maximum/minimum.reduce there slows to ~4 GB/s once the data comes from memory rather
# than cache (its add.reduce stays at ~27 GB/s; cutting the rows into pieces does not
# help). NumPy / NumPy split over 2 threads / kernel one thread / kernel 2 threads, ms
# (AMD EPYC kind): 50,000 x 64 float64 5.40 / 2.93 / 2.38 / 2.24; 100,000 x 64 11.71 /
# 6.49 / 5.13 / 3.19; 200,000 x 128 float32 26.9 / 13.1 / 10.9 / 5.85; 4096^2 float32
# 4.60 / 3.01 / 3.02 / 2.24; 2048^2 float64 (32 MB) 2.19 / 1.41 / 1.38 / 1.41; below,
# from cache, NumPy is fast: 25,000 x 64 float64 (12.8 MB) 1.05 / 0.56 / 1.19 / 1.19.
# (used by _engines.dispatch.reduce and _kernels.reductions.reduce.MINMAX_PARALLEL_MIN)
MINMAX_OUTER_KERNEL_MIN_BYTES = 16 << 20

# nansum/nanprod/nanmean/nanvar/nanstd of float32/float64 from this many elements: the
# reduction kernel skips (or counts) NaN as it reads, one pass and no temporaries, where
# NumPy and the composed path fill a copy first. One thread, ms, NumPy's nansum / the
# kernel's: 50,000 x 64 float64 axis 0 3.7 / 1.4-1.6, axis 1 4.6 / 3.4, all 4.1 / 0.7;
# 4096^2 float32 axis 0 16 / 4.7-6.0, axis 1 16 / 2.8; the number of non-NaN elements
# (float64 counts) 1.8 / 3.2 / 0.7 ms. Below, rows of a few elements lose (2000 x 20
# axis 1 0.053 / 0.146; 300 x 7 x 50 over the 7: 0.061 / 0.113).
# (used by _engines.dispatch.nan_reduce)
NAN_REDUCE_KERNEL_MIN = 1 << 18

# Threads from this many elements (None = never). Sums are memory-bound; one core nearly
# keeps up with memory. float32 sums, two threads against one (bench/bench_threads.py
# --forced, median of 7 interleaved rounds, second core idle | busy; load average 4-6 from
# other jobs): all axes 4M 1.21 | 1.14, 8M 1.18 | 1.09, 16M 1.07 | 0.83; axis 0 of a C
# array 8M 0.99 | 1.41 (noise: the default, on one thread there, measured 1.04 | 0.74), 16M
# 0.90 | 1.03; axis 1 4M 1.10 | 0.72, 8M 0.55 | 0.58. Earlier, 4096x4096 (16M) with the
# second core busy, NumPy time / kernel time one thread -> two: axis 1 0.85 -> 1.27,
# axis 0 1.07 -> 1.53. Segments are sized by shape only, so threads never change a result.
# (used by _kernels.reductions.reduce.PARALLEL_MIN)
REDUCE_THREADS_MIN = 1 << 24

# ... except where the input overlaps itself (each element read ``_REUSE`` times or more,
# e.g. sliding windows): that work runs from cache and is compute-bound. Windows of 64 over
# 1M float32 (64M additions), sum over the window: 1 thread 3.9-5.7 ms, 2 threads 2.6-2.9 ms.
# (used by _kernels.reductions.reduce.OVERLAP_PARALLEL_MIN)
REDUCE_OVERLAP_THREADS_MIN = 1 << 22

# A reduction over one short axis that is the innermost in memory (sum over 3 classes of a
# (50000, 3) array) is a fold of its columns with the binary ufunc: NumPy's reduce loop
# costs ~12 ns per output there (50000 x 3 float64: sum 603 us, max 1677 us; the fold
# 48 us). Up to 7 elements NumPy adds sequentially, so the fold gives its bits exactly (from
# 8 it sums pairwise); from 256 outputs the fold is faster (256 x 3: 3.7 us -> 1.2 us).
# (used by _reductions.reduce_np)
SHORT_AXIS_FOLD_MAX = 7
SHORT_AXIS_FOLD_MIN_OUT = 256
# max and min have no rounding, so their fold gives NumPy's values for longer axes too
# (a zero's sign where +0 and -0 tie aside: implementation-defined in the standard). NumPy
# max along axis 1 / fold, float64, ms: 200,000 x 8 3.84 / 0.95, 100,000 x 16 2.09 / 1.37,
# 2,000 x 20 0.067 / 0.026, 2,000 x 10 0.056 / 0.013; fold / NumPy by elements and k:
# 2^16 k 16 0.22, 32 0.47, 48 0.71; 2^18 k 16 0.33, 32 0.42, 48 0.55; 2^21 (16 MB, from
# memory: each slice reads every cache line) k 16 0.77, 24 0.84, 32 1.13, 48 1.61.
# (used by _reductions._fold_short_axis)
SHORT_AXIS_FOLD_MAX_MINMAX = 16
SHORT_AXIS_FOLD_MAX_MINMAX_CACHED = 48  # for arrays of at most ...
SHORT_AXIS_FOLD_CACHED_MAX_SIZE = 1 << 18  # ... elements

# A reduction over one long outer axis whose slices hold few elements (axis 0 of a
# (2000, 20) C array: NumPy's reduce loop costs ~10 ns per slice) is a pairwise fold of
# halves with the binary ufunc. NumPy time / fold time, float64 sum (max): 2000 x 3 2.0
# (2.8), 2000 x 20 1.7 (2.2), 2000 x 64 1.0 (1.4), 50000 x 3 12 (17), 100000 x 8 3.0
# (4.6); 200 x 20 0.5 (0.65), 1000 x 1000 0.44, 50000 x 64 0.7 (0.9).
# (used by _reductions.reduce_np)
ROW_FOLD_MIN_ROWS = 1024
ROW_FOLD_MAX_OUT = 32

# NumPy's reductions (those the kernels do not take: float64 sums, max/min, ...) from this
# many bytes of input are cut along the outermost axis into pieces on the pool's threads
# (NumPy releases the GIL), over one axis or every axis alike. On the AMD EPYC machine
# kind, split time / one NumPy call, median of 7 interleaved pairs, idle second core
# (bytes: float32 | float64, sum and max):
# - square, axis 0: 4 MB 1.22-1.98 | 1.49-1.53, 8 MB 0.92-1.16 | 1.16-1.40, 16 MB 0.75-0.81
#   | 0.74-0.79, 32 MB 0.54-0.62 | 0.53-0.72; axis 1: 4 MB 1.02-1.09 | 0.99-1.45, 8 MB 0.78
#   | 0.96-1.12, 16 MB 0.65-0.69 | 0.68-0.78;
# - (n, 64), axis 0: 4 MB 0.67-0.90 | 0.89-0.96, 8 MB 0.60-0.67 | 0.74-0.79, 16 MB 0.41-0.66;
# - every axis (bench_threads.py, default / one thread): max float32 4 MB 2.16, 16 MB 1.04,
#   32 MB 0.78; max float64 8 MB 1.78, 16 MB 0.99, 32 MB 0.62; sum float64 16 MB 0.73.
# With the other core busy (a process spinning on it) no size gains: 1.08-1.45 at 4-8 MB,
# 0.96-1.26 at 16 MB, 0.96-1.22 from 32 MB (more pieces do not help: 2-32 pieces all
# within that band). So from 16 MB, where the idle gain is 20-45%. (The Xeon kind split
# from 1M elements: float32 axis reductions lost 1.24-1.9x here at 1M.) Those gains are
# for back-to-back calls; a lone call 5 ms after the last one, on data the caller has just
# read, loses 1.02-1.38 at 16-64 MB (both vCPUs' caches and wake-ups on this VM): the
# split stays because real work is back-to-back (scikit-learn's finiteness check sums all
# of a 50,000 x 64 float64 X, 25.6 MB: not splitting it made MinMaxScaler and
# MaxAbsScaler 1.23-1.25 x NumPy instead of 1.01-1.02 at that size).
# (used by _reductions.reduce_np)
REDUCE_SPLIT_MIN_BYTES = 16 << 20
# ... and over one axis from this many elements when the rows (the innermost dim in
# memory) are short: NumPy's reduce then pays per row, not per byte, and two threads halve
# it. Split time / one call (hot loop, idle) by row length, 1M elements (float64 8 MB |
# float32 4 MB), axis 0 and axis 1: 16: 0.56-0.59 | 0.57-0.60; 64: 0.77-0.81 | 0.71-0.82;
# 256: 0.89-0.94 | 1.10-1.15; 1024: 0.94-1.38 | 1.34-2.44; at 512K, 64: 1.02-1.06 | 0.91-1.11.
# Real work: SciPy's ttest_ind and pearsonr of two 25,000 x 64 float64 samples (12.8 MB)
# went 0.87 -> 1.05 and 0.91 -> 1.00 x NumPy without it.
REDUCE_SPLIT_SHORT_ROWS_MIN = 1 << 20
REDUCE_SHORT_ROW_MAX = 64

# argmax/argmin use the Numba kernels (``flexarray._kernels.reductions.argminmax``) from these sizes.
# Measured, NumPy time / kernel time (2 cores shared with other jobs, +-30%):
# - the axis is not the most contiguous dim (e.g. axis 0 of a C array; the kernel scans
#   whole rows instead of NumPy's copy-then-scan): 2.2-4x at 256^2, 15-30x from 1024^2,
#   0.3x at 64^2 (call overhead);
# - float16, any axis: 1.5-10x from 256^2 (NumPy compares float16 slowly);
# - a contiguous axis (runs mode: a vectorized extreme pass per chunk, then a short scan
#   for its first index; two threads from 1M elements). NumPy 2.4 copies read-only input
#   first (flexarray's views of foreign memory are read-only): 4096^2 float32 axis 1
#   3.5-4.5x NumPy on read-only input; 0.8-0.85x NumPy's time on writeable input with one
#   thread, 0.9-1.2x with two;
# - axis=None: C-contiguous input as one run split into segments (1.0-1.1x NumPy on
#   writeable input, ~4x on read-only); other layouts a tiled copy first (1.0-9x from
#   1024^2, 0.3-2x at 256^2); never for bool (NumPy stops at the first True).
# (used by _searching.ARG_KERNEL_MIN)
ARG_KERNEL_MIN = 1 << 16

# (used by _searching.ARG_KERNEL_FLAT_MIN)
ARG_KERNEL_FLAT_MIN = 1 << 20

# argmax/argmin along a contiguous axis (native dtypes) are NumPy's own SIMD scan, on a
# writable alias of read-only views: NumPy 2.4 copies read-only input first (1.6-2.3x
# slower; flexarray's views of foreign memory are read-only), and it only reads the
# alias. From this many elements the rows are split across worker threads: 1.15-1.6x
# NumPy at 4096^2 float32 (memory-bound at ~27 GB/s on one core), 1.15x at 2048^2; at
# 1024^2 the hand-off made it 0.55x of one thread. The kernel's runs mode
# measured 0.8x NumPy at 4096^2 on one thread and 0.25-0.6x from 256^2 to 1024^2, so it
# only serves float16/bfloat16 and memory that cannot be aliased writable.
# (used by _searching.ARG_NUMPY_THREADS_MIN)
ARG_NUMPY_THREADS_MIN = 1 << 22

# Threads for the outer-mode scan from this many elements on (compute-bound: ~7 ms for
# 4096^2 float32 on one thread; a second thread measured 1.0-1.1x on this busy machine).
# (used by _kernels.reductions.argminmax.PARALLEL_MIN)
ARG_THREADS_MIN = 1 << 22

# Threads for runs mode (a contiguous axis) from this many elements on.
# (used by _kernels.reductions.argminmax.RUNS_PARALLEL_MIN)
ARG_RUNS_THREADS_MIN = 1 << 20


# --- Copies and gathers ---------------------------------------------------------------
# from this many elements a copying reshape uses the tiled Numba copy
# (``flexarray._kernels.copy.strided.ascontiguous``): measured against NumPy's copy of a transposed
# float32 square: 0.5x at 128^2, 1.3x at 256^2, 2.6x at 512^2, 4-5x at 1024^2-4096^2.
# (used by _manipulation.KERNEL_COPY_MIN)
COPY_KERNEL_MIN = 1 << 16

# Threads for tiled copies (a transposed copy, reshape of a transposed view) from this
# many elements. Two threads against one (bench/bench_threads.py --forced, median of 7
# rounds, idle | busy second core, load average 4-6 from other jobs): float32 1M 1.01 |
# 1.17, 2M 0.98 | 0.88, 4M 0.68 | 0.67, 8M 1.08 | 0.82, 16M 0.93 | 0.82; float64 2M 1.02 |
# 0.82, 4M 1.12 | 0.84, 8M 1.02 | 0.77, 16M 1.10 | 0.68. It wins mostly with the other
# core busy, and not by much: from 8M on, where it never lost beyond the noise (the
# default, one thread there, measured 0.89-1.14 against itself).
# (used by _kernels.copy.strided.PARALLEL_MIN)
COPY_THREADS_MIN = 1 << 23

# copy_of (asarray(x, copy=True), astype to the same dtype) makes a lazy copy from this many
# bytes; below, a real copy costs less than the lazy copy's bookkeeping. Creating one:
# float64, real / lazy: 10 elements 0.45 / 1.2 us, 1,000 0.58 / 1.21, 6,000 1.48 / 1.2,
# 40,000 7.05 / 1.2. But a lazy copy that is written (check_array(copy=True) and the
# copies in scikit-learn's and SciPy's code are made to be written) then pays its move,
# ~5-6 us at every size: copy and x -= c, us, lazy / real: 16 KB 7.1 / 2.4, 46 KB 7.4 /
# 2.9, 128 KB 8.7 / 4.3, 256 KB 11.6 / 6.9, 512 KB 17.8 / 12.3, 1 MB 35.2 / 29.1; copy and
# x[mask] = 0: 46 KB 9.5 / 5.0, 256 KB 23.1 / 17.6, 512 KB 84 / 66. A copy never written,
# lazy / real: 46 KB 1.0 / 1.5, 256 KB 1.0 / 3.4, 512 KB 1.0 / 6.8, 1 MB 1.0 / 18.9. From
# 512 KB the two risks are even. (In scikit-learn's LogisticRegression loss at 2,000 x 3,
# two lazy copies moved per iteration: 11 us each in the profile.)
# (used by _array._LAZY_COPY_MIN)
LAZY_COPY_MIN_BYTES = 1 << 19

# result bytes from which ``take`` uses the gather kernel, for gathers of single elements
# only: rows of more than one element go to np.take, which copies each row with memcpy
# (float64, random row order, kernel / np.take in us: 2,000 rows of 2 10 / 2.3, of 20 35 /
# 13; 50,000 rows of 2 233 / 58, of 64 5,575 / 2,896). Set at 16K elements on the Intel Xeon
# machine kind; on the AMD EPYC kind (2026-11-27) NumPy's take of single elements is the
# faster up to 16 MB of result: 1-D take of n random indices, xp.take (kernel, threaded
# from GATHER_THREADS_MIN) / np.take, ms: float32 64K 0.057 / 0.029, 1M 1.23 / 0.77, 2M
# 2.61 / 1.77, 4M 8.29 / 6.54, 8M 38.5 / 50.8; float64 1M 1.50 / 0.67, 2M 4.57 / 3.09, 4M
# 19.3 / 26.3, 8M 44.5 / 60.5. Again once the 1-D loop vectorized its index checks away
# (2026-11-27 afternoon): float32 64K 0.045 / 0.030, 1M 0.98 / 0.85, 2M 2.52 / 1.87, 4M
# (16 MB) 8.1 / 9.3, 8M 24.2 / 51.9; float64 1M 1.52 / 1.04, 2M (16 MB) 3.6 / 5.6, 4M 10.4 /
# 28.0: the kernel from 16 MB.
# (used by _indexing.GATHER_MIN_BYTES)
GATHER_KERNEL_MIN_BYTES = 16 << 20

# items per call from which worker threads share the gather (latency-bound random reads).
# 1-D take of random indices, float32, two threads against one (as above, median of 9,
# idle | busy): 256K 1.12 | 1.00, 512K 1.06 | 1.12, 1M 0.79 | 1.03, 2M 0.62 | 0.82, 4M 0.62 |
# 0.85, 8M 0.53 | 0.92, 16M 0.72 | 0.83, 32M 0.55 | 0.81.
# (used by _kernels.copy.gather.PARALLEL_MIN)
GATHER_THREADS_MIN = 1 << 21


# --- Sorting --------------------------------------------------------------------------
# axis length from which the radix kernel sorts what the SIMD paths below leave to it
# (stable argsorts of long axes, argsorts with long runs of ties, float16)
# (used by _sorting.RADIX_MIN)
RADIX_KERNEL_MIN = 1 << 12

# NumPy's SIMD sorts (x86-simd-sort; AVX-512 here) made stable by the repairs of
# _kernels.sort.ties. Measured (us, one thread; float64 normal unless noted), NumPy
# quicksort / quicksort + repair / NumPy stable / radix kernel:
# - argsort 1-D: 100: 1.5 / 2.6 / 1.6 / 5.9; 500: 4.7 / 7.0 / 7.7 / 23; 1,000: 8.5 / 12 /
#   27 / 31; 2,000: 19 / 26 / 76 / 36; 50,000: 568 / 672 / 3,628 / 1,196; 2**17: - / 2,243 /
#   - / 3,011; 2**19: - / 13,836 / - / 17,638; 1M: 29,206 / 32,111 / - / 27,010. float32:
#   2**17 2,010 (repair) / 1,883 (radix), 1M 25,411 / 18,836 (radix: 4 byte passes only).
# - argsort along axis 0 of 2,000 x 20: 529 / 440 / 2,736 / 781; 50,000 x 64: 108k / 99k /
#   431k / 115k; axis -1 of 50,000 x 64: 17k / 34k / 72k / 156k.
# - sort 1-D 1M: 6,393 / 6,417 / 93,603 / 16,307 (float32 3,511 / 3,551 / - / 11,313).
# From SORT_TIES_MIN elements in all; axes up to SORT_TIES_MAX[itemsize] elements.
# (used by _sorting.TIES_MIN, _sorting.TIES_MAX)
SORT_TIES_MIN = 1 << 9
SORT_TIES_MAX = {4: 1 << 16, 8: 1 << 19}

# A run of more equal values than this stops the argsort repair (its insertion sort would
# cost O(run^2)); the radix kernel or NumPy's stable sort then sorts: data with few
# distinct values (int64 with 10 values, 1M: SIMD argsort 5.2 ms wasted, radix 20 ms).
# (used by _sorting.TIES_MAXRUN)
SORT_TIES_MAXRUN = 32

# elements from which worker threads share the rows (each row is sorted by one thread)
# (used by _kernels.sort.radix._PARALLEL_ELEMENTS)
RADIX_THREADS_MIN = 1 << 16


# unique_* of integer (and bool) arrays from this many elements, when their values span at
# most as many integers as there are elements: one counting pass (_kernels.sort.counting)
# instead of a sort. Measured (us; int64 with 10 values, counting / sort, while a benchmark
# ran on the other core): unique_counts 128: 11 / 10, 512: 11 / 14, 2,000: 16 / 21,
# 50,000: 88 / 149; unique_all 128: 16 / 20, 512: 18 / 37, 2,000: 23 / 61, 50,000: 467 / 890.
# (used by _sets.COUNTING_MIN)
UNIQUE_COUNTING_MIN = 1 << 9


# --- Matrix products ------------------------------------------------------------------
# below this many multiply-adds the exact float64 path wins for every integer dtype
# (used by _engines.__init__._INT_SMALL)
INT_MATMUL_BLAS_MAX = 1 << 21

# from this many operand elements the kernels' float16/bfloat16 <-> float32 conversions
# (~14x NumPy's astype for float16 at 1024^2) are worth importing Numba for
# (used by _engines.__init__._HALF_MATMUL_MIN)
HALF_MATMUL_KERNEL_MIN = 1 << 16

# Threads from this many multiply-adds on (compute-bound; a second thread measured 1.0x on
# this shared 2-core machine, ~1.9x for compute-bound work on an idle one).
# (used by _kernels.linalg.matmul.PARALLEL_MIN)
INT_MATMUL_THREADS_MIN = 1 << 24

# vecdot of floating arrays along an axis that is not contiguous in memory (axis 0 of a C
# array: scipy.stats.pearsonr's): from this many elements NumPy's einsum, whose
# sum-of-products loop runs along the contiguous axis, beats NumPy's vecdot, which walks the
# strided axis element by element. Measured (vecdot / einsum): 512 x 8 3.3 / 3.7 us,
# 1,000 x 16 16 / 7.4 us, 2,000 x 20 28 / 17 us, 50,000 x 64 22.8 / 1.8 ms, 1000^2 7.0 /
# 0.56 ms. Along a contiguous axis vecdot stays (64 x 50,000 along 1: 0.9 / 1.7 ms).
# (used by _linear_algebra.vecdot)
VECDOT_STRIDED_MIN = 1 << 13


# --- BLAS's own threads ----------------------------------------------------------------
# After a call large enough for OpenBLAS (NumPy's BLAS and LAPACK) to use its threads, they
# spin-wait for the next call before they sleep: 2^28 cycles (OpenBLAS's THREAD_TIMEOUT),
# measured here as ~0.12 s. Two threads of flexarray's beside a spinning one lose to one
# thread: right after a 256 x 64 @ 64 x 50,000 product, a two-thread in-place broadcast add
# of the 256 x 50,000 float64 result took 5.5-8.5 ms (raw NumPy halves on two threads) and
# 10.1-10.6 ms (flexarray's pool) against 2.5-2.8 ms two-thread and 6.3-6.9 ms one-thread
# once the spin ended (~0.13 s after the product); euclidean_distances' passes after its
# product, 2 threads / 1 thread: 87-91 / 76-77 ms (NumPy's in-place ones 81-88). So for
# BLAS_SPIN_SECONDS after such a call, parallel calls run on their caller alone. OpenBLAS
# runs a product of m*n*k <= 65,536 * 4 multiply-adds on one thread (its
# GEMM_MULTITHREAD_THRESHOLD): smaller calls start no spin. In one flow of those passes
# (product, two broadcast adds, maximum, sqrt, scale and exp; 12 interleaved rounds) every
# step ran faster inline: 89 ms against 107-109. Single calls right after a 256 x 512 @
# 512 x 512 float32 product, inline / two threads: in-place broadcast add 0.73, sum along
# axis 1 0.92, conv2d 0.89, sort and rfft 1.00-1.03, but exp of 4M float32 1.19 and
# sqrt(abs()) of 12.8M float64 1.10 (16 interleaved rounds).
# (used by _threads.blas_ran)
BLAS_SPIN_SECONDS = 0.15
BLAS_THREADED_MIN_MACS = 1 << 18

# BLAS and LAPACK calls between BLAS_THREADED_MIN_MACS and this many multiply-adds (per
# matrix) run single-threaded: BLAS's threads gain little there, and the spin they leave
# makes the next parallel calls inline, and keeps the next large product off the pool
# (_blas.matmul): in Nystroem.fit_transform (50,000 x 64, 100 components) the SVD of the
# 100 x 100 basis kernel and a 100^3 product left the 50,000-row products and the passes
# after them beside spinning threads. Single / BLAS's threads, warm loop: SVD 100 x 100
# 1.24 / 1.51 ms; products 100^3 37.5 / 29.8 us, 128^3 98 / 63 us, 200^3 303 / 186 us;
# eigh 300 x 300 (27M, above: threaded) 7.2 / 6.4 ms. A LAPACK call counts 2 m n^2
# (_blas.lapack_threads): counted as n^3, an eigh of 64 x 64 left BLAS's threads spinning
# (the SVD of 50,000 x 64 through its Gram matrix: 19-26 ms against 11-12).
# Matrix-vector products (memory-bound) keep BLAS's threads: BLAS's threads / single, us,
# each in blocks after 0.2 s of its own calls, median of 5: A @ v 50,000 x 64 497 / 978,
# 10,000 x 64 89 / 202, 5,000 x 64 89 / 111, 20,000 x 20 122 / 150, 200,000 x 10 672 /
# 1,276, 1,000 x 1,000 148 / 270; A^T y 50,000 x 64 910 / 921; Ridge.fit.predict
# (50,000 x 64, 5 rotated rounds) 35.4 ms against 36.3.
# (used by _blas.threads_for)
BLAS_SINGLE_THREAD_MAX_MACS = 1 << 22


# A 2-D product with a long inner dimension k and short m, n (the Gram matrix X^T X of a
# tall X, X^T Y) runs as one single-threaded BLAS product per thread over a slice of k,
# summed (_blas._split_k): OpenBLAS's threads split m and n, which are short.
# Measured, split / np.matmul on 2 threads, float64 | float32, X^T X: 50,000 x 64 0.65 |
# 0.59 (5.6 -> 3.6 ms), 20,000 x 64 0.70 | 0.67, 50,000 x 256 0.77 | 0.68, 10,000 x 500
# 0.83 | 0.82; X^T Y 50,000 x 64 0.86 | 0.69. Losses where m or n is short or k is not
# long: 50,000 x 16 1.10 | 1.36, 100,000 x 10 1.07 | 1.13, 10,000 x 20 1.19 | 1.93, 50,000
# x 64 by 3 columns 1.40 | 1.52, 5,000 x 200 0.81 | 1.15.
# Not while BLAS's threads spin after a threaded call (BLAS_SPIN_SECONDS): splitting beside
# the spinners lost in real work (scikit-learn, 50,000 x 64, median of 5: Ridge 34.6 vs
# 32.0 ms, GaussianMixture 1.26 vs 1.13 s, PCA(covariance_eigh) 17.4 vs 14.7 ms).
# (used by _blas.matmul)
MATMUL_SPLIT_K_MIN_K = 10_000
MATMUL_SPLIT_K_MIN_MN = 64
MATMUL_SPLIT_K_ASPECT = 8

# A 2-D product with a result of this many bytes or more and an inner dimension of at most
# MATMUL_SPLIT_MN_MAX_K (distances and kernels: 256 x 64 @ 64 x 50,000; a 50,000 x 100
# Nystroem feature map) runs on the pool, its result cut along the longer side, each piece
# single-threaded BLAS (_blas._split_mn): then no OpenBLAS thread spins after it, and the
# passes over the result that follow get both cores. The product alone, pool / OpenBLAS's
# threads (median of 9, float64, warm): 256 x 64 @ 64 x 50,000 0.92, 50,000 x 64 @ 64 x 100
# 0.87, 50,000 x 100 @ 100 x 100 0.91, 2,000 x 20 @ 20 x 2,000 0.95, 1,000 x 64 @ 64 x 1,000
# 0.97, 4,000 x 64 @ 64 x 4,000 1.07, 5,000 x 64 @ 64 x 256 1.09, 256 x 64 @ 64 x 5,000
# 1.14; deep products stay with OpenBLAS (1024^3 1.08, 512^3 1.14). With the passes that
# follow (euclidean_distances' and rbf_kernel's: two broadcast adds, maximum, sqrt, scale,
# exp; 256 x 50,000 float64, separate processes): 73 ms against 99-100 with the product in
# OpenBLAS's threads and the passes inline beside its spin (NumPy's in-place passes: 84-86).
# From 4 MB. With matrix-vector products single-threaded (before BLAS_SINGLE_THREAD_MAX_MACS
# excepted them), 4 MB lost: RidgeCV's 50,000 x 64 @ 64 x 64 products (25.6 MB) took
# 13.7-14 ms on the pool against ~5 ms in OpenBLAS's threads, RidgeCV 125 ms against 80 with
# 32 MB. Since, 4 MB / 32 MB, 50,000 x 64, median of 5-7 rotated rounds, ms: PCA(full)
# 22.9 / 36.4 and 24.9 / 35.4 (its U = X V S^-1 on the pool), RidgeCV 82.8 / 78.9 and
# 85.2 / 85.3, Ridge 37.0 / 37.0, PCA(covariance_eigh) 14.1 / 14.5, Nystroem 67 / 62 and
# GaussianMixture 1.38 / 1.34 s (NumPy's own times moved as much between those runs:
# 80 / 71 ms, 2.18 / 2.26 s), LogisticRegression 1.39 / 1.49 s.
# (used by _blas.matmul)
MATMUL_SPLIT_MN_MAX_K = 128
MATMUL_SPLIT_MN_MIN_BYTES = 1 << 22

# A 2-D product of real floats with at most this many rows or columns (X w, X W^T and
# G^T X of a linear model with a few outputs: memory-bound) and at least
# BLAS_SINGLE_THREAD_MAX_MACS multiply-adds stays out of OpenBLAS's threads where it can
# (_blas.matmul): a long result whose rows are contiguous is cut along its rows on the
# pool, each piece single-threaded BLAS; a short result (G^T X) runs single-threaded where
# SciPy's OpenBLAS is loaded beside NumPy's (_blas._two_blas_pools). Two OpenBLAS
# libraries (scipy.optimize's L-BFGS-B and scipy.linalg use SciPy's) each keep their own
# threads, and the threads one leaves waiting after its calls hold a core while the
# other's threaded call waits for its partner thread: in LogisticRegression(lbfgs).fit at
# 50,000 x 64 (3 classes; 56 products of each kind) X W^T took 1.5 or 5.3 ms a call and
# G^T X 0.8, 4.6 or 70-100 ms, against 1.4 and 0.8 alone. LogisticRegression.fit.proba, s,
# 4 calls each: OpenBLAS's threads 1.02-1.34, rows on the pool alone 1.06-1.34, this rule
# 0.41-0.45 (NumPy's own path pays the same contention: 0.82-1.03; 0.26 with SciPy's
# OpenBLAS on one thread). Real work at 50,000 x 64 (3 rounds, flexarray / NumPy, before
# -> after): LogisticRegression 1.36 -> 0.45, GaussianMixture 0.50 -> 0.35,
# PCA(covariance_eigh) 1.06 -> 0.66 (Nystroem 0.78 -> 0.28-0.86 over three runs); the rest
# within noise. Alone (warm
# loop, separate processes, ms, this rule / OpenBLAS's threads): 50,000 x 64 @ 64 x 3
# 1.09-1.25 / 1.41-1.44, @ 64 x 8 1.08-1.19 / 1.46-1.48, 200,000 x 10 @ 10 x 3 0.61 /
# 0.58-0.62; the short result loses alone, 3 x 50,000 @ 50,000 x 64 1.6-2.1 / 0.71 (a
# slice of k per thread did not run in parallel: 1.26; a Numba outer-product kernel
# took 0.99), which is why it stays threaded without SciPy's BLAS. Cutting a result of
# transposed rows (X^T y) along its rows reads every cache line twice: 4.5 ms against 0.7 in
# BLAS's threads (3 x 50,000 x 64).
# (used by _blas.matmul)
MATMUL_THIN_MAX = 16

# --- Factorizations -------------------------------------------------------------------
# The reduced SVD (and svdvals) of one matrix at least this many times taller than wide
# (or wider than tall), with at least this many elements, goes through Cholesky QR
# (_kernels.linalg.tall) instead of LAPACK's gesdd. float64, this/gesdd time: 50,000 x 64
# 0.15-0.2, 100,000 x 10 0.26, 2,000 x 20 0.35, 5,000 x 200 0.36, 10,000 x 500 0.54,
# 500 x 20 0.75, 200 x 20 1.24; near-square shapes lose (1,000 x 500 1.08, 256^2 1.67).
# (used by linalg._tall_svd)
TALL_SVD_ASPECT = 4
TALL_SVD_MIN = 10_000


# --- FFT ------------------------------------------------------------------------------
# Reals per call below which one thread is faster: ~0.25 ms (float32) to ~0.6 ms (float64)
# of serial work; handing pieces to a worker thread cost 40-50 us here (measured: 8-32
# rows of 4096 points were 1.2-2x slower on two threads, 64 rows break even under load).
# (used by _kernels.fft.rfft.PAR_MIN_WORK)
FFT_THREADS_MIN = 1 << 18

# complex length from which a lone row is split over threads
# (used by _kernels.fft.rfft.BIG_MIN_NC)
FFT_SPLIT_ROW_MIN = 1 << 16

# fft/ifft of real input: the real transform and its Hermitian mirror (fft._one_dim) from
# this many elements, in rows of at least FFT_FROM_REAL_MIN_N points; NumPy's complex
# transform of the input made complex below (measured, flexarray / NumPy: 2.9x at 100
# elements and 1.3x for ifft of 2,000 rows of 20 points the other way; 0.56x for 20 rows
# of 2,000 and 0.22x for 50,000 rows of 64 this way).
# (used by fft._FROM_REAL_MIN, fft._FROM_REAL_MIN_N)
FFT_FROM_REAL_MIN = 1 << 14
FFT_FROM_REAL_MIN_N = 32

# Measured (docs/fft.md; one thread each, rows of ~1k-100k points): pocketfft wins by
# 2-30x when the largest prime factor of n is below ~128 (it has radix passes for small
# primes); from ~251 up a float32 Bluestein convolution on the power-of-two kernel is
# 1.9-5.6x faster than pocketfft (whose own Bluestein runs in float64-like cost). In
# float64 our kernel is ~2x slower than in float32 and Bluestein stayed at 0.3-0.8x of
# pocketfft (one 2.0x win at n = 65521), so float64 always uses pocketfft.
# (used by _kernels.fft.rfft.BLUESTEIN_MIN_N)
BLUESTEIN_MIN_N = 256

# (used by _kernels.fft.rfft.BLUESTEIN_MIN_FACTOR)
BLUESTEIN_MIN_FACTOR = 251

# Transform lengths below which rfft/irfft/hfft/ihfft go straight to pocketfft (np.fft),
# whatever the batch: the kernel's short rows lost to it at every batch size. Measured
# (bench/bench_fft.py --grid: np.fft time / kernel time over 1-256 rows, 2 threads, the
# range over batch sizes): float64 n=256 0.36-0.63, n=1024 0.75-1.27, n=2048 1.08-2.12;
# float32 n=512 rfft 0.81-1.74 / irfft 0.63-0.74, n=1024 0.76-2.48, n=4096 1.48-7.96.
# That was the Intel Xeon machine kind; on the AMD EPYC (Zen 4) kind the project runs on
# since (2026-11-27, the same grid, 1-256 rows): float64 n=512 rfft 0.86-1.73 / irfft
# 0.81-1.84 (losing at 1-4 rows), n=1024 1.08-2.11 / 1.01-2.87, n=2048 1.57-2.95 /
# 1.42-3.68; float32 n=512 rfft 1.03-2.74 / irfft 0.79-1.70, n=1024 1.31-4.85 / 0.97-2.87.
# So float64 from 1024 too (1024 x 1024 rfft/irfft: 0.89 / 0.92 ms through pocketfft, 0.59
# / 0.63 through the kernel).
# (used by fft._KERNEL_MIN_N)
FFT_KERNEL_MIN_N_F32 = 1024
FFT_KERNEL_MIN_N_F64 = 1024


# --- nn -------------------------------------------------------------------------------
# Below this many multiply-adds a GEMM engine runs inline (no worker threads): waking the
# workers costs ~30 us on a quiet machine and measured ~50-100 us under load, so a call
# must have ~0.2 ms of work (8M multiply-adds of GEMM) to gain from two cores.
# (used by nn._conv_engines._PAR_MIN_MACS)
CONV_GEMM_THREADS_MIN = 1 << 23

# The same for the direct kernel (~2-4 multiply-adds per ns serial): depthwise conv1d
# 8x32x512 k3 (0.4M) measured 54 us inline against 105 us on the workers, under load.
# (used by nn._conv_engines._DIRECT_PAR_MIN_MACS)
CONV_DIRECT_THREADS_MIN = 1 << 20

# The nn engines cut their work into blocks sized for this many threads (at least two
# blocks each), whatever the thread count: a block's size sets its GEMM's shape, and
# BLAS's last bits depend on the shape (a GEMM cut along n or m rounds differently), so
# blocks sized by the actual thread count gave results that differed between thread
# counts (a 1 x 3 x 64 x 64 k7 s2 convolution by Winograd along W). Threads only choose
# which blocks they take. (At 2 threads the bench_nn cases' blocks are set by their
# byte budgets first: unchanged.)
# (used by nn._conv_engines._BALANCE_THREADS)
NN_BALANCE_THREADS = 4

# One head's whole (L, S) score matrix is materialized up to this many elements (1 MB of
# float32: it stays in L2 between the two GEMMs).
# (used by nn._attention_engines._MATERIALIZE_MAX)
ATTENTION_MATERIALIZE_MAX = 1 << 18

# ~0.3 ms of GEMM: below, one thread (waking workers ~30-100 us)
# (used by nn._attention_engines._PAR_MIN_FLOPS)
ATTENTION_THREADS_MIN = 1 << 25

# Kernels go to the worker threads from this many window taps (~0.3 ms of serial work;
# waking the workers costs ~30-100 us).
# (used by nn._pool_engines._PAR_MIN_TAPS)
POOL_THREADS_MIN = 1 << 19


# --- Memory ---------------------------------------------------------------------------
# smaller requests go straight to NumPy
# (used by _memory.POOL_MIN)
RESULT_POOL_MIN = 1 << 22

#: the table as a dict (name -> value), for printing and tuning
GATES = {name: value for name, value in dict(globals()).items() if name.isupper() and name != "GATES"}
