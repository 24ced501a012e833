"""Every engine gate of flexarray: the size, dtype and thread-count thresholds that choose
between a Numba kernel, NumPy (BLAS, LAPACK, pocketfft) and one or several threads.

Per gate: its value (with what it counts, where the name does not say it), one line with the
figure that justifies it, and the command that measures it again. Commands run from the
repository's root as ``env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE PYTHONPATH=. python
<command>``; docs/benchmarks.md holds the latest tables and the hardware, git the history of
each figure. Thread gates' figures are the time on two threads over the time on one (below
1, threads win), second core idle unless "busy" (a process spinning on it);
``bench/bench_threads.py --forced`` measures them with every thread gate at one element.
Units are elements unless the name says otherwise (BYTES; MACS: multiply-adds; FLOPS; TAPS:
window taps).

This module is pure data (no imports), so every layer may read it, kernels included. A
module reads ``gates.X`` where it applies the gate (``threads_for(n,
gates.COPY_THREADS_MIN)``), not a local copy bound at import, so that a test which moves
``gates.X`` moves the choice. The kernels' cache key hashes the gates' names and values,
not this text (``flexarray._kernels._sources_digest``): editing a comment here recompiles
nothing. To tune a gate: change its value, run its command and the tests, and
update its figure.
"""

# --- Elementwise ------------------------------------------------------------------------

# bench/bench_threads.py --forced --ops add_f64,add_f32: f64 4M 0.77, 2M 1.18; f32 2M 1.56
ELEMENTWISE_THREADS_MIN_BYTES = 16 << 20  # of output (the widest operand's item size)

# bench/bench_threads.py --forced --ops sin_f64: 2M 0.88 (busy 0.88), 512K 1.05
ELEMENTWISE_COMPUTE_THREADS_MIN = 1 << 21  # output elements, for ELEMENTWISE_COMPUTE_BOUND

# ns per element, one thread, 256K in cache: f64 logaddexp 45, floor_div 33, sin 5.6; add 0.4-0.8
# python -m timeit -s "import numpy as np; x = np.ones(1 << 18)" "np.hypot(x, x)"
_complex_math = ("exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "pow", "sin",
                 "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh",
                 "acosh", "atanh")
ELEMENTWISE_COMPUTE_BOUND = {  # ufuncs of ~3 ns or more per element (standard's names)
    "float32": ("logaddexp", "floor_divide", "remainder", "hypot"),
    "float64": ("logaddexp", "floor_divide", "remainder", "hypot", "sin", "cos", "acosh"),
    "complex64": _complex_math,  # 6-270 ns; add, multiply, divide, abs, sign 0.4-4
    "complex128": _complex_math,
}

# bench/bench_core.py (a*b+c 1M f64: 1.04x NumPy); NumPy's own elision starts at 256 KiB
ELIDE_MIN = 1 << 16  # a temporary left operand takes the result from here (see _array)

# bench/bench_threads.py --forced --ops add_f16: 1M 1.22, 8M 0.85, 16M 1.02, 64M 1.07
HALF_THREADS_MIN = None  # never: memory-bound, one thread keeps up with memory

# where(), f64, fresh random condition per call, kernel / NumPy, us: 8K 13.7 / 29.0, 4K 16.7 / 15.5
# bench/bench_threads.py --ops where_f64 --max-size 64K (NumPy learns a repeated condition <16K)
SELECT_KERNEL_MIN = 1 << 13  # where(condition, x1, x2) takes the bit-select kernel

# bench/bench_threads.py --forced --ops where_f64: f64 2M 0.69 (busy 1.08), 32M 0.85 (1.03)
SELECT_THREADS_MIN = 1 << 21

# strided float16 operand, gathered in place / copied in tiles first: 15x at a 2048 stride
# python -m timeit -s "import flexarray as xp; a = xp.ones((2048, 2048), dtype='float16')" "a.T+a"
HALF_RESTAGE_MIN = 1 << 14  # an operand of innermost stride not 0 or +-1 is copied first


