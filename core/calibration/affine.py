"""Affine calibration: ``llr = scale * score + offset`` by prior-weighted logistic regression.

References: Brümmer & de Villiers (2011), sec. 2.7.2 (eq. 30 with one system and no quality term)
and 3.3; Brümmer (2010), sec. 8.3.1 (eqs. 8.16-8.17); docs/conventions.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._repr import summary_repr
from ..cllr import _LN2, min_cllr, softplus_sum
from ..errors import DataError
from ..trials import Trials
from ._logreg import check_classes, fit_sorted
from .base import (
    Calibrator,
    TrainingReport,
    _bool,
    _number,
    _prior,
    _require_keys,
    noting_warnings,
    param_text,
    signed,
    training_report,
)

__all__ = ["AffineCalibrator"]


@summary_repr("scale", "offset", "prior", "regularised")
@dataclass(frozen=True)
class AffineCalibrator(Calibrator):
    """``llr = scale * score + offset``, trained by minimizing ``Ce(prior)`` on dev trials.

    Attributes
    ----------
    scale, offset : float
        The map.  A negative scale means the dev targets score lower than non-targets.
    prior : float
        The training prior ``p`` of the objective ``Ce(p)``.
    objective : float
        ``Ce(p)`` of the calibrated dev LLRs at the optimum, in nats.
    regularised : bool
        The dev trials were separable and the documented L2 penalty was used
        (see :mod:`llrlab.core.calibration._logreg`).
    training : TrainingReport

    Notes
    -----
    Minimizes over ``(a, b)``::

        Ce(p) = p * sum_tar c_t log(1 + exp(-(a s_t + b + logit p)))
              + (1-p) * sum_non c_t log(1 + exp(a s_t + b + logit p))

    with ``c_t`` the trial weights normalized within each class (``1/T``, ``1/N`` when
    unweighted), so each class counts by its prior, not by its number of trials.  Solved by
    trust-region Newton with analytic gradient and Hessian to a predicted remaining decrease
    below ``1e-12`` of the objective.  ``Ce(0.5) / log 2`` is the Cllr of the dev LLRs; at
    any prior the calibrated dev LLRs satisfy ``p * mean_w sigmoid(-(llr+logit p))`` over
    targets ``== (1-p) * mean_w sigmoid(llr+logit p)`` over non-targets (zero gradient in b).

    References
    ----------
    Brümmer & de Villiers (2011), sec. 2.7.2 and 3.3; Brümmer (2010), sec. 8.3.1.

    Examples
    --------
    >>> from llrlab.core import gaussian_trials
    >>> from llrlab.core.calibration import AffineCalibrator
    >>> dev = gaussian_trials(2000, 20000, seed=3, scale=2.0, shift=1.0)  # 2*llr + 1
    >>> cal = AffineCalibrator.fit(dev)
    >>> round(cal.scale, 2), round(cal.offset, 2)        # about (1/2, -1/2)
    (0.5, -0.5)
    >>> cal([1.0, 3.0]).round(2)                     # about (0, 1)
    array([-0.01,  1.01])
    """

    scale: float
    offset: float
    prior: float
    objective: float
    regularised: bool
    training: TrainingReport

    kind = "affine"

    @classmethod
    def fit(cls, dev: Trials, *, prior=0.5):
        """Train on labelled dev trials at the training prior (default 0.5).

        Raises
        ------
        DataError
            No target or no non-target trial, or a prior outside (0, 1).

        Warns
        -----
        SeparableDataWarning
            Separable dev scores (the penalised, finite solution is returned).
        """
        if not isinstance(dev, Trials):
            raise DataError(f"affine calibration is trained on labelled Trials, got "
                            f"{type(dev).__name__}")
        what = f"the dev trials of {dev.source}" if dev.source else "the dev trials"
        check_classes(dev.labels, prior, what=what)  # both classes, a prior (weights: in the fit)
        notes = []
        # one sort of the dev scores (cached in the Trials) serves the fit, the raw and the
        # calibrated Cllr, and the minimum Cllr of the training report
        s = dev.sorted()
        with noting_warnings(notes):
            fit = fit_sorted(s.tar, s.non, prior, tar_weights=s.tar_w, non_weights=s.non_w,
                             what=what)
        a, b = float(fit.weights[0]), float(fit.offset)

        def bits(scale, shift):
            ct = softplus_sum(s.tar, sign=-1.0, shift=shift, weights=s.tar_w, scale=scale)
            cn = softplus_sum(s.non, sign=1.0, shift=shift, weights=s.non_w, scale=scale)
            return (ct / s.n_tar + cn / s.n_non) / (2 * _LN2)

        # an increasing map keeps the order, so the minimum Cllr is that of the raw scores
        min_after = min_cllr(dev) if a > 0 else None
        llr = None if min_after is not None else a * dev.scores + b
        # at the prior 0.5 the fit's objective is the calibrated Cllr in nats: Ce(0.5) =
        # (mean target + mean non-target log-loss) / 2 = Cllr log 2 (no pass over the trials)
        after = fit.objective / _LN2 if float(prior) == 0.5 else bits(a, b)
        report = training_report(
            [dev], llr, notes, cllr_after=after, min_cllr_after=min_after,
            cllr_raw=[bits(1.0, 0.0)],
            score_range=[(min(s.tar[0], s.non[0]), max(s.tar[-1], s.non[-1]))])
        return cls(a, b, float(prior), fit.objective, fit.separable, report)

    def apply(self, scores):
        """``scale * scores + offset`` (NaN refused; infinite scores give infinite LLRs).

        A finite score whose LLR overflows raises :class:`DataError` (an unusable model).
        """
        x = self._scores(scores)
        with np.errstate(over="ignore", invalid="ignore"):
            llr = self.scale * x + self.offset
        return self._finite(llr, x)

    @property
    def monotone(self):
        return self.scale >= 0

    @property
    def strictly_increasing(self):
        return self.scale > 0

    def curve(self, lo=None, hi=None):
        """The map over ``[lo, hi]`` (default: the training score range) as plot points.

        Returns ``(scores, llrs)``, two points: the map is a straight line.
        """
        (rlo, rhi), = self.training.score_range
        s = np.array([rlo if lo is None else lo, rhi if hi is None else hi], dtype=np.float64)
        return s, self.apply(s)

    def inverse(self, llr):
        """The score that maps to ``llr`` (e.g. the score threshold of a Bayes decision)."""
        if self.scale == 0:
            raise DataError("the calibration maps every score to the same LLR; it has no "
                            "inverse")
        return (np.asarray(llr, dtype=np.float64) - self.offset) / self.scale

    def _params(self):
        return {"scale": self.scale, "offset": self.offset, "prior": self.prior,
                "objective": self.objective, "regularised": self.regularised}

    @classmethod
    def _from_params(cls, params, training):
        _require_keys(params, ["scale", "offset", "prior", "objective", "regularised"],
                      "params")
        if len(training.score_range) != 1:
            raise ValueError("an affine calibration has one system's training score range")
        return cls(_number(params["scale"], "params.scale"),
                   _number(params["offset"], "params.offset"),
                   _prior(params["prior"]),
                   _number(params["objective"], "params.objective"),
                   _bool(params["regularised"], "params.regularised"), training)

    def _param_lines(self):
        return [f"affine calibration: llr = {param_text(self.scale)} * score "
                f"{signed(self.offset)}",
                f"training prior {self.prior:g}; Ce at that prior {self.objective:.6g} nats" +
                ("; regularised (separable dev scores)" if self.regularised else "")]
