"""``llrlab plot``: every kind written as PDF, SVG and PNG from score files; systems named by
pairs, --key, --labelled; dev sets and calibration; the installed console script; one line
and exit code 2 for every mistake, before anything is written; without matplotlib, one line
saying what to install."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from llrlab.core import Trials, gaussian_trials
from llrlab.core.cli import run
from llrlab.core.io import write_key, write_scores, write_trials

from .._subprocess import loaded_by
from ._checks import one_line_error

LLRLAB = Path(sys.executable).parent / "llrlab"
KINDS = ("det", "nber", "ape", "ece", "epc", "tippett", "reliability", "hist")


def _run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = run([str(a) for a in argv], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def _script(*argv, env=None, cwd=None):
    r = subprocess.run([str(LLRLAB), *map(str, argv)], capture_output=True, text=True,
                       timeout=300, env=env, cwd=cwd)
    return r.returncode, r.stdout, r.stderr


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Systems a and b on the same dev and eval trials (one key per set), as BOSARIS HDF5
    score files and as labelled text files."""
    d = tmp_path_factory.mktemp("plot")
    for role, seed in (("dev", 1), ("eval", 2)):
        for system, scale in (("a", 1.2), ("b", 0.7)):
            t = gaussian_trials(400, 4000, seed=seed + (10 if system == "b" else 0),
                                scale=scale, shift=-0.3)  # (labels: targets first, always)
            write_trials(d / f"{system}_{role}.txt", t)
            t = Trials(t.scores, t.labels, model_ids=[f"m{i % 40}" for i in range(len(t))],
                       segment_ids=[f"s{i // 40}" for i in range(len(t))])
            write_scores(d / f"{system}_{role}.h5", t)
        write_key(d / f"{role}_key.h5", t)
    return d


def _systems(f, kind):
    """Arguments naming systems A and B (and their dev sets for the EPC)."""
    args = [f / "a_eval.h5", f / "b_eval.h5", "--key", f / "eval_key.h5", "--names", "A",
            "B"]
    if kind == "epc":
        args += ["--dev", f / "a_dev.h5", f / "b_dev.h5", "--dev-key", f / "dev_key.h5"]
    return args


@pytest.mark.parametrize("fmt", ["pdf", "svg", "png"])
@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_is_written_in_every_format(files, tmp_path, kind, fmt):
    out = tmp_path / f"{kind}.{fmt}"
    code, text, err = _run("plot", kind, *_systems(files, kind), "-o", out, "--quiet")
    assert code == 0, err
    assert err == ""
    data = out.read_bytes()
    assert len(data) > 5_000
    magic = {"pdf": b"%PDF-", "svg": b"<?xml", "png": b"\x89PNG"}[fmt]
    assert data.startswith(magic)
    if fmt == "pdf":
        assert b"/FontFile2" in data and b"/Type3" not in data
    if fmt == "svg":
        assert b"<path" in data and b"<text" in data
    n = "2 systems"
    assert text.startswith(f"llrlab plot: wrote {out} (") and n in text
    assert text.rstrip().endswith(f"{fmt.upper()})")


def test_png_size_and_dpi_and_the_wrote_line(files, tmp_path):
    out = tmp_path / "det.png"
    code, text, _ = _run("plot", "det", files / "a_eval.txt", "--labelled", "-o", out,
                         "--dpi", 200, "--size", "double")
    assert code == 0
    with Image.open(out) as im:
        assert im.size == (1400, 920)
    assert text == (f"llrlab plot: wrote {out} (DET plot, 1 system, 7 x 4.6 in, 1400 x 920 "
                    f"px, PNG)\n")
    # hist: one plot per system, stacked
    out = tmp_path / "hist.png"
    assert _run("plot", "hist", files / "a_eval.txt", files / "b_eval.txt", "--labelled",
                "-o", out, "--dpi", 100)[0] == 0
    with Image.open(out) as im:
        assert im.size == (350, round(2 * 0.7 * 2.6 * 100))


