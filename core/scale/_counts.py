"""Exact counts at any threshold: what the reduced analysis keeps of the scores.

:class:`CountIndex` answers the questions that ``llrlab.core`` asks of a
:class:`~llrlab.core._sorting.SortedScores` (``rates``, ``miss_fa_counts``, ``tar_below``,
``non_below``).  At the thresholds whose counts were gathered from the partitions (the
tabulated operating points, the ROCCH block boundaries, the DR30 points) it reads them from
its table; between two tabulated thresholds whose counts are equal no score lies, so any
threshold there is answered too.  Any other threshold is looked up in the kept score-sorted
partitions (:mod:`._store`): the partitions below it count whole and the one whose score
range holds it is searched, so the counts are exact at every threshold.  Without kept
partitions (``analyze_dask(keep_sorted=False)``) such a threshold raises
:class:`NotTabulated`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from .._repr import summary_repr
from ..errors import DataError
from ._kernel import Queries, merge_counts

__all__ = ["CountIndex", "NotTabulated", "PartitionHead"]

#: Thresholds looked up in the kept partitions whose counts are remembered (a drag asks for
#: the counts at one threshold several times).
LOOKUP_CACHE = 4096


class NotTabulated(DataError):
    """A threshold whose counts were not gathered from the partitions (and no sorted
    partitions were kept to look it up)."""


@dataclass(frozen=True)
class PartitionHead:
    """What a look-up needs of one score-sorted partition besides its scores: its number
    ``part`` in the store, its score range and its class counts and weights."""

    part: int
    lo: float
    hi: float
    count_tar: int
    count_non: int
    weight_tar: float
    weight_non: float


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
    heads : tuple of PartitionHead
        The non-empty partitions, in score order.
    store : DiskStore or WorkerStore or None
        The kept sorted partitions (None: only tabulated thresholds are answered).
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
    heads: tuple = ()
    store: object = None
    _looked_up: OrderedDict = field(default_factory=OrderedDict, repr=False)
    _lock: object = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def build(cls, parts, totals, weighted, n_effective, *, heads=(), store=None):
        """From ``[(thresholds, tar_c, non_c, tar_w, non_w), ...]`` (any order, overlaps
        allowed: the first occurrence of a threshold wins)."""
        t = np.concatenate([p[0] for p in parts])
        cols = [np.concatenate([p[i] for p in parts]) for i in range(1, 5)]
        t, first = np.unique(t, return_index=True)
        count_tar, count_non, n_tar, n_non = totals
        return cls(t, *(c[first] for c in cols), n_tar, n_non, count_tar, count_non,
                   weighted, n_effective, tuple(heads), store)

    def release(self):
        """Drop the kept sorted partitions now (later look-ups outside the table raise)."""
        if self.store is not None:
            self.store.release()

    def _table_index(self, t):
        """``(i, ok)``: the table row answering thresholds ``t`` (1-D), and where it does:
        ``t`` is a tabulated threshold, or no score lies between the tabulated thresholds
        around it (their counts are equal)."""
        i = np.minimum(np.searchsorted(self.thresholds, t, side="left"),
                       self.thresholds.size - 1)
        j = np.maximum(i - 1, 0)
        ok = (self.thresholds[i] == t) | ((self.tar_c[i] == self.tar_c[j])
                                          & (self.non_c[i] == self.non_c[j]))
        return i, ok

    def covers(self, t):
        """True where the counts at threshold(s) ``t`` are in the table (no partition is
        searched for them)."""
        t = np.asarray(t, dtype=np.float64)
        return self._table_index(t.ravel())[1].reshape(t.shape)[()]

    def counts(self, t):
        """``(tar_c, non_c, tar_w, non_w)`` at thresholds ``t`` (any shape): numbers of
        targets and non-targets below ``t``, target weight below and non-target weight at or
        above ``t``; exact at any threshold (see the module docstring)."""
        t = np.asarray(t, dtype=np.float64)
        flat = t.ravel()
        i, ok = self._table_index(flat)
        out = [self.tar_c[i], self.non_c[i], self.tar_w[i], self.non_w[i]]
        if not ok.all():
            miss = ~ok
            u, inv = np.unique(flat[miss], return_inverse=True)
            got = self._look_up(u)
            for o, g in zip(out, got, strict=True):
                o[miss] = g[inv.ravel()]
        return tuple(o.reshape(t.shape)[()] for o in out)

    def _look_up(self, u):
        """Counts at sorted distinct thresholds ``u`` from the kept partitions (cached)."""
        if self.store is None:
            raise NotTabulated(f"the counts at threshold {float(u[0])!r} were not gathered "
                               f"from the partitions and the sorted scores were not kept "
                               f"(analyze_dask(keep_sorted=False)); pass its operating point "
                               f"in plo=, or keep the sorted scores")
        with self._lock:
            known = [self._looked_up.get(float(x)) for x in u]
        todo = np.array([x for x, k in zip(u, known, strict=True) if k is None])
        if todo.size:
            found = self._search(todo)
            with self._lock:
                for n, x in enumerate(todo.tolist()):
                    self._looked_up[x] = tuple(c[n] for c in found)
                while len(self._looked_up) > LOOKUP_CACHE:
                    self._looked_up.popitem(last=False)
            new = dict(zip(todo.tolist(), zip(*found, strict=True), strict=True))
            known = [k if k is not None else new[float(x)]
                     for x, k in zip(u, known, strict=True)]
        return tuple(np.array([k[c] for k in known]) for c in range(4))

    def _search(self, u):
        """One binary search per class in each partition whose score range ``(lo, hi]``
        holds thresholds of ``u``, and the whole counts of the partitions below them."""
        requests, slices = [], []
        for h in self.heads:
            a, b = np.searchsorted(u, [h.lo, h.hi], side="right")
            if b > a:
                requests.append((h.part, u[a:b]))
                slices.append((h.part, a, b))
        answers = self.store.query(requests)
        local = {part: Queries(np.arange(a, b), q.tar_c, q.non_c, q.tar_w, q.non_w)
                 for (part, a, b), q in zip(slices, answers, strict=True)}
        empty = Queries(*(np.empty(0, np.int64) for _ in range(3)), np.empty(0),
                        np.empty(0))
        return merge_counts(self.heads, u, lambda h: local.get(h.part, empty))

    def miss_fa_counts(self, threshold):
        tar_c, non_c, _, _ = self.counts(threshold)
        return tar_c, self.count_non - non_c

    def rates(self, threshold):
        tar_c, non_c, tar_w, non_w = self.counts(threshold)
        if not self.weighted:
            return (tar_c.astype(np.float64) / self.n_tar,
                    (self.count_non - non_c).astype(np.float64) / self.n_non)
        p_fa = np.where(non_c == 0, 1.0, np.minimum(non_w / self.n_non, 1.0))
        return tar_w / self.n_tar, p_fa

    def tar_below(self, t, side="left"):
        t = np.asarray(t, dtype=np.float64)
        if side == "right":
            t = np.nextafter(t, np.inf)
        tar_c, _, tar_w, _ = self.counts(t)
        return tar_c.astype(np.float64) if not self.weighted else tar_w

    def non_below(self, t, side="left"):
        t = np.asarray(t, dtype=np.float64)
        if side == "right":
            t = np.nextafter(t, np.inf)
        _, non_c, _, non_w = self.counts(t)
        if not self.weighted:
            return non_c.astype(np.float64)
        return self.n_non - non_w
