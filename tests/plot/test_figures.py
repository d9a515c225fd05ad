"""The figure functions of ``llrlab.core.plot``: what each draws is the core's numbers (the
curves' points, the operating point, the DR30 markers), the inputs they take, the axes and
legends, and one-line errors."""

from __future__ import annotations

import itertools

import matplotlib
import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from llrlab.core import (
    LlrlabError,
    Trials,
    analyze,
    ape_curves,
    ece_curves,
    epc,
    gaussian_trials,
    plo_from_costs,
    plot,
    probit,
    reliability,
    tippett,
)
from llrlab.core.palette import COLORS, SYSTEM_COLORS

PLO = float(plo_from_costs(0.01))


@pytest.fixture(scope="module")
def a():
    return gaussian_trials(600, 6000, seed=1, scale=1.3, shift=-0.4)


@pytest.fixture(scope="module")
def b():
    return gaussian_trials(600, 6000, seed=2, scale=0.8)


def _lines(ax, color=None):
    return [ln for ln in ax.get_lines() if len(ln.get_xdata()) > 2 and
            (color is None or matplotlib.colors.to_hex(ln.get_color()) == color.lower())]


def _points(ax, marker):
    return [(float(ln.get_xdata()[0]), float(ln.get_ydata()[0])) for ln in ax.get_lines()
            if ln.get_marker() == marker and len(ln.get_xdata()) == 1]


def _legend(ax):
    leg = ax.get_legend() or (ax.figure.legends[0] if ax.figure.legends else None)
    return [t.get_text() for t in leg.get_texts()]


@pytest.mark.parametrize("kind", ["det", "nber", "ape", "ece", "tippett", "reliability",
                                  "hist"])
def test_each_kind_takes_tar_non_trials_and_analysis_alike(kind, a):
    f = plot.KINDS[kind]
    drawn = []
    for args in ((a.tar, a.non), (a,), (analyze(a),)):
        ax = f(*args)
        assert isinstance(ax, matplotlib.axes.Axes)
        drawn.append([np.asarray(ln.get_ydata(), float) for ln in _lines(ax)]
                     + [p.get_data().values for p in ax.patches
                        if isinstance(p, matplotlib.patches.StepPatch)])
    for other in drawn[1:]:
        assert len(other) == len(drawn[0]) > 0
        for x, y in zip(drawn[0], other, strict=True):
            assert_array_equal(x, y)


def test_det_draws_the_core_det_curves_on_probit_axes(a):
    ax = plot.det(a, kind="both", max_points=1500)
    an = analyze(a)
    for kind in ("rocch", "steppy"):
        (line,) = _lines(ax, COLORS[kind])
        c = an.det(kind, max_points=1500)
        assert_array_equal(line.get_xdata(), c.x)
        assert_array_equal(line.get_ydata(), c.y)
    assert ax.get_xlabel() == "false-alarm probability (%)"
    assert ax.get_ylabel() == "miss probability (%)"
    assert ax.get_aspect() == 1.0  # equal probit scales


def test_det_ticks_are_probabilities_in_percent_that_do_not_collide(a):
    ax = plot.det(a, size="double", p_range=(0.001, 0.4))
    ax.figure.canvas.draw()
    labels = [t.get_text() for t in ax.get_xticklabels()]
    assert labels == ["0.1", "0.2", "0.5", "1", "2", "5", "10", "20", "40"]
    assert_allclose(ax.get_xticks(), probit([0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1,
                                             0.2, 0.4]))
    assert ax.get_xlim() == pytest.approx((probit(0.001), probit(0.4)))
    # a narrow plot keeps fewer, never overlapping
    ax = plot.det(a, size=(1.6, 1.6), p_range=(0.001, 0.4))
    ax.figure.canvas.draw()
    r = ax.figure.canvas.get_renderer()
    boxes = [t.get_window_extent(r) for t in ax.get_xticklabels() if t.get_text()]
    assert 3 <= len(boxes) < 9
    assert all(b0.x1 < b1.x0 for b0, b1 in itertools.pairwise(boxes))


def test_det_range_follows_the_trials_and_holds_the_points(a):
    ax = plot.det(a, plo=PLO)
    # 6000 non-targets: 1/N below 0.1 % snaps to 0.01 %; 600 targets: 0.1 %
    assert ax.get_xlim()[0] == pytest.approx(float(probit(0.0001)))
    assert ax.get_ylim()[0] == pytest.approx(float(probit(0.001)))
    an = analyze(a)
    fa, miss = an.det_dr30("rocch")
    m = an.at(PLO).min
    top = ax.get_xlim()[1]
    assert top >= float(probit(max(fa[1], miss[0], m.p_fa, m.p_miss, an.eer)))


