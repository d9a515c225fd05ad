"""Thin adapter between the dashboard and ``llrlab.core.calibration``.

The dashboard needs one small interface whatever the method: train on dev trials, apply to
score arrays (the sorted scores of an analysis, a grid for the map, one score for a drag),
apply to whole trial sets (fusion, downloads), and show the parameters.  All numerics, and
the properties the dashboard relies on (``monotone``, ``strictly_increasing``), are in
``llrlab.core.calibration``; this module only dispatches.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llrlab.core import Trials

__all__ = ["Calibration", "train"]


@dataclass(frozen=True, eq=False)
class Calibration:
    """A trained calibration (or fusion) as the dashboard uses it.

    Attributes
    ----------
    method : str
        ``"affine"``, ``"pav"`` or ``"fusion"``.
    model : llrlab.core.calibration.Calibrator
        The trained calibrator.
    """

    method: str
    model: object

    @property
    def monotone(self):
        """True when the map is non-decreasing in the score (sorted scores stay sorted)."""
        return self.model.monotone

    @property
    def strictly_increasing(self):
        """True when every order-based result (ROC, DET) is that of the raw scores."""
        return self.model.strictly_increasing

    def apply(self, scores):
        """LLRs of a score array (single-system calibration)."""
        return self.model.apply(np.asarray(scores, dtype=np.float64))

    def apply_one(self, score):
        return float(self.apply(np.array([score], dtype=np.float64))[0])

    def curve(self, lo, hi):
        """``(scores, llrs)``: the exact piecewise-linear map over ``[lo, hi]``."""
        return self.model.curve(lo, hi)

    def apply_trials(self, trials):
        """Calibrated (one Trials) or fused (a list of aligned Trials) trials."""
        sets = list(trials) if isinstance(trials, (list, tuple)) else [trials]
        return self.model.apply_systems(sets)

    def to_dict(self):
        """The parameters and training report as one flat JSON-able dict (for display)."""
        return self.model.report()


def train(method, dev: list[Trials], prior=0.5) -> Calibration:
    """Train ``method`` (``"affine"``, ``"pav"`` or ``"fusion"``) on dev trials."""
    from llrlab.core.calibration import fit_calibrator

    return Calibration(method, fit_calibrator(list(dev), method=method, prior=prior))
