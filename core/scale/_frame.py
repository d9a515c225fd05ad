"""The one shape of data the out-of-core path works on: a Dask DataFrame of trials.

Columns ``score`` (float32 or float64), ``label`` (bool, True = target) and optionally
``weight`` (float64) and ``condition`` (str).  Readers (:mod:`.readers`) and the Python API
(dask arrays, a user's DataFrame) all end here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from .._repr import summary_repr
from ..errors import DataError
from ._dask import dask_modules

__all__ = ["ScoreSet", "as_frame", "frame_from_arrays", "is_float"]


@summary_repr("source")
@dataclass(frozen=True, eq=False)
class ScoreSet:
    """A lazily read labelled score set (what :func:`~llrlab.core.scale.open_scores`
    returns).

    Attributes
    ----------
    frame : dask.dataframe.DataFrame
        Columns ``score``, ``label`` and, when present, ``weight``, ``condition``.
    source : str
        The file or directory, for messages.
    """

    frame: object
    source: str = ""

    def __len__(self):
        """Number of trials (one pass over the partition lengths, cached)."""
        n = self.__dict__.get("_len")
        if n is None:
            n = int(self.frame.map_partitions(len).compute(scheduler="threads").sum())
            object.__setattr__(self, "_len", n)
        return n

    def require_both_classes(self):
        """The set itself: its classes are counted by the analysis (which raises
        :class:`~llrlab.core.DataError` for a missing class)."""
        return self

    @property
    def has_conditions(self):
        return "condition" in self.frame.columns

    def with_frame(self, frame, source=None):
        return ScoreSet(frame, self.source if source is None else source)


def is_float(dtype):
    """Whether a column's dtype is a NumPy floating-point type (a pandas extension type such
    as ``string`` or ``Float64`` is not one, and gives False instead of a TypeError)."""
    try:
        return np.dtype(dtype).kind == "f"
    except TypeError:
        return False


def _block_frame(x, w, label):
    import pandas as pd

    x = np.asarray(x)
    cols = {"score": x, "label": np.full(x.size, label, dtype=bool)}
    if w is not None:
        cols["weight"] = np.asarray(w, dtype=np.float64)
    return pd.DataFrame(cols)


def frame_from_arrays(tar, non, tar_weights=None, non_weights=None):
    """A trial frame from 1-D dask arrays of target and non-target scores (and weights)."""
    dask, dd = dask_modules()
    import pandas as pd

    for name, a in (("target scores", tar), ("non-target scores", non)):
        if getattr(a, "ndim", 1) != 1:
            raise DataError(f"{name} must be a 1-D array, got shape {a.shape}")
        if np.dtype(a.dtype).kind != "f":
            raise DataError(f"{name} must be floating point, got {a.dtype}")
    weighted = tar_weights is not None or non_weights is not None
    dtype = np.result_type(tar.dtype, non.dtype)
    parts = []
    for x, w, label in ((tar, tar_weights, True), (non, non_weights, False)):
        x = x.astype(dtype)
        if weighted and w is None:
            w = x.map_blocks(np.ones_like, dtype=np.float64)
        if w is not None:
            if w.shape != x.shape:
                raise DataError(f"{'target' if label else 'non-target'} weights have shape "
                                f"{w.shape} for {x.shape} scores")
            w = w.rechunk(x.chunks)
        xb = x.to_delayed().ravel()
        wb = [None] * len(xb) if w is None else w.to_delayed().ravel()
        parts += [dask.delayed(_block_frame)(a, b, label) for a, b in zip(xb, wb, strict=True)]
    meta = {"score": pd.Series(dtype=dtype), "label": pd.Series(dtype=bool)}
    if weighted:
        meta["weight"] = pd.Series(dtype=np.float64)
    return dd.from_delayed(parts, meta=pd.DataFrame(meta), verify_meta=False)


def as_frame(data, non=None, tar_weights=None, non_weights=None, source=""):
    """``(frame, where)`` from what :func:`~llrlab.core.scale.analyze_dask` accepts."""
    _, dd = dask_modules()
    if isinstance(data, (str, os.PathLike)):
        from .readers import open_scores

        data = open_scores(data)
    if isinstance(data, ScoreSet):
        return data.frame, source or data.source or "the score set"
    where = source or "the score set"
    if isinstance(data, dd.DataFrame):
        if non is not None:
            raise TypeError("pass either a DataFrame of trials or tar and non arrays")
        missing = [c for c in ("score", "label") if c not in data.columns]
        if missing:
            raise DataError(f"{where}: the trial frame needs the columns score and label; "
                            f"missing {', '.join(missing)}")
        if not is_float(data["score"].dtype):
            raise DataError(f"{where}: the score column must be floating point, got "
                            f"{str(data['score'].dtype)[:60]}")
        if data["label"].dtype != bool:
            data = data.assign(label=data["label"].map_partitions(_labels, where,
                                                                 meta=("label", bool)))
        keep = [c for c in ("score", "label", "weight", "condition") if c in data.columns]
        return data[keep], where
    if non is None:
        raise TypeError("non-target scores are missing: pass tar and non dask arrays, or a "
                        "DataFrame of trials")
    return frame_from_arrays(data, non, tar_weights, non_weights), where


def _labels(s, where):
    """Integer 0/1 (or target/nontarget) labels as bool; anything else is refused."""
    v = s.to_numpy()
    if v.dtype.kind in "iu" or v.dtype.kind == "f":
        bad = (v != 0) & (v != 1)
        if bad.any():
            raise DataError(f"{where}: labels must be True/False or 1/0; found "
                            f"{v[bad][0].item()!r}")
        return s.astype(bool)
    if v.dtype.kind in "OUT" or str(s.dtype).startswith("string"):
        low = s.astype(str).str.lower()
        tgt = low.isin(["target", "tgt", "true", "1"])
        non = low.isin(["nontarget", "non-target", "non", "imp", "impostor", "false", "0"])
        if not (tgt | non).all():
            bad = s[~(tgt | non)].iloc[0]
            raise DataError(f"{where}: labels must be target/nontarget (or 1/0); found "
                            f"{str(bad)[:40]!r}")
        return tgt
    raise DataError(f"{where}: labels must be booleans, 0/1 or target/nontarget; got "
                    f"{s.dtype}")
