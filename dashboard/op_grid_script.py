"""The look-up of an operating-point drag on the exact grid, in JavaScript: one source for
every page that drags in the browser (the offline report, a lecture file, the served
dashboard).

:data:`GRID_SCRIPT` defines ``llrlabGrid``, whose functions touch no page element:
``pick(mode, event, M)`` turns a pointer position into a grid index (binary search in
``M.grid.data.plo``, the lower point on a tie, as
:meth:`llrlab.core.OperatingPointGrid.index`; on the DET plot the ROCCH vertex of set 0
nearest to the pointer), and ``at(i, M)`` computes at grid point ``i`` exactly what
:meth:`llrlab.core.Analysis.at` computes (see :mod:`.report_page` for the arithmetic), from
the columns of :mod:`.op_grid_data`.  ``M`` holds the grid's data source (``grid``), one
vertex data source per set (``verts``), the sets' totals ``T`` and ``N``, their ``weighted``
flags, ``labels``, ``alphas``, the LLR ``unit`` and, for ``pick``, the box-zoom tool
(``zoom``) and the histogram's score-to-LLR map (``map_s``, ``map_llr``).

The served dashboard's drag (:data:`SERVED_DRAG`, with :data:`PAGE_FIXES`) moves only what a
move changes: the plots' overlay canvases are repainted, not their curves, axes and legends;
the table's cells are written only where their text changes.
"""

from __future__ import annotations

__all__ = ["GRID_SCRIPT", "PAGE_FIXES", "served_script"]

GRID_SCRIPT = r"""
var llrlabGrid = (function () {
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

  return {nearest: nearest, dcf: dcf, expit: expit, interp: interp, probit: probit,
          fixed: fixed, count: count, g4: g4, pick: pick, at: at};
})();
"""


#: Two adjustments of BokehJS 3.9 for what a drag moves in the page, installed once per
#: page with :data:`GRID_SCRIPT` (each only when BokehJS has what it adjusts):
#:
#: 1. **A glyph on the overlay canvas is clipped to the frame.**  BokehJS paints a plot on
#:    two canvases: the primary one (every glyph, axis, grid, legend and annotation) and the
#:    overlays (renderers whose ``level`` is ``"overlay"``), and repaints only the canvas
#:    whose renderers changed (``PlotView._actual_paint``).  What a drag moves is drawn on
#:    the overlays (the NBER line and its label, the DET markers: :mod:`.views.nber`,
#:    :mod:`.views.det`), so a move repaints that canvas alone, not the curves of up to
#:    thousands of points, the axes and the legend.  BokehJS clips glyphs to the frame only
#:    on the primary canvas (``_paint_levels``; ``RendererView.needs_clip`` is false); a
#:    glyph on the overlays is clipped there too, so that the markers look as they did.
#: 2. **A style sheet is not written again with the text it has.**  Each paint of a renderer
#:    writes its element's position into an inline ``<style>`` (``update_position``), the
#:    same text for a line or a marker at each move; the browser re-reads a style sheet that
#:    is written, and restyles the plot.
PAGE_FIXES = r"""
(function () {
  var B = window.Bokeh, V;
  try { V = B.require("models/renderers/glyph_renderer").GlyphRendererView; }
  catch (e) { V = null; }
  if (V == null || V.prototype.__llrlab_overlay_clip) { return; }
  var d = null;
  for (var p = V.prototype; p != null && d == null; p = Object.getPrototypeOf(p)) {
    d = Object.getOwnPropertyDescriptor(p, "needs_clip") || null;
  }
  if (d == null || d.get == null) { console.warn("llrlab: no needs_clip to extend"); return; }
  Object.defineProperty(V.prototype, "needs_clip", {configurable: true, get: function () {
    return this.model.level === "overlay" || d.get.call(this);
  }});
  V.prototype.__llrlab_overlay_clip = true;
})();
(function () {
  var S;
  try { S = window.Bokeh.require("core/dom").InlineStyleSheet; } catch (e) { S = null; }
  if (S == null || S.prototype.__llrlab_same_css || typeof S.prototype._update !== "function") {
    return;
  }
  var update = S.prototype._update;
  S.prototype._update = function (css) {
    if (this.el.textContent !== css) { update.call(this, css); }
  };
  S.prototype.__llrlab_same_css = true;
})();
"""


