"""The offline HTML report in chromium: opened from disk with the network off and every
request aborted, dragged on each plot, its numbers read from the Bokeh models and compared
with llrlab.core at the same operating point (to 1e-12; counts and rates exactly), and the
Tippett and reliability plots against hand-computed small cases."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

from llrlab.core import analyze, gaussian_trials, grid_plo, probit
from llrlab.core.calibration import fit_calibrator
from llrlab.dashboard.report import ReportSet, report_html

from .conftest import (  # noqa: F401  (FLAGS: the launch flags in use)
    FLAGS,
    offline_page,
    open_offline,
    screen_point,
    screenshot,
    settle,
    source_data,
)

pytestmark = pytest.mark.browser

LN10 = np.log(10.0)


@pytest.fixture
def offline(browser):
    """A page in a context with the network off; every request but the report file itself
    is aborted and recorded."""
    ctx, pg = offline_page(browser, {"width": 1500, "height": 1300})
    yield pg
    ctx.close()


def _open(page, path):
    url = open_offline(page, path)
    page.wait_for_function("() => window.Bokeh && Bokeh.documents.length > 0 && "
                           "Bokeh.documents[0].get_model_by_name('report_op') != null && "
                           "document.getElementById('llrlab-op-header').textContent != ''")
    page.wait_for_function("() => Bokeh.documents[0].is_idle")  # every plot drawn
    settle(page, 0)  # (no websocket: the next frames)
    return url


def _op(page):
    """The numbers the page shows, from the Bokeh model (full precision, not the text)."""
    return page.evaluate("""() => {
        const d = Bokeh.documents[0].get_model_by_name('report_op').data, o = {};
        for (const k in d) { o[k] = Array.from(d[k]); }
        return o; }""")






def _drag(page, fig, x0, y0, x1, y1, steps=8):
    sx, sy = screen_point(page, fig, x0, y0)
    ex, ey = screen_point(page, fig, x1, y1)
    page.mouse.move(sx, sy)
    page.mouse.down()
    page.mouse.move(ex, ey, steps=steps)
    page.mouse.up()
    settle(page, 0)  # the page's handlers have run and drawn


def _cell(page, key, j):
    return page.inner_text(f"#llrlab-v-{key}-{j}")


def assert_equals_core(page, analyses, plo0):
    """Every number the page shows equals ``Analysis.at`` at the page's operating point."""
    op = _op(page)
    plo = op["plo"][0]
    assert plo in set(grid_plo(include=[plo0]).tolist())  # a grid point, exactly
    worst = 0.0
    for j, a in enumerate(analyses):
        want = a.at(plo)
        assert op["plo"][j] == plo
        assert op["misses"][j] == want.act.misses
        assert op["false_alarms"][j] == want.act.false_alarms
        assert op["p_miss"][j] == float(want.act.p_miss)  # the same IEEE division
        assert op["p_fa"][j] == float(want.act.p_fa)
        assert op["min_p_miss"][j] == float(want.min.p_miss)
        assert op["min_p_fa"][j] == float(want.min.p_fa)
        assert op["min_misses"][j] == want.min.misses
        assert op["min_false_alarms"][j] == want.min.false_alarms
        assert op["dr30_safe"][j] == want.dr30_safe
        for key, value in (("act_dcf", want.act_dcf), ("min_dcf", want.min_dcf),
                           ("effective_prior", want.effective_prior)):
            assert op[key][j] == pytest.approx(value, rel=1e-12, abs=0)
            if value:
                worst = max(worst, abs(op[key][j] - value) / abs(value))
        # the table shows the same numbers, in the dashboard's formats
        assert _cell(page, "act_dcf", j) == f"{want.act_dcf:.4f}"
        assert _cell(page, "min_dcf", j) == f"{want.min_dcf:.4f}"
        assert _cell(page, "misses", j) == f"{int(want.act.misses):,}"
        assert _cell(page, "false_alarms", j) == f"{int(want.act.false_alarms):,}"
        assert _cell(page, "p_miss", j) == f"{100 * float(want.act.p_miss):.3f}"
        assert _cell(page, "p_fa", j) == f"{100 * float(want.act.p_fa):.3f}"
        assert _cell(page, "dr30_safe", j) == ("yes" if want.dr30_safe else "NO")
    return plo, worst