# --- Reductions -------------------------------------------------------------------------

# bench/bench_reductions.py; NumPy time / kernel time, by kind of reduction:
REDUCE_KERNEL_MIN = {
    "float16": 1 << 16,  # 3.5-20x from 256^2
    "bfloat16": 1 << 18,  # 0.7x at 256^2, 1.4-6x from 1024^2
    "widening": 1 << 18,  # ints into int64: 1x at 256^2, 1.3-2.5x from 1024^2; f32 in f64: 2.6x
    "float32 sum/prod": 1 << 22,  # two threads: ~1x at 2048^2, 1.25-1.5x at 4096^2
}

# max along axis 0, f64, kernel / NumPy: 12.8 MB 1.13, 32 MB 0.64, 51 MB 0.27
# bench/bench_threads.py --ops max_f64_ax0,max_f32_ax0 --min-size 1M (default/numpy)
MINMAX_OUTER_KERNEL_MIN_BYTES = 16 << 20  # floats' max/min over a non-innermost axis

# nansum, one thread, kernel / NumPy, ms: 50,000 x 64 f64 0.7 / 4.1; 2,000 x 20 0.146 / 0.053
# python -m timeit -s "import flexarray as xp; x = xp.ones((50000, 64))" "xp.nansum(x, axis=0)"
NAN_REDUCE_KERNEL_MIN = 1 << 18  # nan-reductions of f32/f64 in the kernel (one pass)

# all axes 8M 1.18, 16M 1.07 (busy 0.83); axis 0 16M 0.90
# bench/bench_threads.py --forced --ops sum_f32,sum_f32_ax0,sum_f32_ax1
REDUCE_THREADS_MIN = 1 << 24

# bench/bench_reductions.py (sum of unfold(1M f32, 64) windows): 2.6-2.9 ms, one thread 3.9-5.7
REDUCE_OVERLAP_THREADS_MIN = 1 << 22  # input that overlaps itself: compute-bound

# NumPy sums up to 7 elements in order (pairwise from 8): the column fold gives its bits
# a fact of NumPy's, not a speed: numpy/_core/src/umath/loops_utils.h.src (pairwise_sum)
SHORT_AXIS_FOLD_MAX = 7
# sum along axis 1, f64, fold / NumPy: 256 x 3 1.2 / 3.7 us, 50,000 x 3 48 / 603 us
# python -m timeit -s "import flexarray as xp; x = xp.ones((256, 3))" "xp.sum(x, axis=1)"
SHORT_AXIS_FOLD_MIN_OUT = 256
# max along the short axis, fold / NumPy, f64: 2^21 elements k 16 0.77, 24 0.84, 32 1.13
# python -m timeit -s "import flexarray as xp; x = xp.ones((1 << 17, 16))" "xp.max(x, axis=1)"
SHORT_AXIS_FOLD_MAX_MINMAX = 16
# in cache, fold / NumPy: 2^18 elements k 48 0.55; 2^16 k 48 0.71 (4096 x 48 ones, busy: 0.83-0.94)
# python -m timeit -s "import flexarray as xp; x = xp.ones((1 << 12, 48))" "xp.max(x, axis=1)"
SHORT_AXIS_FOLD_MAX_MINMAX_CACHED = 48  # for arrays of at most ...
SHORT_AXIS_FOLD_CACHED_MAX_SIZE = 1 << 18  # ... elements

# sum along axis 0, f64, NumPy / pairwise fold: 2,000 x 20 1.7, 2,000 x 64 1.0, 200 x 20 0.5
# python -m timeit -s "import flexarray as xp; x = xp.ones((2000, 20))" "xp.sum(x, axis=0)"
ROW_FOLD_MIN_ROWS = 1024
ROW_FOLD_MAX_OUT = 32

