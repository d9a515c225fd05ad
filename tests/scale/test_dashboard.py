"""``llrlab serve --dask``: the dashboard state on sets read lazily and computed on Dask shows
the numbers of the in-memory dashboard (no browser)."""

from __future__ import annotations

import numpy as np
import pytest

from llrlab.dashboard import scaled
from llrlab.dashboard.app import FileSpec, load_specs
from llrlab.dashboard.compute.datasets import histogram
from llrlab.dashboard.state import DashboardState

from ._data import grid_trials, write_parquet


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("serve")
    dev = grid_trials(30, 400, seed=1, conditions=True)
    ev = grid_trials(30, 400, seed=2, conditions=True)
    return (dev, ev, write_parquet(d / "dev", dev, rows_per_file=4000),
            write_parquet(d / "eval", ev, rows_per_file=4000))


def _states(files):
    dev, ev, pd_, pe = files
    mem = DashboardState()
    mem.data.set_trials("A", "dev", dev)
    mem.data.set_trials("A", "eval", ev)
    scaled.configure("local")
    big = DashboardState()
    load_specs(big, [FileSpec("A", "dev", str(pd_)), FileSpec("A", "eval", str(pe))],
               dask=True)
    assert big.status.error == "" and mem.status.error == ""
    return mem, big


def _same_ops(mem, big):
    for role in ("dev", "eval"):
        a, b = big.op[role], mem.op[role]
        assert a.plo == b.plo
        assert a.act_dcf == pytest.approx(b.act_dcf, rel=1e-12)
        assert a.min_dcf == pytest.approx(b.min_dcf, rel=1e-12)
        assert a.dr30_safe == b.dr30_safe


def test_serve_dask_shows_the_in_memory_numbers(files):
    mem, big = _states(files)
    assert any("computed on Dask" in n for n in big.results.notes)
    assert "computed on Dask" in big.status.notice
    _same_ops(mem, big)
    # a drag: on the report's grid (tabulated), at p_target 0.01, 0.001, 0.05 and anywhere
    for p in (-3.0, -1.234, 0.5, -4.59511985013459, -6.906754778648554, -2.9444389791664403,
              0.123456789, -1.2 - 2.0 ** -40):  # just above the scores 1.2 (ties)
        mem.point.plo = big.point.plo = p
        _same_ops(mem, big)
    for role in ("dev", "eval"):
        d, m = big.results.datasets[role], mem.results.datasets[role]
        assert d.llr.eer == pytest.approx(m.llr.eer, rel=1e-12)
        np.testing.assert_allclose(d.det("rocch").p_fa, m.det("rocch").p_fa, rtol=1e-12)
        assert d.det("steppy").p_fa.size > 10
        ref = histogram(m.raw, d.hist.edges)  # counted at the same edges: equal
        np.testing.assert_allclose(d.hist.tar, ref.tar, rtol=1e-12)
        np.testing.assert_allclose(d.hist.non, ref.non, rtol=1e-12)
        assert d.hist.outside == ref.outside
        np.testing.assert_allclose(big.nber.sets[role][1].dcf, mem.nber.sets[role][1].dcf,
                                   rtol=1e-12)
    assert big.conditions.available == ["far", "mic", "tel"]


def test_serve_dask_calibration_and_condition_weights(files):
    mem, big = _states(files)
    for st in (mem, big):
        st.calibration.method = "pav"
    assert big.status.error == ""
    _same_ops(mem, big)
    assert any("all trials" in n for n in big.results.notes)
    for st in (mem, big):
        st.calibration.method = "none"
        st.conditions.weighting = "equal per condition"
    assert big.status.error == ""
    _same_ops(mem, big)


def test_serve_dask_refuses_fusion_with_a_message(files):
    from llrlab.core import DataError
    from llrlab.core.scale import open_scores
    from llrlab.dashboard.compute import SystemData, compute_results

    _, _, pd_, pe = files
    systems = {"A": SystemData(eval=open_scores(pe)), "B": SystemData(eval=open_scores(pd_))}
    with pytest.raises(DataError, match="fusion needs the trials in memory"):
        compute_results(("k",), systems=systems, system="A", fusion=True)


def test_serve_dask_reads_distances_and_llr_units(files, monkeypatch):
    """``llrlab serve --dask --distance --llr-unit log10``: the lazily read scores are
    negated and converted as the in-memory loaders do (the server's READ_OPTIONS)."""
    from llrlab.dashboard import app as app_module

    _, ev, _, pe = files
    monkeypatch.setattr(app_module, "READ_OPTIONS", {"higher_is_target": False,
                                                     "unit": "log10"})
    s = scaled.load_scaled(str(pe), None, lambda *a: None)
    got = np.sort(s.frame["score"].compute(scheduler="threads").to_numpy())
    assert np.allclose(got, np.sort(-np.log(10.0) * ev.scores), rtol=1e-15, atol=0)
