"""The dashboard in a Jupyter notebook: create_app() renders as a notebook output, and
Dashboard(data) on Python objects, with its state read and set from Python."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from llrlab.core import DataError, Trials, analyze, plo_from_costs
from llrlab.dashboard import Dashboard
from llrlab.dashboard.app import create_app
from llrlab.dashboard.notebook import OperatingPointSetting
from llrlab.dashboard.state.operating_point import PLO_LIMIT


def test_create_app_renders_as_a_notebook_output():
    app = create_app()  # no server session: heavy work runs inline, as in a kernel
    assert app.state.results is not None and set(app.state.results.datasets) == {"dev", "eval"}
    data, _ = app._repr_mimebundle_()
    assert "text/html" in data and "application/vnd.holoviews_exec.v0+json" in data
    html = data["text/html"]
    for text in ("Normalized Bayes error rate", "Metrics at the operating point", "DET"):
        assert text in html
    # the state drives the rendered page: a new operating point reaches the sources
    before = app.state.op["eval"].act_dcf
    app.state.point.p_target = 0.3
    assert app.state.op["eval"].act_dcf != before


# ------------------------------------------------------------------ Dashboard(data)



@pytest.fixture(scope="module")
def trials():
    rng = np.random.default_rng(3)
    return Trials.from_tar_non(rng.normal(2, 1, 200), rng.normal(-2, 1.5, 2000))


@pytest.fixture(scope="module")
def one_dashboard(trials):
    return Dashboard(trials)


def test_dashboard_on_arrays_reads_back_the_metrics(trials):
    dash = Dashboard((trials.scores[trials.labels], trials.scores[~trials.labels]), name="X")
    assert dash.systems == ["X"] and dash.system == "X"
    table = dash.metrics()
    assert isinstance(table, pd.DataFrame) and list(table.index) == ["eval"]
    p = dash.operating_point
    assert isinstance(p, OperatingPointSetting)
    ref = analyze(trials).at(p.plo)
    row = table.loc["eval"]
    assert row["p_target"] == p.p_target and row["plo"] == p.plo
    assert row["n_tar"] == 200 and row["n_non"] == 2000
    assert row["act_dcf"] == pytest.approx(ref.act_dcf, rel=1e-12)
    assert row["min_dcf"] == pytest.approx(ref.min_dcf, rel=1e-12)
    assert set(dash.results) == {"eval"}


def test_operating_point_set_from_python_moves_the_state_and_table(trials):
    dash = Dashboard(trials, dev=trials)
    dash.operating_point = {"p_target": 0.1, "c_miss": 2.0}
    p = dash.operating_point
    assert (p.p_target, p.c_miss, p.c_fa) == (0.1, 2.0, 1.0)
    assert p.plo == pytest.approx(plo_from_costs(0.1, 2.0, 1.0), abs=1e-12)
    assert dash.state.point.p_target == 0.1
    table = dash.metrics()
    assert list(table.index) == ["dev", "eval"]
    assert table.loc["eval", "act_dcf"] == pytest.approx(analyze(trials).at(p.plo).act_dcf)
    dash.operating_point = {"plo": -3.0}  # moves the prior, keeps the costs
    p = dash.operating_point
    assert p.plo == pytest.approx(-3.0, abs=1e-9) and (p.c_miss, p.c_fa) == (2.0, 1.0)
    dash.operating_point = {"effective_prior": 0.5}
    assert dash.operating_point.plo == pytest.approx(0.0, abs=1e-9)
    dash.operating_point = OperatingPointSetting(0.01, 1.0, 1.0, math.nan, math.nan)
    assert dash.operating_point.plo == pytest.approx(plo_from_costs(0.01), abs=1e-12)


def test_a_drag_in_the_page_is_read_back(trials):
    dash = Dashboard(trials)
    before = dash.metrics().loc["eval", "act_dcf"]
    dash.state.point.set_plo(2.5)  # what the page's drag does to the shared state
    assert dash.operating_point.plo == pytest.approx(2.5, abs=1e-9)
    after = dash.metrics().loc["eval"]
    assert after["plo"] == pytest.approx(2.5, abs=1e-9) and after["act_dcf"] != before
    assert "plo=2.5" in repr(dash)


@pytest.mark.parametrize(("value", "message"), [
    (0.1, "operating_point takes an OperatingPointSetting or a dict of p_target, c_miss"),
    ({"prior": 0.1}, "operating point: unknown 'prior'; give some of p_target"),
    ({"plo": 1.0, "effective_prior": 0.2}, "give plo or effective_prior, not both"),
    ({"p_target": "high"}, "operating point: p_target must be a number, got 'high'"),
    ({"c_fa": math.inf}, "operating point: c_fa must be finite"),
    ({"p_target": 1.5}, "p_target"),
    ({"effective_prior": 1.0}, "effective_prior must lie strictly between 0 and 1"),
    ({"plo": PLO_LIMIT + 1}, f"plo must lie within ±{PLO_LIMIT:g}"),
])
def test_bad_operating_point_is_one_line_and_changes_nothing(one_dashboard, value, message):
    dash = one_dashboard
    before = dash.operating_point
    with pytest.raises(DataError) as err:
        dash.operating_point = value
    assert message in str(err.value) and "\n" not in str(err.value)
    assert dash.operating_point == before


def test_systems_of_a_frame_and_switching_system():
    rng = np.random.default_rng(1)
    n = 400
    df = pd.DataFrame({"llr": rng.normal(0, 2, n), "class": rng.integers(0, 2, n),
                       "system": np.repeat(["A", "B"], n // 2),
                       "role": np.tile(np.repeat(["dev", "eval"], n // 4), 2)})
    dash = Dashboard(df)
    assert dash.systems == ["A", "B"] and dash.system == "A"
    a = dash.metrics().loc["eval", "act_dcf"]
    dash.system = "B"
    assert dash.metrics().loc["eval", "system"] == "B"
    assert dash.metrics().loc["eval", "act_dcf"] != a
    with pytest.raises(DataError, match="no system 'C'; the loaded systems are 'A', 'B'"):
        dash.system = "C"


def test_bad_object_fails_before_anything_is_built():
    with pytest.raises(DataError) as err:
        Dashboard("scores.txt")
    assert str(err.value) == ("system 'system' eval: cannot read a str as scores; give "
                              "(tar, non) arrays, (scores, labels) arrays, a Trials, a pandas "
                              "DataFrame, or a dict of systems ({name: data} or {name: "
                              "{'dev': data, 'eval': data}})")


def test_inline_output_is_the_page_without_its_header(trials):
    dash = Dashboard(trials)
    data, _ = dash._repr_mimebundle_()
    html = data["text/html"]
    assert "Normalized Bayes error rate" in html and "Operating point" in html
    assert "llrlab: detector scores, calibration and DCF" not in html
    assert dash.__panel__() is dash.__panel__()
    assert dash.servable() is dash  # outside `panel serve`: nothing to mark
