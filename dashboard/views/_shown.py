"""Views that compute only while they are shown (e.g. in a tab that is not open)."""

from __future__ import annotations

import functools

import panel as pn
import param
from bokeh.models import Legend

from ..state import DashboardState
from ._common import Styler, fit_figure, isolated, stage_min
from .note import FigureNote

__all__ = ["RoleCurvesView", "UnitCurvesView", "when_shown"]

_NO_MIN_WIDTH = ":host { min-width: 0 !important; }"


def when_shown(method):
    """Run a view's update only while the view is shown (its ``active`` parameter); when it
    is hidden, remember that it is stale (``_stale``), to refresh it when shown again."""

    @functools.wraps(method)
    def run(self, *args, **kwargs):
        if not self.active:
            self._stale = True
            return None
        return method(self, *args, **kwargs)

    return run


class RoleCurvesView(pn.viewable.Viewer):
    """A view of one curve per shown set ("eval", "dev") that is computed only while the view
    is shown, once per result (then only redrawn).

    Subclasses give ``_curve(llr)`` (the set's curve, kept in ``self._per_role``) and
    ``_redraw()`` (draw the kept curves); they build their figure in ``__init__``, with
    ``renderers`` (``{(role, kind): renderer}``, for :meth:`_on_options`), and call
    :meth:`_finish` last with its legend's items and its reference lines.  A view whose
    :attr:`NOTE` names a note has one below its figure (``note``, a Markdown pane).

    The look is that of the other plots: a :class:`Styler` in the display's style and
    scale (presentation style: 18 px type, lines at least 2.5 px), the legend below the plot
    (or on its right on a short, wide stage), and on a stage the room the figure, its legend
    and its note need (:meth:`stage_min`, :meth:`resize`)."""

    state = param.ClassSelector(class_=DashboardState)
    active = param.Boolean(default=True, doc="""
        Compute and draw; False while the view is hidden (it is refreshed when shown).""")

    #: The sets drawn, in this order.
    ROLES = ("eval", "dev")
    #: Height of the plot on a page.
    HEIGHT = 400
    #: Most columns of the legend below the plot.
    LEGEND_COLS = 2
    #: Name of the note below the figure (None: no note).
    NOTE = None

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        missing = [m for m in ("_curve", "_redraw") if not callable(getattr(cls, m, None))]
        if missing and not cls.__dict__.get("_BASE", False):
            raise TypeError(f"{cls.__name__} must define {' and '.join(missing)} "
                            "(see RoleCurvesView)")

    def __init__(self, **params):
        super().__init__(**params)
        self._per_role = {}  # role -> the curve of the shown results' set
        self._shown = None   # the results whose curves are kept
        self._stale = False
        self._size = (None, None)  # the stage's panel (width, height), or the page's width
        self._note = None if self.NOTE is None else FigureNote(self.NOTE, self.state.display)
        self.note = None if self._note is None else self._note.pane

    def _finish(self, fig, items, lines=()):
        """Complete the view: ``fig`` (kept as ``figure``) with the legend of ``items``
        below it and its styler (``lines``: the ``(model, width, dash)`` of its reference
        lines, see :meth:`Styler.add_line`), the layout (the figure, then the note), the
        first drawing."""
        self.figure = fig
        self.legend = Legend(items=items, click_policy="hide", ncols=self.LEGEND_COLS,
                             label_text_font_size="9pt", spacing=0, padding=4, margin=4,
                             border_line_alpha=0, name=f"{fig.name}_legend")
        fig.add_layout(self.legend, "below")
        self.styler = Styler(fig, legend_cols=self.LEGEND_COLS, display=self.state.display)
        self.styler.capture()
        for model, width, dash in lines:
            self.styler.add_line(model, width, dash)
        plot = pn.pane.Bokeh(fig, sizing_mode="stretch_width")
        # (Panel keeps the minimum width of a column at its widest child's width when it was
        # drawn: a figure made narrower on a stage would leave the column wide)
        self._layout = pn.Column(plot, self.note, sizing_mode="stretch_width",
                                 stylesheets=[_NO_MIN_WIDTH]) if self.note is not None else plot
        self._on_results()

    def __panel__(self):
        return self._layout

    def curves(self, role):
        """The curve kept for ``role`` (None: that set is not shown)."""
        return self._per_role.get(role)

    @param.depends("state.display.show_dev", "state.display.presentation", "state.display.svg",
                   watch=True)
    @isolated
    @when_shown
    def _on_options(self):
        """Each set's renderers shown when the set is drawn (eval always, dev with
        ``show_dev``), the legend's entries of what is drawn, the page's style."""
        d = self.state.display
        with pn.io.hold():
            for (role, _), r in self.renderers.items():
                r.visible = role in self._per_role and (role == "eval" or d.show_dev)
            self._style()

    def _style(self):
        """The legend's entries of what is drawn, the display's style (the figure's, the
        note's)."""
        d = self.state.display
        for item in self.legend.items:
            item.visible = any(r.visible for r in item.renderers)
        self.styler.apply(d.presentation, d.svg)
        if self._note is not None:
            self._note.style()

    def stage_min(self, scale=1.0):
        """The least room on a stage (see ``_common.stage_min``): the figure's, with its
        note at that width."""
        w, h = stage_min(self.legend, scale)
        return w, h + (0 if self._note is None else self._note.stage_height(w, scale))

    def resize(self, width=None, height=None):
        """A fixed size on a stage (the figure and the note below it within ``width`` x
        ``height``), or the page's width (see ``fit_figure``)."""
        self._size = (width, height)
        self._fit()
        self._on_options()

    def _fit(self):
        """The figure and the note in the panel's size: on a stage, the note as high as its
        text and the figure the rest."""
        width, height = self._size
        note_h = 0 if self._note is None or height is None else self._note.height(width)
        fit_figure(self.figure, self.styler, width,
                   None if height is None else height - note_h, default_height=self.HEIGHT)
        if self._note is not None:
            self._note.fit(width, None if height is None else note_h)

    def _set_note(self, text):
        """Show ``text`` below the figure; on a stage, the figure makes room for it."""
        if self._note is None or self.note.object == text:
            return
        self.note.object = text
        if self._size[1] is not None:
            self._fit()

    @param.depends("active", watch=True)
    @isolated
    def _on_active(self):
        if self.active and self._stale:
            self._stale = False
            self._on_results()

    @param.depends("state.results", watch=True)
    @isolated
    @when_shown
    def _on_results(self):
        res = self.state.results
        if res is not self._shown:
            self._shown = res
            ds = {} if res is None else res.datasets
            self._per_role = {role: self._curve(ds[role].llr)
                              for role in self.ROLES if role in ds}
        self._redraw()


class UnitCurvesView(RoleCurvesView):
    """A :class:`RoleCurvesView` whose x axis is in the display's LLR unit (ln, log10, bits):
    ``_redraw()`` draws the kept curves when they change and when the unit does."""

    _BASE = True  # (a base of views: its subclasses give _curve and _redraw)

    @param.depends("state.display.llr_unit", watch=True)
    @isolated
    @when_shown
    def _on_unit(self):
        self._redraw()
