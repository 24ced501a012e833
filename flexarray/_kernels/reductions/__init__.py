"""Reduction kernels: sum/prod/max/min over any axes (``reduce``), argmax/argmin (``argminmax``).

Contract: any strided NumPy view (negative and zero strides included), axes sorted and valid
(the frontend checked them); strict IEEE, a summation order fixed by the shape and layout
(never by the thread count), NaN propagated as NumPy; a fresh result array. ``reduce``'s
work items run on the thread count its engine (``flexarray._engines.reductions``) gives;
``argminmax`` splits its rows over the package's worker threads above the gates of
``flexarray._engines.gates``.
"""
