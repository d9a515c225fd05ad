"""What a complete lesson step is, and how a page in chromium times it (used by
``bench_lesson.py`` and the browser tests of lessons).

A step is **complete** in the page when all of these hold in its Bokeh document:

* the lesson's text (the first child of ``lesson_panel``) says ``step k of n`` and shows
  the step's title;
* every panel is visible exactly when the step shows it (``panel_<name>``), and outlined
  exactly when the step highlights it (CSS class ``llrlab-lit``);
* every named ColumnDataSource of each shown plot (but the drag's grid) holds the step's
  data (per numeric column: the number of finite values and their sum, to a relative
  1e-9), the operating
  point line of the NBER plot (``op_span``) stands at the step's prior log-odds;
* the metrics table (the child of ``metrics`` with the table), when shown, has the step's
  numbers in every cell.

:func:`expected_steps` computes these expectations from the dashboard itself, run in this
process on the same data with no server (the views fill the same sources), so that the page
is compared with what the step must show, not with what the server last sent.

:data:`PROBE_INIT` runs in the page before its scripts (``page.add_init_script``): it stamps
with ``performance.now()`` every key press (capturing listener), every websocket message
that arrives (its size too) and every animation frame (a counter).  :data:`WATCH` then
listens to the document's changes (``Document.on_change``): after each change it checks the
expectations of the step awaited and stamps when the text first matched, when the plots and
table first matched, and when all of it did (with the animation frame of each: the text and
the plots changed in one update when the frame is the same), then the next animation frame
(the step painted).
"""

from __future__ import annotations

import html
import math
import re

import numpy as np

__all__ = ["PROBE_INIT", "WATCH", "expected_steps", "fingerprint", "table_cells"]

#: The panels of the stage (``dashboard.state.presenter.PANELS``).
PANELS = ("nber", "det", "histogram", "calibration", "metrics")


def fingerprint(data):
    """``{column: [finite count, finite sum]}`` of the numeric columns of a source's data."""
    out = {}
    for col, values in data.items():
        a = np.asarray(values)
        if a.dtype.kind not in "fiub":
            if a.dtype == object:
                try:
                    a = a.astype(np.float64)
                except (TypeError, ValueError):
                    continue
            else:
                continue
        a = a.astype(np.float64).ravel()
        ok = np.isfinite(a)
        out[col] = [int(ok.sum()), float(a[ok].sum()) if ok.any() else 0.0]
    return out


_CELL = re.compile(r'<td data-role="([a-z]+)" data-key="([a-z_0-9]+)"[^>]*>([^<]*)')


def table_cells(table_html):
    """``{"role.key": text}`` of the metrics table's value cells (its HTML)."""
    return {f"{r}.{k}": html.unescape(v).strip() for r, k, v in _CELL.findall(table_html)}


def _sources(view):
    from bokeh.models import ColumnDataSource

    fig = getattr(view, "figure", None)
    if fig is None:
        return {}
    # (not the drag's channel, nor the operating-point grid of the drag computed in the
    # page: data for a later drag, sent once the step has been shown, not part of its picture)
    return {s.name: fingerprint(s.data) for s in fig.select({"type": ColumnDataSource})
            if s.name and not s.name.endswith("_drag") and not s.name.startswith("op_grid")}


def expected_steps(lesson_id="calibration", lessons=None):
    """The expectations of each step of a lesson (see the module docstring): a list, one
    dict per step, of plain JSON values."""
    from llrlab.dashboard.app import create_app

    page = create_app(threaded=False, lesson=lesson_id, lessons=lessons)
    st = page.state
    lesson = st.lesson.current()
    views = page.main_area.views
    out = []
    for k in range(1, len(lesson) + 1):
        st.lesson.step = k
        step = lesson.step(k)
        sources = {}
        for name in step.show:
            sources.update(_sources(views[name]))
        exp = {
            "step": k, "n": len(lesson), "title": step.title,
            "shown": {p: p in step.show for p in PANELS},
            "lit": {p: p in step.highlight for p in step.show},
            "sources": sources,
            "op": st.point.plo if "nber" in step.show else None,
            "cells": table_cells(views["metrics"].table.object) if "metrics" in step.show
            else None,
        }
        for fp in sources.values():
            for col, (_n, s) in fp.items():
                if not math.isfinite(s):
                    raise ValueError(f"step {k}: column {col} sums to {s}")
        out.append(exp)
    return out


PROBE_INIT = """
(() => {
  const p = window.__probe = {keys: [], msgs: [], frame: 0};
  document.addEventListener('keydown', (e) => p.keys.push([performance.now(), e.key]),
                            {capture: true});
  const tick = () => { p.frame += 1; requestAnimationFrame(tick); };
  requestAnimationFrame(tick);
  const Orig = window.WebSocket;
  class Probed extends Orig {
    constructor(...args) {
      super(...args);
      this.addEventListener('message', (e) => {
        const d = e.data;
        const n = typeof d === 'string' ? d.length : (d.byteLength ?? d.size ?? 0);
        p.msgs.push([performance.now(), n]);
      });
    }
  }
  window.WebSocket = Probed;
})();
"""

