"""Area under the ROC curve, exact with ties, and DeLong's confidence interval.

The AUC is the Mann-Whitney statistic: the probability that a target score beats a
non-target score, ties counting one half.  Its variance is DeLong, DeLong & Clarke-Pearson's
(1988) estimate from the *structural components* (placement values) of the two classes,
which are read from the one sort of the scores: one merge of the two sorted classes gives
how many scores of each class lie below and at each distinct score (the threshold sweep's
grid), in ``O(n)`` after the sort -- Sun & Xu's (2014) fast algorithm gets the same
components from mid-ranks.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

from ._repr import summary_repr
from ._sorting import SortedScores, distinct_grid, sorted_input
from ._validate import as_number
from .errors import DataError, LlrlabWarning

__all__ = ["AUCResult", "auc"]


@summary_repr("auc", "lower", "upper", "confidence")
@dataclass(frozen=True, eq=False)
class AUCResult:
    """The AUC with DeLong's interval (see :func:`auc`).

    Attributes
    ----------
    auc : float
        ``P(tar > non) + P(tar == non) / 2``.
    lower, upper : float
        The two-sided interval at ``confidence``, clipped to [0, 1] (NaN when a class has
        fewer than two trials).
    se : float
        DeLong's standard error.
    confidence : float
    n_tar, n_non : int
    """

    auc: float
    lower: float
    upper: float
    se: float
    confidence: float
    n_tar: int
    n_non: int


def _components(s: SortedScores, grid=None):
    """Structural components ``(v10, v01)``: for each target, the share of non-targets it
    beats (ties 1/2); for each non-target, the share of targets that beat it.

    A score equal to the ``k``-th distinct score ``u_k`` beats ``#(non < u_k)`` non-targets
    and ties with ``#(non <= u_k) - #(non < u_k)`` (likewise against the targets): counts
    of the threshold grid (:func:`~llrlab.core._sorting.distinct_grid`; ``grid`` when the
    caller has it), repeated over the run of the class's scores equal to ``u_k``.
    """
    _, tb, nb = distinct_grid(s) if grid is None else (None, *grid)
    K = tb.size - 1  # distinct scores; the last grid point is +inf
    T, N = s.count_tar, s.count_non
    # #(class < u_k) and #(class <= u_k) at each distinct score; the runs' lengths
    t_lt, n_lt = tb[:K], nb[:K]
    t_le, n_le = np.append(tb[1:K], T), np.append(nb[1:K], N)
    t_run, n_run = t_le - t_lt, n_le - n_lt
    if not s.weighted:
        # integer sums: the AUC is one rounding away from exact
        twice = int(np.dot(t_run, n_lt + n_le))
        value = twice / (2.0 * T * N)
        v10 = np.repeat((n_lt + n_le) / (2.0 * N), t_run)
        v01 = np.repeat(((T - t_lt) + (T - t_le)) / (2.0 * T), n_run)
        return value, v10, v01
    v10 = np.repeat(0.5 * (s.non_cw[n_lt] + s.non_cw[n_le]) / s.n_non, t_run)
    v01 = np.repeat(1.0 - 0.5 * (s.tar_cw[t_lt] + s.tar_cw[t_le]) / s.n_tar, n_run)
    value = float(np.dot(s.tar_w, v10)) / s.n_tar
    return value, v10, v01


def _variance_part(v, w, total, value):
    """One class's term of the variance: DeLong's ``S/n`` (``S`` the sample variance of the
    components), or with weights its linearization ``n'/(n'-1) * sum w^2 (v - A)^2 /
    (sum w)^2`` over the ``n'`` trials of positive weight (equal to ``S/n`` when every
    weight is 1)."""
    if w is None:
        n = v.size
        return float(np.var(v, ddof=1)) / n if n > 1 else np.nan
    n = int(np.count_nonzero(w))
    if n < 2:
        return np.nan
    return n / (n - 1) * float(np.dot(w * w, (v - value) ** 2)) / total ** 2


def auc(tar, non=None, *, confidence=0.95, tar_weights=None, non_weights=None) -> AUCResult:
    """Area under the ROC curve with DeLong's (1988) confidence interval.

    Parameters
    ----------
    tar, non : array_like, Trials or Analysis
        Target and non-target scores (larger favours the target), or one ``Trials`` (or an
        :class:`~llrlab.core.analysis.Analysis`, whose sort is reused) as ``tar``.
    confidence : float, default 0.95
        Level of the two-sided interval, in (0, 1).
    tar_weights, non_weights : array_like, optional
        Per-trial weights (e.g. condition weights): the AUC of the weighted populations.

    Returns
    -------
    AUCResult

    Notes
    -----
    ``AUC = 1/(T N) sum_i sum_j psi(tar_i, non_j)`` with ``psi(x, y) = 1`` for ``x > y``,
    ``1/2`` for ``x = y`` and ``0`` otherwise (Hanley & McNeil 1982: the Mann-Whitney
    statistic, equal to the area under the steppy ROC with tied scores joined by a straight
    line).  Without weights it is computed from integer counts, exact to one rounding.

    The interval is ``AUC +- z * se``, clipped to [0, 1], with ``z`` the normal quantile and
    DeLong, DeLong & Clarke-Pearson's (1988) variance ``se^2 = S10/T + S01/N``: ``S10`` is the
    sample variance of the target components ``V10(tar_i) = 1/N sum_j psi(tar_i, non_j)``,
    ``S01`` that of the non-target components ``V01(non_j) = 1/T sum_i psi(tar_i, non_j)``.
    The components come from the sorted scores in ``O(n)`` more (the counts of each class
    below and at each distinct score, one merge of the sorted classes; ``O(n log n)`` in
    all with the sort, as Sun & Xu 2014).  With weights, each class's term is the
    linearization (sandwich) variance ``n'/(n'-1) sum w_i^2 (V_i - AUC)^2 / (sum w)^2`` over
    its ``n'`` trials of positive weight, which is DeLong's term when every weight is 1.
    When the classes are separated (AUC 0 or 1) the variance is 0 and the interval a single
    point; DeLong's estimate is then too optimistic (it cannot see errors that the sample
    does not show).

    References
    ----------
    DeLong, DeLong & Clarke-Pearson (1988), Biometrics 44:837-845, eq. (2)-(4);
    Sun & Xu (2014), IEEE Signal Processing Letters 21(11):1389-1393;
    Hanley & McNeil (1982), Radiology 143:29-36.

    Examples
    --------
    >>> r = auc([0.8, 0.5, 0.9], [0.1, 0.5, 0.7])
    >>> r.auc                       # 7.5 of 9 pairs: 0.5 ties with 0.5 (1/2)
    0.8333333333333334
    >>> round(r.se, 4), round(r.lower, 4), r.upper     # clipped at 1
    (0.1925, 0.4561, 1.0)
    """
    level = _level(confidence)
    from .analysis import Analysis

    if non is None and isinstance(tar, Analysis):  # its sort is reused
        return _auc(tar.sorted, level)
    s = sorted_input(tar, non, tar_weights=tar_weights, non_weights=non_weights)
    return _auc(s, level)


def _level(confidence):
    level = as_number(confidence, "confidence")
    if not 0.0 < level < 1.0:
        raise DataError(f"confidence must lie in (0, 1), got {level!r}")
    return level


def _auc(s: SortedScores, level, grid=None) -> AUCResult:
    value, v10, v01 = _components(s, grid)
    var = (_variance_part(v10, s.tar_w, s.n_tar, value)
           + _variance_part(v01, s.non_w, s.n_non, value))
    if np.isnan(var):
        warnings.warn("DeLong's interval of the AUC needs at least two trials of each class "
                      "(with positive weight); it is NaN", LlrlabWarning, stacklevel=3)
    se = float(np.sqrt(var))
    z = float(ndtri(0.5 + level / 2.0))
    lower = float(np.clip(value - z * se, 0.0, 1.0)) if se == se else np.nan
    upper = float(np.clip(value + z * se, 0.0, 1.0)) if se == se else np.nan
    return AUCResult(float(value), lower, upper, se, level, s.count_tar, s.count_non)