def test_det_marks_eer_dr30_and_both_operating_points_where_the_core_puts_them(a):
    ax = plot.det(a, plo=PLO)
    an = analyze(a)
    (eer,) = _points(ax, "D")
    assert eer == pytest.approx((float(probit(an.eer)),) * 2)
    fa, miss = an.det_dr30("rocch")
    assert _points(ax, "^") == [pytest.approx(tuple(float(v) for v in probit(fa)))]
    assert _points(ax, "v") == [pytest.approx(tuple(float(v) for v in probit(miss)))]
    op = an.at(PLO)
    assert _points(ax, "o") == [pytest.approx((float(probit(op.act.p_fa)),
                                               float(probit(op.act.p_miss))))]
    assert _points(ax, "s") == [pytest.approx((float(probit(op.min.p_fa)),
                                               float(probit(op.min.p_miss))))]
    labels = _legend(ax)
    for text in ("EER", "30 false alarms (DR30)", "30 misses (DR30)",
                 "actual operating point", "minimum-DCF point", "fewer than 30 errors"):
        assert text in labels
    # the regions beyond the DR30 points are shaded, and only them
    shaded = [p for p in ax.patches if p.get_alpha() is not None and p.get_alpha() < 0.5]
    assert len(shaded) == 2
    band_fa, band_miss = shaded
    assert band_fa.get_x() + band_fa.get_width() == pytest.approx(float(probit(fa[0])))
    assert band_fa.get_x() == pytest.approx(ax.get_xlim()[0])
    assert band_miss.get_y() + band_miss.get_height() == pytest.approx(float(probit(miss[1])))


def test_det_points_off_the_axes_are_drawn_on_the_edge_with_an_arrow():
    # perfectly separated: Pmiss = 0 at the actual operating point
    t = Trials(np.r_[np.full(50, 8.0), np.linspace(-6, -1, 400)], np.r_[np.ones(50, bool),
                                                                       np.zeros(400, bool)])
    assert analyze(t).at(0.0).act.p_miss == 0.0
    ax = plot.det(t, plo=0.0)
    (x, y), = _points(ax, "o")
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    assert x0 < x < x1 and y0 < y < y1  # inside, on the edge
    assert any(isinstance(c, matplotlib.text.Annotation) for c in ax.get_children())


def test_several_systems_get_a_colour_and_glyph_each_and_a_legend(a, b):
    ax = plot.det({"A": a, "B": b}, plo=PLO)
    assert _legend(ax)[:2] == ["A", "B"]
    for color, data in zip(SYSTEM_COLORS, (a, b), strict=False):
        (line,) = _lines(ax, color)
        assert_array_equal(line.get_ydata(), analyze(data).det("rocch", 2000).y)
        assert line.get_marker() not in ("None", None, "")
    assert len(_points(ax, "o")) == 2 and len(_points(ax, "D")) == 2

    def bands(ax):
        return [p for p in ax.patches if p.get_alpha() and p.get_alpha() < 0.5]

    # the regions beyond DR30 (Pfa < 30/N, Pmiss < 30/T) are shaded when the systems have
    # the same numbers of trials, not otherwise
    assert len(bands(ax)) == 2
    assert not bands(plot.det({"A": a, "C": gaussian_trials(300, 6000, seed=3)}))
    # a class of fewer than 30 trials: unreliable everywhere along its axis
    ax = plot.det(gaussian_trials(20, 6000, seed=3))
    (band_miss,) = [p for p in bands(ax) if p.get_width() == 1]  # (x in axes units)
    assert band_miss.get_y() + band_miss.get_height() == pytest.approx(ax.get_ylim()[1])


def test_extra_markers_have_their_place_on_the_det(a, b):
    m = plot.Marker(0.01, 0.2, "FNMR at FMR 1 %", system="B")
    ax = plot.det({"A": a, "B": b}, markers=[m])
    (pt,) = _points(ax, "h")
    assert pt == pytest.approx((float(probit(0.01)), float(probit(0.2))))
    line = next(ln for ln in ax.get_lines() if ln.get_marker() == "h")
    assert matplotlib.colors.to_hex(line.get_markerfacecolor()) == SYSTEM_COLORS[1].lower()
    assert "FNMR at FMR 1 %" in _legend(ax)


