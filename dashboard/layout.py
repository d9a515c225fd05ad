"""The page's main area: the panels of the "Operating point" tab, laid out for the screen at
hand, and the stage of presenter mode and lessons.

* On a screen (no stage), the panels wrap: the NBER plot and the DET plot side by side when
  the main area is at least :data:`PAIR_MIN_WIDTH` wide (a window of about 1400 px with the
  sidebar), else one under the other; the metrics table and the calibration likewise; the
  histograms below.  Legends are below the plots, with as many columns as fit.
* On a stage (presenter mode, or an open lesson), only the chosen panels are shown, side by
  side, sized to fill the main area below the alerts; an open lesson's text stands beside
  them or above them, wherever the plots get more room (:mod:`.stage_geometry`).  Nothing on
  a stage scrolls: every panel is given the room its content needs at the presentation
  style's type size, which grows with the window (:func:`.stage_geometry.stage_scale`).
* The stage's bar (:class:`StageNav`): back, the list of the lesson's steps (to jump to
  one), next, a progress bar, the speaker view, and the ways out.  At the last step "Next"
  reads "End" and the bar is full.

:class:`~.page_control.PageControl` is the page's small script: sizes, the lecturer's keys,
the black screen.  A lesson's page opens a lecture channel (:mod:`.lecture_channel`): the
speaker view (:mod:`.speaker`) joins it and both follow each other's step.
"""

from __future__ import annotations

import contextlib
import math

import panel as pn
import param
from panel.io.state import set_curdoc

from .lecture_channel import open_channel
from .lesson_text import MATH_CSS, TEXT_VARS_CSS, render_html, text_css, text_vars
from .page_control import PageControl
from .safe import html_text, md_text
from .script_button import ScriptButton
from .stage_geometry import lesson_text_height, plan_stage, stage_scale, text_widths
from .state import DashboardState
from .state.presenter import STAGE_ONLY
from .text_probe import TextHeights, TextProbe

__all__ = ["PAIR_MIN_WIDTH", "PAIR_MIN_WIDTH_PRESENTATION", "SHRINK_CSS", "LessonText",
           "MainArea", "PageControl", "StageNav"]

#: Width of the panels' row (pixels; the main area less 36 px) from which two panels sit side
#: by side on a screen (the flex bases of the panels in ``_ROW_CSS``: 600 + 420 px and the
#: gaps); in presentation style (fonts about 1.5 times larger) from a wider row.  Narrower,
#: every panel takes the full width, one under the other (a 1280 x 720 projector, or a
#: 1400 px wide window with the sidebar: DET under NBER).
PAIR_MIN_WIDTH = 1030
PAIR_MIN_WIDTH_PRESENTATION = 1360
#: Height of the stage's bar (with its progress bar) at scale 1, the margins of the stage in
#: the main area (left and right, below), and the gap between the bar and the panels.
NAV_HEIGHT = 50
_SIDE, _BOTTOM, _GAP = 18, 14, 8
#: The lesson text's box is wider than its HTML pane by its left border (5 px) and the
#: pane's margins (10 px each side).
_TEXT_FRAME = 25
#: Main-area size used before the browser has reported it (a 1280 x 720 window's).
FALLBACK = (1280, 656)

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
:host(.llrlab-stage) { overflow: hidden; }
:host(.llrlab-text-stack) { flex-flow: column wrap; align-content: flex-start; }
:host(.llrlab-text-stack) .llrlab-lesson-text { order: 1; }
:host(.llrlab-text-stack) .llrlab-below-text { order: 2; }
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
#: A panel's own layouts take their width from their figure and text, never from a minimum
#: width left over from another size.
_ITEM_CSS = (".bk-panel-models-layout-Column, .bk-panel-models-layout-Row "
             "{ min-width: 0 !important; }")


#: The style of the stage bar's widgets: their text at the size of their inline style's
#: ``--llrlab-bar`` (a widget's changed ``stylesheets`` did not always reach the page).
_BAR_CSS = (":host { --bokeh-font-size: var(--llrlab-bar, 18px);"
            " font-size: var(--llrlab-bar, 18px); }"
            " .bk-btn, .bk-input, select, option { font-size: var(--llrlab-bar, 18px)"
            " !important; height: auto; }")


