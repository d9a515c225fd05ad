"""Prior-weighted logistic regression: the objective of affine calibration and linear fusion.

Minimizes ``Ce(p) = p * mean_w softplus(-(l_tar + logit p)) + (1-p) * mean_w softplus(l_non +
logit p)`` over ``l = X @ w`` (last column of X is the constant 1), with analytic gradient and
Hessian, by scipy's trust-region Newton method (``trust-exact``).

References: seed 000 sections 2.7.2 and 3.3; seed 004 chapter 8;
../shared/CONVENTIONS.md "Logistic-regression calibration and fusion".
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.optimize import minimize
from scipy.special import expit, logit

from ..errors import DataError, SeparableDataWarning

__all__ = ["fit_linear"]

#: L2 penalty on the non-constant weights, used only when the classes are separable (the
#: unpenalized optimum is then at infinity): small enough not to matter elsewhere, large
#: enough to give a finite, correctly ordered result.
SEPARABLE_L2 = 1e-4


def fit_linear(x_tar, x_non, prior=0.5, *, w_tar=None, w_non=None):
    """Weights ``w`` (K + 1) of ``llr = X @ w`` minimizing ``Ce(prior)``.

    ``x_tar`` (T, K) and ``x_non`` (N, K) are the features (scores) of each class.
    Returns ``(w, objective, separable)``; ``objective`` in nats.
    """
    p = float(prior)
    if not 0 < p < 1:
        raise DataError(f"the training prior must lie strictly between 0 and 1, got {prior!r}")
    x_tar = np.atleast_2d(np.asarray(x_tar, dtype=np.float64).T).T
    x_non = np.atleast_2d(np.asarray(x_non, dtype=np.float64).T).T
    if x_tar.shape[0] == 0 or x_non.shape[0] == 0:
        raise DataError("calibration needs at least one target and one non-target dev trial")
    k = x_tar.shape[1]
    # standardise for conditioning; map back at the end
    allx = np.vstack([x_tar, x_non])
    mu, sd = allx.mean(axis=0), allx.std(axis=0)
    sd[sd == 0] = 1.0
    zt = np.hstack([(x_tar - mu) / sd, np.ones((x_tar.shape[0], 1))])
    zn = np.hstack([(x_non - mu) / sd, np.ones((x_non.shape[0], 1))])
    wt = np.full(zt.shape[0], 1.0 / zt.shape[0]) if w_tar is None else w_tar / w_tar.sum()
    wn = np.full(zn.shape[0], 1.0 / zn.shape[0]) if w_non is None else w_non / w_non.sum()
    off = logit(p)
    separable = k == 1 and x_non.max() < x_tar.min()
    lam = SEPARABLE_L2 if separable else 0.0
    if separable:
        warnings.warn(SeparableDataWarning(
            "the dev scores are perfectly separable (every target above every non-target): "
            f"the calibration is regularised with an L2 penalty {SEPARABLE_L2:g} on the "
            "scale, so its LLRs are finite but their size is arbitrary"), stacklevel=3)
    pen = np.r_[np.full(k, lam), 0.0]

    def fun(w):
        lt = zt @ w + off
        ln = zn @ w + off
        f = p * (wt @ np.logaddexp(0, -lt)) + (1 - p) * (wn @ np.logaddexp(0, ln))
        st, sn = expit(-lt), expit(ln)
        g = -p * (zt.T @ (wt * st)) + (1 - p) * (zn.T @ (wn * sn))
        return f + 0.5 * pen @ (w * w), g + pen * w

    def hess(w):
        lt = zt @ w + off
        ln = zn @ w + off
        ht = p * wt * expit(lt) * expit(-lt)
        hn = (1 - p) * wn * expit(ln) * expit(-ln)
        return (zt.T * ht) @ zt + (zn.T * hn) @ zn + np.diag(pen)

    w0 = np.zeros(k + 1)
    w0[:k] = 1.0
    res = minimize(fun, w0, jac=True, hess=hess, method="trust-exact",
                   options={"gtol": 1e-12, "maxiter": 500})
    w = res.x
    scale = w[:k] / sd
    const = w[k] - scale @ mu
    return np.r_[scale, const], float(res.fun), separable