def test_systems_as_pairs_with_a_shared_key_or_labelled_give_the_same_figure(files, tmp_path):
    f = files
    svgs = []
    for i, args in enumerate((
            [f / "a_eval.h5", f / "eval_key.h5", f / "b_eval.h5", f / "eval_key.h5"],
            [f / "a_eval.h5", f / "b_eval.h5", "--key", f / "eval_key.h5"])):
        out = tmp_path / f"{i}.svg"
        assert _run("plot", "det", *args, "--names", "A", "B", "-o", out)[0] == 0
        svgs.append(out.read_bytes())
    assert svgs[0] == svgs[1]
    # default names: the file names
    out = tmp_path / "named.svg"
    assert _run("plot", "nber", f / "a_eval.txt", f / "b_eval.txt", "--labelled", "-o",
                out)[0] == 0
    text = out.read_text()
    assert ">a_eval<" in text and ">b_eval<" in text


def test_calibration_trained_on_dev_and_the_warning_without_it(files, tmp_path):
    f = files
    raw = ["plot", "nber", f / "a_eval.txt", "--labelled", "-o", tmp_path / "raw.pdf"]
    code, _, err = _run(*raw)
    # the demo scores here are LLRs scaled by 1.2 and shifted: close enough to calibrated
    assert code == 0 and "warning" not in err
    t = gaussian_trials(400, 4000, seed=2, scale=5.0, shift=-4.0)
    write_trials(tmp_path / "bad.txt", t)
    code, _, err = _run("plot", "nber", tmp_path / "bad.txt", "-o", tmp_path / "bad.pdf")
    assert code == 0
    assert err.startswith("llrlab plot: warning: the scores of")
    assert "do not look like calibrated LLRs" in err
    code, _, err = _run("plot", "nber", tmp_path / "bad.txt", "-o", tmp_path / "cal.pdf",
                        "--dev", f / "a_dev.txt", "--calibrate", "affine")
    assert code == 0 and err == ""
    # DET and EPC do not read the scores as LLRs: no warning
    code, _, err = _run("plot", "det", tmp_path / "bad.txt", "-o", tmp_path / "det.pdf")
    assert code == 0 and err == ""


def test_the_installed_console_script_writes_the_three_formats(files, tmp_path):
    f = files
    for fmt in ("pdf", "svg", "png"):
        out = tmp_path / f"det.{fmt}"
        code, text, err = _script("plot", "det", f / "a_eval.h5", f / "b_eval.h5", "--key",
                                  f / "eval_key.h5", "--names", "A", "B", "-o", out,
                                  "--det-kind", "both", "--p-target", "0.001")
        assert code == 0, err
        assert err == ""
        assert text.startswith(f"llrlab plot: wrote {out} (DET plot, 2 systems, 3.5 x 3.3 in")
        assert out.stat().st_size > 5_000
    code, text, _ = _script("-h")
    assert "    plot " in text


