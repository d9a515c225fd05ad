"""Lessons as a lecture hall sees them (issue 19): every step of every built-in lesson, and
every 1-3 panel combination of a lesson of one's own, at 1280 x 720 (a projector) and
1920 x 1080, in chromium.

At each step, measured in the page (:data:`MEASURE`):

* type: every text the stage shows is at least 18 px -- the computed font size of every HTML
  element with text (the lesson's text, formulas, the metrics table, captions, alerts, the
  bar), and the sizes of the texts Bokeh draws on its canvas (titles, axis and tick labels,
  legends, labels), read from the models;
* lines: every drawn line glyph, span and whisker at least 2.5 px wide;
* colour: every drawn curve, marker outline or fill, bar outline and span at least 3:1 on the
  plot's background (WCAG 2.1 relative luminance, alpha blended), and two legend entries of a
  plot never differ by hue alone (a different dash pattern, marker or hatch, or 3:1 between
  their colours: WCAG technique G183);
* layout: every plotting area at least 180 x 120 px, every panel and the text inside the
  window, no two of them overlapping, every text
  element inside its panel, every title and axis label within its figure, every legend
  inside its canvas, and nothing scrolls: ``scrollHeight <= clientHeight`` (and the same for
  widths) for every element of the main area that clips or scrolls, the main area itself and
  the page.

Screenshots of every step go to ``test-artifacts/`` (``40_*``, ``41_*``).
"""

from __future__ import annotations

import itertools
import json

import pytest

from llrlab.dashboard.app import create_app
from llrlab.dashboard.lessons import builtin_lessons, parse_lesson
from llrlab.dashboard.state.presenter import MAX_PANELS, PANELS

from .conftest import ARTIFACTS, screenshot, settle, wait_until

pytestmark = pytest.mark.browser

SIZES = {"1280x720": (1280, 720), "1920x1080": (1920, 1080)}
MIN_PX, MIN_LINE, MIN_CONTRAST = 18.0, 2.5, 3.0

