"""The self-contained interactive HTML report: one file that works offline, with no server.

:func:`report_html` turns core results -- an :class:`~llrlab.core.Analysis` of the LLRs of
each score set (:class:`ReportSet`) and, optionally, the calibrator that produced them --
into one HTML file with Bokeh's JavaScript inlined (no CDN, no network request): the metrics
table, the NBER, DET, score-histogram, calibration, Tippett and reliability plots.  It is
what ``llrlab report`` writes (:mod:`llrlab.dashboard.report_cli`) and what the dashboard's
"Export interactive HTML" button downloads.

In the page the operating point can still be dragged on the NBER, DET, histogram and Tippett
plots; the numbers follow in the browser, from precomputed arrays and binary searches
(see :mod:`llrlab.dashboard.report_page` for the script):

* What is exact.  The operating point moves on a grid of prior log-odds: every multiple of
  1/512 in [-20, 20] and the report's starting point
  (:func:`llrlab.core.op_grid.grid_plo`).  For each grid point and score set the file holds
  the numbers of misses and false alarms at the Bayes threshold ``-plo``, the index of the
  optimal ROCCH vertex and the DR30 flag; for each vertex used, its error rates and counts
  (:func:`llrlab.core.operating_point_grid`).  At a grid point the page shows exactly
  ``Analysis.at(plo)``: the same counts, the same rates (``misses / T`` is one IEEE division
  in both languages; weighted rates are stored), the minimum-DCF rates of the same vertex;
  the two DCFs and the effective prior use ``exp`` and agree to rounding (~1e-16).
* Size.  The grid has 20482 points whatever the number of trials: 11 to 13 bytes per point
  and set (counts as int32, the vertex index as uint16 or int32, the DR30 flag as uint8),
  plus decimated curves for drawing (at most :data:`~llrlab.dashboard.compute.DET_POINTS`
  points per DET curve, :data:`CURVE_POINTS` per Tippett curve and
  :data:`RELIABILITY_POINTS` per reliability curve) and
  BokehJS itself (about 1.3 MB): 2-3 MB for three score sets, at 10^7 trials as at 10^3.
* What is not live.  The binned reliability diagram needs every score at each prior: its
  points are drawn at the starting operating point and hidden elsewhere (the PAV diagram
  follows the drag).
"""

from __future__ import annotations

import html
import math
from dataclasses import dataclass

import numpy as np
from bokeh.document import Document
from bokeh.embed import file_html
from bokeh.events import DocumentReady, Pan, PanStart, Tap
from bokeh.models import (
    BoxAnnotation,
    BoxZoomTool,
    ColumnDataSource,
    CustomJS,
    Legend,
    LegendItem,
    Range1d,
    Span,
)
from bokeh.resources import Resources
from jinja2 import Template

from llrlab.core import (
    LLR_UNITS,
    Analysis,
    DataError,
    ece_curves,
    fmr_label,
    fnmr_at_fmr,
    llr_label,
    llr_to_unit,
    operating_point_grid,
    plo_from_costs,
    probit,
    reliability,
    tippett,
)
from llrlab.core.det import det_axis_start
from llrlab.core.op_grid import GRID_LIMIT, GRID_STEP, grid_plo
from llrlab.core.palette import FILLS

from .compute import APE_PLO, DET_POINTS, HIST_BINS, hist_range, histogram
from .compute.results import DET_FMR
from .op_grid_data import grid_columns, vertex_columns
from .report_page import CSS, SCRIPT, TEMPLATE
from .views._common import COLORS, finite, new_figure
from .views.det import choose_ticks, probit_axes

__all__ = ["CURVE_POINTS", "MAX_SETS", "RELIABILITY_POINTS", "REPORT_PANELS", "ReportParts",
           "ReportSet", "report_document", "report_from_results", "report_html",
           "report_parts", "write_report"]

#: Score sets a report can hold (each adds about 0.35 MB of exact look-up data).
MAX_SETS = 4
#: Largest number of points per Tippett or PAV reliability curve drawn in the report.
CURVE_POINTS = 2000
#: Points of each PAV reliability curve: the drag recomputes them on every move.
RELIABILITY_POINTS = 600
#: The NBER curves are drawn at every NBER_STRIDE-th grid point (1/128 prior log-odds).
NBER_STRIDE = 4
_DASHES = ("solid", "dashed", "dotted", "dotdash")
_ALPHAS = (1.0, 0.6, 0.6, 0.6)
_Y_MAX = 2.0
_LN2 = math.log(2.0)
#: Bokeh level of everything a drag moves: the overlay layer alone is repainted on a move
#: (the curves, on the primary layer, are not redrawn).  What moves is drawn with glyphs
#: (a span is ``vspan``, a label ``text``), not annotations: Bokeh reads an annotation's
#: line and text style from CSS on every paint (several ``getComputedStyle`` calls each).
_MOVING = "overlay"


@dataclass(frozen=True, eq=False)
class ReportSet:
    """One score set of a report.

    Attributes
    ----------
    label : str
        Column title and legend text (escaped in the page).
    llr : Analysis
        Analysis of the LLRs that are evaluated (calibrated, or the scores read as LLRs).
    raw : Analysis, optional
        Analysis of the scores before calibration: the histogram's domain (default ``llr``).
    """

    label: str
    llr: Analysis
    raw: Analysis | None = None

    @property
    def scores(self) -> Analysis:
        return self.llr if self.raw is None else self.raw


