"""The headline measures of every condition at once, in time linear in trials + conditions.

:func:`llrlab.core.conditions.by_condition` reports each condition's own measures at one
operating point.  Running :func:`~llrlab.core.analysis.analyze` per condition costs a
fixed few hundred microseconds per call, and selecting each condition's trials by a mask of
all trials makes the whole ``O(C n)``: 10^4 conditions of 2 trials took 10 s, 10^6 would
take hours.  Here one sort of all trials by (condition, score) is followed by vectorized
operations on the segments of that order: ``O(n log n + C)``, with a Python loop only over
conditions of at least 8 trials of one class (Cllr sums) or of many PAV blocks.

The measures are those of the private kernels (``_sorting``, ``dcf``, ``rocch``, ``cllr``)
written for many segments, with the same floating-point operations where it matters:

* PAV per condition on its tie blocks (distinct scores, both classes together): adjacent
  blocks of one condition are pooled while the left target proportion is ``>=`` the right
  one (exact cross products), in rounds that pool every run of violating pairs at once; a
  condition still unsettled after :data:`ROUNDS` rounds is finished by the single-set
  kernel.  The pooled blocks are those of the PAV of the condition alone (the PAV solution
  is unique; elementary blocks of ``_sorting`` are unions of tie blocks that PAV pools
  whole).
* Without trial weights, counts, ``p_miss``, ``p_fa``, actual and minimum DCF, EER and
  Cllr are bitwise those of ``analyze`` of the condition alone (the same integer counts and
  the same operations; the Cllr terms summed in numpy's summation order); minimum Cllr
  agrees to rounding (its dot products are summed in another order).  With trial weights
  every measure agrees to rounding.

References: Brümmer & de Villiers (2011), sections 2.6 and 3.2 (PAV, ROCCH, EER); van
Leeuwen (2008), section 3 (per-condition measures).
"""

from __future__ import annotations

import numpy as np

from ._parallel import CHUNK
from ._sorting import _pool
from .cllr import _LN2, softplus_terms
from .dcf import _combine

__all__ = ["ROUNDS", "condition_measures"]

#: Rounds of vectorized pooling before an unsettled condition is finished on its own.
ROUNDS = 48
#: numpy sums fewer terms than this one after the other from 0.0 (pairwise above).
_SEQUENTIAL = 8


def _numpy_sums(x, starts, sizes):
    """``[float(x[a:a + m].sum()) for a, m in zip(starts, sizes)]``, bitwise.

    numpy adds fewer than 8 terms sequentially from 0.0, which is done here for all such
    segments at once (7 vector steps); longer segments are summed one call each.
    """
    out = np.zeros(starts.size)
    small = np.flatnonzero(sizes < _SEQUENTIAL)
    a, m = starts[small], sizes[small]
    acc = np.zeros(small.size)
    for j in range(_SEQUENTIAL - 1):
        live = m > j
        acc[live] += x[a[live] + j]
    out[small] = acc
    for i in np.flatnonzero(sizes >= _SEQUENTIAL).tolist():
        out[i] = float(x[starts[i]:starts[i] + sizes[i]].sum())
    return out


def _softplus_sums(x, w, starts, sizes, sign):
    """Per segment, ``cllr.softplus_sum`` of the segment (bitwise without weights): its
    terms, summed per chunk of ``CHUNK`` and the chunk sums added in order."""
    terms = softplus_terms(x, sign=sign)
    if w is None:
        out = _numpy_sums(terms, starts, np.minimum(sizes, CHUNK))
        for i in np.flatnonzero(sizes > CHUNK).tolist():  # several chunks, added in order
            total = 0.0
            for c in range(starts[i], starts[i] + sizes[i], CHUNK):
                total += float(terms[c:min(c + CHUNK, starts[i] + sizes[i])].sum())
            out[i] = total
        return out
    out = np.zeros(starts.size)
    for i in np.flatnonzero(sizes).tolist():
        total = 0.0
        for c in range(starts[i], starts[i] + sizes[i], CHUNK):
            end = min(c + CHUNK, starts[i] + sizes[i])
            total += float(np.einsum("i,i->", terms[c:end], w[c:end]))  # as softplus_sum
        out[i] = total
    return out


def _grouped(codes, n_groups):
    """Stable order of ``codes`` with each group's start and size."""
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes, minlength=n_groups)
    starts = np.zeros(n_groups, dtype=np.int64)
    np.cumsum(sizes[:-1], out=starts[1:])
    return order, starts, sizes


