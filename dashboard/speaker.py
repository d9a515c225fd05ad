"""The speaker view: a second window beside the projected page, for the lecturer only.

It shows the current step of the lesson (its number and title), the step's speaker notes
(the lesson file's ``notes``, never shown to the audience), the next step's title, the time
of day and the time since the view was opened.  It follows the audience's page and steers
it: a step taken in either window is taken in the other (through the page's lecture channel,
:mod:`.lecture_channel`).  Its keys are the stage's (Page Down, →, Space, Home, End, a number
and Enter; B or . blacks out the audience's screen, not this one).

The audience's page opens it ("Speaker view" in the stage's bar) at
``?view=speaker&channel=TOKEN``; the token is the channel's control token, a long random
string.  A view whose page was closed or reloaded says so in one line.
"""

from __future__ import annotations

import html

import panel as pn
import param
from panel.reactive import ReactiveHTML

from .lecture_channel import find
from .lecture_routes import class_link
from .page_control import PageControl
from .safe import md_text

__all__ = ["Clock", "SpeakerView", "speaker_page"]

#: Type sizes of the speaker view (pixels): the step's title, the notes, the rest.
_TITLE_PX, _NOTES_PX, _TEXT_PX = 30, 24, 20


class Clock(ReactiveHTML):
    """The time of day and the time since the view opened (or since Reset), ticking in the
    browser (nothing is sent to the server)."""

    _template = """
      <div id="clock" style="display:flex;gap:1.2em;align-items:baseline;font-size:28px;
                             font-variant-numeric:tabular-nums">
        <span id="now" aria-label="time of day"></span>
        <span id="elapsed" aria-label="time since the start" style="color:#555"></span>
        <button id="reset" type="button" onclick="${script('reset')}"
                style="font-size:18px">Reset</button>
      </div>"""
    _scripts = {  # noqa: RUF012 (Panel's class attribute)
        "render": """
          state.start = Date.now();
          const pad = (n) => String(n).padStart(2, '0');
          state.tick = () => {
            const d = new Date();
            now.textContent = pad(d.getHours()) + ':' + pad(d.getMinutes());
            const s = Math.floor((Date.now() - state.start) / 1000);
            elapsed.textContent = pad(Math.floor(s / 60)) + ':' + pad(s % 60) + ' elapsed';
          };
          state.tick();
          state.timer = setInterval(state.tick, 1000);
        """,
        "reset": "state.start = Date.now(); state.tick();",
        "remove": "clearInterval(state.timer);",
    }