# split NumPy reduction / one call, square f64 axis 0: 8 MB 1.16-1.40, 16 MB 0.74-0.79
# bench/bench_threads.py --ops max_f64_ax0,sum_f64_ax1 --min-size 512K (default/one)
REDUCE_SPLIT_MIN_BYTES = 16 << 20  # input bytes from which NumPy's reductions are cut
# split / one call, 1M elements f64 by row length: 16 0.56-0.59, 64 0.77-0.81, 256 0.89-0.94
# bench/bench_real_work.py --size medium --only ttest_ind
REDUCE_SPLIT_SHORT_ROWS_MIN = 1 << 20
REDUCE_SHORT_ROW_MAX = 64


# --- Searching (argmax, argmin) ---------------------------------------------------------

# NumPy / kernel along axis 0: 64^2 0.3x, 256^2 2.2-4x, 1024^2+ 15-30x; float16 1.5-10x
# bench/bench_namespace.py (argmax axis 0 4096^2 float32)
ARG_KERNEL_MIN = 1 << 16

# axis=None, non-contiguous input via a tiled copy, NumPy / kernel: 256^2 0.3-2x, 1024^2+ 1-9x
# python -m timeit -s "import flexarray as xp; x = xp.ones((1024, 1024))" "xp.argmax(x.T)"
ARG_KERNEL_FLAT_MIN = 1 << 20

# NumPy's scan split on the pool / one call: 4096^2 f32 0.63-0.87, 1024^2 1.8
# bench/bench_namespace.py (argmax axis 1 4096^2 float32)
ARG_NUMPY_THREADS_MIN = 1 << 22  # argmax/argmin along a contiguous axis, NumPy's scan

# outer-mode scan, 4096^2 f32 (7 ms on one thread): busy 0.91-1.0
# bench/bench_kernels.py (argmax float32, outer mode)
ARG_THREADS_MIN = 1 << 22

# runs mode, 4096^2 f32 axis 1, NumPy time / kernel time: one thread 0.8-0.85, two 0.9-1.2
# bench/bench_kernels.py (argmax float32, inner mode)
ARG_RUNS_THREADS_MIN = 1 << 20


# --- Copies and gathers -----------------------------------------------------------------

# NumPy / kernel, transposed f32 square: 128^2 0.5x, 256^2 1.3x, 512^2 2.6x, 1024^2+ 4-5x
# bench/bench_namespace.py (transpose-copy 4096^2 float32)
COPY_KERNEL_MIN = 1 << 16  # a copying reshape takes the tiled kernel

# reshape(x.T, -1) then sum, f64, us, pending / eager: 64K 90.9 / 85.9, 128K 149.6 / 144.8,
# 256K 289 / 283; reshape(x.T, -1)[0]: 7.7 us at any size (eager 64K 66, 1M 1,227)
# python -m timeit -s "import flexarray as xp; x = xp.ones((362, 362)).T" "xp.sum(xp.reshape(x, -1))"
RELAYOUT_MIN = 1 << 17  # a copying reshape is copied when read (a single element: no copy)

# f64 8M 1.02 (busy 0.77), 16M 1.10 (busy 0.68); f32 8M 1.08 (busy 0.82)
# bench/bench_threads.py --forced --ops copyT_f32,copyT_f64
COPY_THREADS_MIN = 1 << 23

# lazy / real, us, copy then x -= c: 512 KB 17.8 / 12.3; copy never written: 1.0 / 6.8
# bench/bench_per_call.py (asarray(x, copy=True) 1M; x[i] = 1.0 in a copied 1M array)
LAZY_COPY_MIN_BYTES = 1 << 19  # copy_of makes a lazy copy from here

# 1-D take of n random indices, kernel / np.take, ms: f32 4M (16 MB) 8.1 / 9.3, 2M 2.52 / 1.87
# bench/bench_threads.py --ops take_f32 --min-size 1M (default/numpy)
GATHER_KERNEL_MIN_BYTES = 16 << 20  # result bytes; gathers of single elements only

# bench/bench_threads.py --forced --ops take_f32: 1M 0.79 (busy 1.03), 2M 0.62 (0.82)
GATHER_THREADS_MIN = 1 << 21