#: Everything measured at one step (see the module docstring); returns the problems found.
MEASURE = r"""
([MIN_PX, MIN_LINE, MIN_CONTRAST]) => {
  const doc = Bokeh.documents[0];
  const problems = [];
  const W = window.innerWidth, H = window.innerHeight;
  const ctx = document.createElement('canvas').getContext('2d');
  const hex = (c) => { ctx.fillStyle = '#000000'; ctx.fillStyle = c; return ctx.fillStyle; };
  const lum = (h) => { const v = [1, 3, 5].map(i => parseInt(h.slice(i, i + 2), 16) / 255)
    .map(c => c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4));
    return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2]; };
  const blend = (c, a, bg) => { const f = hex(c), b = hex(bg); if (!f.startsWith('#')) return f;
    const out = [1, 3, 5].map(i => Math.round(a * parseInt(f.slice(i, i + 2), 16)
      + (1 - a) * parseInt(b.slice(i, i + 2), 16)));
    return '#' + out.map(x => x.toString(16).padStart(2, '0')).join(''); };
  const contrast = (a, b) => { const x = lum(hex(a)), y = lum(hex(b));
    return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05); };
  const px = (s) => { if (s == null) return null; const v = typeof s === 'object' ? s.value : s;
    const m = /^([0-9.]+)(px|pt|em)$/.exec(String(v)); if (!m) return null;
    return parseFloat(m[1]) * (m[2] === 'pt' ? 4 / 3 : m[2] === 'em' ? 16 : 1); };
  const num = (v) => typeof v === 'number' ? v
    : (v && typeof v.value === 'number' ? v.value : null);
  const box = (el) => { const r = el.getBoundingClientRect();
    return {x: r.left, y: r.top, r: r.right, b: r.bottom, w: r.width, h: r.height}; };
  const inside = (a, b, tol = 1.5) => a.x >= b.x - tol && a.y >= b.y - tol
    && a.r <= b.r + tol && a.b <= b.b + tol;
  const overlap = (a, b) => Math.min(a.r, b.r) - Math.max(a.x, b.x) > 1
    && Math.min(a.b, b.b) - Math.max(a.y, b.y) > 1;
  const viewport = {x: 0, y: 0, r: W, b: H};
  const view = (name) => { const m = doc.get_model_by_name(name);
    return m == null ? null : Bokeh.index.find_one(m); };
  const shown = (v) => v != null && v.el.getClientRects().length > 0
    && v.el.offsetParent !== null;

  // the stage's parts: the bar, the panels, the lesson's text
  const parts = {};
  for (const name of ['stage_nav', 'lesson_panel', 'panel_nber', 'panel_det',
                      'panel_histogram', 'panel_calibration', 'panel_metrics',
                      'panel_tippett', 'panel_reliability', 'panel_ece']) {
    const v = view(name);
    if (shown(v)) parts[name] = v;
  }
  const boxes = {};
  for (const [name, v] of Object.entries(parts)) {
    boxes[name] = box(v.el);
    if (!inside(boxes[name], viewport))
      problems.push(`${name} outside the window: ${JSON.stringify(boxes[name])}`);
  }
  const names = Object.keys(boxes);
  for (let i = 0; i < names.length; i++) for (let j = i + 1; j < names.length; j++)
    if (overlap(boxes[names[i]], boxes[names[j]]))
      problems.push(`${names[i]} overlaps ${names[j]}`);

  // HTML text: size and place (through the shadow roots)
  const texts = [];
  // (a toolbar's icons and Bokeh's own frame layers are not text or content)
  const skip = (el) => el.classList.contains('bk-Toolbar')
    || el.classList.contains('bk-CartesianFrame') || el.classList.contains('bk-Canvas');
  const walk = (root, part) => {
    for (const el of root.querySelectorAll('*')) {
      if (skip(el) || (el.getRootNode().host && skip(el.getRootNode().host))) continue;
      if (el.shadowRoot) walk(el.shadowRoot, part);
      if (['STYLE', 'SCRIPT', 'CANVAS', 'svg', 'OPTION'].includes(el.tagName)) continue;
      const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
      if (!own || el.getClientRects().length === 0) continue;
      const cs = getComputedStyle(el);
      if (cs.visibility === 'hidden' || cs.display === 'none') continue;
      texts.push([el, part]);
    }
  };
  for (const [name, v] of Object.entries(parts)) {
    walk(v.el, name);
    if (v.el.shadowRoot) walk(v.el.shadowRoot, name);
  }
  let n_text = 0;
  for (const [el, part] of texts) {
    n_text++;
    const size = parseFloat(getComputedStyle(el).fontSize);
    const what = `${part} <${el.tagName.toLowerCase()}> "${el.textContent.trim().slice(0, 40)}"`;
    if (size < MIN_PX - 0.05) problems.push(`${what}: ${size.toFixed(1)} px`);
    const b = box(el);
    if (b.w > 0 && !inside(b, boxes[part], 2)) problems.push(`${what} outside ${part}`);
  }

  // nothing scrolls, nothing is clipped by its own box
  const scrolls = (root) => {
    for (const el of root.querySelectorAll('*')) {
      if (skip(el) || (el.getRootNode().host && skip(el.getRootNode().host))) continue;
      if (el.shadowRoot) scrolls(el.shadowRoot);
      if (el.getClientRects().length === 0) continue;
      const cs = getComputedStyle(el);
      const clipsY = ['auto', 'scroll', 'hidden'].includes(cs.overflowY);
      const clipsX = ['auto', 'scroll', 'hidden'].includes(cs.overflowX);
      if (el.tagName === 'CANVAS' || el.classList.contains('bk-Canvas')) continue;
      const tag = `<${el.tagName.toLowerCase()} class="${el.className}">`;
      if (clipsY && el.scrollHeight > el.clientHeight + 1)
        problems.push(`scrolls: ${tag} ${el.scrollHeight} > ${el.clientHeight}`);
      if (clipsX && el.scrollWidth > el.clientWidth + 1)
        problems.push(`scrolls sideways: ${tag} ${el.scrollWidth} > ${el.clientWidth}`);
    }
  };
  const main = document.getElementById('main');
  for (const v of Object.values(parts)) {
    scrolls(v.el);
    if (v.el.shadowRoot) scrolls(v.el.shadowRoot);
  }
  if (main.scrollHeight > main.clientHeight + 1)
    problems.push(`the main area scrolls: ${main.scrollHeight} > ${main.clientHeight}`);
  const se = document.scrollingElement;
  if (se.scrollHeight > se.clientHeight + 1 || se.scrollWidth > se.clientWidth + 1)
    problems.push('the page scrolls');

  // the figures: canvas text sizes, lines, colours, legends
  let n_fig = 0;
  for (const fig of ['nber', 'det', 'histogram', 'calibration', 'tippett', 'reliability', 'ece']) {
    const m = doc.get_model_by_name(fig);
    const v = m == null ? null : Bokeh.index.find_one(m);
    if (!shown(v) || !m.visible) continue;
    n_fig++;
    const bg = m.background_fill_color || '#ffffff';
    const fb = box(v.el);
    const sizes = [['title', m.title.text_font_size]];
    const title_font = `bold ${m.title.text_font_size} ${m.title.text_font}`;
    ctx.font = title_font;
    for (const line of String(m.title.text).split('\n'))
      if (ctx.measureText(line).width > fb.w - 110)
        problems.push(`${fig}: the title "${line}" is wider than its figure`);
    for (const ax of [...m.left, ...m.below, ...m.right, ...m.above]) {
      if (ax.axis_label_text_font_size === undefined) continue;
      if (ax.axis_label) {
        sizes.push(['axis label', ax.axis_label_text_font_size]);
        ctx.font = `${ax.axis_label_text_font_size} ${ax.axis_label_text_font}`;
        const side = m.left.includes(ax) || m.right.includes(ax) ? fb.h : fb.w;
        for (const line of String(ax.axis_label).split('\n'))
          if (ctx.measureText(line).width > side - 40)
            problems.push(`${fig}: the axis label "${line}" is longer than its side`);
      }
      sizes.push(['tick labels', ax.major_label_text_font_size]);
    }
    for (const leg of [...m.below, ...m.right, ...m.center])
      if (leg.items !== undefined && leg.visible && leg.items.some(i => i.visible))
        sizes.push(['legend', leg.label_text_font_size]);
    for (const lab of m.center)
      if (lab.text_font_size !== undefined && lab.visible && lab.text)
        sizes.push(['label "' + lab.text.slice(0, 20) + '"', lab.text_font_size]);
    if (v.frame && (v.frame.bbox.width < 180 || v.frame.bbox.height < 120))
      problems.push(`${fig}: its plotting area is ${Math.round(v.frame.bbox.width)} x `
                    + `${Math.round(v.frame.bbox.height)} px`);
    for (const [what, s] of sizes) {
      const p = px(s);
      if (p == null || p < MIN_PX - 0.05) problems.push(`${fig} ${what}: ${JSON.stringify(s)}`);
    }
    const drawn = (r) => { if (!r.visible) return false; const d = r.data_source.data;
      const col = Object.values(d)[0]; if (col == null) return true;
      return Array.from(col).some(x => x === x && x != null); };
    const colors = (g, prop, src) => { const v = g[prop]; if (v == null) return [];
      if (typeof v === 'string') return [v];
      if (v.value != null) return [v.value];
      if (v.field != null) return Array.from(src.data[v.field] || []);
      return []; };
    const alpha = (g, prop, src) => { const v = g[prop]; if (typeof v === 'number') return [v];
      if (v && typeof v.value === 'number') return [v.value];
      if (v && v.field != null) return Array.from(src.data[v.field] || []).map(Number);
      return [1]; };
    for (const r of m.renderers) {
      if (r.glyph === undefined || !drawn(r)) continue;
      const g = r.glyph, kind = g.constructor.__name__, src = r.data_source;
      const lw = num(g.line_width);
      const la = Math.min(...alpha(g, 'line_alpha', src));
      if (['Line', 'Step', 'MultiLine'].includes(kind)) {
        if (lw != null && lw < MIN_LINE - 1e-9) problems.push(`${fig}: a ${kind} ${lw} px wide`);
        for (const c of colors(g, 'line_color', src)) {
          const k = contrast(blend(c, la, bg), bg);
          if (k < MIN_CONTRAST)
            problems.push(`${fig}: ${kind} colour ${c} (alpha ${la}) at ${k.toFixed(2)}:1`);
        }
      } else if (kind === 'Scatter' || kind === 'Quad') {
        const fa = Math.min(...alpha(g, 'fill_alpha', src));
        const lines = lw > 0
          ? colors(g, 'line_color', src).map(c => contrast(blend(c, la, bg), bg)) : [];
        const fills = colors(g, 'fill_color', src).map(c => contrast(blend(c, fa, bg), bg));
        const best = Math.max(0, ...lines, ...(fa >= 0.5 ? fills : []));
        if (best < MIN_CONTRAST) problems.push(`${fig}: ${kind} stands out ${best.toFixed(2)}:1`);
      }
    }
    for (const a of m.center) {
      const kind = a.constructor.__name__;
      if (!['Span', 'Whisker'].includes(kind) || !a.visible) continue;
      if (kind === 'Span' && (a.location == null || a.location !== a.location)) continue;
      const w = num(a.line_width);
      if (w != null && w < MIN_LINE - 1e-9) problems.push(`${fig}: a ${kind} ${w} px wide`);
      const c = typeof a.line_color === 'string' ? a.line_color
        : (a.line_color && a.line_color.value);
      if (c && contrast(c, bg) < MIN_CONTRAST) problems.push(`${fig}: ${kind} colour ${c}`);
    }
    // legend entries told apart without hue
    for (const leg of [...m.below, ...m.right, ...m.center]) {
      if (leg.items === undefined || !leg.visible) continue;
      const entries = [];
      for (const item of leg.items) {
        if (!item.visible) continue;
        const rs = item.renderers.filter(r => r.visible);
        if (!rs.length) continue;
        const sig = rs.map(r => { const g = r.glyph, src = r.data_source;
          const pick = (v) => v && v.field != null ? (src.data[v.field] || [])[item.index ?? 0]
            : (v && v.value != null ? v.value : v);
          return [g.constructor.__name__, JSON.stringify(g.line_dash ?? null), pick(g.marker) ?? '',
                  g.hatch_pattern ? JSON.stringify(g.hatch_pattern) : ''].join('|'); }).join(';');
        const g = rs[0].glyph, src = rs[0].data_source;
        const pickc = (v) => v && v.field != null ? (src.data[v.field] || [])[item.index ?? 0]
          : (v && v.value != null ? v.value : v);
        const c = g.constructor.__name__ === 'Scatter' ? pickc(g.fill_color)
          : pickc(g.line_color);
        const label = typeof item.label === 'string' ? item.label
          : (item.label && item.label.value);
        entries.push([label, sig, typeof c === 'string' ? c : '#000000']);
      }
      for (let i = 0; i < entries.length; i++) for (let j = i + 1; j < entries.length; j++) {
        const [la, sa, ca] = entries[i], [lb, sb, cb] = entries[j];
        if (sa === sb && contrast(ca, cb) < 3)
          problems.push(`${fig}: "${la}" and "${lb}" differ by hue alone`);
      }
      const lv = Bokeh.index.find_one(leg);
      if (lv && lv.bbox && v.bbox) {
        const b = lv.bbox;
        if (b.x < -1 || b.y < -1 || b.x + b.width > v.bbox.width + 1
            || b.y + b.height > v.bbox.height + 1)
          problems.push(`${fig}: its legend is outside its canvas`);
      }
    }
  }
  return {problems, n_text, n_fig, parts: Object.keys(parts)};
}
"""


