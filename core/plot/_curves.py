"""Curves against the operating point: NBER, APE and ECE plots (prior log-odds) and the EPC."""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from ..ape import ape_curves, ece_curves
from ..epc import EPC
from ..epc import epc as epc_curve
from ..errors import DataError
from ..palette import COLORS, CURVE_DASHES, FILLS, system_style
from ._draw import Legend, curve, finish, op_line, shade
from ._style import drawing
from ._systems import pairs, systems

__all__ = ["ape", "ece", "epc", "nber"]

#: What the x axis of the plots against the operating point shows.
PLO_LABEL = "prior log-odds  logit(P\u0303)"
_LN2 = float(np.log(2.0))


def _grid(plo_range, points):
    try:
        lo, hi = (float(v) for v in plo_range)
    except (TypeError, ValueError):
        raise DataError(f"plo_range must be two numbers, got {plo_range!r}") from None
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise DataError(f"plo_range needs finite LO < HI, got {lo!r} {hi!r}")
    if int(points) < 2:
        raise DataError(f"points must be at least 2, got {points}")
    return np.linspace(lo, hi, int(points))


def _top(values, least, most, legend=False):
    """Upper end of a y axis: 8 % above the highest finite value, within [least, most]; 30 %
    more with a legend (it goes in the room above the curves)."""
    v = np.concatenate([np.ravel(x) for x in values])
    v = v[np.isfinite(v)]
    top = float(min(most, max(least, 1.08 * v.max()))) if v.size else least
    return top * (1.3 if legend else 1.0)


def nber(data, non=None, *, ax=None, size="column", plo=None, plo_range=(-7.0, 3.0),
         points=1001, dr30=True, unreliable=True, contributions=False, legend=True,
         title=None):
    """Normalized Bayes error-rate (NBER) plot: actual and minimum DCF against prior log-odds.

    Parameters
    ----------
    data, non : array_like, Trials, Analysis, or a mapping of systems
        As in :func:`det`; the scores are read as natural-log LLRs.
    ax, size, legend, title
        As in :func:`det`.
    plo : float, optional
        The operating point: a vertical line, and each system's actual (circle) and
        minimum (square) DCF on it.
    plo_range : (float, float)
        The x axis (default -7 to 3, as in the dashboard).
    points : int
        Prior log-odds computed on the axis.
    dr30 : bool
        Mark where the minimum-DCF threshold keeps 30 false alarms (triangle) and 30 misses
        (inverted triangle) (:class:`llrlab.core.DR30`).
    unreliable : bool
        Shade the prior log-odds beyond them, when every system has the same ones.
    contributions : bool
        With one system: the misses' and the false alarms' parts of the actual DCF.

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    ``y = E(sigmoid(x)) / min(sigmoid(x), 1 - sigmoid(x))``; the default system (LLR 0) is the
    line ``y = 1`` (Brümmer & de Villiers 2011, eq. 19-23, figs. 1-3).  Several systems:
    actual DCF solid, minimum DCF dashed, one colour and glyph per system.

    References
    ----------
    Brümmer & de Villiers (2011), sec. 2.1 and 2.5.4; docs/conventions.md.
    """
    sys_ = systems(data, non)
    grid = _grid(plo_range, points)
    lo, hi = float(grid[0]), float(grid[-1])
    multi = len(sys_) > 1
    with drawing(ax, size) as ax:
        leg = Legend()
        ax.axhline(1.0, color=COLORS["default"], linewidth=0.8, zorder=1,
                   linestyle=(0, (2, 2)))
        tops, marks = [], []
        for i, s in enumerate(sys_):
            act, mn = s.analysis.curves(grid)
            tops += [act.dcf, mn.dcf]
            if multi:
                curve(ax, grid, act.dcf, color=s.color, system=s, index=i)
                curve(ax, grid, mn.dcf, color=s.color, dash=CURVE_DASHES["min"], system=s,
                      index=i)
                leg.line(s.name, color=s.color, system=s)
            else:
                curve(ax, grid, act.dcf, color=COLORS["act"])
                curve(ax, grid, mn.dcf, color=COLORS["min"], scale=1.2, zorder=2.6)
                leg.line("actual DCF", color=COLORS["act"])
                leg.line("minimum DCF", color=COLORS["min"], scale=1.2)
                if contributions:
                    for part, values in (("miss", act.miss_part), ("fa", act.fa_part)):
                        curve(ax, grid, values, color=COLORS[part],
                              dash=CURVE_DASHES[part][0], scale=0.8)
                        leg.line("misses (actual)" if part == "miss" else
                                 "false alarms (actual)", color=COLORS[part],
                                 dash=CURVE_DASHES[part][0], scale=0.8)
            marks.append(s.analysis.dr30)
        if multi:
            leg.line("actual DCF")
            leg.line("minimum DCF", dash=CURVE_DASHES["min"])
        leg.line("default (LLR = 0)", color=COLORS["default"], dash="dotted", scale=0.6)
        top = _top(tops, 1.2, 2.0, legend)
        ax.set_xlim(lo, hi)
        ax.set_ylim(0.0, top)
        _dr30_marks(ax, sys_, marks, dr30, unreliable, leg, lo, hi)
        if plo is not None:
            _op_points(ax, sys_, float(plo), leg, lambda s: s.analysis.at(float(plo)))
        finish(ax, leg, legend, title, xlabel=PLO_LABEL, ylabel="normalized DCF",
                legend_title=None if multi else sys_[0].name)
    return ax


