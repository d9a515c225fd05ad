"""Fusion in a real browser: ticking "Fuse all systems" updates every view (issue 14 item 2).

The metrics table must show the fused system's numbers, computed here again with the core
alone (``fit_calibrator(method="fusion")`` on the dev sets, applied to the eval sets,
``analyze`` at the same operating point), and the calibration card the fusion's weights.
"""

from __future__ import annotations

import numpy as np
import pytest

from llrlab.core import analyze
from llrlab.core.calibration import fit_calibrator
from llrlab.dashboard.app import create_app
from llrlab.dashboard.views.metrics import MEASURES

from .conftest import wait_until
from .test_dashboard_browser import _open, _table

pytestmark = pytest.mark.browser

_FMT = {key: fmt for key, _, fmt in MEASURES}
_ROW = {key: i for i, (key, _, _) in enumerate(MEASURES)}


def test_fusion_updates_every_view(page, serve):
    session = _open(page, serve, create_app)
    state = session.state
    systems = state.data.systems
    assert len(systems) >= 2, "the demo has several systems"
    before = _table(page, "eval")
    # the checkbox's label is drawn inside its own shadow root: tick it through its model,
    # which sends the change over the websocket as a click does
    ticked = page.evaluate("""() => {
        for (const m of Bokeh.documents[0].all_models) {
            if (m.label === "Fuse all systems" && "active" in m) { m.active = true; return true; }
        }
        return false;
    }""")
    assert ticked
    wait_until(page, lambda: state.calibration.fusion, what="the checkbox")
    wait_until(page, lambda: state.calibration.fusion and not state.status.busy
               and state.results is not None and state.results.calibration is not None
               and state.results.mapping is None, what="the fusion")

    names = list(systems)
    cal = fit_calibrator([systems[n].dev for n in names], method="fusion",
                         prior=state.calibration.train_prior)
    fused = cal.apply_systems([systems[n].eval for n in names])
    plo = state.point.plo
    a = analyze(fused, plo=[plo])
    expected = {"cllr": a.cllr, "min_cllr": a.min_cllr, "eer": a.eer,
                "act_dcf": a.at(plo).act_dcf, "min_dcf": a.at(plo).min_dcf}
    want = {k: _FMT[k](float(v)) for k, v in expected.items()}

    def shown():
        col = _table(page, "eval")
        return {k: col[_ROW[k]] for k in want}

    wait_until(page, lambda: all(shown()[k].startswith(want[k]) for k in want),
               what=f"the fused numbers {want} in the table")
    assert shown()["cllr"] != before[_ROW["cllr"]]
    # the calibration card: the fusion's trained weights, not system A's parameters
    params = state.export.calibration_dict()
    weights = np.ravel(params.get("weights", params.get("w", [])))
    assert weights.size == len(names), params
    key = "weights" if "weights" in params else "w"

    def card():
        return " ".join(t for t in page.locator("table").all_inner_texts() if key in t)

    wait_until(page, lambda: card(), what="the fusion weights in the calibration card")
    assert "scale" not in card() and "shift" not in card(), card()
    assert state.status.error in ("", None), state.status.error
    assert page.console_errors == []
