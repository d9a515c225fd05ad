"""Condition-weighted pooling of a score set larger than memory (van Leeuwen 2008).

The same weights as :func:`llrlab.core.conditions.condition_weights`: a trial of class ``c``
in condition ``alpha`` gets ``beta_c^alpha = w_alpha * N_c / N_c^alpha`` (van Leeuwen 2008,
sec. 3.4, eq. 12), so that every measure of the weighted trials is the condition-weighted
measure.  One pass over the data counts the trials of each (condition, class); the weights
are then a lazy column of the frame, and :func:`~llrlab.core.scale.analyze_dask` of the
result equals :func:`llrlab.core.analyze` of the in-memory weighted trials.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._repr import summary_repr
from ..conditions import (
    _betas,
    _check_rates_defined,
    _condition_weight_table,
    _ConditionTable,
    _names,
)
from ..errors import DataError
from ._dask import compute, dask_modules, scheduler_of
from ._frame import ScoreSet, as_frame

__all__ = ["DaskConditionWeights", "condition_weights_dask"]


@summary_repr("conditions", "w_tar", "w_non", "spec", "reweighted")
@dataclass(frozen=True, eq=False)
class DaskConditionWeights(_ConditionTable):
    """Condition weights of an out-of-core score set (as
    :class:`llrlab.core.ConditionWeights`, with ``scores`` instead of ``trials``).

    Attributes
    ----------
    conditions : ndarray of str, shape (C,)
    w_tar, w_non : ndarray, shape (C,)
    n_tar, n_non : ndarray of int64, shape (C,)
    beta_tar, beta_non : ndarray, shape (C,)
    scores : ScoreSet
        The trials of the pooled conditions with the per-trial weights ``beta`` (times their
        own weights); unchanged when the weights change no measure (``reweighted`` False).
    spec : str
    reweighted : bool
    """

    scores: ScoreSet
    spec: str
    reweighted: bool


def _count_part(pdf):
    lab = pdf["label"].to_numpy(dtype=bool)
    cond = pdf["condition"].astype(str).to_numpy()
    w = pdf["weight"].to_numpy(dtype=np.float64) if "weight" in pdf.columns else None
    out = {}
    names, inv = np.unique(cond, return_inverse=True)
    inv = inv.ravel()
    for k, name in enumerate(names.tolist()):
        sel = inv == k
        lt = lab[sel]
        ws = None if w is None else w[sel]
        out[name] = (int(lt.sum()), int(lt.size - lt.sum()),
                     float(lt.sum()) if ws is None else float(ws[lt].sum()),
                     float(lt.size - lt.sum()) if ws is None else float(ws[~lt].sum()))
    return out


def _weigh(pdf, names, beta_t, beta_n):
    cond = pdf["condition"].astype(str).to_numpy()
    k = np.searchsorted(names, cond)
    lab = pdf["label"].to_numpy(dtype=bool)
    beta = np.where(lab, beta_t[k], beta_n[k])
    if "weight" in pdf.columns:
        beta = beta * pdf["weight"].to_numpy(dtype=np.float64)
    return pdf.assign(weight=beta)


def condition_weights_dask(data, weights="equal", *, select=None,
                           client=None) -> DaskConditionWeights:
    """Per-trial weights pooling the conditions of an out-of-core score set.

    Parameters and errors are those of :func:`llrlab.core.conditions.condition_weights`;
    ``data`` is what :func:`~llrlab.core.scale.analyze_dask` takes, with a ``condition``
    column.

    References
    ----------
    van Leeuwen (2008), sec. 3 (eq. 1-4), sec. 3.4 (eq. 12) and sec. 3.5 (eq. 13).
    """

    dask, _ = dask_modules()
    frame, where = as_frame(data)
    source = getattr(data, "source", "") or where
    if "condition" not in frame.columns:
        raise DataError(f"{where}: the trials have no conditions (a 'condition' column, or "
                        f"/conditions in the HDF5 files)")
    scheduler, _ = scheduler_of(client)
    parts = compute([dask.delayed(_count_part)(p) for p in frame.to_delayed()], scheduler)
    table = {}
    for part in parts:
        for name, vals in part.items():
            old = table.get(name, (0, 0, 0.0, 0.0))
            table[name] = tuple(a + b for a, b in zip(old, vals, strict=True))
    all_names = np.array(sorted(table), dtype=str)
    if all_names.size == 0:
        raise DataError(f"{where} has no trials")
    ct = np.array([table[n][0] for n in all_names], dtype=np.int64)
    cn = np.array([table[n][1] for n in all_names], dtype=np.int64)
    mt = np.array([table[n][2] for n in all_names])
    mn = np.array([table[n][3] for n in all_names])
    pre = f"{where}: "
    spec, w = _condition_weight_table(all_names, weights, select, pre)
    keep = w > 0
    if spec != "pooled":
        _check_rates_defined(all_names, keep, mt, mn, ct + cn, pre)
    names = all_names[keep]
    if not (ct[keep].sum() and cn[keep].sum()):
        raise DataError(f"{pre}the pooled conditions {_names(names.tolist())} have no "
                        f"{'target' if not ct[keep].sum() else 'non-target'} trials")
    sub = frame if keep.all() else frame[frame["condition"].astype(str).isin(names.tolist())]
    if spec == "pooled":
        ones = np.ones(names.size)
        return DaskConditionWeights(names, mt[keep] / mt[keep].sum(),
                                    mn[keep] / mn[keep].sum(), ct[keep], cn[keep], ones,
                                    ones.copy(), ScoreSet(sub, source), spec, False)
    wn, beta_t, beta_n, reweight = _betas(w[keep], mt[keep], mn[keep])
    out = sub
    if reweight:
        meta = sub._meta.assign(weight=np.empty(0))
        out = sub.map_partitions(_weigh, names, beta_t, beta_n, meta=meta)
    return DaskConditionWeights(names, wn, wn.copy(), ct[keep], cn[keep], beta_t, beta_n,
                                ScoreSet(out, source), spec, reweight)
