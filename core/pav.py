"""Pool-adjacent-violators (PAV): the non-parametric, monotone LLRs of a labelled score set.

References: Brümmer & de Villiers (2011), sec. 2.7.1 and 3.2; Brümmer (2010), app. C;
docs/conventions.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._repr import summary_repr
from ._sorting import pooled_blocks, sort_scores
from ._validate import as_scores, as_weights
from .errors import DataError

__all__ = ["PAVFit", "pav"]


@summary_repr("llr", "n_tar", "n_non")
@dataclass(frozen=True, eq=False)
class PAVFit:
    """The PAV solution: pooled blocks in increasing score order, and per-trial LLRs.

    Attributes
    ----------
    lower, upper : ndarray, shape (B,)
        Smallest and largest training score in each block.
    tar, non : ndarray, shape (B,)
        Target and non-target weight (counts when unweighted) of each block.
    llr : ndarray, shape (B,)
        Block LLR ``log(tar/non) - log(T/N)``; strictly increasing; ``+-inf`` for pure blocks.
    trial_llr : ndarray, shape (n,)
        The PAV LLR of every input trial, in input order.
    n_tar, n_non : float
        Total target and non-target weight.
    """

    lower: np.ndarray
    upper: np.ndarray
    tar: np.ndarray
    non: np.ndarray
    llr: np.ndarray
    trial_llr: np.ndarray
    n_tar: float
    n_non: float

    @property
    def n_blocks(self):
        return self.llr.size


def pav(scores, labels, *, weights=None) -> PAVFit:
    """PAV-calibrated LLRs of labelled scores, ties kept together, optional weights.

    Parameters
    ----------
    scores : array_like, shape (n,)
    labels : array_like of bool, shape (n,)
        True for target trials.  Both classes must be present.
    weights : array_like, shape (n,), optional
        Non-negative per-trial weights (weighted PAV, van Leeuwen 2008, eq. 12).

    Notes
    -----
    Trials are sorted by score; tied scores form one block that is never split; adjacent
    blocks are pooled while the target proportion of the left one is >= that of the right
    one.  A block's LLR is ``log(b_tar/b_non) - log(T/N)`` -- the log-odds of its target
    proportion minus the log-odds of the data's proportion, so it is independent of any
    prior.  The result is optimal for every proper scoring rule on these trials; evaluating
    it with actual DCF gives minimum DCF at every prior (Brümmer & de Villiers 2011, sec. 2.7.1).

    The implementation sorts once and runs PAV on O(min(T, N)) elementary blocks (see
    ``llrlab.core._sorting``) with ``scipy.optimize.isotonic_regression``.

    References
    ----------
    Brümmer & de Villiers (2011), sec. 2.7.1 and 3.2; Brümmer (2010), app. C; van Leeuwen (2008),
    eq. 12.

    Examples
    --------
    >>> f = pav([1, 2, 3, 4], [False, True, False, True])
    >>> f.n_blocks, [round(float(x), 4) for x in f.llr]
    (3, [-inf, 0.0, inf])
    """
    s = as_scores(scores, "scores")
    lab = np.asarray(labels)
    if lab.shape != s.shape:
        raise DataError(f"{lab.size} labels for {s.size} scores")
    lab = lab.astype(bool)
    w = as_weights(weights, s.size)
    if lab.all() or not lab.any():
        raise DataError("PAV needs both target and non-target trials")
    tw = None if w is None else w[lab]
    nw = None if w is None else w[~lab]
    blocks = pooled_blocks(sort_scores(s[lab], s[~lab], tar_weights=tw, non_weights=nw))
    trial_llr = blocks.llr[blocks.block_of(s)]
    return PAVFit(blocks.lower, blocks.upper, blocks.tar, blocks.non, blocks.llr, trial_llr,
                  blocks.n_tar, blocks.n_non)
