"""The page's main area: the panels of the "Operating point" tab, laid out for the screen at
hand, and the stage of presenter mode and lessons.

* On a screen (no stage), the panels wrap: the NBER plot and the DET plot side by side when
  the main area is at least :data:`PAIR_MIN_WIDTH` wide (a window of about 1400 px with the
  sidebar), else one under the other; the metrics table and the calibration likewise; the
  histograms below.  Legends are below the plots, with as many columns as fit.
* On a stage (presenter mode, or an open lesson), only the chosen panels are shown, side by
  side, sized to fill the main area; an open lesson's text stands beside them; a bar above
  steps through the lesson (or the saved views) and the arrow keys do the same.

:class:`PageControl` is the page's small script: it reports the size of the main area
(debounced), turns the arrow keys into steps (not while a text field or slider has the
focus), and folds the sidebar in presentation style.  No server-side code knows the browser's
window otherwise.
"""

from __future__ import annotations

import contextlib

import panel as pn
import param
from panel.reactive import ReactiveHTML

from .lesson_text import render_html
from .safe import html_text, md_text
from .state import DashboardState
from .state.presenter import STAGE_ONLY

__all__ = ["PAIR_MIN_WIDTH", "PAIR_MIN_WIDTH_PRESENTATION", "SHRINK_CSS", "MainArea",
           "PageControl", "StageNav"]

#: Width of the panels' row (pixels; the main area less 36 px) from which two panels sit side
#: by side on a screen (the flex bases of the panels in ``_ROW_CSS``: 600 + 420 px and the
#: gaps); in presentation style (fonts about 1.5 times larger) from a wider row.  Narrower,
#: every panel takes the full width, one under the other (a 1280 x 720 projector, or a
#: 1400 px wide window with the sidebar: DET under NBER).
PAIR_MIN_WIDTH = 1030
PAIR_MIN_WIDTH_PRESENTATION = 1360
#: Height of the stage's navigation bar, and the space kept below the panels.
NAV_HEIGHT = 56
_BOTTOM = 24
#: Width of a lesson's text beside the stage's panels: a fraction of the main area, bounded.
TEXT_FRACTION, TEXT_MIN, TEXT_MAX = 0.27, 300, 460
#: Narrowest panel beside a lesson's text; narrower, the text goes above the panels, in a
#: band of this height (screen, presentation style).
BESIDE_MIN = 400
TEXT_BAND = {False: 150, True: 200}
#: Main-area size used before the browser has reported it.
FALLBACK = (1240, 650)

_ROW_CSS = """
:host { flex-wrap: wrap; align-items: flex-start; min-width: 0 !important;
        container-type: inline-size; }
.llrlab-panel { min-width: 0 !important; }
.llrlab-nber, .llrlab-metrics { flex: 3 1 max(600px, 56%) !important; }
.llrlab-det, .llrlab-calibration { flex: 2 1 max(420px, 40%) !important; }
.llrlab-histogram { flex: 1 1 100% !important; }
%(single)s
:host(.llrlab-stage) { flex-wrap: nowrap; }
:host(.llrlab-stage) .llrlab-panel { flex: 0 0 auto !important; width: auto !important; }
.llrlab-lesson-text { flex: 0 0 auto !important; }
:host(.llrlab-text-above) { flex-wrap: wrap; }
:host(.llrlab-text-above) .llrlab-lesson-text { order: -1; }
.llrlab-lit { outline: 4px solid #CC79A7; outline-offset: -4px; border-radius: 6px; }
"""
# one panel per line below the pair widths: decided in the browser from the row's own width
# (a container query), so it holds from the first paint and whatever the server knows
_ROW_CSS = _ROW_CSS.replace("%(single)s", f"""
@container (max-width: {PAIR_MIN_WIDTH - 1}px) {{
  .llrlab-panel {{ flex: 1 1 100% !important; }}
}}
@container (max-width: {PAIR_MIN_WIDTH_PRESENTATION - 1}px) {{
  :host(.llrlab-big) .llrlab-panel {{ flex: 1 1 100% !important; }}
}}""")
_TABS_CSS = """
:host { min-width: 0 !important; }
:host(.llrlab-stage) .bk-header { display: none; }
"""
#: Panel gives a layout the sum of its children's widths as a minimum width, which would
#: keep the wrapping row as wide as all its panels side by side: the containers of the row
#: take their width from the page instead.
SHRINK_CSS = ":host { min-width: 0 !important; }"