# take_along_axis(x, argsort rows, -1), f64, kernel / NumPy: 64 x 1,024 C 1.28, F 0.35;
# 64 x 4,096 C 0.26, F 0.31; 64 x 50,000 C 0.21, F 0.20 (49.5 -> 9.8 ms)
# python -m timeit -s "import flexarray as xp; x = xp.ones((64, 4096)); \
#   i = xp.argsort(x, axis=1)" "xp.take_along_axis(x, i, axis=1)"
GATHER_ALONG_KERNEL_MIN_BYTES = 1 << 20  # take_along_axis of 2-D arrays: the row kernel


# --- Sorting and sets -------------------------------------------------------------------

# stable argsort f64, NumPy / radix, us: 1,000 27 / 31, 2,000 76 / 36, 50,000 3,628 / 1,196
# bench/bench_sorting.py --only argsort
RADIX_KERNEL_MIN = 1 << 12  # axis length (stable argsorts, long ties, float16)

# argsort of an argsort (int64, 64 rows of 50,000, strided as SciPy's rankdata passes
# them): sorted 210 ms, inverted 9 ms; a row that is not a permutation stops the pass at
# its first repeated or out-of-range value
SORT_PERMUTATION_MIN = 1 << 10  # axis length from which an integer argsort tries inversion

# argsort f64, NumPy stable / SIMD quicksort + repair, us: 100 1.6 / 2.6, 500 7.7 / 7.0
# bench/bench_sorting.py --only argsort
SORT_TIES_MIN = 1 << 9
SORT_TIES_MAX = {  # axis length by item size, repair / radix:
    4: 1 << 16,  # f32 2^17 2,010 / 1,883 us
    8: 1 << 19,  # f64 2^19 13,836 / 17,638 us, 1M 32,111 / 27,010
}

# int64 of 10 values, 1M: the repair's quadratic runs waste 5.2 ms before the radix's 20
# bench/bench_sorting.py --only argsort
SORT_TIES_MAXRUN = 32  # longest run of equal values the repair takes

# f16 sort, rows of 4096, two threads / one, both cores busy: 64K 0.85-4.4, 256K 0.98-1.09
# (idle: not measured) FLEXARRAY_NUM_THREADS=1, 2: python -m timeit -s "import numpy as np,
#   flexarray as xp; x = xp.asarray(np.random.rand(16, 4096), dtype=xp.float16)" "xp.sort(x)"
RADIX_THREADS_MIN = 1 << 16  # elements; each row is sorted by one thread

# stable argsort of float64 rows of 2,048, pool / one thread: 16K 0.69, 32K 0.60, 64K 0.45;
# 64 x 50,000 0.49 (173 -> 84 ms)
# python -m timeit -s "import flexarray as xp; x = xp.ones((8, 2048))" "xp.argsort(x, stable=True)"
SORT_THREADS_MIN = 1 << 14  # elements: rows of NumPy's argsort made stable, in pieces

# int64 of 10 values, counting / sort, us: unique_counts 128 11 / 10, 512 11 / 14, 2K 16 / 21
# bench/bench_sorting.py --only unique
UNIQUE_COUNTING_MIN = 1 << 9  # integers spanning at most as many values as elements


# --- Matrix products --------------------------------------------------------------------

# int32 n^3, exact float64 BLAS / kernel: 96^3 0.46-0.73, 128^3 0.99-1.13, 160^3 5 (busy)
# python -m timeit -s "import flexarray as xp; a = xp.ones((128, 128), dtype=xp.int32)" "a @ a"
#   (the kernel; the BLAS path with gates.INT_MATMUL_BLAS_MAX = 1 << 62 set in -s)
INT_MATMUL_BLAS_MAX = 1 << 21  # MACs

# the kernels' half <-> float32 conversions ~14x NumPy's astype at 1024^2; Numba costs 0.25 s
# bench/bench_reductions.py (matmul 1024 float16)
HALF_MATMUL_KERNEL_MIN = 1 << 16  # operand elements

