"""The metrics table: dev and eval measures at the operating point, with the DR30 warning.

Rows are measures, columns datasets; values come from ``ExportState.metrics_rows`` (i.e. from
``Analysis`` and ``Analysis.at``).  Confidence intervals, when asked for, sit under their value
in small grey type: binomial ones (Pmiss, Pfa, act DCF; recomputed as the operating point
moves) and bootstrap ones (Cllr, min DCF, EER; on demand).  The last row is the threshold on
the scores that the actual decision uses (``Results.score_threshold``: on the raw scores
through the calibration's inverse).  With per-condition curves on, a second table lists every
condition's weight and measures.

The table is an HTML pane regenerated whole on every update (a dozen cells): Bokeh 3.9's
``DataTable`` does not repaint when its source data are replaced (bokeh/bokeh#15328), so it
is not used here.  ``MetricsView.data`` holds the formatted columns.
"""

from __future__ import annotations

import html
import io

import panel as pn
import param

from llrlab.core.uncertainty import BOOTSTRAP_TEXT, VARIANCE_TEXT

from ..safe import MAX_SHOWN, html_text, md_text
from ..state import DashboardState
from ..state.display import TYPE_SCALE
from ..table_css import METRICS_TABLE_CSS
from ..text_fit import text_height, text_width
from ._common import changed_values, isolated
from ._lean import TextAlert, TextHTML, TextMarkdown
from .op_grid import OpGrid

__all__ = ["MEASURES", "MetricsView", "table_data", "table_html"]


def _threshold_text(v):
    """A score threshold for the table: '−∞ (accept all)', '+∞ (reject all)' or '—' (no
    single threshold: a decreasing calibration)."""
    if v is None:
        return "—"
    if v == float("inf"):
        return "+∞ (reject all)"
    if v == float("-inf"):
        return "−∞ (accept all)"
    return f"{v:.6g}"


#: The calibration note on a stage (the page's own note says more).
_STAGE_CALIBRATION_NOTE = ("The scores are not calibrated LLRs: act DCF and Cllr are poor "
                           "(calibrate: affine or pav).")
_TITLES = {"dev": "dev", "eval": "eval", "true": "true LLR"}

#: (key in metrics_rows, row label, formatter)
MEASURES = (
    ("n_tar", "targets", "{:,}".format),
    ("n_non", "non-targets", "{:,}".format),
    ("cllr", "Cllr (bits)", "{:.4f}".format),
    ("min_cllr", "min Cllr (bits)", "{:.4f}".format),
    ("eer", "EER (%)", lambda v: f"{100 * v:.3f}"),
    ("act_dcf", "act DCF", "{:.4f}".format),
    ("min_dcf", "min DCF", "{:.4f}".format),
    # judged at the minimum-DCF threshold (both of its error counts >= 30), so it sits under
    # min DCF, not among the rows of the actual threshold below
    ("dr30_safe", "DR30-safe (min DCF)", lambda v: "yes" if v else "NO"),
    ("misses", "misses (act)", "{:,}".format),
    ("false_alarms", "false alarms (act)", "{:,}".format),
    ("p_miss", "Pmiss (act, %)", lambda v: f"{100 * v:.3f}"),
    ("p_fa", "Pfa (act, %)", lambda v: f"{100 * v:.3f}"),
    # the threshold on the scores of the histogram (raw scores; fused LLRs for a fusion)
    # that the actual decision uses: accept when score >= it
    ("threshold", "score threshold (act)", _threshold_text),
)

#: Rows a stage shows only when a lesson step highlights them (``metrics.<key>``): the score
#: threshold (the stage's header gives the Bayes threshold, the raw scores' one is a detail
#: that costs a lecture's table a row).
STAGE_HIDDEN = ("threshold",)
#: Rows a crowded stage (three panels and a lesson's text at 1280 x 720) leaves out when the
#: table has less room than all its rows need, first to go first, unless the step highlights
#: them: the counts (the histogram shows them), then the rates at the actual threshold, the
#: DR30 verdict and the EER.  act DCF, min DCF, Cllr and min Cllr always stay: they are what
#: the table is for (how well calibrated, how good at best).  A line under the table says how
#: many rows are left out.
STAGE_DROP = ("n_non", "n_tar", "false_alarms", "misses", "p_fa", "p_miss", "dr30_safe", "eer")


