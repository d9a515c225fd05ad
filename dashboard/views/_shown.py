"""Views that compute only while they are shown (e.g. in a tab that is not open)."""

from __future__ import annotations

import functools

import panel as pn
import param

from ..state import DashboardState
from ._common import Styler, fit_figure, isolated

__all__ = ["RoleCurvesView", "when_shown"]

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
    ``renderers`` (``{(role, kind): renderer}``, for :meth:`_on_options`) and a ``legend``,
    and call :meth:`_finish` last."""

    state = param.ClassSelector(class_=DashboardState)
    active = param.Boolean(default=True, doc="""
        Compute and draw; False while the view is hidden (it is refreshed when shown).""")

    #: The sets drawn, in this order.
    ROLES = ("eval", "dev")
    #: Height of the plot on a page, and the room a view keeps below its figure (a note).
    HEIGHT = 400
    BELOW = 0

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        missing = [m for m in ("_curve", "_redraw") if not callable(getattr(cls, m, None))]
        if missing:
            raise TypeError(f"{cls.__name__} must define {' and '.join(missing)} "
                            "(see RoleCurvesView)")

    def __init__(self, **params):
        super().__init__(**params)
        self._per_role = {}  # role -> the curve of the shown results' set
        self._shown = None   # the results whose curves are kept
        self._stale = False

    def _finish(self, fig, *below):
        """Complete the view: ``fig`` (kept as ``figure``) with its styler, the layout (the
        figure, then the panes ``below`` it), the first drawing."""
        self.figure = fig
        self.styler = Styler(fig)
        self.styler.capture()
        plot = pn.pane.Bokeh(fig, sizing_mode="stretch_width")
        # (Panel keeps the minimum width of a column at its widest child's width when it was
        # drawn: a figure made narrower on a stage would leave the column wide)
        self._layout = pn.Column(plot, *below, sizing_mode="stretch_width",
                                 stylesheets=[_NO_MIN_WIDTH]) if below else plot
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
            for item in self.legend.items:
                item.visible = any(r.visible for r in item.renderers)
            self.styler.apply(d.presentation, d.svg)

    def resize(self, width=None, height=None):
        """A fixed size on a stage (what is below the figure included), or the page's
        width (see ``fit_figure``)."""
        fit_figure(self.figure, self.styler, width,
                   None if height is None else height - self.BELOW,
                   default_height=self.HEIGHT)
        note = getattr(self, "note", None)  # text below the figure: within the panel's box
        if note is not None:
            if height is None:
                note.param.update(sizing_mode="stretch_width", width=None, height=None)
            else:
                note.param.update(sizing_mode="fixed", width=max(int(width), 200) - 20,
                                  height=self.BELOW - 4, styles={**note.styles,
                                                                 "overflow-y": "auto"})

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
