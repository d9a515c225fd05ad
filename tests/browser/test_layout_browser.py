"""The page on a projector (1280 x 720) and a desktop (1920 x 1080), in chromium (issue 14.5-14.8).

At each size: the plots, their titles, legends and toolbars, and the tables stay inside the
main area, do not overlap, and every toolbar is shown; the Compare tab's table fits.  Saves
are named and SVG output saves an SVG file; the metrics CSV names the system and the
calibration; teaching mode's histogram has a readable range.  Screenshots go to
``test-artifacts/`` (``layout_*``).
"""

from __future__ import annotations

import csv
import io

import pytest

from .conftest import assert_svg_drawing, save_through_toolbar, screenshot, settle, wait_until
from .test_dashboard_browser import _open

pytestmark = pytest.mark.browser

SIZES = {"1280x720": (1280, 720), "1920x1080": (1920, 1080)}
FIGURES = ("nber", "det", "calibration", "histogram")

#: Boxes (viewport pixels) of what the page shows, found through Bokeh's views: per figure
#: its box, its toolbar's box, the width of its title text and of the toolbar's buttons, and
#: where its legend is; the metrics table's box (its scrolling frame) and the calibration
#: parameters; the main area.
_MEASURE = """(names) => {
  const doc = Bokeh.documents[0];
  const box = (el) => { const r = el.getBoundingClientRect();
    return {x: r.left, y: r.top, r: r.right, b: r.bottom, w: r.width, h: r.height}; };
  const find = (root, sel, acc) => { root.querySelectorAll(sel).forEach(e => acc.push(e));
    root.querySelectorAll('*').forEach(e => { if (e.shadowRoot) find(e.shadowRoot, sel, acc); });
    return acc; };
  const ctx = document.createElement('canvas').getContext('2d');
  const out = {figures: {}, main: box(document.getElementById('main'))};
  for (const name of names) {
    const m = doc.get_model_by_name(name);
    const v = Bokeh.index.find_one(m);
    const tb = Bokeh.index.find_one(m.toolbar);
    const buttons = [...tb.el.shadowRoot.querySelectorAll('.bk-OnOffButton, .bk-ClickButton')];
    ctx.font = `${m.title.text_font_style} ${m.title.text_font_size} ${m.title.text_font}`;
    out.figures[name] = {
      box: box(v.el), toolbar: box(tb.el), buttons: buttons.filter(b => b.offsetWidth > 0).length,
      title_w: ctx.measureText(m.title.text).width,
      buttons_w: buttons.reduce((s, b) => s + b.getBoundingClientRect().width, 0),
      legend_below: m.below.some(x => x.items !== undefined && x.ncols !== undefined),
      frame_w: v.frame ? v.frame.bbox.width : null,
    };
  }
  out.tables = find(document, 'div.llrlab-scroll', []).filter(e => e.offsetWidth > 0).map(
    e => Object.assign(box(e), {sw: e.scrollWidth, cw: e.clientWidth,
                                ox: getComputedStyle(e).overflowX,
                                cls: e.firstElementChild ? e.firstElementChild.className : ''}));
  return out;
}"""


def _overlap(a, b, tol=1.0):
    return (min(a["r"], b["r"]) - max(a["x"], b["x"]) > tol
            and min(a["b"], b["b"]) - max(a["y"], b["y"]) > tol)


def _check_operating_point_tab(m, width):
    main = m["main"]
    figs = m["figures"]
    boxes = {name: f["box"] for name, f in figs.items()}
    metrics = [t for t in m["tables"] if "llrlab-metrics" in t["cls"]]
    assert metrics, "the metrics table is not shown"
    boxes["metrics table"] = metrics[0]
    for name, b in boxes.items():
        # inside the main area, nothing cut off at its right edge
        assert b["x"] >= main["x"] - 1 and b["r"] <= main["r"] + 1, (name, b, main)
        assert b["w"] > 150 and b["h"] > 100, (name, b)
    names = list(boxes)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert not _overlap(boxes[a], boxes[b]), (a, b, boxes[a], boxes[b])
    for name, f in figs.items():
        # the toolbar is there, with its buttons, inside the figure, beside the whole title
        assert f["buttons"] >= 3, (name, f)
        tb, fb = f["toolbar"], f["box"]
        assert tb["w"] > 0 and tb["h"] > 0 and tb["x"] >= fb["x"] - 1 and tb["r"] <= fb["r"] + 1
        assert f["title_w"] + f["buttons_w"] + 40 < fb["w"], (name, f)
        assert f["legend_below"] or name == "calibration", (name, f)
        # plots wide enough for their ticks, labels and the "unreliable" notes
        assert fb["w"] >= 400, (name, fb)
    for t in m["tables"]:
        # a table wider than its place scrolls in its own frame, never into its neighbour
        assert t["ox"] == "auto" and t["r"] <= main["r"] + 1, t
    if width < 1400:  # a projector: the DET plot under the NBER plot, full width
        assert figs["det"]["box"]["y"] >= figs["nber"]["box"]["b"] - 1
        assert figs["det"]["box"]["w"] > 0.9 * figs["nber"]["box"]["w"]
    else:  # side by side
        assert figs["det"]["box"]["x"] >= figs["nber"]["box"]["r"] - 1


def _scroll_main(page, fraction):
    page.evaluate(f"() => {{ const m = document.getElementById('main'); "
                  f"m.scrollTop = {fraction} * (m.scrollHeight - m.clientHeight); }}")
    settle(page)