def test_nber_draws_act_and_min_dcf_dr30_and_the_operating_point(a):
    grid = np.linspace(-7, 3, 1001)
    ax = plot.nber(a, plo=PLO)
    an = analyze(a)
    act, mn = an.curves(grid)
    (la,) = _lines(ax, COLORS["act"])
    (lm,) = _lines(ax, COLORS["min"])
    assert_array_equal(la.get_xdata(), grid)
    assert_array_equal(la.get_ydata(), act.dcf)
    assert_array_equal(lm.get_ydata(), mn.dcf)
    d = an.dr30
    assert _points(ax, "^") == [pytest.approx((d.plo_fa, d.dcf_fa))]
    assert _points(ax, "v") == [pytest.approx((d.plo_miss, d.dcf_miss))]
    op = an.at(PLO)
    assert _points(ax, "o") == [pytest.approx((PLO, op.act_dcf))]
    assert _points(ax, "s") == [pytest.approx((PLO, op.min_dcf))]
    assert ax.get_xlabel().startswith("prior log-odds")
    assert ax.get_ylabel() == "normalized DCF"
    # the contributions of misses and false alarms sum to the actual DCF
    ax = plot.nber(a, contributions=True)
    (miss,) = _lines(ax, COLORS["miss"])
    (fa,) = _lines(ax, COLORS["fa"])
    assert_allclose(miss.get_ydata() + fa.get_ydata(), act.dcf)


def test_ape_and_ece_draw_the_core_curves_and_the_cllr_split(a):
    grid = np.linspace(-10, 10, 401)
    c = ape_curves(a, plo=grid)
    ax = plot.ape(a)
    assert_array_equal(_lines(ax, COLORS["act"])[0].get_ydata(), c.bayes_error)
    assert_array_equal(_lines(ax, COLORS["min"])[0].get_ydata(), c.min_bayes_error)
    assert_array_equal(_lines(ax, COLORS["default"])[0].get_ydata(), c.default)
    title = ax.get_legend().get_title().get_text()
    assert title == (f"Cllr {c.cllr:.3g} = {c.min_cllr:.3g} + "
                     f"{c.calibration_loss:.3g} bits")
    e = ece_curves(a, plo=grid)
    ax = plot.ece(a)
    assert_allclose(_lines(ax, COLORS["act"])[0].get_ydata(), e.ce / np.log(2), rtol=1e-15)
    assert_allclose(_lines(ax, COLORS["min"])[0].get_ydata(), e.min_ce / np.log(2),
                    rtol=1e-15)
    assert ax.get_ylabel() == "empirical cross-entropy (bits)"


def test_epc_draws_hter_of_the_core_epc_and_the_operating_point(a, b):
    c = epc(a, b)
    ax = plot.epc((a, b), plo=PLO)
    (line,) = _lines(ax)
    assert_array_equal(line.get_xdata(), c.alpha)
    assert_allclose(line.get_ydata(), 100 * c.hter)
    op = [ln for ln in ax.get_lines() if len(ln.get_xdata()) == 2]
    assert op[0].get_xdata()[0] == pytest.approx(0.99)  # alpha = 1 - P~
    ax = plot.epc({"A": (a, b), "B": c})
    assert _legend(ax) == ["A", "B"]


def test_tippett_in_log10_with_misleading_evidence_and_the_threshold(a):
    c = tippett(a)
    ax = plot.tippett(a, plo=PLO)
    (tar,) = _lines(ax, COLORS["tar"])
    (non,) = _lines(ax, COLORS["non"])
    assert_allclose(tar.get_xdata(), c.tar_llr / np.log(10), rtol=1e-15)
    assert_array_equal(tar.get_ydata(), c.tar_ge)
    assert_array_equal(non.get_ydata(), c.non_ge)
    assert ax.get_xlabel() == "log10(LR)"
    assert f"targets (H1), misleading {100 * c.rme_tar:.2g} %" in _legend(ax)
    t_ge, n_ge = c.at(-PLO)
    assert _points(ax, "o") == [pytest.approx((-PLO / np.log(10), t_ge)),
                                pytest.approx((-PLO / np.log(10), n_ge))]
    assert plot.tippett(a, unit="bits").get_xlabel() == "log2(LR) (bits)"


