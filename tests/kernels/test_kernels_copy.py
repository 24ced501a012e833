"""Strided copies against NumPy assignment, for every item size and random layouts."""
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flexarray._kernels.copy import strided as copy_kernels
from helpers.kernels import arrays, in_layout, random_values, same_bits, shapes

# one dtype per item size (1, 2, 4, 8, 16 bytes) plus bool and a half type
DTYPES = [np.int8, np.bool_, ml_dtypes.bfloat16, np.float32, np.int64, np.complex128]
DST_LAYOUTS = ["contiguous", "reversed", "transposed", "strided", "sliced"]


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(DTYPES), st.sampled_from(DST_LAYOUTS), st.data())
def test_copy_into_any_layouts(dtype, dst_layout, data):
    src = data.draw(arrays(dtype))
    dst = in_layout(np.zeros(src.shape, dtype), dst_layout)
    assert copy_kernels.copy_into(dst, src) is dst
    assert same_bits(dst, src)


@settings(max_examples=30, deadline=None)
@given(shapes, st.data())
def test_copy_into_broadcasts_the_source(shape, data):
    k = data.draw(st.integers(0, len(shape)))
    sshape = tuple(1 if data.draw(st.booleans()) else n for n in shape[len(shape) - k:])
    src = data.draw(arrays(np.float32, sshape))
    dst = np.empty(shape, np.float32)
    copy_kernels.copy_into(dst, src)
    assert same_bits(dst, np.broadcast_to(src, shape))


@pytest.mark.parametrize("dtype", [np.float32, np.uint8, np.complex128])
def test_large_transposes_tiled_and_threaded(dtype):
    rng = np.random.default_rng(4)
    a = random_values(dtype, (1030, 1100), rng, special=False)
    for nthreads in (1, 2, 3):  # (the thread count the engine gives)
        for src in (a.T, a[::-1].T, a.T[::3]):
            out = copy_kernels.ascontiguous(src, np.empty(src.shape, dtype), nthreads)
            assert out.flags.c_contiguous and same_bits(out, src)
        b = random_values(dtype, (7, 130, 150), rng, special=False)
        for perm in [(0, 2, 1), (2, 1, 0), (1, 2, 0)]:
            out = np.empty([b.shape[p] for p in perm], dtype)
            copy_kernels.copy_into(out, b.transpose(perm), nthreads)
            assert same_bits(out, b.transpose(perm))


def test_launch_size_is_the_work_of_one_kernel_launch():
    """The whole copy, or one slab of the leading dims where more than 4 dims remain after
    coalescing (the copy engine weighs it against gates.COPY_THREADS_MIN)."""
    a = np.zeros((6, 7, 8, 9, 10), np.float32)
    assert copy_kernels.launch_size(np.empty_like(a), a) == a.size  # (one dim coalesced)
    src = a.transpose(4, 2, 0, 3, 1)
    dst = np.empty(src.shape, np.float32)
    assert copy_kernels.launch_size(dst, src) == src.size // src.shape[0]
    copy_kernels.copy_into(dst, src, 2)
    assert same_bits(dst, src)
    assert copy_kernels.launch_size(np.empty((3, 0)), np.zeros((3, 0))) == 0


def test_zero_size_and_0d():
    assert copy_kernels.ascontiguous(np.zeros((3, 0), np.float32)).shape == (3, 0)
    x = np.array(5.5)
    out = np.empty(())
    copy_kernels.copy_into(out, x)
    assert out == 5.5
    with pytest.raises(ValueError):
        copy_kernels.copy_into(np.broadcast_to(np.zeros(3), (2, 3)), np.ones((2, 3)))