def served_script(code):
    """``code`` (the body of a CustomJS callback) preceded by :data:`GRID_SCRIPT` and
    :data:`PAGE_FIXES`, which run once per page: the callback finds ``llrlabGrid`` on
    ``window``."""
    return ("if (window.llrlabGrid == null) {\n" + GRID_SCRIPT + PAGE_FIXES
            + "window.llrlabGrid = llrlabGrid;\n}\n" + code)


#: The body of the served dashboard's drag callbacks (:func:`.views._common.connect_drag`
#: with a grid): while the pointer moves, the page moves the operating point on the grid
#: itself -- the NBER line and its label, the DET markers, the metrics table's cells -- with
#: changes that are not sent to the server (``setv(..., {sync: false})``); the pointer's
#: position is sent once, when it has been still for ``pause`` ms or the drag ends
#: (``end``).  ``channel._llrlab_last`` holds the last grid look-up (``llrlabGrid.at``),
#: for tests and benchmarks.  Without grid data (not computed yet, or no results) every
#: position is sent as it comes (``fallback``, the view's own immediate feedback).
SERVED_DRAG = r"""
const G = window.llrlabGrid, C = channel;
function send() {
  clearTimeout(C._llrlab_timer);
  C._llrlab_timer = null;
  const p = C._llrlab_pending;
  if (p == null) { return; }
  C._llrlab_pending = null;
  C._llrlab_n = (C._llrlab_n || 0) + 1;
  C.data = {x: [p[0]], y: [p[1]], n: [C._llrlab_n]};
}
if (cb_obj.x == null || cb_obj.y == null || !isFinite(cb_obj.x) || !isFinite(cb_obj.y)) {
  if (end) { send(); }
  return;
}
if (zoom != null && zoom.active) { return; }
const M = models(grid, sets, verts, C);
if (M == null) {  // no grid data: the server answers each position
  fallback();
  C._llrlab_pending = [cb_obj.x, cb_obj.y];
  send();
  return;
}
const i = G.pick(mode, cb_obj, M);
if (i === undefined) { return; }
const A = G.at(i, M);
C._llrlab_last = A;
show(A, M);
C._llrlab_pending = [cb_obj.x, cb_obj.y];
clearTimeout(C._llrlab_timer);
C._llrlab_timer = end ? null : setTimeout(send, pause);
if (end) { send(); }

// the look-up's inputs, rebuilt when the grid's data change
function models(grid, sets, verts, C) {
  const P = grid.data.plo;
  if (P == null || P.length === 0) { return null; }
  const cached = C._llrlab_models;
  if (cached != null && cached.data === grid.data && cached.sets === sets.data) {
    return cached;
  }
  const S = sets.data, doc = C.document, roles = Array.from(S.role);
  const byName = (n) => doc.get_model_by_name(n);
  const nber = byName("nber"), det = byName("det");
  const M = {grid: grid, data: grid.data, sets: sets.data, roles: roles, labels: roles,
             verts: verts.slice(0, roles.length),
             T: Array.from(S.T), N: Array.from(S.N),
             weighted: Array.from(S.weighted).map((w) => w === 1),
             alphas: roles.map(() => 1.0), unit: 1.0, zoom: zoom,
             span: byName("op_span"), label: byName("op_label"),
             nber_x: nber == null ? null : nber.x_range, det: det,
             det_op: {eval: byName("det_op_eval"), dev: byName("det_op_dev")},
             table: null};
  C._llrlab_models = M;
  return M;
}

// the cells of the metrics table (a Panel HTML pane marked "llrlab-op-table")
function cells(M) {
  let v = M.table;
  if (v == null || !v.el.isConnected) {
    v = Bokeh.index.query_one((w) => w.model != null && w.model.css_classes != null &&
                                     w.model.css_classes.indexOf("llrlab-op-table") >= 0);
    M.table = v;
  }
  if (v == null) { return []; }
  // the cells no longer show the pane's text: mark that text as stale (no re-render, nothing
  // sent), so that the server's text, even the same one, is drawn again when it comes
  if (v._llrlab_stale !== v.model.text) {
    v.model.setv({text: v.model.text + " "}, {silent: true});
    v._llrlab_stale = v.model.text;
  }
  return v.shadow_el.querySelectorAll("td[data-role][data-key]");
}

function text(td, t) {  // the value, not the interval under it; untouched when the same
  const n = td.firstChild;
  if (n == null || n.nodeType !== 3) { td.prepend(t); } else if (n.nodeValue !== t) {
    n.nodeValue = t;
  }
}

// The DET markers of a set at (xs, ys).  Once they are the drag's markers (a circle and a
// square, no angle), their positions are patched in place (ColumnDataSource.patch): the
// glyph is updated and its canvas repainted, but the source emits no "change", which the
// plot's legend would answer by rebuilding all its items (a canvas each); a marker's legend
// entry does not depend on where the marker is.  Nothing is sent to the server.
function markers(src, xs, ys) {
  const d = src.data, same = (a, b) => a != null && a.length === b.length &&
    b.every((v, k) => a[k] === v);
  if (same(d.marker, ["circle", "square"]) && same(d.color, colors) &&
      same(d.angle, [0.0, 0.0]) && d.x != null && d.x.length === 2 && d.y != null &&
      d.y.length === 2) {
    src.patch({x: [[0, xs[0]], [1, xs[1]]], y: [[0, ys[0]], [1, ys[1]]]}, {sync: false});
  } else {
    src.setv({data: {x: xs, y: ys, marker: ["circle", "square"], color: colors,
                     angle: [0.0, 0.0]}}, {sync: false});
  }
}

function clamp(v, lo, hi) {
  return Math.min(Math.max(v, Math.min(lo, hi)), Math.max(lo, hi));
}

function show(A, M) {
  const plo = A.plo, col = A.col;
  if (M.span != null) { M.span.setv({location: plo}, {sync: false}); }
  if (M.label != null && M.nber_x != null) {
    const right = plo > 0.5 * (M.nber_x.start + M.nber_x.end);
    M.label.setv({x: plo, text: "plo = " + G.fixed(plo, 2),
                  text_align: right ? "right" : "left", x_offset: right ? -4 : 4},
                 {sync: false});
  }
  for (let j = 0; j < M.roles.length; j++) {
    const src = M.det_op[M.roles[j]];
    if (src == null || M.det == null) { continue; }
    const xr = M.det.x_range, yr = M.det.y_range;
    const xs = A.det.x.slice(2 * j, 2 * j + 2).map((v) => clamp(v, xr.start, xr.end));
    const ys = A.det.y.slice(2 * j, 2 * j + 2).map((v) => clamp(v, yr.start, yr.end));
    markers(src, xs, ys);
  }
  const fmt = {
    act_dcf: (j) => G.fixed(col.act_dcf[j], 4), min_dcf: (j) => G.fixed(col.min_dcf[j], 4),
    misses: (j) => G.count(col.misses[j]), false_alarms: (j) => G.count(col.false_alarms[j]),
    p_miss: (j) => G.fixed(100 * col.p_miss[j], 3), p_fa: (j) => G.fixed(100 * col.p_fa[j], 3),
    dr30_safe: (j) => col.dr30_safe[j] ? "yes" : "NO"};
  const tds = cells(M);
  for (let k = 0; k < tds.length; k++) {
    const td = tds[k], f = fmt[td.dataset.key], j = M.roles.indexOf(td.dataset.role);
    if (f === undefined || j < 0) { continue; }
    text(td, f(j));
    if (td.dataset.key === "dr30_safe") {
      const bad = !col.dr30_safe[j], color = bad ? "#c62828" : "#222222";
      if (td._llrlab_color !== color) {  // (a style written again costs a style update)
        td.style.color = color;
        td.style.fontWeight = bad ? "bold" : "normal";
        td._llrlab_color = color;
      }
    }
  }
}
"""
