"""The lesson as one offline file for the class: every step of a lesson in one HTML page.

:func:`lecture_html` walks a lesson's steps through the dashboard's own state (the demo data,
each step set as the served lesson sets it: :meth:`~.state.DashboardState.restore` of the
step's snapshot) and writes, for every step, what the served lesson shows:

* the step's text, rendered as the served lesson renders it
  (:func:`~llrlab.dashboard.lesson_text.render_html`: Markdown with formulas as MathML, no
  HTML, link or style from the lesson file);
* its plots, drawn by the offline report's figures (:func:`~.report.report_parts`), on which
  the operating point can be dragged as in the report: the numbers follow in the page, exact
  on the report's grid of prior log-odds (the report's script, :mod:`.report_page`), and each
  step opens at its own operating point;
* its metrics table (when the step shows ``metrics``) and the line of the operating point;
* its highlights: a highlighted panel is outlined, a highlighted curve or marker drawn
  thicker, a highlighted row of the table marked.

The page steps with the served lesson's keys (one key table for both:
:data:`~.page_control.KEY_JS`): Page Down, right or down arrow and Space forward, Page Up, left
or up arrow and Shift+Space back, Home and End, a step's number then Enter, B or . for a black
screen; the address's ``#step=N`` opens step N.  BokehJS is inlined and nothing is fetched: it
works from a disk or a USB stick with no network.  The page opens with the shown step's
figures drawn alone; the other steps' are drawn after it, in the background, or when a step
is asked for, and a step is shown once its figures are drawn (``_LAZY_SCRIPT``).  Steps
whose data and starting point are the same share the report's look-up data (about 0.2 MB
per score set).
"""

from __future__ import annotations

import html
import json
import re
import threading

from bokeh.document import Document
from bokeh.embed import file_html
from bokeh.events import DocumentReady
from bokeh.models import CustomJS, GlyphRenderer
from jinja2 import Template

from llrlab.core import DataError

from .lesson_text import MATH_CSS, render_html, text_css
from .page_control import KEY_JS
from .report import MAX_SETS, ReportSet, _OfflineResources, report_parts
from .report_page import CSS, PAGE_HEAD, SCRIPT
from .views._common import REF_COLORS, REF_DASHES, finite

__all__ = ["LECTURE_PANELS", "MAX_LECTURE_MB", "lecture_bytes", "lecture_html", "step_sets"]

#: The panels a lecture file draws (the served lesson's, but the metrics table, which is
#: HTML); a step's ``metrics`` is its table.
LECTURE_PANELS = ("nber", "det", "histogram", "calibration", "tippett", "reliability", "ece")
#: The size a lecture file of a built-in lesson stays under (tested).
MAX_LECTURE_MB = 10
#: Milliseconds after the first step is painted before the page draws the other steps'
#: figures (see ``_LAZY_SCRIPT``).
BACKGROUND_MS = 300
#: How much thicker a highlighted line is drawn, and a highlighted marker.
_LIT_LINE, _LIT_SIZE = 2.0, 1.5


def _noop(fraction, message=""):
    return None


def step_sets(state):
    """The score sets a step shows, as the served page draws them: eval first (solid, the
    primary set: histogram bars, DR30 shading, DET drags), then dev when ``show_dev``, then
    teaching mode's true LLRs; at most :data:`~.report.MAX_SETS`."""
    res = state.results
    out = []
    for role in ("eval", "dev", "true"):
        d = res.datasets.get(role)
        if d is None or (role == "dev" and not state.display.show_dev):
            continue
        out.append((role, ReportSet(d.label, d.llr, d.raw if d.raw is not d.llr else None)))
    return out[:MAX_SETS]


def _walk(lesson, progress):
    """``(number, step, state)`` for every step, the state set as the served lesson sets it
    (the demo data; every step from the same starting point)."""
    from .app import demo_specs, load_specs
    from .state import DashboardState, SyncRunner

    st = DashboardState(runner=SyncRunner())
    load_specs(st, demo_specs())
    for k, step in enumerate(lesson.steps, 1):
        progress((k - 1) / len(lesson), f"step {k} of {len(lesson)}: {step.title}")
        st.restore(step.snapshot())
        if st.status.error:
            raise DataError(f"{lesson.source}, step {k} {step.title!r}: {st.status.error}")
        yield k, step, st


