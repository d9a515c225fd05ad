"""Every number and comparison the built-in lessons state, checked against what the step
computes.

Each test walks to one step through the dashboard's state (no browser: the same state a page
shows), then, statement by statement, checks that the step's text still says it
(:func:`says`, so that editing a sentence breaks its test) and that it holds on the step's own
data: ``says(step, "always accepting costs 9")`` is followed by the check of that number.
Numbers are checked as the text rounds them.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import expit

from llrlab import core
from llrlab.dashboard.app import demo_specs, load_specs
from llrlab.dashboard.state import DashboardState, SyncRunner


def plain(text):
    return " ".join(text.split())


def says(step, phrase):
    """The step's text (white space folded) contains ``phrase``."""
    assert phrase in plain(step.text), f"step {step.title!r} no longer says {phrase!r}"


class Walk:
    """A session with the demo data and one built-in lesson open; ``at(k)`` shows step k
    exactly as the lesson sets it (also after a test changed something)."""

    def __init__(self, lesson_id):
        self.st = DashboardState(runner=SyncRunner())
        load_specs(self.st, demo_specs())
        self.st.lesson.open(lesson_id)
        self.lesson = self.st.lesson.current()

    def at(self, k):
        st = self.st
        st.lesson.step = k
        st.restore(self.lesson.step(k).snapshot())
        assert st.status.error == ""
        return self.lesson.step(k), st

    def eval(self):
        return self.st.results.datasets["eval"].llr

    def curve(self, role="eval"):
        """(plo grid, act DCF, min DCF) of the NBER plot as drawn."""
        nb = self.st.nber
        act, mn = nb.sets[role]
        return nb.plo, np.asarray(act.dcf), np.asarray(mn.dcf)


@pytest.fixture(scope="module")
def cal():
    return Walk("calibration")


def _r(x, digits=2):
    return round(float(x), digits)


# ------------------------------------------------------------------ the calibration lesson


def test_step_01_what_an_llr_is(cal):
    step, st = cal.at(1)
    says(step, "target scores follow $\\mathcal{N}(3, 2^2)$ and non-target scores "
               "$\\mathcal{N}(0, 1)$")
    t = st.teaching
    assert (t.mu_tar, t.sigma_tar, t.mu_non, t.sigma_non) == (3.0, 2.0, 0.0, 1.0)
    assert (t.scale, t.shift) == (1.0, 0.0)  # "the true LLR of every trial is known"
    # the parabola, its vertex at s = -1 and its value there
    says(step, "$\\mathrm{LLR}(s) = (3s^2 + 6s - 9)/8 - \\ln 2$, lowest at $s = -1$, where "
               "it is $-3/2 - \\ln 2 \\approx -2.19$")
    model = core.GaussianModel(3.0, 2.0, 0.0, 1.0)
    s = np.linspace(-8.0, 8.0, 1601)
    np.testing.assert_allclose(model.llr(s), (3 * s**2 + 6 * s - 9) / 8 - math.log(2),
                               rtol=1e-12, atol=1e-12)
    vertex = -1.5 - math.log(2)
    assert s[np.argmin(model.llr(s))] == pytest.approx(-1.0)
    assert _r(vertex) == -2.19
    e = cal.eval()
    says(step, "No trial gets a lower LLR")
    lowest = min(e.sorted.tar[0], e.sorted.non[0])
    assert vertex - 1e-12 <= lowest < vertex + 0.01
    says(step, "92 % of the non-targets lie between −2.2 and 0")
    non = e.sorted.non
    assert round(100 * np.mean((non >= -2.2) & (non <= 0.0))) == 92
    says(step, "A very low score even favours the target")
    assert model.llr(np.array([-4.0]))[0] > 0


