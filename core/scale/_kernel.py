"""What one score-ordered partition contributes, and how the contributions are merged.

Pure numpy: no Dask here, so that the exact part of the out-of-core path is tested on its own.

A partition is a run of trials whose scores are sorted (the merged sequence of both classes,
a label per score).  :func:`summarize` reduces it to a :class:`PartitionSummary` whose size
does not grow with the partition (except for the blocks of its lower convex hull, which grow
slowly), and :func:`merge_blocks` / :func:`merge_counts` combine the summaries of all
partitions, in score order, into the global PAV solution and exact counts at thresholds.

Why this is exact
-----------------
* Counts at a threshold ``t`` are sums over partitions: a partition whose scores are all
  ``< t`` contributes all its trials, one whose scores are all ``>= t`` none, and one whose
  range ``(min, max]`` contains ``t`` counts its own (binary search).  This holds for any cut
  of the sorted sequence into partitions, including cuts through a run of tied scores.
* The ROC convex hull is the greatest convex minorant of the cumulative counts
  ``(non-targets, targets)`` taken at thresholds between distinct scores, and PAV's pooled
  blocks are its segments (Brümmer & de Villiers 2011, sec. 2.6.1 and 3.2).  The hull of a
  union of point sets is the hull of the union of their hulls, so each partition may replace
  its points by its own hull (a local PAV) before the hulls are joined and PAV is run once
  more on the joined blocks.  A partition's first and last runs of tied scores are kept out
  of its local PAV and returned as they are, because the threshold between two partitions is
  not a valid threshold when a run of tied scores continues across it: the merge joins such
  runs into one block before the final PAV.  Inside a partition PAV runs on elementary blocks
  (see ``llrlab.core._sorting``), whose pooling is forced.
* Trials of weight 0 take no part in PAV (as in memory): the blocks are built from the
  trials of positive weight, and the trials of weight 0 are only counted, in the block whose
  score range ``[lower, next lower)`` holds them, or in a block without weight of their own
  before a partition's first block.  So the number of trials below each pooled block's
  ``lower`` (a ROCCH vertex's threshold) is the sum of the counts of the blocks before it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.special import ndtri

from .._sorting import PooledBlocks, _elementary_bounds, _pool, _positive, _segment_sums

__all__ = ["N_ERRORS", "PartitionSummary", "Queries", "SortedPart", "merge_blocks",
           "merge_counts", "summarize", "summarize_part"]

#: Doddington's rule-of-30 count (the DET markers need the 30 extreme scores of a class).
N_ERRORS = 30
_BLOCK_FIELDS = ("lower", "upper", "tar_w", "non_w", "tar_c", "non_c")


@dataclass(frozen=True, eq=False)
class Queries:
    """Local counts of one partition at query thresholds ``t`` (all arrays of one shape).

    ``tar_c``, ``non_c``: numbers of targets / non-targets with score ``< t``; ``tar_w``:
    target weight below ``t``; ``non_w``: non-target weight at or above ``t`` (summed from the
    top, so that small false-alarm tails keep their digits).
    """

    index: np.ndarray
    tar_c: np.ndarray
    non_c: np.ndarray
    tar_w: np.ndarray
    non_w: np.ndarray


@dataclass(frozen=True, eq=False)
class PartitionSummary:
    """What one sorted partition contributes (see the module docstring).

    Attributes
    ----------
    count_tar, count_non : int
        Numbers of target and non-target trials.
    weight_tar, weight_non : float
        Their total weights (the counts when unweighted).
    lo, hi : float
        Smallest and largest score (NaN for an empty partition).
    blocks : dict of str to ndarray
        ``lower, upper, tar_w, non_w, tar_c, non_c`` per block, in score order: the first run
        of tied scores, the locally pooled blocks between (after a block without weight when
        trials of weight 0 lie below the first of them), and the last run of tied scores.
    table : Queries
        Local counts at the table thresholds that fall in ``(lo, hi]`` (``index`` into the
        table).
    low_tar, high_non : ndarray
        The (at most 30) lowest target and highest non-target scores.
    low_tar_q, high_non_q : Queries
        Local counts at ``nextafter(low_tar, inf)`` and at ``high_non``.
    det : Queries
        Local counts at the kept thresholds of the steppy ROC (``index`` unused).
    extra : dict
        Facts about the computation (``seconds``: the time the summary took).
    """

    count_tar: int
    count_non: int
    weight_tar: float
    weight_non: float
    lo: float
    hi: float
    blocks: dict
    table: Queries
    low_tar: np.ndarray
    high_non: np.ndarray
    low_tar_q: Queries
    high_non_q: Queries
    det: Queries
    extra: dict = field(default_factory=dict)


class _Sorted:
    """Sorted scores of one class in a partition, with prefix/suffix weights.

    ``x``: the sorted scores (float64); ``w``: their weights (None when unweighted); ``cw``:
    the weight below each index (``cw[i] = w[:i].sum()``); ``above``: the weight at or above
    each index.  A stored partition (:mod:`._store`) keeps only what a look-up reads: ``cw``
    of the targets, ``above`` of the non-targets.
    """

    __slots__ = ("above", "cw", "w", "x")

    def __init__(self, x, w, cw=None, above=None):
        self.x, self.w, self.cw, self.above = x, w, cw, above
        if w is not None and cw is None:
            self.cw = np.concatenate([[0.0], np.cumsum(w)])
            above = np.zeros(x.size + 1)
            np.cumsum(w[::-1], out=above[-2::-1])
            self.above = above

    @property
    def weighted(self):
        return self.cw is not None or self.above is not None


@dataclass(frozen=True, eq=False)
class SortedPart:
    """The sorted scores of one partition, by class: what a look-up at any threshold
    searches (see :mod:`llrlab.core.scale._store`)."""

    tar: _Sorted
    non: _Sorted

    @classmethod
    def of(cls, scores, labels, weights=None):
        """From one partition's scores (sorted ascending), labels and optional weights."""
        s = np.asarray(scores, dtype=np.float64)
        lab = np.asarray(labels, dtype=bool)
        w = None if weights is None else np.asarray(weights, dtype=np.float64)
        return cls(_Sorted(s[lab], None if w is None else w[lab]),
                   _Sorted(s[~lab], None if w is None else w[~lab]))

    def arrays(self):
        """``{name: array}`` that :meth:`from_arrays` rebuilds a look-up part from."""
        out = {"tar": self.tar.x, "non": self.non.x}
        if self.tar.weighted or self.non.weighted:
            out["tar_cw"], out["non_above"] = self.tar.cw, self.non.above
        return out

    @classmethod
    def from_arrays(cls, a):
        """The part of :meth:`arrays` (which may be memory-mapped files)."""
        return cls(_Sorted(a["tar"], None, cw=a.get("tar_cw")),
                   _Sorted(a["non"], None, above=a.get("non_above")))

    def lookup(self):
        """The part without what a look-up does not read (the weights themselves)."""
        return SortedPart.from_arrays(self.arrays())

    def counts(self, t) -> Queries:
        """Local counts at thresholds ``t`` (binary searches only)."""
        return _queries(self.tar, self.non, t)