def test_reliability_pav_and_bins(a):
    r = reliability(a, plo=0.0, method="pav")
    ax = plot.reliability(a)
    (line,) = _lines(ax, COLORS["map"])
    assert_array_equal(line.get_xdata(), r.predicted)
    assert_array_equal(line.get_ydata(), r.empirical)
    r = reliability(a, plo=1.0, method="bins", bins=8)
    ax = plot.reliability(a, plo=1.0, method="bins", bins=8)
    line = next(ln for ln in ax.get_lines() if ln.get_marker() == "o")
    assert_array_equal(line.get_ydata(), r.empirical)
    assert "prior 0.731" in ax.get_xlabel()


def test_hist_densities_in_each_unit(a):
    from llrlab.core.histogram import histogram_edges, histogram_range, score_histogram

    an = analyze(a)
    h = score_histogram(an, histogram_edges(*histogram_range([an]), bins=40))
    for unit, k in ((None, 1.0), ("log10", 1 / np.log(10))):
        ax = plot.hist(a, unit=unit, bins=40, plo=PLO)
        steps = [p for p in ax.patches if p.get_fill() is False]
        assert len(steps) == 2
        tar = steps[0].get_data()
        assert_allclose(tar.edges, h.edges * k)
        assert_allclose(tar.values, h.tar / k)
        assert np.sum(tar.values * np.diff(tar.edges)) == pytest.approx(
            np.sum(h.tar * np.diff(h.edges)))
    assert ax.get_xlabel() == "log10(LR)"
    assert plot.hist(a).get_xlabel() == "score"


def test_drawing_on_given_axes_keeps_the_callers_figure(a, b):
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2)
    assert plot.nber(a, ax=axes[0]) is axes[0]
    assert plot.det({"A": a, "B": b}, ax=axes[1]) is axes[1]
    assert axes[1].get_legend() is not None and not fig.legends


@pytest.mark.parametrize("call, message", [
    (lambda a: plot.det(a, kind="roc"), "unknown DET kind"),
    (lambda a: plot.det(a, p_range=(0.5, 0.1)), "p_range must be two probabilities"),
    (lambda a: plot.nber(a, plo_range=(3, -3)), "plo_range needs finite LO < HI"),
    (lambda a: plot.tippett(a, unit="dB"), "unknown LLR unit"),
    (lambda a: plot.reliability(a, method="isotonic"), "unknown reliability method"),
    (lambda a: plot.hist({"A": a, "B": a}), "hist draws one system per Axes"),
    (lambda a: plot.det({}), "the mapping of systems is empty"),
    (lambda a: plot.det({"A": [1.0, 2.0]}), "system 'A': give (tar, non) scores"),
    (lambda a: plot.epc({"A": a}), "an EPC needs a (dev, eval) pair"),
    (lambda a: plot.det(a, size="huge"), "unknown figure size"),
])
def test_bad_arguments_raise_one_clear_error(a, call, message):
    with pytest.raises(LlrlabError, match=message.replace("(", r"\(").replace(")", r"\)")):
        call(a)


SMALL = {"one of each": ([1.0], [0.0]), "all tied": ([0.0] * 5, [0.0] * 7),
         "separated": ([5.0, 6.0], [-5.0, -6.0]), "wrong side": ([-5.0], [5.0, 6.0]),
         "huge": ([1e300, 2e300], [-1e300, 0.0])}


@pytest.mark.parametrize("case", list(SMALL))
def test_tiny_and_extreme_sets_draw_every_figure_without_a_warning(case):
    import io

    tar, non = SMALL[case]
    for kind, f in plot.KINDS.items():
        if kind == "epc":
            ax = f(((tar, non), (tar, non)), plo=-2.0)
        elif kind == "reliability":
            ax = f(tar, non)
        else:
            ax = f(tar, non, plo=-2.0)
        for fmt in ("png", "pdf"):  # (warnings are errors: no collapsed layout)
            ax.figure.savefig(io.BytesIO(), format=fmt)


def test_nber_shades_everywhere_when_no_prior_keeps_30_errors():
    ax = plot.nber([-5.0], [5.0, 6.0], plo=-2.0)  # DR30 markers at +-inf
    bands = [p for p in ax.patches if p.get_alpha() and p.get_alpha() < 0.5]
    assert [(p.get_x(), p.get_x() + p.get_width()) for p in bands] == [(-7.0, 3.0)] * 2
    # the actual DCF at the operating point (8.4) lies above the axis: not drawn over it
    assert ax.get_ylim()[1] < 8
