"""NumPy-level layout strategies for the kernel tests, and tests of ``_kernels._intrinsics``:
the half-precision converters (bit-exact against NumPy and ml_dtypes), ``flat_view`` and
``plan`` (every element addressed where NumPy says it is)."""
import warnings

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from flexarray._kernels import kernel
from flexarray._kernels import _intrinsics as intrinsics
from helpers.kernels import arrays, same_bits

BF16 = np.dtype(ml_dtypes.bfloat16)












# ------------------------------------------------------------------ converters
@kernel
def _load_all(u, f16, bf16):
    for i in range(u.size):
        f16[i] = intrinsics.f16_load(u[i])
        bf16[i] = intrinsics.bf16_load(u[i])


@kernel
def _store_all(x, f16, bf16):
    for i in range(x.size):
        f16[i] = intrinsics.f16_store(x[i])
        bf16[i] = intrinsics.bf16_store(x[i])


def test_half_loads_are_exact_for_every_bit_pattern():
    u = np.arange(1 << 16, dtype=np.uint16)
    f16, bf16 = np.empty(u.size, np.float32), np.empty(u.size, np.float32)
    _load_all(u, f16, bf16)
    assert np.array_equal(f16.view(np.uint32), u.view(np.float16).astype(np.float32)
                          .view(np.uint32))
    assert np.array_equal(bf16.view(np.uint32), u.view(BF16).astype(np.float32)
                          .view(np.uint32))


def test_half_stores_round_like_numpy_and_ml_dtypes():
    rng = np.random.default_rng(1)
    edges = [np.arange(c - 3000, c + 3000, dtype=np.int64) for c in
             (0x7F800000, 0xFF800000, 0x33000000, 0x38800000, 0x477FE000, 0x7F7F8000,
              0x00000000, 0x80000000, 0x3F808000)]
    bits = np.concatenate([rng.integers(0, 1 << 32, 400_000)] + edges) & 0xFFFFFFFF
    x = bits.astype(np.uint32).view(np.float32)
    f16, bf16 = np.empty(x.size, np.uint16), np.empty(x.size, np.uint16)
    _store_all(x, f16, bf16)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.array_equal(f16, x.astype(np.float16).view(np.uint16))
        assert np.array_equal(bf16, x.astype(BF16).view(np.uint16))


# ------------------------------------------------------------------ layout prep
@settings(max_examples=60, deadline=None)
@given(arrays(np.float64), st.booleans())
def test_flat_view_addresses_every_element(a, readonly):
    readonly = readonly or not a.flags.writeable
    flat, off, strides = intrinsics.flat_view(a, readonly=readonly)
    idx = np.indices(a.shape).reshape(a.ndim, -1) if a.ndim else np.zeros((0, 1), np.int64)
    pos = off + np.asarray(strides, np.int64) @ idx
    assert same_bits(flat[pos], a.reshape(-1))
    assert flat.ndim == 1 and flat.flags.c_contiguous
    if readonly:
        assert not flat.flags.writeable


def test_flat_view_of_foreign_memory_and_odd_strides():
    buf = bytearray(np.arange(40, dtype=np.float64).tobytes())
    a = np.frombuffer(buf, np.float64).reshape(5, 8)[::-2, 1::3]
    flat, off, strides = intrinsics.flat_view(a)
    assert flat[off + strides[0] * 2 + strides[1]] == a[2, 1]
    odd = np.ndarray((3,), np.float32, buffer=np.zeros(16, np.uint8), offset=1, strides=(5,))
    assert intrinsics.flat_view(odd) is None
    with pytest.raises(ValueError, match="read-only"):
        intrinsics.flat_view(np.broadcast_to(np.zeros(3), (2, 3)))


def _visited(shape, strides, offsets):
    """Sorted tuples of the positions all operands address, over every index of shape."""
    idx = np.indices(shape).reshape(len(shape), -1) if shape else np.zeros((0, 1), np.int64)
    cols = [o + np.asarray(st_, np.int64) @ idx for st_, o in zip(strides, offsets)]
    return sorted(zip(*(c.tolist() for c in cols)))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=0, max_size=6).map(tuple), st.data())
def test_plan_visits_the_same_elements(shape, data):
    """The planned rank-4 layout addresses exactly the original tuples of positions."""
    signs = [data.draw(st.sampled_from([1, -1])) for _ in shape]
    primary = tuple(int(np.prod(shape[i + 1:])) * signs[i] for i in range(len(shape)))
    other = tuple(data.draw(st.sampled_from([0, 1, -1, 3, -7, 40])) for _ in shape)
    offsets = (1000, 500)
    p = intrinsics.plan(shape, (primary, other), offsets)
    if p is None:
        assert len(shape) > intrinsics.RANK
        return
    shp, sts, offs = p
    assert len(shp) == intrinsics.RANK and all(len(s) == intrinsics.RANK for s in sts)
    assert all(s >= 0 for n, s in zip(shp, sts[0]) if n > 1)
    assert _visited(shp, sts, offs) == _visited(shape, (primary, other), offsets)


def test_run_split_covers_every_item_once():
    from flexarray._threads import run_split
    seen = []
    run_split(lambda lo, hi: seen.extend(range(lo, hi)), (), 1000, 3)
    assert sorted(seen) == list(range(1000))
    with pytest.raises(ZeroDivisionError):
        run_split(lambda lo, hi: 1 / 0, (), 10, 2)