# ------------------------------------------------------------------------------ helpers


class _OfflineResources(Resources):
    """Bokeh's own JavaScript and style, inlined, and nothing else.

    Bokeh adds the external scripts and style sheets declared by *every* model class loaded
    in the process (with the dashboard running, Panel's, some of them on a CDN); the
    report's models are Bokeh's own and need none of them.
    """

    def _collect_external_resources(self, resource_attr):
        return []

    def clone(self, *, components=None):  # Bokeh clones its resources before bundling
        copy = super().clone(components=components)
        copy.__class__ = type(self)
        return copy


def _f32(a):
    """Display-only coordinates as float32 (half the bytes; +-inf become NaN)."""
    return finite(a).astype(np.float32)


def _legend_proxy(fig, renderer, kind, **style):
    """An empty renderer drawn like ``renderer``, for its legend entry.

    A legend re-renders (slowly: one canvas per entry) whenever any model it references,
    however indirectly, changes; a drag changes ``renderer``'s data on every move.  Hiding
    the proxy from the legend hides ``renderer`` too, found by name when it happens (a
    reference to it would put it back among the legend's models)."""
    nan = [np.nan]  # one point, so that the legend has a value to draw; the plot draws none
    proxy = getattr(fig, kind)(nan, nan, **style)
    proxy.js_on_change("visible", CustomJS(code=(
        "const r = cb_obj.document.get_model_by_name(" + repr(renderer.name) + ");"
        "if (r != null) { r.visible = cb_obj.visible; }")))
    return proxy


def _fmt_count(v):
    return f"{int(v):,}"


def _esc(text):
    return html.escape(str(text), quote=True)


#: Rows of the metrics table: (key, label, formatter, changes with the operating point).
_ROWS = (
    ("n_tar", "targets", _fmt_count, False),
    ("n_non", "non-targets", _fmt_count, False),
    ("cllr", "Cllr (bits)", "{:.4f}".format, False),
    ("min_cllr", "min Cllr (bits)", "{:.4f}".format, False),
    ("eer", "EER (%)", lambda v: f"{100 * v:.3f}", False),
    ("act_dcf", "act DCF", "{:.4f}".format, True),
    ("min_dcf", "min DCF", "{:.4f}".format, True),
    ("misses", "misses (act)", _fmt_count, True),
    ("false_alarms", "false alarms (act)", _fmt_count, True),
    ("p_miss", "Pmiss (act, %)", lambda v: f"{100 * v:.3f}", True),
    ("p_fa", "Pfa (act, %)", lambda v: f"{100 * v:.3f}", True),
    ("dr30_safe", "DR30-safe", lambda v: "yes" if v else "NO", True),
    ("rme_tar", "misleading evidence, targets (%)", lambda v: f"{100 * v:.3f}", False),
    ("rme_non", "misleading evidence, non-targets (%)", lambda v: f"{100 * v:.3f}", False),
)


def _table_html(sets, rows, prefix="llrlab"):
    out = [f'<table class="llrlab-metrics" id="{prefix}-table"><thead><tr><th>measure</th>']
    out += [f"<th>{_esc(s.label)}</th>" for s in sets]
    out.append("</tr></thead><tbody>")
    for key, label, fmt, live in _ROWS:
        out.append(f'<tr data-key="{key}"><td>{_esc(label)}</td>')
        for j, row in enumerate(rows):
            cls = ' class="llrlab-bad"' if key == "dr30_safe" and not row[key] else ""
            ident = f' id="{prefix}-v-{key}-{j}"' if live else ""
            out.append(f'<td{ident}{cls} data-key="{key}" data-set="{j}">'
                       f"{_esc(fmt(row[key]))}</td>")
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _calibration_html(calibration):
    if calibration is None:
        return ('<p class="llrlab-note">No calibration: the scores are read as LLRs '
                '(natural log).</p>')
    rows = []
    for k, v in calibration.report().items():
        if isinstance(v, float):
            text = f"{v:.6g}"
        elif isinstance(v, (list, tuple)):
            text = (", ".join(f"{x:.6g}" if isinstance(x, float) else str(x) for x in v)
                    if len(v) <= 6 else f"[{len(v)} values]")
        else:
            text = str(v)
        rows.append(f"<tr><td>{_esc(k)}</td><td>{_esc(text[:200])}</td></tr>")
    return ('<table class="llrlab-metrics llrlab-params"><thead><tr><th>parameter</th>'
            '<th>value</th></tr></thead><tbody>' + "".join(rows) + "</tbody></table>")


def _has_map(calibration):
    """A single-system calibration with a score -> LLR map to draw (not a fusion)."""
    return calibration is not None and getattr(calibration, "n_systems", 1) == 1 and \
        hasattr(calibration, "curve")


def _check(sets, llr_unit):
    sets = list(sets)
    if not sets:
        raise DataError("a report needs at least one score set")
    if len(sets) > MAX_SETS:
        raise DataError(f"a report holds at most {MAX_SETS} score sets, got {len(sets)}")
    for s in sets:
        if not isinstance(s, ReportSet):
            raise TypeError("report_html takes ReportSet objects")
    if llr_unit not in LLR_UNITS:
        raise DataError(f"unknown LLR unit {llr_unit!r}; use one of {', '.join(LLR_UNITS)}")
    return sets