def test_step_02_the_bayes_threshold(cal):
    step, st = cal.at(2)
    says(step, "With $P_\\text{tar} \\approx 0.1$ and equal costs, $\\mathrm{plo} = -2.2$")
    assert round(st.point.p_target, 2) == 0.1 and st.point.c_miss == st.point.c_fa
    assert st.point.plo == pytest.approx(-2.2, abs=1e-12)
    assert math.log(0.1 / 0.9) == pytest.approx(-2.2, abs=0.01)
    says(step, "accept when $\\mathrm{LLR} \\ge -\\mathrm{plo}$")
    says(step, "accepted only when its LLR is at least 2.2")
    assert core.bayes_threshold(st.point.plo) == pytest.approx(2.2)
    # the table's act Pmiss / Pfa are those of that threshold
    op, e = st.op["eval"], cal.eval()
    assert op.act.p_miss == pytest.approx(np.mean(e.sorted.tar < 2.2))
    assert op.act.p_fa == pytest.approx(np.mean(e.sorted.non >= 2.2))


def test_step_03_actual_and_minimum_dcf(cal):
    step, st = cal.at(3)
    pi = st.point.effective_prior
    says(step, "At this step's $\\pi \\approx 0.1$, always accepting costs 9")
    assert round(pi, 1) == 0.1
    always = np.full(3, 50.0)  # every LLR far above any threshold: every trial accepted
    assert round(core.act_dcf(always, always, st.point.plo).dcf) == 9
    says(step, "Always rejecting costs $\\pi$ and always accepting $1 - \\pi$ before the "
               "division: the normalizer is the better of the two, which then costs 1")
    never = -always
    assert core.act_dcf(never, never, st.point.plo).dcf == pytest.approx(1.0)
    assert min(pi, 1 - pi) == pi
    says(step, "This system outputs LLR + 2, so its act DCF (0.79) exceeds its min DCF (0.45)")
    assert st.teaching.shift == 2 and st.teaching.scale == 1
    op = st.op["eval"]
    assert (_r(op.act_dcf), _r(op.min_dcf)) == (0.79, 0.45)


def test_step_04_the_nber_plot(cal):
    step, _ = cal.at(4)
    says(step, "at the far left of the plot, below a prior log-odds of −6, this shifted "
               "system comes up to that line, no better than ignoring its scores")
    plo, act, mn = cal.curve()
    left = plo < -6.0
    assert left.any() and np.all(np.abs(act[left] - 1.0) < 0.06)
    assert np.all(act[(plo > -3.0) & (plo < 0.0)] < 0.9)  # well below the line elsewhere
    says(step, "where they part, calibration costs")
    at = np.argmin(np.abs(plo + 2.2))
    assert act[at] - mn[at] > 0.3
    says(step, "The line at 1 is the default system, which ignores its scores")
    zero = np.zeros(5)
    assert np.allclose(core.act_dcf(zero, zero, plo).dcf, 1.0)


def test_step_05_the_det_plot_rocch_and_eer(cal):
    step, st = cal.at(5)
    e = cal.eval()
    says(step, "min DCF at any prior is attained at one of its vertices")
    h = e.rocch
    for plo in (-4.0, -2.2, 0.0, 1.5):
        pi = expit(plo)
        by_vertex = np.min(pi * h.p_miss + (1 - pi) * h.p_fa) / min(pi, 1 - pi)
        assert e.at(plo).min_dcf == pytest.approx(by_vertex, rel=1e-12)
    says(step, "$P_\\text{miss} = P_\\text{fa}$: 15.6 % here")
    assert round(100 * e.eer, 1) == 15.6
    says(step, "Gaussian scores give nearly straight lines")
    det = e.det("rocch")
    x, y = np.asarray(det.x), np.asarray(det.y)
    keep = np.isfinite(x) & np.isfinite(y) & (np.abs(x) < 2.3) & (np.abs(y) < 2.3)
    fit = np.polyfit(x[keep], y[keep], 1)
    assert np.max(np.abs(np.polyval(fit, x[keep]) - y[keep])) < 0.15  # probit units
    says(step, "the shifted system of steps 3 and 4 has the same EER and min DCF")
    eer, mn = e.eer, st.op["eval"].min_dcf
    _, st3 = cal.at(3)
    assert cal.eval().eer == pytest.approx(eer, rel=1e-12)
    assert st3.op["eval"].min_dcf == pytest.approx(mn, rel=1e-12)