class _FollowsLesson(pn.viewable.Viewer):
    """A part of the stage that shows ``self._layout`` and redraws (``_update``) when the
    lesson, its step or the presentation style changes."""

    state = param.ClassSelector(class_=DashboardState)

    def _follow(self, layout):
        self._layout = layout
        st = self.state
        st.lesson.param.watch(self._update, ["lesson", "step"])
        st.display.param.watch(self._update, ["presentation", "scale"])

    def __panel__(self):
        return self._layout


#: The speaker view's window: opened from the stage's bar, named so that a second press
#: brings the same window back instead of opening another.
_SPEAKER_JS = """
const url = window.location.pathname + '?view=speaker&channel=' + encodeURIComponent(token);
const w = window.open(url, 'llrlab-speaker', 'popup,width=1100,height=760');
if (w != null) { w.focus(); }
"""


#: The lesson's lecture page, led from this page's channel (lecture_routes): every step is
#: in the page, so a key press changes the step at once; the class follows it.
_LECTURE_PAGE_JS = """
const url = 'lecture?channel=' + encodeURIComponent(token);
const w = window.open(url, 'llrlab-lecture');
if (w != null) { w.focus(); }
"""


class StageNav(_FollowsLesson):
    """The bar above the stage: back, the steps (where we are), next, a progress bar, the
    speaker view and the ways out."""

    channel = param.Parameter(default=None, doc="The page's lecture channel (a token for "
                                                "the speaker view's link).")

    def __init__(self, **params):
        super().__init__(**params)
        st = self.state
        self.menu = pn.widgets.Button(name="☰", button_type="light", width=50,
                                      description="The sidebar (the page's menus)")
        self.back = pn.widgets.Button(name="◀ Back", button_type="primary", width=110)
        self.next = pn.widgets.Button(name="Next ▶", button_type="primary", width=110)
        self.where = pn.pane.Markdown("", margin=(4, 12), name="stage_where",
                                      sizing_mode="stretch_width")
        # the lesson's steps by title: the current one shown, any other one chosen
        self.steps = pn.widgets.Select(options={}, width=320, name="", margin=(5, 10),
                                       css_classes=["llrlab-steps"])
        self.progress = pn.pane.HTML("", name="stage_progress", sizing_mode="stretch_width",
                                     margin=(0, 5), height=6)
        token = self.channel.control_token if self.channel is not None else ""
        self.speaker = ScriptButton(name="Speaker view", button_type="light", width=150,
                                    code=_SPEAKER_JS, args={"token": token})
        self.close_lesson = pn.widgets.Button(name="Close lesson", button_type="light",
                                              width=140)
        self.lecture = ScriptButton(
            name="Lecture page", button_type="light", width=150,
            description="This lesson with every step in the page (steps change at once), "
                        "leading the lecture; it gives the class's link",
            code=_LECTURE_PAGE_JS, args={"token": token})
        self.leave = pn.widgets.Button(name="Leave presenter mode", button_type="light",
                                       width=210)
        self.menu.on_click(lambda _e: self.toggle_sidebar())
        self.back.on_click(lambda _e: st.navigate(-1))
        self.next.on_click(lambda _e: st.navigate(1))
        self.steps.param.watch(self._chosen, ["value"])
        self.close_lesson.on_click(lambda _e: st.lesson.close())
        self.leave.on_click(lambda _e: setattr(st.presenter, "enabled", False))
        self.row = pn.Row(self.menu, self.back, self.steps, self.where, self.next, self.speaker,
                          self.lecture, self.close_lesson, self.leave, sizing_mode="stretch_width",
                          styles={"align-items": "center"}, margin=0)
        self._follow(pn.Column(self.row, self.progress, height=NAV_HEIGHT, margin=(0, 0),
                               sizing_mode="stretch_width", name="stage_nav"))
        st.presenter.param.watch(self._update, ["enabled", "views", "current"])
        self._update()

    #: Called by the menu button (set by the main area: it folds and unfolds the sidebar).
    toggle_sidebar = staticmethod(lambda: None)

    def _chosen(self, event):
        st = self.state
        if self._updating or event.new is None or not st.lesson.lesson:
            return
        if int(event.new) != st.lesson.step:
            st.goto_step(int(event.new))

    _updating = False

    def _update(self, *_):
        st = self.state
        lesson = st.lesson.current()
        s = st.display.scale if st.display.presentation else 1.0
        px = st.display.px("bar")
        if lesson is not None:
            k, n = st.lesson.step, len(lesson)
            options = {f"{i} / {n} · {step.title}": i
                       for i, step in enumerate(lesson.steps, 1)}
            self._updating = True
            try:
                if self.steps.options != options:
                    self.steps.options = options
                self.steps.value = k
            finally:
                self._updating = False
            text = f"**{_md(lesson.title)}**"
            self.back.disabled, self.next.disabled = k <= 1, k >= n
            self.next.name = "End ■" if k >= n else "Next ▶"
            done = k / n
        else:
            views, i = st.presenter.views, st.presenter.current
            if views:
                shown = f"view {i + 1} of {len(views)}: {_md(views[i]['name'])}" if i >= 0 \
                    else f"{len(views)} saved views: press ▶ or → to show the first"
                text = f"**Saved views** · {shown}"
                done = (i + 1) / len(views)
            else:
                text = "**Presenter mode** · no saved views (save views in the sidebar)"
                done = 0.0
            self.back.disabled = not views or i <= 0
            self.next.disabled = not views or i >= len(views) - 1
            self.next.name = "Next ▶"
        self.where.object = text
        self.where.styles = {"font-size": f"{px:g}px", "color": "#333333"}
        self.where.visible = lesson is None  # (a lesson's title is in its text's box)
        self.steps.visible = lesson is not None
        self.speaker.visible = lesson is not None and self.channel is not None
        self.lecture.visible = self.speaker.visible
        self.close_lesson.visible = lesson is not None
        self.leave.visible = st.presenter.enabled
        self.progress.object = _progress_html(done, s, lesson is not None and done >= 1.0)
        size = {"--llrlab-bar": f"{px:g}px"}
        for w, width in ((self.menu, 50), (self.back, 110), (self.next, 110), (self.speaker, 150),
                         (self.lecture, 150), (self.close_lesson, 140), (self.leave, 210),
                         (self.steps, 320)):
            if _BAR_CSS not in w.stylesheets:
                w.stylesheets = [*w.stylesheets, _BAR_CSS]
            if w.styles != size:
                w.styles = size
            w.width = round(width * max(px, 18) / 18)
        self._layout.height = round(NAV_HEIGHT * s)
        self._layout.visible = st.staged