def _queries(tar: _Sorted, non: _Sorted, t, index=None):
    t = np.asarray(t, dtype=np.float64)
    tc = np.searchsorted(tar.x, t, side="left")
    nc = np.searchsorted(non.x, t, side="left")
    tw = tc.astype(np.float64) if tar.cw is None else np.asarray(tar.cw[tc], np.float64)
    nw = ((non.x.size - nc).astype(np.float64) if non.above is None
          else np.asarray(non.above[nc], np.float64))
    idx = np.empty(0, np.int64) if index is None else np.asarray(index, dtype=np.int64)
    return Queries(idx, tc.astype(np.int64), nc.astype(np.int64), tw, nw)


def _concat(parts):
    parts = [p for p in parts if p["lower"].size]
    if not parts:
        return {k: np.empty(0, np.int64 if k.endswith("_c") else np.float64)
                for k in _BLOCK_FIELDS}
    return {k: np.concatenate([p[k] for p in parts]) for k in _BLOCK_FIELDS}


def _reduce(g, starts, last_of):
    """Blocks that cover ``g[starts[b]:starts[b+1]]``; ``last_of[b]`` is the index whose
    ``upper`` ends block ``b``."""
    return {"lower": g["lower"][starts], "upper": g["upper"][last_of],
            "tar_w": np.add.reduceat(g["tar_w"], starts),
            "non_w": np.add.reduceat(g["non_w"], starts),
            "tar_c": np.add.reduceat(g["tar_c"], starts),
            "non_c": np.add.reduceat(g["non_c"], starts)}