@pytest.fixture
def page(page):
    page.set_default_timeout(60_000)
    return page


def _served_lesson(serve, lessons=None):
    def factory():
        return create_app(lessons=lessons)

    return serve(factory)


def _wait_step(page, session, lesson, k):
    """The measures of step ``k`` once the server has shown it and the page has drawn what
    it sent (the websocket quiet): one measurement, not the first clean one of several (a
    layout that changes after the step appeared is a defect the class sees)."""
    st = session.state
    wait_until(page, lambda: st.lesson.step == k and not st.status.busy
               and st.results is not None, timeout=60, what=f"step {k} on the server")
    panels = {f"panel_{p}" for p in lesson.step(k).show}
    wait_until(page, lambda: set(page.evaluate(MEASURE, [MIN_PX, MIN_LINE, MIN_CONTRAST])[
        "parts"]) >= panels | {"stage_nav", "lesson_panel"}, timeout=60,
        what=f"the panels of step {k}")
    settle(page)
    return page.evaluate(MEASURE, [MIN_PX, MIN_LINE, MIN_CONTRAST])


#: Installed in the page: every change of a model's width or height that the server sends,
#: with the number of the server's message (document patch) it came in.
_RECORD_SIZES = """() => {
  const doc = Bokeh.documents[0];
  const rec = window.llrlabSizes = {message: 0, changes: []};
  const apply = doc.apply_json_patch;
  doc.apply_json_patch = function (...args) { rec.message += 1; return apply.apply(this, args); };
  doc.on_change((ev) => {
    if (ev.kind === 'ModelChanged' && (ev.attr === 'width' || ev.attr === 'height')) {
      rec.changes.push([rec.message, ev.model.name || ev.model.type, ev.attr, ev.value]);
    }
  }, true);
}"""