class PageControl(ReactiveHTML):
    """The page's script: main-area size, arrow keys, sidebar (see the module docstring)."""

    presses = param.Integer(default=0, doc="Arrow (or Page Up/Down) presses so far.")
    keys = param.String(default="", doc="""
        The directions of the last presses, oldest first: 'f' (right arrow, Page Down) or
        'b' (left arrow, Page Up).  One counter and the sequence, so that presses that reach
        the server in one message (a busy server takes them together) keep their order.""")
    collapsed = param.Boolean(default=False, doc="Fold the sidebar.")
    main_width = param.Integer(default=0, doc="Width of the main area (0: not known yet).")
    main_height = param.Integer(default=0, doc="Height of the main area.")

    _template = '<div id="llrlab_page" style="display: none"></div>'
    _scripts = {  # noqa: RUF012 (Panel's class attribute)
        "render": """
          state.onkey = (e) => {
            if (e.defaultPrevented || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return;
            const t = e.composedPath()[0];
            const slider = t && t.getAttribute && t.getAttribute('role') === 'slider';
            if (t && t.tagName && (['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName)
                || t.isContentEditable || slider)) {
              return;
            }
            let d = null;
            if (e.key === 'ArrowRight' || e.key === 'PageDown') { d = 'f'; }
            else if (e.key === 'ArrowLeft' || e.key === 'PageUp') { d = 'b'; }
            if (d !== null) {
              data.keys = (data.keys + d).slice(-64);
              data.presses = data.presses + 1;
              e.preventDefault();
            }
          };
          document.addEventListener('keydown', state.onkey);
          const main = document.getElementById('main');
          if (main != null && typeof ResizeObserver !== 'undefined') {
            state.report = () => {
              state.timer = null;
              const w = Math.round(main.clientWidth), h = Math.round(main.clientHeight);
              if (w !== data.main_width) { data.main_width = w; }
              if (h !== data.main_height) { data.main_height = h; }
            };
            state.ro = new ResizeObserver(() => {
              if (state.timer != null) { clearTimeout(state.timer); }
              state.timer = setTimeout(state.report, 120);
            });
            state.ro.observe(main);
            state.report();
          }
          self.collapsed();
        """,
        "collapsed": """
          const el = document.getElementById('sidebar');
          if (el == null || typeof bootstrap === 'undefined') { return; }
          const c = bootstrap.Collapse.getOrCreateInstance(el, {toggle: false});
          if (data.collapsed) { c.hide(); } else { c.show(); }
          const button = document.getElementById('sidebar-toggle');
          if (button != null) { button.setAttribute('aria-expanded', String(!data.collapsed)); }
        """,
        "remove": """
          document.removeEventListener('keydown', state.onkey);
          if (state.ro) { state.ro.disconnect(); }
          if (state.timer != null) { clearTimeout(state.timer); }
        """,
    }

    def __init__(self, **params):
        params.setdefault("width", 0)
        params.setdefault("height", 0)
        params.setdefault("margin", 0)
        super().__init__(**params)


class _FollowsLesson(pn.viewable.Viewer):
    """A part of the stage that shows ``self._layout`` and redraws (``_update``) when the
    lesson, its step or the presentation style changes."""

    state = param.ClassSelector(class_=DashboardState)

    def _follow(self, layout):
        self._layout = layout
        st = self.state
        st.lesson.param.watch(self._update, ["lesson", "step"])
        st.display.param.watch(self._update, ["presentation"])

    def __panel__(self):
        return self._layout


