"""The "Compare systems" tab without a browser: CompareState results, colours, laziness,
significance against llrlab.core, the CSV, and the views' sources."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from numpy.testing import assert_allclose

from llrlab.core import analyze
from llrlab.core.ape import ape_curves, ece_curves
from llrlab.core.epc import epc
from llrlab.core.significance import mcnemar_test, z_test
from llrlab.dashboard import compute
from llrlab.dashboard.compute import SystemData
from llrlab.dashboard.state import FUSION, FUSION_COLOR, PALETTE, DashboardState
from llrlab.dashboard.views.compare import CompareView

from ..core.test_significance import _errs
from .conftest import count_heavy, make_trials


def _systems(n_dev=4000, n_eval=6000):
    a = SystemData(make_trials(n_dev, seed=1, ids=True), make_trials(n_eval, seed=2, ids=True))
    # B: the same trials (same seeds, labels and ids), other scores
    b = SystemData(make_trials(n_dev, seed=1, scale=0.6, shift=0.8, ids=True),
                   make_trials(n_eval, seed=2, scale=0.6, shift=1.1, ids=True))
    return {"A": a, "B": b}


@pytest.fixture
def two():
    st = DashboardState()
    st.data.set_systems(_systems())
    cs = st.compare
    cs.active = True
    return st, cs


def _counting(monkeypatch):
    return count_heavy(monkeypatch, ("analyze", "analyze_transformed", "compute_results",
                                     "compute_system"))


def test_results_for_two_systems_match_core(two):
    st, cs = two
    comp = cs.comparison
    assert list(comp.systems) == ["A", "B"]
    for name in ("A", "B"):
        sc = comp.systems[name]
        data = st.data.systems[name]
        for role in ("dev", "eval"):
            t = getattr(data, role)
            ref = analyze(t)
            a = sc.analysis(role)
            assert_allclose(a.cllr, ref.cllr, rtol=1e-12)
            assert_allclose(a.min_cllr, ref.min_cllr, rtol=1e-12)
            ape = ape_curves(t, plo=compute.APE_PLO)
            assert_allclose(sc.ape[role].bayes_error, ape.bayes_error, rtol=1e-12)
            assert_allclose(sc.ape[role].min_bayes_error, ape.min_bayes_error, rtol=1e-12)
            ece = ece_curves(t, plo=compute.APE_PLO)
            assert_allclose(sc.ece[role].ce, ece.ce, rtol=1e-10)
            assert_allclose(sc.ece[role].calibration_loss, ece.calibration_loss, rtol=1e-10)
        ref_epc = epc(data.dev, data.eval, compute.EPC_ALPHA)
        assert_allclose(sc.epc.hter, ref_epc.hter, rtol=0, atol=0)
    rows = cs.table_rows()
    assert [r["system"] for r in rows] == ["A", "B"]
    a_eval = analyze(st.data.systems["B"].eval).at(st.point.plo)
    assert rows[1]["act_dcf"] == pytest.approx(a_eval.act_dcf, rel=1e-12)
    assert rows[1]["min_dcf"] == pytest.approx(a_eval.min_dcf, rel=1e-12)


def test_calibrated_comparison_trains_each_system_on_its_own_dev(two):
    st, cs = two
    st.calibration.method = "affine"
    comp = cs.comparison
    for name in ("A", "B"):
        sc = comp.systems[name]
        assert sc.results.calibration is not None
        t = sc.llr_trials("eval")
        want = sc.results.calibration.apply(st.data.systems[name].eval.scores)
        assert_allclose(t.scores, want)
        assert_allclose(sc.analysis("eval").cllr, analyze(t).cllr, rtol=1e-12)
        # the EPC of calibrated LLRs is computed from the LLRs
        d = sc.results.datasets
        ref = epc((d["dev"].llr.sorted.tar, d["dev"].llr.sorted.non),
                  (d["eval"].llr.sorted.tar, d["eval"].llr.sorted.non), compute.EPC_ALPHA)
        assert_allclose(sc.epc.hter, ref.hter)


def test_the_shown_systems_results_are_shared_with_the_main_view(monkeypatch):
    st = DashboardState()
    st.data.set_systems(_systems())
    calls = _counting(monkeypatch)
    cs = st.compare
    cs.active = True
    # system A is the main view's: its Results object is reused, B is computed
    assert cs.comparison.systems["A"].results is st.results
    assert calls.count("compute_results") == 1
    # after a new calibration too: the main view computes A once, the comparison B
    st.calibration.method = "affine"
    assert cs.comparison.systems["A"].results is st.results
    assert calls.count("compute_results") == 3


def test_lazy_until_the_tab_is_shown(monkeypatch):
    st = DashboardState()
    st.data.set_systems(_systems())
    calls = _counting(monkeypatch)
    cs = st.compare
    st.calibration.method = "pav"
    st.calibration.method = "none"
    st.point.plo = -1.0
    assert cs.comparison is None
    assert "compute_system" not in calls
    cs.active = True
    assert cs.comparison is not None
    assert calls.count("compute_system") == 2


def test_colours_are_stable_across_updates(two):
    st, cs = two
    colors = dict(cs.colors)
    assert colors == {"A": PALETTE[0], "B": PALETTE[1]}
    st.calibration.method = "affine"
    st.point.plo = -3.0
    st.calibration.fusion = True
    assert cs.colors == {"A": PALETTE[0], "B": PALETTE[1], FUSION: FUSION_COLOR}
    st.calibration.fusion = False
    st.data.set_trials("C", "eval", make_trials(6000, seed=2, scale=2.0, ids=True))
    assert cs.colors == {"A": PALETTE[0], "B": PALETTE[1], "C": PALETTE[2]}
    # the views draw each system in its colour, and the table uses the same
    st2, cs2 = DashboardState(), None
    st2.data.set_systems(_systems())
    view = CompareView(state=st2)
    cs2 = view.cstate
    cs2.active = True
    for src in (view.nber.sources["act"], view.ape.sources["act"], view.ece.sources["min"],
                view.det.sources["rocch"], view.epc.sources["hter"], view.cllr.source):
        assert dict(zip(src.data["name"], src.data["color"], strict=True)) == cs2.colors
    assert f"background:{PALETTE[1]}" in view.table.object
    st2.calibration.method = "affine"
    assert dict(zip(view.nber.sources["act"].data["name"],
                    view.nber.sources["act"].data["color"], strict=True)) == cs2.colors


def test_fusion_appears_as_one_more_system(two):
    st, cs = two
    st.calibration.fusion = True
    assert list(cs.comparison.systems) == ["A", "B", FUSION]
    fused = cs.comparison.systems[FUSION]
    assert fused.results is st.results
    assert fused.epc is not None
    assert_allclose(fused.llr_trials("eval").scores,
                    st.export.calibrated_eval().scores)
    assert FUSION in cs.param.reference.objects
    st.calibration.fusion = False
    assert list(cs.comparison.systems) == ["A", "B"]


def test_operating_point_changes_update_table_and_line_without_heavy_work(monkeypatch):
    st = DashboardState()
    st.data.set_systems(_systems())
    view = CompareView(state=st)
    cs = view.cstate
    cs.active = True
    comp = cs.comparison
    calls = _counting(monkeypatch)
    for plo in np.linspace(-5, 2, 15):
        st.point.plo = float(plo)
        assert view.nber.op_span.location == pytest.approx(st.point.plo)
        assert view.ape.op_span.location == pytest.approx(st.point.plo)
        rows = cs.table_rows()
        for r in rows:
            o = comp.systems[r["system"]].analysis("eval").at(st.point.plo)
            assert r["act_dcf"] == o.act_dcf
        assert f"{rows[1]['act_dcf']:.4f}" in view.table.object
    assert calls == []
    assert cs.comparison is comp
    # a drag on the comparison NBER plot moves the main operating point
    view.nber.drag.data = {"x": [-1.25], "y": [0.5]}
    assert st.point.plo == pytest.approx(-1.25)


def test_significance_matches_core(two):
    st, cs = two
    st.point.plo = -2.0
    cs.reference = "A"
    rows = {r["system"]: r for r in cs.table_rows()}
    assert rows["A"]["is_reference"]
    sig = rows["B"]["significance"]
    b, a = st.data.systems["B"].eval, st.data.systems["A"].eval
    z = z_test(b, a, -2.0, names=("B", "A"))
    m = mcnemar_test(b, a, -2.0, names=("B", "A"))
    assert sig.z.p_value == pytest.approx(z.p_value, rel=1e-12)
    assert sig.z.statistic == pytest.approx(z.statistic, rel=1e-12)
    assert sig.z.verdict == z.verdict
    assert sig.mcnemar.p_value == pytest.approx(m.p_value, rel=1e-12)
    assert (sig.mcnemar.only_b_wrong, sig.mcnemar.only_a_wrong) == (m.only_b_wrong,
                                                                     m.only_a_wrong)
    assert sig.mcnemar.verdict == m.verdict
    # against the other reference
    cs.reference = "B"
    sig = {r["system"]: r for r in cs.table_rows()}["A"]["significance"]
    assert sig.z.p_value == pytest.approx(z_test(a, b, -2.0).p_value, rel=1e-12)


def test_significance_is_cached_per_operating_point(two, monkeypatch):
    st, cs = two
    calls = count_heavy(monkeypatch, ("mcnemar_test",))
    for plo in (-2.0, -1.0, -2.0, -1.0):
        st.point.plo = plo
    assert len(calls) == 2
    # a deferred request runs only when the view lets it (a drag at rest)
    deferred = []
    cs.defer = deferred.append
    st.point.plo = 0.5
    assert len(calls) == 2 and cs.tests_current() is None
    deferred[-1]()
    assert len(calls) == 3 and cs.tests_current() is not None


def test_csv_content(two):
    st, cs = two
    st.point.p_target = 0.05
    text = cs.table_csv()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [r["system"] for r in rows] == ["A", "B"]
    table = {r["system"]: r for r in cs.table_rows()}
    for r in rows:
        assert float(r["plo"]) == st.point.plo
        assert float(r["cllr"]) == table[r["system"]]["cllr"]  # full precision
        assert float(r["act_dcf"]) == table[r["system"]]["act_dcf"]
        assert r["reference"] == "A"
    assert rows[0]["z_p_value"] == ""
    sig = table["B"]["significance"]
    assert float(rows[1]["z_p_value"]) == sig.z.p_value
    assert float(rows[1]["mcnemar_p_value"]) == sig.mcnemar.p_value
    assert rows[1]["z_verdict"] == sig.z.verdict


def test_a_system_without_dev_has_no_epc_but_no_error():
    st = DashboardState()
    systems = _systems()
    systems["C"] = SystemData(None, make_trials(6000, seed=2, scale=1.5, ids=True))
    st.data.set_systems(systems)
    view = CompareView(state=st)
    cs = view.cstate
    cs.active = True
    assert st.status.error == ""
    assert cs.comparison.systems["C"].epc is None
    assert "dev" not in cs.comparison.systems["C"].ape
    assert view.epc.sources["hter"].data["name"] == ["A", "B"]
    assert [r["system"] for r in cs.table_rows()] == ["A", "B", "C"]
    cs.role = "dev"
    assert [r["system"] for r in cs.table_rows()] == ["A", "B"]
    assert view.cllr.source.data["name"] == ["A", "B"]
    # calibration needs a dev set: C is left out, with a note, not an error
    cs.role = "eval"
    st.calibration.method = "affine"
    assert list(cs.comparison.systems) == ["A", "B"]
    assert "C" in cs.notice and st.status.error == ""


def test_unpaired_systems_give_a_row_message_not_an_error():
    st = DashboardState()
    systems = _systems()
    systems["D"] = SystemData(None, make_trials(5000, seed=9, ids=False))
    st.data.set_systems(systems)
    cs = st.compare
    cs.active = True
    row = {r["system"]: r for r in cs.table_rows()}["D"]
    assert row["significance"].z is None and "ids" in row["significance"].error
    assert st.status.error == ""


def test_presentation_and_svg_apply_to_the_comparison_figures():
    st = DashboardState()
    st.data.set_systems(_systems())
    view = CompareView(state=st)
    st.display.param.update(presentation=True, svg=True)
    for v in (view.nber, view.det, view.ape, view.ece, view.epc, view.cllr):
        assert v.figure.output_backend == "svg"
        assert v.figure.title.text_font_size == "22px"  # the type scale (DisplayState)
    st.display.svg = False
    assert view.cllr.figure.output_backend == "canvas"


def test_curves_sent_to_the_browser_are_small():
    st = DashboardState()
    st.data.set_systems(_systems(20_000, 60_000))
    view = CompareView(state=st)
    view.cstate.active = True
    for v in (view.nber, view.det, view.ape, view.ece, view.epc):
        for src in v.sources.values():
            assert all(len(x) <= 10_000 for x in src.data["xs"])


class QueueRunner:
    """Keeps jobs until the test runs them (a worker thread that is slow to finish)."""

    def __init__(self):
        self.jobs = []

    def run(self, job, on_done, on_error, on_progress):
        self.jobs.append((job, on_done, on_error, on_progress))

    def run_all(self):
        while self.jobs:
            job, on_done, on_error, on_progress = self.jobs.pop(0)
            try:
                result = job(on_progress)
            except Exception as exc:
                on_error(exc)
            else:
                on_done(result)


def test_in_the_background_the_comparison_waits_for_the_main_view():
    runner = QueueRunner()
    st = DashboardState(runner=runner)
    st.data.set_systems(_systems())
    view = CompareView(state=st)
    cs = view.cstate
    cs.active = True
    assert cs.comparison is None  # it waits for the main view's job(s)
    assert runner.jobs and all(j[0].__qualname__.startswith("DashboardState.")
                               for j in runner.jobs)
    runner.run_all()
    assert cs.comparison is not None
    assert cs.comparison.systems["A"].results is st.results
    # the significance tests came from a job of their own
    assert cs.tests_current() is not None
    # a drag: the table follows at once, the tests wait for the deferred request
    deferred = []
    cs.defer = deferred.append
    st.point.plo = -1.5
    assert runner.jobs == [] and cs.tests_current() is None
    assert "—" in view.table.object or "testing" in view.table.object
    deferred[-1]()
    assert cs.tests_pending and len(runner.jobs) == 1
    assert "testing…" in view.table.object
    runner.run_all()
    assert not cs.tests_pending and cs.tests_current() is not None


def test_a_link_to_the_tab_computes_the_comparison_once_the_data_arrive():
    """As a page opened from a link to the comparison tab: the choices are restored and the
    tab is shown, then the data are loaded in the background."""
    runner = QueueRunner()
    st = DashboardState(runner=runner)
    with st.hold():
        st.restore({"calibration": {"method": "affine"}, "display": {"presentation": True}})
    st.compare.active = True
    runner.run_all()
    st.data.set_systems(_systems())
    assert st.compare.comparison.systems == {}  # waits for the main view
    runner.run_all()
    assert list(st.compare.comparison.systems) == ["A", "B"]
    assert st.compare.comparison.systems["A"].results is st.results



def test_table_writes_underflowing_p_values_and_explains_opposite_verdicts():
    from llrlab.core import opposite_verdicts
    from llrlab.dashboard.compute.compare import SignificanceRow
    from llrlab.dashboard.views.compare import table_html

    a, b = _errs(100, 100_000, 0, 5000), _errs(100, 100_000, 50, 0)
    z = z_test(a, b, 0.0, names=("A", "B"))
    m = mcnemar_test(a, b, 0.0, names=("A", "B"))
    assert m.p_value < 1e-300  # the case the issue saw: "p = 0"
    base = {"n_tar": 100, "n_non": 10_000, "cllr": 1.0, "min_cllr": 0.5,
            "calibration_loss": 0.5, "eer": 0.1, "act_dcf": 0.2, "min_dcf": 0.1,
            "color": "#000000"}
    rows = [{**base, "system": "B", "is_reference": True, "significance": None},
            {**base, "system": "A", "is_reference": False,
             "significance": SignificanceRow(z, m)}]
    text = table_html(rows)
    assert "&lt; 1e-300" in text and ">0.000<" not in text
    assert "so A can cost less while B makes fewer errors." in text
    assert opposite_verdicts(m, z)[1:] in text  # capitalised as a sentence
    # the table scrolls sideways in its own box rather than being cut off
    assert '<div class="llrlab-scroll"><table class="llrlab-compare">' in text
    assert "overflow-x: auto" in text