def _dr30_marks(ax, sys_, marks, dr30, unreliable, leg, lo, hi):
    multi = len(sys_) > 1
    import matplotlib as mpl

    ms = float(mpl.rcParams["lines.markersize"]) * 1.5
    for s, d in zip(sys_, marks, strict=True):
        if not dr30:
            break
        for x, y, marker, role in ((d.plo_fa, d.dcf_fa, "^", "dr30_fa"),
                                   (d.plo_miss, d.dcf_miss, "v", "dr30_miss")):
            if np.isfinite(x) and lo <= x <= hi and np.isfinite(y):
                ax.plot([x], [y], linestyle="none", marker=marker, markersize=ms, zorder=4,
                        markerfacecolor=s.color if multi else COLORS[role],
                        markeredgecolor="black")
                label = "30 false alarms (DR30)" if role == "dr30_fa" else "30 misses (DR30)"
                leg.marker(label, marker, face="white" if multi else COLORS[role])
    same = all((d.plo_fa, d.plo_miss) == (marks[0].plo_fa, marks[0].plo_miss) for d in marks)
    if unreliable and same:
        # fewer than 30 false alarms below plo_fa (+inf: everywhere), fewer than 30 misses
        # from plo_miss on (-inf: everywhere)
        d, drawn = marks[0], False
        if d.plo_fa > lo:
            shade(ax, lo, min(d.plo_fa, hi))
            drawn = True
        if d.plo_miss < hi:
            shade(ax, max(d.plo_miss, lo), hi)
            drawn = True
        if drawn:
            leg.patch("fewer than 30 errors", color=FILLS["unreliable"], alpha=0.35)
        ax.set_xlim(lo, hi)


def _op_points(ax, sys_, plo, leg, at):
    """The operating point's line and each system's actual (circle) and minimum (square)
    DCF on it."""
    import matplotlib as mpl

    op_line(ax, plo)
    multi = len(sys_) > 1
    ms = float(mpl.rcParams["lines.markersize"]) * 1.4
    for s in sys_:
        o = at(s)
        edge = s.color if multi else COLORS["op"]
        # (a DCF above the axis is not drawn, as its curve is not)
        ax.plot([plo], [o.act_dcf], linestyle="none", marker="o", markersize=ms, zorder=5,
                markerfacecolor=edge, markeredgecolor="black")
        ax.plot([plo], [o.min_dcf], linestyle="none", marker="s", markersize=ms * 0.85,
                zorder=5, markerfacecolor="white", markeredgecolor=edge)
    leg.line(f"operating point (P\u0303 = {float(expit(plo)):.3g})",
             color=COLORS["op"], dash="dashed", scale=0.9)


