"""What the dashboard draws for one choice of data and calibration: frozen result records.

:class:`Results` holds one :class:`DatasetResult` per dev / eval set (and the true LLR in
teaching mode); everything the plots need when the operating point moves is then a look-up
(:meth:`llrlab.core.Analysis.at`) or one of the small maps below (:meth:`Results.plo_of_score`,
:meth:`Results.plo_of_det_point`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from llrlab.core import Analysis, Trials, fnmr_at_fmr
from llrlab.core.calibration import Calibrator
from llrlab.core.histogram import Histogram

if TYPE_CHECKING:  # annotations only (conditions.py imports this module)
    from .conditions import ConditionSpec

__all__ = ["DET_FMR", "DET_POINTS", "ConditionCurve", "DatasetResult", "Histogram", "Results",
           "SystemData"]

#: Largest number of points sent to the browser per DET curve.
DET_POINTS = 4000

#: FMR targets marked on the DET curves: FMR100 and FMR1000 (FNMR at FMR <= 1 %, 0.1 %).
DET_FMR = (0.01, 0.001)


@dataclass(frozen=True, eq=False)
class SystemData:
    """The trials of one system: a dev set (to train calibration) and an eval set."""

    dev: Trials | None = None
    eval: Trials | None = None

    def replace(self, role, trials):
        return SystemData(**{"dev": self.dev, "eval": self.eval, role: trials})


@dataclass(frozen=True, eq=False)
class ConditionCurve:
    """One condition of a dataset: its weight in the pool and the analysis of its trials
    alone (the LLRs that are evaluated, calibrated like the pool)."""

    name: str
    w_tar: float
    w_non: float
    llr: Analysis

    def det(self, kind):
        return self.llr.det(kind, max_points=DET_POINTS)


@dataclass(frozen=True, eq=False)
class DatasetResult:
    """Everything drawn for one dataset (dev, eval, or the true LLR of teaching mode).

    Attributes
    ----------
    role : str
        ``"dev"``, ``"eval"`` or ``"true"``.
    label : str
        Legend text.
    raw : Analysis
        Analysis of the scores before calibration (the histogram domain).
    llr : Analysis
        Analysis of the LLRs that are evaluated (calibrated, fused, or the raw scores).
    hist : Histogram or None
    pick_x, pick_y, pick_plo : ndarray
        Probit coordinates of the minimum-DCF point for a grid of prior log-odds, one entry per
        distinct ROCCH vertex, with the middle of the plo range where that vertex is optimal:
        maps a click on the DET plot to an operating point.
    same_order : bool
        The LLRs are in the order of the raw scores (DET curves of ``raw``).
    conditions : tuple of ConditionCurve
        The pooled conditions (at most ``MAX_CONDITIONS``), when the trials have them.
    trials, transform
        The pooled trials in the histogram domain (with the condition weights) and the
        calibration applied to them (None: their scores are the LLRs); see
        :meth:`llr_trials`.
    """

    role: str
    label: str
    raw: Analysis
    llr: Analysis
    hist: Histogram | None = None
    pick_x: np.ndarray = field(default_factory=lambda: np.empty(0))
    pick_y: np.ndarray = field(default_factory=lambda: np.empty(0))
    pick_plo: np.ndarray = field(default_factory=lambda: np.empty(0))
    same_order: bool = False
    conditions: tuple = ()
    trials: Trials | None = None
    transform: object = None
    _cache: dict = field(default_factory=dict, repr=False)

    def llr_trials(self) -> Trials | None:
        """The evaluated trials with their LLRs as scores (and the pool's weights), for the
        bootstrap; None when the dataset has no trials of its own."""
        if self.trials is None:
            return None
        if self.transform is None:
            return self.trials
        return self.trials.with_scores(self.transform(self.trials.scores))

    @property
    def _ordered(self):
        # DET curves depend on the order of the scores only: under a strictly increasing
        # map (affine calibration with a positive scale) they are those of the raw scores.
        return self.raw if self.same_order else self.llr

    def det(self, kind):
        return self._ordered.det(kind, max_points=DET_POINTS)

    def det_dr30(self, kind):
        return self._ordered.det_dr30(kind)

    def fmr_points(self):
        """FMR100 and FMR1000 (:data:`DET_FMR`) on the steppy DET curve:
        :class:`~llrlab.core.ThresholdCounts` of shape (2,), from the sort already made
        (binary searches; cached); None for an analysis without sorted scores in memory
        (out of core, on Dask)."""
        if "fmr_points" not in self._cache:
            a = self._ordered
            in_memory = isinstance(a, Analysis) and a.in_memory
            self._cache["fmr_points"] = fnmr_at_fmr(a, fmr=DET_FMR) if in_memory else None
        return self._cache["fmr_points"]

    def warm(self):
        """Compute the (cached) DET curves now, in the worker thread, not while drawing."""
        for kind in ("steppy", "rocch"):
            self.det(kind)
            self.det_dr30(kind)
        self.fmr_points()
        for c in self.conditions:
            c.det("rocch")
        return self


@dataclass(frozen=True, eq=False)
class Results:
    """The heavy, cached part of the dashboard for one (data, calibration) choice.

    Attributes
    ----------
    key : tuple
        The cache key.
    datasets : dict of str to DatasetResult
        In display order (``dev``, ``eval``, then ``true`` in teaching mode).
    calibration : llrlab.core.calibration.Calibrator or None
        The trained calibration or fusion (None when uncalibrated).
    score_label : str
        Axis label of the histogram domain.
    mapping : tuple of ndarray or None
        ``(scores, llrs)``: the calibration map sampled over the histogram range.
    references : list of (str, Analysis)
        Teaching mode: the reference miscalibrations of the true LLR (their NBER curves are
        computed on demand, on the plotted grid).
    notes : list of str
        Things the user should know (e.g. what fusion used).
    teaching : bool
    all_conditions : ndarray of str
        Every condition of the shown data, sorted (empty when the trials carry none).
    condition_menu : ConditionMenu or None
        The conditions the page offers (the largest by name, the others as one entry).
    condition_spec : ConditionSpec or None
        How they were pooled (None without conditions).
    """

    key: tuple
    datasets: dict
    calibration: Calibrator | None = None
    score_label: str = "score"
    mapping: tuple | None = None
    references: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    teaching: bool = False
    all_conditions: tuple = ()
    condition_spec: ConditionSpec | None = None
    condition_menu: object = None

    @property
    def primary(self) -> DatasetResult | None:
        """The dataset that decides DR30 shading and DET clicks: eval if loaded, else dev."""
        for role in ("eval", "dev"):
            if role in self.datasets:
                return self.datasets[role]
        return None

    def threshold_score(self, plo):
        """Score whose LLR is the Bayes threshold ``-plo`` (histogram domain).

        Uncalibrated scores are read as LLRs, so the threshold is ``-plo``; with a
        calibration it is the inverse of its exact piecewise-linear map (clipped to its
        range).
        """
        if self.mapping is None:
            return -float(plo)
        s, llr = self.mapping
        if llr[-1] < llr[0]:  # a decreasing map (negative affine scale)
            s, llr = s[::-1], llr[::-1]
        return float(np.interp(-float(plo), llr, s))

    def score_threshold(self, plo):
        """The threshold on the scores of the histogram domain that the decision at ``plo``
        uses: a trial is accepted when its score is at least this (``-inf``: every score,
        ``+inf``: none), or None when no single threshold says it (a calibration with a
        negative scale).

        Uncalibrated scores are read as LLRs, so it is the Bayes threshold ``-plo``; fused
        scores are LLRs too.  With a calibration it is the smallest raw score whose LLR
        reaches ``-plo`` (the calibration's exact inverse, not clipped to any range).
        """
        eta = -float(plo)
        cal = self.calibration
        if cal is None or self.mapping is None:
            return eta
        if not cal.strictly_increasing:
            if not cal.monotone:
                return None
            if getattr(cal, "scale", None) == 0:  # a constant map: all or nothing
                return -np.inf if cal.offset >= eta else np.inf
        return float(cal.inverse(eta))

    def plo_of_score(self, score):
        """Prior log-odds whose Bayes threshold falls at ``score`` (histogram domain)."""
        if self.mapping is None or self.calibration is None:
            return -float(score)
        return -float(self.calibration.apply(np.array([float(score)]))[0])

    def plo_of_det_point(self, x, y):
        """Prior log-odds of the min-DCF point nearest to ``(x, y)`` (probit coordinates of
        the DET plot) on the primary curve, or None when there is none."""
        d = self.primary
        if d is None or d.pick_x.size == 0:
            return None
        i = int(np.argmin((d.pick_x - x) ** 2 + (d.pick_y - y) ** 2))
        return float(d.pick_plo[i])