class StageNav(_FollowsLesson):
    """The bar above the stage: back, where we are, next, and the ways out."""

    def __init__(self, **params):
        super().__init__(**params)
        st = self.state
        self.back = pn.widgets.Button(name="◀ Back", button_type="primary", width=100)
        self.next = pn.widgets.Button(name="Next ▶", button_type="primary", width=100)
        self.where = pn.pane.Markdown("", margin=(4, 12), name="stage_where",
                                      sizing_mode="stretch_width")
        self.close_lesson = pn.widgets.Button(name="Close lesson", button_type="light",
                                              width=130)
        self.leave = pn.widgets.Button(name="Leave presenter mode", button_type="light",
                                       width=190)
        self.back.on_click(lambda _e: st.navigate(-1))
        self.next.on_click(lambda _e: st.navigate(1))
        self.close_lesson.on_click(lambda _e: st.lesson.close())
        self.leave.on_click(lambda _e: setattr(st.presenter, "enabled", False))
        self._follow(pn.Row(self.back, self.where, self.next, self.close_lesson, self.leave,
                            height=NAV_HEIGHT, sizing_mode="stretch_width",
                            name="stage_nav", styles={"align-items": "center"}))
        st.presenter.param.watch(self._update, ["enabled", "views", "current"])
        self._update()

    def _update(self, *_):
        st = self.state
        lesson, step = st.lesson.current(), st.lesson.current_step()
        big = st.display.presentation
        if lesson is not None:
            k, n = st.lesson.step, len(lesson)
            text = (f"**{_md(lesson.title)}** · step {k} of {n}: {_md(step.title)}")
            self.back.disabled, self.next.disabled = k <= 1, k >= n
        else:
            views, i = st.presenter.views, st.presenter.current
            if views:
                shown = f"view {i + 1} of {len(views)}: {_md(views[i]['name'])}" if i >= 0 \
                    else f"{len(views)} saved views: press ▶ or → to show the first"
                text = f"**Saved views** · {shown}"
            else:
                text = "**Presenter mode** · no saved views (save views in the sidebar)"
            self.back.disabled = not views or i <= 0
            self.next.disabled = not views or i >= len(views) - 1
        self.where.object = text
        self.where.styles = {"font-size": "130%" if big else "105%"}
        self.close_lesson.visible = lesson is not None
        self.leave.visible = st.presenter.enabled
        self._layout.visible = st.staged


def _md(text):
    """User text (a lesson or view name) shown literally in Markdown."""
    return md_text(text, 200)


#: The step's title a little larger than its text (whatever the page's own heading sizes);
#: formulas in a maths font (the page's own font has no maths table: no stretchy brackets),
#: at the text's size; a displayed formula wider than the text scrolls rather than running
#: out of the box.
_LESSON_TEXT_CSS = """
h3 { font-size: 1.25em; font-weight: 600; margin: 0.35em 0 0.5em; }
p { margin: 0 0 0.6em; }
math { font-family: math, "STIX Two Math", "Cambria Math", "Latin Modern Math",
                     "DejaVu Math TeX Gyre", serif; font-size: inherit; }
math[display="block"] { overflow-x: auto; overflow-y: hidden; max-width: 100%;
                        padding: 0.2em 0; }
"""