def _more_text(n):
    """The line under a crowded stage's table: how many rows it leaves out."""
    return f"{n} more row{'s' if n != 1 else ''} in the full table"

_ROLES = ("dev", "eval", "true")
#: Measures with an interval: key -> display scale (percent rows are multiplied by 100).
_INTERVALS = {"cllr": 1.0, "eer": 100.0, "act_dcf": 1.0, "min_dcf": 1.0, "p_miss": 100.0,
              "p_fa": 100.0}


def _interval(row, key):
    """``"[lo, hi]"`` under a value, a hint when the bootstrap is for another operating
    point, or ''."""
    lo, hi = row.get(f"{key}_lo", "absent"), row.get(f"{key}_hi")
    if lo == "absent":
        return ""
    if lo is None:
        return "bootstrap: other op. point"
    k = _INTERVALS[key]
    digits = 3 if k == 100.0 else 4
    return f"[{k * lo:.{digits}f}, {k * hi:.{digits}f}]"


def table_data(state: DashboardState):
    """The table's columns: ``measure`` plus, per role, the formatted value and its colour."""
    rows = {r: None for r in _ROLES}
    for row in state.export.metrics_rows():
        rows[row["role"]] = row
    data = {"measure": [label for _, label, _ in MEASURES]}
    for role in _ROLES:
        row = rows[role]
        vals, colors, styles, cis = [], [], [], []
        for key, _, fmt in MEASURES:
            if row is None:
                vals.append("")
                colors.append("#222222")
                styles.append("normal")
                cis.append("")
                continue
            v = row[key]
            vals.append(fmt(v))
            cis.append(_interval(row, key) if key in _INTERVALS else "")
            bad = key == "dr30_safe" and not v
            colors.append("#c62828" if bad else "#222222")
            styles.append("bold" if bad or key in ("act_dcf", "min_dcf") else "normal")
        data[role] = vals
        data[f"{role}_ci"] = cis
        data[f"{role}_color"] = colors
        data[f"{role}_style"] = styles
    return data


_CSS = """
<style>
div.llrlab-scroll { max-width: 100%%; overflow-x: auto; }
table.llrlab-metrics { border-collapse: collapse; font-size: %(size)s; }
""" + METRICS_TABLE_CSS + """\
table.llrlab-metrics.llrlab-compact th, table.llrlab-metrics.llrlab-compact td {
    padding: 1px %(pad)s; line-height: 1.2; white-space: nowrap; }
table.llrlab-metrics tr.lit td { background: #f9e3ef; }
table.llrlab-metrics tr.lit td:first-child { box-shadow: inset 5px 0 0 #CC79A7; }
table.llrlab-metrics .llrlab-ci { display: block; font-size: %(ci)s; color: #6b6b6b;
    font-weight: normal; white-space: nowrap; }
table.llrlab-metrics .llrlab-swatch { display: inline-block; width: 18px; height: 3px;
    margin: 0 6px 3px 0; vertical-align: middle; }
</style>
"""


def _css(size):
    """The table's style at ``size`` (a CSS size: 14px on a screen; presentation style's
    text size, as compact rows with intervals as large as their values)."""
    if size is True:  # presentation style at scale 1
        size = "18px"
    elif size is False or size is None:
        size = "14px"
    big = float(size[:-2]) >= 18
    return _CSS % {"size": size, "ci": "100%" if big else "80%",
                   "pad": f"{0.5 * float(size[:-2]):g}px"}