# int matmul kernel: 1.0 busy (compute-bound work ~0.53 with the other core idle)
# bench/bench_reductions.py (matmul 1024 int32 full range)
INT_MATMUL_THREADS_MIN = 1 << 24  # MACs

# vecdot / einsum along axis 0, f64: 512 x 8 3.3 / 3.7 us, 1,000 x 16 16 / 7.4 us
# bench/bench_real_work.py --size small --only pearsonr
VECDOT_STRIDED_MIN = 1 << 13  # floating vecdot along a strided axis takes einsum


# --- BLAS's own threads -----------------------------------------------------------------

# euclidean_distances' passes after its threaded product: 89 ms inline, 107-109 on two threads
# bench/bench_real_work.py --size medium --only euclidean_distances
BLAS_SPIN_SECONDS = 0.15  # OpenBLAS's threads spin ~0.12 s after a call: parallel calls inline
# OpenBLAS's GEMM_MULTITHREAD_THRESHOLD: m n k <= 65,536 * 4 runs on one thread (no spin);
# f64 64^3, OPENBLAS_NUM_THREADS=2 / 1: 14.0 / 14.1-14.4 us (one thread either way)
# OPENBLAS_NUM_THREADS=1, 2: python -m timeit -s "import numpy as np; a = np.ones((64, 64))" "a @ a"
BLAS_THREADED_MIN_MACS = 1 << 18

# single / BLAS's threads: SVD 100^2 1.24 / 1.51 ms; above, eigh 300^2 7.2 / 6.4 ms
# bench/bench_real_work.py --size medium --only Nystroem
BLAS_SINGLE_THREAD_MAX_MACS = 1 << 22  # per matrix; LAPACK counts 2 m n^2

# X^T X, k-slices / np.matmul, f64: 50,000 x 64 0.65, 10,000 x 500 0.83; 50,000 x 16 1.10
# python -m timeit -s "import flexarray as xp; x = xp.ones((50000, 64))" "x.T @ x"
MATMUL_SPLIT_K_MIN_K = 10_000
MATMUL_SPLIT_K_MIN_MN = 64
MATMUL_SPLIT_K_ASPECT = 8

# euclidean_distances 256 x 50,000 f64 and its passes: 73 ms, product in OpenBLAS's threads 99
# bench/bench_real_work.py --size medium --only euclidean_distances
MATMUL_SPLIT_MN_MAX_K = 128  # results cut on the pool: inner dimension at most ...
MATMUL_SPLIT_MN_MIN_BYTES = 1 << 22  # ... and a result of this many bytes

# LogisticRegression(lbfgs) 50,000 x 64, flexarray / NumPy: 1.36 in OpenBLAS's threads, 0.45
# bench/bench_real_work.py --size medium --only LogisticRegression
MATMUL_THIN_MAX = 16  # rows or columns of a thin product kept out of OpenBLAS's threads

# OpenBLAS's own threads run gemv from 2,304 * GEMM_MULTITHREAD_THRESHOLD (4) = 9,216
# multiply-adds and dot from 10,000 elements (interface/gemv.c, dot.c), and spin ~0.1 s after
# python -c "import numpy as np; y = np.ones(10_001); y @ y"  (then one thread busy ~0.1 s)
BLAS_VECTOR_THREADED_MIN = 9_216  # dot and gemv single-threaded (or on the pool) from here

# X @ v, f64, rows on the pool / BLAS's threads / one thread: 50,000 x 64 0.46 / 0.39 /
# 1.24 ms, 200,000 x 64 3.8 / 4.1 / 8.3 ms (X^T y in pieces of k on the pool: no faster than
# one thread); RidgeCV 50,000 x 64 fit: 80 -> 62 ms (nothing spins beside the pool)
# python -m timeit -s "import flexarray as xp; x = xp.ones((50000, 64)); v = xp.ones(64)" "x @ v"
MATVEC_POOL_MIN_MACS = 1 << 18  # matrix-vector products with contiguous rows on the pool


# --- Factorizations ---------------------------------------------------------------------

