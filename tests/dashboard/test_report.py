"""The offline HTML report (``llrlab report``): its exact look-up data, its size, that it
references nothing outside itself, that user text is escaped, and the command line.  The
drag itself is tested in a browser (tests/browser/test_report_browser.py)."""

from __future__ import annotations

import io
import re
from html import escape as html_escape

import numpy as np
import pytest

from llrlab.core import analyze, gaussian_trials
from llrlab.core.calibration import fit_calibrator
from llrlab.core.cli import run
from llrlab.core.io import write_trials
from llrlab.dashboard.cli import build_parser
from llrlab.dashboard.report import MAX_SETS, ReportSet, report_document, report_html

from .._time_scale import scaled


def sets_of(n, *, seed=0, calibrate=True):
    dev = gaussian_trials(n // 10, n - n // 10, seed=seed + 1, scale=2.0, shift=-1.0)
    ev = gaussian_trials(n // 10, n - n // 10, seed=seed + 2, scale=2.0, shift=-1.0)
    if not calibrate:
        return [ReportSet("eval", analyze(ev)), ReportSet("dev", analyze(dev))], None
    cal = fit_calibrator(dev, method="affine")
    re_, rd = analyze(ev), analyze(dev)
    return [ReportSet("eval", analyze(cal(ev)), re_), ReportSet("dev", analyze(cal(dev)), rd),
            ReportSet("eval before calibration", re_)], cal


@pytest.fixture(scope="module")
def small():
    return sets_of(20_000)


def _model(doc, name):
    m = doc.select_one({"name": name})
    assert m is not None, name
    return m


def test_the_page_loads_nothing_from_outside(small):
    import panel  # noqa: F401  (the dashboard has Panel loaded; its resources must not leak)

    sets, cal = small
    html = report_html(sets, calibration=cal)
    assert not re.search(r"<script[^>]*\bsrc=", html)
    assert not re.search(r"<link\b", html)
    assert "cdn.bokeh.org" not in html and "cdn.holoviz.org" not in html
    assert "static/extensions" not in html
    assert "BEGIN bokeh.min.js" in html  # BokehJS inlined ...
    assert "bokeh-widgets" not in html and "bokeh-mathjax" not in html  # ... and only it


def test_grid_data_reproduce_analysis_at(small):
    sets, cal = small
    doc, _ = report_document(sets, calibration=cal, p_target=0.05)
    grid = _model(doc, "report_grid").data
    g = np.asarray(grid["plo"])
    assert g.size == 20482
    for j, s in enumerate(sets):
        verts = _model(doc, f"report_vertices_{j}").data
        for i in range(0, g.size, 97):
            op = s.llr.at(g[i])
            m, f, v = int(grid[f"m{j}"][i]), int(grid[f"f{j}"][i]), int(grid[f"v{j}"][i])
            assert m == op.act.misses and f == op.act.false_alarms
            # what the page computes: one division, as numpy does
            assert m / s.llr.n_tar == float(op.act.p_miss)
            assert f / s.llr.n_non == float(op.act.p_fa)
            assert verts["p_miss"][v] == float(op.min.p_miss)
            assert verts["p_fa"][v] == float(op.min.p_fa)
            assert verts["misses"][v] == op.min.misses
            assert bool(grid[f"s{j}"][i]) == op.dr30_safe


def test_the_page_opens_at_the_operating_point_with_the_core_numbers(small):
    sets, cal = small
    doc, variables = report_document(sets, calibration=cal, p_target=0.05, c_miss=2.0)
    op = _model(doc, "report_op").data
    plo = float(np.log(0.05 / 0.95) + np.log(2.0))
    for j, s in enumerate(sets):
        want = s.llr.at(op["plo"][j])
        assert op["plo"][j] == pytest.approx(plo, abs=1e-15)
        assert op["act_dcf"][j] == want.act_dcf and op["min_dcf"][j] == want.min_dcf
        assert op["misses"][j] == want.act.misses
    # the table shows them, with the dashboard's formats
    table = variables["table_html"]
    act = re.search(r'id="llrlab-v-act_dcf-0"[^>]*>([^<]*)<', table).group(1)
    assert act == f"{sets[0].llr.at(plo).act_dcf:.4f}"
    eer = re.search(r'data-key="eer" data-set="1">([^<]*)<', table).group(1)
    assert eer == f"{100 * sets[1].llr.eer:.3f}"


def test_size_does_not_grow_with_the_number_of_trials():
    # the look-up grid has a fixed size; curves are decimated (10^7 trials: bench_report)
    sizes = {}
    for n in (2_000, 400_000):
        sets, cal = sets_of(n, seed=3)
        sizes[n] = len(report_html(sets, calibration=cal).encode())
    assert sizes[400_000] < 5_000_000
    assert sizes[400_000] - sizes[2_000] < 600_000, sizes


def test_user_text_is_escaped():
    sets, _ = sets_of(5_000, calibrate=False)
    evil = '<script>alert("x")</script>'
    sets = [ReportSet(evil, sets[0].llr)]
    html = report_html(sets, title=evil, subtitle=evil, notes=[evil])
    assert evil not in html
    assert "&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;" in html or \
        "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in html


def test_bad_requests():
    from llrlab.core import DataError

    sets, _ = sets_of(2_000, calibrate=False)
    with pytest.raises(DataError, match="at least one"):
        report_html([])
    with pytest.raises(DataError, match=f"at most {MAX_SETS}"):
        report_html(sets * 3)
    with pytest.raises(DataError, match="unknown LLR unit"):
        report_html(sets, llr_unit="dB")
    with pytest.raises(DataError, match="p_target"):
        report_html(sets, p_target=1.5)


# ---------------------------------------------------------------------------- the CLI


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    code = run(argv, parser=build_parser(), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path):
    ev = gaussian_trials(300, 3000, seed=5, scale=1.5, shift=-1.0)
    dev = gaussian_trials(300, 3000, seed=6, scale=1.5, shift=-1.0)
    write_trials(tmp_path / "eval.txt", ev)
    write_trials(tmp_path / "dev.txt", dev)
    return tmp_path, ev, dev


def test_cli_writes_the_report(files):
    tmp, ev, dev = files
    out = tmp / "r.html"
    code, text, err = _run(["report", str(tmp / "eval.txt"), "--dev", str(tmp / "dev.txt"),
                            "--calibrate", "pav", "--unit", "log10", "-o", str(out),
                            "--p-target", "0.1"])
    assert code == 0, err
    assert text.startswith(f"llrlab report: wrote {out} (") and "3 score sets" in text
    html = out.read_text(encoding="utf-8")
    assert "<h1>llrlab report: eval.txt</h1>" in html
    assert "log10(LR)" in html and "Calibration: pav (trained on dev)" in html
    cal = fit_calibrator(dev, method="pav")
    want = analyze(cal(ev)).at(float(np.log(0.1 / 0.9)))
    act = re.search(r'id="llrlab-v-act_dcf-0"[^>]*>([^<]*)<', html).group(1)
    assert act == f"{want.act_dcf:.4f}"


def test_cli_without_dev_reads_scores_as_llrs(files):
    tmp, ev, _ = files
    out = tmp / "r.htm"
    code, text, err = _run(["report", str(tmp / "eval.txt"), "-o", str(out), "--quiet"])
    assert code == 0, err
    assert "1 score set)" in text
    html = out.read_text(encoding="utf-8")
    assert "No calibration: the scores are read as LLRs" in html
    want = analyze(ev).at(float(np.log(0.01 / 0.99)))
    act = re.search(r'id="llrlab-v-act_dcf-0"[^>]*>([^<]*)<', html).group(1)
    assert act == f"{want.act_dcf:.4f}"


@pytest.mark.parametrize("argv, needle", [
    (["report", "{eval}"], "-o REPORT.html"),
    (["report", "-o", "{out}"], "give the scores"),
    (["report", "{eval}", "-o", "{tmp}/r.pdf"], "give it a .html name"),
    (["report", "{eval}", "--calibrate", "affine", "-o", "{out}"], "--calibrate has no effect"),
    (["report", "{eval}", "--dev", "{dev}", "--prior", "0.3", "-o", "{out}"],
     "--prior has no effect without --calibrate"),
    (["report", "{eval}", "--dev", "{dev}", "--calibrate", "pav", "--prior", "0.3", "-o",
      "{out}"], "--prior has no effect with --calibrate pav"),
    (["report", "{eval}", "--dev", "{dev}", "{dev}", "{dev}", "-o", "{out}"],
     "--dev takes DEV [DEV_KEY]"),
    (["report", "{eval}", "-o", "{tmp}/missing/r.html"], "no folder"),
    (["report", "{tmp}/nothing.txt", "-o", "{out}"], "nothing.txt"),
    (["report", "{eval}", "--p-target", "2", "-o", "{out}"], "p_target"),
])
def test_cli_mistakes_get_one_line_and_exit_2(files, argv, needle):
    tmp, _, _ = files
    fill = {"eval": str(tmp / "eval.txt"), "dev": str(tmp / "dev.txt"),
            "out": str(tmp / "r.html"), "tmp": str(tmp)}
    code, out, err = _run([a.format(**fill) for a in argv])
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and err.startswith("llrlab report: error:") and needle in err
    assert not (tmp / "r.html").exists()


def test_cli_refuses_to_overwrite_an_input(files):
    tmp, _, _ = files
    (tmp / "in.html").write_text("0.5 target\n-1 nontarget\n1 target\n-2 nontarget\n")
    before = (tmp / "in.html").read_text()
    code, _, err = _run(["report", str(tmp / "in.html"), "-o", str(tmp / "in.html")])
    assert code == 2 and "overwrite the input" in err
    assert (tmp / "in.html").read_text() == before


# ------------------------------------------------------------ from the dashboard's results


def _results(calibration="affine", fusion=False, teaching=None):
    from llrlab.dashboard.compute import SystemData, compute_results

    from .conftest import make_trials

    a = SystemData(make_trials(8000, seed=1, scale=0.5, shift=1.0),
                   make_trials(9000, seed=2, scale=0.5, shift=1.3))
    systems = {"A": a}
    if fusion:  # a second system: the same trials, other (noisier) scores
        rng = np.random.default_rng(0)
        systems["B"] = SystemData(*(t.with_scores(0.7 * t.scores + rng.normal(0, 1, len(t)))
                                    for t in (a.dev, a.eval)))
    return compute_results(("k",), systems=systems, system="A", fusion=fusion,
                           calibration=calibration, teaching=teaching)


@pytest.mark.parametrize("kind", ["affine", "pav", "none", "fusion", "teaching"])
def test_report_from_the_dashboards_results(kind):
    from llrlab.dashboard.compute import TeachingSpec
    from llrlab.dashboard.report import report_from_results

    res = _results(calibration="none" if kind in ("none", "fusion") else
                   ("affine" if kind == "teaching" else kind),
                   fusion=kind == "fusion",
                   teaching=TeachingSpec(n_tar=2000, n_non=20_000) if kind == "teaching"
                   else None)
    html = report_from_results(res, p_target=0.05, llr_unit="bits", title="export")
    assert "<h1>export</h1>" in html and "log2(LR) (bits)" in html
    for d in res.datasets.values():
        assert f"<th>{html_escape(d.label)}</th>" in html
    if kind in ("affine", "pav"):
        assert f"Calibration: {kind} (trained on dev)" in html
    if kind == "fusion":
        assert "the histogram shows its LLRs" in html and "fused LLR" in html
    # the opening numbers are the results' own analyses at the operating point
    sets_doc, _ = report_document(
        [ReportSet(d.label, d.llr, d.raw) for d in res.datasets.values()],
        calibration=res.calibration, p_target=0.05)
    op = sets_doc.select_one({"name": "report_op"}).data
    for j, d in enumerate(res.datasets.values()):
        assert op["act_dcf"][j] == d.llr.at(op["plo"][j]).act_dcf


def test_nothing_to_export():
    from llrlab.core import DataError
    from llrlab.dashboard.compute import Results
    from llrlab.dashboard.report import report_from_results

    with pytest.raises(DataError, match="nothing to export"):
        report_from_results(Results(("k",), {}))


def test_the_console_script_writes_a_report(files):
    """``llrlab report`` in a fresh process (in-process tests import the modules in another
    order, which hid an import cycle once)."""
    import subprocess
    import sys
    from pathlib import Path

    tmp, _, _ = files
    llrlab = Path(sys.executable).parent / "llrlab"
    r = subprocess.run([str(llrlab), "report", str(tmp / "eval.txt"), "--dev",
                        str(tmp / "dev.txt"), "--calibrate", "affine", "-o",
                        str(tmp / "fresh.html")], capture_output=True, text=True,
                       timeout=scaled(300))
    assert r.returncode == 0, r.stderr
    assert r.stderr == "" and "3 score sets" in r.stdout
    assert "BEGIN bokeh.min.js" in (tmp / "fresh.html").read_text(encoding="utf-8")
    for module in ("llrlab.dashboard.report", "llrlab.dashboard.views.export"):
        r = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True,
                           text=True, timeout=scaled(300))
        assert r.returncode == 0, r.stderr


def test_det_has_the_fmr100_and_fmr1000_markers(small):
    from llrlab.core import fnmr_at_fmr, probit

    sets, cal = small
    doc, _ = report_document(sets, calibration=cal, p_target=0.05)
    for j, s in enumerate(sets):
        data = _model(doc, f"report_det_fmr_{j}").data
        want = fnmr_at_fmr(s.llr, fmr=[0.01, 0.001])
        assert list(data["text"]) == ["FMR100", "FMR1000"]
        np.testing.assert_allclose(data["x"], probit(want.p_fa))
        np.testing.assert_allclose(data["y"], probit(want.p_miss))
