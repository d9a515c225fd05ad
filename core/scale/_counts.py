"""Exact counts at a fixed set of thresholds: what the reduced analysis keeps of the scores.

:class:`CountIndex` answers the questions that ``llrlab.core`` asks of a
:class:`~llrlab.core._sorting.SortedScores` (``rates``, ``miss_fa_counts``, ``tar_below``,
``non_below``) at the thresholds whose counts were gathered from the partitions: the table
of operating points, the ROCCH block boundaries and the DR30 points.  Between two tabulated
thresholds whose counts are equal no score lies, so any threshold there is answered too;
any other threshold raises :class:`NotTabulated`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._repr import summary_repr
from ..errors import DataError

__all__ = ["CountIndex", "NotTabulated"]


class NotTabulated(DataError):
    """A threshold whose counts were not gathered from the partitions."""


@summary_repr("thresholds", "count_tar", "count_non", "weighted")
@dataclass(frozen=True, eq=False)
class CountIndex:
    """Exact counts at sorted thresholds (a stand-in for ``SortedScores``).

    Attributes
    ----------
    thresholds : ndarray, shape (K,)
        Sorted, distinct; ``-inf`` first and ``+inf`` last.
    tar_c, non_c : ndarray of int64, shape (K,)
        Numbers of targets / non-targets with score ``< thresholds[k]``.
    tar_w : ndarray, shape (K,)
        Target weight below the threshold.
    non_w : ndarray, shape (K,)
        Non-target weight at or above the threshold.
    n_tar, n_non : float
        Total weights (the counts when unweighted).
    count_tar, count_non : int
    weighted : bool
    n_effective : (float, float)
        Kish's effective numbers of trials.
    """

    thresholds: np.ndarray
    tar_c: np.ndarray
    non_c: np.ndarray
    tar_w: np.ndarray
    non_w: np.ndarray
    n_tar: float
    n_non: float
    count_tar: int
    count_non: int
    weighted: bool
    n_effective: tuple

    @classmethod
    def build(cls, parts, totals, weighted, n_effective):
        """From ``[(thresholds, tar_c, non_c, tar_w, non_w), ...]`` (any order, overlaps
        allowed: the first occurrence of a threshold wins)."""
        t = np.concatenate([p[0] for p in parts])
        cols = [np.concatenate([p[i] for p in parts]) for i in range(1, 5)]
        t, first = np.unique(t, return_index=True)
        count_tar, count_non, n_tar, n_non = totals
        return cls(t, *(c[first] for c in cols), n_tar, n_non, count_tar, count_non,
                   weighted, n_effective)

    def _locate(self, t):
        t = np.asarray(t, dtype=np.float64)
        i = np.searchsorted(self.thresholds, t, side="left")
        i = np.minimum(i, self.thresholds.size - 1)
        exact = self.thresholds[i] == t
        # between thresholds[i-1] and thresholds[i]: fine when no score lies between
        j = np.maximum(i - 1, 0)
        same = (self.tar_c[i] == self.tar_c[j]) & (self.non_c[i] == self.non_c[j])
        ok = exact | same
        if not np.all(ok):
            bad = float(np.asarray(t)[~ok].ravel()[0])
            raise NotTabulated(f"the counts at threshold {bad!r} were not gathered from the "
                               f"partitions; pass its operating point in plo= (or use one of "
                               f"the tabulated operating points)")
        return i

    def covers(self, t):
        """True where the counts at threshold(s) ``t`` are known exactly."""
        t = np.asarray(t, dtype=np.float64)
        i = np.minimum(np.searchsorted(self.thresholds, t, side="left"),
                       self.thresholds.size - 1)
        j = np.maximum(i - 1, 0)
        return (self.thresholds[i] == t) | ((self.tar_c[i] == self.tar_c[j])
                                            & (self.non_c[i] == self.non_c[j]))

    def miss_fa_counts(self, threshold):
        i = self._locate(threshold)
        return self.tar_c[i], self.count_non - self.non_c[i]

    def rates(self, threshold):
        i = self._locate(threshold)
        if not self.weighted:
            return (self.tar_c[i].astype(np.float64) / self.n_tar,
                    (self.count_non - self.non_c[i]).astype(np.float64) / self.n_non)
        p_fa = np.where(self.non_c[i] == 0, 1.0, np.minimum(self.non_w[i] / self.n_non, 1.0))
        return self.tar_w[i] / self.n_tar, p_fa

    def tar_below(self, t, side="left"):
        t = np.asarray(t, dtype=np.float64)
        if side == "right":
            t = np.nextafter(t, np.inf)
        i = self._locate(t)
        return self.tar_c[i].astype(np.float64) if not self.weighted else self.tar_w[i]

    def non_below(self, t, side="left"):
        t = np.asarray(t, dtype=np.float64)
        if side == "right":
            t = np.nextafter(t, np.inf)
        i = self._locate(t)
        if not self.weighted:
            return self.non_c[i].astype(np.float64)
        return self.n_non - self.non_w[i]
