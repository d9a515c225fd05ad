"""Threshold measures, named as biometrics names them: counts at a score threshold, the
threshold-sweep EER, FNMR at a fixed FMR (FMR100, FMR1000, ZeroFMR), FMR at a fixed FNMR
(ZeroFNMR), the HTER at a threshold fixed on dev, and the ROC as a table of thresholds.

Terms (ISO/IEC 19795-1:2021): a *false match* is a non-target (impostor) comparison whose
score is accepted, a *false non-match* a target (genuine) comparison whose score is rejected.
llrlab accepts when ``score >= t`` (docs/conventions.md), so at a threshold ``t``::

    FNMR(t) = Pmiss(t) = #(tar < t) / T        FMR(t) = Pfa(t) = #(non >= t) / N

(sums of weights over total weights when the trials carry weights).  These are the
comparison-level rates of ISO/IEC 19795-1; its FRR and FAR, which also count failures to
acquire, equal them when there are none (llrlab sees scores only).

Everything comes from one sort of the scores (``llrlab.core._sorting``): the *threshold
sweep* merges the two sorted classes into the distinct score values ``u_0 < ... < u_{K-1}``
and evaluates the rates at each (a threshold between two distinct scores gives the same
counts as the upper one), then at ``+inf`` (every trial rejected) -- the model of
scikit-learn's ``_binary_clf_curve``: sort, collapse ties, cumulative counts.  Point ``k``
of the sweep is reached by every threshold ``t`` with ``u_{k-1} < t <= u_k``; a measure
reports that interval (``lower``, ``upper``) and, as its ``threshold``, its midpoint (the
choice of bob.measure's ``eer_threshold`` and of llrlab's EPC: a new score in the gap is as
likely to fall on either side), ``-inf`` for the first point (every trial accepted) and
``+inf`` for the last.

References: ISO/IEC 19795-1:2021; Maio, Maltoni, Cappelli, Wayman & Jain (2002) (FVC2000:
EER, ZeroFMR, ZeroFNMR); Cappelli, Maio, Maltoni, Wayman & Jain (2006) (FVC2004: FMR100,
FMR1000); Bengio & Mariéthoz (2004) (HTER); docs/conventions.md, "Threshold measures".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._repr import summary_repr
from ._sorting import SortedScores, distinct_grid, sorted_input
from ._validate import as_number, choose
from .epc import _as_sorted, _between
from .errors import DataError

__all__ = ["EER_RULES", "HTERResult", "ThresholdCounts", "ThresholdCurve", "ThresholdEER",
           "ThresholdSummary", "counts_at", "fmr_at_fnmr", "fmr_label", "fnmr_at_fmr", "hter",
           "roc_curve", "threshold_eer", "threshold_summary", "zero_fmr", "zero_fnmr"]

#: The rules :func:`threshold_eer` can pick the EER's threshold by.
EER_RULES = ("fvc", "closest")

#: FMR targets of FMR100, FMR1000 and FMR10000 (FNMR at FMR <= 1 %, 0.1 %, 0.01 %).
DEFAULT_FMR = (0.01, 0.001, 0.0001)


def fmr_label(fmr):
    """The field's name of FNMR at FMR <= ``fmr``: ``FMR100`` for 0.01, ``FMR1000`` for
    0.001, ``ZeroFMR`` for 0; ``FMR@0.03`` when ``1/fmr`` is not a whole number.

    >>> [fmr_label(x) for x in (0.01, 0.001, 1e-4, 0.05, 0.0, 0.03)]
    ['FMR100', 'FMR1000', 'FMR10000', 'FMR20', 'ZeroFMR', 'FMR@0.03']
    """
    fmr = float(fmr)
    if fmr == 0:
        return "ZeroFMR"
    inv = 1.0 / fmr
    if inv >= 1 and abs(inv - round(inv)) <= 1e-9 * inv:
        return f"FMR{round(inv)}"
    return f"FMR@{fmr:g}"


@summary_repr("threshold", "p_miss", "p_fa", "misses", "false_alarms")
@dataclass(frozen=True, eq=False)
class ThresholdCounts:
    """Errors at score thresholds; every array has the shape of the thresholds asked for
    (0-d for one).

    Attributes
    ----------
    threshold : ndarray
        The threshold (accept when ``score >= threshold``).
    lower, upper : ndarray
        Every threshold ``t`` with ``lower < t <= upper`` gives the same decisions on these
        trials: ``upper`` is the smallest score accepted (``+inf`` when none is), ``lower``
        the largest score rejected (``-inf`` when none is).
    p_miss, p_fa : ndarray
        FNMR and FMR: ``#(tar < t)/T`` and ``#(non >= t)/N`` (weighted when the trials carry
        weights).
    misses, false_alarms : ndarray of int64
        Numbers of false non-matches and false matches (trials, not weights).
    n_tar, n_non : int
        Numbers of target and non-target trials.
    """

    threshold: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    p_miss: np.ndarray
    p_fa: np.ndarray
    misses: np.ndarray
    false_alarms: np.ndarray
    n_tar: int
    n_non: int

    @property
    def fnmr(self):
        """False non-match rate (``p_miss``)."""
        return self.p_miss

    @property
    def fmr(self):
        """False match rate (``p_fa``)."""
        return self.p_fa

    @property
    def hter(self):
        """Half total error rate ``(FMR + FNMR) / 2``."""
        return 0.5 * (self.p_miss + self.p_fa)


@summary_repr("eer", "eer_low", "eer_high", "threshold", "rule")
@dataclass(frozen=True, eq=False)
class ThresholdEER:
    """The equal error rate of a threshold sweep (see :func:`threshold_eer`).

    Attributes
    ----------
    eer : float
        ``(FMR + FNMR) / 2`` at the chosen threshold.
    eer_low, eer_high : float
        The smaller and the larger of the two rates there (FVC2000's ``[EER_low,
        EER_high]``, the interval that contains the EER of the continuous score
        distributions).
    rule : str
        How the threshold was chosen (one of :data:`EER_RULES`).
    at : ThresholdCounts
        The errors at the chosen threshold (0-d arrays).
    """

    eer: float
    eer_low: float
    eer_high: float
    rule: str
    at: ThresholdCounts

    @property
    def threshold(self):
        """The chosen threshold (the midpoint of ``at.lower``, ``at.upper``)."""
        return float(self.at.threshold)


@summary_repr("hter", "threshold", "criterion")
@dataclass(frozen=True, eq=False)
class HTERResult:
    """Half total error rate on eval at a threshold chosen on dev (see :func:`hter`).

    Attributes
    ----------
    hter : float
        ``(FMR_eval + FNMR_eval) / 2`` at ``threshold``.
    threshold : float
        The threshold fixed on dev (accept when ``score >= threshold``).
    criterion : str
        ``"eer"`` or ``"fmr"``.
    fmr : float or None
        The dev FMR target of ``criterion="fmr"``.
    dev, eval : ThresholdCounts
        Errors of the dev and the eval trials at ``threshold`` (0-d arrays).
    """

    hter: float
    threshold: float
    criterion: str
    fmr: float | None
    dev: ThresholdCounts
    eval: ThresholdCounts


@summary_repr("eer", "fmr", "zero_fmr", "zero_fnmr", "auc")
@dataclass(frozen=True, eq=False)
class ThresholdSummary:
    """The threshold measures of one score set, from one sort (see
    :func:`threshold_summary`).

    Attributes
    ----------
    eer : ThresholdEER
    fmr : ndarray, shape (K,)
        The FMR targets of ``fnmr_at_fmr``.
    fnmr_at_fmr : ThresholdCounts
        Arrays of shape (K,): FNMR at FMR <= ``fmr[i]`` (FMR100, FMR1000, ...).
    zero_fmr, zero_fnmr : ThresholdCounts
        0-d: ZeroFMR (its value is ``p_miss``) and ZeroFNMR (its value is ``p_fa``).
    auc : AUCResult
    """

    eer: ThresholdEER
    fmr: np.ndarray
    fnmr_at_fmr: ThresholdCounts
    zero_fmr: ThresholdCounts
    zero_fnmr: ThresholdCounts
    auc: object


@summary_repr("threshold", "p_fa", "p_miss")
@dataclass(frozen=True, eq=False)
class ThresholdCurve:
    """The ROC as a table: one row per threshold of the sweep, in increasing threshold order
    (``p_fa`` falling, ``p_miss`` rising).

    Attributes
    ----------
    threshold : ndarray, shape (M,)
        Row ``i`` holds the errors when accepting ``score >= threshold[i]``: each distinct
        score, then ``+inf`` (every trial rejected).
    p_fa, p_miss : ndarray, shape (M,)
        FMR and FNMR (weighted when the trials carry weights).
    false_alarms, misses : ndarray of int64, shape (M,)
        Numbers of false matches and false non-matches (trials).
    n_tar, n_non : int
    complete : bool
        Whether every threshold of the sweep is here (False after :meth:`decimated`).

    Notes
    -----
    The DET curve is the same table on probit axes, ``probit(p_fa)``, ``probit(p_miss)``
    (:func:`llrlab.core.det.probit`).
    """

    threshold: np.ndarray
    p_fa: np.ndarray
    p_miss: np.ndarray
    false_alarms: np.ndarray
    misses: np.ndarray
    n_tar: int
    n_non: int
    complete: bool = True

    def __len__(self):
        return int(self.threshold.size)

    def decimated(self, max_points, *, det=False):
        """At most ``max_points`` rows that keep the curve's shape, in ROC coordinates or,
        with ``det=True``, in DET (probit) coordinates (see
        :func:`llrlab.core.det.decimate`); both end rows are always kept.  ``self`` when it
        has no more rows than that."""
        from .det import decimate, probit

        if len(self) <= max_points:
            return self
        x, y = (probit(self.p_fa), probit(self.p_miss)) if det else (self.p_fa, self.p_miss)
        keep, _ = decimate(x, y, max_points)
        return ThresholdCurve(self.threshold[keep], self.p_fa[keep], self.p_miss[keep],
                              self.false_alarms[keep], self.misses[keep], self.n_tar,
                              self.n_non, complete=False)


# ---------------------------------------------------------------------------- the sweep


class _Sweep:
    """Rates and counts at every distinct score and at ``+inf``, from one sorted score set.

    ``u`` holds the thresholds (distinct scores ascending, then ``+inf``); ``p_miss`` rises
    and ``p_fa`` falls along it.  The last point is "reject every trial" (rates 1 and 0),
    also when a score is ``+inf``.

    Choices between points compare rates exactly: without weights as integers
    (``FMR - FNMR`` as ``fa*T - misses*N``), so that two candidates at equal distance from
    the crossing are recognized as tied; with weights, floats equal to a relative
    ``1e-12`` count as equal.
    """

    def __init__(self, s: SortedScores):
        self.s = s
        # the grid of one merge (distinct_grid); the rates as SortedScores.rates gives them
        self.u, it, i_n = distinct_grid(s)
        self.grid = (it, i_n)
        self.misses = it.copy()
        self.fas = s.count_non - i_n
        if s.weighted:
            self.p_miss = s.tar_cw[it] / s.n_tar
            self.p_fa = np.where(i_n == 0, 1.0, np.minimum(s.non_cw_above[i_n] / s.n_non, 1.0))
        else:
            self.p_miss = self.misses / s.n_tar
            self.p_fa = self.fas / s.n_non
        self.p_miss[-1], self.p_fa[-1] = 1.0, 0.0
        self.misses[-1], self.fas[-1] = s.count_tar, 0
        if s.weighted:
            self._fa, self._miss, self._tol = self.p_fa, self.p_miss, 1e-12
        else:  # the rates times T*N, exact integers
            self._fa, self._miss, self._tol = self.fas * s.count_tar, self.misses * s.count_non, 0

    @property
    def last(self):
        return self.u.size - 1

    def point(self, k) -> ThresholdCounts:
        """The errors of sweep point(s) ``k`` with their threshold intervals."""
        k = np.asarray(k, dtype=np.int64)
        upper = self.u[k]
        lower = np.where(k > 0, self.u[np.maximum(k - 1, 0)], -np.inf)
        thr = np.where(k == 0, -np.inf, _between(lower, upper))
        return ThresholdCounts(thr, lower, upper, self.p_miss[k], self.p_fa[k], self.misses[k],
                               self.fas[k], self.s.count_tar, self.s.count_non)

    def _less(self, a, b):
        """``a < b``, with floats within the tolerance counting as equal."""
        return a < b - self._tol * max(abs(a), abs(b), 1e-300) if self._tol else a < b

    def eer_index(self, rule):
        """Index of the EER threshold under ``rule`` (see :func:`threshold_eer`)."""
        d = self._fa - self._miss  # FMR - FNMR (scaled): falls from positive to negative
        j = int(np.searchsorted(-d, 0, side="left"))  # first point with FMR <= FNMR
        if self._tol:  # a crossing within rounding is a crossing
            while j > 1 and not self._less(0.0, float(d[j - 1])):
                j -= 1
        if not self._less(d[j], 0):  # equal rates: the crossing itself
            return j
        if rule == "fvc":
            lo = self._fa[j - 1] + self._miss[j - 1]
            hi = self._fa[j] + self._miss[j]
            return j if self._less(hi, lo) else j - 1
        # "closest"; a tie goes to the higher threshold
        return j - 1 if self._less(d[j - 1], -d[j]) else j


def _as_rates(x, name):
    """Rates in [0, 1] as a float64 array of the shape of ``x`` (NaN refused)."""
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise DataError(f"{name} must be numbers in [0, 1], got {x!r}") from None
    bad = ~((a >= 0.0) & (a <= 1.0))  # also NaN
    if bad.any():
        raise DataError(f"{name} must lie in [0, 1]; got {a[bad].flat[0]!r}")
    return a


def _sorted(tar, non, tar_weights, non_weights) -> SortedScores:
    """``sorted_input``, and an :class:`~llrlab.core.analysis.Analysis` contributes its
    sort (nothing is sorted again)."""
    from .analysis import Analysis

    if non is None and isinstance(tar, Analysis):
        return tar.sorted
    return sorted_input(tar, non, tar_weights=tar_weights, non_weights=non_weights)


def _sweep(tar, non, tar_weights, non_weights):
    return _Sweep(_sorted(tar, non, tar_weights, non_weights))


def _point(s: SortedScores, lower, upper, reject_all):
    """The sweep point with threshold interval ``(lower, upper]`` (arrays); ``reject_all``
    marks the last point (every trial rejected)."""
    thr = np.where(lower == -np.inf, -np.inf, _between(lower, upper))
    p_miss, p_fa = s.rates(upper)
    misses, fas = s.miss_fa_counts(upper)
    p_miss, p_fa = np.where(reject_all, 1.0, p_miss), np.where(reject_all, 0.0, p_fa)
    misses = np.where(reject_all, s.count_tar, misses).astype(np.int64)
    fas = np.where(reject_all, 0, fas).astype(np.int64)
    return ThresholdCounts(thr, lower, upper, p_miss, p_fa, misses, fas, s.count_tar,
                           s.count_non)


def _next_above(x, v):
    """The smallest element of sorted ``x`` greater than ``v`` (``+inf`` when none)."""
    j = np.searchsorted(x, v, side="right")
    return np.where(j < x.size, x[np.minimum(j, x.size - 1)], np.inf)


def _last_below(x, v):
    """The largest element of sorted ``x`` smaller than ``v`` (``-inf`` when none)."""
    j = np.searchsorted(x, v, side="left")
    return np.where(j > 0, x[np.maximum(j - 1, 0)], -np.inf)


def _first_rate_at_most(n, x):
    """The smallest ``i`` in ``0 .. n`` with ``(n - i) / n <= x`` (float64, computed so), or
    ``n + 1`` when there is none, for each ``x``: what ``np.searchsorted(-rate, -x, "left")``
    gives for ``rate = (n - np.arange(n + 1)) / n``, without making that array (10^7
    elements: 0.1 s of a dashboard's calibration toggle).  The rate is non-increasing in
    ``i`` (a correctly rounded quotient of decreasing integers), so the estimate
    ``ceil(n - x n)`` is moved to the exact answer by a step or two."""
    shape = np.shape(x)
    x = np.atleast_1d(np.asarray(x, dtype=np.float64))

    def ok(i):  # (n - i) / n <= x, as the array would hold it
        return (n - np.minimum(i, n)) / n <= x

    with np.errstate(invalid="ignore"):
        est = np.where(np.isnan(x), n + 1, np.clip(np.ceil(n - x * n), 0, n + 1))
    i = est.astype(np.int64)
    while True:
        down = (i > 0) & ok(i - 1)
        up = (i <= n) & ~ok(i)
        if not (down.any() or up.any()):
            return i.reshape(shape)
        i = i - down + up


def _at_fmr(s: SortedScores, x) -> ThresholdCounts:
    """The lowest sweep threshold whose FMR is at most ``x`` (an array), by binary search in
    the sorted non-targets only: it lies just above the highest rejected non-target score
    ``non[i-1]``, where ``i`` is the smallest end of a run of tied scores whose FMR (the
    rate of ``non[i:]``, as ``SortedScores.rates`` computes it) is at most ``x``."""
    non, N = s.non, s.count_non
    if s.weighted:
        rate = np.minimum(s.non_cw_above / s.n_non, 1.0)
        rate[0] = 1.0
        i = np.searchsorted(-rate, -x, side="left")
    else:
        i = _first_rate_at_most(N, x)
    inside = (i > 0) & (i < N) & (non[np.clip(i - 1, 0, N - 1)] == non[np.clip(i, 0, N - 1)])
    i = np.where(inside, np.searchsorted(non, non[np.clip(i, 0, N - 1)], side="right"), i)
    lower = np.where(i > 0, non[np.clip(i - 1, 0, N - 1)], -np.inf)
    first = min(s.tar[0], non[0])
    nxt = np.minimum(_next_above(s.tar, lower),
                     np.where(i < N, non[np.clip(i, 0, N - 1)], np.inf))
    upper = np.where(i == 0, first, nxt)
    reject_all = (i == N) & (np.searchsorted(s.tar, lower, side="right") == s.count_tar)
    return _point(s, lower, upper, reject_all)


def _at_fnmr(s: SortedScores, x) -> ThresholdCounts:
    """The highest sweep threshold whose FNMR is at most ``x`` (an array), by binary search
    in the sorted targets only: it is the target score ``tar[j]`` where ``j`` is the largest
    start of a run of tied scores whose FNMR (the rate of ``tar[:j]``) is at most ``x``; or
    ``+inf`` (reject every trial) when all targets may be rejected."""
    tar, T = s.tar, s.count_tar
    if s.weighted:
        rate = np.minimum(s.tar_cw / s.n_tar, 1.0)
    else:
        rate = np.arange(T + 1) / T
    j = np.searchsorted(rate, x, side="right") - 1
    inside = (j > 0) & (j < T) & (tar[np.clip(j - 1, 0, T - 1)] == tar[np.clip(j, 0, T - 1)])
    j = np.where(inside, np.searchsorted(tar, tar[np.clip(j, 0, T - 1)], side="left"), j)
    top = max(tar[-1], s.non[-1])
    upper = np.where(j < T, tar[np.clip(j, 0, T - 1)], np.inf)
    below = np.maximum(_last_below(tar, upper), _last_below(s.non, upper))
    lower = np.where(j < T, below, top)
    return _point(s, lower, upper, j == T)


def _rule(rule):
    return choose(rule, EER_RULES, "EER rule")


# ---------------------------------------------------------------------------- public measures


def _neighbours(x, i):
    """``(x[i-1], x[i])`` for insertion points ``i`` of sorted ``x``, ``-inf``/``+inf``
    where there is none."""
    below = np.where(i > 0, x[np.maximum(i - 1, 0)] if x.size else -np.inf, -np.inf)
    above = np.where(i < x.size, x[np.minimum(i, x.size - 1)] if x.size else np.inf, np.inf)
    return below, above


def _counts(s: SortedScores, threshold) -> ThresholdCounts:
    t = np.asarray(threshold, dtype=np.float64)
    p_miss, p_fa = s.rates(t)
    misses, fas = s.miss_fa_counts(t)
    tb, ta = _neighbours(s.tar, misses)  # misses = searchsorted(tar, t, "left")
    nb, na = _neighbours(s.non, s.count_non - fas)
    return ThresholdCounts(t, np.maximum(tb, nb), np.minimum(ta, na), p_miss, p_fa,
                           np.asarray(misses, dtype=np.int64), np.asarray(fas, dtype=np.int64),
                           s.count_tar, s.count_non)


def counts_at(tar, non=None, threshold=0.0, *, tar_weights=None,
              non_weights=None) -> ThresholdCounts:
    """Misses and false alarms (false non-matches and false matches) at score threshold(s).

    Parameters
    ----------
    tar, non : array_like, Trials or Analysis
        Target and non-target scores, or one ``Trials`` object (or an
        :class:`~llrlab.core.analysis.Analysis`, whose sort is reused) as ``tar``; likewise
        in every function of this module.
    threshold : float or array_like
        Accept a trial when ``score >= threshold`` (docs/conventions.md).  Any number,
        ``+-inf`` included.
    tar_weights, non_weights : array_like, optional
        Per-trial weights (the rates are then weighted; the counts stay trial counts).

    Returns
    -------
    ThresholdCounts
        Arrays of the shape of ``threshold``.

    Notes
    -----
    ``FNMR(t) = Pmiss(t) = #(tar < t)/T`` and ``FMR(t) = Pfa(t) = #(non >= t)/N``
    (ISO/IEC 19795-1:2021 terms).  The same numbers as ``act_dcf(plo=-t)``, which evaluates
    them at the Bayes threshold of LLRs; here ``t`` is any score threshold.

    References
    ----------
    ISO/IEC 19795-1:2021; Brümmer & de Villiers (2011), sec. 2.5; docs/conventions.md.

    Examples
    --------
    >>> c = counts_at([0.2, 0.5, 0.5, 0.9], [0.1, 0.5, 0.7], 0.5)
    >>> int(c.misses), int(c.false_alarms), float(c.p_miss), float(c.p_fa)
    (1, 2, 0.25, 0.6666666666666666)
    >>> float(c.lower), float(c.upper)    # every t in (0.2, 0.5] decides the same
    (0.2, 0.5)
    """
    s = _sorted(tar, non, tar_weights, non_weights)
    t = np.asarray(threshold, dtype=np.float64) if not isinstance(threshold, str) else None
    if t is None or np.isnan(t).any():
        raise DataError(f"the score threshold must be a number (+-inf allowed), got "
                        f"{threshold!r}")
    return _counts(s, t)


def threshold_eer(tar, non=None, *, rule="fvc", tar_weights=None,
                  non_weights=None) -> ThresholdEER:
    """The equal error rate of a threshold sweep, with its score threshold.

    Parameters
    ----------
    tar, non : array_like or Trials
    rule : {"fvc", "closest"}
        Which of the two thresholds next to the crossing of FMR and FNMR is taken:
        ``"fvc"`` (default), the one with the smaller ``FMR + FNMR`` (FVC2000's definition,
        Maio et al. 2002; pyeer's ``get_eer_stats``); ``"closest"``, the one where
        ``|FMR - FNMR|`` is smallest, the higher one at a tie (bob.measure's
        ``eer_threshold`` and ``eer``).
    tar_weights, non_weights : array_like, optional

    Returns
    -------
    ThresholdEER

    Notes
    -----
    Along the thresholds of the sweep (each distinct score, then ``+inf``),
    ``FMR(t) - FNMR(t)`` falls from 1 to -1.  Let ``t2`` be the first threshold where
    ``FMR(t2) <= FNMR(t2)`` and ``t1`` the one before it.  If the rates are equal at ``t2``
    the EER is that rate; otherwise one of ``t1``, ``t2`` is chosen by ``rule``, and::

        EER = (FMR(t) + FNMR(t)) / 2,   [EER_low, EER_high] = [min, max] of the two rates.

    The "fvc" EER is never above the "closest" one; the two differ only when the point
    nearer to equal rates has the larger sum.  The threshold is the midpoint of the scores
    around the chosen point (see the module docstring); pyeer reports the upper end
    (``at.upper``), bob.measure the same midpoint.

    This is not llrlab's headline EER, the ROCCH-EER (:func:`llrlab.core.rocch_eer`): that
    one is read on the convex hull of the ROC, between thresholds (reachable by randomizing
    between two of them), and is a property of the scores' discrimination only;
    the threshold-sweep EER is an error rate at one actual threshold.  On large sets of
    continuous scores the two agree closely; on few or tied scores they can differ
    (docs/conventions.md has a worked example).

    References
    ----------
    Maio, Maltoni, Cappelli, Wayman & Jain (2002), sec. 4 (EER, EER_low, EER_high);
    ISO/IEC 19795-1:2021; docs/conventions.md.

    Examples
    --------
    >>> e = threshold_eer([0.3, 0.6, 0.8, 0.9], [0.1, 0.2, 0.4, 0.7])
    >>> e.eer, e.eer_low, e.eer_high, e.threshold   # FMR = FNMR = 1/4 for t in (0.4, 0.6]
    (0.25, 0.25, 0.25, 0.5)
    """
    rule = _rule(rule)
    return _threshold_eer(_sweep(tar, non, tar_weights, non_weights), rule)


def _threshold_eer(sw: _Sweep, rule) -> ThresholdEER:
    k = sw.eer_index(rule)
    at = sw.point(k)
    a, b = float(at.p_fa), float(at.p_miss)
    if sw.s.weighted:
        eer = 0.5 * (a + b)
    else:  # (fa/N + misses/T)/2 from integers, one rounding: equal rationals, equal floats
        T, N = sw.s.count_tar, sw.s.count_non
        eer = (int(at.false_alarms) * T + int(at.misses) * N) / (2 * T * N)
    return ThresholdEER(eer, min(a, b), max(a, b), rule, at)


def fnmr_at_fmr(tar, non=None, fmr=DEFAULT_FMR, *, tar_weights=None,
                non_weights=None) -> ThresholdCounts:
    """FNMR at FMR <= ``fmr``: the errors at the lowest threshold whose FMR is at most
    ``fmr`` (FMR100 for 0.01, FMR1000 for 0.001, ZeroFMR for 0).

    Parameters
    ----------
    tar, non : array_like or Trials
    fmr : float or array_like, default (0.01, 0.001, 0.0001)
        The largest FMR allowed, each in [0, 1].
    tar_weights, non_weights : array_like, optional

    Returns
    -------
    ThresholdCounts
        Arrays of the shape of ``fmr``: ``p_miss`` is the FNMR at FMR <= ``fmr``, ``p_fa``
        the FMR reached (the largest one not above ``fmr``), ``threshold`` the midpoint of
        the scores around that point.

    Notes
    -----
    ``FNMR@FMR(x) = min { FNMR(t) : FMR(t) <= x }``, attained at the lowest such threshold
    (FNMR rises with ``t``).  Over the thresholds of the sweep the FMR falls in steps; when
    no threshold reaches FMR exactly ``x`` the step just below ``x`` is taken, never the one
    above.  With fewer than ``1/x`` non-targets that is FMR 0 (ZeroFMR); the estimate then
    rests on no false match at all (see DR30 in docs/conventions.md).

    bob.measure's ``far_threshold`` reaches the same FMR but puts the threshold on the next
    non-target score: targets between the two are rejected there, so its FNMR can be
    higher (``roc_for_far``).  pyeer's ``fmr100`` takes the FMR *nearest* to ``x``, which
    can be above it.

    References
    ----------
    Cappelli, Maio, Maltoni, Wayman & Jain (2006), sec. 4 (FMR100, FMR1000, ZeroFMR);
    Maio et al. (2002); ISO/IEC 19795-1:2021.

    Examples
    --------
    >>> r = fnmr_at_fmr([0.3, 0.6, 0.8, 0.9], [0.1, 0.2, 0.4, 0.7], [0.25, 0.0])
    >>> r.p_miss, r.p_fa, r.threshold
    (array([0.25, 0.5 ]), array([0.25, 0.  ]), array([0.5 , 0.75]))
    """
    x = _as_rates(fmr, "the FMR")
    return _at_fmr(_sorted(tar, non, tar_weights, non_weights), x)


def fmr_at_fnmr(tar, non=None, fnmr=0.0, *, tar_weights=None,
                non_weights=None) -> ThresholdCounts:
    """FMR at FNMR <= ``fnmr``: the errors at the highest threshold whose FNMR is at most
    ``fnmr`` (ZeroFNMR for 0).

    The mirror of :func:`fnmr_at_fmr`: ``FMR@FNMR(x) = min { FMR(t) : FNMR(t) <= x }``,
    attained at the highest such threshold.  ``p_fa`` is the FMR at FNMR <= ``fnmr``.

    References
    ----------
    Maio, Maltoni, Cappelli, Wayman & Jain (2002), sec. 4 (ZeroFNMR); ISO/IEC 19795-1:2021.

    Examples
    --------
    >>> r = fmr_at_fnmr([0.3, 0.6, 0.8, 0.9], [0.1, 0.2, 0.4, 0.7], 0.0)
    >>> float(r.p_fa), float(r.threshold), float(r.upper)   # accept from the lowest target
    (0.5, 0.25, 0.3)
    """
    x = _as_rates(fnmr, "the FNMR")
    return _at_fnmr(_sorted(tar, non, tar_weights, non_weights), x)


def zero_fmr(tar, non=None, **kw) -> ThresholdCounts:
    """ZeroFMR: the lowest FNMR with no false match (:func:`fnmr_at_fmr` at 0); its value is
    ``p_miss``.  Maio et al. (2002), sec. 4."""
    return fnmr_at_fmr(tar, non, 0.0, **kw)


def zero_fnmr(tar, non=None, **kw) -> ThresholdCounts:
    """ZeroFNMR: the lowest FMR with no false non-match (:func:`fmr_at_fnmr` at 0); its
    value is ``p_fa``.  Maio et al. (2002), sec. 4."""
    return fmr_at_fnmr(tar, non, 0.0, **kw)


def hter(dev, eval, *, criterion="eer", fmr=None, rule="fvc") -> HTERResult:
    """Half total error rate on eval at a threshold fixed on dev.

    Parameters
    ----------
    dev, eval : Trials, Analysis or (tar, non) pair of array_like
        Development trials (where the threshold is chosen) and evaluation trials (where it
        is applied); weights of a ``Trials`` are used.
    criterion : {"eer", "fmr"}
        ``"eer"``: the threshold of dev's threshold-sweep EER (:func:`threshold_eer` with
        ``rule``); ``"fmr"``: the threshold of dev's FNMR at FMR <= ``fmr``
        (:func:`fnmr_at_fmr`).
    fmr : float, optional
        The dev FMR target; required with ``criterion="fmr"``.
    rule : {"fvc", "closest"}
        The EER rule of ``criterion="eer"``.

    Returns
    -------
    HTERResult

    Notes
    -----
    ``HTER = (FMR_eval(t) + FNMR_eval(t)) / 2`` with ``t`` chosen on dev (Bengio & Mariéthoz
    2004): a threshold that has to be set before the evaluation scores are seen, as in
    deployment.  ``t`` is the midpoint between the two dev scores around the chosen dev
    point, as in bob.measure (``bob measure metrics -e``) and llrlab's EPC; with
    ``criterion="fmr"`` bob.measure puts it on a dev non-target score instead
    (``far_threshold``), so eval scores in between can be decided differently.

    References
    ----------
    Bengio & Mariéthoz (2004); Bengio, Mariéthoz & Keller (2005); Maio et al. (2002).

    Examples
    --------
    >>> dev = ([0.3, 0.6, 0.8, 0.9], [0.1, 0.2, 0.4, 0.7])
    >>> ev = ([0.45, 0.7, 0.9], [0.0, 0.3, 0.66])
    >>> r = hter(dev, ev)
    >>> r.threshold, float(r.eval.p_miss), float(r.eval.p_fa), r.hter
    (0.5, 0.3333333333333333, 0.3333333333333333, 0.3333333333333333)
    """
    crit = choose(criterion, ("eer", "fmr"), "HTER criterion")
    if crit == "fmr":
        if fmr is None:
            raise DataError("criterion 'fmr' needs the dev FMR target: hter(..., "
                            "criterion='fmr', fmr=0.01)")
        fmr = float(_as_rates(as_number(fmr, "the FMR"), "the FMR"))
    elif fmr is not None:
        raise DataError("fmr is the target of criterion 'fmr'; with criterion 'eer' leave it "
                        "out")
    rule = _rule(rule)
    sd = _as_sorted(dev, "dev")
    se = _as_sorted(eval, "eval")
    if crit == "eer":
        sw = _Sweep(sd)
        at_dev = sw.point(sw.eer_index(rule))
    else:
        at_dev = _at_fmr(sd, np.float64(fmr))
    t = float(at_dev.threshold)
    at_eval = _counts(se, np.float64(t))
    return HTERResult(float(at_eval.hter), t, crit, fmr, at_dev, at_eval)


def threshold_summary(tar, non=None, *, fmr=DEFAULT_FMR, rule="fvc", confidence=0.95,
                      tar_weights=None, non_weights=None) -> ThresholdSummary:
    """Every threshold measure of a score set at once: the threshold-sweep EER, FNMR at each
    FMR of ``fmr``, ZeroFMR, ZeroFNMR and the AUC with DeLong's interval, from one sort and
    one sweep (what ``llrlab eval --biometric`` prints).

    Parameters are those of :func:`threshold_eer`, :func:`fnmr_at_fmr` and
    :func:`llrlab.core.auc`.  A ``Trials`` contributes its cached sort.

    Examples
    --------
    >>> r = threshold_summary([0.3, 0.6, 0.8, 0.9], [0.1, 0.2, 0.4, 0.7], fmr=[0.25])
    >>> r.eer.eer, r.fnmr_at_fmr.p_miss.tolist(), float(r.zero_fmr.p_miss), r.auc.auc
    (0.25, [0.25], 0.5, 0.8125)
    """
    from .auc import _auc, _level

    rule = _rule(rule)
    x = np.atleast_1d(_as_rates(fmr, "the FMR"))
    if x.ndim != 1:
        raise DataError(f"the FMR targets must be a list, got shape {x.shape}")
    level = _level(confidence)
    sw = _sweep(tar, non, tar_weights, non_weights)
    zero = np.float64(0.0)
    return ThresholdSummary(_threshold_eer(sw, rule), x, _at_fmr(sw.s, x), _at_fmr(sw.s, zero),
                            _at_fnmr(sw.s, zero), _auc(sw.s, level, sw.grid))


def roc_curve(tar, non=None, *, max_points=None, det=False, tar_weights=None,
              non_weights=None) -> ThresholdCurve:
    """The ROC (and DET) curve as a table of thresholds: the errors at every distinct score.

    Parameters
    ----------
    tar, non : array_like or Trials
    max_points : int, optional
        At most this many rows, keeping the curve's shape (:meth:`ThresholdCurve.decimated`);
        default: every threshold.
    det : bool
        Decimate in DET (probit) coordinates rather than ROC coordinates.
    tar_weights, non_weights : array_like, optional

    Returns
    -------
    ThresholdCurve

    Notes
    -----
    Row ``i``: accept when ``score >= threshold[i]``; thresholds are the distinct scores in
    increasing order, then ``+inf``, so the first row has ``FMR = 1, FNMR = 0`` and the last
    ``FMR = 0, FNMR = 1``.  Tied target and non-target scores share a row (no threshold
    separates them).  pyeer's ``calculate_roc`` gives the same rows without the last;
    scikit-learn's ``roc_curve`` the same points in the opposite order as
    ``(fpr, tpr) = (p_fa, 1 - p_miss)``.

    References
    ----------
    Brümmer & de Villiers (2011), sec. 2.6; Martin et al. (1997) (DET); docs/conventions.md.

    Examples
    --------
    >>> c = roc_curve([0.5, 0.9], [0.1, 0.5])
    >>> c.threshold.tolist(), c.p_fa.tolist(), c.p_miss.tolist()
    ([0.1, 0.5, 0.9, inf], [1.0, 0.5, 0.0, 0.0], [0.0, 0.0, 0.5, 1.0])
    """
    sw = _sweep(tar, non, tar_weights, non_weights)
    c = ThresholdCurve(sw.u, sw.p_fa, sw.p_miss, sw.fas, sw.misses, sw.s.count_tar,
                       sw.s.count_non)
    if max_points is None:
        return c
    if int(max_points) < 3:
        raise DataError(f"max_points must be at least 3, got {max_points!r}")
    return c.decimated(int(max_points), det=det)
