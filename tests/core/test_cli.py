"""`llrlab eval`: table and JSON output, calibration side by side, exit code 2 on bad input."""

from __future__ import annotations

import io
import json

import pytest

from llrlab.core import analyze, gaussian_trials
from llrlab.core.cli import run
from llrlab.core.io import write_trials

KEYS = {"n_tar", "n_non", "eer", "cllr", "min_cllr", "act_dcf", "min_dcf", "prbep",
        "effective_prior"}


@pytest.fixture
def labelled(tmp_path):
    t = gaussian_trials(300, 3000, seed=5, scale=1.5, shift=-1.0)
    path = tmp_path / "eval.txt"
    write_trials(path, t)
    return path, t


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    code = run(argv, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_eval_json_has_exactly_the_keys_and_the_core_numbers(labelled):
    path, t = labelled
    code, out, _ = _run(["eval", str(path), "--json", "--p-target", "0.05"])
    assert code == 0
    d = json.loads(out)
    assert set(d) == KEYS
    want = analyze(t).summary(0.05)
    for k in KEYS:
        assert d[k] == pytest.approx(want[k], rel=1e-12)


def test_eval_table_and_calibration(labelled, tmp_path):
    path, _ = labelled
    dev = tmp_path / "dev.txt"
    write_trials(dev, gaussian_trials(300, 3000, seed=6, scale=1.5, shift=-1.0))
    code, out, _ = _run(["eval", str(path), "--calibrate-on", str(dev)])
    assert code == 0
    assert "calibrated" in out and "DR30" in out and "Cllr [bits]" in out


@pytest.mark.parametrize("content, needle", [
    ("1.0 target\nnan nontarget\n", "line 2"),
    ("1.0 target\n2.0 maybe\n", "line 2"),
    ("", "empty"),
])
def test_eval_bad_input_exit_2_with_one_line(tmp_path, content, needle):
    p = tmp_path / "bad.txt"
    p.write_text(content)
    code, out, err = _run(["eval", str(p)])
    assert code == 2 and out == ""
    assert needle in err and "bad.txt" in err
    assert len(err.strip().splitlines()) == 1
