"""The served dashboard's drag computed in the page (chromium): while the pointer moves on the
NBER or DET plot, the page reads the exact operating-point grid itself and sends nothing; when
the pointer pauses or the drag ends, the server gets the point once, and the table shows the
exact values there.

The numbers the page computed at each move are read from the drag channel's
``_llrlab_last`` (``llrlabGrid.at``) and compared with ``Analysis.at`` of the session's own
analyses: at grid points they agree (counts and rates exactly, the DCFs to 1e-12).  The
messages the page sends are counted with Playwright's websocket frames.
"""

from __future__ import annotations

import numpy as np
import pytest

from llrlab.core import probit
from llrlab.dashboard.app import create_app
from llrlab.dashboard.views.op_grid import SERVED_STEP

from .conftest import PAGE_LOAD, drag_settled, quiet, settle, wait_until

pytestmark = pytest.mark.browser

_FORMATS = {"act_dcf": lambda v: f"{v:.4f}", "min_dcf": lambda v: f"{v:.4f}",
            "misses": lambda v: f"{int(v):,}", "false_alarms": lambda v: f"{int(v):,}",
            "p_miss": lambda v: f"{100 * v:.3f}", "p_fa": lambda v: f"{100 * v:.3f}",
            "dr30_safe": lambda v: "yes" if v else "NO"}


def _open(page, serve):
    url, sessions = serve(create_app)
    page.sent = []

    def on_ws(ws):
        def frame(payload):  # a Bokeh message starts with a header frame naming its type
            if isinstance(payload, str) and '"msgtype"' in payload[:200]:
                page.sent.append(payload[:200])
            elif isinstance(payload, str) and page.sent:
                page.sent[-1] += payload[:300]

        ws.on("framesent", frame)

    page.on("websocket", on_ws)
    page.goto(url)
    wait_until(page, lambda: sessions and sessions[0].state.results is not None
               and not sessions[0].state.status.busy, timeout=PAGE_LOAD, what="the demo")
    state = sessions[0].state
    wait_until(page, lambda: page.evaluate(
        "() => Bokeh.documents[0].get_model_by_name('op_grid').data.plo.length") > 0,
               timeout=PAGE_LOAD, what="the grid in the page")
    wait_until(page, lambda: _cell(page, "act_dcf", "eval")
               == f"{state.op['eval'].act_dcf:.4f}", what="the table")
    settle(page)
    return state


def _cell(page, key, role):
    loc = page.locator(f'td[data-role="{role}"][data-key="{key}"]')
    return loc.first.evaluate("td => td.firstChild ? td.firstChild.nodeValue : ''") \
        if loc.count() else None


def _last(page, fig):
    """The page's last look-up (``llrlabGrid.at``) and the table's cells, read at once."""
    return page.evaluate(f"""() => {{
        const C = Bokeh.documents[0].get_model_by_name('{fig}_drag'), A = C._llrlab_last;
        if (A == null) {{ return null; }}
        const cells = {{}}, M = C._llrlab_models;
        for (const td of M.table.shadow_el.querySelectorAll("td[data-role][data-key]")) {{
            cells[td.dataset.role + " " + td.dataset.key] = td.firstChild.nodeValue;
        }}
        return {{plo: A.plo, col: A.col, cells: cells}}; }}""")


def _drag_messages(page, n0):
    """The messages the page sent since ``n0`` but the address's echo (Panel's Location
    model reports the URL the server set when the point moved)."""
    rest = page.sent[n0:]
    assert all('"attr":"href"' in m or '"attr":"data"' in m for m in rest), rest
    return sum('"attr":"data"' in m for m in rest)


def _box(page, fig):
    return page.evaluate(f"""() => {{
        const v = Bokeh.index.find_one(Bokeh.documents[0].get_model_by_name('{fig}'));
        v.el.scrollIntoView({{block: "center"}});
        const r = v.canvas_view.el.getBoundingClientRect(), f = v.frame.bbox;
        return {{x: r.x + f.left, y: r.y + f.top, width: f.width, height: f.height}}; }}""")


