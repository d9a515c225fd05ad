"""Condition-weighted pooling of a dataset (van Leeuwen 2008, eq. 12): the pool, its weights
and the per-condition analyses, cached while their trials are loaded.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

import numpy as np

from llrlab.core import DataError, analyze
from llrlab.core.conditions import (
    condition_subset,
    condition_weights,
    parse_condition_weights,
    prepare_pooling,
)

from .datasets import raw_analysis, transformed
from .results import ConditionCurve

__all__ = ["MAX_CONDITIONS", "MAX_LISTED", "ConditionMenu", "ConditionSpec", "all_conditions",
           "condition_curves", "condition_menu", "pool_notes", "prepare"]

#: Conditions drawn as separate curves (the pool may have more; the rest are not drawn).
MAX_CONDITIONS = 10
#: Conditions the page lists by name (those with the most trials); the others are offered
#: as one entry, so that a file with 10^6 condition names costs the page 51 entries.
MAX_LISTED = 50
#: Condition pools kept in the raw cache (each holds a weighted copy and its analysis).
_POOLS_KEPT = 4
_MEMO_LOCK = threading.Lock()


@dataclass(frozen=True)
class ConditionSpec:
    """How the conditions of the trials are pooled (van Leeuwen 2008, eq. 12-13; part of the
    cache key).

    ``weights``: ``"pooled"`` (every trial counts once), ``"equal"`` (every condition counts
    ``1/C``) or ``"custom"`` with ``text`` such as ``"tel=2, mic=1"`` (read by
    :func:`llrlab.core.conditions.parse_condition_weights`; conditions outside the selection
    or absent from a set are ignored).  ``select``: the pooled conditions, None for all.
    """

    weights: str = "pooled"
    text: str = ""
    select: tuple | None = None
    #: With ``select`` None: conditions left out of the pool (the others are pooled).
    exclude: tuple = ()
    #: The page lists only some conditions (:class:`ConditionMenu`): custom weights then
    #: give weight 0 (leave out of the pool) the conditions they do not name.
    capped: bool = False


@dataclass(frozen=True)
class ConditionMenu:
    """The conditions the page offers for pooling: ``listed`` (at most :data:`MAX_LISTED`,
    those with the most trials over the shown sets, in name order), and how many other
    conditions there are (``n_others``) with how many trials (``others_trials``), offered as
    one entry named ``others_label`` (a name no listed condition has)."""

    listed: tuple = ()
    n_others: int = 0
    others_trials: int = 0
    others_label: str = ""

    @property
    def capped(self):
        return self.n_others > 0


def condition_menu(sets, limit=MAX_LISTED) -> ConditionMenu:
    """The :class:`ConditionMenu` of the given trials (vectorized: one ``numpy.unique`` over
    the conditions of the sets, whatever their number).

    Examples
    --------
    >>> from llrlab.core import Trials
    >>> t = Trials([1.0, 2.0, -1.0, 0.5], [1, 1, 0, 0], conditions=["a", "b", "b", "c"])
    >>> m = condition_menu([t], limit=2)
    >>> m.listed, m.n_others, m.others_trials, m.others_label
    (('a', 'b'), 1, 1, '(1 other condition)')
    """
    names, counts = [], []
    for t in sets:
        if t is not None and t.conditions is not None:
            n, inv = t.condition_index()
            names.append(np.asarray(n))
            counts.append(np.bincount(inv, minlength=len(n)))
    if not names:
        return ConditionMenu()
    uniq, where = np.unique(np.concatenate(names), return_inverse=True)
    total = np.bincount(where, weights=np.concatenate(counts)).astype(np.int64)
    if len(uniq) <= limit:
        return ConditionMenu(tuple(uniq.tolist()))
    # the `limit` largest (ties: by name), listed in name order
    order = np.lexsort((np.arange(len(uniq)), -total))[:limit]
    top = np.sort(order)
    listed = tuple(uniq[top].tolist())
    n_others = len(uniq) - limit
    return ConditionMenu(listed, n_others, int(total.sum() - total[top].sum()),
                         others_label(n_others, listed))


def others_label(n_others, listed):
    """The picker's entry for ``n_others`` conditions not listed: a name none of ``listed``
    has."""
    label = f"({n_others:,} other conditions)" if n_others > 1 else "(1 other condition)"
    while label in listed:
        label = f"({label})"
    return label

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


def _among(keys, names):
    """For each of ``keys`` (a few strings), whether it is in ``names`` (a sorted array of
    distinct strings, possibly 10^6 of them): binary searches, no set of all names."""
    keys = list(keys)
    if not keys or len(names) == 0:
        return [False] * len(keys)
    k = np.asarray(keys, dtype=str)
    i = np.minimum(np.searchsorted(names, k), len(names) - 1)
    return (names[i] == k).tolist()


def _spec_weights(spec: ConditionSpec, chosen, known):
    """What :func:`condition_weights` takes for one set: custom weights limited to the
    conditions it pools (names no set has are passed on, so that the core names them).
    ``chosen`` and ``known``: sorted arrays of names."""
    if spec.weights != "custom":
        return spec.weights
    if not spec.text.strip():
        raise DataError("custom condition weights are empty: write them as NAME=W, "
                        "e.g. 'tel=2, mic=1'")
    w = parse_condition_weights(spec.text)
    if isinstance(w, str):
        return w
    pooled, exists = _among(w, chosen), _among(w, known)
    return {k: v for (k, v), p, e in zip(w.items(), pooled, exists, strict=True)
            if p or not e}


def _pooled(cache, trials, spec: ConditionSpec, known):
    """``(ConditionWeights, raw Analysis of the pool, [(name, raw Analysis)])`` of one set."""
    # names: sorted distinct conditions of the set (numpy strings); the selection is made
    # with numpy, never as a Python set or list of every name (10^6 of them hold the GIL,
    # and with it the event loop, for seconds)
    names, _ = trials.condition_index()
    if spec.select is not None and not spec.select:
        raise DataError("select at least one condition to pool")
    if spec.select is None and spec.exclude:
        chosen = names[~np.isin(names, np.asarray(spec.exclude, dtype=str))]
        if not chosen.size:
            raise DataError("select at least one condition to pool")
        select = chosen
    elif spec.select is None:
        select, chosen = None, names
    else:
        chosen = names[np.isin(names, np.asarray(spec.select, dtype=str))]
        if not chosen.size:
            raise DataError(f"{trials.source or 'a data set'} has none of the selected "
                            f"conditions ({', '.join(spec.select)})")
        select = chosen
    weights = _spec_weights(spec, chosen, known)
    if spec.capped and isinstance(weights, dict):
        # weight 0 for the pooled conditions the text does not name = only the named ones
        # are pooled (and the core is handed a handful of names, not 10^6 zeros)
        named = sorted(k for k, ok in zip(weights, _among(weights, chosen), strict=True)
                       if ok)
        if named:
            chosen = select = np.asarray(named, dtype=str)
        elif all(_among(weights, known)):  # (names no set has: the core says so)
            raise DataError("the custom weights name none of the pooled conditions")
    # cache keys from the spec, not from the (possibly 10^6) names it stands for
    wkey = (spec.weights, spec.text, spec.capped) if isinstance(weights, dict) else weights
    skey = (None if select is None else ("except", spec.exclude) if spec.select is None
            else tuple(select))

    def pool():
        # one sort of (score, condition) pairs serves this pool, the plain pool, each
        # condition and every later weighting of these trials (none sorts again)
        prepare_pooling(trials)
        cw = condition_weights(trials, weights, select=select)
        a = raw_analysis(cache, trials) if cw.trials is trials else analyze(cw.trials)
        return cw, a

    cw, a = _memo(cache, trials, ("pool", wkey, skey), pool)
    per = []
    for name in cw.conditions.tolist()[:MAX_CONDITIONS]:
        k = int(np.searchsorted(names, name))
        per.append((name, _memo(cache, trials, ("condition", name),
                                lambda k=k: analyze(condition_subset(trials, k)))))
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
    """Every condition name of the given trials: a sorted array of distinct names (empty when
    none carry conditions), made with numpy."""
    arrays = [t.condition_index()[0] for t in sets
              if t is not None and t.conditions is not None]
    if not arrays:
        return np.empty(0, dtype=str)
    if len(arrays) == 1:
        return arrays[0]
    return np.unique(np.concatenate(arrays))


def pool_notes(prepared):
    """A note when more conditions are pooled than drawn (``prepared``: values of
    :func:`prepare`)."""
    pooled = [p[1].conditions for p in prepared if p[1] is not None]
    n = 0 if not pooled else len(all_conditions_of(pooled))
    if n > MAX_CONDITIONS:
        return [f"{n:,} conditions are pooled; curves are drawn for the first "
                f"{MAX_CONDITIONS}"]
    return []


def all_conditions_of(arrays):
    """The distinct names of sorted arrays of distinct names."""
    return arrays[0] if len(arrays) == 1 else np.unique(np.concatenate(arrays))
