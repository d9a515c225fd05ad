"""The DET plot: miss against false-alarm probability on normal-deviate (probit) axes."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

from ..det import det_axis_start, det_ticks, probit
from ..errors import DataError
from ..palette import COLORS, FILLS
from ._draw import Legend, curve, plain, shade
from ._style import drawing
from ._systems import systems

__all__ = ["Marker", "det"]

KINDS = ("steppy", "rocch", "both")
#: Upper ends of the axes, chosen as the smallest above every EER by 10 points.
_HIGH = (0.4, 0.6, 0.8, 0.9, 0.95)


@dataclass(frozen=True)
class Marker:
    """A labelled point on a DET plot, beside the operating point and the DR30 markers: for
    example the error rates at a threshold chosen elsewhere.

    Attributes
    ----------
    p_fa, p_miss : float
        Its error rates (probabilities; 0 and 1 are drawn on the edge of the plot).
    label : str
        Its legend entry.
    marker : str
        A matplotlib marker (default a hexagon, which no other point of the plot uses).
    color : str, optional
        Its fill colour; default: the colour of ``system``, else the operating point's.
    system : str, optional
        The name of the system it belongs to (its colour, when several are drawn).
    """

    p_fa: float
    p_miss: float
    label: str
    marker: str = "h"
    color: str | None = None
    system: str | None = None


def _percent(x, _pos=None):
    """A tick label: the probability of probit ``x`` in percent (``0.1``, ``2``, ``40``)."""
    return f"{100 * float(ndtr(x)):.3g}"


def _locator(vertical):
    """A matplotlib Locator of DET ticks (:func:`llrlab.core.det.det_ticks`) that keeps the
    labels apart at the Axes' drawn size and the tick labels' font size."""
    import matplotlib as mpl
    from matplotlib.font_manager import FontProperties
    from matplotlib.ticker import Locator

    font = FontProperties(size=mpl.rcParams["ytick.labelsize" if vertical else "xtick.labelsize"])
    points = font.get_size_in_points()

    class ProbitLocator(Locator):
        def __call__(self):
            return self.tick_values(*self.axis.get_view_interval())

        def tick_values(self, vmin, vmax):
            lo, hi = sorted((float(vmin), float(vmax)))
            ax = self.axis.axes
            box = ax.get_window_extent()
            length = max(box.height if vertical else box.width, 1.0)
            em = points * ax.figure.dpi / 72.0
            need = (1.5 if vertical else 2.3) * em  # "0.05" across, one line up
            return det_ticks(lo, hi, need * (hi - lo) / length)

    return ProbitLocator()


def probit_axes(ax, x_lo, y_lo, hi):
    """Axes of ``ax`` from probability ``x_lo`` (false alarms), ``y_lo`` (misses) to ``hi``
    on probit scales, equal in length per unit, with ticks at 0.1, 0.2, 0.5, 1, 2, 5, 10,
    20, 40 % (those whose labels fit)."""
    from matplotlib.ticker import FuncFormatter

    b = float(probit(hi))
    ax.set_xlim(float(probit(x_lo)), b)
    ax.set_ylim(float(probit(y_lo)), b)
    ax.set_aspect("equal", adjustable="box")
    for axis, vertical in ((ax.xaxis, False), (ax.yaxis, True)):
        axis.set_major_locator(_locator(vertical))
        axis.set_major_formatter(FuncFormatter(_percent))
    ax.set_xlabel("false-alarm probability (%)")
    ax.set_ylabel("miss probability (%)")


def _range(sys_, p_range, kind, plo):
    """``(x_lo, y_lo, hi)``: the probabilities at the ends of the axes."""
    if p_range is not None:
        try:
            lo, hi = (float(p) for p in p_range)
        except (TypeError, ValueError):
            lo = hi = float("nan")
        if not 0.0 < lo < hi < 1.0:
            raise DataError(f"p_range must be two probabilities 0 < lo < hi < 1, got "
                            f"{p_range!r}")
        return lo, lo, hi
    x_lo = min(det_axis_start(s.analysis.n_non) for s in sys_)
    y_lo = min(det_axis_start(s.analysis.n_tar) for s in sys_)
    # the EER, the DR30 points and the minimum-DCF points inside, with room
    worst = []
    for s in sys_:
        a = s.analysis
        worst.append(a.eer + 0.1)
        for pf, pm in a.det_dr30(kind):
            worst.append(1.15 * max(pf, pm))
        if plo is not None:
            m = a.at(float(plo)).min
            worst.append(1.15 * max(float(m.p_fa), float(m.p_miss)))
    need = max((w for w in worst if np.isfinite(w)), default=0.0)
    hi = next((h for h in _HIGH if h >= need), _HIGH[-1])
    return x_lo, y_lo, hi


def _placed(ax, x, y):
    """``(x, y, edge)``: a point moved just inside the plot when it lies outside (an error
    rate of 0 or 1, or beyond the axes), and the point on the edge it stands for (None when
    it was inside)."""
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    inset = 0.035 * (x1 - x0)
    cx, cy = min(max(x, x0 + inset), x1 - inset), min(max(y, y0 + inset), y1 - inset)
    if (cx, cy) == (x, y) or (x0 <= x <= x1 and y0 <= y <= y1):
        return x, y, None
    return cx, cy, (min(max(x, x0), x1), min(max(y, y0), y1))


def _point(ax, p_fa, p_miss, *, marker, face, edge="black", size=1.0, zorder=4):
    if not (np.isfinite(p_fa) and np.isfinite(p_miss)):
        return
    import matplotlib as mpl

    x, y, to = _placed(ax, float(probit(p_fa)), float(probit(p_miss)))
    ms = float(mpl.rcParams["lines.markersize"]) * 1.5 * size
    ax.plot([x], [y], linestyle="none", marker=marker, markersize=ms, markerfacecolor=face,
            markeredgecolor=edge, zorder=zorder, clip_on=False)
    if to is not None:  # off the plot: an arrow points to where it is
        ax.annotate("", xy=to, xytext=(x, y), zorder=zorder,
                    arrowprops=dict(arrowstyle="-|>", color=edge, linewidth=0.8,
                                    shrinkA=ms / 2, shrinkB=0))


def det(data, non=None, *, ax=None, size="column", kind="rocch", plo=None, eer=True,
        dr30=True, unreliable=True, markers=(), p_range=None, legend=True, title=None,
        max_points=2000):
    """DET plot: miss against false-alarm probability on probit axes, in percent.

    Parameters
    ----------
    data, non : array_like, Trials, Analysis, or a mapping of systems
        Target and non-target scores ``(tar, non)``, a ``Trials`` or an ``Analysis``, or
        several systems as ``{name: data}`` (one colour and marker glyph each, and a legend).
    ax : matplotlib Axes, optional
        Where to draw; default a new figure of ``size`` (through pyplot).
    size : str or (float, float)
        ``"column"`` (3.5 in), ``"double"`` (7 in), ``"slide"``, or width and height in
        inches, for a new figure.
    kind : {"rocch", "steppy", "both"}
        The ROC convex hull, the empirical (steppy) curve, or both.
    plo : float, optional
        Prior log-odds of an operating point: each system's actual point (error rates at the
        Bayes threshold ``-plo``, a circle) and minimum-DCF point (a square).  None: none.
    eer : bool
        Mark the ROCCH-EER (a diamond on the diagonal).
    dr30 : bool
        Doddington's rule-of-30 markers (:func:`llrlab.core.det_dr30`): a triangle where 30
        false alarms remain, an inverted one where 30 misses remain.
    unreliable : bool
        Shade the regions beyond them (fewer than 30 errors) when every system has the
        same ones.
    markers : sequence of Marker
        More labelled points.
    p_range : (float, float), optional
        Lowest and highest probability on the axes; default from ``1/N`` (at least 0.01 %,
        at most 1 %) for each axis to 40 % (higher when an EER, a DR30 point or a
        minimum-DCF point would lie beyond it).
    legend : bool
    title : str, optional
    max_points : int
        Points per curve (shape-preserving decimation, :func:`llrlab.core.decimate`).

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    ``x = probit(Pfa)``, ``y = probit(Pmiss)``, ``probit = scipy.special.ndtri``; both axes
    have the same scale (a straight line at 45 degrees is an equal-variance Gaussian
    system).  Martin et al. (1997); Brümmer & de Villiers (2011), sec. 2.6.

    References
    ----------
    A. Martin, G. Doddington, T. Kamm, M. Ordowski and M. Przybocki (1997), "The DET curve in
    assessment of detection task performance", Proc. Eurospeech, pp. 1895-1898;
    Brümmer & de Villiers (2011), sec. 2.1.1 (DR30) and 2.6; docs/conventions.md.

    Examples
    --------
    >>> from llrlab.core import gaussian_trials, plo_from_costs
    >>> from llrlab.core.plot import det
    >>> ax = det({"A": gaussian_trials(500, 5000, seed=1),
    ...           "B": gaussian_trials(500, 5000, seed=2, scale=0.5)},
    ...          plo=plo_from_costs(0.01), kind="both")
    >>> ax.get_xlabel(), [t.get_text() for t in ax.get_legend().get_texts()][:2]
    ('false-alarm probability (%)', ['A', 'B'])
    """
    if kind not in KINDS:
        raise DataError(f"unknown DET kind {kind!r}; use one of {', '.join(KINDS)}")
    sys_ = systems(data, non)
    kinds = ("rocch", "steppy") if kind == "both" else (kind,)
    x_lo, y_lo, hi = _range(sys_, p_range, "rocch" if "rocch" in kinds else "steppy", plo)
    multi = len(sys_) > 1
    with drawing(ax, size, det=True) as ax:
        probit_axes(ax, x_lo, y_lo, hi)
        a, b = float(probit(min(x_lo, y_lo))), float(probit(hi))
        ax.plot([a, b], [a, b], color=COLORS["default"], linewidth=0.6, zorder=1)
        leg = Legend()
        for i, s in enumerate(sys_):
            for k in kinds:
                c = s.analysis.det(k, max_points=max_points)
                if multi:
                    dash = "solid" if k == kinds[0] else "dotted"
                    curve(ax, c.x, c.y, color=s.color, dash=dash, system=s, index=i,
                          scale=1.0 if k == "rocch" else 0.8)
                else:
                    curve(ax, c.x, c.y, color=COLORS[k], scale=1.0 if k == "rocch" else 0.8)
                    leg.line("ROCCH" if k == "rocch" else "steppy", color=COLORS[k],
                             scale=1.0 if k == "rocch" else 0.8)
            if multi:
                leg.line(s.name, color=s.color, system=s)
        if multi and len(kinds) == 2:
            leg.line("ROCCH")
            leg.line("steppy", dash="dotted", scale=0.8)
        _annotate(ax, sys_, kinds, plo, eer, dr30, unreliable, leg)
        by_name = {s.name: s for s in sys_}
        for m in markers:
            s = by_name.get(m.system)
            face = m.color or (s.color if s is not None else COLORS["op"])
            _point(ax, m.p_fa, m.p_miss, marker=m.marker, face=face, zorder=4.5)
            leg.marker(m.label, m.marker, face=m.color or ("white" if multi else face))
        if title:
            ax.set_title(plain(title))
        if legend:
            fig = ax.figure
            w, h = fig.get_size_inches()
            outside = w > 1.25 * h  # a wide figure: the legend beside the square plot
            if outside:  # (a centred square plot would push its labels off the figure)
                ax.set_anchor("W")
            leg.draw(ax, loc="best", outside=outside,
                     title=None if multi else sys_[0].name)
    return ax


def _annotate(ax, sys_, kinds, plo, eer, dr30, unreliable, leg):
    """EER, DR30 and operating-point markers of every system, and the unreliable regions."""
    multi = len(sys_) > 1
    kind = "rocch" if "rocch" in kinds else "steppy"
    points = []
    for s in sys_:
        a = s.analysis
        fill = (lambda role, s=s: s.color) if multi else (lambda role: COLORS[role])
        if eer and np.isfinite(a.eer):
            _point(ax, a.eer, a.eer, marker="D", face=fill("eer"), size=0.8)
            leg.marker("EER", "D", face="white" if multi else COLORS["eer"])
        fa, miss = a.det_dr30(kind)
        points.append((fa, miss))
        if dr30:
            _point(ax, *fa, marker="^", face=fill("dr30_fa"))
            _point(ax, *miss, marker="v", face=fill("dr30_miss"))
            if np.isfinite(fa[0]):
                leg.marker("30 false alarms (DR30)", "^",
                           face="white" if multi else COLORS["dr30_fa"])
            if np.isfinite(miss[1]):
                leg.marker("30 misses (DR30)", "v",
                           face="white" if multi else COLORS["dr30_miss"])
        if plo is not None:
            op = a.at(float(plo))
            _point(ax, op.act.p_fa, op.act.p_miss, marker="o", face=fill("op"), size=1.05,
                   zorder=5)
            _point(ax, op.min.p_fa, op.min.p_miss, marker="s", face="white",
                   edge=s.color if multi else COLORS["op"], size=0.9, zorder=5)
    if plo is not None:
        leg.marker("actual operating point", "o", face="white" if multi else COLORS["op"])
        leg.marker("minimum-DCF point", "s", face="white",
                   edge="black" if multi else COLORS["op"])
    # (the bands depend on the rates 30/N and 30/T only; the systems must agree on them;
    # compared as text, where NaN equals NaN)
    same = len({str((fa[0], miss[1], s.analysis.n_tar < 30, s.analysis.n_non < 30))
                for (fa, miss), s in zip(points, sys_, strict=True)}) == 1
    if unreliable and same:
        # beyond the DR30 points; everywhere when a class has fewer than 30 trials
        (fa_pf, _), (_, miss_pm) = points[0]
        a = sys_[0].analysis
        (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
        x_end = x1 if a.n_non < 30 else float(probit(fa_pf)) if np.isfinite(fa_pf) else x0
        y_end = y1 if a.n_tar < 30 else float(probit(miss_pm)) if np.isfinite(miss_pm) else y0
        if x_end > x0:
            shade(ax, x0, min(x_end, x1))
        if y_end > y0:
            shade(ax, y0, min(y_end, y1), vertical=False)
        ax.set_xlim(x0, x1)  # (the bands do not widen the axes)
        ax.set_ylim(y0, y1)
        if x_end > x0 or y_end > y0:
            leg.patch("fewer than 30 errors", color=FILLS["unreliable"], alpha=0.35)
