"""Expected performance curves (EPC): thresholds chosen on dev, error rates measured on test.

An EPC (Bengio, Mariéthoz & Keller 2005) answers the question a ROC or DET curve cannot:
how well does a system do when its decision threshold has to be chosen *before* seeing the
test scores?  For each trade-off ``alpha`` the threshold minimizing the weighted error
``alpha*Pfa + (1-alpha)*Pmiss`` on the development set is applied to the test set.

All ``alpha`` are served from one sort of the dev scores and one of the test scores: the
minimizing dev threshold is a ROCCH vertex (the weighted error is a linear cost, minimized on
the convex hull), found for every ``alpha`` at once by binary search of ``logit(alpha)`` in
the PAV LLRs of the hull segments; the test rates are binary searches of those thresholds in
the sorted test scores.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from scipy.special import logit

from ._repr import summary_repr
from ._sorting import SortedScores, pooled_blocks, sort_scores
from .errors import DataError

__all__ = ["EPC", "epc", "epc_many"]

#: Default trade-off grid: 101 values from 0 to 1.
DEFAULT_ALPHA = np.linspace(0.0, 1.0, 101)

# Dev costs equal to the minimum up to this relative amount count as ties (see epc Notes).
_TIE_RTOL = 1e-12


@summary_repr("alpha", "hter")
@dataclass(frozen=True, eq=False)
class EPC:
    """An expected performance curve; every array has shape ``(A,)``, one entry per ``alpha``.

    Element ``i`` of each array belongs to the trade-off ``alpha[i]``.

    Attributes
    ----------
    alpha : ndarray
        Trade-off parameter (Bengio, Mariéthoz & Keller 2005): the weight of the false-alarm
        rate in ``WER = alpha*Pfa + (1-alpha)*Pmiss``.
    threshold : ndarray
        Decision threshold chosen on dev (accept when ``score >= threshold``): midway between
        two adjacent distinct dev scores, ``-inf`` (accept all) or ``+inf`` (reject all).
    dev_p_miss, dev_p_fa : ndarray
        Dev miss and false-alarm rates at ``threshold``.
    dev_wer : ndarray
        The minimum dev weighted error, ``alpha*dev_p_fa + (1-alpha)*dev_p_miss``.
    p_miss, p_fa : ndarray
        Test (evaluation) miss and false-alarm rates at ``threshold``.
    wer : ndarray
        Test weighted error ``alpha*p_fa + (1-alpha)*p_miss``.
    hter : ndarray
        Test half total error rate ``(p_fa + p_miss)/2``: the EPC.
    """

    alpha: np.ndarray
    threshold: np.ndarray
    dev_p_miss: np.ndarray
    dev_p_fa: np.ndarray
    dev_wer: np.ndarray
    p_miss: np.ndarray
    p_fa: np.ndarray
    wer: np.ndarray
    hter: np.ndarray


def _as_alpha(alpha):
    a = np.atleast_1d(np.asarray(DEFAULT_ALPHA if alpha is None else alpha, dtype=np.float64))
    if a.ndim != 1:
        raise DataError(f"alpha must be a scalar or a 1-D array, got shape {a.shape}")
    bad = ~((a >= 0.0) & (a <= 1.0))  # also catches NaN
    if bad.any():
        raise DataError(f"alpha must lie in [0, 1]; got {a[bad][0]!r}")
    return a


def _as_sorted(x, name) -> SortedScores:
    """A Trials, an Analysis or a ``(tar, non)`` pair as sorted scores; errors name the set."""
    from .analysis import Analysis
    from .trials import Trials

    try:
        if isinstance(x, Analysis):
            return x.sorted
        if isinstance(x, Trials):
            return x.sorted()
        if isinstance(x, tuple | list) and len(x) == 2:
            return sort_scores(x[0], x[1])
    except DataError as exc:
        raise DataError(f"{name}: {exc}") from None
    raise TypeError(f"{name} must be a Trials object, an Analysis or a (tar, non) pair of "
                    f"score arrays")


def _known_blocks(x):
    """The PAV solution of ``x`` when it is an Analysis (else None: computed from the sort)."""
    from .analysis import Analysis

    return x.blocks if isinstance(x, Analysis) else None


def _between(below, above):
    """A threshold ``t`` with ``below < t <= above``: the midpoint when both are finite.

    When the midpoint rounds down to ``below`` (adjacent floats), or ``below`` is ``-inf``,
    or ``above`` is ``+inf``, the threshold is ``above`` itself.
    """
    with np.errstate(invalid="ignore", over="ignore"):
        mid = 0.5 * below + 0.5 * above  # no overflow near the float limits
    ok = np.isfinite(below) & np.isfinite(above) & (mid > below)
    return np.where(ok, mid, above)


def _dev_vertices(s: SortedScores, alpha, blocks=None):
    """Index of the dev ROCCH vertex chosen for each ``alpha``, and the vertex arrays
    (``blocks``: the PAV solution of ``s`` when known)."""
    blocks = pooled_blocks(s) if blocks is None else blocks
    p_fa_v, p_miss_v = blocks.vertices()
    n_v = p_fa_v.size
    # Vertex k+1 beats vertex k exactly when block k's PAV LLR is below logit(alpha)
    # (the slope condition of Brümmer & de Villiers 2011, eq. 25 with pt = 1 - alpha).
    k = np.searchsorted(blocks.llr, logit(alpha), side="left")
    # Rounding in the logs can put k one vertex off at an exact tie: look at both
    # neighbours and take the lowest vertex whose cost is the minimum (up to _TIE_RTOL).
    cand = np.clip(k[:, None] + np.array([-1, 0, 1]), 0, n_v - 1)
    cost = alpha[:, None] * p_fa_v[cand] + (1.0 - alpha[:, None]) * p_miss_v[cand]
    best = cost.min(axis=1, keepdims=True)
    first = np.argmax(cost <= best * (1.0 + _TIE_RTOL), axis=1)
    j = cand[np.arange(alpha.size), first]
    below = np.concatenate([[-np.inf], blocks.upper])[j]
    above = np.concatenate([blocks.lower, [np.inf]])[j]
    thr = _between(below, above)
    thr = np.where(j == 0, -np.inf, np.where(j == n_v - 1, np.inf, thr))
    return thr, p_miss_v[j], p_fa_v[j]


def epc(dev, test, alpha=None) -> EPC:
    """Expected performance curve: threshold chosen on ``dev``, HTER measured on ``test``.

    Parameters
    ----------
    dev, test : Trials, Analysis or (tar, non) pair of array_like
        Development trials (where the threshold is chosen) and test / evaluation trials
        (where it is applied).  Per-trial weights are used when a ``Trials`` carries them.
        An :class:`~llrlab.core.analysis.Analysis` (e.g. of calibrated LLRs) contributes its
        sort and, for ``dev``, its PAV solution: nothing is sorted again.
    alpha : float or array_like, optional
        Trade-off values in [0, 1] (default: 101 values from 0 to 1).

    Returns
    -------
    EPC
        Arrays of shape ``(A,)``.

    Notes
    -----
    For each ``alpha`` (Bengio, Mariéthoz & Keller 2005)::

        t*(alpha) = argmin_t  alpha*Pfa_dev(t) + (1-alpha)*Pmiss_dev(t)
        WER(alpha) = alpha*Pfa_test(t*) + (1-alpha)*Pmiss_test(t*)
        HTER(alpha) = (Pfa_test(t*) + Pmiss_test(t*)) / 2

    with ``Pmiss(t) = #(tar < t)/T`` and ``Pfa(t) = #(non >= t)/N``.  The dev criterion is the
    un-normalized Bayes error at the effective prior ``pt = 1 - alpha``, so its minimum lies at
    a vertex of the dev ROCCH: vertex ``k`` (everything in PAV blocks ``< k`` rejected) is
    optimal when ``llr[k-1] < logit(alpha) <= llr[k]``, found for all ``alpha`` by one binary
    search in the PAV LLRs.

    Ties and thresholds: thresholds lie only between distinct dev scores.  When several
    thresholds reach the minimum dev cost (equal up to a relative ``1e-12``), the lowest
    (most accepting) one is chosen; e.g. at ``alpha = 0`` every threshold with no miss is
    optimal and ``-inf`` (accept everything) is chosen.  The threshold is placed midway
    between the two adjacent distinct dev scores it separates (the EPC's
    definition leaves the point open; the midpoint treats test scores in the gap symmetrically);
    ``-inf`` when every dev trial is accepted and ``+inf`` when every one is rejected.

    Cost: one sort of the dev and one of the test scores, PAV on the dev blocks, then
    ``O(A log n)`` binary searches.

    References
    ----------
    Bengio, Mariéthoz & Keller (2005); Brümmer & de Villiers (2011), sec. 2.6.1 (minDCF on the
    ROCCH); docs/conventions.md.

    Examples
    --------
    >>> from llrlab.core.epc import epc
    >>> dev = ([1.0, 2.0, 3.0], [0.0, 1.0, 1.5])
    >>> test = ([0.8, 2.5, 3.0], [1.2, 0.5, 2.0])
    >>> c = epc(dev, test, alpha=[0.0, 0.25, 0.5, 1.0])
    >>> c.threshold
    array([-inf, 0.5 , 1.75, 1.75])
    >>> c.dev_wer
    array([0.        , 0.16666667, 0.16666667, 0.        ])
    >>> c.hter
    array([0.5       , 0.5       , 0.33333333, 0.33333333])
    """
    a = _as_alpha(alpha)
    sd = _as_sorted(dev, "dev")
    st = _as_sorted(test, "test")
    thr, dev_p_miss, dev_p_fa = _dev_vertices(sd, a, _known_blocks(dev))
    p_miss, p_fa = st.rates(thr)
    return EPC(
        alpha=a,
        threshold=thr,
        dev_p_miss=dev_p_miss,
        dev_p_fa=dev_p_fa,
        dev_wer=a * dev_p_fa + (1.0 - a) * dev_p_miss,
        p_miss=p_miss,
        p_fa=p_fa,
        wer=a * p_fa + (1.0 - a) * p_miss,
        hter=0.5 * (p_fa + p_miss),
    )


def epc_many(systems: Iterable, alpha=None) -> list[EPC]:
    """EPCs of several systems on one ``alpha`` grid, for comparison (Bengio, Mariéthoz & Keller
    2005).

    Parameters
    ----------
    systems : iterable of (dev, test) pairs
        One ``(dev, test)`` pair per system, each as accepted by :func:`epc`.
    alpha : float or array_like, optional
        Shared trade-off grid.

    Returns
    -------
    list of EPC
        In the order of ``systems``.

    References
    ----------
    Bengio, Mariéthoz & Keller (2005).

    Examples
    --------
    >>> from llrlab.core.epc import epc_many
    >>> a = (([1.0, 2.0], [0.0, 0.5]), ([1.5, 3.0], [0.2, 2.0]))
    >>> b = (([1.0, 2.0], [1.5, 0.5]), ([1.5, 3.0], [0.2, 0.4]))
    >>> [float(c.hter[0]) for c in epc_many([a, b], alpha=0.5)]
    [0.25, 0.0]
    """
    a = _as_alpha(alpha)
    out = []
    for i, pair in enumerate(systems):
        try:
            dev, test = pair
        except (TypeError, ValueError):
            raise TypeError(f"system {i} must be a (dev, test) pair") from None
        out.append(epc(dev, test, a))
    return out