def test_step_06_pav_overfits(cal):
    step, st = cal.at(6)
    says(step, "with 300 targets, its Cllr is lower on dev than on eval (0.48 against 0.50 "
               "bits here)")
    assert (st.calibration.method, st.teaching.n_tar) == ("pav", 300)
    d = st.results.datasets
    dev, ev = d["dev"].llr.cllr, d["eval"].llr.cllr
    assert dev < ev and (_r(dev), _r(ev)) == (0.48, 0.50)
    says(step, "Switch the calibration to affine: with two parameters it cannot follow the "
               "noise, and dev and eval score about the same (0.500 and 0.503 bits)")
    st.calibration.method = "affine"
    d = st.results.datasets
    adev, aev = d["dev"].llr.cllr, d["eval"].llr.cllr
    assert (_r(adev, 3), _r(aev, 3)) == (0.500, 0.503)
    assert abs(aev - adev) < (ev - dev) / 4


def test_step_07_a_scale_or_a_shift(cal):
    from llrlab.dashboard.views._common import COLORS, REF_COLORS

    step, st = cal.at(7)
    plo, act, _ = cal.curve()
    true_act = np.asarray(st.nber.sets["true"][0].dcf)
    refs = {label: np.asarray(a.dcf) for label, a in st.nber.references}
    says(step, "2 × LLR (over-confident; this step's system, so its act DCF runs along it), "
               "0.5 × LLR (under-confident), LLR + 2 and LLR − 2")
    assert list(refs) == ["2 × LLR", "0.5 × LLR", "LLR + 2", "LLR − 2"]
    assert st.teaching.references and st.teaching.scale == 2
    np.testing.assert_allclose(act, refs["2 × LLR"], rtol=0, atol=1e-12)
    says(step, "Each miscalibration costs more than the true LLR almost everywhere")
    for label, r in refs.items():
        assert np.mean(r > true_act + 1e-12) >= 0.9, label
    says(step, "LLR + 2 at every plotted prior log-odds below 2, on both sides of 0")
    below = plo < 2.0
    assert plo.min() < 0 < 2.0 < plo.max()
    assert np.all(refs["LLR + 2"][below] > true_act[below])
    says(step, "A scale costs nothing at $\\mathrm{plo} = 0$, where 2 × LLR and LLR share the "
               "threshold 0, and more the further out")
    at0 = np.argmin(np.abs(plo))
    assert plo[at0] == pytest.approx(0.0, abs=1e-9)
    assert refs["2 × LLR"][at0] == pytest.approx(true_act[at0], abs=1e-12)
    gap = refs["2 × LLR"] - true_act
    for lo, hi in ((-3.0, -1.0), (-7.0, -3.0)):
        inner = gap[(plo >= lo) & (plo < hi)]
        assert inner.mean() > 0
    assert gap[(plo >= -7) & (plo < -3)].mean() > gap[(plo >= -3) & (plo < -1)].mean()
    assert gap[(plo > 1) & (plo < 2)].mean() > gap[(plo > 0) & (plo < 0.5)].mean() > 0
    says(step, "Min DCF is the same for all of them")
    tar, non = (cal.st.results.datasets["true"].llr.sorted.tar,
                cal.st.results.datasets["true"].llr.sorted.non)
    base = core.analyze(tar, non).min.dcf
    for a, b in ((2.0, 0.0), (0.5, 0.0), (1.0, 2.0), (1.0, -2.0)):
        np.testing.assert_allclose(core.min_dcf(a * tar + b, a * non + b, core.analyze(
            tar, non).plo).dcf, base, rtol=1e-12)
    says(step, "The thin dashed curves")
    says(step, "the scales in blue, the shifts in wine, each with its own dashes")
    assert REF_COLORS == ("#0072B2", "#0072B2", "#882255", "#882255")  # blue, blue, wine, wine
    says(step, "The thick green curve is the true LLR")
    assert COLORS["true"] not in REF_COLORS  # (the LLR + 2 reference was drawn in it)
    assert COLORS["true"] == "#009E73"  # bluish green (Okabe & Ito)


