"""Four costs of BokehJS 3.9 per update of a page, removed in the page (the script of
:class:`~.page_control.PageControl`, which every dashboard page has).

A lesson step changes some 60-170 properties in one message (the text, panels shown, plot
data, ranges, widths).  Profiled in chromium on the built-in lesson (1280 x 720, the demo
data), applying one step took 0.6-1.1 s of the browser's main thread, nearly all of it in
three places of BokehJS that read the page's computed style again and again while the
message is applied, each read forcing the browser to recompute the styles of the whole
page (``getComputedStyle`` after a change of the DOM):

1. **Every visual property read consults the CSS cascade.**  Since Bokeh 3.5 (bokeh#13828)
   a line, fill, text or hatch property is first looked up as a CSS variable
   (``--bk-line-color``, ...) on the renderer's element, then taken from the model: three
   style reads for ``doit`` alone, per visual, per layout and paint.  This is bokeh#15286;
   bokeh#15205 (merged upstream, not in 3.9.2) caches the reads per task.  llrlab defines
   no ``--bk-*`` variable (its looks are model properties, set by
   :class:`~.views._common.Styler`), so the look-up is skipped: the model's value is the
   value.  This took about 40 % of a step's browser time.
2. **A plot's base font size is read from its element's computed style** (for ``em``
   units) each time a text is measured.  It is read once per animation frame (the
   element's font size is that of Bokeh's ``:host`` rule and does not change).
3. **Every property that affects the layout recomputes the layout of the whole page at
   once**, inside the message: ``LayoutDOMView.invalidate_layout`` walks to the root and
   lays everything out, for each such property (a step sets a dozen widths, visibilities,
   styles and texts), and a page that opens receives a few hundred messages.  While a
   message from the server is applied, the invalidations are collected, and each root is
   laid out once on the next animation frame, before the browser paints: the same final
   layout, computed once for all the messages that arrived in between.  The root of each
   view that asked is found when the layout runs, not when it asked (a view rebuilt
   meanwhile hangs under its new parent).  That frame callback is asked for when a
   message starts to be applied, before the repaints the message asks for: the plots
   then repaint in the new layout.  (Asked for after them, each plot whose axes or legend
   had changed size laid the whole page out again from its repaint, and then the
   message's layout did: 2-6 layouts of the page per lesson step, 60-250 ms each.)  A
   layout asked for while that frame callback is pending joins it: a plot lays out its
   new renderers or side panels (a legend moved below or beside it) after an ``await``,
   when the message has been applied.
4. **A hidden plot's repaint lays out the whole page.**  ``PlotView.repaint`` lays out
   the page (``compute_layout`` walks to the root) whenever the plot's axes or legend
   changed size, also while the plot is hidden (a lesson step's panels that are not
   shown: their data change with the step).  A hidden plot now skips that (BokehJS's own
   test of "displayed": connected, with an offset parent or fixed); it is laid out with
   the page when it is shown.  Measured in chromium over lesson steps (load average
   2-3): root layouts per step 4-6 -> 1, key -> painted step 936-1189 -> 553-702 ms on
   the same steps.

Each fix is installed once per page, and only when BokehJS has the function it replaces
(checked by name; otherwise the page works as before and says so in the browser console).
``tests/dashboard/test_bokehjs_fixes.py`` checks that the installed BokehJS still has what
the fixes replace, ``tests/browser/test_lesson_steps_browser.py`` that they are installed
and that a step is complete and timely.
"""

from __future__ import annotations

__all__ = ["BOKEHJS_FIXES_JS", "REPLACED"]

#: The BokehJS modules and members the fixes replace: ``(module, class, member)``.
REPLACED = (
    ("core/visuals/visual", "VisualProperties", "_get_css_value"),
    ("models/plots/plot_canvas", "PlotView", "base_font_size"),
    ("document/document", "Document", "apply_json_patch"),
    ("models/layouts/layout_dom", "LayoutDOMView", "invalidate_layout"),
    ("models/plots/plot_canvas", "PlotView", "_invalidate_layout_if_needed"),
)

