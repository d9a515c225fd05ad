"""The exact operating-point grid of the served dashboard's in-page drag.

While the pointer moves on the NBER or DET plot, the page itself moves the operating point
on a grid of prior log-odds (every 1/256 in [-20, 20]: :data:`SERVED_STEP`, 10241 points, a
pointer pixel is coarser) and reads the numbers of ``Analysis.at`` there with binary searches
(:mod:`llrlab.dashboard.op_grid_script`, the offline report's look-up).  :class:`OpGrid`
holds the data of that look-up for one session: the counts, optimal ROCCH vertex and DR30
flag of every grid point and set (:func:`llrlab.dashboard.op_grid_data.grid_columns`), each
set's vertices and totals.  When the analyses change (data loaded, calibration, condition
weights) its sources are emptied at once (a drag meanwhile goes to the server at each move,
as before) and refilled from a worker thread (the session's jobs), never on the event loop,
:data:`GRID_DELAY` ms later when served (the new picture first, whole).

It also lists what the page moves by itself during a drag (``echo``): when the pointer
pauses, the server sets the exact point and sends those values again even where they did
not change (:func:`._common.resend`), so that the page shows the server's numbers.  And the
copies of the point that follow a drag only when it pauses (``mirrors``,
:class:`..url.Debounced`: the sidebar's widgets and the address): with the grid in the page,
each point the server gets is a pause, so they follow it at once, in the same message
(:meth:`OpGrid.paused`).
"""

from __future__ import annotations

import contextlib

import numpy as np
import panel as pn
import param
from bokeh.models import ColumnDataSource

from llrlab.core import operating_point_grid
from llrlab.core.op_grid import GRID_LIMIT, grid_plo

from ..op_grid_data import grid_columns, vertex_columns
from ..state import DashboardState
from ._common import isolated

__all__ = ["SERVED_STEP", "OpGrid", "grid_sets"]

#: The served grid's spacing (a power of two: the grid values are exact); 10241 points in
#: [-20, 20].
SERVED_STEP = 1.0 / 256.0
#: The sets the grid can hold (dev, eval, the true LLR of teaching mode).
MAX_SETS = 3
#: Served, the grid is computed and sent once the analyses have not changed for this long
#: (ms); until then a drag goes to the server at each move, as without the grid.
GRID_DELAY = 1200


def grid_sets(results):
    """The roles of the grid's sets in their order: the primary set first (the DET drag
    snaps to its ROCCH vertices, as :meth:`Results.plo_of_det_point` does), then the
    others."""
    if results is None or results.primary is None:
        return []
    first = results.primary.role
    return [first, *[r for r in results.datasets if r != first][:MAX_SETS - 1]]


def _empty_grid():
    return {"plo": np.empty(0)}


def _empty_sets():
    return {"role": [], "T": [], "N": [], "weighted": []}


def _empty_vertices():
    e = np.empty(0)
    return {"p_miss": e, "p_fa": e, "misses": e.astype(np.int32),
            "false_alarms": e.astype(np.int32), "x": e.astype(np.float32),
            "y": e.astype(np.float32), "gi": e.astype(np.int32)}


def compute_grid(results, roles, step=SERVED_STEP):
    """``(grid columns, sets columns, vertex columns per set)`` of ``results`` (Bokeh-free;
    run in a worker thread)."""
    g = grid_plo(limit=GRID_LIMIT, step=step)
    grids = [operating_point_grid(results.datasets[r].llr, g) for r in roles]
    columns, weighted = grid_columns(g, grids)
    sets = {"role": list(roles), "T": [float(gr.n_tar) for gr in grids],
            "N": [float(gr.n_non) for gr in grids], "weighted": [int(w) for w in weighted]}
    return columns, sets, [vertex_columns(gr) for gr in grids]


class OpGrid(param.Parameterized):
    """The grid data sources of one session, filled when ``state.results`` changes."""

    state = param.ClassSelector(class_=DashboardState)

    def __init__(self, **params):
        super().__init__(**params)
        self.grid = ColumnDataSource(_empty_grid(), name="op_grid")
        self.sets = ColumnDataSource(_empty_sets(), name="op_grid_sets")
        self.verts = [ColumnDataSource(_empty_vertices(), name=f"op_grid_vertices_{j}")
                      for j in range(MAX_SETS)]
        self.echo = []    # (model, attribute) pairs the page moves by itself
        self.panes = []   # Panel panes whose cells the page rewrites
        self.mirrors = []  # Debounced copies of the point (they follow a pause)
        self._pending = None
        self._filled = None  # the analyses whose grid is in the sources (or have none)
        self._on_results()

    @property
    def settled(self):
        """Whether the sources hold the grid of the current analyses (or they have none)."""
        return self._filled is self.state.results

    @property
    def in_page(self):
        """Whether the page has the grid to drag with (its points are then pauses)."""
        return self.settled and len(self.grid.data.get("plo", ())) > 0

    @contextlib.contextmanager
    def paused(self):
        """Apply a point the page sent: when the page drags on the grid, that point is a
        pause, and the :attr:`mirrors` follow it at once (one message, no timer)."""
        with contextlib.ExitStack() as stack:
            if self.in_page:
                for mirror in self.mirrors:
                    stack.enter_context(mirror.at_once())
            yield

    def args(self):
        """The CustomJS arguments of the look-up (see ``SERVED_DRAG``)."""
        return dict(grid=self.grid, sets=self.sets, verts=self.verts)

    def moved(self):
        """The ``(model, attribute)`` pairs the page moves by itself during a drag: the
        server sends them again after it set the point (those it did not change)."""
        return list(self.echo) + [(model, "text") for pane in self.panes
                                  for model, _parent in list(getattr(pane, "_models",
                                                                     {}).values())]

    @param.depends("state.results", watch=True)
    @isolated
    def _on_results(self):
        res = self.state.results
        if res is not None and res is self._pending:
            # the same analyses set again (a lesson's step applies its cached results a
            # second time): their grid is there or on its way; computing and sending it
            # again cost the session a second 0.4 MB message
            return
        self.grid.data, self.sets.data = _empty_grid(), _empty_sets()
        self._pending = res
        if not grid_sets(res):
            self._filled = res
            return
        doc = pn.state.curdoc
        if doc is not None and doc.session_context is not None:
            # served: once the analyses have stayed GRID_DELAY ms, so that the new picture
            # (a lesson's step, a toggle) reaches the page alone and whole, the grid's
            # ~0.4 MB after it (sent with the step, it doubled a step's time and split it
            # over several frames)
            doc.add_timeout_callback(lambda: self._start(res), GRID_DELAY)
        else:
            self._start(res)

    def _start(self, res):
        if res is not self._pending or res is not self.state.results:
            return  # the analyses changed meanwhile: their own turn comes
        roles = grid_sets(res)
        self.state.jobs.run("", lambda _progress: compute_grid(res, roles),
                            lambda out: self._fill(res, out), self._failed, track=False)

    def _fill(self, res, out):
        if res is not self._pending or res is not self.state.results:
            return  # the analyses changed meanwhile: their own job fills the grid
        columns, sets, verts = out
        for src, data in zip(self.verts, verts, strict=False):
            src.data = data
        self.sets.data = sets
        self.grid.data = columns
        self._filled = res

    def _failed(self, exc):
        self._filled = self._pending  # (settled: the page drags through the server)
        # the drag goes on through the server at each move; the page says why
        self.state.jobs.report(exc, "computing the operating-point grid",
                               lambda text: f"dragging falls back to the server: {text}")