def pool_blocks(g):
    """PAV of consecutive blocks ``g`` (dict of arrays): the pooled blocks.

    Blocks without weight (every trial weighted 0) take no part in the pooling; their counts
    join the pooled block before them, and those before the first pooled block form one
    block without weight of their own, so that every pooled block's ``lower`` (a score of
    positive weight) has below it exactly the trials of the blocks before it.
    """
    n = g["lower"].size
    if n == 0:
        return g
    kept = np.flatnonzero((g["tar_w"] + g["non_w"]) > 0)
    if kept.size == 0:
        return _reduce(g, np.array([0]), np.array([n - 1]))
    starts_k = _pool(g["tar_w"][kept], g["non_w"][kept])
    first = kept[starts_k]
    last = kept[np.concatenate([starts_k[1:], [kept.size]]) - 1]
    if first[0] > 0:  # leading weightless blocks: one block of their own
        first = np.concatenate([[0], first])
        last = np.concatenate([[first[1] - 1], last])
    return _reduce(g, first, last)


def _elementary(tar: _Sorted, non: _Sorted):
    """Elementary blocks of sorted scores (see ``llrlab.core._sorting``), empty ones
    dropped: O(min(T, N)) blocks found by binary search.

    As in memory, the blocks are those of the trials of positive weight.  Trials of weight
    0 are counted (``tar_c``, ``non_c``) in the block whose range ``[lower, next lower)``
    holds their score; those below the first block form a block without weight of their
    own (as do all of them when no trial has positive weight).
    """
    tar_x, tar_w = _positive(tar.x, tar.w)
    non_x, non_w = _positive(non.x, non.w)
    if tar_x.size + non_x.size == 0:
        return _weightless_block(tar.x, non.x)
    tb, nb, lower, upper = _elementary_bounds(tar_x, non_x)
    tar_c, non_c = np.diff(tb), np.diff(nb)
    if tar.w is None:
        tar_w, non_w = tar_c.astype(np.float64), non_c.astype(np.float64)
    else:
        tar_w, non_w = _segment_sums(tar_w, tb), _segment_sums(non_w, nb)
    keep = (tar_c + non_c) > 0
    out = {"lower": lower[keep], "upper": upper[keep], "tar_w": tar_w[keep],
           "non_w": non_w[keep], "tar_c": tar_c[keep], "non_c": non_c[keep]}
    if tar_x is tar.x and non_x is non.x:  # no trial of weight 0
        return out
    # every trial counts in the block whose [lower, next lower) holds its score
    lo = out["lower"]
    tb = np.concatenate([np.searchsorted(tar.x, lo, side="left"), [tar.x.size]])
    nb = np.concatenate([np.searchsorted(non.x, lo, side="left"), [non.x.size]])
    out["tar_c"], out["non_c"] = np.diff(tb), np.diff(nb)
    if tb[0] + nb[0] == 0:
        return out
    return _concat([_weightless_block(tar.x[:tb[0]], non.x[:nb[0]]), out])


def _weightless_block(tar_x, non_x):
    """One block without weight holding the (non-empty) sorted scores of trials of
    weight 0."""
    return {"lower": np.array([min(x[0] for x in (tar_x, non_x) if x.size)]),
            "upper": np.array([max(x[-1] for x in (tar_x, non_x) if x.size)]),
            "tar_w": np.zeros(1), "non_w": np.zeros(1),
            "tar_c": np.array([tar_x.size]), "non_c": np.array([non_x.size])}


def _run(tar: _Sorted, non: _Sorted, v, tie_range):
    """The block of all trials with score ``v`` (one run of tied scores); ``tie_range`` gives
    each class's index range of that run."""
    (ta, tb), (na, nb) = tie_range
    return {"lower": np.array([v]), "upper": np.array([v]),
            "tar_w": np.array([float(tb - ta) if tar.w is None else math.fsum(tar.w[ta:tb])]),
            "non_w": np.array([float(nb - na) if non.w is None else math.fsum(non.w[na:nb])]),
            "tar_c": np.array([tb - ta]), "non_c": np.array([nb - na])}


def _sub(c: _Sorted, a, b):
    return _Sorted(c.x[a:b], None if c.w is None else c.w[a:b])


def summarize(scores, labels, weights=None, **kw):
    """The :class:`PartitionSummary` of one partition of sorted ``scores`` (ascending) with
    their ``labels`` (bool) and optional ``weights``; keywords as :func:`summarize_part`."""
    return summarize_part(SortedPart.of(scores, labels, weights), **kw)