@pytest.mark.parametrize("argv, needles", [
    (["plot"], ["give the figure to draw", "det, nber"]),
    (["plot", "roc", "X", "-o", "f.pdf"], ["unknown figure 'roc'", "choose one of det"]),
    (["plot", "det", "-o", "f.pdf"], ["give the scores to draw"]),
    (["plot", "det", "{a}"], ["give the figure to write with -o"]),
    (["plot", "det", "{a}", "-o", "f.jpg"], ["f.jpg: unknown figure format ('.jpg')",
                                              ".pdf, .svg or .png"]),
    (["plot", "det", "{a}", "-o", "figure"], ["unknown figure format (no extension)"]),
    (["plot", "det", "{missing}", "-o", "f.pdf"], ["missing.txt"]),
    (["plot", "det", "{a}", "{b}", "{a}", "-o", "f.pdf"],
     ["FILE: 3 files; give SCORES KEY pairs", "--key KEY", "--labelled"]),
    (["plot", "det", "{a}", "-o", "f.pdf", "--dpi", "300"],
     ["--dpi has no effect without a .png output"]),
    (["plot", "det", "{a}", "-o", "f.pdf", "--unit", "log10"],
     ["--unit has no effect on a DET plot", "tippett and hist"]),
    (["plot", "nber", "{a}", "-o", "f.pdf", "--det-kind", "both"],
     ["--det-kind has no effect on a NBER plot"]),
    (["plot", "reliability", "{a}", "-o", "f.pdf", "--bins", "5"],
     ["--bins has no effect with the PAV reliability diagram"]),
    (["plot", "epc", "{a}", "-o", "f.pdf"], ["an EPC chooses each threshold on a dev set"]),
    (["plot", "nber", "{a}", "-o", "f.pdf", "--calibrate", "affine"],
     ["--calibrate has no effect without --dev"]),
    (["plot", "nber", "{a}", "-o", "f.pdf", "--dev", "{a}"],
     ["--dev has no effect on a NBER plot without --calibrate"]),
    (["plot", "nber", "{a}", "-o", "f.pdf", "--dev", "{a}", "--calibrate", "pav",
      "--prior", "0.1"], ["--prior has no effect with --calibrate pav"]),
    (["plot", "epc", "{a}", "{b}", "--labelled", "-o", "f.pdf", "--dev", "{a}"],
     ["--dev names 1 dev set(s) for 2 system(s)"]),
    (["plot", "det", "{a}", "{b}", "--labelled", "-o", "f.pdf", "--names", "A"],
     ["--names gives 1 name(s) for 2 system(s)"]),
    (["plot", "det", "{a}", "--labelled", "--key", "{a}", "-o", "f.pdf"],
     ["--key and --labelled exclude each other"]),
    (["plot", "det", "{a}", "-o", "f.pdf", "--size", "huge"], ["unknown figure size 'huge'"]),
    (["plot", "det", "{a}", "-o", "f.pdf", "--no-operating-point", "--p-target", "0.1"],
     ["--no-operating-point"]),
    (["plot", "det", "{a}", "-o", "{a}"], ["unknown figure format ('.txt')"]),
    (["plot", "det", "{a}", "-o", "f.pdf", "--plo-range", "1", "2"],
     ["--plo-range has no effect on a DET plot"]),
])
def test_mistakes_get_one_line_and_exit_code_2_before_anything_is_written(files, tmp_path,
                                                                          argv, needles):
    names = {"{a}": str(files / "a_eval.txt"), "{b}": str(files / "b_eval.txt"),
             "{missing}": str(tmp_path / "missing.txt")}
    argv = [names.get(a, a) for a in argv]
    code, out, err = _script(*argv, cwd=tmp_path)
    one_line_error(code, err, *needles)
    assert out == ""
    assert not list(tmp_path.glob("f.*")) and not list(tmp_path.glob("figure*"))


def test_a_figure_never_overwrites_an_input(files, tmp_path):
    target = tmp_path / "scores.pdf"  # a score file with a figure's name
    write_trials(target, gaussian_trials(100, 1000, seed=5))
    before = target.read_bytes()
    code, _, err = _run("plot", "det", target, "-o", target)
    one_line_error(code, err, "would overwrite the input file")
    assert target.read_bytes() == before


def test_without_matplotlib_one_line_says_what_to_install(files, tmp_path):
    """An import blocker (a sitecustomize that refuses matplotlib) stands for an install
    without the plot extra: the console script says in one line what to install, before it
    reads any file; the API says the same when a figure is drawn, not at import."""
    (tmp_path / "sitecustomize.py").write_text(
        "import sys\n"
        "class _NoMatplotlib:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'matplotlib' or name.startswith('matplotlib.'):\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, _NoMatplotlib())\n")
    import os

    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    out = tmp_path / "det.pdf"
    code, text, err = _script("plot", "det", files / "a_eval.txt", "-o", out, env=env)
    one_line_error(code, err, "figures need matplotlib", 'pip install "llrlab[plot]"')
    assert text == "" and not out.exists()
    # other commands work as before
    assert _script("eval", files / "a_eval.txt", "--json", env=env)[0] == 0
    code = ("import llrlab.core.plot as p, llrlab.core as c\n"
            "try:\n    p.det(c.gaussian_trials(10, 100, seed=1))\n"
            "except c.LlrlabError as e:\n    print(e)\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=env, timeout=120)
    assert r.stdout.strip() == ('figures need matplotlib, which is not installed: '
                                'pip install "llrlab[plot]"'), r.stderr


def test_neither_the_core_nor_the_parser_imports_matplotlib():
    assert loaded_by("import llrlab.core; from llrlab.core import analyze, palette, plot",
                     ("matplotlib",)) == []
    assert loaded_by("from llrlab.dashboard.cli import build_parser; build_parser()",
                     ("matplotlib", "numpy")) == []
    assert loaded_by("import llrlab.core.plot as p; p.det", ("matplotlib",)) == []