def _pool_rounds(bt, bn, seg):
    """PAV of every segment of blocks (see the module docstring): ``(bt, bn, seg)`` of the
    pooled blocks, in order."""
    for _ in range(ROUNDS):
        same = seg[1:] == seg[:-1]
        viol = same & (bt[:-1] * bn[1:] >= bt[1:] * bn[:-1])
        if not viol.any():
            return bt, bn, seg
        new = np.empty(bt.size, dtype=bool)
        new[0] = True
        np.logical_not(viol, out=new[1:])
        gid = np.cumsum(new) - 1
        bt = np.bincount(gid, weights=bt)
        bn = np.bincount(gid, weights=bn)
        seg = seg[new]
    # conditions not yet settled: each by the single-set kernel
    same = seg[1:] == seg[:-1]
    viol = same & (bt[:-1] * bn[1:] >= bt[1:] * bn[:-1])
    todo = np.unique(seg[1:][viol])
    lo = np.searchsorted(seg, todo, side="left")
    hi = np.searchsorted(seg, todo, side="right")
    keep = np.ones(bt.size, dtype=bool)
    parts_t, parts_n, parts_s = [bt], [bn], [seg]
    for a, b, s in zip(lo.tolist(), hi.tolist(), todo.tolist(), strict=True):
        starts = _pool(bt[a:b], bn[a:b])
        parts_t.append(np.add.reduceat(bt[a:b], starts))
        parts_n.append(np.add.reduceat(bn[a:b], starts))
        parts_s.append(np.full(starts.size, s, dtype=seg.dtype))
        keep[a:b] = False
    bt = np.concatenate([parts_t[0][keep], *parts_t[1:]])
    bn = np.concatenate([parts_n[0][keep], *parts_n[1:]])
    seg = np.concatenate([parts_s[0][keep], *parts_s[1:]])
    order = np.argsort(seg, kind="stable")  # the refined conditions back in place
    return bt[order], bn[order], seg[order]