class LessonText(_FollowsLesson):
    """The open lesson step's text, beside the stage's panels: its Markdown and formulas
    rendered on the server (:func:`~llrlab.dashboard.lesson_text.render_html`: raw HTML
    shown as text, formulas as MathML at the text's size), in an HTML pane, which runs no
    MathJax over it."""

    def __init__(self, **params):
        super().__init__(**params)
        self.text = pn.pane.HTML("", name="lesson_text", sizing_mode="stretch_width",
                                 margin=(0, 10), stylesheets=[_LESSON_TEXT_CSS])
        self._follow(pn.Column(self.text, css_classes=["llrlab-lesson-text"], width=360,
                               name="lesson_panel", scroll=True,
                               styles={"background": "#f7f3f6", "border-radius": "6px",
                                       "border-left": "5px solid #CC79A7"}))
        self._update()

    def _update(self, *_):
        st = self.state
        lesson, step = st.lesson.current(), st.lesson.current_step()
        if step is None:
            self.text.object = ""
            self._layout.visible = False
            return
        self.text.object = (f"<p><em>{html_text(lesson.title, 200)} · step {st.lesson.step} "
                            f"of {len(lesson)}</em></p>\n<h3>{html_text(step.title, 200)}"
                            f"</h3>\n{render_html(step.text)}")
        self.text.styles = {"font-size": "150%" if st.display.presentation else "112%",
                            "line-height": "1.45"}
        self._layout.visible = True

    def resize(self, width, height):
        self._layout.param.update(width=int(width), height=int(height))


