"""The dashboard on score sets larger than memory: results computed on Dask.

``llrlab serve --dask [SCHEDULER] FILES`` loads each FILE lazily as a
:class:`llrlab.core.scale.ScoreSet` (Parquet, or HDF5 scores with their key) instead of
in-memory :class:`~llrlab.core.Trials`.  :func:`llrlab.dashboard.compute.compute_results`
hands such systems to :func:`scaled_results`, which analyses each set once with
:func:`llrlab.core.scale.analyze_dask` and builds the same
:class:`~llrlab.dashboard.Results` the views draw: the
:class:`~llrlab.core.scale.DaskAnalysis` objects answer ``at``, ``curves``, ``det`` and
``det_dr30`` exactly, from their reduced structures (the operating points of the report's
grid, :mod:`llrlab.core.op_grid`, are tabulated) and otherwise by one binary search in the
kept score-sorted partition that holds the threshold; the histograms are counted the same
way, at their bin edges.  A note says the results were computed on Dask.

Calibration (affine on a sample, PAV on all trials: :mod:`llrlab.core.scale.calibration`)
and condition weighting (:func:`llrlab.core.scale.condition_weights_dask`) are supported;
fusion, per-condition curves and the bootstrap need the trials in memory and are refused
with a message.  This module imports neither Panel nor Bokeh.
"""

from __future__ import annotations

import threading

import numpy as np

from llrlab.core import DataError

from .compute import HIST_BINS, ConditionSpec, DatasetResult, Results
from .compute.datasets import _pick_points, histogram

__all__ = ["configure", "holds_scaled", "load_scaled", "scaled_results"]

_SCHEDULER = {"name": None, "client": None}
_LOCK = threading.Lock()


def configure(scheduler, *, connect=False):
    """Use ``scheduler`` ("local", or a dask.distributed address) for every session; with
    ``connect``, connect to an address now (raises :class:`~llrlab.core.DataError` when it
    is not a Dask scheduler)."""
    _SCHEDULER["name"] = None if scheduler in (None, "local") else scheduler
    _SCHEDULER["client"] = None
    if connect:
        _client()


def _client():
    with _LOCK:
        if _SCHEDULER["name"] is not None and _SCHEDULER["client"] is None:
            from llrlab.core.scale._dask import connect

            _SCHEDULER["client"] = connect(_SCHEDULER["name"])
        return _SCHEDULER["client"]


def holds_scaled(systems):
    """True when a loaded set is an out-of-core :class:`~llrlab.core.scale.ScoreSet`."""
    from llrlab.core.scale import ScoreSet

    return any(isinstance(t, ScoreSet) for s in systems.values() for t in (s.dev, s.eval))


def load_scaled(scores, key, progress):
    """The loader of ``llrlab serve --dask``: a lazy ScoreSet (its size counted now, in the
    loading thread)."""
    import os

    from llrlab.core.scale import open_scores

    from .app import READ_OPTIONS, read_options

    progress(0.1, "")
    with read_options(**READ_OPTIONS):  # --distance, --llr-unit, --columns of llrlab serve
        s = open_scores(scores, key)
    s = s.with_frame(s.frame, os.path.basename(os.fspath(scores)))
    len(s)
    progress(1.0, "")
    return s


def _analysis(cache, data, transform_key, transform, progress, what):
    key = (id(data), "dask", transform_key)
    hit = cache.get(key)
    if hit is not None and hit[0] is data:
        return hit[1]
    from llrlab.core.scale import analyze_dask

    progress(0.2, f"computing {what} on Dask")
    a = analyze_dask(data, transform=transform, client=_client())
    cache[key] = (data, a)
    return a


def _pooled(cache, data, spec: ConditionSpec):
    """``(set with condition weights, names of its conditions)``: the set itself and no
    names without conditions (cached per set and specification)."""
    if not data.has_conditions:
        return data, ()
    from llrlab.core.conditions import parse_condition_weights
    from llrlab.core.scale import condition_weights_dask

    spec = spec or ConditionSpec()
    if spec.select is not None and not spec.select:
        raise DataError("select at least one condition to pool")
    key = (id(data), "dask-pool", spec)
    hit = cache.get(key)
    if hit is not None and hit[0] is data:
        return hit[1]
    weights = spec.weights
    if weights == "custom":
        if not spec.text.strip():
            raise DataError("custom condition weights are empty: write them as NAME=W, "
                            "e.g. 'tel=2, mic=1'")
        weights = parse_condition_weights(spec.text)
    cw = condition_weights_dask(data, weights, select=spec.select, client=_client())
    out = (cw.scores, tuple(cw.conditions.tolist()))
    cache[key] = (data, out)
    return out


