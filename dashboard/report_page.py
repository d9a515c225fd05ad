"""The page around the report's plots: its HTML template, style and the script of the drag.

The script (:data:`SCRIPT`) runs in the browser with no server.  Every drag, click or tap on
the NBER, DET, histogram or Tippett plot calls ``llrlabReport.move(mode, event, models)``,
which

1. turns the pointer position into a prior log-odds (NBER: ``x``; Tippett: ``-x`` converted
   from the display unit; histogram: ``-llr(score)`` through the calibration map; DET: the
   ROCCH vertex nearest to the pointer, at the middle of the grid points where it is optimal;
   ECE: ``x`` converted from the display unit);
2. snaps it to the nearest point of the precomputed grid (binary search in ``grid.plo``, the
   lower point on a tie: ``llrlab.core.OperatingPointGrid.index``);
3. reads the counts of that grid point and computes (``llrlabReport.at``, which touches no
   page element) exactly what
   ``llrlab.core.Analysis.at`` computes: ``Pmiss = misses / T`` and ``Pfa = false_alarms / N``
   (one IEEE division each; weighted rates are stored as they are), the normalized DCF
   ``cm * Pmiss + cf * Pfa`` with ``(cm, cf) = (1, exp(-plo))`` for ``plo < 0`` and
   ``(exp(plo), 1)`` otherwise (a zero rate counts 0), the optimal ROCCH vertex's rates for
   the minimum DCF, and the DR30 flag;
4. writes them into the ``report_op`` data source, the metrics table, and the markers of
   every plot (a plot that is not in the page, as in a lecture file's step, is ``null``; the
   ids of the table's cells start with ``models.prefix``).

The only numbers computed with a transcendental function are ``exp(|plo|)`` in the DCF and
the effective prior ``1 / (1 + exp(-plo))``; JavaScript's ``Math.exp`` may differ from
numpy's by an ulp, so those agree to about 1e-16 relative.  The DET markers use an
approximate probit (Acklam's rational approximation, relative error below 1.2e-9): they only
place a marker.
"""

from __future__ import annotations

from .op_grid_script import GRID_SCRIPT
from .table_css import METRICS_TABLE_CSS

__all__ = ["CSS", "PAGE_HEAD", "SCRIPT", "TEMPLATE"]

SCRIPT = GRID_SCRIPT + r"""
var llrlabReport = (function () {
  "use strict";
  var G = llrlabGrid, pick = G.pick, at = G.at, interp = G.interp, expit = G.expit,
      fixed = G.fixed, count = G.count, g4 = G.g4;

  function move(mode, ev, M) {
    var i = pick(mode, ev, M);
    if (i === undefined) { return; }
    var A = at(i, M), plo = A.plo, thr = A.thr, col = A.col, det = A.det, tip = A.tip;
    M.op.data = col;
    // (a lecture file's step draws some of the plots: the others are null)
    if (M.det_op != null) { M.det_op.data = det; }
    if (M.tip_pts != null) { M.tip_pts.data = tip; M.tip_span.data = {x: [thr]}; }
    if (M.nber_op != null) {
      var xr = M.nber_x;
      var right = plo > 0.5 * (xr.start + xr.end);
      M.nber_op.data = {x: [plo], y: M.nber_op.data.y, text: ["plo = " + fixed(plo, 2)],
                        align: [right ? "right" : "left"], xoff: [right ? -4 : 4]};
    }
    if (M.ece_op != null) { M.ece_op.data = {x: [plo * M.unit]}; }
    var score = interp(-plo, M.map_llr_inc, M.map_s_inc);
    if (M.hist_span != null) { M.hist_span.data = {x: [score]}; }
    if (M.cal_h != null) { M.cal_h.data = {y: [thr]}; M.cal_v.data = {x: [score]}; }
    for (var r = 0; r < M.rel.length; r++) {
      var R = M.rel[r].data, n = R.llr.length, xs = new Float64Array(n),
          ys = new Float64Array(n);
      for (var k = 0; k < n; k++) { xs[k] = expit(R.llr[k] + plo); ys[k] = expit(R.pav[k] + plo); }
      M.rel[r].data = {llr: R.llr, pav: R.pav, x: xs, y: ys};
    }
    // (a visibility change re-renders the legend: only when it changes)
    var vis = (plo === M.bins_plo);
    if (M.rel_bins != null && M.rel_bins.visible !== vis) { M.rel_bins.visible = vis; }
    table(col, plo, M);
  }

  function set(id, text, bad) {  // id: without the page's prefix
    var el = document.getElementById(prefix + "-" + id);
    if (el == null) { return; }
    el.textContent = text;
    if (bad !== undefined) { el.className = bad ? "llrlab-bad" : ""; }
  }

  var prefix = "llrlab";
  function table(col, plo, M) {
    prefix = M.prefix;
    for (var j = 0; j < col.plo.length; j++) {
      set("v-act_dcf-" + j, fixed(col.act_dcf[j], 4));
      set("v-min_dcf-" + j, fixed(col.min_dcf[j], 4));
      set("v-misses-" + j, count(col.misses[j]));
      set("v-false_alarms-" + j, count(col.false_alarms[j]));
      set("v-p_miss-" + j, fixed(100 * col.p_miss[j], 3));
      set("v-p_fa-" + j, fixed(100 * col.p_fa[j], 3));
      set("v-dr30_safe-" + j, col.dr30_safe[j] ? "yes" : "NO", !col.dr30_safe[j]);
    }
    var pt = expit(plo - M.c_log);
    set("op-header",
        "P(target) = " + g4(pt) + ", C(miss) = " + M.c_miss + ", C(fa) = " + M.c_fa +
        " \u2192 effective prior " + g4(expit(plo)) + ", prior log-odds " + fixed(plo, 3) +
        ", Bayes threshold on LLRs " + fixed(-plo, 3) + " (" + M.unit_label + ": " +
        fixed(-plo * M.unit, 3) + ")");
  }

  return {move: move, pick: pick, at: at, nearest: G.nearest, dcf: G.dcf, probit: G.probit};
})();
"""

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0;
       color: #222; background: #fff; }
