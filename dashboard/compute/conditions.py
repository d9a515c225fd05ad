"""Condition-weighted pooling of a dataset (van Leeuwen 2008, eq. 12): the pool, its weights
and the per-condition analyses, cached while their trials are loaded.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from llrlab.core import DataError, analyze
from llrlab.core.conditions import condition_weights, parse_condition_weights

from .datasets import raw_analysis, transformed
from .results import ConditionCurve

__all__ = ["MAX_CONDITIONS", "ConditionSpec", "all_conditions", "condition_curves",
           "pool_notes", "prepare"]

#: Conditions drawn as separate curves (the pool may have more; the rest are not drawn).
MAX_CONDITIONS = 10
#: Condition pools kept in the raw cache (each holds a weighted copy and its analysis).
_POOLS_KEPT = 4
_MEMO_LOCK = threading.Lock()


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
        a = raw_analysis(cache, trials) if cw.trials is trials else analyze(cw.trials)
        return cw, a

    cw, a = _memo(cache, trials, ("pool", wkey, None if select is None else tuple(select)),
                  pool)
    per = []
    for name in cw.conditions.tolist()[:MAX_CONDITIONS]:
        k = int(np.searchsorted(names, name))
        per.append((name, _memo(cache, trials, ("condition", name),
                                lambda k=k: analyze(trials.subset(inv == k)))))
    return cw, a, per


def prepare(cache, trials, spec: ConditionSpec | None, known, *, cached=True):
    """One set ready to be evaluated: ``(trials of the pool, ConditionWeights or None, raw
    Analysis of the pool, [(name, raw Analysis)] of its drawn conditions)``.

    Without conditions (``spec`` None, or trials that carry none) the pool is the trials
    themselves, analysed once (``cached``: kept in ``cache`` by identity, for loaded trials;
    fused scores are new every time and are not kept).
    """
    if spec is None or trials.conditions is None:
        a = raw_analysis(cache, trials) if cached else analyze(trials)
        return trials, None, a, []
    cw, a, per = _pooled(cache, trials, spec, known)
    return cw.trials, cw, a, per


def condition_curves(cw, per, cal):
    """ConditionCurves of the pooled conditions, calibrated like the pool."""
    if cw is None:
        return ()
    out = []
    for k, (name, raw) in enumerate(per):
        llr = raw if cal is None else transformed(raw, cal)
        out.append(ConditionCurve(name, float(cw.w_tar[k]), float(cw.w_non[k]), llr))
    return out


def all_conditions(sets):
    """Every condition name of the given trials (sorted; empty when none carry conditions)."""
    names = set()
    for t in sets:
        if t is not None and t.conditions is not None:
            names.update(t.condition_index()[0].tolist())
    return tuple(sorted(names))


def pool_notes(prepared):
    """A note when more conditions are pooled than drawn (``prepared``: values of
    :func:`prepare`)."""
    shown = {c for p in prepared if p[1] is not None for c in p[1].conditions.tolist()}
    if len(shown) > MAX_CONDITIONS:
        return [f"{len(shown)} conditions are pooled; curves are drawn for the first "
                f"{MAX_CONDITIONS}"]
    return []
