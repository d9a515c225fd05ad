"""One view failing to update leaves the others up to date, and the failure is shown."""

from __future__ import annotations

from llrlab.dashboard.state import DashboardState
from llrlab.dashboard.views import CalibrationView, MetricsView
from llrlab.dashboard.views import calibration as calibration_module
from llrlab.dashboard.views.metrics import table_data

from .conftest import make_trials


def test_a_failing_view_does_not_leave_the_others_stale(monkeypatch, caplog):
    st = DashboardState()
    st.data.set_trials("A", "dev", make_trials(2000, seed=1, scale=0.5, shift=1.0))
    st.data.set_trials("A", "eval", make_trials(3000, seed=2, scale=0.5, shift=1.3))
    # the calibration card is updated first (made first): it fails on every update
    cal = CalibrationView(state=st)
    metrics = MetricsView(state=st)
    before = metrics.data

    def broken(_d):
        raise TypeError("List parameter 'Bokeh.stylesheets' items must be instances of str")

    monkeypatch.setattr(calibration_module, "describe", broken)
    with caplog.at_level("ERROR"):
        st.calibration.method = "affine"
    assert st.results.calibration is not None
    assert metrics.data == table_data(st) != before  # the table shows the new numbers
    assert st.status.error.startswith("the page could not be updated: TypeError")
    assert "CalibrationView" in caplog.text and "Traceback" in caplog.text
    assert cal.figure is not None
