"""Synthetic scores for teaching and testing: two Gaussians, their exact LLR, miscalibrations.

Brümmer & de Villiers (2011), fig. 1 (section 2.5.4) compares the true log-likelihood-ratio of
Gaussian scores (targets N(3, 2^2), non-targets N(0, 1)) with deliberately miscalibrated versions
of it: scaled (``a * llr``) and shifted (``llr + b``).  :func:`gaussian_trials` reproduces that
experiment for any means, standard deviations, counts and seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import norm

from .errors import DataError
from .trials import Trials

__all__ = ["GaussianModel", "gaussian_trials"]


@dataclass(frozen=True)
class GaussianModel:
    """Target scores ~ N(mu_tar, sigma_tar^2), non-target scores ~ N(mu_non, sigma_non^2)."""

    mu_tar: float = 3.0
    sigma_tar: float = 2.0
    mu_non: float = 0.0
    sigma_non: float = 1.0

    def __post_init__(self):
        if not (self.sigma_tar > 0 and self.sigma_non > 0):
            raise DataError("standard deviations must be positive")

    def llr(self, scores):
        """The exact LLR ``log N(s; mu_tar, sigma_tar) - log N(s; mu_non, sigma_non)``.

        A quadratic in the score when the variances differ (Brümmer & de Villiers 2011, sec. 2.5.4
        explains the shape of figure 1 by it), linear when they are equal.
        """
        s = np.asarray(scores, dtype=np.float64)
        return (norm.logpdf(s, self.mu_tar, self.sigma_tar)
                - norm.logpdf(s, self.mu_non, self.sigma_non))


def gaussian_trials(n_tar=1000, n_non=10000, *, model=None, scale=1.0, shift=0.0, seed=0,
                    output="llr"):
    """Sample Gaussian trials and return their (miscalibrated) true LLRs or raw scores.

    Parameters
    ----------
    n_tar, n_non : int
        Numbers of target and non-target trials (at least 1 each).
    model : GaussianModel, optional
        Default: Brümmer & de Villiers (2011), fig. 1, targets N(3, 2^2), non-targets N(0, 1).
    scale, shift : float
        Miscalibration of the true LLR: ``scale * llr + shift``.  ``scale=1, shift=0`` is
        perfectly calibrated; ``scale < 1`` under-confident, ``scale > 1`` over-confident.
    seed : int
        Seed of ``numpy.random.default_rng``; the same seed gives the same raw scores for
        every ``scale`` and ``shift``.
    output : {"llr", "score"}
        The (miscalibrated) LLRs, or the raw Gaussian scores.

    Returns
    -------
    Trials

    Examples
    --------
    >>> t = gaussian_trials(5, 7, seed=1)
    >>> t.n_tar, t.n_non
    (5, 7)
    """
    n_tar, n_non = int(n_tar), int(n_non)
    if n_tar < 1 or n_non < 1:
        raise DataError("synthetic trials need at least one target and one non-target")
    model = model or GaussianModel()
    rng = np.random.default_rng(seed)
    tar = rng.normal(model.mu_tar, model.sigma_tar, n_tar)
    non = rng.normal(model.mu_non, model.sigma_non, n_non)
    if output == "llr":
        tar = scale * model.llr(tar) + shift
        non = scale * model.llr(non) + shift
    elif output != "score":
        raise ValueError(f"output must be 'llr' or 'score', got {output!r}")
    return Trials.from_tar_non(tar, non, source="synthetic Gaussian scores")
