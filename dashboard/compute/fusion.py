"""The results of a linear logistic-regression fusion of every loaded system, trained on their
dev sets (the fused LLRs are then evaluated as one more system)."""

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
from .datasets import bin_edges, hist_range, make_dataset, parallel
from .results import Results

__all__ = ["fusion_results"]


def fusion_results(key, systems, *, train_prior, raw_cache, progress,
                   conditions: ConditionSpec) -> Results:
    """Results of the fusion of ``systems`` (see :func:`~.build.compute_results`)."""
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
    known = all_conditions(fused.values())
    spec = conditions if len(known) else None
    # fused scores are new on every call: their analyses are not kept by identity
    prepared = parallel(lambda role, t: prepare(raw_cache, t, spec, known, cached=False),
                        fused)
    lo, hi = hist_range(p[2] for p in prepared.values())
    edges = bin_edges(lo, hi)

    def finish(role, p):
        t, cw, a, per = p
        return make_dataset(role, f"{role} (fused)", a, a, edges,
                            conditions=condition_curves(cw, per, None), trials=t)

    datasets = parallel(finish, prepared)
    progress(1.0, "done")
    note = f"linear fusion of {len(names)} systems: " + ", ".join(names)
    if spec is not None:
        note += " (trained on unweighted dev trials; the condition weights apply to the scores)"
    notes = [note, *(pool_notes(prepared.values()) if spec is not None else [])]
    return Results(key, datasets, cal, "fused LLR", None, notes=notes, all_conditions=known,
                   condition_spec=spec,
                   condition_menu=condition_menu(fused.values()) if len(known) else None)
