"""Detection cost: actual and minimum DCF at one or many operating points.

Both measures are evaluated at any number of prior log-odds at once, from one sort of the
scores: actual DCF by binary search of the Bayes thresholds ``-plo`` in the sorted scores
(the sort-merge of Brümmer & de Villiers 2011, sec. 3.1.1), minimum DCF by looking up, for each
``plo``, the optimal ROCCH vertex (Brümmer & de Villiers 2011, sec. 2.6.1 and 3.1.2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from ._repr import summary_repr
from ._sorting import PooledBlocks, SortedScores, pooled_blocks, sorted_input
from ._validate import as_plo

__all__ = ["DCFResult", "act_dcf", "bayes_error", "min_dcf"]


@summary_repr("plo", "dcf", "normalized")
@dataclass(frozen=True, eq=False)
class DCFResult:
    """DCF values at one or more operating points; every array has the shape of ``plo``.

    Attributes
    ----------
    plo : ndarray
        Prior log-odds of each operating point.
    dcf : ndarray
        The DCF (normalized by ``min(pt, 1-pt)`` when ``normalized``).
    p_miss, p_fa : ndarray
        Miss and false-alarm rates behind each value.
    misses, false_alarms : ndarray of int64
        Numbers of missed targets and false-alarmed non-targets (trials, not weights).
    threshold : ndarray
        Score threshold used (accept when score >= threshold).  For actual DCF it is the
        Bayes threshold ``-plo``; for minimum DCF, the bottom of the optimal ROCCH block, its
        smallest score of positive weight (``+inf`` when rejecting everything is optimal).
    normalized : bool
    """

    plo: np.ndarray
    dcf: np.ndarray
    p_miss: np.ndarray
    p_fa: np.ndarray
    misses: np.ndarray
    false_alarms: np.ndarray
    threshold: np.ndarray
    normalized: bool

    @property
    def miss_part(self):
        """The misses' contribution to ``dcf`` (same normalization)."""
        return _weights(self.plo, self.normalized)[0] * self.p_miss

    @property
    def fa_part(self):
        """The false alarms' contribution to ``dcf`` (same normalization)."""
        return _weights(self.plo, self.normalized)[1] * self.p_fa


def _weights(plo, normalized):
    """Coefficients ``(cm, cf)`` with ``dcf = cm*p_miss + cf*p_fa``.

    Un-normalized: ``(pt, 1-pt)``.  Normalized by ``min(pt, 1-pt)``: ``(1, exp(-plo))`` for
    ``plo < 0`` and ``(exp(plo), 1)`` for ``plo >= 0`` -- Brümmer & de Villiers (2011), eq. 22,
    exact at any plo.
    """
    plo = np.asarray(plo, dtype=np.float64)
    if not normalized:
        return expit(plo), expit(-plo)
    with np.errstate(over="ignore"):  # beyond |plo| ~ 709 the weight is inf (see _combine)
        e = np.exp(np.abs(plo))
    cm = np.where(plo < 0, 1.0, e)
    cf = np.where(plo < 0, e, 1.0)
    return cm, cf


def _combine(plo, p_miss, p_fa, normalized):
    cm, cf = _weights(plo, normalized)
    # 0 * inf (a rate of zero at an infinite weight) counts as 0.
    with np.errstate(invalid="ignore"):
        a = np.where(p_miss == 0, 0.0, cm * p_miss)
        b = np.where(p_fa == 0, 0.0, cf * p_fa)
    return a + b


def _act_dcf(s: SortedScores, plo, normalized=True) -> DCFResult:
    plo = as_plo(plo)
    thr = -plo
    p_miss, p_fa = s.rates(thr)
    misses, fas = s.miss_fa_counts(thr)
    return DCFResult(plo, _combine(plo, p_miss, p_fa, normalized), p_miss, p_fa,
                     np.asarray(misses, dtype=np.int64), np.asarray(fas, dtype=np.int64),
                     thr, normalized)


def _optimal_vertex(blocks: PooledBlocks, plo):
    """Index ``k`` of the ROCCH vertex that minimizes the DCF at ``plo``.

    Moving from vertex ``k`` to ``k+1`` trades ``tar_k/T`` more misses for ``non_k/N`` fewer
    false alarms, which pays off exactly when the block's PAV LLR is below the Bayes threshold
    ``-plo``.  The LLRs increase, so ``k = #{blocks with llr < -plo}`` (a binary search).
    """
    return np.searchsorted(blocks.llr, -np.asarray(plo, dtype=np.float64), side="left")


