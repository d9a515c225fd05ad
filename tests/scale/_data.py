"""Labelled trials with ids and conditions, written as BOSARIS HDF5 and as Parquet."""

from __future__ import annotations

import numpy as np

from llrlab.core import Trials


def grid_trials(n_models=60, n_segments=500, seed=0, conditions=False, decimals=2):
    """A dense models x segments trial list (every cell a trial), scores rounded to
    ``decimals`` (1e-2 by default: ties; None: continuous)."""
    rng = np.random.default_rng(seed)
    m = np.repeat(np.arange(n_models), n_segments)
    s = np.tile(np.arange(n_segments), n_models)
    labels = rng.random(m.size) < 0.1
    scores = rng.normal(0, 1, m.size) + 2.5 * labels
    if decimals is not None:
        scores = np.round(scores, decimals)
    cond = None
    if conditions:
        cond = np.where(s % 3 == 0, "tel", np.where(s % 3 == 1, "mic", "far"))
        scores = scores + np.where(cond == "mic", 0.7, 0.0) * labels
    return Trials(scores, labels, conditions=cond,
                  model_ids=np.char.add("m", m.astype(str)),
                  segment_ids=np.char.add("s", s.astype(str)), source="grid")


def write_parquet(path, t, *, rows_per_file=None, weights=None):
    import pyarrow as pa
    import pyarrow.parquet as pq

    cols = {"model": t.model_ids.astype(str), "segment": t.segment_ids.astype(str),
            "score": t.scores, "label": t.labels}
    if t.conditions is not None:
        cols["condition"] = t.conditions.astype(str)
    if weights is not None:
        cols["weight"] = weights
    table = pa.table(cols)
    if rows_per_file is None:
        pq.write_table(table, path, row_group_size=4096)
        return path
    path.mkdir()
    for k, start in enumerate(range(0, len(t), rows_per_file)):
        pq.write_table(table.slice(start, rows_per_file), path / f"part-{k:03d}.parquet")
    return path