def _layouts(page, since):
    """The server's messages, from message ``since`` on, that changed a size: ``{message:
    [(model, attr, value), ...]}``, and the number of the latest message."""
    rec = page.evaluate("() => window.llrlabSizes")
    out = {}
    for msg, name, attr, value in rec["changes"]:
        if msg >= since:
            out.setdefault(msg, []).append((name, attr, value))
    return out, rec["message"]


#: The computed font sizes (px) of the lesson's text, the stage bar's Next button and the
#: metrics table's title, where they are shown.
_TYPE_SIZES = """() => {
  const out = {};
  const find = (root, test) => { for (const el of root.querySelectorAll('*')) {
      if (test(el)) return el;
      if (el.shadowRoot) { const f = find(el.shadowRoot, test); if (f) return f; } }
    return null; };
  const px = (el) => el == null ? null : parseFloat(getComputedStyle(el).fontSize);
  const col = Bokeh.documents[0].get_model_by_name('lesson_panel');
  const cv = col == null ? null : Bokeh.index.find_one(col);
  const v = cv == null ? null : cv.child_views[0];
  out.text = v == null ? null : px(v.el.shadowRoot.querySelector('p:not(:first-child)')
                                   || v.el.shadowRoot.querySelector('p'));
  out.heading = v == null ? null : px(v.el.shadowRoot.querySelector('h3'));
  out.next = px(find(document, (el) => el.tagName === 'BUTTON'
                     && ['Next ▶', 'End ■'].includes(el.textContent.trim())));
  const title = find(document, (el) => el.tagName === 'H3'
                     && el.textContent.trim() === 'Metrics at the operating point');
  out.title = title != null && title.offsetParent != null ? px(title) : null;
  return out;
}"""


