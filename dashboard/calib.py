"""Thin adapter between the dashboard and ``llrlab.core.calibration``.

The dashboard needs one small interface whatever the method: train on dev trials, apply to
score arrays (the sorted scores of an analysis, a grid for the map, one score for a drag),
apply to whole trial sets (fusion, downloads), and export parameters.  All numerics are in
``llrlab.core.calibration``; this module only dispatches.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from llrlab.core import DataError, Trials

__all__ = ["Calibration", "train"]


@dataclass(frozen=True, eq=False)
class Calibration:
    """A trained calibration (or fusion) as the dashboard uses it.

    Attributes
    ----------
    method : str
        ``"affine"``, ``"pav"`` or ``"fusion"``.
    model : object
        The trained object of ``llrlab.core.calibration``.
    monotone : bool
        True when the map is non-decreasing in the score (sorted scores stay sorted).
    strictly_increasing : bool
        True when distinct scores stay distinct and ordered (affine with a positive scale):
        then every order-based result (ROC, DET) is that of the raw scores.
    """

    method: str
    model: object
    monotone: bool
    strictly_increasing: bool = False

    def apply(self, scores):
        """LLRs of a score array (single-system calibration)."""
        return np.asarray(self.model.apply(np.asarray(scores, dtype=np.float64)),
                          dtype=np.float64)

    def apply_one(self, score):
        return float(self.apply(np.array([score], dtype=np.float64))[0])

    def apply_trials(self, trials):
        """Calibrated (one Trials) or fused (a list of aligned Trials) trials."""
        from llrlab.core import calibration as cal

        if self.method == "fusion":
            return cal.apply_fusion(self.model, list(trials))
        (t,) = trials if isinstance(trials, (list, tuple)) else (trials,)
        return t.with_scores(self.apply(t.scores))

    def to_dict(self):
        d = dict(self.model.to_dict())
        d.setdefault("method", self.method)
        return d


def train(method, dev: list[Trials], prior=0.5) -> Calibration:
    """Train ``method`` (``"affine"``, ``"pav"`` or ``"fusion"``) on dev trials."""
    from llrlab.core import calibration as cal

    if method == "affine":
        (t,) = dev
        m = cal.train_affine(t, prior=prior)
        return Calibration("affine", m, bool(m.scale >= 0), bool(m.scale > 0))
    if method == "pav":
        (t,) = dev
        return Calibration("pav", cal.train_pav(t), True)
    if method == "fusion":
        return Calibration("fusion", cal.train_fusion(list(dev), prior=prior), False)
    raise DataError(f"unknown calibration method {method!r}")