def summarize_part(part: SortedPart, *, table=None, det_delta=0.0, det_offsets=None,
                   totals=None):
    """The :class:`PartitionSummary` of one partition.

    Parameters
    ----------
    part : SortedPart
        The partition's sorted scores by class (with their weights).
    table : ndarray, optional
        Sorted thresholds at which counts are wanted.
    det_delta : float
        Spacing (probit units, L1 along the curve) of the kept steppy-ROC points; 0 keeps
        none.
    det_offsets : (float, float)
        Estimated target weight below and non-target weight above the partition (used only
        to choose which points to keep; the points themselves are exact).
    totals : (float, float)
        Total target and non-target weight of the whole set.
    """
    tar, non = part.tar, part.non
    count_tar, count_non = int(tar.x.size), int(non.x.size)
    wt = float(count_tar) if tar.w is None else math.fsum(tar.w)
    wn = float(count_non) if non.w is None else math.fsum(non.w)
    table = np.empty(0) if table is None else np.asarray(table, dtype=np.float64)
    empty_q = _queries(tar, non, np.empty(0))
    if count_tar + count_non == 0:
        return PartitionSummary(0, 0, 0.0, 0.0, math.nan, math.nan, _concat([]), empty_q,
                                np.empty(0), np.empty(0), empty_q, empty_q, empty_q)
    lo = float(min(x.x[0] for x in (tar, non) if x.x.size))
    hi = float(max(x.x[-1] for x in (tar, non) if x.x.size))
    # the first and the last run of tied scores stay whole; PAV runs on what lies between
    t_first = (0, int(np.searchsorted(tar.x, lo, side="right")))
    n_first = (0, int(np.searchsorted(non.x, lo, side="right")))
    if lo == hi:
        blocks = _run(tar, non, lo, (t_first, n_first))
    else:
        t_last = (int(np.searchsorted(tar.x, hi, side="left")), tar.x.size)
        n_last = (int(np.searchsorted(non.x, hi, side="left")), non.x.size)
        parts = [_run(tar, non, lo, (t_first, n_first))]
        mt, mn = _sub(tar, t_first[1], t_last[0]), _sub(non, n_first[1], n_last[0])
        if mt.x.size + mn.x.size:
            parts.append(pool_blocks(_elementary(mt, mn)))
        parts.append(_run(tar, non, hi, (t_last, n_last)))
        blocks = _concat(parts)
    # table thresholds in (lo, hi]: the others are all-or-nothing for this partition
    a, b = np.searchsorted(table, [lo, hi], side="right")
    tq = _queries(tar, non, table[a:b], np.arange(a, b))
    low_tar = tar.x[:N_ERRORS].copy()
    high_non = non.x[max(non.x.size - N_ERRORS, 0):].copy()
    lq = _queries(tar, non, np.nextafter(low_tar, np.inf))
    hq = _queries(tar, non, high_non)
    det = empty_q
    if det_delta > 0:
        det = _det_points(tar, non, lo, det_delta, det_offsets, totals)
    return PartitionSummary(count_tar, count_non, wt, wn, lo, hi, blocks, tq, low_tar,
                            high_non, lq, hq, det)


def _det_points(tar, non, lo, delta, offsets, totals):
    """Local counts at the kept corners of the steppy ROC.

    The corners lie at each distinct score ``x`` of the (locally) smaller class and just
    above it (between them only the other class passes: a straight run along one axis), plus
    the partition's start and end.  A corner is kept when the (estimated) probit arc length
    since the partition's start crosses a multiple of ``delta`` (the rule of
    ``llrlab.core.det.decimate``; on a monotone curve the L1 arc length is the sum of the two
    coordinate changes).
    """
    x = np.unique(tar.x if tar.x.size <= non.x.size else non.x)
    thr = np.empty(2 * x.size + 2)
    thr[0], thr[-1] = lo, np.inf
    thr[1:-1:2] = x
    thr[2:-1:2] = np.nextafter(x, np.inf)
    q = _queries(tar, non, thr)
    below_t, above_n = offsets
    T, N = totals
    with np.errstate(divide="ignore", invalid="ignore"):
        px = ndtri(np.clip((above_n + q.non_w) / N, 0.0, 1.0))
        py = ndtri(np.clip((below_t + q.tar_w) / T, 0.0, 1.0))
    px = np.clip(np.nan_to_num(px), -8.0, 8.0)
    py = np.clip(np.nan_to_num(py), -8.0, 8.0)
    arc = (px[0] - px) + (py - py[0])
    piece = np.floor(arc / delta)
    keep = np.ones(arc.size, dtype=bool)
    keep[1:] = piece[1:] != piece[:-1]
    keep[-1] = True
    return Queries(np.empty(0, np.int64), q.tar_c[keep], q.non_c[keep], q.tar_w[keep],
                   q.non_w[keep])