header.llrlab { background: #2b4a6f; color: #fff; padding: 10px 18px; }
header.llrlab h1 { font-size: 20px; margin: 0; font-weight: 600; }
header.llrlab p { margin: 4px 0 0 0; font-size: 13px; opacity: 0.9; }
main.llrlab { padding: 8px 16px 24px 16px; }
.llrlab-grid { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr);
               gap: 10px 18px; align-items: start; }
.llrlab-wide { grid-column: 1 / span 2; }
.llrlab-card h2 { font-size: 16px; margin: 12px 0 4px 0; }
.llrlab-note { font-size: 13px; color: #555; margin: 4px 0; }
#llrlab-op-header { font-size: 14px; margin: 6px 0 8px 0; font-variant-numeric: tabular-nums; }
table.llrlab-metrics { border-collapse: collapse; font-size: 14px; min-width: 420px; }
""" + METRICS_TABLE_CSS + """\
table.llrlab-metrics td.llrlab-bad { color: #c62828; font-weight: bold; }
table.llrlab-params td:last-child { text-align: left; }
@media (max-width: 1000px) { .llrlab-grid { grid-template-columns: minmax(0, 1fr); }
                             .llrlab-wide { grid-column: 1; } }
"""

#: Jinja2 template for ``bokeh.embed.file_html`` (Bokeh supplies ``base``, ``embed`` and
#: ``roots``); every text it shows is escaped before it gets here or with ``| e``.
#: The head of a page of ours for ``bokeh.embed.file_html``: its title (escaped), style and
#: script; the page's body follows, then ``{% endblock %}``.
PAGE_HEAD = """
{% extends base %}
{% block title %}{{ title | e }}{% endblock %}
{% block postamble %}
<style>{{ css }}</style>
<script>{{ script }}</script>
{% endblock %}
{% block contents %}
"""

TEMPLATE = PAGE_HEAD + """\
<header class="llrlab"><h1>{{ title | e }}</h1><p>{{ subtitle | e }}</p></header>
<main class="llrlab">
<div class="llrlab-grid">
  <section class="llrlab-card">
    <h2>Metrics at the operating point</h2>
    <div id="llrlab-op-header"></div>
    {{ table_html }}
    {{ notes_html }}
  </section>
  <section class="llrlab-card">
    <h2>Calibration</h2>
    {{ embed(roots.calibration) }}
    {{ calibration_html }}
  </section>
  <section class="llrlab-card">{{ embed(roots.nber) }}</section>
  <section class="llrlab-card">{{ embed(roots.det) }}</section>
  <section class="llrlab-card">{{ embed(roots.histogram) }}</section>
  <section class="llrlab-card">{{ embed(roots.tippett) }}</section>
  <section class="llrlab-card">{{ embed(roots.reliability) }}</section>
  <section class="llrlab-card llrlab-note">{{ about_html }}</section>
</div>
</main>
{% endblock %}
"""
