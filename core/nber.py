"""Normalized Bayes error-rate (NBER) curves with Doddington's rule-of-30 markers.

References: Brümmer & de Villiers (2011), sec. 2.1 (DR30) and 2.5.4 (NBER plot, eq. 19-23, figures
1-3); docs/conventions.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._repr import summary_repr
from ._sorting import PooledBlocks, SortedScores, pooled_blocks, sorted_input
from ._validate import as_plo
from .dcf import DCFResult, _act_dcf, _min_dcf

__all__ = ["DR30", "NBERCurves", "dr30", "nber_curves"]


@summary_repr("plo_fa", "plo_miss", "dcf_fa", "dcf_miss")
@dataclass(frozen=True, eq=False)
class DR30:
    """Where the minimum-DCF error counts drop below 30 along the prior log-odds axis.

    Attributes
    ----------
    plo_fa : float
        Fewer than ``n_errors`` false alarms at the minimizing threshold for ``plo < plo_fa``
        (``+inf``: everywhere; ``-inf``: nowhere).
    plo_miss : float
        Fewer than ``n_errors`` misses for ``plo >= plo_miss`` (``-inf``: everywhere).
    dcf_fa, dcf_miss : float
        Normalized minimum DCF at the two markers (NaN when the marker is at infinity).
    n_errors : int
        The rule's count (30).
    """

    plo_fa: float
    plo_miss: float
    dcf_fa: float
    dcf_miss: float
    n_errors: int = 30

    def is_safe(self, plo):
        """True where both error counts are at least ``n_errors``."""
        plo = np.asarray(plo, dtype=np.float64)
        return (plo >= self.plo_fa) & (plo < self.plo_miss)


def _dr30(s: SortedScores, blocks: PooledBlocks, n_errors=30) -> DR30:
    """Exact DR30 markers from the ROCCH vertices.

    Vertex ``k`` is optimal for ``-llr[k] < plo <= -llr[k-1]`` (see ``dcf._optimal_vertex``).
    Its false-alarm count falls and its miss count rises with ``k``, so the FA marker is the
    upper end of the range of the first vertex with fewer than ``n_errors`` false alarms,
    and the miss marker the lower end of the range of the last vertex with fewer misses.
    Counts are numbers of trials, also for weighted trials (trials of weight 0 too, at the
    vertices' thresholds; docs/conventions.md, "Trials of weight 0").
    """
    thresholds = np.concatenate([blocks.lower, [np.inf]])
    misses, fas = s.miss_fa_counts(thresholds)
    llr = blocks.llr
    k_fa = int(np.argmax(fas < n_errors))  # fas falls to 0 at the last vertex
    plo_fa = np.inf if k_fa == 0 else float(-llr[k_fa - 1])
    low = np.flatnonzero(misses < n_errors)  # misses == 0 at vertex 0
    k_m = int(low[-1])
    plo_miss = -np.inf if k_m == llr.size else float(-llr[k_m])

    def at(x):
        if not np.isfinite(x):
            return float("nan")
        return float(_min_dcf(s, blocks, x).dcf)

    return DR30(plo_fa, plo_miss, at(plo_fa), at(plo_miss), n_errors)


@summary_repr("plo", "act", "min")
@dataclass(frozen=True, eq=False)
class NBERCurves:
    """Actual and minimum normalized DCF over a grid of prior log-odds.

    Attributes
    ----------
    plo : ndarray, shape (P,)
    act, min : DCFResult
        Normalized; ``act.miss_part`` / ``act.fa_part`` are the contributions of the misses
        and the false alarms (Brümmer & de Villiers 2011, fig. 2-3).
    default : ndarray, shape (P,)
        The default system (LLR 0 everywhere): 1 at every plo.
    dr30 : DR30
    """

    plo: np.ndarray
    act: DCFResult
    min: DCFResult
    default: np.ndarray
    dr30: DR30


def _nber(s: SortedScores, blocks: PooledBlocks, plo) -> NBERCurves:
    plo = as_plo(plo)
    return NBERCurves(plo, _act_dcf(s, plo), _min_dcf(s, blocks, plo), np.ones_like(plo),
                      _dr30(s, blocks))


def nber_curves(tar, non=None, plo=None, *, tar_weights=None, non_weights=None):
    """NBER plot data: actual and minimum normalized DCF against prior log-odds, with DR30.

    Parameters
    ----------
    tar, non : array_like or Trials
        Target and non-target LLRs.
    plo : array_like, optional
        Prior log-odds grid; default 1001 points from -10 to 10.

    Notes
    -----
    ``y = E(sigmoid(x)) / min(sigmoid(x), 1 - sigmoid(x))`` (Brümmer & de Villiers 2011, eq.
    19-23); the default system is the line ``y = 1``.  DR30 markers sit on the minimum-DCF curve
    (Brümmer & de Villiers 2011, sec. 2.5.4).

    References
    ----------
    Brümmer & de Villiers (2011), sec. 2.1 and 2.5.4.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> c = nber_curves(rng.normal(2, 1, 1000), rng.normal(-2, 1, 1000), [-2.0, 0.0, 2.0])
    >>> bool(np.all(c.min.dcf <= c.act.dcf))
    True
    """
    s = sorted_input(tar, non, tar_weights=tar_weights, non_weights=non_weights)
    if plo is None:
        plo = np.linspace(-10, 10, 1001)
    return _nber(s, pooled_blocks(s), plo)


def dr30(tar, non=None, *, tar_weights=None, non_weights=None) -> DR30:
    """DR30 markers of the NBER plot (see :class:`DR30`).

    References
    ----------
    Brümmer & de Villiers (2011), sec. 2.1 and 2.5.4; docs/conventions.md.
    """
    s = sorted_input(tar, non, tar_weights=tar_weights, non_weights=non_weights)
    return _dr30(s, pooled_blocks(s))