class MainArea(pn.viewable.Viewer):
    """The "Operating point" tab's panels, on a screen or on a stage (module docstring)."""

    state = param.ClassSelector(class_=DashboardState)
    views = param.Dict(doc="panel name -> view (each with ``resize(width, height)``).")
    page = param.ClassSelector(class_=PageControl)
    tabs = param.Parameter(default=None, doc="The page's tabs (hidden on a stage).")

    def __init__(self, **params):
        super().__init__(**params)
        self.items = {name: self._item(name, view) for name, view in self.views.items()}
        self.lesson_text = LessonText(state=self.state)
        self.row = pn.Row(*self.items.values(), self.lesson_text, stylesheets=[_ROW_CSS],
                          sizing_mode="stretch_width", name="panels")
        self.nav = StageNav(state=self.state)
        self._layout = pn.Column(self.nav, self.row, sizing_mode="stretch_width",
                                 stylesheets=[SHRINK_CSS])
        st = self.state
        self._sized = None
        st.presenter.param.watch(self._relayout, ["enabled", "panels", "highlight"])
        st.lesson.param.watch(self._relayout, ["lesson"])
        st.lesson.param.watch(self._collapse, ["lesson"])
        self.page.param.watch(self._key, ["presses"])
        st.presenter.param.watch(self._collapse, ["enabled"])
        st.display.param.watch(self._collapse, ["presentation"])
        st.display.param.watch(self._relayout, ["presentation"])
        self.page.param.watch(self._measured, ["main_width", "main_height"])
        self._collapse()
        self._relayout()

    def __panel__(self):
        return self._layout

    @staticmethod
    def _item(name, view):
        return pn.Column(view, css_classes=["llrlab-panel", f"llrlab-{name}"],
                         sizing_mode="stretch_width", name=f"panel_{name}")

    def _stage_views(self, shown):
        """Make the stage-only views (:data:`~llrlab.dashboard.state.presenter.STAGE_ONLY`:
        the forensic plots) among ``shown`` that are not made yet, before the lesson's text;
        each computes only while shown."""
        from .views.ece import ECEView
        from .views.reliability import ReliabilityView
        from .views.tippett import TippettView

        kinds = {"tippett": TippettView, "reliability": ReliabilityView, "ece": ECEView}
        for name in shown:
            if name in STAGE_ONLY and name not in self.items:
                view = kinds[name](state=self.state)
                self.views = {**self.views, name: view}
                self.items[name] = self._item(name, view)
                self.row.insert(len(self.row) - 1, self.items[name])
        for name in STAGE_ONLY:
            if name in self.views:
                self.views[name].active = name in shown

    def attach_tabs(self, tabs):
        """The tabs holding this area: their headers are hidden on a stage, where the
        first tab is shown."""
        self.tabs = tabs
        tabs.stylesheets = [*tabs.stylesheets, _TABS_CSS]
        self._sized = None
        self._relayout()

    def _key(self, event):
        """Arrow keys in the page: steps through the lesson, or the saved views in presenter
        mode (nothing on the ordinary page, where the arrows scroll), one per press in the
        order pressed (the presses since the last call are the end of ``keys``)."""
        n = max(0, min(event.new - (event.old or 0), len(self.page.keys)))
        if not self.state.staged or n == 0:
            return
        for d in self.page.keys[-n:]:
            self.state.navigate(1 if d == "f" else -1)

    def _measured(self, *_):
        """The browser reported the main area's size: lay out on the next tick (model changes
        made while Panel applies the browser's own event were not all sent back)."""
        doc = pn.state.curdoc
        if doc is not None and doc.session_context is not None:
            doc.add_next_tick_callback(self._relayout)
        else:
            self._relayout()

    def _collapse(self, *_):
        """The sidebar folds in presentation style and on a stage (presenter mode, an open
        lesson: the plots and the step's text take the whole screen; the menu button
        unfolds it)."""
        self.page.collapsed = bool(self.state.display.presentation or self.state.staged)

    def _size(self):
        w, h = self.page.main_width, self.page.main_height
        return (w, h) if w > 0 and h > 0 else FALLBACK

    def stage_sizes(self):
        """The stage's geometry in the current main area: ``({panel: (width, height)},
        (text width, text height) or None, text above the panels)``."""
        st = self.state
        shown = st.presenter.shown_panels()
        width, height = self._size()
        n, gap, room = len(shown), 12, width - 36
        h = height - NAV_HEIGHT - _BOTTOM - 16
        text, above = None, False
        if st.lesson.lesson:
            tw = int(min(TEXT_MAX, max(TEXT_MIN, TEXT_FRACTION * width)))
            if (room - tw - gap * n) // n >= BESIDE_MIN:
                text = (tw, h)
            else:  # too narrow for the text beside the plots: above them, full width
                band = TEXT_BAND[bool(st.display.presentation)]
                text, above = (room, band), True
                h -= band + gap
        w = (room - (0 if text is None or above else text[0]) - gap * n) // n
        size = (max(220, int(w)), max(240, int(h)))
        return {name: size for name in shown}, text, above

    def _relayout(self, *_):
        st = self.state
        staged = st.staged
        lit = set(st.presenter.highlight or ())
        # no pn.io.hold() here: under Bokeh's 'combine' hold the figures' new heights were
        # dropped (the browser kept the fallback height while the server had the new one)
        with contextlib.nullcontext():
            if staged:
                sizes, text, above = self.stage_sizes()
                self._stage_views(sizes)
                key = ("stage", tuple(sorted(sizes.items())), text)
                self.row.css_classes = ["llrlab-stage"] + (["llrlab-text-above"] if above
                                                           else [])
                if self.tabs is not None:
                    self.tabs.css_classes = ["llrlab-stage"]
                    self.tabs.active = 0
                for name, item in self.items.items():
                    item.visible = name in sizes
                if key != self._sized:
                    for name, (w, hh) in sizes.items():
                        self.views[name].resize(w, hh)
                if text is not None:
                    self.lesson_text.resize(*text)
            else:
                width = self._size()[0] - 36
                pair = width >= (PAIR_MIN_WIDTH_PRESENTATION if st.display.presentation
                                 else PAIR_MIN_WIDTH)
                wide, narrow = (int(0.6 * width), int(0.4 * width)) if pair else (width, width)
                widths = {"nber": wide, "metrics": wide, "det": narrow,
                          "calibration": narrow, "histogram": width}
                key = ("page", width, pair)
                self.row.css_classes = ["llrlab-big"] if st.display.presentation else []
                if self.tabs is not None:
                    self.tabs.css_classes = []
                self._stage_views(())
                for name, item in self.items.items():
                    item.visible = name not in STAGE_ONLY
                if key != self._sized:
                    for name, view in self.views.items():
                        if name not in STAGE_ONLY:
                            view.resize(widths.get(name, width), None)
            self._sized = key
            for name, item in self.items.items():
                cls = ["llrlab-panel", f"llrlab-{name}"] + (["llrlab-lit"] if name in lit
                                                             and staged else [])
                if item.css_classes != cls:
                    item.css_classes = cls
