"""Score histograms of the two classes, with the Bayes threshold."""

from __future__ import annotations

from scipy.special import expit

from ..errors import DataError
from ..forensic import llr_label, llr_to_unit
from ..histogram import HIST_BINS, TAIL, histogram_edges, histogram_range, score_histogram
from ..palette import COLORS, CURVE_DASHES
from ._draw import Legend, finish, linestyle, op_line
from ._style import drawing
from ._systems import systems

__all__ = ["hist"]


def hist(data, non=None, *, ax=None, size="column", unit=None, plo=None, bins=HIST_BINS,
         tail=TAIL, legend=True, title=None):
    """Histograms of the target and non-target scores of one system, as densities.

    Parameters
    ----------
    data, non : array_like, Trials, Analysis, or a mapping of one system
        As in :func:`det`; one system per Axes (draw several on the Axes of
        ``plt.subplots(n)``).
    ax, size, legend, title
        As in :func:`det`.
    unit : {None, "ln", "log10", "bits"}
        None: the scores as they are (x axis "score"); otherwise the scores are LLRs shown
        in that unit.
    plo : float, optional
        Draw the Bayes threshold ``-plo`` of the scores read as natural-log LLRs.
    bins : int
        Equal bins over the 0.1 % to 99.9 % quantiles of each class (``tail``), padded by
        4 % (:func:`llrlab.core.histogram.histogram_range`).
    tail : float

    Returns
    -------
    matplotlib Axes

    Notes
    -----
    Each class integrates to its share of trials inside the range (densities of
    :func:`llrlab.core.histogram.score_histogram`; per unit of the x axis).  Targets
    solid, non-targets dashed.
    """
    sys_ = systems(data, non)
    if len(sys_) > 1:
        raise DataError(f"hist draws one system per Axes, got {len(sys_)}; call it once per "
                        f"system (for example on the Axes of plt.subplots({len(sys_)}))")
    s = sys_[0]
    a = s.analysis
    if int(bins) < 1:
        raise DataError(f"bins must be at least 1, got {bins}")
    h = score_histogram(a, histogram_edges(*histogram_range([a], tail), bins=int(bins)))
    k = 1.0 if unit is None else float(llr_to_unit(1.0, unit))
    with drawing(ax, size) as ax:
        import matplotlib as mpl

        lw = float(mpl.rcParams["lines.linewidth"]) * 0.9
        leg = Legend()
        for cls, dens, n, what in (("tar", h.tar, a.n_tar, "targets"),
                                   ("non", h.non, a.n_non, "non-targets")):
            dash = "solid" if cls == "tar" else CURVE_DASHES["non"]
            ax.stairs(dens / k, h.edges * k, fill=True, color=COLORS[cls], alpha=0.15,
                      linewidth=0, zorder=1.5)
            ax.stairs(dens / k, h.edges * k, color=COLORS[cls], linewidth=lw,
                      linestyle=linestyle(dash, lw), zorder=2.5)
            leg.line(f"{what} ({n:,})", color=COLORS[cls], dash=dash, scale=0.9)
        if plo is not None:
            op_line(ax, -float(plo) * k)
            leg.line(f"Bayes threshold (P\u0303 = {float(expit(plo)):.3g})",
                     color=COLORS["op"], dash="dashed", scale=0.9)
        ax.set_xlim(float(h.edges[0] * k), float(h.edges[-1] * k))
        ax.set_ylim(bottom=0.0)
        finish(ax, leg, legend, title, xlabel="score" if unit is None else llr_label(unit),
               ylabel="density", legend_title=s.name)
    return ax
