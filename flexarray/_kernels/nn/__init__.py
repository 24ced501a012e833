"""flexarray.nn kernels: convolution (``conv``), pooling (``pool``), attention
(``attention``) and their shared intrinsics (``common``).

Contract: C-contiguous float32/float64 operands passed flat with one geometry tuple (one
specialization per dtype), everything in the 3-D case (1-D and 2-D arrive with size-1
dimensions), no validation inside (``flexarray.nn`` checked the arguments), results written
into the given outputs; the nn drivers split work into blocks for the worker threads.
"""