class SpeakerView(pn.viewable.Viewer):
    """The speaker view of a lecture channel (see the module docstring)."""

    library = param.Dict(doc="id -> Lesson: the lessons the server offers.")
    channel = param.Parameter(doc="The lecture channel (a LectureChannel).")

    def __init__(self, **params):
        super().__init__(**params)
        text = {"font-size": f"{_TEXT_PX}px"}
        self.lesson_title = pn.pane.Markdown("", name="speaker_lesson", styles=text)
        self.step_title = pn.pane.Markdown("", name="speaker_step",
                                           styles={"font-size": f"{_TITLE_PX}px"})
        self.notes = pn.pane.Markdown("", name="speaker_notes", disable_math=True,
                                      renderer_options={"html": False},
                                      sizing_mode="stretch_width",
                                      styles={"font-size": f"{_NOTES_PX}px",
                                              "line-height": "1.45",
                                              "background": "#fffbe6",
                                              "border-left": "6px solid #c9a400",
                                              "padding": "0 12px"})
        self.upcoming = pn.pane.Markdown("", name="speaker_next", styles=text)
        self.audience = pn.pane.Markdown("", name="speaker_audience", styles=text)
        self.links = pn.pane.HTML(self._links_html(), name="speaker_links", styles=text)
        self.back = pn.widgets.Button(name="◀ Back", button_type="primary", width=120)
        self.next = pn.widgets.Button(name="Next ▶", button_type="primary", width=120)
        self.black = pn.widgets.Toggle(name="Black screen (B)", button_type="light",
                                       width=200)
        self.page = PageControl(staged=True, cover=False, name="speaker_keys")
        self.clock = Clock(name="speaker_clock", width=420, height=50)
        css = [f".bk-btn {{ font-size: {_TEXT_PX}px; }}"]
        for w in (self.back, self.next, self.black):
            w.stylesheets = css
        self.back.on_click(lambda _e: self.move("b"))
        self.next.on_click(lambda _e: self.move("f"))
        self.black.param.watch(self._black, ["value"])
        self.page.param.watch(self._keys, ["presses"])
        self.page.param.watch(self._black_key, ["blackout"])
        doc = pn.state.curdoc
        self.member = self.channel.join(
            self._show, doc if doc is not None and doc.session_context else None,
            name="speaker")
        self._layout = pn.Column(
            self.page,
            pn.Row(self.back, self.next, self.black, pn.Spacer(), self.clock,
                   sizing_mode="stretch_width", styles={"align-items": "center"}),
            self.lesson_title, self.step_title, self.notes, self.upcoming, self.audience,
            self.links, sizing_mode="stretch_width", name="speaker_view")
        self._show(self.channel.position)

    def __panel__(self):
        return self._layout

    def _links_html(self):
        """The class's link (students' pages follow the lecture) and the lecture page (the
        lecturer presents from it: every step is in the page)."""
        follow = html.escape(class_link(self.channel.follow_token), quote=True)
        lead = html.escape(class_link(self.channel.control_token), quote=True)
        return (f'<p>For the class: <a href="{follow}" target="_blank" rel="noopener '
                f'noreferrer">the class\'s link</a> (their pages follow this lecture; copy '
                f'it from the address bar of the page it opens) · <a href="{lead}" '
                f'target="llrlab-lecture" rel="noopener noreferrer">the lecture page</a> '
                f'(present from it: every step is in the page, so steps change at once)</p>')

    def _lesson(self, position):
        return self.library.get(position.lesson) if position.lesson else None

    def _show(self, position):
        """Show the audience's position (the channel's newest)."""
        lesson = self._lesson(position)
        self.black.value = position.blackout
        self.page.blackout = position.blackout
        self.audience.object = ("**The audience's screen is black** (B or . brings it "
                                "back)." if position.blackout else "")
        if lesson is None:
            self.lesson_title.object = "No lesson is open in the audience's page."
            self.step_title.object = self.notes.object = self.upcoming.object = ""
            self.back.disabled = self.next.disabled = True
            self.page.at_end = False
            return
        k, n = max(1, min(len(lesson), position.step)), len(lesson)
        step = lesson.step(k)
        self.lesson_title.object = f"*{md_text(lesson.title, 200)}* · step {k} of {n}"
        self.step_title.object = f"**{md_text(step.title, 200)}**"
        self.notes.object = step.notes or "*(no notes for this step)*"
        self.upcoming.object = (f"Next: **{md_text(lesson.step(k + 1).title, 200)}**"
                                if k < n else "**This is the last step.**")
        self.back.disabled, self.next.disabled = k <= 1, k >= n
        self.page.at_end = k >= n

    def move(self, token):
        """Take a step (a PageControl token) in the lecture: the audience follows."""
        pos = self.channel.position
        lesson = self._lesson(pos)
        if lesson is None:
            return
        n = len(lesson)
        k = {"f": pos.step + 1, "b": pos.step - 1, "h": 1, "e": n}.get(token)
        if k is None and token[:1] == "g" and token[1:].isdigit():
            k = int(token[1:])
        if k is None:
            return
        self.channel.publish(pos.lesson, max(1, min(n, k)), origin=self.member)
        self._show(self.channel.position)

    def _keys(self, event):
        for token in self.page.moves(event):
            self.move(token)

    def _black(self, event):
        if event.new != self.channel.position.blackout:
            self.channel.set_blackout(event.new, origin=self.member)
            self._show(self.channel.position)

    def _black_key(self, event):
        self.black.value = event.new


def speaker_page(token, library):
    """The speaker view's page for the channel ``token`` (a BootstrapTemplate)."""
    template = pn.template.BootstrapTemplate(
        title="llrlab · speaker view", header_background="#4a4a4a", busy_indicator=None)
    found = find(token)
    if found is None or not found[1]:
        template.main.append(pn.pane.Alert(
            "This speaker view's lecture is not open any more (its page was closed or "
            "reloaded): open the speaker view again from the lecture's page "
            "(\"Speaker view\" in the bar above the plots).", alert_type="warning",
            name="speaker_missing"))
        return template
    channel, _ = found
    view = SpeakerView(library=dict(library), channel=channel)
    template.main.append(view)
    template.speaker = view  # for tests
    return template
