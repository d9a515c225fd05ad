"""The dashboard's heavy results: everything drawn, computed from llrlab.core only.

This module imports neither Panel nor Bokeh.  :func:`compute_results` turns the loaded data
and the calibration choice into a frozen :class:`Results` (one :class:`DatasetResult` per
dev / eval set); it is the only place where the dashboard sorts scores, through
:func:`llrlab.core.analyze`, or trains a calibration.  Everything the plots need when the
operating point moves is then a look-up (:meth:`llrlab.core.Analysis.at`).

Numbers come from ``llrlab.core``; this module only bins the sorted scores for histograms,
samples the calibration map for its plot and picks display ranges.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from llrlab.core import (
    Analysis,
    DataError,
    GaussianModel,
    Trials,
    analyze,
    analyze_transformed,
    gaussian_trials,
    probit,
)
from llrlab.core.calibration import Calibrator, fit_calibrator
from llrlab.core.conditions import condition_weights, parse_condition_weights
from llrlab.core.uncertainty import bootstrap_ci, operating_point_ci

__all__ = [
    "CI_METHODS",
    "DET_POINTS",
    "HIST_BINS",
    "MAX_CONDITIONS",
    "ConditionCurve",
    "ConditionSpec",
    "DatasetResult",
    "Histogram",
    "Results",
    "SystemData",
    "TeachingSpec",
    "bootstrap",
    "compute_results",
    "op_interval",
]

#: Largest number of points sent to the browser per DET curve.
DET_POINTS = 4000
#: Number of histogram bins.
HIST_BINS = 80
#: Prior log-odds grid used to map a click on the DET plot to an operating point.
_PICK_PLO = np.linspace(-20.0, 20.0, 4001)
_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="llrlab-compute")
#: Conditions drawn as separate curves (the pool may have more; the rest are not drawn).
MAX_CONDITIONS = 10
#: Interval methods of the UI -> ``llrlab.core.uncertainty`` method names.
CI_METHODS = {"normal": "normal", "wilson": "wilson", "exact": "clopper-pearson"}
#: Reference miscalibrations drawn in teaching mode (seed 000 figure 1): (label, scale, shift).
TEACHING_REFERENCES = (("2 × LLR", 2.0, 0.0), ("0.5 × LLR", 0.5, 0.0),
                       ("LLR + 2", 1.0, 2.0), ("LLR − 2", 1.0, -2.0))


@dataclass(frozen=True, eq=False)
class SystemData:
    """The trials of one system: a dev set (to train calibration) and an eval set."""

    dev: Trials | None = None
    eval: Trials | None = None

    def replace(self, role, trials):
        return SystemData(**{"dev": self.dev, "eval": self.eval, role: trials})


@dataclass(frozen=True)
class TeachingSpec:
    """Parameters of the synthetic Gaussian data of teaching mode (seed 000 figure 1)."""

    mu_tar: float = 3.0
    sigma_tar: float = 2.0
    mu_non: float = 0.0
    sigma_non: float = 1.0
    n_tar: int = 10_000
    n_non: int = 100_000
    seed: int = 0
    scale: float = 1.0
    shift: float = 0.0


@dataclass(frozen=True)
class ConditionSpec:
    """How the conditions of the trials are pooled (seed 001; part of the cache key).

    ``weights``: ``"pooled"`` (every trial counts once), ``"equal"`` (every condition counts
    ``1/C``) or ``"custom"`` with ``text`` such as ``"tel=2, mic=1"`` (read by
    :func:`llrlab.core.conditions.parse_condition_weights`; conditions outside the selection
    or absent from a set are ignored).  ``select``: the pooled conditions, None for all.
    """

    weights: str = "pooled"
    text: str = ""
    select: tuple | None = None


@dataclass(frozen=True, eq=False)
class ConditionCurve:
    """One condition of a dataset: its weight in the pool and the analysis of its trials
    alone (the LLRs that are evaluated, calibrated like the pool)."""

    name: str
    w_tar: float
    w_non: float
    llr: Analysis

    def det(self, kind):
        return self.llr.det(kind, max_points=DET_POINTS)


@dataclass(frozen=True, eq=False)
class Histogram:
    """Per-class densities of scores on common bins.

    ``edges`` has shape (B + 1,); ``tar`` and ``non`` shape (B,): the fraction of the class's
    trials in each bin divided by the bin width (so each class integrates to at most 1; trials
    outside the edges are not drawn).
    """

    edges: np.ndarray
    tar: np.ndarray
    non: np.ndarray


@dataclass(frozen=True, eq=False)
class DatasetResult:
    """Everything drawn for one dataset (dev, eval, or the true LLR of teaching mode).

    Attributes
    ----------
    role : str
        ``"dev"``, ``"eval"`` or ``"true"``.
    label : str
        Legend text.
    raw : Analysis
        Analysis of the scores before calibration (the histogram domain).
    llr : Analysis
        Analysis of the LLRs that are evaluated (calibrated, fused, or the raw scores).
    hist : Histogram or None
    pick_x, pick_y, pick_plo : ndarray
        Probit coordinates of the minimum-DCF point for a grid of prior log-odds, one entry per
        distinct ROCCH vertex, with the middle of the plo range where that vertex is optimal:
        maps a click on the DET plot to an operating point.
    same_order : bool
        The LLRs are in the order of the raw scores (DET curves of ``raw``).
    conditions : tuple of ConditionCurve
        The pooled conditions (at most :data:`MAX_CONDITIONS`), when the trials have them.
    trials, transform
        The pooled trials in the histogram domain (with the condition weights) and the
        calibration applied to them (None: their scores are the LLRs); see
        :meth:`llr_trials`.
    """

    role: str
    label: str
    raw: Analysis
    llr: Analysis
    hist: Histogram | None = None
    pick_x: np.ndarray = field(default_factory=lambda: np.empty(0))
    pick_y: np.ndarray = field(default_factory=lambda: np.empty(0))
    pick_plo: np.ndarray = field(default_factory=lambda: np.empty(0))
    same_order: bool = False
    conditions: tuple = ()
    trials: Trials | None = None
    transform: object = None

    def llr_trials(self) -> Trials | None:
        """The evaluated trials with their LLRs as scores (and the pool's weights), for the
        bootstrap; None when the dataset has no trials of its own."""
        if self.trials is None:
            return None
        if self.transform is None:
            return self.trials
        return self.trials.with_scores(self.transform(self.trials.scores))

    @property
    def _ordered(self):
        # DET curves depend on the order of the scores only: under a strictly increasing
        # map (affine calibration with a positive scale) they are those of the raw scores.
        return self.raw if self.same_order else self.llr

    def det(self, kind):
        return self._ordered.det(kind, max_points=DET_POINTS)

    def det_dr30(self, kind):
        return self._ordered.det_dr30(kind)

    def warm(self):
        """Compute the (cached) DET curves now, in the worker thread, not while drawing."""
        for kind in ("steppy", "rocch"):
            self.det(kind)
            self.det_dr30(kind)
        for c in self.conditions:
            c.det("rocch")
        return self


@dataclass(frozen=True, eq=False)
class Results:
    """The heavy, cached part of the dashboard for one (data, calibration) choice.

    Attributes
    ----------
    key : tuple
        The cache key.
    datasets : dict of str to DatasetResult
        In display order (``dev``, ``eval``, then ``true`` in teaching mode).
    calibration : llrlab.core.calibration.Calibrator or None
        The trained calibration or fusion (None when uncalibrated).
    score_label : str
        Axis label of the histogram domain.
    mapping : tuple of ndarray or None
        ``(scores, llrs)``: the calibration map sampled over the histogram range.
    references : list of (str, ndarray, ndarray)
        Teaching mode: ``(label, plo_grid_is_nber, act_dcf)`` curves are computed on demand;
        here ``(label, Analysis)`` pairs of the reference miscalibrations.
    notes : list of str
        Things the user should know (e.g. what fusion used).
    teaching : bool
    all_conditions : tuple of str
        Every condition of the shown data (empty when the trials carry none).
    condition_spec : ConditionSpec or None
        How they were pooled (None without conditions).
    """

    key: tuple
    datasets: dict
    calibration: Calibrator | None = None
    score_label: str = "score"
    mapping: tuple | None = None
    references: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    teaching: bool = False
    all_conditions: tuple = ()
    condition_spec: ConditionSpec | None = None

    @property
    def primary(self) -> DatasetResult | None:
        """The dataset that decides DR30 shading and DET clicks: eval if loaded, else dev."""
        for role in ("eval", "dev"):
            if role in self.datasets:
                return self.datasets[role]
        return None

    def threshold_score(self, plo):
        """Score whose LLR is the Bayes threshold ``-plo`` (histogram domain).

        Uncalibrated scores are read as LLRs, so the threshold is ``-plo``; with a
        calibration it is the inverse of its exact piecewise-linear map (clipped to its
        range).
        """
        if self.mapping is None:
            return -float(plo)
        s, llr = self.mapping
        if llr[-1] < llr[0]:  # a decreasing map (negative affine scale)
            s, llr = s[::-1], llr[::-1]
        return float(np.interp(-float(plo), llr, s))

    def plo_of_score(self, score):
        """Prior log-odds whose Bayes threshold falls at ``score`` (histogram domain)."""
        if self.mapping is None or self.calibration is None:
            return -float(score)
        return -float(self.calibration.apply(np.array([float(score)]))[0])


# ----------------------------------------------------------------------------------------
# pieces


def _quantile_sorted(a, q):
    return float(a[min(int(q * (a.size - 1)), a.size - 1)])


def hist_range(analyses):
    """Display range of the scores: 0.1 % to 99.9 % quantiles over both classes, padded."""
    lo, hi = np.inf, -np.inf
    for a in analyses:
        for x in (a.sorted.tar, a.sorted.non):
            if x.size:
                lo = min(lo, _quantile_sorted(x, 0.001))
                hi = max(hi, _quantile_sorted(x, 0.999))
    if not np.isfinite(lo) or not np.isfinite(hi):
        return -1.0, 1.0
    if hi <= lo:
        lo, hi = lo - 0.5, hi + 0.5
    pad = 0.04 * (hi - lo)
    return lo - pad, hi + pad


def histogram(a: Analysis, edges) -> Histogram:
    """Class densities on ``edges`` from the sorted scores of an analysis (binary searches);
    with trial weights (a condition-weighted pool) each trial counts by its weight."""
    s = a.sorted
    width = np.diff(edges)

    def dens(below, total):
        if not total > 0:
            return np.zeros(edges.size - 1)
        return np.diff(below(edges)) / (total * width)

    return Histogram(edges, dens(s.tar_below, s.n_tar), dens(s.non_below, s.n_non))


def _pick_points(a: Analysis):
    """Min-DCF points on the DET plot for a fine plo grid, one per ROCCH vertex."""
    _, mn = a.curves(_PICK_PLO)
    x, y = probit(mn.p_fa), probit(mn.p_miss)
    change = np.flatnonzero((np.diff(x) != 0) | (np.diff(y) != 0)) + 1
    starts = np.concatenate([[0], change])
    ends = np.concatenate([change, [x.size]]) - 1
    mid = 0.5 * (_PICK_PLO[starts] + _PICK_PLO[ends])
    return x[starts], y[starts], mid


def _dataset(role, label, raw, llr, edges, same_order=False, *, conditions=(), trials=None,
             transform=None):
    px, py, pp = _pick_points(llr)
    return DatasetResult(role, label, raw, llr,
                         None if edges is None else histogram(raw, edges), px, py, pp,
                         same_order, tuple(conditions), trials, transform).warm()


def _parallel(fn, items):
    """``{key: fn(key, value)}`` over a dict, two at a time (numpy releases the GIL)."""
    items = list(items.items())
    if len(items) < 2:
        return {k: fn(k, v) for k, v in items}
    futures = {k: _POOL.submit(fn, k, v) for k, v in items}
    return {k: f.result() for k, f in futures.items()}


def _raw(cache, trials):
    """Analysis of a Trials' raw scores, cached by object identity."""
    key = id(trials)
    hit = cache.get(key)
    if hit is not None and hit[0] is trials:
        return hit[1]
    a = analyze(trials)
    cache[key] = (trials, a)
    return a


#: Condition pools kept in the raw cache (each holds a weighted copy and its analysis).
_POOLS_KEPT = 4
_MEMO_LOCK = threading.Lock()


def _memo(cache, trials, key, fn):
    """``fn()`` cached under ``(id(trials), *key)`` while ``trials`` is alive (the state drops
    the entries of Trials it no longer holds)."""
    k = (id(trials), *key)
    hit = cache.get(k)
    if hit is not None and hit[0] is trials:
        return hit[1]
    value = fn()
    with _MEMO_LOCK:  # two datasets are prepared in parallel threads
        cache[k] = (trials, value)
        if key[0] == "pool":
            pools = [c for c in list(cache) if isinstance(c, tuple) and c[1] == "pool"]
            for old in pools[:-_POOLS_KEPT]:
                cache.pop(old, None)
    return value


def _spec_weights(spec: ConditionSpec, chosen, known):
    """What :func:`condition_weights` takes for one set: custom weights limited to the
    conditions it pools (names no set has are passed on, so that the core names them)."""
    if spec.weights != "custom":
        return spec.weights
    if not spec.text.strip():
        raise DataError("custom condition weights are empty: write them as NAME=W, "
                        "e.g. 'tel=2, mic=1'")
    w = parse_condition_weights(spec.text)
    if isinstance(w, str):
        return w
    return {k: v for k, v in w.items() if k in chosen or k not in known}


def _pooled(cache, trials, spec: ConditionSpec, known):
    """``(ConditionWeights, raw Analysis of the pool, [(name, raw Analysis)])`` of one set."""
    names, inv = trials.condition_index()
    if spec.select is not None and not spec.select:
        raise DataError("select at least one condition to pool")
    if spec.select is None:
        select, chosen = None, set(names.tolist())
    else:
        chosen = set(spec.select) & set(names.tolist())
        if not chosen:
            raise DataError(f"{trials.source or 'a data set'} has none of the selected "
                            f"conditions ({', '.join(spec.select)})")
        select = sorted(chosen)
    weights = _spec_weights(spec, chosen, known)
    wkey = tuple(sorted(weights.items())) if isinstance(weights, dict) else weights

    def pool():
        cw = condition_weights(trials, weights, select=select)
        a = _raw(cache, trials) if cw.trials is trials else analyze(cw.trials)
        return cw, a

    cw, a = _memo(cache, trials, ("pool", wkey, None if select is None else tuple(select)),
                  pool)
    per = []
    for name in cw.conditions.tolist()[:MAX_CONDITIONS]:
        k = int(np.searchsorted(names, name))
        per.append((name, _memo(cache, trials, ("condition", name),
                                lambda k=k: analyze(trials.subset(inv == k)))))
    return cw, a, per


def _curves(cw, per, cal):
    """ConditionCurves of the pooled conditions, calibrated like the pool."""
    out = []
    for k, (name, raw) in enumerate(per):
        llr = raw if cal is None else _transformed(raw, cal)
        out.append(ConditionCurve(name, float(cw.w_tar[k]), float(cw.w_non[k]), llr))
    return out


def _all_conditions(cache, sets):
    names = set()
    for t in sets:
        if t is not None and t.conditions is not None:
            names.update(t.condition_index()[0].tolist())
    return tuple(sorted(names))


def _pool_note(cws):
    shown = {c for cw in cws for c in cw.conditions.tolist()}
    if len(shown) > MAX_CONDITIONS:
        return [f"{len(shown)} conditions are pooled; curves are drawn for the first "
                f"{MAX_CONDITIONS}"]
    return []


def _transformed(raw: Analysis, cal) -> Analysis:
    """Analysis of calibrated scores: reuses the sort when the map is monotone."""
    if cal.monotone:
        try:
            return analyze_transformed(raw, cal.apply)
        except ValueError:
            pass
    s = raw.sorted
    return analyze(cal.apply(s.tar), cal.apply(s.non))


# ----------------------------------------------------------------------------------------
# the entry point


def compute_results(key, *, systems=None, system=None, fusion=False, calibration="none",
                    train_prior=0.5, teaching=None, conditions=None, raw_cache=None,
                    progress=None) -> Results:
    """Compute the heavy results for one choice of data and calibration.

    Parameters
    ----------
    key : tuple
        Stored in the result (the caller's cache key).
    systems : dict of str to SystemData
    system : str
        The system shown when ``fusion`` is off.
    fusion : bool
        Fuse all systems (linear logistic regression trained on dev).
    calibration : {"none", "affine", "pav"}
    train_prior : float
        Training prior of the calibration / fusion.
    teaching : TeachingSpec or None
        When given, synthetic Gaussian data replace the loaded systems.
    conditions : ConditionSpec, optional
        How the conditions are pooled, when the trials carry conditions (default: every
        trial counts once, all conditions).  The calibration (not the fusion) is trained
        on the dev trials weighted the same way.
    raw_cache : dict, optional
        Cache of raw analyses (by Trials identity) shared between calls.
    progress : callable, optional
        ``progress(fraction, message)``.

    Raises
    ------
    llrlab.core.LlrlabError
        When the data cannot support the request (e.g. calibration without a dev set).
    """
    raw_cache = {} if raw_cache is None else raw_cache
    if progress is None:
        def progress(fraction, message=""):
            return None
    if teaching is not None:
        return _teaching_results(key, teaching, calibration, train_prior, progress)
    systems = systems or {}
    if not systems:
        return Results(key, {})
    from .scaled import holds_scaled, scaled_results  # sets larger than memory, on Dask

    if holds_scaled(systems):
        return scaled_results(key, systems=systems, system=system, fusion=fusion,
                              calibration=calibration, train_prior=train_prior,
                              conditions=conditions, raw_cache=raw_cache, progress=progress)
    conditions = conditions or ConditionSpec()
    if fusion:
        return _fusion_results(key, systems, train_prior, raw_cache, progress, conditions)
    if system not in systems:
        system = next(iter(systems))
    data: SystemData = systems[system]
    sets = {r: t for r, t in (("dev", data.dev), ("eval", data.eval)) if t is not None}
    progress(0.05, "analysing raw scores")
    known = _all_conditions(raw_cache, sets.values())
    spec = conditions if known else None

    def prepare(role, t):
        if spec is None or t.conditions is None:
            return t, None, _raw(raw_cache, t), []
        cw, a, per = _pooled(raw_cache, t, spec, known)
        return cw.trials, cw, a, per

    prepared = _parallel(prepare, sets)
    raws = {r: p[2] for r, p in prepared.items()}
    cal = None
    if calibration != "none":
        if data.dev is None:
            raise DataError(f"calibration needs a dev set, and system {system!r} has none: "
                            "load a dev set (or choose calibration 'none')")
        progress(0.4, f"training {calibration} calibration on dev")
        # with condition weights, trained on the same weighted dev trials that are shown
        cal = fit_calibrator(prepared["dev"][0], method=calibration, prior=train_prior)
    progress(0.6, "analysing calibrated scores")
    lo, hi = hist_range(raws.values())
    edges = np.linspace(lo, hi, HIST_BINS + 1)
    same = cal is None or cal.strictly_increasing

    def finish(role, raw):
        t, cw, _, per = prepared[role]
        llr = raw if cal is None else _transformed(raw, cal)
        return _dataset(role, role, raw, llr, edges, same_order=same,
                        conditions=_curves(cw, per, cal) if cw is not None else (),
                        trials=t, transform=None if cal is None else cal.apply)

    datasets = _parallel(finish, raws)
    mapping = None if cal is None else cal.curve(lo, hi)
    progress(1.0, "done")
    cws = [p[1] for p in prepared.values() if p[1] is not None]
    notes = _pool_note(cws) if spec is not None else []
    return Results(key, datasets, cal, "score" if cal is not None else "score (read as LLR)",
                   mapping, notes=notes, all_conditions=known, condition_spec=spec)


def _fusion_results(key, systems, train_prior, raw_cache, progress, conditions):
    names = list(systems)
    if len(names) < 2:
        raise DataError("fusion needs at least two systems; load another system or turn "
                        "fusion off")
    missing = [n for n in names if systems[n].dev is None]
    if missing:
        raise DataError(f"fusion is trained on dev sets, and {', '.join(missing)} "
                        "has none")
    progress(0.2, "training linear fusion on dev")
    cal = fit_calibrator([systems[n].dev for n in names], method="fusion", prior=train_prior)
    fused = {}
    for role in ("dev", "eval"):
        sets = [getattr(systems[n], role) for n in names]
        if any(t is None for t in sets):
            continue
        progress(0.5 if role == "dev" else 0.75, f"fusing {role}")
        fused[role] = cal.apply_systems(sets)
    if not fused:
        return Results(key, {})
    known = _all_conditions(raw_cache, fused.values())
    spec = conditions if known else None

    def prepare(role, t):
        if spec is None or t.conditions is None:
            return t, None, analyze(t), []
        cw, a, per = _pooled(raw_cache, t, spec, known)
        return cw.trials, cw, a, per

    prepared = _parallel(prepare, fused)
    lo, hi = hist_range(p[2] for p in prepared.values())
    edges = np.linspace(lo, hi, HIST_BINS + 1)

    def finish(role, p):
        t, cw, a, per = p
        return _dataset(role, f"{role} (fused)", a, a, edges,
                        conditions=_curves(cw, per, None) if cw is not None else (),
                        trials=t)

    datasets = _parallel(finish, prepared)
    progress(1.0, "done")
    note = f"linear fusion of {len(names)} systems: " + ", ".join(names)
    if spec is not None:
        note += " (trained on unweighted dev trials; the condition weights apply to the scores)"
    cws = [p[1] for p in prepared.values() if p[1] is not None]
    notes = [note, *(_pool_note(cws) if spec is not None else [])]
    return Results(key, datasets, cal, "fused LLR", None, notes=notes, all_conditions=known,
                   condition_spec=spec)


def _teaching_results(key, spec: TeachingSpec, calibration, train_prior, progress):
    model = GaussianModel(spec.mu_tar, spec.sigma_tar, spec.mu_non, spec.sigma_non)
    progress(0.1, "sampling synthetic scores")
    common = dict(model=model, scale=spec.scale, shift=spec.shift)
    dev = gaussian_trials(spec.n_tar, spec.n_non, seed=spec.seed + 1, **common)
    ev = gaussian_trials(spec.n_tar, spec.n_non, seed=spec.seed, **common)
    true = gaussian_trials(spec.n_tar, spec.n_non, model=model, seed=spec.seed)
    raw = {"dev": analyze(dev), "eval": analyze(ev)}
    true_a = analyze(true)
    cal = None
    if calibration != "none":
        cal = fit_calibrator(dev, method=calibration, prior=train_prior)
    llrs = {r: (a if cal is None else _transformed(a, cal)) for r, a in raw.items()}
    lo, hi = hist_range([*raw.values(), true_a])
    edges = np.linspace(lo, hi, HIST_BINS + 1)
    miscal = f"{spec.scale:g} × LLR {'+' if spec.shift >= 0 else '−'} {abs(spec.shift):g}"
    same = cal is None or cal.strictly_increasing
    apply = None if cal is None else cal.apply
    datasets = {
        "dev": _dataset("dev", f"dev: {miscal}", raw["dev"], llrs["dev"], edges, same,
                        trials=dev, transform=apply),
        "eval": _dataset("eval", f"eval: {miscal}", raw["eval"], llrs["eval"], edges, same,
                         trials=ev, transform=apply),
        "true": _dataset("true", "true LLR (eval)", true_a, true_a, edges, trials=true),
    }
    refs = [(label, analyze_transformed(true_a, _affine(a, b)))
            for label, a, b in TEACHING_REFERENCES]
    mapping = None if cal is None else cal.curve(lo, hi)
    progress(1.0, "done")
    return Results(key, datasets, cal, "system output (miscalibrated LLR)", mapping,
                   references=refs, teaching=True)


def _affine(a, b):
    def f(x):
        return a * x + b
    return f


# ----------------------------------------------------------------------------------------
# uncertainty


def op_interval(a: Analysis, plo, *, method="wilson", confidence=0.95):
    """Binomial intervals of Pmiss, Pfa and the actual DCF of ``a`` at ``plo``
    (:func:`llrlab.core.uncertainty.operating_point_ci`; ``method`` as in
    :data:`CI_METHODS`).  With condition weights the core uses Kish's effective numbers of
    trials."""
    return operating_point_ci(a, plo=float(plo), confidence=confidence,
                              method=CI_METHODS[method])


def bootstrap(d: DatasetResult, plo, *, n_boot=200, confidence=0.95, by="trial", seed=0):
    """Bootstrap intervals of Cllr, min/act DCF at ``plo`` and EER of one dataset's LLRs
    (:func:`llrlab.core.uncertainty.bootstrap_ci`; ``by`` "trial" or "speaker"); the
    condition weights of the pool, if any, weight every replicate."""
    t = d.llr_trials()
    if t is None:
        raise DataError(f"{d.label}: no trials to resample")
    return bootstrap_ci(t, plo=float(plo), n_boot=int(n_boot), confidence=confidence, by=by,
                        seed=seed)