def condition_measures(scores, labels, weights, codes, n_cond, plo):
    """The headline measures of each condition alone at prior log-odds ``plo``.

    Parameters
    ----------
    scores, labels, weights : ndarray, shape (n,)
        The trials (``weights`` None when unweighted).
    codes : ndarray of int, shape (n,)
        Each trial's condition, ``0 <= code < n_cond``; every condition has at least one
        target and one non-target trial (of positive weight).
    n_cond : int
    plo : float

    Returns
    -------
    dict of ndarray, shape (n_cond,)
        ``n_tar``, ``n_non`` (trial counts), ``p_miss``, ``p_fa``, ``act_dcf``, ``min_dcf``,
        ``eer``, ``cllr``, ``min_cllr``, as ``analyze(condition).at(plo)`` and ``analyze``
        give them (see the module docstring for the agreement).
    """
    codes = np.asarray(codes, dtype=np.intp)
    lab = labels
    ct, cn = codes[lab], codes[~lab]
    st, sn = scores[lab], scores[~lab]
    wt = None if weights is None else weights[lab]
    wn = None if weights is None else weights[~lab]
    count_t = np.bincount(ct, minlength=n_cond)
    count_n = np.bincount(cn, minlength=n_cond)

    # Cllr: each class's terms in file order within each condition (as a subset has them)
    ot, t0, _ = _grouped(ct, n_cond)
    on, n0, _ = _grouped(cn, n_cond)
    gwt = None if wt is None else wt[ot]
    gwn = None if wn is None else wn[on]
    sum_t = _softplus_sums(st[ot], gwt, t0, count_t, -1.0)
    sum_n = _softplus_sums(sn[on], gwn, n0, count_n, 1.0)
    if weights is None:
        tot_t, tot_n = count_t.astype(np.float64), count_n.astype(np.float64)
    else:
        tot_t = _numpy_sums(gwt, t0, count_t)
        tot_n = _numpy_sums(gwn, n0, count_n)
    cllr = (sum_t / tot_t + sum_n / tot_n) / (2 * _LN2)

    # actual DCF at the Bayes threshold -plo: P(tar < -plo), P(non >= -plo)
    thr = -plo
    if weights is None:
        p_miss = np.bincount(ct[st < thr], minlength=n_cond) / tot_t
        p_fa = np.bincount(cn[sn >= thr], minlength=n_cond) / tot_n
    else:
        p_miss = np.bincount(ct, weights=np.where(st < thr, wt, 0.0), minlength=n_cond) / tot_t
        p_fa = np.minimum(np.bincount(cn, weights=np.where(sn >= thr, wn, 0.0),
                                      minlength=n_cond) / tot_n, 1.0)
    act_dcf = _combine(plo, p_miss, p_fa, True)

    # tie blocks of each condition (distinct scores, both classes), then PAV
    order = np.lexsort((scores, codes))
    cs, ss, ls = codes[order], scores[order], lab[order]
    new = np.empty(order.size, dtype=bool)
    new[0] = True
    new[1:] = (cs[1:] != cs[:-1]) | (ss[1:] != ss[:-1])
    first = np.flatnonzero(new)
    if weights is None:
        bt = np.add.reduceat(ls.astype(np.float64), first)
        bn = np.diff(np.append(first, order.size)).astype(np.float64) - bt
    else:
        ws = weights[order]
        bt = np.add.reduceat(np.where(ls, ws, 0.0), first)
        bn = np.add.reduceat(np.where(ls, 0.0, ws), first)
    seg = cs[first]
    mass = (bt + bn) > 0  # trials of zero weight are no block
    bt, bn, seg = _pool_rounds(bt[mass], bn[mass], seg[mass])

    nb = np.bincount(seg, minlength=n_cond)  # pooled blocks per condition
    with np.errstate(divide="ignore"):
        llr = (np.log(bt) - np.log(bn)) - (np.log(tot_t[seg]) - np.log(tot_n[seg]))
    with np.errstate(invalid="ignore"):
        lt = np.where(bt > 0, np.logaddexp(0.0, -(llr + 0.0)), 0.0)
        ln = np.where(bn > 0, np.logaddexp(0.0, llr + 0.0), 0.0)
    min_cllr = (np.bincount(seg, weights=bt * lt, minlength=n_cond) / tot_t
                + np.bincount(seg, weights=bn * ln, minlength=n_cond) / tot_n) / (2 * _LN2)

    # ROCCH vertices: condition k has nb[k] + 1, vertex j before its pooled block j
    fb = np.zeros(n_cond, dtype=np.int64)  # first pooled block of each condition
    np.cumsum(nb[:-1], out=fb[1:])
    vseg = np.repeat(np.arange(n_cond), nb + 1)
    vstart = fb + np.arange(n_cond)
    j = np.arange(vseg.size) - vstart[vseg]
    block_at = fb[vseg] + j  # the block a vertex precedes (one past a condition's last)
    cum_t = np.concatenate([[0.0], np.cumsum(bt)])
    cum_n = np.concatenate([[0.0], np.cumsum(bn)])
    end = fb + nb
    below_t = cum_t[block_at] - cum_t[fb[vseg]]  # target mass of the blocks below
    above_n = cum_n[end[vseg]] - cum_n[block_at]  # non-target mass from the vertex up
    p_miss_v = below_t / tot_t[vseg]
    p_fa_v = above_n / tot_n[vseg]
    p_fa_v[vstart] = 1.0
    p_miss_v[vstart + nb] = 1.0

    # minimum DCF: the vertex after every block whose LLR is below -plo
    k_opt = vstart + np.bincount(seg, weights=llr < thr, minlength=n_cond).astype(np.int64)
    min_dcf = _combine(plo, p_miss_v[k_opt], p_fa_v[k_opt], True)

    # EER: where p_fa - p_miss changes sign (rocch._crossing with r = 1)
    g = p_fa_v - p_miss_v
    k = vstart + np.bincount(vseg, weights=g > 0, minlength=n_cond).astype(np.int64)
    g0, g1 = g[k - 1], g[k]
    a = g0 / (g0 - g1)
    pf = np.where(g1 == 0.0, p_fa_v[k], p_fa_v[k - 1] + a * (p_fa_v[k] - p_fa_v[k - 1]))
    pm = np.where(g1 == 0.0, p_miss_v[k], p_miss_v[k - 1] + a * (p_miss_v[k] - p_miss_v[k - 1]))
    eer = 0.5 * (pf + pm)

    return {"n_tar": count_t.astype(np.int64), "n_non": count_n.astype(np.int64),
            "p_miss": p_miss, "p_fa": p_fa, "act_dcf": act_dcf, "min_dcf": min_dcf,
            "eer": eer, "cllr": cllr, "min_cllr": min_cllr}