#: Installs the document listener (see the module docstring); ``expect`` is the list of
#: :func:`expected_steps`.  Returns false until the page's document has the lesson's text.
WATCH = """(expect) => {
  if (!(window.Bokeh && Bokeh.documents.length)) { return false; }
  const doc = Bokeh.documents[0];
  const panel = doc.get_model_by_name('lesson_panel');
  if (panel == null) { return false; }
  const p = window.__probe;
  if (p.watching) { return true; }
  p.watching = true;
  p.expect = expect;
  p.await = null;   // the index of the step awaited
  p.done = {};      // index -> {text, text_frame, plots, plots_frame, all, frame, painted}
  p.changes = 0;
  const plain = (h) => new DOMParser().parseFromString(h, 'text/html').documentElement
                                      .textContent;
  const close = (a, b) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b));
  const fp = (values) => {
    let n = 0, s = 0;
    for (let i = 0; i < values.length; i++) {
      const v = values[i];
      if (typeof v === 'number' && Number.isFinite(v)) { n += 1; s += v; }
    }
    return [n, s];
  };
  p.table = () => {
    // (Panel's panes do not give their Bokeh model a name)
    const col = doc.get_model_by_name('metrics');  // (made when first shown)
    if (col == null) { return null; }
    for (const c of col.children) {
      if (typeof c.text === 'string' && c.text.includes('llrlab-metrics')
          && !c.text.includes('llrlab-conditions')) { return c; }
    }
    return null;
  };
  p.textOk = (e) => {
    const box = doc.get_model_by_name('lesson_panel');
    const m = box == null ? null : box.children[0];
    if (m == null || !box.visible) { return false; }
    const t = plain(plain(m.text)).replace(/\\s+/g, ' ');
    return t.includes(`step ${e.step} of ${e.n}`) && t.includes(e.title.replace(/\\s+/g, ' '));
  };
  p.plotsOk = (e, why) => {
    for (const [name, shown] of Object.entries(e.shown)) {
      const m = doc.get_model_by_name('panel_' + name);
      if (m == null || m.visible !== shown) { why.push('shown ' + name); return false; }
      if (shown) {
        const lit = (m.css_classes || []).includes('llrlab-lit');
        if (lit !== e.lit[name]) { why.push('lit ' + name); return false; }
      }
    }
    for (const [name, cols] of Object.entries(e.sources)) {
      const m = doc.get_model_by_name(name);
      if (m == null) { why.push('no source ' + name); return false; }
      const data = m.data instanceof Map ? Object.fromEntries(m.data) : m.data;
      for (const [col, [n, s]] of Object.entries(cols)) {
        const v = data[col];
        if (v == null) { why.push(name + '.' + col); return false; }
        const [n2, s2] = fp(v);
        if (n2 !== n || !(close(s2, s) || (Math.abs(s2 - s) < 1e-9 * n))) {
          why.push(name + '.' + col); return false;
        }
      }
    }
    if (e.op != null) {
      const span = doc.get_model_by_name('op_span');
      if (span == null || !close(span.location, e.op)) { why.push('op_span'); return false; }
    }
    if (e.cells != null) {
      const m = p.table();
      if (m == null) { why.push('no table'); return false; }
      const h = plain(m.text);
      const tab = new DOMParser().parseFromString(h, 'text/html');
      for (const [k, v] of Object.entries(e.cells)) {
        const [role, key] = k.split('.');
        const td = tab.querySelector(`td[data-role="${role}"][data-key="${key}"]`);
        const got = td == null ? null : (td.childNodes[0] ? td.childNodes[0].textContent
                                                             : '').trim();
        if (got !== v) { why.push('cell ' + k); return false; }
      }
    }
    return true;
  };
  p.check = () => {
    p.queued = false;
    if (p.await == null) { return; }
    const i = p.await, e = p.expect[i];
    const d = p.done[i] || (p.done[i] = {});
    const now = performance.now();
    if (d.text == null && p.textOk(e)) { d.text = now; d.text_frame = p.frame; }
    const why = [];
    if (d.plots == null && p.plotsOk(e, why)) { d.plots = now; d.plots_frame = p.frame; }
    d.why = why.join(', ');
    if (d.all == null && d.text != null && d.plots != null && p.textOk(e)
        && p.plotsOk(e, [])) {
      d.all = now; d.frame = p.frame;
      requestAnimationFrame(() => { d.painted = performance.now(); });
    }
  };
  p.expectStep = (i) => { p.await = i; p.check(); };
  doc.on_change(() => {
    p.changes += 1;
    if (!p.queued) { p.queued = true; queueMicrotask(p.check); }
  });
  return true;
}"""
