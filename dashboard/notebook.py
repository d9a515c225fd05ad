"""The dashboard on scores held in Python objects, in a Jupyter notebook or a script.

:class:`Dashboard` opens the dashboard of ``llrlab serve`` on what a notebook holds --
``(tar, non)`` arrays, ``(scores, labels)``, a :class:`~llrlab.core.Trials`, a pandas
DataFrame or a dict of systems (see :mod:`llrlab.dashboard.state.objects`) -- and keeps it
linked to the Python side: the operating point can be read and set
(:attr:`Dashboard.operating_point`), the metrics table read as a DataFrame
(:meth:`Dashboard.metrics`) and the analyses as :class:`~llrlab.core.Analysis` objects
(:attr:`Dashboard.results`), whatever the user did in the page.

In a notebook (JupyterLab, Notebook 7, classic Notebook) the dashboard shows inline, as the
sidebar and the main area of the page without its header; :meth:`Dashboard.show` opens the
full page in a browser tab (served from the kernel on 127.0.0.1) and
:meth:`Dashboard.servable` marks it as the page of ``panel serve notebook.ipynb``.  Panel's
JavaScript is loaded into the notebook once per kernel and inline (nothing is fetched from a
CDN: an offline notebook works), by :func:`load_extensions`, which ``create_app`` calls too.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from dataclasses import dataclass

import panel as pn

from llrlab.core import DataError, plo_from_costs

from .state.objects import systems_from_objects
from .state.operating_point import PLO_LIMIT

__all__ = ["Dashboard", "OperatingPointSetting", "in_kernel", "load_extensions"]

#: Panel's extensions the page uses.
EXTENSIONS = ("filedropper",)
#: Keys :attr:`Dashboard.operating_point` takes in a dict.
POINT_KEYS = ("p_target", "c_miss", "c_fa", "effective_prior", "plo")
#: Width of the sidebar of the dashboard in a notebook (pixels).
SIDEBAR_WIDTH = 340


def in_kernel():
    """True when running in a Jupyter kernel (IPython with a kernel; not a plain script or
    a server)."""
    ipython = sys.modules.get("IPython")
    if ipython is None:
        return False
    shell = ipython.get_ipython()
    return getattr(shell, "kernel", None) is not None


def load_extensions():
    """Load Panel's extensions of the dashboard page (``pn.extension``).

    In a Jupyter kernel each ``pn.extension`` call publishes Panel's JavaScript into the
    notebook again (3 MB when inline), so there the call is made only until the page's
    extensions are loaded, and the first one loads the JavaScript inline: an offline notebook
    cannot fetch it from a CDN.  Served pages take their resources from the server.
    """
    if not in_kernel():
        pn.extension(*EXTENSIONS, notifications=True)
        return
    from panel.config import panel_extension

    loaded = set(getattr(panel_extension, "_loaded_extensions", ()))
    if panel_extension._loaded and loaded.issuperset(EXTENSIONS) and pn.config.notifications:
        return
    options = {} if panel_extension._loaded else {"inline": True}
    pn.extension(*EXTENSIONS, notifications=True, **options)


@dataclass(frozen=True)
class OperatingPointSetting:
    """The operating point of a dashboard: the application's prior and costs, and what
    follows from them.

    Attributes
    ----------
    p_target, c_miss, c_fa : float
        Target prior and the costs of a miss and of a false alarm.
    effective_prior : float
        ``p_target*c_miss / (p_target*c_miss + (1-p_target)*c_fa)`` (Brümmer & de Villiers
        2011, sec. 2.3).
    plo : float
        Prior log-odds ``logit(effective_prior)``: the x axis of the NBER plot; the Bayes
        threshold on LLRs is ``-plo``.
    """

    p_target: float
    c_miss: float
    c_fa: float
    effective_prior: float
    plo: float


def _number(value, key):
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise DataError(f"operating point: {key} must be a number, got {value!r}") from None
    if not math.isfinite(x):
        raise DataError(f"operating point: {key} must be finite, got {value!r}")
    return x


class Dashboard:
    """The llrlab dashboard on scores held in Python objects.

    Parameters
    ----------
    data : optional
        The scores: ``(tar, non)`` arrays; ``(scores, labels)`` with labels as booleans,
        0/1, -1/+1 or words such as ``target``/``nontarget``; a
        :class:`~llrlab.core.Trials`; a pandas DataFrame (one row per trial; its ``system``
        and ``role`` columns, when it has them, split it into systems and dev/eval sets); a
        dict ``{"dev": set, "eval": set}`` of one system; or a dict of systems
        ``{name: set}`` (eval sets) or ``{name: {"dev": set, "eval": set}}``.  One set alone
        is the eval set.  None: the demo data of ``llrlab serve``.
    dev : optional
        The dev set (any one-set form above) of the system of ``data``: calibration is
        trained on it.
    name : str, optional
        The system's name when the data name none (default ``"system"``).
    score, label, model, segment, condition, weight, system, role : str, optional
        The columns of DataFrames, when their names are not the usual ones (``score``,
        ``llr``; ``label``, ``class``, ``target``; ``model``; ``segment``, ``test``;
        ``condition``; ``weight``; ``system``; ``role``, holding ``dev`` or ``eval``).
    **options
        Passed to :func:`~llrlab.dashboard.app.create_app` (``max_upload_mb``, ``lessons``,
        ``lesson``).

    Raises
    ------
    llrlab.core.DataError
        (a ValueError) with one line saying what was recognised and what to do, before
        anything is shown.

    Notes
    -----
    The page and this object share one state (:attr:`state`): a drag in the page changes
    :attr:`operating_point` and :meth:`metrics`, and setting :attr:`operating_point` from
    Python moves the page's plots.  In a kernel the computations run in the kernel, when the
    page asks (a drag is a few binary searches; new data or a new calibration takes longer).

    Examples
    --------
    >>> import numpy as np
    >>> from llrlab.dashboard import Dashboard
    >>> rng = np.random.default_rng(0)
    >>> dash = Dashboard((rng.normal(2, 1, 300), rng.normal(-2, 1, 3000)))
    >>> dash.operating_point = {"p_target": 0.1}
    >>> round(dash.operating_point.plo, 4)
    -2.1972
    >>> list(dash.metrics().index)
    ['eval']
    """

    def __init__(self, data=None, /, *, dev=None, name=None, score=None, label=None,
                 model=None, segment=None, condition=None, weight=None, system=None,
                 role=None, **options):
        columns = dict(score=score, label=label, model=model, segment=segment,
                       condition=condition, weight=weight, system=system, role=role)
        demo = data is None and dev is None
        systems = None if demo else systems_from_objects(data, dev=dev, name=name, **columns)
        from .app import create_app  # (app imports this module)

        self.page = create_app(demo=demo, **options)
        self.state = self.page.state
        if systems is not None:
            self.state.data.set_systems(systems, interactive=False)
        self._view = None

    # ------------------------------------------------------------------ display

    def __panel__(self):
        """The dashboard as a Panel layout: the page's sidebar beside its main area (the
        page's header and its keyboard handler left out, so that a notebook's keys stay the
        notebook's)."""
        if self._view is None:
            side, body = self.page.sidebar[0], self.page.main[0]
            control = getattr(self.page, "page_control", None)
            body = pn.Column(*[o for o in body.objects if o is not control],
                             sizing_mode="stretch_width", stylesheets=body.stylesheets)
            self._view = pn.Row(pn.Column(side, width=SIDEBAR_WIDTH), body,
                                sizing_mode="stretch_width", name="llrlab_dashboard")
        return self._view

    def _repr_mimebundle_(self, include=None, exclude=None):
        return self.__panel__()._repr_mimebundle_(include, exclude)

    def show(self, port=0, *, open=True, **kwargs):
        """Open the full page in a browser tab, served from this process on 127.0.0.1.

        The page shares this dashboard's state.  Returns the server's thread: call its
        ``stop()`` to stop serving.  ``kwargs`` go to ``panel.serve``.
        """
        kwargs.setdefault("address", "127.0.0.1")
        return self.page.show(port=port, open=open, threaded=True, **kwargs)

    def servable(self, title=None):
        """Mark the full page as the page of ``panel serve`` (a notebook or script served
        with it); returns this dashboard (shown inline in a notebook)."""
        doc = pn.state.curdoc
        if doc is not None and doc.session_context is not None:
            self.page.servable(title=title)
        return self

    # ------------------------------------------------------------------ linked state

    @property
    def operating_point(self):
        """The operating point of the page, an :class:`OperatingPointSetting`.

        Set it to an :class:`OperatingPointSetting` or a dict of some of ``p_target``,
        ``c_miss``, ``c_fa`` and one of ``plo`` or ``effective_prior`` (which then moves
        ``p_target``, keeping the costs): the page's plots and table follow.  Bad values
        raise a :class:`~llrlab.core.DataError` and change nothing.
        """
        p = self.state.point
        return OperatingPointSetting(float(p.p_target), float(p.c_miss), float(p.c_fa),
                                     float(p.effective_prior), float(p.plo))

    @operating_point.setter
    def operating_point(self, value):
        if isinstance(value, OperatingPointSetting):
            value = {"p_target": value.p_target, "c_miss": value.c_miss, "c_fa": value.c_fa}
        if not isinstance(value, Mapping):
            raise DataError(f"operating_point takes an OperatingPointSetting or a dict of "
                            f"{', '.join(POINT_KEYS)}; got {type(value).__name__}")
        unknown = [k for k in value if k not in POINT_KEYS]
        if unknown:
            raise DataError(f"operating point: unknown {unknown[0]!r}; give some of "
                            f"{', '.join(POINT_KEYS)}")
        if "plo" in value and "effective_prior" in value:
            raise DataError("operating point: give plo or effective_prior, not both (each "
                            "sets the other)")
        point = self.state.point
        v = {k: _number(value[k], k) for k in value}
        costs = {k: v.get(k, getattr(point, k)) for k in ("p_target", "c_miss", "c_fa")}
        plo_from_costs(**costs)  # a DataError for a prior outside (0, 1) or a bad cost
        target = v.get("plo")
        if "effective_prior" in v:
            pt = v["effective_prior"]
            if not 0.0 < pt < 1.0:
                raise DataError(f"operating point: effective_prior must lie strictly between "
                                f"0 and 1, got {pt!r}")
            target = math.log(pt) - math.log1p(-pt)
        if target is not None and abs(target) > PLO_LIMIT:
            raise DataError(f"operating point: plo must lie within ±{PLO_LIMIT:g} (the "
                            f"dashboard's range), got {target!r}")
        with self.state.hold():
            point.param.update(**costs)
            if target is not None:
                point.set_plo(target)

    def metrics(self):
        """The metrics table as shown, a pandas DataFrame: one row per set (index ``role``:
        ``dev``, ``eval``), with the operating point's columns first, then the system,
        the calibration and the measures (``n_tar``, ``n_non``, ``cllr``, ``min_cllr``,
        ``eer``, ``act_dcf``, ``min_dcf``, ``dr30_safe``, ``misses``, ``false_alarms``,
        ``p_miss``, ``p_fa``; interval bounds when intervals are on): the columns of the
        page's CSV export, values in full precision.  Empty while nothing is computed.
        """
        import pandas as pd

        from .state.export import POINT_FIELDS

        rows = self.state.export.metrics_rows()
        p = self.state.point
        where = {k: float(getattr(p, k)) for k in POINT_FIELDS}
        frame = pd.DataFrame([{**where, **r} for r in rows])
        return frame.set_index("role") if rows else frame

    @property
    def results(self):
        """The analyses shown, ``{role: llrlab.core.Analysis}`` (of the LLRs: calibrated
        when a calibration is chosen); empty while nothing is computed."""
        res = self.state.results
        return {} if res is None else {role: d.llr for role, d in res.datasets.items()}

    @property
    def systems(self):
        """The names of the loaded systems."""
        return list(self.state.data.systems)

    @property
    def system(self):
        """The system shown (set it to another loaded system's name to show that one)."""
        return self.state.data.system

    @system.setter
    def system(self, name):
        if name not in self.state.data.systems:
            raise DataError(f"no system {name!r}; the loaded systems are "
                            f"{', '.join(repr(s) for s in self.state.data.systems)}")
        self.state.data.system = name

    @property
    def error(self):
        """The error the page shows ('' when none)."""
        return self.state.status.error

    def __repr__(self):
        p = self.operating_point
        return (f"Dashboard(systems={self.systems!r}, shown={self.system!r}, "
                f"p_target={p.p_target:g}, c_miss={p.c_miss:g}, c_fa={p.c_fa:g}, "
                f"plo={p.plo:.4g})")