# --------------------------------------------------------------------------------------------
# merging


def _join_tied(blocks):
    """Join consecutive blocks that hold the same single score (a run of tied scores cut by
    a partition boundary)."""
    lo, up = blocks["lower"], blocks["upper"]
    if lo.size < 2:
        return blocks
    same = (up[:-1] == lo[1:]) & (lo[:-1] == up[:-1]) & (lo[1:] == up[1:])
    if not same.any():
        return blocks
    starts = np.concatenate([[0], np.flatnonzero(~same) + 1])
    ends = np.concatenate([starts[1:], [lo.size]]) - 1
    return _reduce(blocks, starts, ends)


def merge_blocks(summaries, n_tar, n_non):
    """The global PAV solution from the summaries of all partitions (in score order).

    Returns
    -------
    blocks : PooledBlocks
    tar_c_below, non_c_below : ndarray of int64, shape (B,)
        Numbers of targets / non-targets below each block's smallest score.
    tar_c, non_c : ndarray of int64, shape (B,)
        Numbers of trials of each class from each block's smallest score up to the next
        block's (trials of weight 0 included).
    """
    joined = _join_tied(_concat([s.blocks for s in summaries if s.count_tar + s.count_non]))
    pooled = pool_blocks(joined)
    tc, nc = pooled["tar_c"].astype(np.int64), pooled["non_c"].astype(np.int64)
    below_t = np.concatenate([[0], np.cumsum(tc)[:-1]])
    below_n = np.concatenate([[0], np.cumsum(nc)[:-1]])
    live = (pooled["tar_w"] + pooled["non_w"]) > 0  # not the leading trials of weight 0
    if not live.all():
        pooled = {k: v[live] for k, v in pooled.items()}
        below_t, below_n, tc, nc = below_t[live], below_n[live], tc[live], nc[live]
    bt, bn = pooled["tar_w"], pooled["non_w"]
    with np.errstate(divide="ignore"):
        llr = (np.log(bt) - np.log(bn)) - (np.log(n_tar) - np.log(n_non))
    blocks = PooledBlocks(pooled["lower"], pooled["upper"], bt, bn, llr, n_tar, n_non)
    return blocks, below_t, below_n, tc, nc


def merge_counts(summaries, thresholds, local):
    """Global counts at sorted ``thresholds`` from per-partition local counts.

    ``local(summary)`` returns the :class:`Queries` of that partition whose ``index`` points
    into ``thresholds`` (thresholds inside its ``(lo, hi]``).  A partition with ``hi < t``
    contributes all its trials, one with ``lo >= t`` none.

    Returns ``(tar_c, non_c, tar_w, non_w)``: counts below, target weight below and
    non-target weight at or above each threshold.
    """
    n = thresholds.size
    tar_c = np.zeros(n + 1, np.int64)
    non_c = np.zeros(n + 1, np.int64)
    tar_w = np.zeros(n + 1)
    non_w_ge = np.zeros(n + 1)  # difference array summed from the top
    lt_c = np.zeros(n, np.int64)
    ln_c = np.zeros(n, np.int64)
    lt_w = np.zeros(n)
    ln_w = np.zeros(n)
    for s in summaries:
        if s.count_tar + s.count_non == 0:
            continue
        # thresholds above hi: the whole partition is below them
        i = int(np.searchsorted(thresholds, s.hi, side="right"))
        tar_c[i] += s.count_tar
        non_c[i] += s.count_non
        tar_w[i] += s.weight_tar
        # thresholds at or below lo: the whole partition is at or above them
        j = int(np.searchsorted(thresholds, s.lo, side="right"))
        if j:
            non_w_ge[j - 1] += s.weight_non
        q = local(s)
        np.add.at(lt_c, q.index, q.tar_c)
        np.add.at(ln_c, q.index, q.non_c)
        np.add.at(lt_w, q.index, q.tar_w)
        np.add.at(ln_w, q.index, q.non_w)
    ge = np.cumsum(non_w_ge[::-1])[::-1]  # ge[k] = weight of partitions with lo >= t_k
    return (np.cumsum(tar_c)[:n] + lt_c, np.cumsum(non_c)[:n] + ln_c,
            np.cumsum(tar_w)[:n] + lt_w, ge[:n] + ln_w)