def _contrast(color):
    def lin(c):
        c /= 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (lin(int(color[i:i + 2], 16)) for i in (1, 3, 5))
    return 1.05 / (0.2126 * r + 0.7152 * g + 0.0722 * b + 0.05)


def test_the_reference_curves_are_dashed_distinct_and_visible_on_white():
    """Step 7 names them 'dashed' and tells them apart by colour and dashes: no two share
    both, none is drawn in the true LLR's colour or solid, each is at least WCAG's 3:1
    against the white plot (the yellow it replaced had 1.32:1)."""
    from llrlab.dashboard.state import DashboardState as State
    from llrlab.dashboard.views._common import COLORS, REF_COLORS, REF_DASHES, line_dash
    from llrlab.dashboard.views.nber import NBERView

    assert len(set(zip(REF_COLORS, REF_DASHES, strict=True))) == len(REF_COLORS) == 4
    assert len(set(REF_DASHES)) == 4
    for c in REF_COLORS:
        assert _contrast(c) >= 3.0, c
        assert c not in (COLORS["true"], COLORS["act"], COLORS["min"], COLORS["op"])
    view = NBERView(state=State(runner=SyncRunner()))
    drawn = [(r.glyph.line_color, tuple(r.glyph.line_dash)) for r in view.ref_renderers]
    assert drawn == [(c, tuple(line_dash(d))) for c, d in
                     zip(REF_COLORS, REF_DASHES, strict=True)]
    assert all(dash for _, dash in drawn)  # none solid
    assert _contrast("#F0E442") < 1.4


def test_step_08_affine_calibration(cal):
    step, st = cal.at(8)
    says(step, "This system outputs $2\\,\\mathrm{LLR} - 1$, so the fitted map is close to "
               "$(s + 1)/2$ (here $a = 0.50$, $b = 0.53$)")
    assert (st.teaching.scale, st.teaching.shift, st.calibration.method) == (2, -1, "affine")
    c = st.results.calibration
    assert (_r(c.scale), _r(c.offset)) == (0.50, 0.53)
    says(step, "act DCF comes back to within a few hundredths of min DCF across the whole plot")
    _, act, mn = cal.curve()
    assert np.max(act - mn) < 0.05
    says(step, "Brümmer 2010, sec. 8.3.1, eq. 8.16–8.17; Brümmer & de Villiers 2011, sec. 2.7.2")


def test_step_09_dr30(cal):
    step, st = cal.at(9)
    says(step, "With 10,000 non-targets, the operating point at $\\mathrm{plo} = -5$ lies left "
               "of the false-alarm triangle, and the table's \"DR30-safe\" says NO")
    assert st.teaching.n_non == 10_000 and st.point.plo == pytest.approx(-5.0)
    e = cal.eval()
    assert st.point.plo < e.dr30.plo_fa
    assert st.op["eval"].dr30_safe is False
    assert "metrics" in step.show and "metrics.dr30_safe" in step.highlight
    from llrlab.dashboard.views.metrics import MetricsView

    table = MetricsView(state=st).table.object
    assert "DR30-safe" in table and "NO" in table
    says(step, "The triangles mark where the min-DCF threshold leaves fewer than 30 false "
               "alarms (left)")
    h, pi = e.rocch, expit(st.point.plo)
    best = np.argmin(pi * h.p_miss + (1 - pi) * h.p_fa)  # the min-DCF threshold here
    assert round(h.p_fa[best] * e.n_non) < 30


