"""The lesson text's heights, measured in the page before a step is shown: :class:`TextProbe`.

The stage (:mod:`.stage_geometry`) sizes the panels around a lesson step's text on the
server, and the room the text needs can only be known from the browser, which draws it (fonts,
formulas, the widths of words).  An estimate (:mod:`.text_fit`) is a guess: when the browser
then finds that the text needs another height, the stage is laid out a second time, and the
class sees the step jump half a second after it appeared.

So the page measures every step's text ahead of time.  When a lesson is shown on a stage, the
server sends the page every step's HTML (as the step's box shows it) and the box widths the
layout weighs (:func:`.stage_geometry.text_widths`: the columns beside the panels and the
band above them).  The page draws each text, hidden, beside the live one (the same
stylesheets, the same inherited fonts) at each width, and sends back the heights (or that the
text does not fit across: a displayed formula wider than the box), the current step at once,
then the next ones and those before, in the browser's idle time.  The server keeps them per
session (:class:`TextHeights`), and a step's first layout uses what was measured: it is the
last.  A new window size or type size sends the widths again.

What the page sends back is checked like any input (:meth:`TextProbe.take`): a reply to a
probe this server did not send, a step outside the lesson or heights that are not numbers of
a sensible size are dropped.
"""

from __future__ import annotations

import itertools
import math
from collections import OrderedDict

__all__ = ["TEXT_PROBE_JS", "TextHeights", "TextProbe"]

#: At most this many steps' heights are kept per session (a long lesson at a few sizes).
MAX_STEPS = 400
#: At most this many widths per step (a window's candidates are about 35).
MAX_WIDTHS = 256
#: A measured height above this (px) is not a text's (a hostile or broken reply); the page
#: sends this height for a width at which the text does not fit across (a displayed formula
#: or a long word wider than the box), so that the layout does not choose it.
MAX_HEIGHT = 100_000


class TextHeights:
    """The heights (px) of lesson steps' text boxes' content, as the browser drew them:
    ``{(lesson, step, text px): {pane width: height}}``, the newest :data:`MAX_STEPS`
    steps kept."""

    def __init__(self):
        self._steps = OrderedDict()

    def get(self, key):
        """``{pane width: height}`` measured for ``key`` (empty: none)."""
        return self._steps.get(key, {})

    def record(self, key, width, height):
        """The browser drew ``key``'s text ``width`` px wide and it needed ``height`` px;
        True when that is new or differs (by more than 2 px) from what was known."""
        seen = self._steps.get(key)
        if seen is None:
            seen = self._steps[key] = {}
            while len(self._steps) > MAX_STEPS:
                self._steps.popitem(last=False)
        else:
            self._steps.move_to_end(key)
        width, height = int(width), int(height)
        if width in seen and abs(seen[width] - height) <= 2:
            return False
        if width not in seen and len(seen) >= MAX_WIDTHS:
            seen.pop(next(iter(seen)))
        seen[width] = height
        return True

    def __len__(self):
        return len(self._steps)


class TextProbe:
    """The probes a session sent its page (:meth:`ask`) and what came back (:meth:`take`).

    Parameters
    ----------
    heights : TextHeights
        Where the measured heights go.
    """

    #: Replies to this many of the newest probes are taken (a page may still be measuring
    #: an older one when a new one goes out).
    KEEP = 4

    def __init__(self, heights):
        self.heights = heights
        self._sent = OrderedDict()  # token -> (lesson, text px, widths, number of steps)
        self._last = None
        self._tokens = itertools.count(1)

    def ask(self, lesson_id, text_px, widths, steps, current, css=()):
        """The probe for the page (a dict), or None when the page was already asked the
        same.  ``steps`` is ``[html of step 1, ...]``; ``widths`` are the HTML pane's widths
        (px); ``current`` is the step shown: it is measured first, then the following ones,
        then those before it.  ``css``: the text's own stylesheets at this type size (the
        live pane may still have the previous size's when the probe arrives)."""
        widths = sorted({int(w) for w in widths if w > 0})
        css = [str(c) for c in css]
        spec = (lesson_id, text_px, tuple(widths), len(steps), hash(tuple(steps)),
                tuple(css))
        if spec == self._last or not widths or not steps:
            return None
        self._last = spec
        token = next(self._tokens)
        self._sent[token] = (lesson_id, text_px, widths, len(steps))
        while len(self._sent) > self.KEEP:
            self._sent.popitem(last=False)
        n = len(steps)
        current = min(max(int(current), 1), n)
        order = [*range(current, n + 1), *range(current - 1, 0, -1)]
        return {"token": token, "widths": widths, "css": css, "too_wide": MAX_HEIGHT,
                "steps": [[k, steps[k - 1]] for k in order]}

    def forget(self):
        """The page was reloaded or the lesson closed: the next :meth:`ask` goes out."""
        self._last = None

    def take(self, reply):
        """Record a page's reply ``[token, [[step, [height at each width]], ...]]`` (every
        step the page measured for that probe so far: a busy server gets several replies as
        one, the last); returns the keys ``(lesson, step, text px)`` whose heights changed."""
        try:
            token, measured = reply
            sent = self._sent.get(int(token))
        except (TypeError, ValueError):
            return set()
        if sent is None or not isinstance(measured, list):
            return set()
        lesson_id, text_px, widths, n = sent
        changed = set()
        for item in measured[:n]:
            clean = _heights(item, n, len(widths))
            if clean is None:
                continue
            key = (lesson_id, clean[0], text_px)
            for w, h in zip(widths, clean[1], strict=True):
                if self.heights.record(key, w, h):
                    changed.add(key)
        return changed


