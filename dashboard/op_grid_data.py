"""The exact look-up data of an in-page operating-point drag, as compact columns.

The offline report's page moves the operating point with no server (see
:mod:`llrlab.dashboard.report_page`): it snaps the pointer to a grid of prior log-odds
(:func:`llrlab.core.op_grid.grid_plo`) and reads, for each score set, the counts, the optimal
ROCCH vertex and the DR30 flag of that grid point (:func:`llrlab.core.operating_point_grid`).
This module turns those grids into the columns a ``ColumnDataSource`` sends to the page, in
the smallest dtypes that hold them exactly (11 to 13 bytes per grid point and set), so that
every page that drags on the grid sends the same data.  It is Bokeh-free: the caller puts the
dicts into its own data sources.
"""

from __future__ import annotations

import numpy as np

from llrlab.core import probit

__all__ = ["grid_columns", "vertex_columns", "vertex_grid_index"]


def vertex_grid_index(vertex, n_vertices):
    """For each ROCCH vertex, the grid index in the middle of the run where it is optimal.

    The optimal vertex is monotone along the grid of prior log-odds, so each vertex that is
    optimal somewhere has one run; a vertex optimal nowhere gets index 0.  The DET drag snaps
    the pointer to the nearest vertex and moves to this grid point.
    """
    vertex = np.asarray(vertex)
    change = np.flatnonzero(np.diff(vertex) != 0) + 1
    starts = np.concatenate([[0], change])
    ends = np.concatenate([change, [vertex.size]]) - 1
    gi = np.zeros(n_vertices, dtype=np.int32)
    gi[vertex[starts]] = (starts + ends) // 2
    return gi


def grid_columns(plo, grids):
    """The columns of the grid data source: ``plo`` and, for score set ``j``, ``m{j}`` and
    ``f{j}`` (misses and false alarms at the Bayes threshold ``-plo``, int32), ``v{j}`` (the
    optimal vertex, uint16 when it fits, else int32), ``s{j}`` (the DR30 flag, uint8) and,
    for a weighted set only, its rates ``pm{j}`` and ``pf{j}`` (float64, as computed).

    Parameters
    ----------
    plo : ndarray
        The grid of prior log-odds the ``grids`` were computed on.
    grids : sequence of OperatingPointGrid
        One per score set, from :func:`llrlab.core.operating_point_grid`.

    Returns
    -------
    columns : dict of str to ndarray
    weighted : list of bool
        Whether each set's rates are stored (weighted) or are ``count / total`` in the page.
    """
    columns = {"plo": np.asarray(plo)}
    weighted = []
    for j, grid in enumerate(grids):
        nv = grid.vertex_p_miss.size
        columns[f"m{j}"] = grid.misses.astype(np.int32)
        columns[f"f{j}"] = grid.false_alarms.astype(np.int32)
        columns[f"v{j}"] = grid.vertex.astype(np.uint16 if nv < 65536 else np.int32)
        columns[f"s{j}"] = grid.dr30_safe.astype(np.uint8)
        if grid.weighted:
            columns[f"pm{j}"], columns[f"pf{j}"] = grid.p_miss, grid.p_fa
        weighted.append(bool(grid.weighted))
    return columns, weighted


def vertex_columns(grid):
    """The columns of one score set's vertex data source: the ROCCH vertices' rates and
    counts (the minimum-DCF numbers), their DET marker positions (float32 probits: they only
    place a marker) and ``gi``, the grid point the DET drag moves to
    (:func:`vertex_grid_index`)."""
    nv = grid.vertex_p_miss.size
    return {"p_miss": grid.vertex_p_miss, "p_fa": grid.vertex_p_fa,
            "misses": grid.vertex_misses.astype(np.int32),
            "false_alarms": grid.vertex_false_alarms.astype(np.int32),
            "x": probit(grid.vertex_p_fa).astype(np.float32),
            "y": probit(grid.vertex_p_miss).astype(np.float32),
            "gi": vertex_grid_index(grid.vertex, nv)}
