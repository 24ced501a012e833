"""flexarray.nn: convolution, pooling, attention and sliding windows.

Channels-first layouts (N, C, spatial...) and the signatures of ``torch.nn.functional``
(and ``Tensor.unfold``), on flexarray arrays. See docs/nn.md for the reference and the
measured speed against PyTorch.
"""
from .conv import (conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d,
                   conv_transpose3d)
from .pool import (max_pool1d, max_pool2d, max_pool3d, avg_pool1d, avg_pool2d, avg_pool3d,
                   adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d,
                   adaptive_max_pool1d, adaptive_max_pool2d, adaptive_max_pool3d)
from .attention import scaled_dot_product_attention
from .windows import unfold

__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
    "conv_transpose3d",
    "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
    "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
    "scaled_dot_product_attention", "unfold",
]
