"""Loops generated for fused chains (``flexarray._kernels.fusion``): one module per chain,
written into the kernels' disk cache directory (``chains/``) and imported from there, in
this process and in the background compile process alike."""
import os

from .. import cache_dir

DIR = os.path.join(cache_dir(), "chains")
__path__.append(DIR)  # noqa: F821 - a package's own __path__
