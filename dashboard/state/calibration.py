"""The calibration / fusion choice: which map turns the scores into LLRs."""

from __future__ import annotations

import param

__all__ = ["CalibrationState"]


class CalibrationState(param.Parameterized):
    """Calibration trained on dev (or the fusion of all systems) and its training prior."""

    #: Parameters that change the heavy results.
    result_params = ("method", "train_prior", "fusion")

    method = param.Selector(default="none", objects=["none", "affine", "pav"],
                            label="Calibration", doc="""
        Calibration trained on dev and applied to dev and eval.""")
    train_prior = param.Number(default=0.5, bounds=(0.001, 0.999), step=0.01,
                               label="Training prior", doc="""
        Prior at which the affine calibration / fusion minimizes cross-entropy.""")
    fusion = param.Boolean(default=False, label="Fuse all systems", doc="""
        Linear logistic-regression fusion of all loaded systems, trained on dev.""")

    def prior_key(self):
        """The training prior as far as it matters (None when uncalibrated), rounded for
        cache keys."""
        return None if self.method == "none" else round(self.train_prior, 12)