# ------------------------------------------------------------------------------ figures


def _nber_figure(sets, grids, plo0):
    g = grids[0].plo
    lo, hi = min(-7.0, plo0 - 1.0), max(3.0, plo0 + 1.0)
    fig = new_figure("nber", x_range=Range1d(lo, hi), y_range=Range1d(0, 1.2),
                     title="Normalized Bayes error rate (drag to move the operating point)",
                     x_axis_label="prior log-odds  logit(P̃)", y_axis_label="normalized DCF",
                     height=440)
    uniform = np.flatnonzero(g * 512 == np.round(g * 512))  # the starting point is extra
    keep = uniform[::NBER_STRIDE]
    items = [LegendItem(label="default (LLR = 0)", renderers=[fig.line(
        [-40.0, 40.0], [1.0, 1.0], line_color=COLORS["default"], line_width=1.5)])]
    ymax = 1.2
    inside = (g[keep] >= lo) & (g[keep] <= hi)
    for j, (s, grid) in enumerate(zip(sets, grids, strict=True)):
        act, mn = grid.act_dcf()[keep], grid.min_dcf()[keep]
        src = ColumnDataSource({"plo": g[keep], "act": _f32(act), "min": _f32(mn)},
                               name=f"report_nber_{j}")
        dash, alpha = _DASHES[j], _ALPHAS[j]
        ra = fig.line("plo", "act", source=src, line_color=COLORS["act"], line_width=2,
                      line_dash=dash, line_alpha=alpha, tags=["nber.act", f"set{j}"])
        rm = fig.line("plo", "min", source=src, line_color=COLORS["min"], line_width=2.5,
                      line_dash=dash, line_alpha=alpha, tags=["nber.min", f"set{j}"])
        d = s.llr.dr30
        tri = fig.scatter(finite([d.plo_fa, d.plo_miss]), finite([d.dcf_fa, d.dcf_miss]),
                          marker="triangle", size=12, line_color="black",
                          fill_color=[COLORS["dr30_fa"], COLORS["dr30_miss"]],
                          fill_alpha=alpha, tags=["nber.dr30", f"set{j}"])
        items += [LegendItem(label=f"{s.label}: act DCF", renderers=[ra]),
                  LegendItem(label=f"{s.label}: min DCF", renderers=[rm, tri])]
        vals = np.concatenate([act[inside], mn[inside]])
        vals = vals[np.isfinite(vals)]
        if vals.size:
            ymax = max(ymax, min(_Y_MAX, 1.08 * float(vals.max())))
    fig.y_range.end = ymax
    d = sets[0].llr.dr30
    style = dict(fill_color=FILLS["unreliable"], fill_alpha=0.15, line_alpha=0,
                 level="underlay")
    if np.isfinite(d.plo_fa):
        fig.add_layout(BoxAnnotation(right=float(d.plo_fa), **style))
    if np.isfinite(d.plo_miss):
        fig.add_layout(BoxAnnotation(left=float(d.plo_miss), **style))
    # the operating point: a line and its label, glyphs of one moving source
    op = ColumnDataSource({"x": [plo0], "y": [0.975 * ymax], "text": [f"plo = {plo0:.2f}"],
                           "align": ["left"], "xoff": [4]}, name="report_nber_op")
    fig.vspan(x="x", source=op, line_color=COLORS["op"], line_dash="dashed", line_width=2.5,
              level=_MOVING, tags=["nber.op"])
    fig.text(x="x", y="y", text="text", source=op, text_align="align", x_offset="xoff",
             text_baseline="top", text_color=COLORS["op"], text_font_size="10pt",
             text_font_style="bold", level=_MOVING)
    fig.add_layout(Legend(items=items, location="top_right", background_fill_alpha=0.7,
                          label_text_font_size="9pt", spacing=0, padding=6,
                          click_policy="hide"))
    return fig, op


