"""The page's small script: :class:`PageControl`.

It reports the size of the main area and where the stage starts in it (debounced), folds the
sidebar, and on a stage (presenter mode, an open lesson) turns the keys a lecturer uses into
steps -- not while a text field, a list or a slider has the focus:

====================================================  =====================================
Page Down, →, ↓, Space                                 next step (or saved view)
Page Up, ←, ↑, Shift+Space                             previous step
Home / End                                             first / last step
a number, then Enter                                   that step
B or . (full stop)                                     black screen; again (or Esc) to return
====================================================  =====================================

(the keys of presentation clickers and of PowerPoint, Keynote and reveal.js).  It measures a
lesson's texts ahead of time for the stage's layout (:mod:`.text_probe`).  A click on the
label of any checkbox or switch of the page toggles it.  On a stage the
page's header is hidden, so that the stage has the whole window.  A step forward
from the last step shows "End of the lesson" for a moment instead of doing nothing.  The
black screen is drawn here at once; the server learns of it (``blackout``) and may set it too
(the speaker view's button).  No server-side code knows the browser's window otherwise.
When first drawn it also installs :mod:`.bokehjs_fixes` (what BokehJS costs per update).
"""

from __future__ import annotations

import param
from panel.reactive import ReactiveHTML

from .bokehjs_fixes import BOKEHJS_FIXES_JS
from .text_probe import TEXT_PROBE_JS

__all__ = ["KEY_JS", "KEY_TOKENS", "PageControl"]

#: The lecturer's keys (the table above), a JavaScript function of a ``keydown`` event:
#: ``'f'`` next, ``'b'`` previous, ``'h'`` first, ``'e'`` last, ``'digit'`` (a step number
#: being typed: ``e.key``), ``'enter'``, ``'black'`` (the black screen), ``'escape'``, or
#: null (not a lecturer's key, a modifier held, or a text field, list or slider has the
#: focus).  The served page (:class:`PageControl`) and the lecture file
#: (:mod:`llrlab.dashboard.lecture`) both step with it.
KEY_JS = """(e) => {
  if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey) { return null; }
  const t = e.composedPath()[0];
  const role = t && t.getAttribute ? t.getAttribute('role') : null;
  if (t && t.tagName && (['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName)
      || t.isContentEditable || role === 'slider' || role === 'listbox')) { return null; }
  const k = e.key;
  if (k === 'b' || k === 'B' || k === '.') { return 'black'; }
  if (k === 'Escape') { return 'escape'; }
  if (['ArrowRight', 'ArrowDown', 'PageDown'].includes(k) || (k === ' ' && !e.shiftKey)) {
    return 'f';
  }
  if (['ArrowLeft', 'ArrowUp', 'PageUp'].includes(k) || (k === ' ' && e.shiftKey)) {
    return 'b';
  }
  if (k === 'Home') { return 'h'; }
  if (k === 'End') { return 'e'; }
  if (/^[0-9]$/.test(k)) { return 'digit'; }
  if (k === 'Enter') { return 'enter'; }
  return null;
}"""

#: What a key press sends: 'f' forward, 'b' back, 'h' first step, 'e' last step, 'g<n>' step
#: n (space-separated tokens, the newest last).
KEY_TOKENS = ("f", "b", "h", "e", "g")