def _type_problems(page, session, shows_metrics):
    """Where the page's type is not the session's (a fresh page, a link and a step alike)."""
    d = session.state.display
    want = {"text": d.px("text"), "heading": d.px("heading"), "next": d.px("bar")}
    if shows_metrics:
        want["title"] = d.px("title")
    got = page.evaluate(_TYPE_SIZES)
    return [f"{k} at {got[k]} px, not {v:g} px" for k, v in want.items()
            if got[k] is None or abs(got[k] - v) > 0.5]


def _walk(page, serve, lesson, size, prefix, lessons=None, shots=True):
    url, sessions = _served_lesson(serve, lessons)
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.goto(f"{url}?lesson={lesson.id}&step=1", timeout=120_000)
    wait_until(page, lambda: sessions and sessions[0].state.results is not None,
               timeout=120, what="the page")
    session = sessions[0]
    failures = {}
    _wait_step(page, session, lesson, 1)
    page.evaluate(_RECORD_SIZES)
    for k in range(1, len(lesson) + 1):
        since = _layouts(page, 0)[1] + 1
        if k > 1:
            page.keyboard.press("PageDown")
        m = _wait_step(page, session, lesson, k)
        assert m["n_fig"] + ("metrics" in lesson.step(k).show) >= 1
        assert m["n_text"] >= 4
        problems = list(m["problems"]) + _type_problems(page, session,
                                                         "metrics" in lesson.step(k).show)
        # laid out once: the step's sizes come in one message from the server (the page
        # measured the text before the step was shown), none changes after it
        changes, _ = _layouts(page, since)
        if len(changes) > 1:
            problems.append(f"laid out in {len(changes)} messages: {changes}")
        if shots or problems:  # (a screenshot takes a while: ninety-two steps)
            screenshot(page, f"{prefix}_{k:02d}")
        if problems:
            failures[k] = problems[:12]
    if failures:  # the whole list, to read
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / f"{prefix}_problems.json").write_text(json.dumps(failures, indent=1))
    assert page.console_errors == [] and page.external_requests == []
    return failures