def _tags(renderer):
    """The tags of a renderer (the report's figures tag the glyph: a glyph method passes
    ``tags`` to it)."""
    glyph = getattr(renderer, "glyph", None)
    return {*renderer.tags, *(glyph.tags if glyph is not None else ())}


def _edges(res):
    """The bins of the served histogram (teaching mode: the central part of each class, not
    the long tail of the true LLR), or None."""
    d = res.primary
    return None if d is None or d.hist is None else d.hist.edges


def _thicken(fig, tags):
    """Draw the renderers tagged with one of ``tags`` thicker (a lesson's highlight)."""
    for r in fig.renderers:
        if not isinstance(r, GlyphRenderer) or not _tags(r) & tags:
            continue
        g = r.glyph
        if hasattr(g, "line_width"):
            g.line_width = _LIT_LINE * (g.line_width if isinstance(g.line_width, (int, float))
                                        else 2.0)
        if hasattr(g, "size") and isinstance(g.size, (int, float)):
            g.size = _LIT_SIZE * g.size


def _references(fig, st):
    """Teaching mode's reference miscalibrations of the true LLR on the NBER plot (their
    actual DCF, as the served NBER plot draws them when ``teaching.references`` is on)."""
    from bokeh.models import Legend, LegendItem

    from .views._common import line_dash

    nb = st.nber
    if nb is None or not nb.references:
        return
    items = []
    for i, (label, act) in enumerate(nb.references):
        r = fig.line(nb.plo, finite(act.dcf), line_color=REF_COLORS[i], line_width=1.5,
                     line_dash=line_dash(REF_DASHES[i]), tags=["nber.references"])
        items.append(LegendItem(label=label, renderers=[r]))
    legend = fig.select_one({"type": Legend})
    if legend is not None:
        legend.items = [*legend.items, *items]


def _conditions(fig, st):
    """The primary set's per-condition NBER curves when ``conditions.show_curves`` is on, as
    the served plot draws them in presentation style (act in the condition's dashes, min
    dotted, one colour per condition; the legend names the condition and its weight)."""
    from bokeh.core.properties import value
    from bokeh.models import Legend, LegendItem

    from .views._common import CONDITION_COLORS, CONDITION_DASHES, line_dash

    nb, res = st.nber, st.results
    if nb is None or not st.conditions.show_curves or res.primary is None:
        return
    curves = nb.conditions.get(res.primary.role, [])
    items = []
    for k, ((_, act, mn), c) in enumerate(zip(curves, res.primary.conditions, strict=False)):
        color = CONDITION_COLORS[k % len(CONDITION_COLORS)]
        dash = CONDITION_DASHES[k % len(CONDITION_DASHES)]
        ra = fig.line(nb.plo, finite(act.dcf), line_color=color, line_width=1.6,
                      line_dash=line_dash(dash), tags=["nber.conditions"])
        rm = fig.line(nb.plo, finite(mn.dcf), line_color=color, line_width=1.6,
                      line_dash="dotted", tags=["nber.conditions"])
        w = (f"w {c.w_tar:.2f}" if abs(c.w_tar - c.w_non) < 1e-12
             else f"w {c.w_tar:.2f}/{c.w_non:.2f}")
        items.append(LegendItem(label=value(f"{c.name} ({w})"), renderers=[ra, rm]))
    legend = fig.select_one({"type": Legend})
    if legend is not None and items:
        legend.items = [*legend.items, *items]