def table_html(data, roles, presentation=False, highlight=(), hide=()):
    """The HTML of the table for the given dataset columns (see :func:`table_data`);
    the rows of the measures in ``highlight`` (keys of MEASURES) are marked, those in
    ``hide`` left out.  ``presentation`` is False (screen), True (presentation style at
    scale 1) or the font size as CSS."""
    titles = _TITLES
    compact = " llrlab-compact" if presentation else ""
    out = [_css(presentation),
           f'<div class="llrlab-scroll"><table class="llrlab-metrics{compact}"><thead><tr>'
           '<th>measure</th>']
    out += [f"<th>{titles[r]}</th>" for r in roles]
    out.append("</tr></thead><tbody>")
    for i, (key, label, _) in enumerate(MEASURES):
        if key in hide:
            continue
        lit = ' class="lit"' if key in highlight else ""
        out.append(f'<tr data-key="{key}"{lit}><td>{html.escape(label)}</td>')
        for r in roles:
            style = (f"color:{data[f'{r}_color'][i]};"
                     f"font-weight:{data[f'{r}_style'][i]}")
            ci = data.get(f"{r}_ci", [""] * len(MEASURES))[i]
            extra = f'<span class="llrlab-ci">{html.escape(ci)}</span>' if ci else ""
            out.append(f'<td data-role="{r}" data-key="{key}" style="{style}">'
                       f"{html.escape(data[r][i])}{extra}</td>")
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


#: (key in condition_rows, column title, formatter)
CONDITION_COLUMNS = (
    ("weight", "weight", None),
    ("n_tar", "targets", "{:,}".format),
    ("n_non", "non-targets", "{:,}".format),
    ("act_dcf", "act DCF", "{:.4f}".format),
    ("min_dcf", "min DCF", "{:.4f}".format),
    ("eer", "EER (%)", lambda v: f"{100 * v:.3f}"),
    ("cllr", "Cllr (bits)", "{:.4f}".format),
    ("dr30_safe", "DR30-safe", lambda v: "yes" if v else "NO"),
)


#: The per-condition table's columns on a stage (the rest is in the page's own table).
STAGE_CONDITION_COLUMNS = ("weight", "act_dcf", "min_dcf")


def condition_table_html(rows, presentation=False, columns=None):
    """HTML of the per-condition table (see ``ExportState.condition_rows``); ``columns``
    (keys of CONDITION_COLUMNS) limits its columns."""
    from ._common import CONDITION_COLORS

    if not rows:
        return ""
    shown = [c for c in CONDITION_COLUMNS if columns is None or c[0] in columns]
    compact = " llrlab-compact" if presentation else ""
    out = [_css(presentation),
           f'<div class="llrlab-scroll"><table class="llrlab-metrics llrlab-conditions'
           f'{compact}"><thead><tr><th>condition</th>']
    out += [f"<th>{html.escape(t)}</th>" for _, t, _ in shown]
    out.append("</tr></thead><tbody>")
    for k, row in enumerate(rows):
        color = CONDITION_COLORS[k % len(CONDITION_COLORS)]
        out.append(f'<tr><td><span class="llrlab-swatch" style="background:{color}"></span>'
                   f"{html_text(row['condition'], MAX_SHOWN)}</td>")
        for key, _, fmt in shown:
            if key == "weight":
                w_t, w_n = row["w_tar"], row["w_non"]
                text = f"{w_t:.3f}" if abs(w_t - w_n) < 1e-12 else f"{w_t:.3f} / {w_n:.3f}"
                style = ""
            else:
                text = fmt(row[key])
                style = ' style="color:#c62828;font-weight:bold"' if (
                    key == "dr30_safe" and not row[key]) else ""
            out.append(f'<td data-condition="{html_text(row["condition"], MAX_SHOWN)}" '
                       f'data-key="{key}"{style}>{html.escape(text)}</td>')
        out.append("</tr>")
    out.append("</tbody></table></div>")
    return "".join(out)


