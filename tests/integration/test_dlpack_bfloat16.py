"""bfloat16 through DLPack (flexarray/_dtypes.py: DLPack's kDLBfloat code, which torch
exchanges and NumPy's own DLPack refuses): export and import share memory, with and
without a versioned capsule, strided views included; torch both ways where installed."""
import ml_dtypes
import numpy as np
import pytest

import flexarray as xp
from flexarray import _dtypes


class Producer:
    """A DLPack producer of a bfloat16 NumPy array (flexarray's export helper)."""

    def __init__(self, nd, versioned):
        self.nd, self.versioned = nd, versioned

    def __dlpack__(self, *, max_version=None, stream=None, dl_device=None, copy=None):
        return _dtypes.bfloat16_dlpack(self.nd, max_version=max_version if self.versioned
                                       else None)

    def __dlpack_device__(self):
        return (1, 0)


def values(shape=(3, 4)):
    return (np.arange(np.prod(shape), dtype=np.float32) / 4 - 1).astype(
        ml_dtypes.bfloat16).reshape(shape)


@pytest.mark.parametrize("versioned", [True, False])
@pytest.mark.parametrize("view", [lambda a: a, lambda a: a.T, lambda a: a[::2, 1:]])
def test_bfloat16_round_trip_shares_memory(versioned, view):
    base = values()
    a = view(base)
    x = xp.from_dlpack(Producer(a, versioned))
    assert x.dtype == xp.bfloat16 and x.shape == a.shape
    np.testing.assert_array_equal(np.asarray(x).view(np.uint16), a.view(np.uint16))
    a[0, 0] = 7.0  # the producer's memory, shared
    assert float(x[0, 0]) == 7.0
    if versioned:
        x[0, 1] = 5.0
        assert float(a[0, 1]) == 5.0
    else:  # (DLPack before 1.0 has no read-only flag: NumPy's import is read-only)
        with pytest.raises(ValueError, match="read-only"):
            x[0, 1] = 5.0
    c = xp.from_dlpack(Producer(a, versioned), copy=True)
    c[0, 0] = -3.0
    assert float(a[0, 0]) == 7.0


def test_other_dtypes_and_refusals_are_unchanged():
    with pytest.raises(BufferError, match="from_dlpack"):
        xp.from_dlpack(np.array(["2020-01-01"], "datetime64[D]"))
    x = xp.from_dlpack(np.arange(4.0))
    assert x.dtype == xp.float64


@pytest.fixture
def torch_module():
    return pytest.importorskip("torch")


@pytest.mark.torch
def test_torch_bfloat16_into_flexarray(torch_module):
    t = torch_module.arange(12, dtype=torch_module.float32).reshape(3, 4).to(
        torch_module.bfloat16)
    for src in (t, t.T, t[:, 1::2]):
        x = xp.from_dlpack(src)
        assert x.dtype == xp.bfloat16
        np.testing.assert_array_equal(np.asarray(xp.astype(x, xp.float32)),
                                      src.float().numpy())
        assert xp.asarray(src).dtype == xp.bfloat16  # (torch's __array__ refuses bfloat16)
    x = xp.from_dlpack(t)
    x[1, 1] = 100.0
    assert float(t[1, 1]) == 100.0  # shared


@pytest.mark.torch
def test_flexarray_bfloat16_into_torch(torch_module):
    x = xp.asarray(values())
    for v in (x, x.T, x[::2, 1:]):
        t = torch_module.from_dlpack(v)
        assert t.dtype == torch_module.bfloat16
        np.testing.assert_array_equal(t.float().numpy(), np.asarray(xp.astype(v, xp.float32)))
    t = torch_module.from_dlpack(x)
    t[0, 0] = 5.0
    assert float(x[0, 0]) == 5.0  # shared
