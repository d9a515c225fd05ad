"""Forensic views: the Tippett plot and the reliability diagram."""

from __future__ import annotations

from scipy.special import expit

from ..forensic import llr_label, llr_to_unit
from ..forensic import reliability as reliability_diagram
from ..forensic import tippett as tippett_curves
from ..histogram import histogram_range
from ..palette import COLORS, CURVE_DASHES
from ._draw import Legend, curve, finish, finite, op_line
from ._style import drawing
from ._systems import systems

__all__ = ["reliability", "tippett"]


def tippett(data, non=None, *, ax=None, size="column", unit="log10", plo=None, legend=True,
            title=None, max_points=4000):
    """Tippett plot: for each class, the proportion of LLRs at or above ``x``.

    Parameters
    ----------
    data, non, ax, size, legend, title
        As in :func:`det`; the scores are natural-log LLRs.
    unit : {"log10", "ln", "bits"}
        The unit of the x axis (default log10, the forensic convention).
    plo : float, optional
        An operating point: its Bayes threshold ``-plo`` (a vertical line) and where it
        crosses the curves (``1 - Pmiss`` and ``Pfa``).
    max_points : int
        Corners per curve.

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    The curves of :func:`llrlab.core.tippett`: ``#(tar >= x)/T`` (targets, H1 true, solid)
    and ``#(non >= x)/N`` (non-targets, H2 true, dashed); the legend gives the rates of
    misleading evidence (LR on the wrong side of 1).  The x axis spans 0.1 % to 99.9 % of
    each class.

    References
    ----------
    D. Meuwly, D. Ramos and R. Haraksim (2017), "A guideline for the validation of
    likelihood ratio methods used for forensic evidence evaluation", Forensic Science
    International 276:142-153.
    """
    sys_ = systems(data, non)
    multi = len(sys_) > 1
    lo, hi = (float(llr_to_unit(v, unit)) for v in histogram_range([s.analysis for s in sys_]))
    with drawing(ax, size) as ax:
        leg = Legend()
        ax.axvline(0.0, color=COLORS["default"], linewidth=0.6, zorder=1)
        for i, s in enumerate(sys_):
            c = tippett_curves(s.analysis, max_points=max_points)
            for cls, x, y, rme, what in (("tar", c.tar_llr, c.tar_ge, c.rme_tar,
                                          "targets (H1)"),
                                         ("non", c.non_llr, c.non_ge, c.rme_non,
                                          "non-targets (H2)")):
                dash = "solid" if cls == "tar" else CURVE_DASHES["non"]
                xs = finite(llr_to_unit(x, unit), lo, hi)
                if multi:
                    curve(ax, xs, y, color=s.color, dash=dash, system=s, index=i)
                else:
                    curve(ax, xs, y, color=COLORS[cls], dash=dash)
                    leg.line(f"{what}, misleading {100 * rme:.2g} %", color=COLORS[cls],
                             dash=dash)
            if multi:
                leg.line(f"{s.name}: misleading {100 * c.rme_tar:.2g} % / "
                         f"{100 * c.rme_non:.2g} %", color=s.color, system=s)
            if plo is not None:
                t = -float(plo)
                tar_ge, non_ge = c.at(t)
                x = float(llr_to_unit(t, unit))
                for y, role in ((tar_ge, "tar"), (non_ge, "non")):
                    ax.plot([x], [float(y)], linestyle="none", marker="o", zorder=5,
                            markerfacecolor=s.color if multi else COLORS[role],
                            markeredgecolor="black")
        if multi:
            leg.line("targets (H1)")
            leg.line("non-targets (H2)", dash=CURVE_DASHES["non"])
        if plo is not None:
            op_line(ax, float(llr_to_unit(-float(plo), unit)))
            leg.line(f"Bayes threshold (P\u0303 = {float(expit(plo)):.3g})",
                     color=COLORS["op"], dash="dashed", scale=0.9)
        ax.set_xlim(lo, hi)
        ax.set_ylim(0.0, 1.02)
        finish(ax, leg, legend, title, xlabel=llr_label(unit),
               ylabel="proportion of LRs ≥ x", legend_title=None if multi else sys_[0].name)
    return ax


def reliability(data, non=None, *, ax=None, size="column", plo=0.0, method="pav", bins=10,
                legend=True, title=None, max_points=4000):
    """Reliability diagram: the empirical posterior of the target hypothesis against the
    posterior the LLRs predict, at the prior ``sigmoid(plo)``.

    Parameters
    ----------
    data, non, ax, size, legend, title
        As in :func:`det`; the scores are natural-log LLRs.
    plo : float
        Prior log-odds of the posteriors (default 0: even prior odds, the LR alone).
    method : {"pav", "bins"}
        The PAV recalibration as the empirical posterior (a step function, no bins to
        choose), or ``bins`` equal bins of the predicted posterior (a point per bin).
    bins : int
    max_points : int
        Corners of the PAV step function.

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    The diagram of :func:`llrlab.core.reliability`; calibrated LLRs lie on the diagonal.

    References
    ----------
    Murphy & Winkler (1977); DeGroot & Fienberg (1983); T. Dimitriadis, T. Gneiting and
    A. I. Jordan (2021), "Stable reliability diagrams for probabilistic classifiers",
    PNAS 118(8):e2016191118.
    """
    sys_ = systems(data, non)
    multi = len(sys_) > 1
    with drawing(ax, size) as ax:
        import matplotlib as mpl

        leg = Legend()
        ax.plot([0, 1], [0, 1], color=COLORS["default"], linewidth=0.8, zorder=1,
                linestyle=(0, (2, 2)))
        leg.line("calibrated", color=COLORS["default"], dash="dotted", scale=0.6)
        for i, s in enumerate(sys_):
            r = reliability_diagram(s.analysis, plo=plo, method=method, bins=bins,
                                    max_points=max_points)
            color = s.color if multi else COLORS["map"]
            if method == "pav":
                curve(ax, r.predicted, r.empirical, color=color,
                      system=s if multi else None, index=i)
            else:
                ax.plot(r.predicted, r.empirical, color=color, zorder=3,
                        linewidth=float(mpl.rcParams["lines.linewidth"]) * 0.8,
                        marker=s.marker if multi else "o", markerfacecolor=color,
                        markeredgecolor=color)
            leg.line(s.name if multi else ("PAV" if method == "pav" else f"{bins} bins"),
                     color=color, system=s if multi else None)
        ax.set_xlim(0.0, 1.0)
        ax.set_ylim(0.0, 1.0)
        ax.set_aspect("equal", adjustable="box")
        prior = float(expit(plo))
        finish(ax, leg, legend, title,
               xlabel=f"predicted posterior P(H1 | LR), prior {prior:.3g}",
               ylabel="empirical posterior", legend_title=None if multi else sys_[0].name,
               loc="upper left")
    return ax