def _true_llr(fig, j):
    """Teaching mode's true LLR on the NBER plot as the served plot draws it: its actual DCF
    only, solid and thick in the true LLR's colour (set ``j`` of the report's figure)."""
    from bokeh.core.properties import value
    from bokeh.models import Legend

    from .views._common import COLORS

    hidden = []
    for r in fig.renderers:
        if f"set{j}" not in _tags(r):
            continue
        if "nber.act" in _tags(r):
            r.glyph.update(line_color=COLORS["true"], line_dash="solid", line_alpha=1.0,
                           line_width=2.5)
        else:
            r.visible = False
            hidden.append(r)
    legend = fig.select_one({"type": Legend})
    if legend is None:
        return
    items = []
    for item in legend.items:
        if any(r in hidden for r in item.renderers):
            continue
        if any(f"set{j}" in _tags(r) for r in item.renderers):
            item.label = value("true LLR act DCF")  # (a bare string names a column)
        items.append(item)
    legend.items = items


def _style(fig, px, line):
    """The presentation style of a lesson's stage: large type, thick lines."""
    fig.title.text_font_size = px("title")
    for ax in fig.axis:
        ax.axis_label_text_font_size = px("axis")
        ax.major_label_text_font_size = px("ticks")
    for leg in fig.legend:
        leg.label_text_font_size = px("legend")
    for r in fig.renderers:
        g = getattr(r, "glyph", None)
        if g is not None and isinstance(getattr(g, "line_width", None), (int, float)):
            g.line_width = line(g.line_width)
        if g is not None and isinstance(getattr(g, "text_font_size", None), str):
            g.text_font_size = px("annotation")


def _js(value):
    """``value`` as a JavaScript literal inside a script element."""
    return json.dumps(value).replace("</", "<\\/")


def _lit_table(table, lit):
    for key in lit:
        table = table.replace(f'<tr data-key="{key}">',
                              f'<tr data-key="{key}" class="llrlab-lit">')
    return table


def lecture_html(lesson, *, progress=None, title=None) -> str:
    """The lecture file of ``lesson`` (a :class:`~llrlab.dashboard.lessons.Lesson`): one
    self-contained HTML page with every step (see the module docstring).

    ``progress(fraction, message)`` is told of each step; ``title`` is the page's title in
    the browser's tab (default: the lesson's title, then the step's).
    """
    from .state.display import DisplayState

    progress = progress or _noop
    look = DisplayState(presentation=True)

    def px(kind):
        return look.font(kind)

    cache, doc, steps = {}, Document(), []
    for k, step, st in _walk(lesson, progress):
        roles_sets = step_sets(st)
        roles = [r for r, _ in roles_sets]
        sets = [s for _, s in roles_sets]
        shown = [p for p in st.presenter.shown_panels()]
        drawn = [p for p in shown if p in LECTURE_PANELS]
        point, res = st.point, st.results
        parts = report_parts(sets, calibration=res.calibration, p_target=point.p_target,
                             c_miss=point.c_miss, c_fa=point.c_fa,
                             llr_unit=st.display.llr_unit, score_label=res.score_label,
                             panels=drawn, prefix=f"s{k}", cache=cache,
                             hist_edges=_edges(res))
        lit = set(step.highlight)
        for name, fig in parts.figures.items():
            if name == "nber" and "true" in roles:
                _true_llr(fig, roles.index("true"))
            if name == "nber" and st.teaching.enabled and st.teaching.references:
                _references(fig, st)
            if name == "nber":
                _conditions(fig, st)
            _style(fig, px, look.line_width)
            tags = {t for t in lit if t.startswith(name + ".")}
            if name == "nber" and "nber.true" in lit and "true" in roles:
                tags.add(f"set{roles.index('true')}")  # the true LLR's curves
            _thicken(fig, tags)
            fig.name = f"s{k}_{name}"
            doc.add_root(fig)
        args = dict(parts.init.args)
        args["op"].name = f"s{k}_op"  # the step's numbers (each step has its own)
        doc.js_on_event(DocumentReady, CustomJS(args=args, code=(
            f"llrlabLecture.register({k}, {{" + ", ".join(sorted(args)) + "});")))
        caption = f"{lesson.title} · step {k} of {len(lesson)}"
        steps.append(dict(
            number=k, title=html.escape(step.title),
            text=(f"<p><em>{html.escape(caption)}</em></p>\n<h3>{html.escape(step.title)}"
                  f"</h3>\n{render_html(step.text)}"),
            panels=[dict(name=p, root=f"s{k}_{p}" if p in drawn else None,
                         lit=p in lit) for p in shown],
            table=_lit_table(parts.table_html, {t.split(".", 1)[1] for t in lit
                                                 if t.startswith("metrics.")}),
            op_id=f"s{k}-op-header"))
    doc.js_on_event(DocumentReady, CustomJS(code="llrlabLecture.start();"))
    progress(1.0, "writing the page")
    fills = {"KEY_JS": KEY_JS, "TITLES": _js([step.title for step in lesson.steps]),
             "FIXED": _js(bool(title)), "LESSON": _js(lesson.title),
             "LESSON_ID": _js(lesson.id)}
    # (in one pass: a title that reads "__LESSON__" stays as it is)
    lazy = _LAZY_SCRIPT.replace("__N__", str(len(lesson))).replace(
        "__BACKGROUND_MS__", str(BACKGROUND_MS))
    script = SCRIPT + lazy + re.sub(r"__([A-Z_]+?)__", lambda m: fills[m.group(1)],
                                    _LECTURE_SCRIPT)
    return file_html(doc, resources=_OfflineResources(mode="inline"),
                     title=title or lesson.title, template=Template(_TEMPLATE),
                     template_variables=dict(css=CSS + _LECTURE_CSS + MATH_CSS + text_css(
                                                 look.px("text"), look.px("heading"),
                                                 ".llrlab-text"),
                                             script=script,
                                             lesson_title=lesson.title, steps=steps,
                                             description=lesson.description))