def _progress_html(done, scale, end):
    """A thin bar across the stage: the share of the lesson (or views) shown so far; green
    at the end."""
    pct = max(0.0, min(1.0, float(done))) * 100
    color = "#1b7f3b" if end else "#2b4a6f"
    h = max(4, round(5 * scale))
    return (f'<div role="progressbar" aria-valuemin="0" aria-valuemax="100" '
            f'aria-valuenow="{pct:.0f}" style="height:{h}px;background:#e3e6ea;'
            f'border-radius:{h}px;overflow:hidden"><div style="height:100%;width:{pct:.2f}%;'
            f'background:{color};transition:width 0.2s"></div></div>')


def _md(text):
    """User text (a lesson or view name) shown literally in Markdown."""
    return md_text(text, 200)


#: Formulas in a maths font (the page's own font has no maths table: no stretchy brackets),
#: at the text's size; a displayed formula with room above and below for an integral's
#: limits (clipped to its box, they made it scroll by a few pixels).
_LESSON_TEXT_CSS = MATH_CSS


def _text_css(display):
    """The lesson text's type at the current style, in pixels (the same on a fresh page, a
    link and after a step): the text, the step's title a little larger."""
    return text_css(display.px("text"), display.px("heading"))


class LessonText(_FollowsLesson):
    """The open lesson step's text, beside or above the stage's panels: its Markdown and
    formulas rendered on the server (:func:`~llrlab.dashboard.lesson_text.render_html`: raw
    HTML shown as text, formulas as MathML at the text's size), in an HTML pane, which runs
    no MathJax over it."""

    def __init__(self, **params):
        super().__init__(**params)
        self.heights = TextHeights()
        self.text = pn.pane.HTML("", name="lesson_text", sizing_mode="stretch_width",
                                 margin=(0, 10),
                                 stylesheets=[_LESSON_TEXT_CSS, TEXT_VARS_CSS])
        self._follow(pn.Column(self.text, css_classes=["llrlab-lesson-text"], width=360,
                               name="lesson_panel",
                               styles={"background": "#f7f3f6", "border-radius": "6px",
                                       "border-left": "5px solid #CC79A7",
                                       "overflow": "hidden"}))
        self._update()

    def step_html(self, k):
        """The HTML of the open lesson's step ``k`` as its box shows it: the lesson's title
        and the step's number, the step's title, its text (Markdown and formulas rendered on
        the server; raw HTML shown as text)."""
        lesson = self.state.lesson.current()
        step = lesson.step(k)
        return (f"<p><em>{html_text(lesson.title, 200)} · step {k} of {len(lesson)}</em></p>"
                f"\n<h3>{html_text(step.title, 200)}</h3>\n{render_html(step.text)}")

    def _update(self, *_):
        st = self.state
        step = st.lesson.current_step()
        if step is None:
            self.text.object = ""
            self._layout.visible = False
            return
        self.text.object = self.step_html(st.lesson.step)
        sizes = text_vars(st.display.px("text"), st.display.px("heading"))
        if self.text.styles != sizes:
            self.text.styles = sizes
        self._layout.visible = True

    #: What the browser measured (:class:`~.text_probe.TextHeights`): the heights of the
    #: steps' text at the pane's widths, at each text size.
    heights: TextHeights

    def key(self, k=None):
        """The key of step ``k`` (default: the current one) in :attr:`heights`."""
        st = self.state
        return (st.lesson.lesson, st.lesson.step if k is None else k, st.display.px("text"))

    def box_height(self, width):
        """Height in pixels the step's box needs at ``width``: what the browser measured when
        it drew this step's text at this width (:mod:`.text_probe`: the page measures every
        step at the widths the stage weighs before it is shown), else the estimate (see
        :func:`.stage_geometry.lesson_text_height`), corrected by how far off it was where
        the text was measured (formulas and fonts make estimates uncertain)."""
        st = self.state
        lesson, step = st.lesson.current(), st.lesson.current_step()
        if step is None:
            return 0
        caption = f"{lesson.title} · step {st.lesson.step} of {len(lesson)}"

        def estimate(w):
            return lesson_text_height(step.title, caption, step.text, w,
                                      text_px=st.display.px("text"),
                                      heading_px=st.display.px("heading"))

        seen = self.heights.get(self.key())
        if not seen:
            return estimate(width)
        # the pane's width as drawn is the box's less its border and margins
        w0 = min(seen, key=lambda w: abs(w + _TEXT_FRAME - width))
        if abs(w0 + _TEXT_FRAME - width) <= 6:
            return int(seen[w0] + 16)
        # at another width: the estimate, corrected by how far off it was where measured
        # (formulas, scripts and long words make it err by about the same factor)
        ratio = (seen[w0] + 16) / max(estimate(w0 + _TEXT_FRAME), 1)
        return math.ceil(estimate(width) * min(max(ratio, 0.6), 1.5))

    def record(self, width, height):
        """The browser drew the current step's text ``width`` px wide and it needed
        ``height`` px; True when that differs from what the layout assumed.  A measurement
        of a pane narrower or wider than the box the stage gave it now (the page measured
        while an older layout was shown) is not one of this layout's: it is dropped."""
        if abs(int(width) + _TEXT_FRAME - self.allotted[0]) > 3:
            return False
        return self.heights.record(self.key(), width, height)

    #: The box the stage gave the text (width, height; zero: none yet).
    allotted = (0, 0)

    def resize(self, width, height):
        self.allotted = (int(width), int(height))
        self._layout.param.update(width=int(width), height=int(height))


