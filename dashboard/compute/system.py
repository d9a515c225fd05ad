"""The results of one loaded system: its raw analyses and, when asked, a calibration trained
on its dev set and applied to dev and eval."""

from __future__ import annotations

from llrlab.core import DataError
from llrlab.core.calibration import fit_calibrator

from .conditions import (
    ConditionSpec,
    all_conditions,
    condition_curves,
    condition_menu,
    pool_notes,
    prepare,
)
from .datasets import bin_edges, hist_range, make_dataset, parallel, transformed
from .results import Results, SystemData

__all__ = ["system_results"]


def system_results(key, data: SystemData, name, *, calibration, train_prior, raw_cache,
                   progress, conditions: ConditionSpec) -> Results:
    """Results of system ``name`` (see :func:`~.build.compute_results`)."""
    sets = {r: t for r, t in (("dev", data.dev), ("eval", data.eval)) if t is not None}
    progress(0.05, "analysing raw scores")
    known = all_conditions(sets.values())
    spec = conditions if len(known) else None
    prepared = parallel(lambda role, t: prepare(raw_cache, t, spec, known), sets)
    raws = {r: p[2] for r, p in prepared.items()}
    cal = None
    if calibration != "none":
        if data.dev is None:
            raise DataError(f"calibration needs a dev set, and system {name!r} has none: "
                            "load a dev set (or choose calibration 'none')")
        progress(0.4, f"training {calibration} calibration on dev")
        # with condition weights, trained on the same weighted dev trials that are shown
        cal = fit_calibrator(prepared["dev"][0], method=calibration, prior=train_prior)
    progress(0.6, "analysing calibrated scores")
    lo, hi = hist_range(raws.values())
    edges = bin_edges(lo, hi)
    same = cal is None or cal.strictly_increasing

    def finish(role, raw):
        t, cw, _, per = prepared[role]
        llr = raw if cal is None else transformed(raw, cal)
        return make_dataset(role, role, raw, llr, edges, same_order=same,
                            conditions=condition_curves(cw, per, cal), trials=t,
                            transform=None if cal is None else cal.apply)

    datasets = parallel(finish, raws)
    mapping = None if cal is None else cal.curve(lo, hi)
    progress(1.0, "done")
    notes = pool_notes(prepared.values()) if spec is not None else []
    return Results(key, datasets, cal, "score" if cal is not None else "score (read as LLR)",
                   mapping, notes=notes, all_conditions=known, condition_spec=spec,
                   condition_menu=condition_menu(sets.values()) if len(known) else None)
