"""Sort kernels: stable LSD radix sort and argsort of the rows of a C-contiguous 2-D array
(``radix``).

Contract: keys in flexarray's order (ascending or descending, NaN last, -0.0 == +0.0,
stable); rows split over the worker threads above the gate of ``flexarray._engines.gates``;
fresh results. Comparison sorts (NumPy's) serve the dtypes and sizes the gate leaves out.
"""