def _losses(c):
    return (f"Cllr {c.cllr:.3g} = {c.min_cllr:.3g} + {c.calibration_loss:.3g} bits")


def _plo_curves(data, non, ax, size, plo, plo_range, points, legend, title, *, compute,
                ylabel, scale=1.0):
    """An APE or ECE plot: actual, minimum and default curves against prior log-odds."""
    sys_ = systems(data, non)
    grid = _grid(plo_range, points)
    multi = len(sys_) > 1
    with drawing(ax, size) as ax:
        leg = Legend()
        tops, default = [], None
        for i, s in enumerate(sys_):
            c, act, mn, default = compute(s.analysis, grid)
            act, mn, default = act * scale, mn * scale, default * scale
            tops += [act, mn, default]
            if multi:
                curve(ax, grid, act, color=s.color, system=s, index=i)
                curve(ax, grid, mn, color=s.color, dash=CURVE_DASHES["min"], system=s,
                      index=i)
                leg.line(f"{s.name}: Cllr {c.cllr:.3g} bits", color=s.color, system=s)
            else:
                curve(ax, grid, act, color=COLORS["act"])
                curve(ax, grid, mn, color=COLORS["min"], scale=1.2, zorder=2.6)
                leg.line("actual", color=COLORS["act"])
                leg.line("minimum (PAV)", color=COLORS["min"], scale=1.2)
        if multi:
            leg.line("actual")
            leg.line("minimum (PAV)", dash=CURVE_DASHES["min"])
        curve(ax, grid, default, color=COLORS["default"], dash="dotted", scale=0.6, zorder=1)
        leg.line("default (LLR = 0)", color=COLORS["default"], dash="dotted", scale=0.6)
        ax.set_xlim(float(grid[0]), float(grid[-1]))
        ax.set_ylim(0.0, _top(tops, 0.0, np.inf, legend) or 1.0)
        if plo is not None:
            op_line(ax, float(plo))
            leg.line(f"operating point (P\u0303 = {float(expit(plo)):.3g})",
                     color=COLORS["op"], dash="dashed", scale=0.9)
        finish(ax, leg, legend, title, xlabel=PLO_LABEL, ylabel=ylabel,
                legend_title=None if multi else
                (f"{sys_[0].name}: " if sys_[0].name else "") + _losses(c))
    return ax


def ape(data, non=None, *, ax=None, size="column", plo=None, plo_range=(-10.0, 10.0),
        points=401, legend=True, title=None):
    """APE plot: actual, minimum and default Bayes error rates against prior log-odds.

    Parameters
    ----------
    data, non, ax, size, legend, title
        As in :func:`det`.
    plo : float, optional
        The operating point (a vertical line).
    plo_range : (float, float)
        The x axis (default -10 to 10).
    points : int

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    The curves of :func:`llrlab.core.ape_curves`: ``E(pt) = pt*Pmiss(-plo) +
    (1-pt)*Pfa(-plo)``, its minimum over thresholds (ROCCH) and ``min(pt, 1-pt)``.  The
    areas under them are ``2 ln2`` times Cllr, minCllr and 1; the legend gives
    ``Cllr = minCllr + calibration loss`` in bits (Brümmer 2010, sec. 7.7.4).

    References
    ----------
    Brümmer (2010), sec. 7.3.1 and 7.7.4.
    """
    def compute(a, grid):
        c = ape_curves(a, plo=grid)
        return c, c.bayes_error, c.min_bayes_error, c.default

    return _plo_curves(data, non, ax, size, plo, plo_range, points, legend, title,
                       compute=compute, ylabel="Bayes error rate")