#: Lecture files made by the server (``lecture_bytes``): lesson id -> (lesson, bytes); a
#: few, shared by every session of the process.
_FILES: dict = {}
_FILES_MAX = 4
_FILES_LOCK = threading.Lock()


def lecture_bytes(lesson, progress=None) -> bytes:
    """The lecture file of ``lesson`` as UTF-8 bytes, made once per lesson and process (the
    served lesson's "Lecture file" button: every student's page gets the same file).  Run it
    off the event loop: it computes every step.  One is made at a time; a second caller of
    the same lesson waits for it and gets the same bytes."""
    with _FILES_LOCK:
        hit = _FILES.get(id(lesson))
        if hit is not None and hit[0] is lesson:
            return hit[1]
        data = lecture_html(lesson, progress=progress).encode("utf-8")
        _FILES[id(lesson)] = (lesson, data)  # (the lesson is kept: its id stays its own)
        while len(_FILES) > _FILES_MAX:
            del _FILES[next(iter(_FILES))]
        return data


#: The steps' figures drawn when needed: BokehJS draws every root of a page's document when
#: the page opens, and building, drawing and laying out the hidden steps' figures (12 of the
#: calibration lesson's 13) took about half of the time to open its page (2.5 s, 3.0-3.2 s
#: with both cores busy).  The roots of the
#: steps not shown first (``s<k>_...``, see :func:`lecture_html`) are taken out of the
#: document before BokehJS draws it, and put back one step at a time once the first step is
#: drawn (the next step first), or at once when a step is shown.  It hooks two functions of
#: BokehJS 3 (``Document.from_json`` and ``embed/dom``'s ``_resolve_root_elements``, which
#: must then give the elements of the roots left, in the document's order); if either is
#: missing, every step is drawn at once as before.  A root put back is marked idle once its
#: view has finished (BokehJS marks a document's roots idle only until it first is), so
#: ``Bokeh.documents[0].is_idle`` still says the figures are drawn.
_LAZY_SCRIPT = r"""
var llrlabLazy = (function () {
  "use strict";
  var held = {}, drawing = {}, waiting = {}, doc = null, elements = null, byId = {};
  var timer = null;
  var GIVE_UP_MS = 5000;
  function stepOf(model) {
    var m = /^s(\d+)_/.exec(model.name || "");
    return m ? parseInt(m[1], 10) : 0;
  }
  function first() {  // the step the page opens at: the address's #step=N, else 1
    var m = /step=(\d+)/.exec(window.location.hash || "");
    return Math.max(1, Math.min(__N__, m ? parseInt(m[1], 10) : 1));
  }
  try {
    var Doc = window.Bokeh.require("document").Document;
    var dom = window.Bokeh.require("embed/dom");
    var fromJson = Doc.from_json, resolve = dom._resolve_root_elements;
    if (typeof fromJson !== "function" || typeof resolve !== "function") {
      throw new Error("BokehJS without the expected functions");
    }
    Doc.from_json = function () {
      var d = fromJson.apply(this, arguments);
      if (doc === null) {  // the page's one document
        doc = d;
        var k0 = first();
        d.roots().slice().forEach(function (r) {
          var k = stepOf(r);
          if (k > 0 && k !== k0) { (held[k] = held[k] || []).push(r); }
        });
        Object.keys(held).forEach(function (k) {
          held[k].forEach(function (r) { d.remove_root(r); });
        });
      }
      return d;
    };
    dom._resolve_root_elements = function (item) {
      var els = resolve.apply(this, arguments);
      if (doc === null || item.root_ids == null) { return els; }
      item.root_ids.forEach(function (id, i) { byId[id] = els[i]; });
      // (BokehJS takes root i's element from place i of this array, also for roots added
      // later: it is kept, and grows with them)
      elements = doc.roots().map(function (r) { return byId[r.id]; });
      return elements;
    };
  } catch (e) {
    held = {};
  }

  function finished(r) {
    var v = window.Bokeh.index.find_one(r);
    return v != null && v.has_finished();
  }

  function watch(k, roots, since) {
    // one poll per step put back: each root marked idle once its view has finished, and
    // the step ready (its waiting calls made) once all have, or after GIVE_UP_MS (a figure
    // BokehJS failed to draw does not hold the step back for longer than that)
    var left = roots.filter(function (r) {
      if (!finished(r) && performance.now() - since < GIVE_UP_MS) { return true; }
      if (doc._idle_roots != null) { doc._idle_roots.add(r); }
      return false;
    });
    if (left.length) {
      setTimeout(function () { watch(k, left, since); }, 10);
      return;
    }
    delete drawing[k];
    var calls = waiting[k] || [];
    delete waiting[k];
    calls.forEach(function (then) { then(); });
  }

  function ensure(k) {  // step k's figures in the document (drawn by BokehJS now)
    var roots = held[k];
    if (roots == null || elements == null) { return; }
    delete held[k];
    drawing[k] = true;
    roots.forEach(function (r) {
      elements.push(byId[r.id]);
      doc.add_root(r);
    });
    watch(k, roots, performance.now());
  }

  function ready(k) {  // whether step k's figures are drawn (or were there from the start)
    return held[k] == null && drawing[k] == null;
  }

  function whenReady(k, then, since) {  // ``then()`` once step k's figures are drawn
    since = since || performance.now();
    ensure(k);
    if (ready(k)) { then(); return; }
    if (held[k] == null) { (waiting[k] = waiting[k] || []).push(then); return; }
    // BokehJS has not given the page's elements yet: put back once it has (or give up)
    if (performance.now() - since < GIVE_UP_MS) {
      setTimeout(function () { whenReady(k, then, since); }, 10);
    } else {
      then();
    }
  }

  function rest(k) {
    // the other steps, one at a time, from BACKGROUND_MS after the shown step is painted
    // (its frame is not slowed): k + 1 first, then k - 1, then in order
    var order = [k + 1, k - 1].concat(Object.keys(held).map(Number).sort(function (a, b) {
      return a - b; }));
    function next() {
      timer = null;
      if (doc == null || !doc.is_idle) { timer = setTimeout(next, 50); return; }
      while (order.length && held[order[0]] == null) { order.shift(); }
      if (!order.length) { return; }
      ensure(order.shift());
      timer = setTimeout(next, 50);
    }
    if (timer != null) { clearTimeout(timer); }
    requestAnimationFrame(function () { requestAnimationFrame(function () {
      timer = setTimeout(next, __BACKGROUND_MS__);
    }); });
  }

  return {first: first, ensure: ensure, rest: rest, ready: ready, whenReady: whenReady,
          held: function () { return Object.keys(held).map(Number); }};
})();
"""