def _min_dcf(s: SortedScores, blocks: PooledBlocks, plo, normalized=True) -> DCFResult:
    plo = as_plo(plo)
    p_fa_v, p_miss_v = blocks.vertices()
    k = _optimal_vertex(blocks, plo)
    p_miss, p_fa = p_miss_v[k], p_fa_v[k]
    lowers = np.concatenate([blocks.lower, [np.inf]])
    thr = lowers[k]
    misses, fas = s.miss_fa_counts(thr)
    return DCFResult(plo, _combine(plo, p_miss, p_fa, normalized), p_miss, p_fa,
                     np.asarray(misses, dtype=np.int64), np.asarray(fas, dtype=np.int64),
                     thr, normalized)


def act_dcf(tar, non=None, plo=0.0, *, normalize=True, tar_weights=None,
            non_weights=None) -> DCFResult:
    """Actual detection cost of LLRs at the Bayes threshold, at one or many operating points.

    Parameters
    ----------
    tar, non : array_like or Trials
        Target and non-target LLRs (natural log), or one ``Trials`` object as ``tar``.
    plo : float or array_like
        Prior log-odds ``logit(pt)`` of the operating point(s); see
        :func:`~llrlab.core.operating_point.plo_from_costs`.
    normalize : bool, default True
        Divide by ``min(pt, 1-pt)``, the cost of the default system.
    tar_weights, non_weights : array_like, optional
        Per-trial weights (van Leeuwen 2008, eq. 13).

    Returns
    -------
    DCFResult
        ``dcf`` has the shape of ``plo``.

    Notes
    -----
    ``E(pt) = pt*Pmiss(-plo) + (1-pt)*Pfa(-plo)`` with ``Pmiss(t) = #(tar < t)/T`` and
    ``Pfa(t) = #(non >= t)/N``; normalized ``E/min(pt, 1-pt)``.  All operating points are
    evaluated by binary search in the sorted scores, ``O((T+N) log(T+N) + P log(T+N))``.

    References
    ----------
    Brümmer & de Villiers (2011), sec. 2.5 (eq. 13), 2.5.4 (eq. 19-23) and 3.1.1;
    docs/conventions.md.

    Examples
    --------
    >>> r = act_dcf([1.0, 2.0, -0.5], [-2.0, 0.5, -1.0, -3.0], plo=0.0)
    >>> float(r.p_miss), float(r.p_fa), float(r.dcf)
    (0.3333333333333333, 0.25, 0.5833333333333333)
    """
    return _act_dcf(sorted_input(tar, non, tar_weights=tar_weights, non_weights=non_weights),
                    plo, normalize)


def min_dcf(tar, non=None, plo=0.0, *, normalize=True, tar_weights=None,
            non_weights=None) -> DCFResult:
    """Minimum detection cost over all thresholds, at one or many operating points.

    Parameters are those of :func:`act_dcf`; the scores need not be calibrated.

    Notes
    -----
    ``minDCF(pt) = min_t [pt*Pmiss(t) + (1-pt)*Pfa(t)] / min(pt, 1-pt)`` over all thresholds
    including +-inf.  The minimum is attained at a vertex of the ROC convex hull; the hull is
    computed once with PAV, and the optimal vertex for each ``plo`` is the number of PAV blocks
    whose LLR is below ``-plo`` (the slope condition of Brümmer & de Villiers 2011, eq. 25).

    References
    ----------
    Brümmer & de Villiers (2011), sec. 2.5.2, 2.6.1 (eq. 25), 3.1.2 and 3.2; docs/conventions.md.

    Examples
    --------
    >>> r = min_dcf([1.0, 2.0, -0.5], [-2.0, 0.5, -1.0, -3.0], plo=0.0)
    >>> float(r.dcf)
    0.25
    """
    s = sorted_input(tar, non, tar_weights=tar_weights, non_weights=non_weights)
    return _min_dcf(s, pooled_blocks(s), plo, normalize)


def bayes_error(tar, non=None, plo=0.0, **kw):
    """Un-normalized actual Bayes error rate ``E(pt)`` (Brümmer & de Villiers 2011, eq. 13);
    see :func:`act_dcf`."""
    return act_dcf(tar, non, plo, normalize=False, **kw).dcf
