"""The private kernel under every measure: one sort of the scores, then only searches.

All error-rate measures of llrlab are functions of two cumulative counts, the number (or
weight) of target scores below a threshold and of non-target scores below it.  Sorting the
target and the non-target scores once (two sorts of disjoint parts, which together cost about
one sort of all scores) makes every such count a binary search.

The PAV / ROCCH part uses one more fact.  Let the smaller class define "elementary blocks":
with the target scores as the smaller class, block 0 holds the non-targets below the smallest
target score, and block j holds the targets equal to the j-th distinct target score followed by
the non-targets up to (excluding) the next distinct target score.  Inside a block the
target proportion can only fall with increasing score (targets first, then non-targets), so
PAV pools every elementary block whole (an isotonic fit of a non-increasing run is constant).
PAV on these O(min(T, N)) blocks is therefore exactly PAV on all T + N trials, and the ROCCH
vertices are the boundaries of the pooled blocks.  With the non-targets as the smaller class
the mirror construction is used (block j: targets above the previous distinct non-target score
up to and including the j-th one, with the non-targets equal to it).

References: seed 000 (Brümmer & de Villiers 2011), sections 2.6.1, 3.1 and 3.2;
../shared/CONVENTIONS.md, sections "PAV" and "ROC, ROCCH, EER family".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import isotonic_regression

from ._validate import as_tar_non, as_weights

__all__ = ["PooledBlocks", "SortedScores", "pooled_blocks", "sort_scores"]


@dataclass(frozen=True, eq=False)
class SortedScores:
    """Target and non-target scores, each sorted ascending, with cumulative weights.

    Attributes
    ----------
    tar, non : ndarray, shapes (T,), (N,)
        Sorted scores.
    tar_cw, non_cw : ndarray of shape (T + 1,), (N + 1,) or None
        ``cw[i]`` is the total weight of the ``i`` smallest scores (``cw[0] == 0``); None
        when the trials are unweighted (then the weight below index ``i`` is ``i``).
    n_tar, n_non : float
        Total target and non-target weight (the trial counts when unweighted).
    """

    tar: np.ndarray
    non: np.ndarray
    tar_cw: np.ndarray | None
    non_cw: np.ndarray | None
    n_tar: float
    n_non: float

    @property
    def weighted(self):
        return self.tar_cw is not None

    @property
    def count_tar(self):
        """Number of target trials (unweighted)."""
        return self.tar.size

    @property
    def count_non(self):
        """Number of non-target trials (unweighted)."""
        return self.non.size

    def tar_below(self, t, side="left"):
        """Weight of target scores ``< t`` (side='left') or ``<= t`` (side='right')."""
        i = np.searchsorted(self.tar, t, side=side)
        return i.astype(np.float64) if self.tar_cw is None else self.tar_cw[i]

    def non_below(self, t, side="left"):
        """Weight of non-target scores ``< t`` (side='left') or ``<= t`` (side='right')."""
        i = np.searchsorted(self.non, t, side=side)
        return i.astype(np.float64) if self.non_cw is None else self.non_cw[i]

    def miss_fa_counts(self, threshold):
        """Unweighted numbers of misses (``tar < t``) and false alarms (``non >= t``)."""
        misses = np.searchsorted(self.tar, threshold, side="left")
        fas = self.non.size - np.searchsorted(self.non, threshold, side="left")
        return misses, fas

    def rates(self, threshold):
        """``(p_miss, p_fa)`` at threshold(s) ``t``: ``P(tar < t)`` and ``P(non >= t)``."""
        p_miss = self.tar_below(threshold) / self.n_tar
        p_fa = (self.n_non - self.non_below(threshold)) / self.n_non
        return p_miss, p_fa


def _sort_with_weights(x, w):
    if w is None:
        return np.sort(x), None
    order = np.argsort(x, kind="stable")
    cw = np.empty(x.size + 1)
    cw[0] = 0.0
    np.cumsum(w[order], out=cw[1:])
    return x[order], cw


def sort_scores(tar, non, *, tar_weights=None, non_weights=None):
    """Validate and sort target and non-target scores (see :class:`SortedScores`).

    Infinite scores are accepted (LLRs of +-inf are legitimate, e.g. PAV output); NaN is not.
    """
    tar, non = as_tar_non(tar, non, allow_inf=True)
    tw = as_weights(tar_weights, tar.size, "target weights")
    nw = as_weights(non_weights, non.size, "non-target weights")
    if (tw is None) != (nw is None):
        tw = np.ones(tar.size) if tw is None else tw
        nw = np.ones(non.size) if nw is None else nw
    st, tcw = _sort_with_weights(tar, tw)
    sn, ncw = _sort_with_weights(non, nw)
    n_tar = float(tar.size) if tcw is None else float(tcw[-1])
    n_non = float(non.size) if ncw is None else float(ncw[-1])
    return SortedScores(st, sn, tcw, ncw, n_tar, n_non)


@dataclass(frozen=True, eq=False)
class PooledBlocks:
    """The PAV solution of a score set, as pooled blocks in increasing score order.

    Attributes
    ----------
    lower : ndarray, shape (B,)
        Smallest score in each block.
    upper : ndarray, shape (B,)
        Largest score in each block.
    tar, non : ndarray, shape (B,)
        Target and non-target weight (counts when unweighted) in each block.
    llr : ndarray, shape (B,)
        PAV log-likelihood-ratio of each block, ``log(tar/non) - log(n_tar/n_non)``;
        ``+inf`` for a block with no non-targets, ``-inf`` for one with no targets.
        Strictly increasing: adjacent blocks with equal target proportion are pooled.
    n_tar, n_non : float
        Totals over all blocks.
    """

    lower: np.ndarray
    upper: np.ndarray
    tar: np.ndarray
    non: np.ndarray
    llr: np.ndarray
    n_tar: float
    n_non: float

    @property
    def n_blocks(self):
        return self.llr.size

    def vertices(self):
        """ROCCH vertices ``(p_fa, p_miss)``, shape (B + 1,) each, from (1, 0) to (0, 1).

        Vertex ``k`` is the operating point of the threshold at the bottom of block ``k``
        (every trial in blocks ``< k`` rejected, every trial in blocks ``>= k`` accepted).
        """
        cum_tar = np.concatenate([[0.0], np.cumsum(self.tar)])
        cum_non = np.concatenate([[0.0], np.cumsum(self.non)])
        p_miss = cum_tar / self.n_tar
        p_fa = (self.n_non - cum_non) / self.n_non
        # Exact end points despite rounding in the cumulative sums.
        p_miss[-1], p_fa[-1] = 1.0, 0.0
        return p_fa, p_miss

    def block_of(self, scores):
        """Index of the block each score falls in (scores below all blocks go to block 0)."""
        return np.clip(np.searchsorted(self.lower, scores, side="right") - 1, 0, None)


def _elementary_blocks(s: SortedScores):
    """Elementary blocks ``(lower, upper, tar, non)`` (see the module docstring)."""
    if s.tar.size <= s.non.size:
        v = np.unique(s.tar)  # distinct target scores, ascending
        it_lo = np.searchsorted(s.tar, v, side="left")
        it_hi = np.searchsorted(s.tar, v, side="right")
        inn = np.searchsorted(s.non, v, side="left")  # non-targets below each v
        tcw = s.tar_cw if s.weighted else None
        ncw = s.non_cw if s.weighted else None
        t_at = (it_hi - it_lo).astype(np.float64) if tcw is None else tcw[it_hi] - tcw[it_lo]
        non_idx = np.concatenate([[0], inn, [s.non.size]])
        non_cum = non_idx.astype(np.float64) if ncw is None else ncw[non_idx]
        tar = np.concatenate([[0.0], t_at])
        non = np.diff(non_cum)
        lower = np.concatenate([[s.non[0]], v])
        # Largest score in a block: its last non-target, or the target value itself when
        # the block holds no non-target.
        last_non = s.non[np.maximum(non_idx[1:] - 1, 0)]
        upper = np.where(non_idx[1:] > non_idx[:-1], last_non, lower)
    else:
        w = np.unique(s.non)
        in_lo = np.searchsorted(s.non, w, side="left")
        in_hi = np.searchsorted(s.non, w, side="right")
        itr = np.searchsorted(s.tar, w, side="right")  # targets <= each w
        tcw = s.tar_cw if s.weighted else None
        ncw = s.non_cw if s.weighted else None
        n_at = (in_hi - in_lo).astype(np.float64) if ncw is None else ncw[in_hi] - ncw[in_lo]
        tar_idx = np.concatenate([[0], itr, [s.tar.size]])
        tar_cum = tar_idx.astype(np.float64) if tcw is None else tcw[tar_idx]
        tar = np.diff(tar_cum)
        non = np.concatenate([n_at, [0.0]])
        upper = np.concatenate([w, [s.tar[-1]]])
        # Smallest score in a block: the first target after the previous boundary, or the
        # non-target value itself when no target lies between.
        first_tar = s.tar[np.minimum(tar_idx[:-1], s.tar.size - 1)]
        lower = np.where(tar_idx[1:] > tar_idx[:-1], first_tar, upper)
    keep = (tar + non) > 0
    return lower[keep], upper[keep], tar[keep], non[keep]


def _pool(tar, non):
    """Start indices of the pooled blocks (PAV, pooling equal proportions too)."""
    total = tar + non
    fit = isotonic_regression(tar / total, weights=total, increasing=True)
    starts = np.asarray(fit.blocks[:-1])
    bt = np.add.reduceat(tar, starts)
    bn = np.add.reduceat(non, starts)
    # scipy leaves adjacent blocks of equal proportion apart; pool them (exact comparison
    # of cross products, as the counts are integers when the trials are unweighted).
    rising = bt[:-1] * bn[1:] < bt[1:] * bn[:-1]
    return starts[np.concatenate([[True], rising])]


def pooled_blocks(s: SortedScores) -> PooledBlocks:
    """PAV of the sorted scores: the pooled blocks (see :class:`PooledBlocks`)."""
    lower, upper, tar, non = _elementary_blocks(s)
    starts = _pool(tar, non)
    ends = np.concatenate([starts[1:], [tar.size]]) - 1
    bt = np.add.reduceat(tar, starts)
    bn = np.add.reduceat(non, starts)
    with np.errstate(divide="ignore"):
        llr = (np.log(bt) - np.log(bn)) - (np.log(s.n_tar) - np.log(s.n_non))
    return PooledBlocks(lower[starts], upper[ends], bt, bn, llr, s.n_tar, s.n_non)


def sorted_input(tar, non=None, *, tar_weights=None, non_weights=None) -> SortedScores:
    """Accept ``(tar, non)`` arrays or a :class:`~llrlab.core.trials.Trials` and sort them.

    A ``Trials`` passed as ``tar`` (with ``non`` None) contributes its own weights.
    """
    from .trials import Trials

    if isinstance(tar, Trials):
        if non is not None:
            raise TypeError("pass either a Trials object or tar and non arrays, not both")
        return tar.sorted()
    if non is None:
        raise TypeError("non-target scores are missing: pass tar and non, or a Trials object")
    return sort_scores(tar, non, tar_weights=tar_weights, non_weights=non_weights)