class PageControl(ReactiveHTML):
    """The page's script: main-area size, keys, black screen, sidebar (module docstring)."""

    presses = param.Integer(default=0, doc="Key presses that move so far.")
    done = param.Integer(default=0, doc="""
        Key presses whose step the server has shown (set by the stage): while it is behind
        ``presses`` for more than 150 ms, the page says that the step is coming.""")
    keys = param.String(default="", doc="""
        The moves of the last presses, oldest first, space-separated (see KEY_TOKENS).  One
        counter and the sequence, so that presses that reach the server in one message (a
        busy server takes them together) keep their order.""")
    collapsed = param.Boolean(default=False, doc="Fold the sidebar.")
    main_width = param.Integer(default=0, doc="Width of the main area (0: not known yet).")
    main_height = param.Integer(default=0, doc="Height of the main area.")
    text_need = param.List(default=[0, 0, ""], doc="""
        The lesson text's box as drawn: [its width, the height its content needs, the
        text's key] (the server's estimate of that height is corrected with it).""")
    text_probe = param.Dict(default={}, doc="""
        Every step's text and the widths to measure it at (see :mod:`.text_probe`), sent by
        the server when a lesson is shown on a stage.""")
    text_sizes = param.List(default=[], doc="""
        The page's reply: [probe token, [[step, [height at each width]], ...]], every step
        measured so far.""")
    stage_top = param.Integer(default=0, doc="""
        Where the stage's bar starts below the top of the main area (alerts above it push
        it down), in pixels.""")
    staged = param.Boolean(default=False, doc="A stage is shown: the keys step through it.")
    at_end = param.Boolean(default=False, doc="The last step is shown.")
    blackout = param.Boolean(default=False, doc="The screen is black (B or . toggles).")
    end_text = param.String(default="End of the lesson", doc="The end signal's words.")
    hidden = param.Boolean(default=False, doc="""
        The page is not seen (another tab in front of it, a minimised window: the browser's
        ``document.hidden``): a stage that follows a lecture then waits until it is seen.""")
    cover = param.Boolean(default=True, doc="""
        Draw the black screen in this page (False: only report B and . as ``blackout``,
        e.g. the speaker view, which blacks out the audience's screen, not its own).""")

    _template = '<div id="llrlab_page" style="display: none"></div>'
    _scripts = {  # noqa: RUF012 (Panel's class attribute)
        "render": BOKEHJS_FIXES_JS + """
          state.digits = '';
          state.send = (token) => {
            const old = data.keys ? data.keys.split(' ') : [];
            data.keys = old.concat([token]).slice(-32).join(' ');
            data.presses = data.presses + 1;
            if (state.coming_timer != null) { clearTimeout(state.coming_timer); }
            state.coming_timer = setTimeout(() => {
              if (data.done >= data.presses) { return; }
              const el = state.cover('llrlab-coming',
                'position:fixed;right:18px;top:12px;z-index:9000;background:#2b4a6f;' +
                'color:#fff;padding:0.3em 0.9em;border-radius:14px;font-size:20px;' +
                'pointer-events:none');
              el.setAttribute('role', 'status');
              el.textContent = 'Next step coming\u2026';
              el.style.display = 'block';
            }, 150);
          };
          state.cover = (id, css) => {
            let el = document.getElementById(id);
            if (el == null) {
              el = document.createElement('div');
              el.id = id;
              el.style.cssText = css;
              document.body.appendChild(el);
            }
            return el;
          };
          state.flash_end = () => {
            const el = state.cover('llrlab-end',
              'position:fixed;left:50%;top:45%;transform:translate(-50%,-50%);z-index:9000;' +
              'background:rgba(20,20,20,0.88);color:#fff;padding:0.8em 1.4em;' +
              'border-radius:10px;font-size:clamp(22px,2.6vw,48px);font-weight:bold;' +
              'pointer-events:none;transition:opacity 0.4s;opacity:0');
            el.setAttribute('role', 'status');
            el.textContent = '\u25a0 ' + data.end_text;
            el.style.opacity = '1';
            if (state.end_timer != null) { clearTimeout(state.end_timer); }
            state.end_timer = setTimeout(() => { el.style.opacity = '0'; }, 2200);
          };
          state.key = __KEY_JS__;
          state.onkey = (e) => {
            if (!data.staged) { return; }
            const key = state.key(e);
            if (key === 'black' || (key === 'escape' && data.blackout)) {
              data.blackout = key === 'escape' ? false : !data.blackout;
              e.preventDefault();
              return;
            }
            let token = null;
            if (['f', 'b', 'h', 'e'].includes(key)) { token = key; }
            else if (key === 'digit') {
              state.digits = (state.digits + e.key).slice(-3);
              e.preventDefault();
              return;
            } else if (key === 'enter' && state.digits) {
              token = 'g' + parseInt(state.digits, 10);
            }
            state.digits = '';
            if (token === null) { return; }
            e.preventDefault();
            if (data.blackout) { data.blackout = false; }
            if (token === 'f' && data.at_end) { state.flash_end(); }
            state.send(token);
          };
          document.addEventListener('keydown', state.onkey);
          // a click on the label of a checkbox or a switch toggles it (Bokeh draws these
          // labels as plain text beside the box, which does not react)
          state.onclick = (e) => {
            const t = e.composedPath()[0];
            if (!t || !t.classList || !t.classList.contains('bk-label')) { return; }
            const root = t.getRootNode();
            if (root == null || root.host == null) { return; }
            const box = root.querySelector('input[type=checkbox]');
            const knob = root.querySelector('.bk-body');
            if (box != null) { box.click(); } else if (knob != null) { knob.click(); }
          };
          document.addEventListener('click', state.onclick);
          // a folded sidebar and a stage's page at once, without the sidebar's animation:
          // the first size reported is the final one (the page's body waits for it)
          if (data.collapsed) {
            const side = document.getElementById('sidebar');
            if (side != null) { side.classList.remove('show'); }
          }
          self.staged();
          const main = document.getElementById('main');
          state.report = () => {
            state.timer = null;
            if (main == null) { return; }
            const w = Math.round(main.clientWidth), h = Math.round(main.clientHeight);
            if (w !== data.main_width) { data.main_width = w; }
            if (h !== data.main_height) { data.main_height = h; }
            let top = 0;
            try {
              const nav = Bokeh.documents[0].get_model_by_name('stage_nav');
              const view = nav == null ? null : Bokeh.index.find_one(nav);
              if (view != null && view.el.offsetParent != null) {
                top = Math.round(view.el.getBoundingClientRect().top
                                 - main.getBoundingClientRect().top + main.scrollTop);
                if (!state.nav_seen) {
                  // the page's body (this control is in its frame) came after the first
                  // report: from now on its size changes are reported too
                  state.nav_seen = true;
                  if (state.ro) { state.ro.observe(view.el.parentElement || view.el); }
                }
              } else if (data.staged && (state.nav_waits = (state.nav_waits || 0) + 1) < 60) {
                setTimeout(state.later, 150);  // the stage's bar is not drawn yet
              }
            } catch (err) { top = 0; }
            if (top !== data.stage_top) { data.stage_top = top; }
            try {
              // the text's HTML pane is the lesson panel's first child (a pane's name does
              // not reach its Bokeh model); its element has the content's own height
              const col = Bokeh.documents[0].get_model_by_name('lesson_panel');
              const cv = col == null ? null : Bokeh.index.find_one(col);
              const v = cv == null || !cv.child_views ? null : cv.child_views[0];
              const pane = v == null ? null : v.model;
              if (v != null && v.el.offsetParent != null) {
                const inner = v.el.shadowRoot ? v.el.shadowRoot.lastElementChild : null;
                const need = Math.ceil(v.el.scrollHeight);
                const w = Math.round(v.el.getBoundingClientRect().width);
                const key = String(pane.text || '').length + ':' + w;
                const old = data.text_need;
                if (old[0] !== w || Math.abs(old[1] - need) > 2) {
                  data.text_need = [w, need, key];
                }
                if (state.ro && !state.watching_text) {
                  state.ro.observe(inner || v.el);
                  state.watching_text = true;
                }
              }
            } catch (err) { /* no lesson text */ }
          };
          state.later = () => {
            if (state.timer != null) { clearTimeout(state.timer); }
            state.timer = setTimeout(state.report, 120);
          };
          if (main != null && typeof ResizeObserver !== 'undefined') {
            state.ro = new ResizeObserver(state.later);
            state.ro.observe(main);
            // what is above the stage (alerts) changes the height of the main area's column
            for (const child of main.children) { state.ro.observe(child); }
            state.report();
          }
          state.probe = __PROBE_JS__;
          if (data.text_probe && data.text_probe.token) { self.text_probe(); }
          state.seen = () => {
            if (data.hidden !== document.hidden) { data.hidden = document.hidden; }
          };
          document.addEventListener('visibilitychange', state.seen);
          state.seen();
          self.collapsed();
          self.blackout();
          self.staged();
        """.replace("__KEY_JS__", KEY_JS).replace("__PROBE_JS__", TEXT_PROBE_JS),
        "text_probe": """
          state.probe(data.text_probe, (token, measured) => {
            data.text_sizes = [token, measured];
          }, state);
        """,
        "collapsed": """
          const el = document.getElementById('sidebar');
          if (el == null || typeof bootstrap === 'undefined') { return; }
          const c = bootstrap.Collapse.getOrCreateInstance(el, {toggle: false});
          if (data.collapsed) { c.hide(); } else { c.show(); }
          const button = document.getElementById('sidebar-toggle');
          if (button != null) { button.setAttribute('aria-expanded', String(!data.collapsed)); }
        """,
        "staged": """
          // a stage takes the whole window: the page's header is hidden (the stage's bar
          // has a menu button for the sidebar)
          if (document.getElementById('llrlab-stage-style') == null) {
            const css = document.createElement('style');
            css.id = 'llrlab-stage-style';
            css.textContent = 'body.llrlab-staged #header { display: none !important; }';
            document.head.appendChild(css);
          }
          document.body.classList.toggle('llrlab-staged', data.staged);
          if (state.later) { state.later(); }
        """,
        "done": """
          if (data.done < data.presses) { return; }
          if (state.coming_timer != null) { clearTimeout(state.coming_timer); }
          const el = document.getElementById('llrlab-coming');
          if (el != null) { el.style.display = 'none'; }
        """,
        "blackout": """
          const el = state.cover('llrlab-blackout',
            'position:fixed;inset:0;background:#000;z-index:9500;cursor:none;display:none');
          el.onclick = () => { data.blackout = false; };
          el.style.display = data.blackout && data.cover ? 'block' : 'none';
        """,
        "remove": """
          document.removeEventListener('keydown', state.onkey);
          document.removeEventListener('click', state.onclick);
          document.removeEventListener('visibilitychange', state.seen);
          document.body.classList.remove('llrlab-staged');
          if (state.ro) { state.ro.disconnect(); }
          if (state.timer != null) { clearTimeout(state.timer); }
          if (state.coming_timer != null) { clearTimeout(state.coming_timer); }
          for (const id of ['llrlab-blackout', 'llrlab-end', 'llrlab-coming']) {
            const el = document.getElementById(id);
            if (el != null) { el.remove(); }
          }
        """,
    }

    def __init__(self, **params):
        params.setdefault("width", 0)
        params.setdefault("height", 0)
        params.setdefault("margin", 0)
        super().__init__(**params)

    def moves(self, event):
        """The tokens of the presses since the last call of a ``presses`` watcher (the end
        of ``keys``), oldest first."""
        tokens = self.keys.split()
        n = max(0, min(event.new - (event.old or 0), len(tokens)))
        return tokens[len(tokens) - n:] if n else []