_LECTURE_SCRIPT = r"""
var llrlabLecture = (function () {
  "use strict";
  var titles = __TITLES__, fixedTitle = __FIXED__, lessonTitle = __LESSON__;
  var lessonId = __LESSON_ID__;
  var models = {}, current = 0, target = 0, digits = "", keyOf = __KEY_JS__, endTimer = null;
  // served by ``llrlab serve`` with ?channel=TOKEN: the page follows the lecture (and, with
  // the lecturer's token, leads it); a file opened from disk has no channel
  var query = new URLSearchParams(window.location.search);
  var channel = window.location.protocol === "file:" ? null : query.get("channel");
  var token = query.get("token"), version = -1, control = false, applying = false;
  var pending = 0;

  function register(k, M) { models[k] = M; }

  function el(id) { return document.getElementById(id); }

  function show(k) {
    var n = titles.length;
    k = Math.max(1, Math.min(n, k | 0));
    target = k;
    if (k === current) { return; }
    if (!llrlabLazy.ready(k)) {
      // its figures are being drawn (llrlabLazy): the step is shown whole once they are,
      // never its text before its plots; a later key press or move wins
      var followed = applying;  // (a step the channel sent is not sent back to it)
      llrlabLazy.whenReady(k, function () {
        if (target !== k) { return; }
        var was = applying;
        applying = followed;
        try { showNow(k); } finally { applying = was; }
      });
      return;
    }
    showNow(k);
  }

  function showNow(k) {
    var n = titles.length;
    for (var j = 1; j <= n; j++) {
      var s = el("llrlab-step-" + j);
      if (s != null) { s.hidden = (j !== k); }
    }
    current = k;
    // every step opens at its own operating point, as in the served lesson
    if (models[k] != null) { llrlabReport.move("init", null, models[k]); }
    el("llrlab-count").textContent = "step " + k + " of " + n;
    el("llrlab-progress").style.width = (100 * k / n) + "%";
    el("llrlab-steps").value = String(k);
    el("llrlab-back").disabled = (k === 1);
    el("llrlab-next").disabled = (k === n);
    if (!fixedTitle) { document.title = titles[k - 1] + " \u00b7 " + lessonTitle; }
    if (history.replaceState) { history.replaceState(null, "", "#step=" + k); }
    window.dispatchEvent(new Event("resize"));  // Bokeh lays out the plots now shown
    lead();
  }

  // ---- the lecture channel (see llrlab.dashboard.lecture_routes)
  function endpoint(since) {
    var u = new URL("../lecture-position", window.location.href);
    u.searchParams.set("channel", channel);
    if (since !== undefined) { u.searchParams.set("since", String(since)); }
    if (token) { u.searchParams.set("token", token); }
    return u;
  }

  function badge(text, ok) {
    var e = el("llrlab-follow");
    e.hidden = false;
    e.textContent = text;
    e.className = ok ? "llrlab-follow-ok" : "llrlab-follow-lost";
  }

  function lead() {  // the lecturer's page tells the channel where it is
    if (!channel || !control || applying || current < 1) { return; }
    pending += 1;
    fetch(endpoint(), {method: "POST", cache: "no-store", credentials: "same-origin",
                       headers: {"Content-Type": "application/json"},
                       body: JSON.stringify({lesson: lessonId, step: current,
                                             blackout: blackOn()})})
      .then(function (r) { return r.ok ? r.json() : null; })
      .then(function (p) { if (p) { version = Math.max(version, p.version); } })
      .catch(function () { badge("Not connected to the lecture", false); })
      .then(function () { pending -= 1; });
  }

  function follow(p) {
    control = !!p.control;
    badge(control ? "Leading the lecture" : "Following the lecturer", true);
    if (control && p.follow) {
      var link = new URL("../lecture", window.location.href);
      link.searchParams.set("channel", p.follow);
      if (p.access || token) { link.searchParams.set("token", p.access || token); }
      var b = el("llrlab-class");
      b.hidden = false;
      b.onclick = function () { window.prompt("The class's link (their pages follow " +
                                              "this one):", link.toString()); };
    }
    if (pending > 0 || p.version <= version) { return; }  // our own move is on its way
    version = p.version;
    if (p.lesson && p.lesson !== lessonId) {
      if (/^[A-Za-z0-9_-]{1,64}$/.test(p.lesson)) {  // the lecturer opened another lesson
        var u = new URL("./" + p.lesson, window.location.href);
        u.search = window.location.search;
        window.location.assign(u.toString());
      }
      return;
    }
    applying = true;
    try {
      if (p.lesson === lessonId) { show(p.step); }
      black(!!p.blackout);
    } finally { applying = false; }
  }

  function poll() {
    fetch(endpoint(version), {cache: "no-store", credentials: "same-origin"})
      .then(function (r) {
        if (r.status === 404) { throw new Error("ended"); }
        if (!r.ok) { throw new Error("refused"); }
        return r.json();
      })
      .then(function (p) { follow(p); poll(); })
      .catch(function (e) {
        badge(e.message === "ended" ? "The lecture has ended" : "Reconnecting to the lecture",
              false);
        setTimeout(poll, e.message === "ended" ? 15000 : 2000);
      });
  }

  function flashEnd() {
    var e = el("llrlab-end");
    e.style.opacity = "1";
    if (endTimer != null) { clearTimeout(endTimer); }
    endTimer = setTimeout(function () { e.style.opacity = "0"; }, 2200);
  }

  function go(token) {
    var n = titles.length;
    var at = target || current;  // (a step still being drawn counts as reached)
    if (token === "f") { if (at === n) { flashEnd(); } else { show(at + 1); } }
    else if (token === "b") { show(at - 1); }
    else if (token === "h") { show(1); }
    else if (token === "e") { show(n); }
  }

  function black(on) {
    var was = blackOn();
    el("llrlab-blackout").style.display = on ? "block" : "none";
    if (was !== !!on) { lead(); }
  }
  function blackOn() { return el("llrlab-blackout").style.display === "block"; }

  function onkey(e) {
    var key = keyOf(e);
    if (key === "black" || (key === "escape" && blackOn())) {
      black(key === "escape" ? false : !blackOn());
      e.preventDefault();
      return;
    }
    if (key === "digit") { digits = (digits + e.key).slice(-3); e.preventDefault(); return; }
    var token = null;
    if (["f", "b", "h", "e"].indexOf(key) >= 0) { token = key; }
    else if (key === "enter" && digits) { token = "g"; }
    var number = parseInt(digits, 10);
    digits = "";
    if (token === null) { return; }
    e.preventDefault();
    black(false);
    if (token === "g") { show(number); } else { go(token); }
  }

  function start() {
    document.addEventListener("keydown", onkey);
    el("llrlab-blackout").onclick = function () { black(false); };
    el("llrlab-back").onclick = function () { go("b"); };
    el("llrlab-next").onclick = function () { go("f"); };
    el("llrlab-steps").onchange = function (e) { show(parseInt(e.target.value, 10)); };
    show(llrlabLazy.first());  // (the address's #step=N, else 1)
    llrlabLazy.rest(current);
    if (channel) { poll(); }
  }

  return {register: register, start: start, show: show, go: go,
          current: function () { return current; },
          models: function (k) { return models[k]; }};
})();
"""

