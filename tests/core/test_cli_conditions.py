"""`llrlab eval` with conditions: --conditions, --condition-weights, --select-conditions,
--by-condition (table and JSON), and exit code 2 with one line on bad input."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest

from llrlab.core import Trials, analyze, gaussian_trials, plo_from_costs
from llrlab.core.cli import run
from llrlab.core.conditions import by_condition, condition_weights
from llrlab.core.io import write_trials

KEYS = {"n_tar", "n_non", "eer", "cllr", "min_cllr", "act_dcf", "min_dcf", "prbep",
        "effective_prior"}


def _trials():
    a = gaussian_trials(60, 500, seed=1)
    b = gaussian_trials(240, 150, seed=2, shift=-1.0)
    n = len(a) + len(b)
    return Trials(np.r_[a.scores, b.scores], np.r_[a.labels, b.labels],
                  conditions=["tel"] * len(a) + ["mic"] * len(b),
                  model_ids=[f"m{i % 17}" for i in range(n)],
                  segment_ids=[f"s{i}" for i in range(n)])


@pytest.fixture
def files(tmp_path):
    t = _trials()
    labelled = tmp_path / "cond.txt"
    write_trials(labelled, t)
    plain = tmp_path / "plain.txt"
    write_trials(plain, Trials(t.scores, t.labels, model_ids=t.model_ids,
                               segment_ids=t.segment_ids))
    cfile = tmp_path / "conditions.txt"
    cfile.write_text("".join(f"{m} {s} {c}\n" for m, s, c in
                             zip(t.model_ids, t.segment_ids, t.conditions, strict=True)))
    return t, labelled, plain, cfile


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    code = run(argv, out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def _json(argv):
    code, out, err = _run([*argv, "--json"])
    assert code == 0, err
    return json.loads(out)


def test_condition_weights_change_the_main_numbers(files):
    t, labelled, _, _ = files
    d = _json(["eval", str(labelled), "--condition-weights", "equal", "--p-target", "0.1"])
    assert set(d) == KEYS | {"condition_weights"} and d["condition_weights"] == "equal"
    want = analyze(condition_weights(t).trials).summary(0.1)
    for k in KEYS:
        assert d[k] == pytest.approx(want[k], rel=1e-12)
    plain = _json(["eval", str(labelled), "--p-target", "0.1"])
    assert set(plain) == KEYS and plain["eer"] != d["eer"]
    pooled = _json(["eval", str(labelled), "--condition-weights", "pooled", "--p-target", "0.1"])
    for k in KEYS:
        assert pooled[k] == plain[k]


def test_custom_weights_and_selection(files):
    t, labelled, _, _ = files
    d = _json(["eval", str(labelled), "--condition-weights", "tel=3,mic=1"])
    want = analyze(condition_weights(t, {"tel": 3, "mic": 1}).trials).summary()
    assert d["cllr"] == pytest.approx(want["cllr"], rel=1e-12)
    s = _json(["eval", str(labelled), "--select-conditions", "tel"])
    alone = analyze(t.subset(t.conditions == "tel")).summary()
    assert s["selected_conditions"] == ["tel"]
    for k in ("n_tar", "n_non", "eer", "cllr", "act_dcf"):
        assert s[k] == alone[k]


def test_by_condition_json_matches_the_api(files):
    t, labelled, _, _ = files
    d = _json(["eval", str(labelled), "--by-condition", "--p-target", "0.2"])
    assert set(d) == KEYS | {"by_condition"}
    b = d["by_condition"]
    r = by_condition(t, plo=float(plo_from_costs(0.2)))
    assert set(b["conditions"]) == {"mic", "tel"}
    for k, c in enumerate(r.conditions.tolist()):
        assert b["conditions"][c]["n_tar"] == r.n_tar[k]
        assert b["conditions"][c]["min_dcf"] == pytest.approx(r.min_dcf[k], rel=1e-12)
    assert b["weighted"]["min_cllr"] == pytest.approx(r.weighted.min_cllr, rel=1e-12)
    assert b["weighted"]["act_dcf"] == pytest.approx(
        0.5 * sum(b["conditions"][c]["act_dcf"] for c in ("mic", "tel")), rel=1e-12)
    # The main table stays the plain pool unless --condition-weights is given.
    assert b["unweighted"]["cllr"] == d["cllr"]


def test_by_condition_table(files):
    _, labelled, _, _ = files
    code, out, err = _run(["eval", str(labelled), "--by-condition", "--condition-weights",
                           "tel=1,mic=3"])
    assert code == 0, err
    assert "trials pooled with condition weights tel=1,mic=3" in out
    assert "by condition (weights: tel=1,mic=3" in out
    head = next(line for line in out.splitlines() if line.split()[:2] == ["mic", "tel"])
    assert head.split() == ["mic", "tel", "weighted", "all", "trials"]
    row = next(line for line in out.splitlines() if line.startswith("weight "))
    assert row.split()[1:] == ["0.75", "0.25"]
    assert "min Cllr [bits]" in out and "Pmiss (actual)" in out


@pytest.mark.parametrize("weights", [None, "equal", "pooled", "tel=1,mic=3"])
@pytest.mark.parametrize("extra", [[], ["--calibrate-on"], ["--ci", "0.9"]])
def test_by_condition_output_has_no_trailing_spaces(files, weights, extra):
    """Rows without a "weighted" and an "all trials" cell (the condition weights) used to end
    in 28 spaces."""
    _, labelled, _, _ = files
    argv = ["eval", str(labelled), "--by-condition"]
    argv += ["--condition-weights", weights] if weights else []
    argv += [*extra, str(labelled)] if extra == ["--calibrate-on"] else extra
    code, out, err = _run(argv)
    assert code == 0, err
    assert "by condition (weights:" in out
    padded = [line for line in (out + err).splitlines() if line != line.rstrip()]
    assert padded == []


def test_conditions_file_joins_like_a_labelled_condition_column(files):
    _, labelled, plain, cfile = files
    a = _json(["eval", str(plain), "--conditions", str(cfile), "--by-condition"])
    b = _json(["eval", str(labelled), "--by-condition"])
    assert a == b


def test_by_condition_after_calibration(files, tmp_path):
    _, labelled, _, _ = files
    code, out, err = _run(["eval", str(labelled), "--by-condition", "--calibrate-on",
                           str(labelled)])
    assert code == 0, err
    assert out.count("by condition (weights: equal") == 2
    d = _json(["eval", str(labelled), "--by-condition", "--calibrate-on", str(labelled)])
    assert "by_condition" in d["raw"] and "by_condition" in d["calibrated"]


@pytest.mark.parametrize("argv, needle", [
    (["--condition-weights", "tel=1,radio=2"], "cond.txt: condition weights name 'radio'"),
    (["--condition-weights", "tel=1"], "cond.txt: no weight for condition(s) 'mic'"),
    (["--condition-weights", "tel=-1,mic=1"], "cond.txt: the weight of condition 'tel' must"),
    (["--condition-weights", "tel=x"], "--condition-weights: the weight of condition 'tel' "
                                       "is not a number"),
    (["--condition-weights", "heavy"], "--condition-weights: condition weights must be"),
    (["--select-conditions", "radio"], "cond.txt: selected condition(s) 'radio' not found"),
    (["--select-conditions", ","], "--select-conditions: no condition named"),
])
def test_bad_condition_options_exit_2_with_one_line(files, argv, needle):
    _, labelled, _, _ = files
    code, out, err = _run(["eval", str(labelled), *argv])
    assert code == 2 and out == ""
    assert needle in err
    assert len(err.strip().splitlines()) == 1


def test_no_conditions_and_bad_condition_file(files, tmp_path):
    _, _, plain, _ = files
    code, out, err = _run(["eval", str(plain), "--by-condition"])
    assert code == 2 and "plain.txt: the trials have no conditions; give --conditions" in err
    bad = tmp_path / "badcond.txt"
    bad.write_text("m0 s0 tel\nm1 s1\n")
    code, out, err = _run(["eval", str(plain), "--conditions", str(bad)])
    assert code == 2 and out == ""
    assert "badcond.txt, line 2" in err and len(err.strip().splitlines()) == 1
    code, _, err = _run(["eval", str(plain), "--conditions", str(tmp_path / "nope.txt")])
    assert code == 2 and "nope.txt" in err


def test_condition_without_targets_names_the_condition_file(tmp_path):
    t = Trials([1.0, 0.0, 2.0, -1.0, 0.5], [1, 0, 0, 0, 1],
               model_ids=["a", "a", "b", "b", "c"], segment_ids=["x", "y", "x", "y", "x"])
    scores = tmp_path / "s.txt"
    write_trials(scores, t)
    cfile = tmp_path / "c.txt"
    cfile.write_text("a x one\na y one\nb x two\nb y two\nc x one\n")
    code, out, err = _run(["eval", str(scores), "--conditions", str(cfile), "--by-condition"])
    assert code == 2 and out == ""
    assert "c.txt: condition 'two' has no target trials" in err
    code, out, err = _run(["eval", str(scores), "--conditions", str(cfile),
                           "--condition-weights", "one=1,two=0"])
    assert code == 0, err


def test_by_condition_text_table_shows_the_largest_conditions_only(tmp_path):
    """Thousands of conditions used to print one column each (an 18 MB table); the text
    shows the largest 20 and says so, the JSON keeps them all."""
    from llrlab.core.cli._conditions import MAX_CONDITION_COLUMNS

    rng = np.random.default_rng(0)
    n = 6000
    labels = (np.arange(n) // 300) % 10 == 0  # every condition has both classes
    scores = rng.normal(size=n) + 2.0 * labels
    cond = np.array([f"c{i % 300:03d}" for i in range(n)])
    cond[:1500] = "big"
    path = tmp_path / "many.txt"
    write_trials(path, Trials(scores, labels, conditions=cond))
    code, out, err = _run(["eval", str(path), "--by-condition"])
    assert code == 0, err
    head = next(line for line in out.splitlines() if "weighted" in line and "all trials" in line)
    assert len(head.split()) == MAX_CONDITION_COLUMNS + 3  # + "weighted", "all", "trials"
    assert "big" in head.split()
    assert f"(the {MAX_CONDITION_COLUMNS} largest of 301 conditions are shown" in out
    code, out, _ = _run(["eval", str(path), "--by-condition", "--json"])
    assert len(json.loads(out)["by_condition"]["conditions"]) == 301