def _det_figure(sets):
    hi = float(probit(0.6))
    x0, y0 = (float(probit(det_axis_start(n))) for n in (sets[0].llr.n_non, sets[0].llr.n_tar))
    fig = new_figure("det", x_range=Range1d(x0, hi), y_range=Range1d(y0, hi),
                     title="DET (drag to the ROCCH point of an operating point)",
                     x_axis_label="false-alarm probability (%)",
                     y_axis_label="miss probability (%)", height=440)
    ticker = probit_axes(fig)
    ticker.ticks = choose_ticks(min(fig.x_range.start, fig.y_range.start), hi, 0.3)
    fig.line([-9.0, 9.0], [-9.0, 9.0], line_color=COLORS["default"], line_width=1,
             line_dash="dotted")
    items = []
    for j, s in enumerate(sets):
        dash, alpha = _DASHES[j], _ALPHAS[j]
        for kind in ("steppy", "rocch"):
            c = s.llr.det(kind, max_points=DET_POINTS)
            r = fig.line(_f32(c.x), _f32(c.y), line_color=COLORS[kind],
                         line_width=2 if kind == "rocch" else 1.5, line_dash=dash,
                         line_alpha=alpha, tags=[f"det.{kind}", f"set{j}"])
            items.append(LegendItem(label=f"{s.label}: {'ROCCH' if kind == 'rocch' else kind}",
                                    renderers=[r]))
        e = float(probit(s.llr.eer))
        fig.scatter([e], [e], marker="diamond", size=11, line_color="black",
                    fill_color="black" if j == 0 else "white", tags=["det.eer", f"set{j}"])
        fa, miss = s.llr.det_dr30("rocch")
        fig.scatter(finite(probit([fa[0], miss[0]])), finite(probit([fa[1], miss[1]])),
                    marker="triangle", size=11, line_color="black",
                    fill_color=[COLORS["dr30_fa"], COLORS["dr30_miss"]], fill_alpha=alpha,
                    tags=["det.dr30", f"set{j}"])
        # FMR100, FMR1000 on the steppy curve (binary searches in the analysis' sort)
        f = fnmr_at_fmr(s.llr, fmr=DET_FMR)
        src = ColumnDataSource({"x": finite(probit(f.p_fa)), "y": finite(probit(f.p_miss)),
                                "text": [fmr_label(x) for x in DET_FMR]},
                               name=f"report_det_fmr_{j}")
        fmr = fig.scatter("x", "y", source=src, marker="star", size=12, line_color="black",
                          fill_color="black" if j == 0 else "white", fill_alpha=alpha,
                          tags=["det.fmr", f"set{j}"])
        fig.text(x="x", y="y", text="text", source=src, x_offset=7, y_offset=2,
                 text_font_size="9pt", text_color="#222222", text_alpha=alpha,
                 text_baseline="bottom")
        if j == 0:
            items.append(LegendItem(label="FMR100, FMR1000",
                                    renderers=[fmr]))
    op = ColumnDataSource({"x": [], "y": [], "marker": [], "color": [], "alpha": []},
                          name="report_det_op")
    r = fig.scatter("x", "y", source=op, marker="marker", size=11, fill_color="color",
                    line_color="color", fill_alpha="alpha", line_width=2, level=_MOVING,
                    name="report_det_op_markers", tags=["det.op"])
    items += [LegendItem(label="actual op. point (circle), min-DCF point (square)",
                         renderers=[_legend_proxy(fig, r, "scatter", marker="circle", size=11,
                                                  fill_color=COLORS["op"],
                                                  line_color=COLORS["op"])])]
    # inside the frame (a legend beside it is measured on every repaint), bottom left: the
    # region below every DET curve
    fig.add_layout(Legend(items=items, location="bottom_left", label_text_font_size="9pt",
                          spacing=0, padding=4, background_fill_alpha=0.75,
                          click_policy="hide"))
    return fig, op


def _histogram_figure(sets, score_label, edges=None):
    doms = [s.scores for s in sets[:2]]
    if edges is None:
        lo, hi = hist_range(doms)
        edges = np.linspace(lo, hi, HIST_BINS + 1)
    else:
        edges = np.asarray(edges, dtype=np.float64)
        lo, hi = float(edges[0]), float(edges[-1])
    fig = new_figure("histogram", x_range=Range1d(lo, hi), y_range=Range1d(0, 1),
                     title="Score distributions (drag to move the threshold)",
                     x_axis_label=score_label,
                     y_axis_label="density (per class)", height=360)
    items, ymax = [], 0.0
    h = histogram(doms[0], edges)
    for cls in ("non", "tar"):
        r = fig.quad(left=edges[:-1], right=edges[1:], bottom=0, top=getattr(h, cls),
                     fill_color=COLORS[cls], fill_alpha=0.35, line_color=COLORS[cls],
                     line_alpha=0.6)
        items.append(LegendItem(label=f"{sets[0].label}: "
                                      f"{'targets' if cls == 'tar' else 'non-targets'}",
                                renderers=[r]))
        ymax = max(ymax, float(getattr(h, cls).max(initial=0)))
    if len(doms) > 1:
        h2 = histogram(doms[1], edges)
        for cls in ("non", "tar"):
            y = getattr(h2, cls)
            r = fig.step(edges, np.append(y, y[-1:]), mode="after", line_color=COLORS[cls],
                         line_dash="dashed", line_width=1.5)
            items.append(LegendItem(label=f"{sets[1].label}: "
                                          f"{'targets' if cls == 'tar' else 'non-targets'}",
                                    renderers=[r]))
            ymax = max(ymax, float(y.max(initial=0)))
    fig.y_range.end = 1.08 * (ymax or 1.0)
    span = ColumnDataSource({"x": [0.0]}, name="report_hist_threshold")
    fig.vspan(x="x", source=span, line_color=COLORS["op"], line_dash="dashed",
              line_width=2.5, level=_MOVING, tags=["histogram.threshold"])
    fig.add_layout(Legend(items=items, location="top_right", background_fill_alpha=0.75,
                          label_text_font_size="9pt", spacing=0, padding=6,
                          click_policy="hide"))
    return fig, span, (lo, hi)


