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

from .table_css import METRICS_TABLE_CSS

__all__ = ["CSS", "PAGE_HEAD", "SCRIPT", "TEMPLATE"]

SCRIPT = r"""
var llrlabReport = (function () {
  "use strict";

  // the nearest grid point (the lower one on a tie), as OperatingPointGrid.index
  function nearest(P, x) {
    var n = P.length;
    if (n === 1) { return 0; }
    var lo = 0, hi = n;
    while (lo < hi) {
      var mid = (lo + hi) >>> 1;
      if (P[mid] < x) { lo = mid + 1; } else { hi = mid; }
    }
    var j = Math.min(Math.max(lo, 1), n - 1);
    return (P[j] - x < x - P[j - 1]) ? j : j - 1;
  }

  // normalized DCF, llrlab.core.dcf._combine
  function dcf(plo, pm, pf) {
    var e = Math.exp(Math.abs(plo));
    var cm = plo < 0 ? 1.0 : e, cf = plo < 0 ? e : 1.0;
    return (pm === 0 ? 0.0 : cm * pm) + (pf === 0 ? 0.0 : cf * pf);
  }

  function expit(x) { return 1.0 / (1.0 + Math.exp(-x)); }

  // numpy.interp: xp increasing, clamped at the ends
  function interp(x, xp, fp) {
    var n = xp.length;
    if (n === 0) { return x; }
    if (x <= xp[0]) { return fp[0]; }
    if (x >= xp[n - 1]) { return fp[n - 1]; }
    var lo = 0, hi = n - 1;
    while (hi - lo > 1) {
      var mid = (lo + hi) >>> 1;
      if (xp[mid] <= x) { lo = mid; } else { hi = mid; }
    }
    if (xp[hi] === xp[lo]) { return fp[lo]; }
    return fp[lo] + (x - xp[lo]) * (fp[hi] - fp[lo]) / (xp[hi] - xp[lo]);
  }

  // probit for marker positions only (Acklam's approximation), clipped like llrlab's probit
  var A = [-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
           1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00];
  var B = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
           6.680131188771972e+01, -1.328068155288572e+01];
  var C = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
           -2.549732539343734e+00, 4.374664141464968e+00, 2.938163982698783e+00];
  var D = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
           3.754408661907416e+00];
  function tail(q) {
    return (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5]) /
           ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1);
  }
  function probit(p) {
    var v;
    if (!(p > 0)) { v = -Infinity; }
    else if (!(p < 1)) { v = Infinity; }
    else if (p < 0.02425) { v = tail(Math.sqrt(-2 * Math.log(p))); }
    else if (p > 1 - 0.02425) { v = -tail(Math.sqrt(-2 * Math.log(1 - p))); }
    else {
      var q = p - 0.5, r = q * q;
      v = (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q /
          (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1);
    }
    return Math.min(Math.max(v, -8), 8);
  }

  function fixed(v, d) { return v.toFixed(d); }
  // "{:,}" of Python (toLocaleString is slow)
  function count(v) { return String(v).replace(/\B(?=(\d{3})+(?!\d))/g, ","); }
  function g4(v) { return Number(v.toPrecision(4)).toString(); }

  // the grid point a pointer position asks for (undefined: ignore the event)
  function pick(mode, ev, M) {
    var P = M.grid.data.plo;
    if (mode === "init") { return M.init; }
    if (M.zoom != null && M.zoom.active) { return undefined; }
    var x = ev.x, y = ev.y;
    if (x == null || y == null || !isFinite(x) || !isFinite(y)) { return undefined; }
    if (mode === "det") {
      var V = M.verts[0].data, best = -1, dist = Infinity;
      for (var k = 0; k < V.x.length; k++) {
        var dx = V.x[k] - x, dy = V.y[k] - y, dd = dx * dx + dy * dy;
        if (dd < dist) { dist = dd; best = k; }
      }
      return best < 0 ? undefined : V.gi[best];
    }
    var plo;
    if (mode === "nber") { plo = x; }
    else if (mode === "tippett") { plo = -x / M.unit; }
    else if (mode === "ece") { plo = x / M.unit; }
    else if (mode === "hist") { plo = -interp(x, M.map_s, M.map_llr); }
    else { return undefined; }
    return nearest(P, plo);
  }

  // the numbers of Analysis.at at grid point i (col: the table's columns, one row per
  // score set) and the DET and Tippett markers there: no page element is touched, so that
  // every page that drags on the grid computes them here
  function at(i, M) {
    var G = M.grid.data, plo = G.plo[i], nsets = M.T.length;
    var col = {label: M.labels.slice(), plo: [], effective_prior: [], act_dcf: [],
               min_dcf: [], p_miss: [], p_fa: [], misses: [], false_alarms: [],
               min_p_miss: [], min_p_fa: [], min_misses: [], min_false_alarms: [],
               dr30_safe: [], index: []};
    var det = {x: [], y: [], marker: [], color: [], alpha: []};
    var tip = {x: [], y: [], color: []};
    var thr = -plo * M.unit;
    for (var j = 0; j < nsets; j++) {
      var m = G["m" + j][i], f = G["f" + j][i];
      var pm = M.weighted[j] ? G["pm" + j][i] : m / M.T[j];
      var pf = M.weighted[j] ? G["pf" + j][i] : f / M.N[j];
      var V = M.verts[j].data, v = G["v" + j][i];
      var vpm = V.p_miss[v], vpf = V.p_fa[v];
      col.plo.push(plo);
      col.effective_prior.push(expit(plo));
      col.act_dcf.push(dcf(plo, pm, pf));
      col.min_dcf.push(dcf(plo, vpm, vpf));
      col.p_miss.push(pm);
      col.p_fa.push(pf);
      col.misses.push(m);
      col.false_alarms.push(f);
      col.min_p_miss.push(vpm);
      col.min_p_fa.push(vpf);
      col.min_misses.push(V.misses[v]);
      col.min_false_alarms.push(V.false_alarms[v]);
      col.dr30_safe.push(G["s" + j][i] === 1);
      col.index.push(i);
      var alpha = M.alphas[j];
      det.x.push(probit(pf), V.x[v]);
      det.y.push(probit(pm), V.y[v]);
      det.marker.push("circle", "square");
      det.color.push("#c51b8a", "#222222");
      det.alpha.push(alpha, alpha);
      tip.x.push(thr, thr);
      tip.y.push(M.weighted[j] ? 1 - pm : (M.T[j] - m) / M.T[j], pf);
      tip.color.push("#ff7f0e", "#1f77b4");
    }
    return {plo: plo, thr: thr, col: col, det: det, tip: tip};
  }

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

  return {move: move, pick: pick, at: at, nearest: nearest, dcf: dcf, probit: probit};
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