_LECTURE_CSS = """
body { font-size: 18px; }
header.llrlab { display: flex; align-items: center; gap: 14px; flex-wrap: wrap;
                position: sticky; top: 0; z-index: 100; }
header.llrlab h1 { font-size: 22px; flex: 1 1 auto; }
header.llrlab button, header.llrlab select { font-size: 18px; padding: 4px 12px; }
#llrlab-count { font-size: 18px; font-variant-numeric: tabular-nums; }
.llrlab-bar { height: 6px; background: #dde3ea; }
#llrlab-progress { height: 6px; width: 0; background: #CC79A7; transition: width 0.2s; }
.llrlab-step { display: grid; grid-template-columns: minmax(300px, 1fr) minmax(0, 2.4fr);
               gap: 14px 18px; align-items: start; }
.llrlab-step[hidden] { display: none; }
.llrlab-text { background: #f7f3f6; border-radius: 6px; border-left: 5px solid #CC79A7;
               padding: 4px 14px; line-height: 1.45; }
.llrlab-panels { display: grid; grid-template-columns: repeat(auto-fit, minmax(420px, 1fr));
                 gap: 12px; }
.llrlab-panel { border: 3px solid transparent; border-radius: 6px; padding: 2px; }
.llrlab-panel.llrlab-lit { border-color: #CC79A7; }
.llrlab-panel table.llrlab-metrics { font-size: 18px; }
table.llrlab-metrics tr.llrlab-lit td { background: #f6e3ee; font-weight: 600; }
.llrlab-op { font-size: 16px; margin: 6px 0; font-variant-numeric: tabular-nums; }
.llrlab-keys { font-size: 14px; color: #555; }
#llrlab-blackout { position: fixed; inset: 0; background: #000; z-index: 9500; cursor: none;
                   display: none; }
#llrlab-end { position: fixed; left: 50%; top: 45%; transform: translate(-50%, -50%);
              z-index: 9000; background: rgba(20, 20, 20, 0.88); color: #fff;
              padding: 0.8em 1.4em; border-radius: 10px; font-size: clamp(22px, 2.6vw, 48px);
              font-weight: bold; pointer-events: none; transition: opacity 0.4s; opacity: 0; }
#llrlab-follow { font-size: 15px; padding: 2px 10px; border-radius: 12px; }
.llrlab-follow-ok { background: #e3f1ea; color: #00543a; }
.llrlab-follow-lost { background: #f9e5d8; color: #7a3000; }
@media (max-width: 1000px) { .llrlab-step { grid-template-columns: minmax(0, 1fr); } }
"""