def _calibration_figure(calibration, score_range, unit):
    lo, hi = score_range
    if _has_map(calibration):
        s, llr = calibration.curve(lo, hi)
        title = f"Calibration: {calibration.kind} (trained on dev)"
    elif calibration is not None:  # a fusion: no single score axis
        s = llr = np.array([lo, hi])
        title = f"{calibration.kind}: the histogram shows its LLRs"
    else:
        s = llr = np.array([lo, hi])
        title = "No calibration: scores read as LLRs"
    y = llr_to_unit(finite(llr), unit)
    fy = y[np.isfinite(y)]
    ylo, yhi = (float(fy.min()), float(fy.max())) if fy.size else (-1.0, 1.0)
    pad = 0.05 * max(yhi - ylo, 1e-9)
    fig = new_figure("calibration", x_range=Range1d(lo, hi),
                     y_range=Range1d(ylo - pad, yhi + pad), title=title,
                     x_axis_label="score", y_axis_label=llr_label(unit), height=300)
    fig.line(np.asarray(s, dtype=np.float64), y, line_color=COLORS["map"], line_width=2.5,
             tags=["calibration.map"])
    h = ColumnDataSource({"y": [0.0]}, name="report_cal_llr")
    v = ColumnDataSource({"x": [0.0]}, name="report_cal_score")
    fig.hspan(y="y", source=h, line_color=COLORS["op"], line_dash="dashed", line_width=2,
              level=_MOVING, tags=["calibration.threshold"])
    fig.vspan(x="x", source=v, line_color=COLORS["op"], line_dash="dotted", line_width=2,
              level=_MOVING, tags=["calibration.threshold"])
    return fig, h, v, (np.asarray(s, dtype=np.float64), np.asarray(llr, dtype=np.float64))


def _tippett_figure(sets, curves, unit):
    # every finite corner and 0 (LR = 1) in view; +-inf LLRs are drawn at the ends
    xs = np.concatenate([np.concatenate([c.tar_llr, c.non_llr]) for c in curves] + [[0.0]])
    fx = xs[np.isfinite(xs)]
    lo, hi = float(fx.min()), float(fx.max())
    pad = 0.03 * max(hi - lo, 1e-9)
    lo, hi = lo - pad, hi + pad
    ulo, uhi = sorted(float(v) for v in llr_to_unit([lo, hi], unit))
    fig = new_figure("tippett", x_range=Range1d(ulo, uhi), y_range=Range1d(0, 1.02),
                     title="Tippett plot (drag to move the threshold)",
                     x_axis_label=llr_label(unit), y_axis_label="proportion of LRs ≥ x",
                     height=360)
    items = []
    for j, (s, c) in enumerate(zip(sets, curves, strict=True)):
        dash, alpha = _DASHES[j], _ALPHAS[j]
        for cls, x, y in (("tar", c.tar_llr, c.tar_ge), ("non", c.non_llr, c.non_ge)):
            src = ColumnDataSource({"x": llr_to_unit(np.clip(x, lo, hi), unit), "y": y},
                                   name=f"report_tippett_{cls}_{j}")
            r = fig.line("x", "y", source=src, line_color=COLORS[cls], line_width=2,
                         line_dash=dash, line_alpha=alpha)
            what = "targets (H1)" if cls == "tar" else "non-targets (H2)"
            items.append(LegendItem(label=f"{s.label}: {what}", renderers=[r]))
    fig.add_layout(Span(location=0.0, dimension="height", line_color=COLORS["default"],
                        line_width=1, line_dash="dotted"))
    span = ColumnDataSource({"x": [0.0]}, name="report_tippett_threshold")
    fig.vspan(x="x", source=span, line_color=COLORS["op"], line_dash="dashed",
              line_width=2.5, level=_MOVING)
    pts = ColumnDataSource({"x": [], "y": [], "color": []}, name="report_tippett_points")
    fig.scatter("x", "y", source=pts, size=9, fill_color="color", line_color="black",
                level=_MOVING)
    fig.add_layout(Legend(items=items, location="top_right", background_fill_alpha=0.75,
                          label_text_font_size="9pt", spacing=0, padding=6,
                          click_policy="hide"))
    return fig, span, pts


def _reliability_figure(sets, plo0):
    fig = new_figure("reliability", x_range=Range1d(0, 1), y_range=Range1d(0, 1),
                     title="Reliability at the operating point's prior",
                     x_axis_label="predicted posterior P(target | LLR)",
                     y_axis_label="empirical posterior", height=360)
    fig.line([0, 1], [0, 1], line_color=COLORS["default"], line_dash="dotted")
    items, sources = [], []
    for j, s in enumerate(sets):
        r = reliability(s.llr, plo=plo0, method="pav", max_points=RELIABILITY_POINTS)
        src = ColumnDataSource({"llr": r.llr, "pav": r.pav_llr, "x": r.predicted,
                                "y": r.empirical}, name=f"report_reliability_{j}")
        sources.append(src)
        line = fig.line("x", "y", source=src, line_color=COLORS["map"], line_width=2,
                        line_dash=_DASHES[j], line_alpha=_ALPHAS[j], level=_MOVING,
                        name=f"report_reliability_line_{j}")
        items.append(LegendItem(label=f"{s.label}: PAV", renderers=[_legend_proxy(
            fig, line, "line", line_color=COLORS["map"], line_width=2, line_dash=_DASHES[j],
            line_alpha=_ALPHAS[j])]))
    b = reliability(sets[0].llr, plo=plo0, method="bins", bins=10)
    size = 6 + 14 * np.sqrt((b.n_tar + b.n_non) / max(float((b.n_tar + b.n_non).max()), 1.0))
    bins = fig.scatter(b.predicted, b.empirical, size=size, fill_color=COLORS["act"],
                       fill_alpha=0.6, line_color="black", name="report_reliability_bins",
                       level=_MOVING)
    items.append(LegendItem(label=f"{sets[0].label}: 10 bins (starting point only)",
                            renderers=[_legend_proxy(fig, bins, "scatter", size=10,
                                                     fill_color=COLORS["act"], fill_alpha=0.6,
                                                     line_color="black")]))
    fig.add_layout(Legend(items=items, location="top_left", background_fill_alpha=0.75,
                          label_text_font_size="9pt", spacing=0, padding=6,
                          click_policy="hide"))
    return fig, sources, bins