@pytest.mark.timeout(900)
@pytest.mark.parametrize("size", list(SIZES))
@pytest.mark.parametrize("lesson_id", sorted(builtin_lessons()))
def test_every_builtin_step_is_legible_and_unclipped(page, serve, size, lesson_id):
    lesson = builtin_lessons()[lesson_id]
    failures = _walk(page, serve, lesson, SIZES[size], f"40_{lesson_id}_{size}")
    assert failures == {}, failures


def combination_lesson():
    """A lesson of one's own with one step per combination of 1 to 3 panels."""
    combos = [c for n in range(1, MAX_PANELS + 1) for c in itertools.combinations(PANELS, n)]
    steps = "\n".join(
        f"## {' and '.join(c)}\nshow: {', '.join(c)}\npoint.plo: -2.2\n\n"
        f"The panels {', '.join(c)} side by side, with two sentences of text beside them. "
        f"The type is large enough for the back row.\n" for c in combos)
    text = (f"---\ntitle: Every panel combination\nteaching.enabled: true\n"
            f"teaching.references: false\n---\n\n{steps}")
    return parse_lesson(text, "combinations.md")


@pytest.mark.timeout(1500)
@pytest.mark.parametrize("size", list(SIZES))
def test_every_panel_combination_of_ones_own_lesson(page, serve, size):
    lesson = combination_lesson()
    failures = _walk(page, serve, lesson, SIZES[size], f"41_combinations_{size}",
                     lessons={**builtin_lessons(), lesson.id: lesson}, shots=False)
    # (three panels with the metrics table: the table shares the text's column and leaves
    # out rows it has no room for, saying how many; every combination fits)
    assert failures == {}, failures