class MetricsView(pn.viewable.Viewer):
    """Metrics table, DR30 warning and CSV download of a :class:`DashboardState`."""

    state = param.ClassSelector(class_=DashboardState)
    #: The in-page drag's grid (served dashboard): the page rewrites the table's cells while
    #: the pointer moves (the pane is marked ``llrlab-op-table`` for it).
    op_grid = param.ClassSelector(class_=OpGrid, default=None)

    def __init__(self, **params):
        super().__init__(**params)
        self.data = table_data(self.state)
        self.table = TextHTML("", name="metrics_table", margin=(0, 10),
                                  css_classes=["llrlab-op-table"])
        if self.op_grid is not None:
            self.op_grid.panes.append(self.table)
        self.header = TextMarkdown("", margin=(0, 10), name="op_summary")
        self.warning = TextAlert("", alert_type="warning", visible=False,
                                     name="dr30_warning", margin=(5, 10))
        # why act DCF and Cllr are poor when the scores are not LLRs (e.g. the demo's raw
        # scores): the sentence llrlab eval prints, and where to calibrate in this page
        self.calibration_note = TextAlert("", alert_type="info", visible=False,
                                              name="calibration_note", margin=(5, 10))
        self.download = pn.widgets.FileDownload(
            callback=self._csv, filename="llrlab_metrics.csv", label="Metrics (CSV)",
            button_type="light", width=180)
        self.ci_note = TextMarkdown("", margin=(0, 10), name="ci_note",
                                        styles={"color": "#555555", "font-size": "90%"})
        self.condition_title = TextMarkdown("", margin=(10, 10, 0, 10),
                                                name="condition_title")
        self.condition_table = TextHTML("", name="condition_table", margin=(0, 10))
        # (its size in presentation style is the host's, set in ``styles``: a changed
        # ``stylesheets`` list did not always reach the page, leaving 1280 x 720's size at
        # 1920 x 1080)
        self.title = pn.pane.Markdown("### Metrics at the operating point", margin=(0, 10),
                                      stylesheets=[":host(.llrlab-big) h3 { font-size: "
                                                   "inherit; margin: 0; }"])
        self._layout = pn.Column(
            self.title, self.header, self.table, self.ci_note, self.calibration_note,
            self.warning, self.condition_title, self.condition_table, self.download,
            sizing_mode="stretch_width", name="metrics")
        self._on_op()

    def resize(self, width=None, height=None):
        """On the stage: a fixed panel, in its compact form (:meth:`stage_min` says how much
        room it needs; nothing in it scrolls); on the page: the page's width."""
        self._stage = height is not None
        self._room_rows = None
        if height is None:
            self._layout.param.update(sizing_mode="stretch_width", height=None, width=None)
        else:
            keys = self._stage_rows()
            scale = self.state.display.scale
            n = len(keys)
            while n > len(keys) - len(self._droppable(keys)) and self._stage_height(
                    scale, width, self._stage_rows(n)) > height:
                n -= 1
            self._room_rows = n if n < len(keys) else None
            self._layout.param.update(sizing_mode="fixed", width=int(width),
                                      height=int(height))
        self._on_op()

    _stage = False
    #: How many of the compact form's rows the stage has room for (None: all).
    _room_rows = None

    def stage_min(self, scale=1.0):
        """The least ``(width, height)`` in pixels of the panel's compact form on a stage, in
        presentation style at ``scale``: the widest column of each table, its rows (and the
        intervals under their values), the title, the operating point's line, and two
        lines kept for the DR30 warning (it comes and goes as the point moves; the panel's
        size does not).  Estimated from the text (:mod:`llrlab.dashboard.text_fit`)."""
        width = self._stage_width(scale)
        return width, self._stage_height(scale, width, self._stage_rows())

    def stage_least(self, scale=1.0, width=None):
        """The least ``(width, height)`` of the compact form when it may leave out rows (a
        crowded stage, :meth:`resize`): its least width, and its height ``width`` px wide
        (at least the least width) with the rows a lesson step highlights and those not in
        :data:`STAGE_DROP`, and the line saying how many rows are left out."""
        least = self._stage_width(scale)
        rows = self._stage_rows()
        kept = self._stage_rows(len(rows) - len(self._droppable(rows)))
        return least, self._stage_height(scale, max(least, int(width or 0)), kept)

    def _stage_width(self, scale):
        st = self.state
        px = TYPE_SCALE["text"][1] * scale
        pad = 2 * 0.5 * px
        data, roles = table_data(st), self.roles(stage=True)
        keys = set(self._stage_rows())
        shown = [i for i, (key, _, _) in enumerate(MEASURES) if key in keys]
        cols = [max(len(MEASURES[i][1]) for i in shown)]
        cols += [max([len(data[r][i]) for i in shown] + [len(_TITLES[r])]
                     + [len(c) for c in data.get(f"{r}_ci", [])]) for r in roles]
        # (bold: the labels and the DCF rows; digits are wider than average letters)
        width = sum(text_width("x" * c, px, "bold") + pad for c in cols)
        rows = st.export.condition_rows() if st.conditions.show_curves else []
        if rows:
            ccols = [max(len(r["condition"][:40]) for r in rows) + 2]
            ccols += [max(len(t), 9) for k, t, _ in CONDITION_COLUMNS
                      if k in STAGE_CONDITION_COLUMNS]
            width = max(width, sum(text_width("x" * c, px, "bold") + pad for c in ccols))
        return int(width + 24 * scale)

    def _stage_height(self, scale, width, keys):
        """Height of the compact form ``width`` px wide showing the measures ``keys``."""
        st = self.state
        px = TYPE_SCALE["text"][1] * scale
        title_px = TYPE_SCALE["title"][1] * scale
        data, roles = table_data(st), self.roles(stage=True)
        shown = [i for i, (key, _, _) in enumerate(MEASURES) if key in keys]
        inner = width - 20 * scale
        row_h = px * 1.2 + 2 + 1
        n_ci = sum(1 for r in roles for i in shown
                   if data.get(f"{r}_ci", [""] * len(MEASURES))[i]) // max(len(roles), 1)
        height = text_height(self.title.object.lstrip("# "), title_px, inner, "bold",
                             line_height=1.3) + 8 * scale
        height += text_height(self._stage_header(), px, inner) + 6 * scale
        height += (1 + len(shown) + n_ci) * row_h + 4
        height += 2 * px * 1.45 + 10 * scale  # the DR30 line
        left_out = len(self._stage_rows()) - len(shown)
        if left_out > 0:  # the line saying rows are left out
            height += text_height(_more_text(left_out), px, inner) + 6 * scale
        note = st.export.calibration_warning()
        if note:
            height += text_height(_STAGE_CALIBRATION_NOTE, px, inner) + 8
        rows = st.export.condition_rows() if st.conditions.show_curves else []
        if rows:
            height += px * 1.45 + 10 * scale + (1 + len(rows)) * row_h
        return int(height + 12 * scale)

    def _stage_rows(self, n=None):
        """The measures the compact form shows (keys, in the table's order): all but
        :data:`STAGE_HIDDEN` that the step does not highlight; with ``n``, the first ``n``
        of them in the order of :data:`STAGE_DROP` reversed (the last to go first)."""
        lit = self.state.presenter.lit("metrics")
        keys = [k for k, _, _ in MEASURES if k not in STAGE_HIDDEN or k in lit]
        if n is None or n >= len(keys):
            return keys
        drop = self._droppable(keys)[:len(keys) - max(n, 0)]
        return [k for k in keys if k not in drop]

    def _droppable(self, keys):
        """The rows of ``keys`` that a crowded stage may leave out, first to go first: those
        of :data:`STAGE_DROP` the step does not highlight."""
        lit = self.state.presenter.lit("metrics")
        return [k for k in STAGE_DROP if k in keys and k not in lit]

    def _stage_hidden(self):
        """The rows the compact form leaves out: :data:`STAGE_HIDDEN` that the current step
        does not highlight, and those a crowded stage has no room for (:meth:`resize`)."""
        shown = self._stage_rows(self._room_rows)
        return tuple(k for k, _, _ in MEASURES if k not in shown)

    def _stage_header(self):
        """The operating point in one line (the stage's form of :attr:`header`)."""
        pt = self.state.point
        return f"prior log-odds **{pt.plo:.2f}**, threshold {-pt.plo:.2f}"

    def __panel__(self):
        return self._layout

    def _ci_text(self):
        st = self.state
        parts = []
        ci = next(iter((st.op_ci or {}).values()), None)
        if ci is not None:
            name = {"normal": "normal (Bengio & Mariéthoz 2004)", "wilson": "Wilson",
                    "clopper-pearson": "Clopper-Pearson"}.get(ci.method, ci.method)
            variances = ", ".join(dict.fromkeys(
                VARIANCE_TEXT[c.variance] for c in (st.op_ci or {}).values()))
            parts.append(f"Grey: {100 * ci.confidence:g} % {name} intervals of Pmiss, Pfa and "
                         f"act DCF at this threshold (independent trials; {variances}).")
        boot = st.uncertainty.boot or {}
        b = next(iter(boot.values()), None)
        if b is not None:
            fresh = all(st.uncertainty.current(r, st.point.plo)[1] for r in boot)
            kind = BOOTSTRAP_TEXT.get(b.method, b.method)
            parts.append(f"Cllr, EER{', min DCF' if fresh else ''}: {100 * b.confidence:g} % "
                         f"{kind} bootstrap intervals, {b.n_used} replicates by {b.by}"
                         + ("." if fresh else "; min DCF was for another operating point "
                            "(press Bootstrap intervals again)."))
        return " ".join(parts)

    def _csv(self):
        return io.StringIO(self.state.export.metrics_csv())

    def roles(self, stage=None):
        """The table's columns: the loaded sets (on a stage not the true LLR's column,
        whose curve the NBER plot shows; the page's table has it)."""
        res = self.state.results
        have = [] if res is None else list(res.datasets)
        stage = self._stage if stage is None else stage
        if stage and self.state.display.presentation and len(have) > 1:
            have = [r for r in have if r != "true"]
        return have or ["dev", "eval"]

    @param.depends("state.uncertainty.boot", "state.display.presentation",
                   "state.display.scale", "state.presenter.highlight", watch=True)
    @isolated
    def _on_boot_or_style(self):
        self._on_op()

    # (separate from the watcher above: for a method that also depends on "state.part.x",
    # param 2.4 may skip a change of "state.op" whose old and new values have equal
    # attributes "x")
    @param.depends("state.op", "state.op_ci", "state.cond_op", watch=True)
    def _on_op(self):
        """Show the state's numbers and style: once at the end of a held change (a lesson
        step: its highlights, its layout and its results each called for it), else now."""
        self.state.when_settled(self._show)

    @isolated
    def _show(self):
        st, pt = self.state, self.state.point
        big = st.display.presentation
        stage = self._stage and big
        self.data = table_data(st)
        lit = st.presenter.lit("metrics")
        text = st.display.font("text") if big else "14px"
        size = {"font-size": text if big else "100%"}
        dropped = len(self._stage_rows()) - len(self._stage_rows(self._room_rows))
        header = (
            f"P(target) = {pt.p_target:.4g}, C(miss) = {pt.c_miss:g}, C(fa) = {pt.c_fa:g} "
            f"→ effective prior {pt.effective_prior:.4g}, prior log-odds **{pt.plo:.3f}**, "
            f"Bayes threshold on LLRs {-pt.plo:.3f}")
        weighting = st.export.weighting_text()
        if weighting:
            header += f"  \nConditions: {md_text(weighting)}"
        rows = st.export.condition_rows() if st.conditions.show_curves else []
        warning = st.export.dr30_warning(short=stage)
        note = st.export.calibration_warning()
        compact = {"padding": f"{0.3 * st.display.px('text'):g}px"} if stage else {}
        # (each pane's parameters in one update of those that changed: a drag's pause
        # changes the table and the header, seldom anything else)
        _set(self.table, object=table_html(self.data, self.roles(), text if big else False,
                                           lit, self._stage_hidden() if stage else ()))
        for pane in (self.header, self.condition_title):  # (the two alerts: below)
            _set(pane, styles=size)
        _set(self.ci_note, styles={"color": "#555555", "font-size": text if big else "90%"},
             visible=not stage or dropped > 0,
             object=_more_text(dropped) if stage and dropped else self._ci_text())
        _set(self.title, styles={"font-size": st.display.font("title") if big else "100%"},
             css_classes=["llrlab-big"] if big else [])
        _set(self.download, visible=not self._stage)
        _set(self.header, object=self._stage_header() if stage else header)
        _set(self.condition_title, object=(
            f"**Per condition ({rows[0]['role']})** at the operating point" if rows else ""),
             visible=bool(rows))
        _set(self.condition_table, object=condition_table_html(
            rows, text if big else False, STAGE_CONDITION_COLUMNS if stage else None),
             visible=bool(rows))
        _set(self.warning, object=md_text(warning), visible=bool(warning),
             alert_type="warning", styles={**size, **compact},
             margin=(2, 10) if stage else (5, 10))
        _set(self.calibration_note, object=_STAGE_CALIBRATION_NOTE if stage and note else note,
             visible=bool(note), styles={**size, **compact},
             margin=(2, 10) if stage else (5, 10))


def _set(obj, **values):
    """Set those of ``values`` that differ from ``obj``'s, in one update."""
    changed = changed_values(obj, values)
    if changed:
        obj.param.update(**changed)