# reduced SVD, Cholesky QR / gesdd, f64: 50,000 x 64 0.15-0.2, 500 x 20 0.75, 1,000 x 500 1.08
# python -m timeit -s "import flexarray as xp; x = xp.ones((2000, 20))" "xp.linalg.svdvals(x)"
TALL_SVD_ASPECT = 4
TALL_SVD_MIN = 10_000


# --- FFT --------------------------------------------------------------------------------

# rows of 4096 points, 8-32 rows 1.2-2.0, 64 rows 1.0 (busy)
# bench/bench_fft.py
FFT_THREADS_MIN = 1 << 18  # reals per call

# one row, split / one thread, both cores busy: rfft of 2^17 reals 0.41-1.16 (work gate moved
# to 1), 2^18 (the first split on two threads) 1.01-1.19, 2^19 1.01-1.39 (idle: not measured)
# FLEXARRAY_NUM_THREADS=1, 2: python -m timeit -s "import flexarray as xp; x = xp.ones(1 << 18)"
#   "xp.fft.rfft(x)"
FFT_SPLIT_ROW_MIN = 1 << 16  # complex length from which a lone row is split over threads

# fft of real input, flexarray / NumPy: 50,000 rows of 64 0.22, 20 of 2,000 0.56; 100 points 2.9
# bench/bench_real_work.py --size medium --only fft.fft
FFT_FROM_REAL_MIN = 1 << 14  # the real transform and its mirror from here ...
FFT_FROM_REAL_MIN_N = 32  # ... in rows of at least this many points

# f32 Bluestein / pocketfft: 1.9-5.6x faster from a largest prime factor of ~251 (docs/fft.md)
# bench/bench_fft.py
BLUESTEIN_MIN_N = 256
BLUESTEIN_MIN_FACTOR = 251

# np.fft / kernel over 1-256 rows: f64 n=1024 1.08-2.11, n=512 0.86-1.73; f32 n=512 0.79-1.70
# bench/bench_fft.py --grid
FFT_KERNEL_MIN_N_F32 = 1024
FFT_KERNEL_MIN_N_F64 = 1024

# a lone row f64, four-step (pool) / pocketfft, alternating in one process: fft 32,768 1.52,
# 100,000 1.00, 196,608 1.29, 262,144 0.42, 300,000 0.71, 360,000 0.40, 810,000 0.52, 1.5M
# 0.53; rfft, irfft: 360,000 1.23 1.19, 810,000 0.77 0.81, 1.5M 0.71 0.66, 3 x 2^20 0.66 0.60
# (pocketfft's real transforms fall off the caches later than its complex ones)
# python -m timeit -s "import flexarray as xp; x = xp.ones(810_000)" "xp.fft.rfft(x)"
FFT_FOUR_STEP_MIN_N = 1 << 18  # points of a lone complex transform taken by the four-step FFT
FFT_FOUR_STEP_MIN_N_REAL = 1 << 19  # ... of a lone real one


# --- Special functions (flexarray.special: SciPy's ufuncs) -----------------------------------

# expit f64, pool / one thread: 32K 1.17, 64K 0.94, 128K 0.73, 256K 0.58, 1M 0.54
# python -m timeit -s "import flexarray as xp; x = xp.ones(1 << 17)" "xp.special.expit(x)"
SPECIAL_THREADS_MIN = 1 << 17  # result elements

# --- nn ---------------------------------------------------------------------------------

# waking the workers costs 30-100 us: a call needs ~0.2 ms of work (8M MACs of GEMM)
# bench/bench_nn.py --only conv2d
CONV_GEMM_THREADS_MIN = 1 << 23

# depthwise conv1d 8x32x512 k3 (0.4M MACs): inline 54 us, on the workers 105 us (busy)
# bench/bench_nn.py --only "depthwise conv1d"
CONV_DIRECT_THREADS_MIN = 1 << 20

# not a speed gate: blocks sized by the thread count gave other GEMM shapes, other last bits
# tests/test_same_bits.py
NN_BALANCE_THREADS = 4  # blocks are sized for this many threads, whatever the count

