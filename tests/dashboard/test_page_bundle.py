"""A served page loads BokehJS and Panel without Bokeh's MathJax bundle
(:mod:`llrlab.dashboard.page_bundle`): in the wrapped Panel function, and in the page that
the installed ``llrlab serve`` sends."""

from __future__ import annotations

import panel as pn
import panel.io.server as panel_server
from bokeh.document import Document
from bokeh.resources import Resources
from panel.io.resources import bundle_resources

from llrlab.dashboard.page_bundle import without_mathjax

from ..browser.test_serve_access import _get
from .test_serve_process import Served


def _js(bundle):
    return " ".join(str(f) for f in bundle.js_files)


def _roots():
    doc = Document()
    return [pn.pane.Markdown("**a** pane").get_root(doc)]


def test_panels_own_choice_would_load_mathjax_for_a_markdown_pane():
    """What the wrapper is for: left to Panel ('auto'), a page with a Markdown pane loads
    the bundle (if this fails, Panel no longer does, and page_bundle may go)."""
    assert "bokeh-mathjax" in _js(bundle_resources(_roots(), Resources(mode="server")))


def test_the_served_pages_bundle_leaves_mathjax_out_and_keeps_the_rest():
    assert without_mathjax() is True
    assert without_mathjax() is True  # once: not wrapped twice
    wrapped = panel_server.bundle_resources
    assert wrapped.__wrapped__ is bundle_resources
    js = _js(wrapped(_roots(), Resources(mode="server")))
    assert "bokeh-mathjax" not in js
    for part in ("bokeh.min.js", "bokeh-widgets", "bokeh-tables", "bokeh-gl", "panel.min.js"):
        assert part in js, part


def test_the_installed_servers_pages_load_no_mathjax(tmp_path):
    """``llrlab serve`` (the console script, its own process): the dashboard's page and a
    lesson's link list BokehJS, its widgets and Panel, and not the MathJax bundle."""
    s = Served(tmp_path)
    try:
        for route in ("/", "/?lesson=calibration&step=3"):
            status, _, body = _get(s.base + route)
            html = body.decode()
            assert status == 200, route
            assert "bokeh.min.js" in html and "panel.min.js" in html, route
            assert "bokeh-widgets" in html, route
            assert "mathjax" not in html.lower(), route
    finally:
        s.close()