def _hist(analyses):
    lo = min(a.quantile(0.001, c) for a in analyses for c in ("tar", "non"))
    hi = max(a.quantile(0.999, c) for a in analyses for c in ("tar", "non"))
    if not hi > lo:
        lo, hi = lo - 0.5, hi + 0.5
    pad = 0.04 * (hi - lo)
    return np.linspace(lo - pad, hi + pad, HIST_BINS + 1)


def scaled_results(key, *, systems, system, fusion=False, calibration="none",
                   train_prior=0.5, conditions=None, raw_cache=None, progress=None):
    """:class:`~llrlab.dashboard.Results` of out-of-core sets (see the module
    docstring); the arguments are those of ``compute_results``."""
    from llrlab.core.scale import fit_calibrator_dask

    cache = {} if raw_cache is None else raw_cache
    if progress is None:
        def progress(fraction, message=""):
            return None
    if fusion:
        raise DataError("fusion needs the trials in memory; it is not available for sets "
                        "computed on Dask")
    if system not in systems:
        system = next(iter(systems))
    data = systems[system]
    sets = {r: t for r, t in (("dev", data.dev), ("eval", data.eval)) if t is not None}
    progress(0.05, "counting the conditions on Dask")
    pools = {r: _pooled(cache, t, conditions) for r, t in sets.items()}
    pooled = {r: p[0] for r, p in pools.items()}
    known = tuple(sorted({c for p in pools.values() for c in p[1]}))
    raws = {r: _analysis(cache, t, None, None, progress, f"the {r} set")
            for r, t in pooled.items()}
    cal = None
    if calibration != "none":
        if "dev" not in pooled:
            raise DataError(f"calibration needs a dev set, and system {system!r} has none: "
                            "load a dev set (or choose calibration 'none')")
        progress(0.5, f"training {calibration} calibration on dev (Dask)")
        ck = (id(pooled["dev"]), "dask-cal", calibration, round(train_prior, 12))
        hit = cache.get(ck)
        if hit is not None and hit[0] is pooled["dev"]:
            cal = hit[1]
        else:
            cal = fit_calibrator_dask(pooled["dev"], method=calibration, prior=train_prior,
                                      client=_client())
            cache[ck] = (pooled["dev"], cal)
    edges = _hist(raws.values())
    same = cal is None or cal.strictly_increasing
    datasets = {}
    for role, raw in raws.items():
        llr = raw if cal is None else _analysis(
            cache, pooled[role], (calibration, round(train_prior, 12)), cal.apply, progress,
            f"the calibrated {role} set")
        px, py, pp = _pick_points(llr)
        datasets[role] = DatasetResult(role, role, raw, llr, histogram(raw, edges), px, py,
                                       pp, same).warm()
    lo, hi = float(edges[0]), float(edges[-1])
    mapping = None if cal is None else cal.curve(lo, hi)
    notes = [next(iter(raws.values())).note]
    if cal is not None:
        notes.append("calibration: " + "; ".join(cal.training.notes))
    progress(1.0, "done")
    return Results(key, datasets, cal,
                           "score" if cal is not None else "score (read as LLR)", mapping,
                           notes=notes, all_conditions=known,
                           condition_spec=(conditions or ConditionSpec()) if known
                           else None,
                           condition_menu=_menu(known) if known else None)


def _menu(known):
    """The conditions the page offers for a set on Dask: by name (their numbers of trials
    are not gathered), the first :data:`MAX_LISTED` and one entry for the others."""
    from .compute.conditions import MAX_LISTED, ConditionMenu, others_label

    if len(known) <= MAX_LISTED:
        return ConditionMenu(tuple(known))
    listed = tuple(known[:MAX_LISTED])
    return ConditionMenu(listed, len(known) - MAX_LISTED, 0,
                         others_label(len(known) - MAX_LISTED, listed))