def _heights(item, n, n_widths):
    """``(step, [heights])`` of one step of a reply, or None when it is not that."""
    try:
        step, hs = item
        step = int(step)
    except (TypeError, ValueError):
        return None
    if not 1 <= step <= n or not isinstance(hs, list) or len(hs) != n_widths:
        return None
    clean = []
    for h in hs:
        if isinstance(h, bool) or not isinstance(h, (int, float)) or not math.isfinite(h) \
                or not 0 < h <= MAX_HEIGHT:
            return None
        clean.append(math.ceil(h))
    return step, clean


#: The page's part (a function of the probe, run by :class:`~.page_control.PageControl`
#: when the server sends one): each step's HTML is drawn in hidden copies of the live text
#: pane, one per width, placed beside it (so that they inherit the same fonts and
#: stylesheets) and measured in one layout, the current step first, the others in the
#: browser's idle time; ``report(token, measured)`` sends every step measured so far
#: (``[[step, heights], ...]``: a busy server takes several messages as one, the last); a
#: newer probe stops an older one.
TEXT_PROBE_JS = """(probe, report, state) => {
  state.probe_run = (state.probe_run || 0) + 1;
  const run = state.probe_run;
  if (probe == null || !Array.isArray(probe.steps) || !Array.isArray(probe.widths)) { return; }
  const live = () => {
    try {
      const col = Bokeh.documents[0].get_model_by_name('lesson_panel');
      const cv = col == null ? null : Bokeh.index.find_one(col);
      const v = cv == null || !cv.child_views ? null : cv.child_views[0];
      return v != null && v.el.shadowRoot != null && v.el.parentNode != null ? v : null;
    } catch (err) { return null; }
  };
  const later = (f) => (typeof requestIdleCallback === 'function'
                        ? requestIdleCallback(f, {timeout: 150}) : setTimeout(f, 0));
  let tries = 0;
  const start = () => {
    if (run !== state.probe_run) { return; }
    const v = live();
    if (v == null) {  // the text pane is not drawn yet
      if (++tries < 100) { setTimeout(start, 100); }
      return;
    }
    // one hidden copy of the pane per width, each beside the live one (a copy inside a box
    // of its own measured the text less its last margin): a step's text is set in each,
    // and one layout gives every height
    const styles = [];
    let model = null;
    for (const node of v.el.shadowRoot.children) {
      if (node.tagName === 'STYLE') {
        styles.push(node.textContent);
      } else if (node.tagName === 'LINK') {
        // a copied link would load again (later); its rules are here already
        try { styles.push([...node.sheet.cssRules].map((r) => r.cssText).join('\\n')); }
        catch (err) { /* not readable: left out */ }
      } else {
        model = node;
      }
    }
    if (model == null) { return; }
    for (const text of probe.css || []) { styles.push(String(text)); }  // last: this size
    const copies = probe.widths.map((w) => {
      const host = document.createElement('div');
      host.className = v.el.className;
      host.setAttribute('aria-hidden', 'true');
      host.style.cssText = 'position:absolute;left:0;top:0;height:auto;margin:0;padding:0;' +
        'visibility:hidden;pointer-events:none;z-index:-1;max-width:none;min-width:0;' +
        'width:' + w + 'px';
      const shadow = host.attachShadow({mode: 'open'});
      for (const text of styles) {
        const css = document.createElement('style');
        css.textContent = text;
        shadow.appendChild(css);
      }
      const inner = model.cloneNode(false);
      shadow.appendChild(inner);
      v.el.parentNode.appendChild(host);
      return [host, inner];
    });
    // the text's height as the live pane has it: to the last block's bottom margin (the
    // copy's own box let that margin collapse out of it on some pages, 9 px short)
    const height = (host, inner) => {
      const last = inner.lastElementChild;
      let h = host.scrollHeight;
      if (last != null) {
        const bottom = last.getBoundingClientRect().bottom
          + (parseFloat(getComputedStyle(last).marginBottom) || 0);
        h = Math.max(h, bottom - host.getBoundingClientRect().top);
      }
      return Math.ceil(h);
    };
    const remove = () => { for (const [host] of copies) { host.remove(); } };
    const queue = probe.steps.slice(), done = [];
    const next = (deadline) => {
      if (run !== state.probe_run || queue.length === 0) { remove(); return; }
      // as many steps as the browser's idle time allows (at least one), then one message
      do {
        const [step, html] = queue.shift();
        for (const [, inner] of copies) { inner.innerHTML = html; }
        // a text wider than the box (a displayed formula, a long word) does not fit at all
        done.push([step, copies.map(([host, inner], i) => (host.scrollWidth > probe.widths[i] + 1
          ? probe.too_wide : height(host, inner)))]);
      } while (queue.length > 0 && deadline != null && deadline.timeRemaining() > 5);
      report(probe.token, done.slice());
      if (queue.length > 0) { later(next); } else { remove(); }
    };
    next(null);
  };
  start();
}"""