def test_step_10_cllr_integrates_the_bayes_error(cal):
    step, _ = cal.at(10)
    e = cal.eval()
    says(step, "likewise, so $$\\int E(h)\\, dh = 2 \\ln 2 \\cdot C_\\text{llr}.$$")
    grid = np.linspace(-60.0, 60.0, 96_001)
    ape = core.ape_curves(e, plo=grid)
    step_h = grid[1] - grid[0]
    integral = np.trapezoid(ape.bayes_error, dx=step_h)
    assert integral == pytest.approx(2 * math.log(2) * e.cllr, rel=2e-4)
    says(step, "The same integral of the minimum curve gives **min Cllr**")
    integral_min = np.trapezoid(ape.min_bayes_error, dx=step_h)
    assert integral_min == pytest.approx(2 * math.log(2) * e.min_cllr, rel=2e-4)
    says(step, "$\\int_{-\\infty}^{-\\ell} \\sigma(h)\\, dh = \\ln(1 + e^{-\\ell})$")
    for ell in (-3.0, 0.0, 2.5):
        h = np.linspace(-60.0, -ell, 200_001)
        assert np.trapezoid(expit(h), h) == pytest.approx(math.log1p(math.exp(-ell)),
                                                          rel=1e-6)
    says(step, "here 0.69 = 0.49 + 0.21 bits")
    assert (_r(e.cllr), _r(e.min_cllr), _r(e.cllr - e.min_cllr)) == (0.69, 0.49, 0.21)
    says(step, "A system that ignores its scores (every LLR 0) has Cllr = 1")
    assert core.cllr(np.zeros(4), np.zeros(7)) == pytest.approx(1.0)
    says(step, "Brümmer & de Villiers 2011, eq. 18")


def test_step_11_pooling_conditions(cal):
    step, st = cal.at(11)
    says(step, "a pooled measure mostly reflects the largest one (tel, 60 % of the trials)")
    d = st.results.datasets["eval"]
    sizes = {c.name: c.llr.n_tar + c.llr.n_non for c in d.conditions}
    assert max(sizes, key=sizes.get) == "tel"
    assert round(100 * sizes["tel"] / sum(sizes.values())) == 60
    says(step, "van Leeuwen (2008) weights the trials so that each condition counts equally "
               "(eq. 12–13)")
    assert st.conditions.weighting == "equal per condition"


# ------------------------------------------------------------------ the forensic lesson


@pytest.fixture(scope="module")
def fx():
    return Walk("forensic")


def _rme(walk, role="eval"):
    """Rates of misleading evidence (%) of the shown LLRs, as the Tippett plot's note."""
    t = core.tippett(walk.st.results.datasets[role].llr)
    return 100 * t.rme_tar, 100 * t.rme_non


def _ece_bits(walk):
    from llrlab.dashboard.compute import APE_PLO

    c = core.ece_curves(walk.eval(), plo=APE_PLO)
    return APE_PLO, c.ce / math.log(2), c.min_ce / math.log(2), c.default / math.log(2)


def test_forensic_every_step_shows_log10_lrs_at_prior_odds_1(fx):
    for k in range(1, len(fx.lesson) + 1):
        _, st = fx.at(k)
        assert st.display.llr_unit == "log10" and st.point.plo == pytest.approx(0.0)
        assert st.teaching.enabled and st.teaching.references is False


def test_forensic_step_1_likelihood_ratios_in_log10(fx):
    step, st = fx.at(1)
    says(step, "$\\log_{10} \\mathrm{LR} = 2$ means the findings are 100 times more probable "
               "if $H_1$ is true")
    assert float(core.llr_to_unit(math.log(100.0), "log10")) == pytest.approx(2.0)
    says(step, "$\\log_{10} \\mathrm{LR} = \\mathrm{LLR} / \\ln 10$")
    assert float(core.llr_to_unit(1.0, "log10")) == pytest.approx(1 / math.log(10))
    says(step, "same-source scores follow $\\mathcal{N}(3, 1)$ and different-source scores "
               "$\\mathcal{N}(0, 1)$, so the true LR of every comparison is known: "
               "$\\ln \\mathrm{LR} = 3s - 4.5$")
    t = st.teaching
    assert (t.mu_tar, t.sigma_tar, t.mu_non, t.sigma_non, t.scale, t.shift) == \
        (3.0, 1.0, 0.0, 1.0, 1.0, 0.0)
    s = np.linspace(-5.0, 8.0, 131)
    np.testing.assert_allclose(core.GaussianModel(3.0, 1.0, 0.0, 1.0).llr(s), 3 * s - 4.5,
                               atol=1e-12)
    says(step, "Meuwly, Ramos & Haraksim 2017")


