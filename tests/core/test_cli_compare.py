"""`llrlab compare` and `llrlab eval --ci / --bootstrap / --by-speaker`: the command line gives
what the Python API gives, leaves eval's output unchanged without the flags, and refuses bad
input with one line naming the file (exit 2)."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from llrlab.core import Trials, gaussian_trials
from llrlab.core.cli import run
from llrlab.core.io import write_key, write_scores, write_trials
from llrlab.core.operating_point import plo_from_costs
from llrlab.core.significance import mcnemar_test, z_test
from llrlab.core.uncertainty import bootstrap_ci, operating_point_ci


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    code = run([str(a) for a in argv], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def _one_error_line(code, out, err, *needles):
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1, err
    for n in needles:
        assert n in err, err


@pytest.fixture
def two_systems(tmp_path):
    """Systems A and B on the same 3300 trials (ids; B's file in another order), and a key."""
    t = gaussian_trials(300, 3000, seed=5, scale=1.5, shift=-1.0)
    n = len(t)
    rng = np.random.default_rng(0)
    models = np.array([f"m{i % 20}" for i in range(n)])
    segs = np.array([f"s{i}" for i in range(n)])
    a = Trials(t.scores, t.labels, model_ids=models, segment_ids=segs)
    b = a.with_scores(t.scores + rng.normal(-0.5, 1.0, n))
    perm = rng.permutation(n)
    write_scores(tmp_path / "a.txt", a.unlabelled())
    write_scores(tmp_path / "b.txt", b.unlabelled().subset(perm))
    write_key(tmp_path / "key.txt", a)
    return tmp_path, a, b


def test_compare_json_equals_the_api(two_systems):
    d, a, b = two_systems
    code, out, err = _run(["compare", d / "a.txt", d / "b.txt", d / "key.txt", "--json",
                           "--p-target", "0.05"])
    assert code == 0, err
    obj = json.loads(out)
    plo = float(plo_from_costs(0.05, 1.0, 1.0))
    names = (str(d / "a.txt"), str(d / "b.txt"))
    zi = z_test(a, b, plo, names=names)
    zd = z_test(a, b, plo, variance="dependent", names=names)
    assert obj["z_test"]["p_value"] == pytest.approx(zi.p_value, rel=1e-12)
    assert obj["z_test"]["verdict"] == zi.verdict
    assert obj["z_test_dependent"]["statistic"] == pytest.approx(zd.statistic, rel=1e-12)
    assert (obj["act_dcf_a"], obj["act_dcf_b"]) == pytest.approx((zi.dcf_a, zi.dcf_b))
    for t in ("target", "non-target", "all"):
        m = mcnemar_test(a, b, plo, trials=t, names=names)
        got = obj["mcnemar"][t]
        assert (got["only_a_wrong"], got["only_b_wrong"], got["method"]) == (
            m.only_a_wrong, m.only_b_wrong, m.method)
        assert got["p_value"] == pytest.approx(m.p_value, rel=1e-12)
    assert obj["n_tar"] == 300 and obj["n_non"] == 3000


def test_compare_table_has_verdicts(two_systems):
    d, _, _ = two_systems
    code, out, err = _run(["compare", d / "a.txt", d / "b.txt", d / "key.txt"])
    assert code == 0 and err == ""
    assert "z-test of the DCF difference, independent errors (Bengio & Mariéthoz 2004)" in out
    assert "z-test of the DCF difference, paired (dependent) errors" in out
    assert "McNemar, misses" in out and "McNemar, false alarms" in out
    assert out.count("at the 5% level") == 5
    assert "actual DCF (normalized)" in out


def test_compare_labelled_files_are_paired_by_position(tmp_path):
    t = gaussian_trials(100, 1000, seed=1)
    u = t.with_scores(t.scores * 0.5 - 3.0)  # much worse calibrated at p_target 0.01
    write_trials(tmp_path / "a.txt", t)
    write_trials(tmp_path / "u.txt", u)
    code, out, _ = _run(["compare", tmp_path / "a.txt", tmp_path / "u.txt", "--json"])
    assert code == 0
    obj = json.loads(out)
    assert obj["key"] is None
    assert obj["mcnemar"]["all"]["p_value"] == pytest.approx(mcnemar_test(t, u, float(
        plo_from_costs(0.01, 1, 1))).p_value)


def test_compare_bad_input_exit_2_naming_the_file(two_systems, tmp_path):
    d, _, _ = two_systems
    code, out, err = _run(["compare", d / "a.txt", d / "missing.txt", d / "key.txt"])
    _one_error_line(code, out, err, "missing.txt")
    # labelled files of different lengths cannot be paired by position
    write_trials(tmp_path / "l1.txt", gaussian_trials(10, 20, seed=1))
    write_trials(tmp_path / "l2.txt", gaussian_trials(10, 21, seed=1))
    code, out, err = _run(["compare", tmp_path / "l1.txt", tmp_path / "l2.txt"])
    _one_error_line(code, out, err, "equal lengths", "l1.txt", "l2.txt")
    code, out, err = _run(["compare", d / "a.txt", d / "b.txt", d / "key.txt",
                           "--alpha", "5"])
    _one_error_line(code, out, err, "significance level")


def test_compare_warns_about_trials_missing_from_one_system(two_systems):
    d, a, b = two_systems
    write_scores(d / "b_short.txt", b.unlabelled().subset(np.arange(1, len(b))))
    code, out, err = _run(["compare", d / "a.txt", d / "b_short.txt", d / "key.txt",
                           "--json"])
    assert code == 0
    assert "llrlab compare: warning:" in err
    assert json.loads(out)["n_tar"] + json.loads(out)["n_non"] == len(a) - 1


# ---------------------------------------------------------------- eval with intervals


def test_eval_output_unchanged_without_interval_flags(two_systems):
    d, _, _ = two_systems
    code, out, _ = _run(["eval", d / "a.txt", d / "key.txt", "--json"])
    assert code == 0
    assert "ci" not in json.loads(out) and "bootstrap" not in json.loads(out)
    code, out, _ = _run(["eval", d / "a.txt", d / "key.txt"])
    assert "confidence intervals" not in out and "bootstrap" not in out


def test_eval_ci_and_bootstrap_json_equal_the_api(two_systems):
    d, a, _ = two_systems
    code, out, err = _run(["eval", d / "a.txt", d / "key.txt", "--json", "--ci", "0.9",
                           "--bootstrap", "50", "--by-speaker", "--seed", "3"])
    assert code == 0, err
    obj = json.loads(out)
    plo = float(plo_from_costs(0.01, 1, 1))
    ci = operating_point_ci(a, plo=plo, confidence=0.9)
    assert obj["ci"]["act_dcf"] == pytest.approx(
        [float(ci.dcf.estimate), float(ci.dcf.lower), float(ci.dcf.upper)], rel=1e-12)
    assert obj["ci"]["p_miss"][1] == pytest.approx(float(ci.p_miss.lower), rel=1e-12)
    b = bootstrap_ci(a, plo=plo, n_boot=50, confidence=0.9, by="speaker", seed=3)
    assert obj["bootstrap"]["by"] == "speaker" and obj["bootstrap"]["n_used"] == 50
    assert obj["bootstrap"]["eer"] == pytest.approx(
        [b.eer.estimate, b.eer.lower, b.eer.upper], rel=1e-12)
    assert obj["bootstrap"]["min_dcf"][0] == pytest.approx(obj["min_dcf"], rel=1e-12)


def test_eval_table_prints_intervals_beside_both_columns(two_systems, tmp_path):
    d, a, _ = two_systems
    dev = tmp_path / "dev.txt"
    write_trials(dev, gaussian_trials(300, 3000, seed=6, scale=1.5, shift=-1.0))
    code, out, err = _run(["eval", d / "a.txt", d / "key.txt", "--ci", "--bootstrap", "30",
                           "--calibrate-on", dev, "--ci-method", "clopper-pearson"])
    assert code == 0, err
    assert ("95% confidence intervals (clopper-pearson; mover-clopper-pearson for the DCF; "
            "binomial variance)") in out
    assert "95% bootstrap intervals (BCa (Efron 1987); 30 of 30 replicates by trial, seed 0)" in out
    row = next(line for line in out.splitlines() if line.startswith("Cllr [bits]") and "[" in
               line[30:])
    assert row.count("[") == 3  # "[bits]", then raw and calibrated intervals
    code, out, err = _run(["eval", d / "a.txt", d / "key.txt", "--bootstrap", "30",
                           "--bootstrap-method", "percentile", "--json"])
    assert code == 0, err
    b = bootstrap_ci(a, plo=float(plo_from_costs(0.01, 1, 1)), n_boot=30,
                     seed=0, method="percentile")
    assert json.loads(out)["bootstrap"]["method"] == "percentile"
    assert json.loads(out)["bootstrap"]["eer"][1:] == pytest.approx(
        [b.eer.lower, b.eer.upper], rel=1e-12)


def test_weighted_trials_name_the_stratified_variance(tmp_path):
    # a labelled file with condition and weight columns: the variance per condition
    rng = np.random.default_rng(3)
    n = 600
    cond = rng.choice(["tel", "mic"], n, p=[0.8, 0.2])
    lab = rng.random(n) < 0.3
    s = np.where(lab, 1.0, -1.0) + rng.normal(0, 1.2, n)
    w = np.where(cond == "tel", 1.0, 4.0)
    p = tmp_path / "weighted.txt"
    write_trials(p, Trials(s, lab, weights=w, conditions=cond))
    code, out, err = _run(["eval", p, "--ci", "--ci-method", "wilson"])
    assert code == 0, err
    assert "variance stratified by condition (Cochran 1977)" in out
    code, out, err = _run(["eval", p, "--ci", "--json"])
    assert json.loads(out)["ci"]["variance"] == "stratified"
    q = tmp_path / "b.txt"
    write_trials(q, Trials(s + 0.3, lab, weights=w, conditions=cond))
    code, out, err = _run(["compare", p, q])
    assert code == 0, err
    assert out.count("(variance stratified by condition (Cochran 1977))") == 2
    code, out, err = _run(["compare", p, q, "--json"])
    assert json.loads(out)["z_test_dependent"]["variance_estimator"] == "stratified"


@pytest.mark.parametrize("flags, needles", [
    (["--by-speaker"], ["--by-speaker", "--bootstrap"]),
    (["--ci", "95"], ["between 0 and 1"]),
    (["--bootstrap", "0"], [">= 1"]),
    (["--bootstrap-method", "bca"], ["--bootstrap-method", "--bootstrap"]),
    (["--bootstrap", "10", "--by-speaker"], ["needs (model, segment) ids", "plain.txt"]),
])
def test_eval_interval_flag_errors(tmp_path, flags, needles):
    p = tmp_path / "plain.txt"
    write_trials(p, gaussian_trials(50, 500, seed=2))
    code, out, err = _run(["eval", p, *flags])
    _one_error_line(code, out, err, *needles)
