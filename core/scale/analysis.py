"""The analysis of a score set larger than memory, on Dask, equal to :func:`llrlab.core.analyze`.

:func:`analyze_dask` takes a Dask collection of labelled scores and returns a
:class:`DaskAnalysis`: an :class:`~llrlab.core.Analysis` whose sorted scores are replaced by
the reduced structures that came back from the partitions (exact counts at a table of
thresholds, the pooled PAV blocks of the ROC convex hull, a decimated steppy DET curve).

The computation (Dask does all the distributed work; nothing here schedules tasks):

1. *Plan* (one pass over the input partitions): per partition the class counts and weights,
   the Cllr sums (the scores' log-losses, :func:`llrlab.core.cllr.softplus_sum`), the score
   range and a random sample of scores.  Quantiles of the sample split the score range into
   partitions of about ``partition_rows`` trials.
2. *Shuffle*: ``DataFrame.set_index("score", divisions=...)`` moves every trial to the
   partition of its score range and sorts each partition (Dask's disk-based shuffle on the
   local scheduler, its peer-to-peer shuffle on a ``distributed`` cluster; both spill to
   disk).  Tied scores land in one partition.
3. *Summarize* each sorted partition (:func:`llrlab.core.scale._kernel.summarize_part`):
   local PAV hull, counts at the table thresholds inside its range, its 30 extreme scores of
   each class, the kept points of the steppy DET curve.  The sorted partition itself is kept
   (:mod:`llrlab.core.scale._store`: on local disk, or on the cluster's workers) for exact
   counts at thresholds outside the table.
4. *Merge* on the client, in score order: prefix sums of the per-partition counts give
   global counts, the local hulls joined and pooled once more give the global ROCCH.

The table holds the Bayes thresholds of the analysis's ``plo`` grid and of the operating-point
grid of :mod:`llrlab.core.op_grid` (every multiple of ``GRID_STEP`` = 1/512 in ``[-20, 20]``,
the grid the offline report moves on), so that an operating point there is read from the
table; any other operating point costs one binary search per class in the one partition
whose score range holds its threshold.

Everything :class:`~llrlab.core.Analysis` reports follows from these with the in-memory code
(``_act_dcf``, ``_min_dcf``, ``_min_cllr``, ``_eer``, ``_prbep``, ``_dr30``), at any operating
point: the counts are integers and the blocks are those of the in-memory PAV, so unweighted
results are equal to the last bit except Cllr, a sum of 10^9 terms whose per-partition sums
are combined with ``math.fsum`` (relative differences ~1e-15); weighted counts are sums of
the same weights in another order (~1e-15 relative).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from .._repr import summary_repr
from .._validate import as_plo
from ..analysis import DEFAULT_PLO, Analysis
from ..cllr import _LN2, softplus_sum
from ..dcf import _act_dcf, _min_dcf
from ..det import DETCurve, _curve, _rocch_points
from ..errors import DataError
from ..nber import _dr30
from ..op_grid import grid_plo
from ..rocch import ROCCH, _eer, _prbep
from . import _kernel
from ._counts import CountIndex, PartitionHead
from ._dask import compute, dask_modules, scheduler_of, shuffle_method
from ._frame import as_frame
from ._store import DiskStore, WorkerStore, save_part

__all__ = ["DaskAnalysis", "analyze_dask"]

#: Default number of trials per sorted partition (about 64 MiB of float64 scores).
PARTITION_ROWS = 1 << 23
#: Random sample of scores taken from each input partition to place the partition bounds.
SAMPLE_PER_PARTITION = 4096
#: Spacing of the kept steppy-DET points (probit units along the curve).
DET_DELTA = 1e-3


@summary_repr("n_tar", "n_non", "eer", "cllr", "min_cllr", "prbep", "plo", "info")
@dataclass(frozen=True, eq=False)
class DaskAnalysis(Analysis):
    """An :class:`~llrlab.core.Analysis` computed on Dask from sorted partitions.

    Every attribute of ``Analysis`` is present and exact, and so are ``at`` and ``curves``
    at every prior log-odds (``sorted`` is a :class:`~llrlab.core.scale._counts.CountIndex`:
    exact counts at the tabulated thresholds, looked up in the kept score-sorted partitions
    elsewhere).  In addition:

    Attributes
    ----------
    steppy : tuple of ndarray
        ``(p_fa, p_miss)`` of the kept points of the steppy ROC (every point exact,
        spaced about ``DET_DELTA`` apart along the curve in probit units).
    dr30_points : dict
        ``kind -> (fa_point, miss_point)`` as :meth:`Analysis.det_dr30`.
    quantiles : ndarray, shape (2, Q)
        Approximate score quantiles of the targets (row 0) and non-targets (row 1), from the
        planning sample, at ``numpy.linspace(0, 1, Q)`` (for display ranges).
    info : dict
        ``partitions``, ``scheduler``, ``seconds``, ``shuffle`` and ``sorted`` (where the
        sorted partitions are kept, or ``"not kept"``) of the computation.
    """

    steppy: tuple = ()
    dr30_points: dict = field(default_factory=dict)
    quantiles: np.ndarray = field(default_factory=lambda: np.empty((2, 0)))
    info: dict = field(default_factory=dict)

    @property
    def note(self):
        """One line saying how the analysis was computed (for the dashboard and the CLI)."""
        i = self.info
        return (f"computed on Dask ({i.get('scheduler', 'local')} scheduler, "
                f"{i.get('partitions', 0)} sorted partitions, "
                f"{self.n_tar + self.n_non:,} trials): exact")

    def release(self):
        """Delete the kept sorted partitions now (else when the analysis is garbage
        collected); afterwards ``at`` and ``curves`` answer only tabulated operating
        points."""
        self.sorted.release()

    def det(self, kind="steppy", max_points=5000) -> DETCurve:
        """DET curve, steppy (from the kept points) or ROCCH (exact, as in memory)."""
        key = ("det", kind, max_points)
        if key not in self._cache:
            if kind == "steppy":
                c = _curve(self.steppy[0], self.steppy[1], kind, max_points)
                c = DETCurve(c.p_fa, c.p_miss, c.x, c.y, kind, c.tolerance + DET_DELTA)
            elif kind == "rocch":
                pf, pm = _rocch_points(self.rocch, max_points)
                c = _curve(pf, pm, kind, max_points)
            else:
                raise ValueError(f"kind must be 'steppy' or 'rocch', got {kind!r}")
            self._cache[key] = c
        return self._cache[key]

    def det_dr30(self, kind="steppy"):
        if kind not in self.dr30_points:
            raise ValueError(f"kind must be 'steppy' or 'rocch', got {kind!r}")
        return self.dr30_points[kind]

    def quantile(self, q, cls="tar"):
        """Approximate score quantile of a class (from the planning sample)."""
        row = self.quantiles[0 if cls == "tar" else 1]
        return float(np.interp(q, np.linspace(0, 1, row.size), row))


# ------------------------------------------------------------------------------- planning


def _plan_part(pdf, index, seed):
    """Counts, Cllr sums, range and a random sample of one input partition."""
    t0 = time.perf_counter()
    out = _plan_stats(pdf, index, seed)
    out["seconds"] = time.perf_counter() - t0
    return out


def _plan_stats(pdf, index, seed):
    s = pdf["score"].to_numpy(dtype=np.float64)
    lab = pdf["label"].to_numpy(dtype=bool)
    w = pdf["weight"].to_numpy(dtype=np.float64) if "weight" in pdf.columns else None
    out = {"n_tar": int(lab.sum()), "n_non": int(lab.size - lab.sum()), "nan": 0}
    if s.size == 0:
        return out
    nan = np.isnan(s)
    if nan.any():
        out["nan"] = int(nan.sum())
        return out
    if w is not None:
        bad = ~np.isfinite(w) | (w < 0)
        if bad.any():
            out["bad_weight"] = float(w[bad][0])
            return out
    tar, non = s[lab], s[~lab]
    tw = None if w is None else w[lab]
    nw = None if w is None else w[~lab]
    out.update(
        w_tar=float(tar.size) if w is None else math.fsum(tw),
        w_non=float(non.size) if w is None else math.fsum(nw),
        sq_tar=float(tar.size) if w is None else float(np.dot(tw, tw)),
        sq_non=float(non.size) if w is None else float(np.dot(nw, nw)),
        ce_tar=softplus_sum(tar, sign=-1.0, weights=tw) if tar.size else 0.0,
        ce_non=softplus_sum(non, sign=1.0, weights=nw) if non.size else 0.0,
        lo=float(s.min()), hi=float(s.max()))
    rng = np.random.default_rng([seed, index])
    for name, x in (("tar", tar), ("non", non)):
        k = min(x.size, SAMPLE_PER_PARTITION)
        pick = rng.choice(x.size, size=k, replace=False) if k < x.size else slice(None)
        out[f"sample_{name}"] = np.sort(x[pick])
        out[f"rep_{name}"] = x.size / max(k, 1)  # trials each sampled score stands for
    return out


def _weighted_quantiles(values, reps, q):
    order = np.argsort(values, kind="stable")
    v, r = values[order], reps[order]
    cum = np.cumsum(r)
    pos = np.searchsorted(cum, q * cum[-1], side="left")
    return v[np.minimum(pos, v.size - 1)]


@dataclass(frozen=True)
class _Plan:
    n_tar: int
    n_non: int
    w_tar: float
    w_non: float
    sq_tar: float
    sq_non: float
    ce_tar: float
    ce_non: float
    lo: float
    hi: float
    sample: tuple  # (values, reps) per class
    parts: int = 0  # input partitions
    task_seconds: float = 0.0  # summed over the planning tasks


def _plan(frame, scheduler, where):
    dask, _ = dask_modules()
    parts = frame.to_delayed()
    tasks = [dask.delayed(_plan_part)(p, i, 0) for i, p in enumerate(parts)]
    res = compute(tasks, scheduler)
    nan = sum(r["nan"] for r in res)
    if nan:
        raise DataError(f"{where}: {nan} score(s) are NaN; every trial needs a score")
    bad = [r["bad_weight"] for r in res if "bad_weight" in r]
    if bad:
        raise DataError(f"{where}: weights must be finite and >= 0; found {bad[0]!r}")
    n_tar = sum(r["n_tar"] for r in res)
    n_non = sum(r["n_non"] for r in res)
    if n_tar == 0 or n_non == 0:
        what = "target" if n_tar == 0 else "non-target"
        raise DataError(f"{where} has no {what} trials; every measure needs both classes")
    full = [r for r in res if "lo" in r]

    def total(key):
        return math.fsum(r[key] for r in full)

    w_tar, w_non = total("w_tar"), total("w_non")
    if not (w_tar > 0 and w_non > 0):
        raise DataError(f"{where}: the {'target' if not w_tar > 0 else 'non-target'} weights "
                        f"sum to zero: no trial would count")
    sample = []
    for name in ("tar", "non"):
        vals = [r[f"sample_{name}"] for r in full if r[f"sample_{name}"].size]
        reps = [np.full(v.size, r[f"rep_{name}"]) for r, v in
                ((r, r[f"sample_{name}"]) for r in full) if v.size]
        sample.append((np.concatenate(vals), np.concatenate(reps)))
    return _Plan(n_tar, n_non, w_tar, w_non, total("sq_tar"), total("sq_non"),
                 total("ce_tar"), total("ce_non"), min(r["lo"] for r in full),
                 max(r["hi"] for r in full), tuple(sample), len(res),
                 math.fsum(r["seconds"] for r in res))


def _divisions(plan, partition_rows, dtype):
    n = plan.n_tar + plan.n_non
    k = max(1, math.ceil(n / partition_rows))
    values = np.concatenate([plan.sample[0][0], plan.sample[1][0]])
    reps = np.concatenate([plan.sample[0][1], plan.sample[1][1]])
    inner = _weighted_quantiles(values, reps, np.arange(1, k) / k) if k > 1 else np.empty(0)
    inner = np.unique(inner.astype(dtype))
    inner = inner[(inner > plan.lo) & (inner < plan.hi)]
    return [float(x) for x in np.concatenate([[plan.lo], inner, [plan.hi]]).astype(dtype)]


# ------------------------------------------------------------------------------- summaries


def _sorted_part(pdf):
    """The :class:`~._kernel.SortedPart` of one partition of the shuffled frame."""
    s = pdf.index.to_numpy()
    lab = pdf["label"].to_numpy(dtype=bool)
    w = pdf["weight"].to_numpy(dtype=np.float64) if "weight" in pdf.columns else None
    if s.size > 1 and np.any(s[1:] < s[:-1]):  # Dask sorts each partition; be sure
        order = np.argsort(s, kind="stable")
        s, lab = s[order], lab[order]
        w = None if w is None else w[order]
    return _kernel.SortedPart.of(s, lab, w)


def _summary(part, ctx, k):
    t0 = time.perf_counter()
    out = _kernel.summarize_part(part, table=ctx["table"], det_delta=ctx["delta"],
                                 det_offsets=ctx["offsets"][k], totals=ctx["totals"])
    out.extra["seconds"] = time.perf_counter() - t0  # the summary alone (for the bench)
    return out


def _summarize_part(pdf, ctx, k):
    """Local scheduler: sort, keep the sorted part on disk (when asked), summarize."""
    t0 = time.perf_counter()
    part = _sorted_part(pdf)
    store_seconds = 0.0
    if ctx["folder"] is not None:
        t1 = time.perf_counter()
        save_part(ctx["folder"], k, part)
        store_seconds = time.perf_counter() - t1
    out = _summary(part, ctx, k)
    out.extra["seconds"] = time.perf_counter() - t0 - store_seconds
    out.extra["store_seconds"] = store_seconds
    return out


def _summaries(ordered, ctx, scheduler, keep):
    """``(summaries, store)`` of the sorted partitions; the store keeps them (or None)."""
    dask, _ = dask_modules()
    pieces = ordered.to_delayed()
    if scheduler == "threads":
        store = DiskStore.create() if keep else None
        ctx = {**ctx, "folder": None if store is None else store.folder}
        ctx_d = dask.delayed(ctx, pure=True)
        try:
            summaries = compute([dask.delayed(_summarize_part)(p, ctx_d, k)
                                 for k, p in enumerate(pieces)], scheduler)
        except BaseException:
            if store is not None:
                store.release()
            raise
        return summaries, store
    ctx_d = dask.delayed(ctx, pure=True)
    parts = [dask.delayed(_sorted_part)(p) for p in pieces]
    tasks = [dask.delayed(_summary)(p, ctx_d, k) for k, p in enumerate(parts)]
    if not keep:
        summaries = compute(tasks, scheduler)
    else:
        # what a look-up reads of each part (its arrays, not copied) stays on the workers
        kept = [dask.delayed(_kernel.SortedPart.lookup)(p) for p in parts]
        futures = scheduler.compute(kept + tasks)  # one graph: each part is sorted once
        summaries = scheduler.gather(futures[len(kept):])
        for f in futures[len(kept):]:
            f.release()
    for s in summaries:
        s.extra["store_seconds"] = 0.0
    return summaries, (WorkerStore(scheduler, futures[:len(kept)]) if keep else None)


def _offsets(plan, divisions):
    """Estimated target weight below and non-target weight above each partition."""
    d = np.asarray(divisions, dtype=np.float64)
    out = []
    (vt, rt), (vn, rn) = plan.sample
    ot, on = np.argsort(vt), np.argsort(vn)
    ct = np.concatenate([[0.0], np.cumsum(rt[ot])])
    cn = np.concatenate([[0.0], np.cumsum(rn[on])])
    below_t = ct[np.searchsorted(vt[ot], d, side="left")] / ct[-1] * plan.w_tar
    above_n = (cn[-1] - cn[np.searchsorted(vn[on], d, side="left")]) / cn[-1] * plan.w_non
    k = len(divisions) - 1
    for i in range(k):
        out.append((0.0 if i == 0 else below_t[i],
                    0.0 if i == k - 1 else above_n[i + 1]))
    return out


def _det_arrays(summaries, plan, weighted):
    """Global ``(p_fa, p_miss)`` of the kept steppy-ROC points, in threshold order."""
    wt = np.array([s.weight_tar for s in summaries])
    wn = np.array([s.weight_non for s in summaries])
    ct = np.array([s.count_tar for s in summaries])
    cn = np.array([s.count_non for s in summaries])
    pf, pm = [np.array([1.0])], [np.array([0.0])]
    live = [i for i, s in enumerate(summaries) if s.count_tar + s.count_non]
    for j, i in enumerate(live):
        s = summaries[i]
        q = s.det
        if q.tar_c.size == 0:
            continue
        keep = slice(None)
        nxt = live[j + 1] if j + 1 < len(live) else None
        if nxt is not None and summaries[nxt].lo == s.hi:  # the end point splits a tie
            keep = slice(0, -1)
        if weighted:
            below = math.fsum(wt[:i])
            above = math.fsum(wn[i + 1:])
            pm.append((below + q.tar_w[keep]) / plan.w_tar)
            pf.append(np.minimum((above + q.non_w[keep]) / plan.w_non, 1.0))
        else:
            pm.append((int(ct[:i].sum()) + q.tar_c[keep]).astype(np.float64) / plan.n_tar)
            pf.append((int(cn[i + 1:].sum()) + (s.count_non - q.non_c[keep])).astype(
                np.float64) / plan.n_non)
    pf.append(np.array([0.0]))
    pm.append(np.array([1.0]))
    pf, pm = np.concatenate(pf), np.concatenate(pm)
    keep = np.ones(pf.size, dtype=bool)
    keep[1:] = (np.diff(pf) != 0) | (np.diff(pm) != 0)
    return pf[keep], pm[keep]


def _count_at(summaries, t, owner_values, owner_q, mode):
    """Global counts ``(tar_c, non_c, tar_w, non_w_ge)`` at one extreme threshold ``t``.

    ``owner_values(s)`` are the candidate scores of partition ``s`` and ``owner_q(s)`` its
    local counts at them; ``mode`` says how ``t`` derives from the candidate value ``v``
    (``"after"``: ``t = nextafter(v)``; ``"at"``: ``t = v``).
    """
    tc = nc = 0
    tw = nw = 0.0
    v = np.nextafter(t, -np.inf) if mode == "after" else t
    for s in summaries:
        if s.count_tar + s.count_non == 0:
            continue
        if s.hi < t:
            tc, nc, tw = tc + s.count_tar, nc + s.count_non, tw + s.weight_tar
            continue
        if s.lo >= t:
            nw += s.weight_non
            continue
        vals = owner_values(s)
        hit = np.flatnonzero(vals == v)
        b = s.blocks
        if hit.size:
            q = owner_q(s)
            i = int(hit[0])
            tc, nc = tc + int(q.tar_c[i]), nc + int(q.non_c[i])
            tw, nw = tw + float(q.tar_w[i]), nw + float(q.non_w[i])
        elif mode == "after" and s.lo == v:  # starts with a run of ties at v
            tc, nc = tc + int(b["tar_c"][0]), nc + int(b["non_c"][0])
            tw, nw = tw + float(b["tar_w"][0]), nw + (s.weight_non - float(b["non_w"][0]))
        elif mode == "at" and s.hi == v:  # ends with a run of ties at v
            tc, nc = tc + s.count_tar - int(b["tar_c"][-1]), nc + s.count_non - int(
                b["non_c"][-1])
            tw, nw = tw + (s.weight_tar - float(b["tar_w"][-1])), nw + float(b["non_w"][-1])
        else:  # pragma: no cover - sorted partitions overlap only at their ends
            raise AssertionError("partitions overlap")
    return tc, nc, tw, nw


def _extremes(summaries):
    """The 30th lowest target and 30th highest non-target score (NaN when fewer)."""
    low = np.sort(np.concatenate([s.low_tar for s in summaries]))
    high = np.sort(np.concatenate([s.high_non for s in summaries]))
    n = _kernel.N_ERRORS
    v = float(low[n - 1]) if low.size >= n else math.nan
    w = float(high[high.size - n]) if high.size >= n else math.nan
    return v, w


def _dr30_points(idx: CountIndex, blocks, v, w, count_tar, count_non):
    """DR30 points on the DET curves (as ``llrlab.core.det._det_dr30``)."""
    nan = (math.nan, math.nan)
    n = _kernel.N_ERRORS
    out = {}
    fa = miss = nan
    if count_non >= n:
        pm, pf = idx.rates(w)
        fa = (float(pf), float(pm))
    if count_tar >= n:
        pm, pf = idx.rates(np.nextafter(v, np.inf))
        miss = (float(pf), float(pm))
    out["steppy"] = (fa, miss)
    h = ROCCH.from_blocks(blocks)
    fa = miss = nan
    if count_non >= n:
        pf = n / count_non if not idx.weighted else idx.rates(w)[1]
        fa = (float(pf), float(np.interp(pf, h.p_fa[::-1], h.p_miss[::-1])))
    if count_tar >= n:
        pm = n / count_tar if not idx.weighted else idx.rates(np.nextafter(v, np.inf))[0]
        miss = (float(np.interp(pm, h.p_miss, h.p_fa)), float(pm))
    out["rocch"] = (fa, miss)
    return out


# ------------------------------------------------------------------------------- entry


def analyze_dask(data, non=None, *, plo=None, tar_weights=None, non_weights=None,
                 transform=None, client=None, partition_rows=PARTITION_ROWS,
                 keep_sorted=True, source="") -> DaskAnalysis:
    """Analyse a score set larger than memory on Dask: every measure of :func:`analyze`.

    Parameters
    ----------
    data : dask.dataframe.DataFrame, dask.array.Array, ScoreSet or path
        A frame with columns ``score`` (float), ``label`` (bool, True = target) and
        optionally ``weight``; or target scores as a 1-D ``dask.array`` with ``non`` the
        non-target scores; or what :func:`~llrlab.core.scale.open_scores` returns.
    non : dask.array.Array, optional
        Non-target scores when ``data`` holds the target scores.
    plo : array_like, optional
        Prior log-odds grid of ``act`` / ``min`` (default :data:`~llrlab.core.DEFAULT_PLO`);
        its Bayes thresholds are tabulated, as are those of the operating-point grid
        :func:`llrlab.core.op_grid.grid_plo` (multiples of 1/512 in ``[-20, 20]``).
    tar_weights, non_weights : dask.array.Array, optional
        Per-trial weights with the chunks of ``data`` / ``non``.
    transform : callable, optional
        Applied to the scores of every partition before anything else (e.g. a calibrator's
        ``apply``): the analysis is that of ``transform(scores)``.
    client : distributed.Client or str, optional
        A ``dask.distributed`` client, or a scheduler address to connect to; default Dask's
        local threaded scheduler with its disk-based shuffle.
    partition_rows : int
        Trials per sorted partition (memory per task is about 40 bytes per trial).
    keep_sorted : bool, default True
        Keep the score-sorted partitions for exact look-ups at untabulated thresholds: on
        the local scheduler as files in a private folder under Dask's
        ``temporary-directory`` (8 bytes per trial, 16 with weights), on a cluster on its
        workers; deleted with the analysis or by :meth:`DaskAnalysis.release`.  Without
        them, ``at`` and ``curves`` answer the tabulated operating points only (and raise
        :class:`~llrlab.core.scale._counts.NotTabulated` elsewhere).
    source : str
        Name for messages.

    Returns
    -------
    DaskAnalysis

    Notes
    -----
    Exact: counts are integers summed over partitions, and the ROCCH is the hull of the
    partitions' hulls (see :mod:`llrlab.core.scale._kernel`), so EER, PRBEP, minimum and
    actual DCF at every operating point, minimum Cllr and the DR30 markers equal those of
    :func:`analyze`; Cllr is a sum of per-partition sums (``math.fsum``), equal to about
    1e-15 relative, and so are weighted counts.  The steppy DET curve keeps exact ROC
    points about 0.001 apart (probit units), before the decimation for drawing that the
    in-memory curve has too.

    References
    ----------
    Brümmer & de Villiers (2011), sec. 2.6.1 and 3.2 (ROCCH by PAV, minimum DCF); sec. 3.1
    (sort-merge evaluation of many operating points).

    Examples
    --------
    >>> import dask.array as da
    >>> from llrlab.core import analyze
    >>> rng = np.random.default_rng(0)
    >>> tar, non = rng.normal(2, 1, 2000), rng.normal(0, 1, 20000)
    >>> a = analyze_dask(da.from_array(tar, chunks=500), da.from_array(non, chunks=5000),
    ...                  partition_rows=4000)
    >>> a.info["partitions"], a.eer == analyze(tar, non).eer
    (6, True)
    """
    dask_modules()  # a clear message when the scale extra is missing
    t0 = time.perf_counter()
    frame, where = as_frame(data, non, tar_weights, non_weights, source)
    if transform is not None:
        frame = frame.assign(score=frame["score"].map_partitions(
            lambda s: s.__class__(np.asarray(transform(s.to_numpy(dtype=np.float64)),
                                             dtype=np.float64), index=s.index, name="score"),
            meta=("score", "f8")))
    scheduler, sched_name = scheduler_of(client)
    grid = DEFAULT_PLO if plo is None else as_plo(plo)
    plan = _plan(frame, scheduler, where)
    t_plan = time.perf_counter() - t0
    dtype = np.dtype(frame["score"].dtype)
    divisions = _divisions(plan, partition_rows, dtype)
    method = shuffle_method(scheduler)
    if len(divisions) >= 2 and divisions[0] == divisions[-1]:
        divisions = [divisions[0], divisions[0]]
    ordered = frame.set_index("score", divisions=divisions, shuffle_method=method)
    table = np.unique(np.concatenate([-np.ravel(grid), -grid_plo()]))
    ctx = {"table": table, "delta": DET_DELTA, "offsets": _offsets(plan, divisions),
           "totals": (plan.w_tar, plan.w_non)}
    summaries, store = _summaries(ordered, ctx, scheduler, keep_sorted)
    t_sort = time.perf_counter() - t0 - t_plan
    out = _assemble(summaries, plan, grid, table, store, {
        "partitions": len(summaries), "scheduler": sched_name, "shuffle": method,
        "divisions": divisions,
        "sorted": "not kept" if store is None else store.describe()})
    out.info.update(input_partitions=plan.parts, plan_task_seconds=plan.task_seconds,
                    summary_task_seconds=math.fsum(s.extra["seconds"] for s in summaries),
                    store_task_seconds=math.fsum(s.extra["store_seconds"] for s in summaries),
                    plan_seconds=t_plan, sort_seconds=t_sort,
                    merge_seconds=time.perf_counter() - t0 - t_plan - t_sort,
                    seconds=time.perf_counter() - t0)
    return out


def _assemble(summaries, plan, grid, table, store, info) -> DaskAnalysis:
    weighted = not (plan.w_tar == plan.n_tar and plan.w_non == plan.n_non
                    and plan.sq_tar == plan.n_tar and plan.sq_non == plan.n_non)
    n_tar_w = plan.w_tar if weighted else float(plan.n_tar)
    n_non_w = plan.w_non if weighted else float(plan.n_non)
    blocks, bt, bn, _, _ = _kernel.merge_blocks(summaries, n_tar_w, n_non_w)
    tc, nc, tw, nw = _kernel.merge_counts(summaries, table, lambda s: s.table)
    # block boundaries: counts below each block's smallest score
    non_above = np.zeros(blocks.non.size + 1)
    np.cumsum(blocks.non[::-1], out=non_above[-2::-1])
    tar_cum = np.concatenate([[0.0], np.cumsum(blocks.tar)])
    parts = [(table, tc, nc, tw, nw),
             (blocks.lower, bt, bn, tar_cum[:-1], non_above[:-1]),
             (np.array([-np.inf, np.inf]), np.array([0, plan.n_tar]),
              np.array([0, plan.n_non]), np.array([0.0, n_tar_w]), np.array([n_non_w, 0.0]))]
    v, w = _extremes(summaries)
    if np.isfinite(v):
        t = np.nextafter(v, np.inf)
        c = _count_at(summaries, t, lambda s: s.low_tar, lambda s: s.low_tar_q, "after")
        parts.append((np.array([t]), *(np.array([x]) for x in c)))
    if np.isfinite(w):
        c = _count_at(summaries, w, lambda s: s.high_non, lambda s: s.high_non_q, "at")
        parts.append((np.array([w]), *(np.array([x]) for x in c)))
    n_eff = ((n_tar_w ** 2 / plan.sq_tar, n_non_w ** 2 / plan.sq_non) if weighted
             else (float(plan.n_tar), float(plan.n_non)))
    heads = [PartitionHead(k, s.lo, s.hi, s.count_tar, s.count_non, s.weight_tar,
                           s.weight_non)
             for k, s in enumerate(summaries) if s.count_tar + s.count_non]
    idx = CountIndex.build(parts, (plan.n_tar, plan.n_non, n_tar_w, n_non_w), weighted, n_eff,
                           heads=heads, store=store)
    act = _act_dcf(idx, grid)
    mn = _min_dcf(idx, blocks, grid)
    cllr = (plan.ce_tar / n_tar_w + plan.ce_non / n_non_w) / (2 * _LN2)
    q = np.linspace(0, 1, 257)
    quant = np.array([_weighted_quantiles(vv, rr, q) for vv, rr in plan.sample])
    return DaskAnalysis(
        sorted=idx, blocks=blocks, plo=grid, act=act, min=mn, cllr=float(cllr),
        min_cllr=float(_min_cllr_of(blocks)), eer=float(_eer(blocks)),
        prbep=float(_prbep(blocks)), dr30=_dr30(idx, blocks), n_tar=plan.n_tar,
        n_non=plan.n_non, steppy=_det_arrays(summaries, plan, weighted),
        dr30_points=_dr30_points(idx, blocks, v, w, plan.n_tar, plan.n_non),
        quantiles=quant, info=info)


def _min_cllr_of(blocks):
    from ..cllr import _min_cllr

    return _min_cllr(blocks)
