"""The dashboard in a Jupyter notebook: create_app() renders as a notebook output."""

from __future__ import annotations

from llrlab.dashboard.app import create_app


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