#: Jinja2 template for ``bokeh.embed.file_html``; the step's text is the safe HTML of
#: :func:`render_html`, every other text is escaped here or before.
_TEMPLATE = PAGE_HEAD + """<header class="llrlab">
  <h1 id="llrlab-lesson">{{ lesson_title | e }}</h1>
  <button id="llrlab-back" type="button">&#9664; Back</button>
  <span id="llrlab-count" role="status">step 1 of {{ steps | length }}</span>
  <button id="llrlab-next" type="button">Next &#9654;</button>
  <span id="llrlab-follow" role="status" hidden></span>
  <button id="llrlab-class" type="button" hidden>Class link</button>
  <select id="llrlab-steps" aria-label="Go to step">
  {% for s in steps %}<option value="{{ s.number }}">{{ s.number }}. {{ s.title }}</option>
  {% endfor %}</select>
</header>
<div class="llrlab-bar"><div id="llrlab-progress"></div></div>
<main class="llrlab">
{% for s in steps %}
<section class="llrlab-step" id="llrlab-step-{{ s.number }}" data-step="{{ s.number }}"
         {% if not loop.first %}hidden{% endif %}>
  <div class="llrlab-text">{{ s.text }}</div>
  <div>
    <div class="llrlab-panels">
    {% for p in s.panels %}
      <div class="llrlab-panel{% if p.lit %} llrlab-lit{% endif %}" data-panel="{{ p.name }}">
      {% if p.root %}{{ embed(roots[p.root]) }}{% else %}{{ s.table }}{% endif %}
      </div>
    {% endfor %}
    </div>
    <div class="llrlab-op" id="{{ s.op_id }}"></div>
  </div>
</section>
{% endfor %}
<p class="llrlab-keys">Keys: Page Down, &rarr;, &darr; or Space: next step; Page Up, &larr;,
&uarr; or Shift+Space: back; Home / End: first / last step; a number, then Enter: that step;
B or . : black screen. Drag or click on the NBER, DET, histogram, Tippett or ECE plot to move
the operating point: the table and every marker follow, computed in this page with no server,
exact on a grid of prior log-odds 1/512 apart (and at each step's starting point). Made with
llrlab.</p>
</main>
<div id="llrlab-blackout"></div>
<div id="llrlab-end" role="status">&#9632; End of the lesson</div>
{% endblock %}
"""