#: JavaScript run by the page's script when it is first drawn (see the module docstring).
BOKEHJS_FIXES_JS = r"""
(() => {
  const B = window.Bokeh;
  if (!B || typeof B.require !== 'function' || B.__llrlab_fixes) { return; }
  B.__llrlab_fixes = [];
  const cls = (module, name) => {
    try { const c = B.require(module)[name]; return typeof c === 'function' ? c : null; }
    catch (e) { return null; }
  };
  const skipped = (what) => console.warn('llrlab: BokehJS ' + B.version +
                                         ' has no ' + what + '; left as it is');
  // 1. no CSS variable look-up for visual properties (bokeh#15286)
  const V = cls('core/visuals/visual', 'VisualProperties');
  if (V && typeof V.prototype._get_css_value === 'function') {
    V.prototype._get_css_value = function () { return ''; };
    B.__llrlab_fixes.push('css');
  } else { skipped('VisualProperties._get_css_value'); }
  // 2. a plot's base font size read once per animation frame
  const P = cls('models/plots/plot_canvas', 'PlotView');
  const font = P && Object.getOwnPropertyDescriptor(P.prototype, 'base_font_size');
  if (font && typeof font.get === 'function') {
    const read = font.get;
    Object.defineProperty(P.prototype, 'base_font_size', {
      configurable: true,
      get() {
        if (this.__llrlab_font === undefined) {
          this.__llrlab_font = read.call(this);
          requestAnimationFrame(() => { this.__llrlab_font = undefined; });
        }
        return this.__llrlab_font;
      },
    });
    B.__llrlab_fixes.push('font');
  } else { skipped('PlotView.base_font_size'); }
  // 3. one layout per root for all the layout changes of one message
  const D = cls('document/document', 'Document');
  const L = cls('models/layouts/layout_dom', 'LayoutDOMView');
  if (D && L && typeof D.prototype.apply_json_patch === 'function'
      && typeof L.prototype.invalidate_layout === 'function') {
    const invalidate = L.prototype.invalidate_layout;
    const apply = D.prototype.apply_json_patch;
    const roots = new Set();
    let depth = 0;
    let scheduled = false;
    const flush = () => {
      scheduled = false;
      const todo = new Set();
      for (let view of roots) {  // the roots as they are now (a view may have moved)
        while (view.parent instanceof L) { view = view.parent; }
        if (view.model.document != null && view.el.isConnected) { todo.add(view); }
      }
      roots.clear();
      for (const view of todo) {
        try { invalidate.call(view); } catch (e) { console.error(e); }
      }
    };
    L.prototype.invalidate_layout = function () {
      // (also what follows a message before its layout runs: a plot's new list of
      // renderers or side panels, a legend moved below or beside it, is laid out after
      // an await, when the message is applied)
      if (depth === 0 && !scheduled) { return invalidate.call(this); }
      roots.add(this);
    };
    D.prototype.apply_json_patch = function (...args) {
      // (the layout's frame callback is asked for first, before the repaints the message
      // asks for: the plots then repaint in the new layout, and ask for none of their own)
      if (depth === 0 && !scheduled) {
        scheduled = true;
        requestAnimationFrame(flush);
      }
      depth += 1;
      try {
        return apply.apply(this, args);
      } finally {
        depth -= 1;
      }
    };
    B.__llrlab_fixes.push('layout');
  } else { skipped('Document.apply_json_patch or LayoutDOMView.invalidate_layout'); }
  // 4. a hidden plot's repaint lays out nothing (BokehJS's own test of "displayed")
  const shown = (el) => el.isConnected && (el.offsetParent != null || (() => {
    const {position, display} = getComputedStyle(el);
    return position == 'fixed' && display != 'none'; })());
  if (P && typeof P.prototype._invalidate_layout_if_needed === 'function') {
    const ifNeeded = P.prototype._invalidate_layout_if_needed;
    P.prototype._invalidate_layout_if_needed = function (...args) {
      if (!shown(this.el)) { return; }  // (its layout waits until it is shown)
      return ifNeeded.apply(this, args);
    };
    B.__llrlab_fixes.push('hidden');
  } else { skipped('PlotView._invalidate_layout_if_needed'); }
})();
"""