@pytest.fixture(scope="module")
def calibrated_report(tmp_path_factory):
    """Eval and dev scores with ties (rounded), an affine calibration trained on dev, and the
    calibrated eval scores with random trial weights."""
    dev = gaussian_trials(3000, 40_000, seed=11, scale=1.8, shift=-1.2)
    ev = gaussian_trials(3000, 40_000, seed=12, scale=1.8, shift=-1.2)
    dev = dev.with_scores(np.round(dev.scores, 2))
    ev = ev.with_scores(np.round(ev.scores, 2))
    cal = fit_calibrator(dev, method="affine")
    # a fourth set with trial weights (condition-weighted pools): its rates are stored
    rng = np.random.default_rng(0)
    w = rng.uniform(0.2, 3.0, len(ev))
    tar, non = cal(ev).scores[ev.labels], cal(ev).scores[~ev.labels]
    wt, wn = w[ev.labels], w[~ev.labels]
    # the core's analyses of the same LLRs, computed afresh (the "server" side)
    analyses = [analyze(cal(ev)), analyze(cal(dev)), analyze(ev),
                analyze(tar, non, tar_weights=wt, non_weights=wn)]
    sets = [ReportSet("eval", analyze(cal(ev)), analyze(ev)),
            ReportSet("dev", analyze(cal(dev)), analyze(dev)),
            ReportSet("eval before calibration", analyze(ev)),
            ReportSet("eval, weighted", analyze(tar, non, tar_weights=wt, non_weights=wn))]
    path = tmp_path_factory.mktemp("report") / "report.html"
    path.write_text(report_html(sets, calibration=cal, p_target=0.02, llr_unit="log10"),
                    encoding="utf-8")
    return path, analyses, float(np.log(0.02 / 0.98)), cal


def test_offline_report_drag_equals_the_core(offline, calibrated_report):
    path, analyses, plo0, cal = calibrated_report
    page = offline
    url = _open(page, path)
    # at the start: the operating point asked for, exactly
    plo, _ = assert_equals_core(page, analyses, plo0)
    assert plo == pytest.approx(plo0, abs=1e-15)
    screenshot(page, "report_01_start")

    # drag on the NBER plot
    _drag(page, "nber", plo0, 0.5, -1.3, 0.5)
    plo, worst = assert_equals_core(page, analyses, plo0)
    assert abs(plo - (-1.3)) < 0.1
    assert source_data(page, "report_det_op")["x"][0] == pytest.approx(
        float(probit(_op(page)["p_fa"][0])), abs=1e-6)
    assert source_data(page, "report_nber_op")["x"] == [plo]
    tip = source_data(page, "report_tippett_threshold")["x"][0]
    assert tip == pytest.approx(-plo / LN10, rel=1e-15)
    hist = source_data(page, "report_hist_threshold")["x"][0]
    assert float(cal.apply(np.array([hist]))[0]) == pytest.approx(-plo, abs=1e-9)
    screenshot(page, "report_02_nber_drag")

    # drag on the DET plot, to the EER point: the operating point of the ROCCH vertex
    # nearest to the pointer
    p = float(probit(analyses[0].eer))
    _drag(page, "det", probit(0.3), probit(0.3), p, p)
    plo_det, w = assert_equals_core(page, analyses, plo0)
    assert plo_det != plo
    det = source_data(page, "report_det_op")
    assert abs(det["x"][1] - p) < 0.15 and abs(det["y"][1] - p) < 0.15  # the min-DCF point
    worst = max(worst, w)

    # drag on the histogram (score axis): the Bayes threshold follows the pointer
    lo = float(cal.inverse(-plo_det))
    _drag(page, "histogram", lo, 0.01, lo + 1.0, 0.01)
    plo_h, w = assert_equals_core(page, analyses, plo0)
    assert abs(plo_h - float(-cal.apply(np.array([lo + 1.0]))[0])) < 0.2
    worst = max(worst, w)

    # drag on the Tippett plot (log10 LR axis)
    _drag(page, "tippett", -plo_h / LN10, 0.5, 0.5, 0.5)
    plo_t, w = assert_equals_core(page, analyses, plo0)
    assert abs(plo_t - (-0.5 * LN10)) < 0.1
    worst = max(worst, w)
    screenshot(page, "report_03_tippett_drag")

    assert worst < 1e-13  # DCFs and prior: exp() may differ by an ulp between languages
    assert page.requests == [url]  # nothing but the file itself was asked for
    assert page.aborted == []
    assert page.errors == []