class MainArea(pn.viewable.Viewer):
    """The "Operating point" tab's panels, on a screen or on a stage (module docstring)."""

    state = param.ClassSelector(class_=DashboardState)
    views = param.Dict(default={}, doc="""
        Panel name -> view (each with ``resize(width, height)``): those made so far.""")
    makers = param.Dict(default={}, doc="""
        Panel name -> a function that makes its view.  A lazy area makes a panel's view
        when the view is first needed (:meth:`view`: the panel shown on a stage, put in the
        page, or sent by :meth:`attach_next`); an area that is not lazy makes them all at
        once.""")
    page = param.ClassSelector(class_=PageControl)
    tabs = param.Parameter(default=None, doc="The page's tabs (hidden on a stage).")
    lazy = param.Boolean(default=False, constant=True, doc="""
        Send a panel to the page only when it is first shown, or when :meth:`attach_next`
        is called (served pages: see :meth:`sent`); False: every panel from the start.""")

    def __init__(self, **params):
        super().__init__(**params)
        # a lazy area holds its panels' views only from when they are first shown after
        # the page's body is sent (sent()): a lesson's link opens with the step's panels
        # alone (the others' ~300 models follow, attach_next)
        # (a lesson's link also makes only the views its step shows, before the page's
        # first response: the others, ~0.1-0.25 s each, follow with attach_next)
        self._sent = not self.lazy
        names = [*self.views, *(name for name in self.makers if name not in self.views)]
        if not self.lazy:
            for name in names:
                self.view(name)
        self.items = {name: self._item(name, self.views.get(name), attached=not self.lazy)
                      for name in names}
        self.lesson_text = LessonText(state=self.state)
        self.probe = TextProbe(self.lesson_text.heights)
        self.row = pn.Row(*self.items.values(), self.lesson_text, stylesheets=[_ROW_CSS],
                          sizing_mode="stretch_width", name="panels")
        # the lecture: the speaker view (and pages that follow) join the page's channel
        self.channel = open_channel()
        doc = pn.state.curdoc
        self._member = self.channel.join(
            self._follow_channel, doc if doc is not None and doc.session_context else None,
            name="audience")
        self.nav = StageNav(state=self.state, channel=self.channel)
        self.nav.toggle_sidebar = lambda: setattr(self.page, "collapsed",
                                                  not self.page.collapsed)
        self._layout = pn.Column(self.nav, self.row, sizing_mode="stretch_width",
                                 stylesheets=[SHRINK_CSS])
        st = self.state
        self._sized = None
        st.presenter.param.watch(self._relayout, ["enabled", "panels", "highlight"])
        st.lesson.param.watch(self._relayout, ["lesson", "step"])
        st.lesson.param.watch(self._collapse, ["lesson"])
        st.lesson.param.watch(self._publish, ["lesson", "step"])
        self.page.param.watch(self._key, ["presses"])
        st.status.param.watch(self._shown, ["busy"])
        st.param.watch(self._shown, ["coming"])
        self.page.param.watch(self._blackout, ["blackout"])
        self.page.param.watch(lambda e: None if e.new else self._follow_channel(
            self.channel.position), ["hidden"])
        st.presenter.param.watch(self._collapse, ["enabled"])
        st.presenter.param.watch(self._at_end, ["enabled", "views", "current"])
        st.lesson.param.watch(self._at_end, ["lesson", "step"])
        st.display.param.watch(self._collapse, ["presentation"])
        st.display.param.watch(self._relayout, ["presentation"])
        self.page.param.watch(self._measured, ["main_width", "main_height", "stage_top"])
        self.page.param.watch(self._text_drawn, ["text_need"])
        self.page.param.watch(self._text_sized, ["text_sizes"])
        self._collapse()
        self._at_end()
        self._publish()
        self._relayout()

    def __panel__(self):
        return self._layout

    @staticmethod
    def _item(name, view, attached=True):
        # (the view's own column keeps the minimum width Panel computed from its children's
        # widths at some earlier size, which held a panel wider than the stage gave it)
        return pn.Column(*([view] if attached else []),
                         css_classes=["llrlab-panel", f"llrlab-{name}"],
                         sizing_mode="stretch_width", name=f"panel_{name}",
                         stylesheets=[_ITEM_CSS])

    def view(self, name):
        """The view of panel ``name``, made now if it is not yet.  (A view is made before
        it is laid out: for the stage's plan, which asks the shown views for their least
        room, or for the page, which shows them all; one made by :meth:`attach_next` for
        a panel not shown gets its size when a layout shows it.)"""
        view = self.views.get(name)
        if view is None:
            view = (self.makers[name] if name in self.makers else self._stage_maker(name))()
            self.views = {**self.views, name: view}
        return view

    def _stage_maker(self, name):
        """The maker of a stage-only view (:data:`~llrlab.dashboard.state.presenter.STAGE_ONLY`,
        the forensic plots, shown only on a stage): their modules imported when first
        shown."""
        from .views.ece import ECEView
        from .views.reliability import ReliabilityView
        from .views.tippett import TippettView

        kind = {"tippett": TippettView, "reliability": ReliabilityView, "ece": ECEView}[name]
        return lambda: kind(state=self.state)

    def _attach(self, names):
        """Put the views of ``names`` in their panels (those not there yet)."""
        for name in names:
            item = self.items[name]
            if not item.objects:
                item.objects = [self.view(name)]

    def _shown_items(self):
        return [name for name, item in self.items.items() if item.visible]

    def sent(self):
        """The page's body is about to be sent: from now on a panel's view is put in the
        page when the panel is first shown (before: the panels shown now are put in)."""
        self._sent = True
        self._attach(self._shown_items())

    def make_next(self):
        """Make the view of the first panel whose view is not made yet, without putting it
        in the page; True while others remain."""
        rest = [name for name in self.items if name not in self.views]
        if rest:
            self.view(rest[0])
        return len(rest) > 1

    def attach_next(self):
        """Put the view of the first panel not in the page in it (a lazy area's panels not
        shown yet: later steps then change only what they show); True while others
        remain."""
        self._sent = True
        rest = [name for name, item in self.items.items() if not item.objects]
        self._attach(rest[:1])
        return len(rest) > 1

    @property
    def attached(self):
        """The names of the panels whose views are in the page."""
        return [name for name, item in self.items.items() if item.objects]

    def _stage_views(self, shown):
        """Make the stage-only views (:data:`~llrlab.dashboard.state.presenter.STAGE_ONLY`:
        the forensic plots) among ``shown`` that are not made yet (by :meth:`view`), before
        the lesson's text; each computes only while shown."""
        for name in shown:
            if name in STAGE_ONLY and name not in self.items:
                self.items[name] = self._item(name, self.view(name), attached=False)
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

    # ------------------------------------------------------------------ keys, lecture

    def _key(self, event):
        """The lecturer's keys in the page (see :mod:`.page_control`): through the lesson,
        or the saved views in presenter mode, one move per press in the order pressed."""
        if not self.state.staged:
            self._shown()
            return
        for token in self.page.moves(event):
            self._move(token)
        self._shown()

    def _shown(self, *_):
        """Tell the page that the steps of its key presses are shown (when no computation
        is left): the page's "Next step coming" goes."""
        st = self.state
        if not st.status.busy and not st.coming and self.page.done != self.page.presses:
            self.page.done = self.page.presses

    def _move(self, token):
        st = self.state
        lesson = st.lesson.current()
        n = len(lesson) if lesson is not None else len(st.presenter.views)
        if token == "f":
            st.navigate(1)
        elif token == "b":
            st.navigate(-1)
        elif n and (token in ("h", "e") or (token[:1] == "g" and token[1:].isdigit())):
            k = 1 if token == "h" else n if token == "e" else int(token[1:])
            k = max(1, min(n, k))
            if lesson is not None:
                st.goto_step(k)
            else:
                st.show_view(k - 1)

    def _at_end(self, *_):
        """Tell the page whether the last step is shown (its end signal), on the next tick:
        a change of the page's script made while Panel applies that script's own event (a
        key press) is not sent back to the browser."""
        doc = pn.state.curdoc
        if doc is not None and doc.session_context is not None:
            def later():
                with set_curdoc(doc):
                    self._set_at_end()

            doc.add_next_tick_callback(later)
        else:
            self._set_at_end()

    def _set_at_end(self):
        st = self.state
        lesson = st.lesson.current()
        if lesson is not None:
            end, text = st.lesson.step >= len(lesson), "End of the lesson"
        else:
            views = st.presenter.views
            end, text = bool(views) and st.presenter.current >= len(views) - 1, \
                "Last saved view"
        self.page.param.update(staged=st.staged, at_end=end, end_text=text)

    def _publish(self, *_):
        """The page's step, for the speaker view (and the pages that follow it)."""
        lesson = self.state.lesson
        self.channel.publish(lesson.lesson, lesson.step, origin=self._member)

    def _blackout(self, *_):
        self.channel.set_blackout(self.page.blackout, origin=self._member)

    def _follow_channel(self, position):
        """The speaker view (or the lecture page) moved: show its step (and its black
        screen).  A page nobody sees (the lecturer presents from the lecture page in another
        tab) follows when it is seen again: a step here costs the server 0.1-0.3 s of work
        that would delay the class's pages, for a page nobody looks at."""
        if self.page.hidden:
            return
        lesson = self.state.lesson
        if position.lesson and position.lesson == lesson.lesson:
            self.state.goto_step(position.step)  # (complete, in one update)
        elif position.lesson and position.lesson in lesson.library:
            lesson.open(position.lesson, position.step)
        if self.page.blackout != position.blackout:
            self.page.blackout = position.blackout

    # ------------------------------------------------------------------ layout

    def _measured(self, *_):
        """The browser reported the main area's size: lay out on the next tick (model changes
        made while Panel applies the browser's own event were not all sent back)."""
        doc = pn.state.curdoc
        if doc is not None and doc.session_context is not None:
            doc.add_next_tick_callback(self._relayout)
        else:
            self._relayout()

    def _text_drawn(self, *_):
        """The browser drew the lesson's text: lay out again if it needs another height
        than the layout gave it (the estimate was off)."""
        w, h = [*self.page.text_need, 0, 0][:2]
        if w > 0 and h > 0 and self.state.lesson.lesson and self.lesson_text.record(w, h):
            self._sized = None
            self._measured()

    def _text_sized(self, *_):
        """The page measured a step's text at the widths the stage weighs (see
        :mod:`.text_probe`): lay out again if it is the step shown and it needs another
        height than the layout gave it."""
        if self.lesson_text.key() in self.probe.take(self.page.text_sizes):
            self._sized = None
            self._measured()

    def _ask_heights(self, room_w, scale):
        """Send the page every step's text and the widths the stage weighs in a row
        ``room_w`` px wide, once per lesson, type size and window (see :mod:`.text_probe`)."""
        st = self.state
        lesson = st.lesson.current()
        columns, band = text_widths(room_w, scale)
        probe = self.probe.ask(
            st.lesson.lesson, st.display.px("text"),
            [w - _TEXT_FRAME for w in (*columns, band)],
            [self.lesson_text.step_html(k) for k in range(1, len(lesson) + 1)],
            st.lesson.step, css=[_LESSON_TEXT_CSS, _text_css(st.display)])
        if probe is not None:
            self.page.text_probe = probe

    def _collapse(self, *_):
        """The sidebar folds in presentation style and on a stage (presenter mode, an open
        lesson: the plots and the step's text take the whole screen; the menu button
        unfolds it)."""
        self.page.collapsed = bool(self.state.display.presentation or self.state.staged)

    def _size(self):
        w, h = self.page.main_width, self.page.main_height
        return (w, h) if w > 0 and h > 0 else FALLBACK

    def _room_width(self):
        """The width of the stage's row: the main area less the stage's margins."""
        return self._size()[0] - 2 * _SIDE

    def stage_scale(self):
        """The stage's scale in the current main area (1 without the presentation style)."""
        return stage_scale(*self._size()) if self.state.display.presentation else 1.0

    def stage_plan(self):
        """The stage's arrangement in the current main area (a
        :class:`~.stage_geometry.StagePlan`) and its scale.  The text's heights are those
        at the display's type size: set ``display.scale`` to :meth:`stage_scale` first."""
        st = self.state
        shown = st.presenter.shown_panels()
        height = self._size()[1]
        scale = self.stage_scale()
        gap = round(_GAP * scale)
        room_w = self._room_width()
        room_h = (height - max(0, self.page.stage_top) - round(NAV_HEIGHT * scale) - gap
                  - _BOTTOM)
        mins = {}
        for name in shown:
            need = getattr(self.view(name), "stage_min", None)
            if need is not None:
                mins[name] = need(scale)
        text = None
        if st.lesson.current_step() is not None:
            text = self.lesson_text.box_height
        shares = {}
        if "metrics" in shown:
            view = self.view("metrics")
            shares["metrics"] = lambda width: view.stage_least(scale, width)
        return plan_stage(room_w, room_h, shown, mins=mins, scale=scale,
                          text_height_at=text, shares=shares), scale

    def _room_height(self, plan):
        """The height of the stage's row (that of its tallest panel)."""
        return max([h for _, h in plan.panels.values()] + [0])

    def _relayout(self, *_):
        """Lay out the main area: once at the end of a held change of the state (a lesson
        step changes the lesson's step, the panels and the highlights: each called for
        it), before the views' own updates deferred there, else now."""
        self.state.when_settled(self._lay_out, first=True)

    def _lay_out(self):
        st = self.state
        staged = st.staged
        lit = set(st.presenter.highlight or ())
        # no pn.io.hold() here: under Bokeh's 'combine' hold the figures' new heights were
        # dropped (the browser kept the fallback height while the server had the new one)
        below = None
        with contextlib.nullcontext():
            if staged:
                self._stage_views(st.presenter.shown_panels())
                scale = self.stage_scale()
                if st.display.scale != scale:
                    st.display.scale = scale  # (the text's type size: before the plan)
                plan, _ = self.stage_plan()
                if st.lesson.current_step() is not None:
                    self._ask_heights(self._room_width(), scale)
                key = ("stage", tuple(sorted(plan.panels.items())), plan.text, scale,
                       plan.below_text)
                self.row.css_classes = ["llrlab-stage"] + (
                    ["llrlab-text-above"] if plan.above else
                    ["llrlab-text-stack"] if plan.below_text else [])
                self.row.styles = {"gap": f"{round(_GAP * scale)}px"}
                below = plan.below_text
                if below:  # (columns that wrap: the row's height is definite)
                    self.row.styles = {**self.row.styles,
                                       "height": f"{self._room_height(plan)}px"}
                if self.tabs is not None:
                    self.tabs.css_classes = ["llrlab-stage"]
                    self.tabs.active = 0
                for name, item in self.items.items():
                    item.visible = name in plan.panels
                if key != self._sized:
                    for name, (w, hh) in plan.panels.items():
                        self.view(name).resize(w, hh)
                if plan.text is not None:
                    self.lesson_text.resize(*plan.text)
            else:
                if st.display.scale != 1.0:
                    st.display.scale = 1.0
                width = self._size()[0] - 36
                pair = width >= (PAIR_MIN_WIDTH_PRESENTATION if st.display.presentation
                                 else PAIR_MIN_WIDTH)
                wide, narrow = (int(0.6 * width), int(0.4 * width)) if pair else (width, width)
                widths = {"nber": wide, "metrics": wide, "det": narrow,
                          "calibration": narrow, "histogram": width}
                key = ("page", width, pair)
                self.row.css_classes = ["llrlab-big"] if st.display.presentation else []
                self.row.styles = {}
                if self.tabs is not None:
                    self.tabs.css_classes = []
                self._stage_views(())
                for name, item in self.items.items():
                    item.visible = name not in STAGE_ONLY
                if key != self._sized:
                    for name in self.items:
                        if name not in STAGE_ONLY:  # (the page shows every panel)
                            self.view(name).resize(widths.get(name, width), None)
            self._sized = key
            if self._sent:
                self._attach(self._shown_items())
            for name, item in self.items.items():
                cls = ["llrlab-panel", f"llrlab-{name}"] + (["llrlab-lit"] if name in lit
                                                             and staged else [])
                if name == below:
                    cls.append("llrlab-below-text")
                if item.css_classes != cls:
                    item.css_classes = cls