def _check_at_grid_point(page, state, A):
    """The page's numbers at grid point ``A['plo']`` are Analysis.at's, and so are the cells."""
    plo = A["plo"]
    assert plo / SERVED_STEP == round(plo / SERVED_STEP)  # a grid point
    col = A["col"]
    for j, role in enumerate(col["label"]):
        want = state.results.datasets[role].llr.at(plo)
        assert col["misses"][j] == want.act.misses
        assert col["false_alarms"][j] == want.act.false_alarms
        assert col["p_miss"][j] == float(want.act.p_miss)
        assert col["p_fa"][j] == float(want.act.p_fa)
        assert col["min_p_miss"][j] == float(want.min.p_miss)
        assert col["min_p_fa"][j] == float(want.min.p_fa)
        assert col["dr30_safe"][j] == want.dr30_safe
        for key, value in (("act_dcf", want.act_dcf), ("min_dcf", want.min_dcf),
                           ("effective_prior", want.effective_prior)):
            assert col[key][j] == pytest.approx(value, rel=1e-12, abs=1e-300)
        for key, fmt in _FORMATS.items():
            value = want.dr30_safe if key == "dr30_safe" else (
                getattr(want, key) if key in ("act_dcf", "min_dcf")
                else getattr(want.act, key))
            assert A["cells"][f"{role} {key}"] == fmt(value), (key, role)


def _exact_table(page, state):
    """The table shows the server's exact values at its operating point."""
    for role, op in state.op.items():
        for key, fmt in _FORMATS.items():
            value = op.dr30_safe if key == "dr30_safe" else (
                getattr(op, key) if key in ("act_dcf", "min_dcf") else getattr(op.act, key))
            if _cell(page, key, role) != fmt(value):
                return False
    return True


def test_nber_drag_is_computed_in_the_page_and_sent_once(page, serve):
    state = _open(page, serve)
    box = _box(page, "nber")
    y = box["y"] + 0.5 * box["height"]
    page.mouse.move(box["x"] + 0.30 * box["width"], y)
    page.mouse.down()
    drag_settled(page, "nber")  # a press held still sets the point too
    n0, plo0, seen = len(page.sent), state.point.plo, set()
    for k in range(12):  # a steady drag: moves 60 ms apart, shorter than the pause
        page.mouse.move(box["x"] + (0.32 + 0.03 * k) * box["width"], y)
        A = _last(page, "nber")
        assert A is not None
        _check_at_grid_point(page, state, A)
        seen.add(A["plo"])
        page.wait_for_timeout(60)
    assert len(seen) >= 10  # the point moved at each step
    assert page.sent[n0:] == []  # nothing went to the server while the pointer moved
    assert state.point.plo == plo0
    # the pointer pauses (the button still down): the point goes to the server once
    wait_until(page, lambda: state.point.plo != plo0, what="the pause to reach the server")
    quiet(page)
    assert _drag_messages(page, n0) == 1, page.sent[n0:]
    last = _last(page, "nber")["plo"]
    assert abs(state.point.plo - last) <= SERVED_STEP / 2  # the nearest grid point
    wait_until(page, lambda: _exact_table(page, state), what="the exact values in the table")
    assert page.evaluate("() => Bokeh.documents[0].get_model_by_name('op_span').location") \
        == state.point.plo
    # the release at the same place sends it again (the end of the drag) and nothing moves
    page.mouse.up()
    quiet(page)
    assert _exact_table(page, state)
    assert page.console_errors == []


def test_a_tap_at_the_same_place_twice_ends_with_the_exact_values(page, serve):
    state = _open(page, serve)
    box = _box(page, "nber")
    x, y = box["x"] + 0.61 * box["width"], box["y"] + 0.5 * box["height"]
    page.mouse.click(x, y)
    wait_until(page, lambda: _exact_table(page, state) and state.point.plo
               == pytest.approx(_last(page, "nber")["plo"], abs=SERVED_STEP),
               what="the tap's exact values")
    quiet(page)
    plo = state.point.plo
    page.mouse.click(x, y)  # the page shows the grid's numbers, the server's point is the same
    quiet(page)
    assert state.point.plo == plo
    wait_until(page, lambda: _exact_table(page, state), what="the exact values again")


def test_det_drag_is_computed_in_the_page(page, serve):
    state = _open(page, serve)
    box = _box(page, "det")
    page.mouse.move(box["x"] + 0.45 * box["width"], box["y"] + 0.35 * box["height"])
    page.mouse.down()
    drag_settled(page, "det")
    n0 = len(page.sent)
    for k in range(8):
        page.mouse.move(box["x"] + (0.46 + 0.03 * k) * box["width"],
                        box["y"] + (0.36 + 0.03 * k) * box["height"])
        A = _last(page, "det")
        assert A is not None
        _check_at_grid_point(page, state, A)
        page.wait_for_timeout(40)
    assert page.sent[n0:] == []
    # the DET markers moved in the page, to the grid point's rates (on the plot's edge
    # when off it)
    op, (x0, x1) = page.evaluate("""() => {
        const doc = Bokeh.documents[0], d = doc.get_model_by_name('det_op_eval').data,
              r = doc.get_model_by_name('det').x_range;
        return [Array.from(d.x), [r.start, r.end]]; }""")
    j = A["col"]["label"].index("eval")
    want = [float(probit(A["col"]["p_fa"][j])), float(probit(A["col"]["min_p_fa"][j]))]
    assert op == pytest.approx(np.clip(want, x0, x1), abs=1e-6)
    page.mouse.up()
    wait_until(page, lambda: len(page.sent) > n0, what="the release to be sent")
    quiet(page)
    assert _drag_messages(page, n0) == 1, page.sent[n0:]
    wait_until(page, lambda: _exact_table(page, state), what="the exact values")
    assert page.console_errors == []