def test_forensic_step_2_tippett_plot(fx):
    step, st = fx.at(2)
    says(step, "here 6.5 % of the same-source and 6.6 % of the different-source comparisons")
    tar, non = _rme(fx)
    assert (round(tar, 1), round(non, 1)) == (6.5, 6.6)
    e = fx.eval()  # misleading: LR < 1 for H1-true, LR > 1 for H2-true
    assert tar == pytest.approx(100 * np.mean(e.sorted.tar < 0.0))
    assert non == pytest.approx(100 * np.mean(e.sorted.non > 0.0))
    says(step, "The dashed line is the operating point's threshold, at prior odds 1 the line "
               "LR = 1")
    assert core.bayes_threshold(st.point.plo) == pytest.approx(0.0)


def test_forensic_step_3_a_shift(fx):
    step, st = fx.at(3)
    says(step, "adds 2 to every natural-log LR (+0.87 in log10)")
    assert st.teaching.shift == 2 and round(2 / math.log(10), 2) == 0.87
    says(step, "misleading evidence against $H_1$ becomes rarer (1.65 %), misleading evidence "
               "for $H_1$ much more frequent (20.6 %)")
    tar, non = _rme(fx)
    assert (round(tar, 2), round(non, 1)) == (1.65, 20.6)
    fx.at(2)
    t0, n0 = _rme(fx)
    assert tar < t0 and non > 3 * n0
    fx.at(3)
    says(step, "min Cllr stays 0.24 bits, while Cllr rises from 0.25 (the true LR) to 0.39 "
               "bits")
    d = fx.st.results.datasets
    assert (_r(d["eval"].llr.min_cllr), _r(d["true"].llr.cllr), _r(d["eval"].llr.cllr)) == \
        (0.24, 0.25, 0.39)
    assert d["eval"].llr.min_cllr == pytest.approx(d["true"].llr.min_cllr, rel=1e-12)


def test_forensic_step_4_a_scale(fx):
    step, st = fx.at(4)
    says(step, "the rates of misleading evidence do not change (6.5 % and 6.6 %)")
    assert st.teaching.scale == 2 and st.teaching.shift == 0
    scaled = _rme(fx)
    true = core.tippett(fx.st.results.datasets["true"].llr)
    assert scaled == (100 * true.rme_tar, 100 * true.rme_non)
    assert (round(scaled[0], 1), round(scaled[1], 1)) == (6.5, 6.6)
    says(step, "the misleading LRs are now twice as strong in log10")
    e, t = fx.eval(), fx.st.results.datasets["true"].llr
    np.testing.assert_allclose(e.sorted.non[e.sorted.non > 0], 2 * t.sorted.non[t.sorted.non > 0])
    says(step, "Cllr, which charges each LR by how far it points the wrong way, rises from 0.25 "
               "to 0.32 bits")
    assert (_r(t.cllr), _r(e.cllr)) == (0.25, 0.32)


def test_forensic_step_5_cllr_split(fx):
    step, st = fx.at(5)
    says(step, "(0 for LRs that are always right and certain, 1 for LRs that always equal 1)")
    assert core.cllr([50.0, 60.0], [-50.0, -70.0]) < 1e-15
    assert core.cllr(np.zeros(3), np.zeros(5)) == pytest.approx(1.0)
    says(step, "**min Cllr**, the Cllr after the best monotone recalibration (PAV)")
    e = fx.eval()
    assert e.min_cllr == pytest.approx(core.min_cllr(e.sorted.tar, e.sorted.non), rel=1e-12)
    says(step, "This system outputs $2 \\ln \\mathrm{LR} + 1$: 0.33 = 0.24 + 0.09 bits")
    assert (st.teaching.scale, st.teaching.shift) == (2, 1)
    assert (_r(e.cllr), _r(e.min_cllr), _r(e.cllr - e.min_cllr)) == (0.33, 0.24, 0.09)
    says(step, "Brümmer & du Preez 2006")


