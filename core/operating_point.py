"""Operating points: effective prior, prior log-odds and their conversions.

An application is described by ``(p_target, c_miss, c_fa)``.  For Bayes decisions only the
effective prior matters (Brümmer & de Villiers 2011, sec. 2.3, eq. 11):

    pt = p_target * c_miss / (p_target * c_miss + (1 - p_target) * c_fa),

and the NBER plot uses the prior log-odds ``plo = logit(pt)`` as its x axis.  The Bayes
threshold on log-likelihood-ratios is ``-plo`` (docs/conventions.md).
"""

from __future__ import annotations

import numpy as np
from scipy.special import expit, logit

from .errors import DataError

__all__ = [
    "bayes_threshold",
    "effective_prior",
    "plo_from_costs",
    "plo_from_prior",
    "prior_from_plo",
]


def _check_prob(p, name):
    a = np.asarray(p, dtype=np.float64)
    if np.any(~((a > 0) & (a < 1))):
        raise DataError(f"{name} must lie strictly between 0 and 1, got {p!r}")
    return a


def effective_prior(p_target, c_miss=1.0, c_fa=1.0):
    """Effective target prior of the operating point ``(p_target, c_miss, c_fa)``.

    Notes
    -----
    ``pt = p_target*c_miss / (p_target*c_miss + (1-p_target)*c_fa)``, computed as
    ``sigmoid(logit(p_target) + log(c_miss/c_fa))`` so that it stays exact for tiny priors.

    References
    ----------
    Brümmer & de Villiers (2011), section 2.3; docs/conventions.md.

    Examples
    --------
    >>> round(float(effective_prior(0.001, 1, 1)), 6)
    0.001
    >>> round(float(effective_prior(0.01, 10, 1)), 6)
    0.091743
    """
    return expit(plo_from_costs(p_target, c_miss, c_fa))


def plo_from_costs(p_target, c_miss=1.0, c_fa=1.0):
    """Prior log-odds ``logit(pt)`` of the operating point ``(p_target, c_miss, c_fa)``.

    Examples
    --------
    >>> round(float(plo_from_costs(0.001)), 4)   # the SRE'10 operating point
    -6.9068
    """
    p = _check_prob(p_target, "p_target")
    cm = np.asarray(c_miss, dtype=np.float64)
    cf = np.asarray(c_fa, dtype=np.float64)
    if np.any(~(cm > 0)) or np.any(~(cf > 0)) or np.any(~np.isfinite(cm * cf)):
        raise DataError(f"costs must be positive and finite, got c_miss={c_miss!r}, "
                        f"c_fa={c_fa!r}")
    return logit(p) + np.log(cm) - np.log(cf)


def plo_from_prior(pt):
    """``logit(pt)``; pt must lie strictly between 0 and 1."""
    return logit(_check_prob(pt, "effective prior"))


def prior_from_plo(plo):
    """``sigmoid(plo)``, the effective prior of prior log-odds ``plo``."""
    return expit(np.asarray(plo, dtype=np.float64))


def bayes_threshold(plo):
    """Bayes decision threshold on LLRs, ``-plo``: accept when ``llr >= -plo``."""
    return -np.asarray(plo, dtype=np.float64)
