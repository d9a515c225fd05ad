"""Calibration and fusion: scores to calibrated log-likelihood-ratios, trained on dev trials.

Three calibrators share one interface (:class:`Calibrator`): ``Kind.fit(dev, ...)`` trains,
calling the calibrator applies it (to an array, a Scores/Trials, or a list of them for a
fusion), ``to_dict()`` / :func:`from_dict` and :func:`save_calibrator` /
:func:`load_calibrator` store it as versioned JSON, ``report()`` and ``training`` say how it
did on dev.

* :class:`AffineCalibrator` -- ``llr = a s + b`` by prior-weighted logistic regression;
* :class:`PAVCalibrator` -- the monotone non-parametric PAV map, with finite saturation;
* :class:`FusionCalibrator` -- ``llr = b + sum_k a_k s_k`` over K systems matched by trial id.

References: Brümmer & de Villiers (2011), sec. 2.7, 3.2, 3.3 and 4.3-4.4; Brümmer (2010), sec. 7.7,
8.3 and appendix C; docs/conventions.md.

Examples
--------
>>> from llrlab.core import gaussian_trials, cllr
>>> from llrlab.core.calibration import fit_calibrator
>>> dev = gaussian_trials(1000, 10000, seed=1, scale=2.0, shift=-1.0)
>>> ev = gaussian_trials(1000, 10000, seed=2, scale=2.0, shift=-1.0)
>>> cal = fit_calibrator(dev, method="affine", prior=0.5)
>>> round(cllr(ev), 3), round(cllr(cal(ev)), 3)      # eval Cllr before and after
(0.739, 0.512)
"""

from ..errors import DataError
from ._logreg import SEPARABLE_L2, ConvergenceWarning
from .affine import AffineCalibrator
from .base import (
    FORMAT_VERSION,
    Calibrator,
    TrainingReport,
    from_dict,
    load_calibrator,
    save_calibrator,
)
from .fusion import Alignment, FusionCalibrator, align_systems
from .isotonic import PSEUDO_COUNT, PAVCalibrator

__all__ = [
    "FORMAT_VERSION",
    "METHODS",
    "PSEUDO_COUNT",
    "SEPARABLE_L2",
    "AffineCalibrator",
    "Alignment",
    "Calibrator",
    "ConvergenceWarning",
    "FusionCalibrator",
    "PAVCalibrator",
    "TrainingReport",
    "align_systems",
    "fit_calibrator",
    "from_dict",
    "load_calibrator",
    "save_calibrator",
]

#: The calibration methods of :func:`fit_calibrator`.
METHODS = ("affine", "pav", "fusion")


def fit_calibrator(dev, *, method="affine", prior=0.5):
    """Train a calibrator on labelled dev trials.

    Parameters
    ----------
    dev : Trials, or list of Trials
        One dev set; for ``method="fusion"`` one per system (matched by trial id).
    method : {"affine", "pav", "fusion"}
    prior : float
        Training prior of the logistic-regression objective (affine, fusion); PAV does not
        depend on a prior.

    Returns
    -------
    Calibrator
    """
    if method == "fusion":
        return FusionCalibrator.fit(dev if isinstance(dev, (list, tuple)) else [dev],
                                    prior=prior)
    if isinstance(dev, (list, tuple)):
        if len(dev) != 1:
            raise DataError(f"{method} calibration takes one dev set, got {len(dev)}; use "
                            f"method='fusion' to combine several systems")
        (dev,) = dev
    if method == "affine":
        return AffineCalibrator.fit(dev, prior=prior)
    if method == "pav":
        return PAVCalibrator.fit(dev)
    raise DataError(f"unknown calibration method {method!r}; use one of {', '.join(METHODS)}")