def _ece_figure(sets, plo0, unit):
    """The ECE plot (Ramos & González-Rodríguez 2013): per set, the empirical cross-entropy
    of the LLRs and after PAV against the prior log-odds (x in ``unit``), the neutral
    reference, and the operating point's line (it moves with the drag)."""
    x = llr_to_unit(APE_PLO, unit)
    fig = new_figure("ece", x_range=Range1d(float(x[0]), float(x[-1])),
                     y_range=Range1d(0, 1.05), title="ECE: empirical cross-entropy",
                     x_axis_label=llr_label(unit, "prior odds"),
                     y_axis_label="empirical cross-entropy (bits)", height=400)
    items, top = [], 1.0
    for j, s in enumerate(sets):
        c = ece_curves(s.llr, plo=APE_PLO)
        if j == 0:
            items.append(LegendItem(label="neutral (LR = 1)", renderers=[fig.line(
                x, c.default / _LN2, line_color=COLORS["default"], line_width=2,
                line_dash="dotted")]))
        for y, color, what, tag in ((c.ce, COLORS["act"], "LRs", "ece.ce"),
                                    (c.min_ce, COLORS["map"], "after PAV", "ece.min")):
            y = y / _LN2
            r = fig.line(_f32(x), _f32(y), line_color=color, line_width=2.5,
                         line_dash=_DASHES[j], line_alpha=_ALPHAS[j], tags=[tag, f"set{j}"])
            items.append(LegendItem(label=f"{s.label}: {what}", renderers=[r]))
            fy = y[np.isfinite(y)]
            top = max(top, float(fy.max(initial=0.0)))
    fig.y_range.end = min(1.05 * top, 3.0)
    op = ColumnDataSource({"x": [float(llr_to_unit(plo0, unit))]}, name="report_ece_op")
    fig.vspan(x="x", source=op, line_color=COLORS["op"], line_dash="dashed", line_width=2.5,
              level=_MOVING, tags=["ece.op"])
    fig.add_layout(Legend(items=items, location="top_right", background_fill_alpha=0.75,
                          label_text_font_size="9pt", spacing=0, padding=6,
                          click_policy="hide"))
    return fig, op


# -------------------------------------------------------------------------------- build


def report_html(sets, *, calibration=None, p_target=0.01, c_miss=1.0, c_fa=1.0,
                llr_unit="ln", title="llrlab report", subtitle="", notes=(),
                score_label=None) -> str:
    """The self-contained interactive HTML report of score sets (see the module docstring).

    Parameters
    ----------
    sets : sequence of ReportSet
        At most :data:`MAX_SETS`; the first is the primary one (histogram bars, DR30
        shading, DET drags, binned reliability).
    calibration : llrlab.core.calibration.Calibrator, optional
        The single-system calibration that produced the LLRs (its map and parameters are
        shown).
    p_target, c_miss, c_fa : float
        The operating point the page opens at (``c_miss``, ``c_fa`` stay fixed while the
        prior moves).
    llr_unit : {"ln", "log10", "bits"}
        Unit of the LLR axes (Tippett, calibration map) and of the threshold in the header.
    title, subtitle : str
        Page heading (escaped).
    notes : sequence of str
        Lines shown under the table (escaped).
    score_label : str, optional
        Axis label of the histogram's scores (default: "score" with a calibration map,
        else "score (read as LLR, natural log)").

    Returns
    -------
    str
        The HTML document.
    """
    doc, variables = report_document(sets, calibration=calibration, p_target=p_target,
                                     c_miss=c_miss, c_fa=c_fa, llr_unit=llr_unit,
                                     subtitle=subtitle, notes=notes, score_label=score_label)
    return file_html(doc, resources=_OfflineResources(mode="inline"), title=title,
                     template=Template(TEMPLATE), template_variables=variables)


def report_document(sets, *, calibration=None, p_target=0.01, c_miss=1.0, c_fa=1.0,
                    llr_unit="ln", subtitle="", notes=(), score_label=None):
    """The report's Bokeh document and the page's template variables (see
    :func:`report_html`, which renders them): the models are named ``report_*``."""
    parts = report_parts(sets, calibration=calibration, p_target=p_target, c_miss=c_miss,
                         c_fa=c_fa, llr_unit=llr_unit, score_label=score_label)
    doc = Document()
    for name in REPORT_PANELS:
        doc.add_root(parts.figures[name])
    doc.js_on_event(DocumentReady, parts.init)
    notes_html = "".join(f'<p class="llrlab-note">{_esc(n_)}</p>' for n_ in notes)
    return doc, dict(css=CSS, script=SCRIPT, subtitle=subtitle, table_html=parts.table_html,
                     notes_html=notes_html, calibration_html=parts.calibration_html,
                     about_html=_esc(parts.about))


