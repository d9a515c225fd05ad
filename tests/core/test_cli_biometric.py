"""``llrlab eval --biometric/--dev/--threshold`` and ``llrlab curves roc|det``: the numbers of
the core functions (JSON at full precision), the table's rows, and one line with exit code 2
on mistakes; the installed console script in a subprocess."""

from __future__ import annotations

import csv
import io
import json
import subprocess

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from llrlab.core import (
    auc,
    counts_at,
    fnmr_at_fmr,
    gaussian_trials,
    hter,
    roc_curve,
    rocch_eer,
    threshold_eer,
    zero_fmr,
    zero_fnmr,
)
from llrlab.core.cli import run
from llrlab.core.det import probit
from llrlab.core.io import load_trials, write_trials

from .._time_scale import scaled
from ..cli.test_console_script import LLRLAB


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    code = run(argv, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, seed in (("dev", 1), ("eval", 2)):
        p = tmp_path / f"{name}.txt"
        t = gaussian_trials(300, 3000, seed=seed, scale=1.5, shift=-1.0)
        # rounded scores: ties between and within the classes
        write_trials(p, t.with_scores(np.round(t.scores, 2)))
        paths[name] = p
    return paths


def test_eval_json_keys_equal_the_core(files):
    code, out, _ = _run(["eval", str(files["eval"]), "--json", "--biometric", "--fmr",
                         "0.01", "0.05", "--eer-rule", "closest", "--dev", str(files["dev"]),
                         "--threshold", "0.5", "-1", "--quiet"])
    assert code == 0
    d = json.loads(out)
    t = load_trials(files["eval"])
    e = threshold_eer(t, rule="closest")
    assert (d["eer_sweep"], d["eer_sweep_low"], d["eer_sweep_high"],
            d["eer_sweep_threshold"], d["eer_sweep_rule"]) == (
        e.eer, e.eer_low, e.eer_high, e.threshold, "closest")
    r = fnmr_at_fmr(t, fmr=[0.01, 0.05])
    assert (d["fmr100"], d["fmr100_threshold"], d["fmr100_fmr"]) == (
        float(r.p_miss[0]), float(r.threshold[0]), float(r.p_fa[0]))
    assert (d["fmr20"], d["fmr20_threshold"]) == (float(r.p_miss[1]), float(r.threshold[1]))
    assert "fmr1000" not in d
    assert (d["zero_fmr"], d["zero_fnmr"]) == (float(zero_fmr(t).p_miss),
                                               float(zero_fnmr(t).p_fa))
    a = auc(t)
    assert (d["auc"], d["auc_lower"], d["auc_upper"], d["auc_confidence"]) == (
        a.auc, a.lower, a.upper, 0.95)
    h = hter(load_trials(files["dev"]), t, rule="closest")
    assert (d["hter"], d["hter_threshold"], d["hter_criterion"]) == (h.hter, h.threshold,
                                                                     "eer")
    c = counts_at(t, threshold=[0.5, -1.0])
    assert d["at_threshold"] == [
        {"threshold": 0.5, "misses": int(c.misses[0]), "false_alarms": int(c.false_alarms[0]),
         "fnmr": float(c.p_miss[0]), "fmr": float(c.p_fa[0])},
        {"threshold": -1.0, "misses": int(c.misses[1]), "false_alarms": int(c.false_alarms[1]),
         "fnmr": float(c.p_miss[1]), "fmr": float(c.p_fa[1])}]
    # the main measures are untouched
    assert d["eer"] == rocch_eer(t) and "cllr" in d


def test_eval_table_rows(files):
    code, out, _ = _run(["eval", str(files["eval"]), "--biometric", "--ci", "0.9", "--quiet",
                         "--dev", str(files["dev"]), "--hter-at", "0.01",
                         "--threshold", "0.5"])
    assert code == 0
    lines = out.splitlines()
    i = lines.index("threshold measures of the scores (accept when score >= threshold; "
                    "FNMR = Pmiss, FMR = Pfa):")
    labels = [line[:36].strip() for line in lines[i + 2:i + 9]]
    assert labels == ["EER (threshold sweep) [%]", "FMR100 (FNMR at FMR <= 1%) [%]",
                      "FMR1000 (FNMR at FMR <= 0.1%) [%]", "FMR10000 (FNMR at FMR <= 0.01%) [%]",
                      "ZeroFMR (FNMR at FMR = 0) [%]", "ZeroFNMR (FMR at FNMR = 0) [%]",
                      "AUC [90% DeLong CI]"]
    t = load_trials(files["eval"])
    e = threshold_eer(t)
    assert lines[i + 2].split()[4:6] == [f"{100 * e.eer:.6g}", f"{e.threshold:.6g}"]
    # 3000 non-targets: FMR1000 and FMR10000 allow fewer than 30 false matches
    assert "fewer than 30" not in lines[i + 3] and "fewer than 30" in lines[i + 4]
    assert any(line.startswith("HTER at the threshold of dev's FMR <= 1% on ")
               for line in lines)
    c = counts_at(t, threshold=0.5)
    assert (f"at score threshold 0.5: {int(c.misses)} of 300 targets rejected"
            in out)


def test_eval_without_the_options_is_unchanged(files):
    code, out, _ = _run(["eval", str(files["eval"]), "--json"])
    assert code == 0
    assert set(json.loads(out)) == {"n_tar", "n_non", "eer", "cllr", "min_cllr", "act_dcf",
                                    "min_dcf", "prbep", "effective_prior"}


@pytest.mark.parametrize(("argv", "message"), [
    (["--hter-at", "eer"], "--hter-at has no effect without --dev DEV [KEY]"),
    (["--fmr", "1.5"], "--fmr takes FMR targets in [0, 1]"),
    (["--threshold", "nan"], "--threshold takes numbers"),
    (["--biometric", "--dask"], "not computed on Dask"),
    (["--dev", "a", "b", "c"], "--dev takes DEV [KEY], got 3 files"),
])
def test_eval_mistakes(files, argv, message):
    code, _, err = _run(["eval", str(files["eval"]), *argv])
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1


def test_eval_dev_placed_before_the_scores():
    """``--dev DEV KEY SCORES KEY``: the four names are split back (as --calibrate-on)."""
    from pathlib import Path

    a = Path(__file__).parents[2] / "assets"
    dev = [str(a / "demo_A_dev_scores.h5"), str(a / "demo_dev_key.h5")]
    ev = [str(a / "demo_A_eval_scores.h5"), str(a / "demo_eval_key.h5")]
    code, out, _ = _run(["eval", "--dev", *dev, *ev, "--json", "--quiet"])
    assert code == 0
    code2, out2, _ = _run(["eval", *ev, "--json", "--quiet", "--dev", *dev])
    assert code2 == 0 and json.loads(out)["hter"] == json.loads(out2)["hter"]


@pytest.mark.parametrize("kind", ["roc", "det"])
def test_curves_roc_det_all_rows(files, kind, tmp_path):
    target = tmp_path / f"{kind}.csv"
    code, out, _ = _run(["curves", kind, str(files["eval"]), "--all", "--out", str(target)])
    assert code == 0
    rows = list(csv.reader(io.StringIO(target.read_text())))
    c = roc_curve(load_trials(files["eval"]))
    assert len(rows) == len(c) + 1 and out.startswith(f"wrote {len(c)} rows to {target}")
    data = np.array(rows[1:], dtype=float)
    assert_array_equal(data[:, 0], c.threshold)
    assert_array_equal(data[:, 1], c.p_fa)
    assert_array_equal(data[:, 2], c.p_miss)
    if kind == "roc":
        assert rows[0] == ["threshold", "p_fa", "p_miss", "tpr", "false_alarms", "misses"]
        assert_array_equal(data[:, 3], (300 - c.misses) / 300)
    else:
        assert rows[0] == ["threshold", "p_fa", "p_miss", "probit_p_fa", "probit_p_miss",
                           "false_alarms", "misses"]
        assert_array_equal(data[:, 3], probit(c.p_fa))
        assert_array_equal(data[:, 4], probit(c.p_miss))
    assert_array_equal(data[:, -2], c.false_alarms)
    assert_array_equal(data[:, -1], c.misses)
    e = threshold_eer(load_trials(files["eval"]))
    assert f"EER (threshold sweep) {100 * e.eer:.6g}% at threshold {e.threshold:.6g}" in out


def test_curves_roc_thinned_by_default(tmp_path):
    p = tmp_path / "big.txt"
    write_trials(p, gaussian_trials(3000, 30000, seed=7))
    code, out, err = _run(["curves", "det", str(p)])
    rows = list(csv.reader(io.StringIO(out)))
    assert code == 0 and 100 < len(rows) - 1 <= 10_000
    assert "thinned to" in err and "--all for all" in err
    # both ends are kept
    assert rows[1][1:3] == ["1.0", "0.0"] and rows[-1][:3] == ["inf", "0.0", "1.0"]
    code, out, err = _run(["curves", "roc", str(p), "--points", "2"])
    assert code == 2 and "--points must be at least 3" in err


def test_console_script(files):
    """The installed ``llrlab`` script, the way users run it."""
    def script(*args):
        return subprocess.run([str(LLRLAB), *args], capture_output=True, text=True,
                              check=False, timeout=scaled(120))

    p = script("eval", str(files["eval"]), "--biometric", "--quiet")
    assert p.returncode == 0, p.stderr
    assert "FMR100 (FNMR at FMR <= 1%) [%]" in p.stdout
    p = script("curves", "roc", str(files["eval"]), "--points", "50")
    assert p.returncode == 0 and p.stdout.startswith("threshold,p_fa,p_miss,tpr")
