"""The served dashboard's in-page drag data (:class:`llrlab.dashboard.views.op_grid.OpGrid`):
filled when the analyses change, from the session's jobs; the numbers of each grid point are
``Analysis.at``'s; what the page moves by itself is re-sent after the server set the point."""

from __future__ import annotations

import numpy as np

from llrlab.dashboard.views import DETView, MetricsView, NBERView
from llrlab.dashboard.views.op_grid import SERVED_STEP, OpGrid, grid_sets


def test_the_grid_follows_the_analyses_with_the_numbers_of_analysis_at(state):
    grid = OpGrid(state=state)
    res = state.results
    roles = grid_sets(res)
    assert roles[0] == res.primary.role and set(roles) == set(res.datasets)
    data = grid.grid.data
    plo = np.asarray(data["plo"])
    assert plo.size <= 10_241 and np.all(np.diff(plo) == SERVED_STEP)
    assert list(grid.sets.data["role"]) == roles
    rng = np.random.default_rng(0)
    for i in rng.integers(0, plo.size, 40):
        for j, role in enumerate(roles):
            a = res.datasets[role].llr
            want = a.at(plo[i])
            assert data[f"m{j}"][i] == want.act.misses
            assert data[f"f{j}"][i] == want.act.false_alarms
            assert grid.sets.data["T"][j] == a.n_tar
            v = data[f"v{j}"][i]
            assert grid.verts[j].data["p_miss"][v] == float(want.min.p_miss)
            assert bool(data[f"s{j}"][i]) == want.dr30_safe
    # new analyses (calibration): a new grid
    before = data
    state.calibration.method = "affine"
    assert state.results is not res
    assert grid.grid.data is not before
    a = state.results.datasets[roles[0]].llr
    i = 5000
    assert grid.grid.data["m0"][i] == a.at(grid.grid.data["plo"][i]).act.misses


def test_a_grid_of_older_analyses_is_dropped(state):
    grid = OpGrid(state=state)
    old = state.results
    state.calibration.method = "affine"
    grid._fill(old, ({"plo": np.zeros(1)}, {}, []))  # a late job of the old analyses
    assert np.asarray(grid.grid.data["plo"]).size > 1


def test_the_views_register_what_the_page_moves(state):
    grid = OpGrid(state=state)
    nber = NBERView(state=state, op_grid=grid)
    det = DETView(state=state, op_grid=grid)
    metrics = MetricsView(state=state, op_grid=grid)
    moved = {(id(m), a) for m, a in grid.echo}
    assert (id(nber.op_span), "location") in moved
    assert all((id(src), "data") in moved for src in det.op_sources.values())
    assert grid.panes == [metrics.table]
    assert "llrlab-op-table" in metrics.table.css_classes


def test_a_failed_grid_says_so_and_leaves_the_drag_to_the_server(state, monkeypatch):
    import llrlab.dashboard.views.op_grid as mod

    def boom(*_a, **_k):
        raise MemoryError

    monkeypatch.setattr(mod, "operating_point_grid", boom)
    grid = OpGrid(state=state)
    assert np.asarray(grid.grid.data["plo"]).size == 0
    assert "dragging falls back to the server" in state.status.error


def test_the_same_analyses_set_again_keep_their_grid(state, monkeypatch):
    # a lesson's step sets its cached results a second time: one grid, computed once
    import llrlab.dashboard.views.op_grid as mod

    calls = []
    real = mod.compute_grid
    monkeypatch.setattr(mod, "compute_grid", lambda *a, **k: (calls.append(1), real(*a, **k))[1])
    grid = OpGrid(state=state)
    assert len(calls) == 1
    data, sets = grid.grid.data, grid.sets.data
    state.param.update(results=state.results)
    assert len(calls) == 1
    assert grid.grid.data is data and grid.sets.data is sets
    state.calibration.method = "affine"  # new analyses: a new grid
    assert len(calls) == 2
    assert grid.grid.data is not data