@pytest.mark.parametrize("size", list(SIZES))
def test_layout_fits_the_screen(page, serve, size):
    from llrlab.dashboard.app import create_app

    w, h = SIZES[size]
    page.set_viewport_size({"width": w, "height": h})
    served = serve(create_app)
    session = _open(page, served=served)
    wait_until(page, lambda: session.page_control.main_width > 0, what="the page size")
    settle(page)  # the layout settles (debounced size report)
    _check_operating_point_tab(page.evaluate(_MEASURE, list(FIGURES)), w)
    screenshot(page, f"layout_{size}_top")
    _scroll_main(page, 0.5)
    screenshot(page, f"layout_{size}_middle")
    _scroll_main(page, 1.0)
    screenshot(page, f"layout_{size}_bottom")
    _scroll_main(page, 0.0)

    # the Compare tab: the whole table (McNemar column and verdicts) is visible
    page.locator(".bk-tab", has_text="Compare systems").click()
    wait_until(page, lambda: page.locator('td[data-key="mcnemar_p"]').count() >= 2
               and "testing" not in page.locator('td[data-key="mcnemar_p"]').last.inner_text(),
               timeout=60, what="the comparison table")
    settle(page)
    m = page.evaluate(_MEASURE, [])
    table = [t for t in m["tables"] if "llrlab-compare" in t["cls"]]
    assert table and table[0]["r"] <= m["main"]["r"] + 1
    assert table[0]["sw"] <= table[0]["cw"] + 1, table  # fits: nothing to scroll to
    last = page.locator('td[data-key="mcnemar_p"]').last.bounding_box()
    assert last["x"] + last["width"] <= table[0]["r"] + 1
    screenshot(page, f"layout_{size}_compare")

    # presentation style: the sidebar folds; the same rules hold with the larger fonts
    _open(page, served=served, query="?present=true")
    wait_until(page, lambda: page.evaluate(
        "() => !document.getElementById('sidebar').classList.contains('show')"),
        what="the sidebar folded")
    settle(page)
    _check_operating_point_tab(page.evaluate(_MEASURE, list(FIGURES)), w)
    screenshot(page, f"layout_{size}_presentation")
    assert page.external_requests == []


def test_saves_are_named_and_svg_output_saves_svg(page, serve, tmp_path):
    page.set_viewport_size({"width": 1280, "height": 720})
    _open(page, serve, query="?svg=true")
    wait_until(page, lambda: page.evaluate(
        "() => Bokeh.documents[0].get_model_by_name('nber').output_backend") == "svg",
        what="SVG output")
    name, data = save_through_toolbar(page, "nber", tmp_path / "saved")
    assert name == "llrlab-nber.svg"
    assert_svg_drawing(data)


def test_metrics_csv_and_the_off_plot_operating_point(page, serve, tmp_path):
    state = _open(page, serve).state
    # DR30-safe is judged at the min-DCF threshold: it follows the min DCF row
    keys = page.locator("table.llrlab-metrics tr[data-key]").evaluate_all(
        "rows => rows.map(r => r.dataset.key)")
    assert keys[keys.index("min_dcf") + 1] == "dr30_safe"
    assert keys.index("dr30_safe") < keys.index("misses")
    with page.expect_download() as info:
        page.get_by_role("button", name="Metrics (CSV)").click()
    download = info.value
    path = tmp_path / "metrics.csv"
    download.save_as(path)
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    assert {"system", "calibration", "role", "dr30_safe"} <= set(rows[0])
    assert {r["system"] for r in rows} == {state.data.system}
    assert {r["calibration"] for r in rows} == {"none"}
    # the demo's actual operating point (Pmiss 100 %) is off the DET plot: said on its edge
    assert page.evaluate(
        "() => Bokeh.documents[0].get_model_by_name('det_off_label').visible") is True
    assert "off the plot" in page.evaluate(
        "() => Bokeh.documents[0].get_model_by_name('det_off_label').text")


def test_teaching_histogram_has_a_readable_range(page, serve):
    page.set_viewport_size({"width": 1280, "height": 720})
    session = _open(page, serve, query="?teach=true")
    state = session.state
    wait_until(page, lambda: state.results.teaching, what="teaching mode")

    def x_range():
        return page.evaluate("""() => { const r = Bokeh.documents[0]
            .get_model_by_name('histogram').x_range; return [r.start, r.end]; }""")

    wait_until(page, lambda: abs(x_range()[1] - float(state.results.datasets["eval"]
                                                      .hist.edges[-1])) < 1e-9,
               what="the teaching histogram")
    lo, hi = x_range()
    # before: -3.7 .. 36.6 at the defaults (-5 .. 80 once scaled); the non-targets sat in
    # the leftmost 6 % of the axis
    assert hi - lo < 30 and lo > -4
    non = state.results.datasets["eval"].raw.sorted.non
    share = (float(non[int(0.95 * non.size)]) - float(non[int(0.05 * non.size)])) / (hi - lo)
    assert share > 0.09
    note = page.locator(".bk-panel-models-markup-HTML, div").filter(has_text="lie outside")
    assert note.count() > 0
    axis = page.evaluate("() => Bokeh.documents[0].get_model_by_name('histogram')"
                         ".below.find(m => m.axis_label != null).axis_label")
    assert "miscalibrated" not in axis
    _scroll_main(page, 1.0)
    screenshot(page, "layout_teaching_histogram")
