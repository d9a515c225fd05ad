"""`llrlab curves {epc,ape,ece}`: CSV equal to the core functions at full precision, the Cllr
decomposition, several EPC systems, --out, and exit code 2 with one line on bad input."""

from __future__ import annotations

import csv
import io

import numpy as np
import pytest
from numpy.testing import assert_array_equal

from llrlab.core import gaussian_trials
from llrlab.core.ape import ape_curves, ece_curves
from llrlab.core.cli import run
from llrlab.core.epc import epc
from llrlab.core.io import load_trials, write_trials


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    code = run(argv, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def _table(text):
    rows = list(csv.reader(io.StringIO(text)))
    return rows[0], rows[1:]


@pytest.fixture
def files(tmp_path):
    paths = {}
    for name, seed, scale in (("dev", 1, 1.5), ("eval", 2, 1.5), ("dev2", 3, 0.7),
                              ("eval2", 4, 0.7)):
        p = tmp_path / f"{name}.txt"
        write_trials(p, gaussian_trials(200, 1500, seed=seed, scale=scale, shift=-1.0))
        paths[name] = p
    return paths


def test_ape_csv_to_stdout_and_decomposition_on_stderr(files):
    code, out, err = _run(["curves", "ape", str(files["eval"]), "--plo-range", "-5", "5",
                           "--points", "11"])
    assert code == 0
    header, rows = _table(out)
    assert header == ["plo", "effective_prior", "bayes_error", "min_bayes_error", "default"]
    data = np.array(rows, dtype=float)
    c = ape_curves(load_trials(files["eval"]), plo=np.linspace(-5, 5, 11))
    # repr is the shortest round-trip form: the numbers come back bit for bit
    assert_array_equal(data[:, 0], c.plo)
    assert_array_equal(data[:, 2], c.bayes_error)
    assert_array_equal(data[:, 3], c.min_bayes_error)
    assert_array_equal(data[:, 4], c.default)
    assert "discrimination loss" in err and "calibration loss" in err
    assert err.startswith("llrlab curves ape: Cllr ")


def test_ece_to_out_file(files, tmp_path):
    target = tmp_path / "ece.csv"
    code, out, err = _run(["curves", "ece", str(files["eval"]), "--points", "21",
                           "--out", str(target)])
    assert code == 0 and err == ""
    assert out.splitlines()[0] == f"wrote 21 rows to {target}"
    assert "calibration loss" in out
    header, rows = _table(target.read_text())
    assert header == ["plo", "effective_prior", "ce_nats", "min_ce_nats", "default_nats"]
    data = np.array(rows, dtype=float)
    c = ece_curves(load_trials(files["eval"]), plo=np.linspace(-10, 10, 21))
    assert_array_equal(data[:, 2], c.ce)
    assert_array_equal(data[:, 3], c.min_ce)
    assert_array_equal(data[:, 4], c.default)


def test_quiet_prints_no_summary(files):
    code, out, err = _run(["curves", "ece", str(files["eval"]), "--points", "3", "--quiet"])
    assert code == 0 and err == "" and len(out.splitlines()) == 4


def test_epc_two_systems(files):
    code, out, err = _run(["curves", "epc", "--dev", str(files["dev"]),
                           "--eval", str(files["eval"]), "--dev", str(files["dev2"]),
                           "--eval", str(files["eval2"]), "--points", "11"])
    assert code == 0, err
    header, rows = _table(out)
    assert header == ["system", "alpha", "threshold", "dev_p_miss", "dev_p_fa", "dev_wer",
                      "eval_p_miss", "eval_p_fa", "eval_wer", "eval_hter"]
    assert len(rows) == 22
    for i, (d, e) in enumerate((("dev", "eval"), ("dev2", "eval2"))):
        block = rows[11 * i: 11 * (i + 1)]
        assert {r[0] for r in block} == {str(files[e])}
        data = np.array([r[1:] for r in block], dtype=float)
        c = epc(load_trials(files[d]), load_trials(files[e]), np.linspace(0, 1, 11))
        assert_array_equal(data[:, 1], c.threshold)
        assert_array_equal(data[:, 5], c.p_miss)
        assert_array_equal(data[:, 8], c.hter)


@pytest.mark.parametrize("argv, needle", [
    (["curves", "ape", "{missing}"], "missing.txt"),
    (["curves", "ece", "{eval}", "--plo-range", "3", "-3"], "--plo-range"),
    (["curves", "ape", "{eval}", "--points", "1"], "--points"),
    (["curves", "epc", "--dev", "{dev}", "--eval", "{eval}", "--dev", "{dev2}"],
     "one --eval per --dev"),
    (["curves", "epc", "--dev", "{dev}", "--eval", "{missing}"], "missing.txt"),
    (["curves", "ape", "{eval}", "--out", "{eval}"], "overwrite"),
    (["curves", "ape", "{bad}"], "line 2"),
    (["curves", "epc", "--dev", "{onlynon}", "--eval", "{eval}"], "no target"),
])
def test_bad_input_exits_2_with_one_line(files, tmp_path, argv, needle):
    bad = tmp_path / "bad.txt"
    bad.write_text("1.0 target\nnan nontarget\n")
    onlynon = tmp_path / "onlynon.txt"
    onlynon.write_text("1.0 nontarget\n2.0 nontarget\n")
    names = {**{k: str(v) for k, v in files.items()}, "missing": str(tmp_path / "missing.txt"),
             "bad": str(bad), "onlynon": str(onlynon)}
    before = files["eval"].read_text()
    code, out, err = _run([a.format(**names) for a in argv])
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("llrlab curves: error: ")
    assert needle in lines[0]
    assert files["eval"].read_text() == before
