"""Run by tests/integration/test_integration.py in a fresh interpreter (SCIPY_ARRAY_API=1 must be set
before SciPy is imported): estimators and SciPy functions on flexarray arrays against the
same calls on NumPy arrays."""
import numpy as np
from sklearn import config_context
from sklearn.decomposition import PCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.linear_model import Ridge
from sklearn.preprocessing import MinMaxScaler, StandardScaler
import scipy.special
import scipy.stats

import flexarray as xp

rng = np.random.default_rng(0)
Xn = rng.standard_normal((120, 6))
yn = (Xn[:, 0] + 0.3 * Xn[:, 1] > 0).astype(np.int64)
X, y = xp.asarray(Xn), xp.asarray(yn)


def check(name, got, expected):
    assert isinstance(got, xp.Array), (name, type(got))
    np.testing.assert_allclose(np.asarray(got), expected, rtol=1e-7, atol=1e-9, err_msg=name)
    print("ok", name)


for est in (PCA(n_components=3, svd_solver="full"), StandardScaler(), MinMaxScaler()):
    with config_context(array_api_dispatch=True):
        got = est.fit_transform(X)
    check(type(est).__name__, got, type(est)(**est.get_params()).fit_transform(Xn))

with config_context(array_api_dispatch=True):
    lda = LinearDiscriminantAnalysis().fit(X, y)
    got = lda.predict_proba(X)
check("LinearDiscriminantAnalysis", got, LinearDiscriminantAnalysis().fit(Xn, yn).predict_proba(Xn))

yf = Xn @ np.arange(1.0, 7.0) + 0.1 * rng.standard_normal(120)
with config_context(array_api_dispatch=True):
    got = Ridge(alpha=0.5, solver="svd").fit(X, xp.asarray(yf)).predict(X)
check("Ridge", got, Ridge(alpha=0.5, solver="svd").fit(Xn, yf).predict(Xn))

check("logsumexp", scipy.special.logsumexp(X, axis=0), scipy.special.logsumexp(Xn, axis=0))
check("expit", scipy.special.expit(X), scipy.special.expit(Xn))
check("zscore", scipy.stats.zscore(X), scipy.stats.zscore(Xn))
# SciPy's special functions take flexarray.special's (SciPy's ufuncs on the pool's threads)
big = rng.standard_normal(300_000)
got = scipy.special.log_ndtr(xp.asarray(big))
assert "log_ndtr" in xp.special._cache, "scipy.special did not call flexarray.special"
assert np.array_equal(np.asarray(got), scipy.special.log_ndtr(big)), "log_ndtr bits"
print("ok flexarray.special from scipy.special")
print("all ok")
