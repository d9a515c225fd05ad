"""The compact grid columns of the in-page drag (shared by every page that drags on the grid)."""

import numpy as np

from llrlab.core import analyze, gaussian_trials, grid_plo, operating_point_grid
from llrlab.dashboard.op_grid_data import grid_columns, vertex_columns, vertex_grid_index


def test_vertex_grid_index_middle_of_each_run():
    # vertex 0 on grid points 0-2, vertex 2 on 3-4, vertex 3 on 5-8; vertex 1 optimal nowhere
    vertex = np.array([0, 0, 0, 2, 2, 3, 3, 3, 3])
    np.testing.assert_array_equal(vertex_grid_index(vertex, 4), [1, 0, 3, 6])


def test_columns_are_compact_and_exact():
    a = analyze(gaussian_trials(300, 3000, seed=3))
    g = grid_plo(include=[0.3])
    grid = operating_point_grid(a, g)
    cols, weighted = grid_columns(g, [grid])
    assert weighted == [False]
    assert {k: cols[k].dtype for k in ("m0", "f0", "v0", "s0")} == {
        "m0": np.int32, "f0": np.int32, "v0": np.uint16, "s0": np.uint8}
    assert "pm0" not in cols and cols["plo"] is g
    verts = vertex_columns(grid)
    for i in range(0, g.size, 37):
        op = a.at(g[i])
        assert int(cols["m0"][i]) == op.act.misses and int(cols["f0"][i]) == op.act.false_alarms
        v = int(cols["v0"][i])
        assert verts["p_miss"][v] == float(op.min.p_miss)
        assert verts["p_fa"][v] == float(op.min.p_fa)
        assert bool(cols["s0"][i]) == bool(op.dr30_safe)
