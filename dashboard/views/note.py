"""A note below a figure (a line or two of grey text): :class:`FigureNote`.

On a page the note stretches with its figure at the page's small type.  On a stage
(presenter mode, a lesson) its text is at the presentation style's running-text size
(``DisplayState.px("text")``, 18 px at scale 1), and the panel's box holds the figure and
the note: the note gets the height its text needs at that width (estimated with
:func:`~llrlab.dashboard.text_fit.text_height`, which errs on the side of room) and the
figure the rest, so that nothing is cut off and nothing scrolls.  The stage's layout asks
for that height before it sizes the panels (the view's ``stage_min``).
"""

from __future__ import annotations

import panel as pn

from ..state.display import TYPE_SCALE
from ..text_fit import text_height

__all__ = ["FigureNote"]

#: The colour of a note's text (7.5:1 on white).
NOTE_COLOR = "#555555"
#: The note's font size on a page, relative to the page's.
SCREEN_SIZE = "90%"


class FigureNote:
    """A Markdown pane ``pane`` below a figure, in the style of ``display`` (a
    :class:`~llrlab.dashboard.state.display.DisplayState`)."""

    def __init__(self, name, display, *, visible=True):
        self.display = display
        self.pane = pn.pane.Markdown("", name=name, margin=(0, 10), visible=visible,
                                     styles={"color": NOTE_COLOR, "font-size": SCREEN_SIZE},
                                     stylesheets=["p { margin: 0; }"])

    @property
    def text(self):
        """The text shown ('' when the note is hidden)."""
        return self.pane.object if self.pane.visible else ""

    def height(self, width, px=None):
        """Height in pixels of the note in a panel ``width`` px wide, its text ``px``
        pixels high (default: the display's running-text size); 0 without text or without
        a width."""
        text = self.text
        if not text or width is None:
            return 0
        px = self.display.px("text") if px is None else px
        return text_height(text, px, max(int(width) - 40, 100)) + 8

    def stage_height(self, width, scale):
        """:meth:`height` on a stage of that ``scale`` (the layout plans a stage before the
        display takes its scale)."""
        screen, big = TYPE_SCALE["text"]
        return self.height(width, round(big * scale, 1) if self.display.presentation
                           else screen)

    def fit(self, width=None, height=None):
        """Across the page (``height`` None), or fixed at ``width`` less the margins and
        ``height`` (0: as high as its text)."""
        if height is None:
            self.pane.param.update(sizing_mode="stretch_width", width=None, height=None)
        else:
            self.pane.param.update(sizing_mode="fixed", width=max(int(width), 200) - 20,
                                   height=height or None)

    def style(self):
        """The type size of the display's style."""
        d = self.display
        size = d.font("text") if d.presentation else SCREEN_SIZE
        if self.pane.styles.get("font-size") != size:
            self.pane.styles = {"color": NOTE_COLOR, "font-size": size}