def test_forensic_step_6_the_ece_plot(fx):
    step, _ = fx.at(6)
    e = fx.eval()
    plo, ce, mn, neutral = _ece_bits(fx)
    says(step, "At prior odds 1 ($x = 0$) the first two read Cllr and min Cllr")
    at0 = np.argmin(np.abs(plo))
    assert plo[at0] == 0.0
    assert (ce[at0], mn[at0]) == (pytest.approx(e.cllr, rel=1e-9),
                                  pytest.approx(e.min_cllr, rel=1e-9))
    assert neutral[at0] == pytest.approx(1.0)
    says(step, "Below a prior log10-odds of about −2 and above about 2.3 these over-confident "
               "LRs cost more than the neutral reference")
    worse = plo[ce > neutral] / math.log(10)
    assert worse.size and np.all((worse < -1.8) | (worse > 2.1))
    assert -2.2 < worse[worse < 0].max() < -1.8 and 2.1 < worse[worse > 0].min() < 2.5
    assert np.all(ce[(plo > -1.8 * math.log(10)) & (plo < 2.1 * math.log(10))]
                  <= neutral[(plo > -1.8 * math.log(10)) & (plo < 2.1 * math.log(10))])
    says(step, "Ramos & González-Rodríguez 2013")
    says(step, "solid for these LRs, long dashes after PAV, dotted for the neutral LR = 1")
    from llrlab.core.palette import COLORS, dash_array
    from llrlab.dashboard.views.ece import ECEView

    view = ECEView(state=fx.st)  # (in presentation style: the patterns grow with the lines)
    default = next(r for r in view.figure.renderers if r.data_source is view.default_source)
    drawn = {k: (r.glyph.line_color, list(r.glyph.line_dash), r.glyph.line_width)
             for k, r in [*view.renderers.items(), ("neutral", default)] if k[0] != "dev"}
    assert {k: (c, d) for k, (c, d, _) in drawn.items()} == {
        ("eval", "ce"): (COLORS["act"], []),
        ("eval", "min"): (COLORS["map"], dash_array("longdash", drawn["eval", "min"][2])),
        "neutral": (COLORS["default"], dash_array("dotted", drawn["neutral"][2]))}
    assert COLORS["act"] == "#D55E00" and COLORS["map"] == "#0072B2"  # vermillion, blue


def test_forensic_step_7_calibration_repairs_it(fx):
    step, st = fx.at(7)
    says(step, "here $a = 0.50$, $b = -0.46$, close to $(s - 1)/2$")
    c = st.results.calibration
    assert st.calibration.method == "affine" and (_r(c.scale), _r(c.offset)) == (0.50, -0.46)
    says(step, "The ECE curve comes down onto the PAV curve (Cllr 0.25, min Cllr 0.24 bits) and "
             "stays below the neutral reference at every prior")
    e = fx.eval()
    assert (_r(e.cllr), _r(e.min_cllr)) == (0.25, 0.24)
    _, ce, mn, neutral = _ece_bits(fx)
    assert np.all(ce < neutral) and np.max(ce - mn) < 0.02
    says(step, "the rates of misleading evidence are back to 6.25 % and 6.80 %")
    tar, non = _rme(fx)
    assert (round(tar, 2), round(non, 2)) == (6.25, 6.80)


def test_forensic_step_8_reliability(fx):
    step, st = fx.at(8)
    says(step, "At prior odds 1 an LR gives the posterior probability $P(H_1 \\mid E) = "
               "\\mathrm{LR} / (1 + \\mathrm{LR})$")
    assert st.point.effective_prior == pytest.approx(0.5)
    says(step, "comparisons given a posterior above 0.9 are same-source less often than that, "
               "those given less than 0.1 more often")
    assert st.teaching.scale == 2 and st.teaching.shift == 0
    r = core.reliability(fx.eval(), plo=0.0, method="pav")
    hi, lo = r.predicted > 0.9, r.predicted < 0.1
    weight = r.n_tar + r.n_non
    assert np.average(r.empirical[hi], weights=weight[hi]) < \
        np.average(r.predicted[hi], weights=weight[hi])
    assert np.average(r.empirical[lo], weights=weight[lo]) > \
        np.average(r.predicted[lo], weights=weight[lo])
    says(step, "Dimitriadis, Gneiting & Jordan 2021")