@dataclass(frozen=True, eq=False)
class ReportParts:
    """The pieces of a report's page for one set of score sets and starting point.

    Attributes
    ----------
    figures : dict of str to bokeh.plotting.figure
        The figures asked for, by panel name (``nber``, ``det``, ``histogram``,
        ``calibration``, ``tippett``, ``reliability``, ``ece``); each reacts to a drag.
    init : bokeh.models.CustomJS
        Sets the starting operating point in the page (the document's ``DocumentReady``
        callback in a report; a lecture file runs it whenever a step is shown).
    table_html, calibration_html : str
        The metrics table (its cells' ids start with ``prefix``) and the calibration's
        parameters, escaped HTML.
    about : str
        How the page computes what it shows (plain text).
    plo0 : float
        The starting prior log-odds.
    """

    figures: dict
    init: CustomJS
    table_html: str
    calibration_html: str
    about: str
    plo0: float


def _grid_models(sets, plo0, cache):
    """The exact look-up data of the drag (grid, vertices) and the table's starting rows,
    shared through ``cache`` by every caller with the same analyses and starting point."""
    key = (tuple(id(s.llr) for s in sets), plo0)
    if cache is not None and key in cache:
        return cache[key][1]
    g = grid_plo(step=GRID_STEP, include=[plo0])
    grids = [operating_point_grid(s.llr, g) for s in sets]
    i0 = int(np.flatnonzero(g == plo0)[0])
    grid_data, weighted = grid_columns(g, grids)
    verts = [ColumnDataSource(vertex_columns(grid), name=f"report_vertices_{j}")
             for j, grid in enumerate(grids)]
    rows, tips = [], []
    for s, grid in zip(sets, grids, strict=True):
        tip = tippett(s.llr, max_points=CURVE_POINTS)
        tips.append(tip)
        row = grid.row(i0)
        row.update(n_tar=s.llr.n_tar, n_non=s.llr.n_non, cllr=s.llr.cllr,
                   min_cllr=s.llr.min_cllr, eer=s.llr.eer, rme_tar=tip.rme_tar,
                   rme_non=tip.rme_non)
        rows.append(row)
    out = dict(grids=grids, i0=i0, grid_src=ColumnDataSource(grid_data, name="report_grid"),
               verts=verts, rows=rows, weighted=weighted, tips=tips)
    if cache is not None:
        cache[key] = (sets, out)  # (the analyses are kept: their ids stay theirs)
    return out


#: The panels of a report (in its page's order); :func:`report_parts` also draws ``ece``.
REPORT_PANELS = ("nber", "det", "histogram", "calibration", "tippett", "reliability")
_OP_KEYS = ("plo", "effective_prior", "act_dcf", "min_dcf", "p_miss", "p_fa", "misses",
            "false_alarms", "min_p_miss", "min_p_fa", "min_misses", "min_false_alarms",
            "dr30_safe")