#: Counts, from now on, each plot's repaints of its primary canvas (every curve, axis and
#: legend) and of its overlay canvas, and each legend's rebuilds of its items (BokehJS's
#: ``PlotView._paint_primary``, ``_paint_overlays``, ``LegendView._render_items``).
_COUNT_PAINTS = """() => {
    const c = window.__llrlab_paints = {};
    if (window.__llrlab_paints_on) { return; }
    window.__llrlab_paints_on = true;
    const P = Bokeh.require("models/plots/plot_canvas").PlotView.prototype;
    const L = Bokeh.require("models/annotations/legend").LegendView.prototype;
    const wrap = (proto, method, what) => {
        const f = proto[method];
        proto[method] = function (...a) {
            const plot = (this.plot_view != null ? this.plot_view : this).model.name;
            const k = plot + " " + what, n = window.__llrlab_paints;
            n[k] = (n[k] || 0) + 1;
            return f.apply(this, a);
        };
    };
    wrap(P, "_paint_primary", "primary");
    wrap(P, "_paint_overlays", "overlays");
    wrap(L, "_render_items", "legend");
    // a <style> element of a plot written again with the text it had (BokehJS writes each
    // renderer's position there at each paint): the page restyles for nothing
    const last = new WeakMap(), roots = [];
    const walk = (root) => {
        for (const el of root.querySelectorAll("*")) {
            if (el.tagName === "STYLE") { last.set(el, el.textContent); }
            if (el.shadowRoot) { roots.push(el.shadowRoot); walk(el.shadowRoot); }
        }
    };
    walk(document);
    const seen = (records) => {
        for (const r of records) {
            const el = r.target.nodeType === 3 ? r.target.parentNode : r.target;
            if (el == null || el.tagName !== "STYLE") { continue; }
            const n = window.__llrlab_paints, k = last.get(el) === el.textContent
                ? "same style written" : "style changed";
            n[k] = (n[k] || 0) + 1;
            last.set(el, el.textContent);
        }
    };
    for (const root of roots) {
        new MutationObserver(seen).observe(root, {childList: true, subtree: true,
                                                   characterData: true});
    }
}"""


def test_a_move_repaints_only_the_overlays(page, serve):
    """While the pointer moves, the page repaints the NBER and DET plots' overlay canvases
    (the line, its label, the markers) and nothing else: no primary canvas (the curves of up
    to thousands of points, axes, legends), no legend rebuilt; the DET markers there stay
    clipped to the plot's frame, as on the primary canvas; no style sheet is written again
    with the text it had."""
    _open(page, serve)
    box = _box(page, "nber")
    y = box["y"] + 0.5 * box["height"]
    page.mouse.move(box["x"] + 0.30 * box["width"], y)
    page.mouse.down()
    drag_settled(page, "nber")
    # the first move gives the DET markers the drag's shapes (a circle and a square; the
    # server draws a point off the plot as a triangle on its edge, which the legend shows)
    page.mouse.move(box["x"] + 0.31 * box["width"], y)
    page.wait_for_timeout(50)
    page.evaluate(_COUNT_PAINTS)
    for k in range(10):  # moves shorter than the pause: nothing comes from the server
        page.mouse.move(box["x"] + (0.32 + 0.03 * k) * box["width"], y)
        page.wait_for_timeout(40)
    page.wait_for_timeout(50)  # the last move's frame
    counts = page.evaluate("() => window.__llrlab_paints")
    page.mouse.up()
    assert counts.get("nber overlays", 0) >= 5 and counts.get("det overlays", 0) >= 5, counts
    rest = {k: n for k, n in counts.items() if k != "style changed"}
    assert {k: n for k, n in rest.items() if not k.endswith(" overlays")} == {}
    clipped = page.evaluate("""() => {
        const doc = Bokeh.documents[0], pv = Bokeh.index.find_one(doc.get_model_by_name('det'));
        const out = [];
        for (const [model, view] of pv.renderer_views) {
            const src = model.data_source;
            if (src != null && /^det_op_/.test(src.name)) { out.push(view.needs_clip); }
        }
        return out; }""")
    assert clipped == [True, True]
    assert page.console_errors == []