def test_tippett_and_reliability_hand_computed(offline, tmp_path):
    # tar -1, 2, 2 and non -3, 0, 1, 5 as natural-log LLRs, shown in log10
    tar, non = [-1.0, 2.0, 2.0], [-3.0, 0.0, 1.0, 5.0]
    a = analyze(tar, non)
    path = tmp_path / "small.html"
    path.write_text(report_html([ReportSet("small", a)], llr_unit="log10"),
                    encoding="utf-8")
    page = offline
    _open(page, path)
    t = source_data(page, "report_tippett_tar_0")
    assert t["x"] == pytest.approx(np.array([-1.0, -1.0, 2.0, 2.0]) / LN10, rel=1e-15)
    assert t["y"] == pytest.approx([1.0, 2 / 3, 2 / 3, 0.0], rel=1e-15)
    n = source_data(page, "report_tippett_non_0")
    assert n["x"] == pytest.approx(np.array([-3, -3, 0, 0, 1, 1, 5, 5]) / LN10, rel=1e-15)
    assert n["y"] == pytest.approx([1.0, 0.75, 0.75, 0.5, 0.5, 0.25, 0.25, 0.0], rel=1e-15)

    # binned reliability at the starting prior (0.01): the LLRs below
    # logit(0.1) - plo = 2.398 fall in the first bin (tar -1, 2, 2; non -3, 0, 1), LLR 5 in
    # the bin of posteriors [0.5, 0.6); every target weighs 0.01/3, every non-target 0.99/4
    plo0 = float(np.log(0.01 / 0.99))
    bins = page.evaluate("() => { const r = Bokeh.documents[0].get_model_by_name("
                         "'report_reliability_bins'); return [r.visible, "
                         "Array.from(r.data_source.data.x), Array.from(r.data_source.data.y)]"
                         "; }")
    wt, wn = 0.01 / 3, 0.99 / 4
    q = expit(np.array([-1.0, 2.0, 2.0, -3.0, 0.0, 1.0, 5.0]) + plo0)
    w0 = 3 * wt + 3 * wn
    assert bins[0] is True
    assert bins[1] == pytest.approx([(wt * q[:3].sum() + wn * q[3:6].sum()) / w0, q[6]],
                                    rel=1e-12)
    assert bins[2] == pytest.approx([3 * wt / w0, 0.0], abs=1e-15)

    # drag the Tippett threshold to log10 LR = 0.25 (LLR 0.576): between the scores 0 and 1
    _drag(page, "tippett", -plo0 / LN10, 0.5, 0.25, 0.5)
    op = _op(page)
    plo = op["plo"][0]
    assert 0.0 < -plo < 1.0
    # hand-computed: misses {-1}, false alarms {1, 5}
    assert op["misses"] == [1] and op["false_alarms"] == [2]
    assert op["p_miss"] == [1 / 3] and op["p_fa"] == [0.5]
    assert op["act_dcf"][0] == pytest.approx(1 / 3 + np.exp(-plo) * 0.5, rel=1e-12)
    # the Tippett markers sit on the curves at the threshold: P(tar >= t), P(non >= t)
    pts = source_data(page, "report_tippett_points")
    assert pts["x"] == pytest.approx([-plo / LN10] * 2, rel=1e-15)
    assert pts["y"] == pytest.approx([2 / 3, 0.5], rel=1e-15)
    # the PAV reliability diagram at the new prior: blocks {-3}, {-1, 0, 1}, {2, 2, 5}
    # with PAV LLRs -inf, log(1/2) - log(3/4), log(2/1) - log(3/4)
    rel = source_data(page, "report_reliability_0")
    llr = np.array([-3, -3, -1, 1, 2, 5], float)
    pav = np.array([-np.inf, -np.inf, np.log(2 / 3), np.log(2 / 3), np.log(8 / 3),
                    np.log(8 / 3)])
    assert rel["x"] == pytest.approx(expit(llr + plo), rel=1e-14)
    assert rel["y"] == pytest.approx(expit(pav + plo), rel=1e-14, abs=1e-300)
    # the binned points are for the starting prior only
    assert page.evaluate("() => Bokeh.documents[0].get_model_by_name("
                         "'report_reliability_bins').visible") is False
    screenshot(page, "report_04_tippett_reliability_small")
    assert page.errors == [] and page.aborted == []