# 1 MB of float32 scores stays in L2 between the two GEMMs
# bench/bench_nn.py --only attention
ATTENTION_MATERIALIZE_MAX = 1 << 18  # elements of one head's (L, S) score matrix

# ~0.3 ms of GEMM; waking the workers costs 30-100 us
# bench/bench_nn.py --only attention
ATTENTION_THREADS_MIN = 1 << 25

# ~0.3 ms of serial work; waking the workers costs 30-100 us
# bench/bench_nn.py --only pool
POOL_THREADS_MIN = 1 << 19


# --- Memory -----------------------------------------------------------------------------

# exp of 16M f32 into fresh memory 1.9x the time into written memory (first-touch faults);
# glibc trims freed blocks of 4 MB too: euclidean_distances 2,000 x 256 (two 4,096,000-byte
# results alive at once) 2,100 page faults a call, 6.0 -> 2.3 ms recycled from 2 MiB
# bench/bench_core.py (exp 16M float32); bench/bench_real_work.py --size small --only euclid
RECYCLE_MIN_BYTES = 1 << 21  # results recycled by _memory; smaller: NumPy's allocator

# --- Fusion (flexarray/_engines/fusion.py) ----------------------------------------------------
# real work at 50,000 x 64 (3.2M elements), fusion from 524,288 elements against fusion off,
# alternating in one process (33 workloads of bench_real_work.py): geometric mean 0.98,
# StandardScaler 0.92, MaxAbsScaler 0.81, LinearDiscriminantAnalysis 0.86, GaussianNB 0.88,
# euclidean_distances 0.72, softmax 0.79, MinMaxScaler 1.03, the rest 0.95-1.04; below it
# the blocks lose to the eager calls (the values fit in the cache)
FUSION_MIN = 1 << 19  # elements from which an elementwise call waits to be fused
# bench/bench_fusion.py --sizes 524288,1000000, generated loops: sum((a - b) ** 2),
# mean((a - 0.5) ** 2), sum(where(...)), var(a - b) 0.66-0.89x fusion off's time at 524,288
# and 0.39-0.69x at 1M
FUSION_REDUCE_MIN = 1 << 19  # elements from which a reduction runs in the chain's pass
# max(a * b): generated extrema 1.30-1.34x fusion off's time at 524,288 (NumPy's SIMD max
# of values in the cache), 0.87-0.88x at 1M, 0.53x at 10M
FUSION_EXTREMA_MIN = 1 << 20  # elements from which max/min run in the chain's pass
# blocks of 32K and 128K float64 on two threads against fusion off, chains without their
# generated loop (2*a + 3*b, sqrt(a*a + b*b), maximum(a, 0) * -0.5, ((a-0.5)*2 + b)/3 - a*b):
# 32K 0.67-1.17 of fusion off's time at 3.2M, 128K 0.64-0.84 (fewer blocks, less Python
# between them); at 10M 0.54-0.78
FUSION_BLOCK = 1 << 17  # elements per block: the chain's scratch stays in L2 and L3
FUSION_MAX_OPS = 16  # operations in one chain; a longer one computes its first part
# 2*a + 3*b, 1M float64: blocks 1.98 ms, generated loop 0.74 ms, fusion off 1.00 ms
FUSION_KERNEL_MIN = 1 << 16  # elements from which a chain runs as a generated Numba loop
# the four chains above, blocks on two threads over fusion off's time: 1.4-2.4x at 262,144
# (the values fit in the cache: the eager calls are faster), 0.61-0.97x at 524,288,
# 0.51-0.84x at 1M
FUSION_BLOCKS_MIN = 1 << 19  # elements from which blocks compute a chain without its loop
# blocks on one thread: 1.0-1.6x the time of fusion off at 10M; on two: 0.54-0.78x
FUSION_THREADS_MIN_BYTES = 1 << 20  # blocks on the pool's threads from this much output

#: the table as a dict (name -> value), for printing and tuning
GATES = {name: value for name, value in dict(globals()).items() if name.isupper() and name != "GATES"}