def report_parts(sets, *, calibration=None, p_target=0.01, c_miss=1.0, c_fa=1.0,
                 llr_unit="ln", score_label=None, panels=REPORT_PANELS, prefix="llrlab",
                 cache=None, hist_edges=None) -> ReportParts:
    """The figures, starting-point callback and tables of a report (see
    :func:`report_html`), for the panels asked for.

    ``prefix`` starts the ids of the table's cells and of the operating-point line (several
    parts can share one page); ``cache`` (a dict) shares the look-up data between parts of
    the same analyses and starting point (a lecture file's steps); ``hist_edges`` are the
    histogram's bins (default: :data:`~.compute.HIST_BINS` over the scores' range).
    """
    sets = _check(sets, llr_unit)
    unknown = [p for p in panels if p not in (*REPORT_PANELS, "ece")]
    if unknown:
        raise ValueError(f"unknown report panel {unknown[0]!r}")
    plo0 = float(np.clip(plo_from_costs(p_target, c_miss, c_fa), -GRID_LIMIT, GRID_LIMIT))
    gm = _grid_models(sets, plo0, cache)
    grids, i0, rows, tips = gm["grids"], gm["i0"], gm["rows"], gm["tips"]
    unit = float(llr_to_unit(1.0, llr_unit))
    op = ColumnDataSource({"label": [s.label for s in sets],
                           **{k: [r[k] for r in rows] for k in _OP_KEYS},
                           "index": [i0] * len(sets)}, name="report_op")

    figs, moving = {}, dict(nber_op=None, nber_x=None, det_op=None, hist_span=None,
                            cal_h=None, cal_v=None, tip_span=None, tip_pts=None, rel=[],
                            rel_bins=None, ece_op=None)
    if "nber" in panels:
        figs["nber"], moving["nber_op"] = _nber_figure(sets, grids, plo0)
        moving["nber_x"] = figs["nber"].x_range
    if "det" in panels:
        figs["det"], moving["det_op"] = _det_figure(sets)
    if score_label is None:
        score_label = "score" if _has_map(calibration) else "score (read as LLR, natural log)"
    hist, hist_span, score_range = _histogram_figure(sets, score_label, hist_edges)
    if "histogram" in panels:
        figs["histogram"], moving["hist_span"] = hist, hist_span
    cal, cal_h, cal_v, (map_s, map_llr) = _calibration_figure(calibration, score_range,
                                                              llr_unit)
    if "calibration" in panels:
        figs["calibration"], moving["cal_h"], moving["cal_v"] = cal, cal_h, cal_v
    if "tippett" in panels:
        figs["tippett"], moving["tip_span"], moving["tip_pts"] = _tippett_figure(
            sets, tips, llr_unit)
    if "reliability" in panels:
        figs["reliability"], moving["rel"], moving["rel_bins"] = _reliability_figure(
            sets, plo0)
    if "ece" in panels:
        figs["ece"], moving["ece_op"] = _ece_figure(sets, plo0, llr_unit)

    if not _has_map(calibration):  # the histogram's scores are the LLRs
        m_s = m_llr = np.empty(0)
    else:
        m_s, m_llr = map_s, map_llr
    inc = m_llr[::-1] if m_llr.size > 1 and m_llr[-1] < m_llr[0] else m_llr
    inc_s = m_s[::-1] if inc is not m_llr else m_s
    models = dict(
        grid=gm["grid_src"], verts=gm["verts"], op=op, T=[float(gr.n_tar) for gr in grids],
        N=[float(gr.n_non) for gr in grids], weighted=gm["weighted"],
        labels=[s.label for s in sets], alphas=list(_ALPHAS[:len(sets)]), init=i0,
        map_s=m_s, map_llr=m_llr, map_llr_inc=inc, map_s_inc=inc_s, unit=unit,
        unit_label=llr_label(llr_unit), bins_plo=plo0, c_log=math.log(c_miss / c_fa),
        c_miss=f"{c_miss:g}", c_fa=f"{c_fa:g}", prefix=prefix, **moving)
    names = sorted(models)

    def callback(mode, fig=None):
        zoom = None if fig is None else fig.select_one({"type": BoxZoomTool})
        return CustomJS(args=dict(models, mode=mode, zoom=zoom), code=(
            "llrlabReport.move(mode, cb_obj, {" + ", ".join([*names, "zoom"]) + "});"))

    for name, mode in (("nber", "nber"), ("det", "det"), ("histogram", "hist"),
                       ("tippett", "tippett"), ("ece", "ece")):
        if name in figs:
            cb = callback(mode, figs[name])
            for ev in (Tap, PanStart, Pan):
                figs[name].js_on_event(ev, cb)

    n = sets[0].llr.n_tar + sets[0].llr.n_non
    about = (
        "Drag or click on the NBER, DET, histogram or Tippett plot to move the operating "
        "point; the table and every marker follow, computed in this page with no server. "
        f"The operating point moves on a grid of prior log-odds (every 1/{round(1 / GRID_STEP)} "
        f"in [{-GRID_LIMIT:g}, {GRID_LIMIT:g}], and the starting point {plo0:.6g}); at each "
        "grid point the numbers are those of llrlab's own analysis: the same counts of "
        "misses and false alarms, the same rates and minimum-DCF vertex, the DCFs to "
        "rounding. The binned reliability points hold at the starting point only; the PAV "
        f"curve follows the drag. {sets[0].label}: {n:,} trials. Made with llrlab "
        "(Brümmer & de Villiers 2011 for the NBER plot, DR30 and ROCCH; Meuwly, Ramos & "
        "Haraksim 2017 for Tippett plots and log10 LRs; Dimitriadis, Gneiting & Jordan "
        "2021 for the PAV reliability diagram).")
    return ReportParts(figs, callback("init"), _table_html(sets, rows, prefix),
                       _calibration_html(calibration), about, plo0)


def report_from_results(results, *, p_target=0.01, c_miss=1.0, c_fa=1.0, llr_unit="ln",
                        title="llrlab report", subtitle=""):
    """The report of the dashboard's results (its "Export interactive HTML" button).

    Parameters
    ----------
    results : llrlab.dashboard.compute.Results
        The shown results: per dataset (dev, eval, and teaching mode's true LLRs) the
        :class:`~llrlab.core.Analysis` of the raw scores and of the evaluated LLRs, and the
        trained calibration or fusion.
    p_target, c_miss, c_fa, llr_unit, title, subtitle
        As in :func:`report_html` (the dashboard's operating point and display unit).

    Raises
    ------
    llrlab.core.DataError
        When there is nothing to report.
    """
    datasets = list(getattr(results, "datasets", {}).values())
    if not datasets:
        raise DataError("there is nothing to export yet: load data (or the demo) first")
    cal = results.calibration
    sets = [ReportSet(d.label, d.llr, d.raw if d.raw is not d.llr else None)
            for d in datasets[:MAX_SETS]]
    notes = list(getattr(results, "notes", []))
    return report_html(sets, calibration=cal, p_target=p_target, c_miss=c_miss, c_fa=c_fa,
                       llr_unit=llr_unit, title=title, subtitle=subtitle, notes=notes,
                       score_label=getattr(results, "score_label", None))


def write_report(path, text):
    """Write the report atomically (a complete file or none; see ``llrlab.core.cli``)."""
    from llrlab.core.cli._writing import write_atomically

    def write(tmp):
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)

    write_atomically(path, write)