def ece(data, non=None, *, ax=None, size="column", plo=None, plo_range=(-10.0, 10.0),
        points=401, legend=True, title=None):
    """ECE plot: empirical cross-entropy of the LLRs, the PAV LLRs and the prior, in bits.

    Parameters
    ----------
    As in :func:`ape`.

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    The curves of :func:`llrlab.core.ece_curves` divided by ``ln 2``: ``Ce(p)`` of the LLRs,
    of their PAV recalibration (the minimum over monotone maps) and of the default system
    (the prior's entropy).  At ``plo = 0`` they are Cllr, minCllr and 1 bit (Brümmer 2010,
    sec. 7.4.3 and 7.7.4; Ramos et al. 2013).

    References
    ----------
    Brümmer (2010), sec. 7.4.3 and 7.7.4; D. Ramos, J. Gonzalez-Rodriguez, G. Zadora and
    C. Aitken (2013), "Information-theoretical assessment of the performance of likelihood
    ratio computation methods", Journal of Forensic Sciences 58(6):1503-1518.
    """
    def compute(a, grid):
        c = ece_curves(a, plo=grid)
        return c, c.ce, c.min_ce, c.default

    return _plo_curves(data, non, ax, size, plo, plo_range, points, legend, title,
                       compute=compute, ylabel="empirical cross-entropy (bits)",
                       scale=1.0 / _LN2)


def epc(data, *, ax=None, size="column", alpha=None, plo=None, legend=True, title=None):
    """Expected performance curve: HTER on eval at the threshold chosen on dev, against
    the trade-off ``alpha``.

    Parameters
    ----------
    data : (dev, eval) pair, EPC, or a mapping of systems
        A system's dev and eval sets (each ``(tar, non)``, a ``Trials`` or an
        ``Analysis``), or its :class:`llrlab.core.EPC`; several systems as ``{name: ...}``.
    ax, size, legend, title
        As in :func:`det`.
    alpha : array_like, optional
        Trade-off values (default 101 from 0 to 1).
    plo : float, optional
        An operating point, drawn at ``alpha = 1 - sigmoid(plo)``: the weighted error
        ``alpha*Pfa + (1-alpha)*Pmiss`` of the EPC is the Bayes error rate at the
        effective prior ``1 - alpha``.

    Returns
    -------
    matplotlib Axes

    References
    ----------
    S. Bengio, J. Mariéthoz and M. Keller (2005), "The expected performance curve",
    ICML workshop on ROC analysis in machine learning; see :func:`llrlab.core.epc`.
    """
    items = pairs(data)
    curves = []
    for name, v in items:
        if isinstance(v, EPC):
            curves.append((name, v))
            continue
        try:
            dev, ev = v
        except (TypeError, ValueError):
            what = f"system {name!r}" if name is not None else "the data"
            raise DataError(f"{what}: an EPC needs a (dev, eval) pair of score sets, or an "
                            f"EPC") from None
        curves.append((name, epc_curve(dev, ev, alpha)))
    multi = len(curves) > 1
    with drawing(ax, size) as ax:
        leg = Legend()
        tops = []
        for i, (name, c) in enumerate(curves):
            style = system_style(i)
            hter = 100.0 * c.hter
            tops.append(hter)
            curve(ax, c.alpha, hter, color=style.color, system=style if multi else None,
                  index=i)
            if multi:
                leg.line(name, color=style.color, system=style)
        ax.set_xlim(0.0, 1.0)
        ax.set_ylim(0.0, _top(tops, 1.0, 100.0))
        if plo is not None:
            op_line(ax, float(expit(-float(plo))))
            leg.line(f"operating point (α = {float(expit(-float(plo))):.3g})",
                     color=COLORS["op"], dash="dashed", scale=0.9)
        finish(ax, leg, legend, title,
                xlabel="α (weight of false alarms on dev)",
                ylabel="HTER on eval (%)",
                legend_title=None if multi else curves[0][0])
    return ax
