"""One labelled text file: with or without header, whitespace, CSV or TSV."""

from __future__ import annotations

import numpy as np
import pytest

from llrlab.core import DataError, FileFormatError, LlrlabWarning, Trials
from llrlab.core.io import load_trials, load_trials_with_report, write_trials


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_two_columns_without_header(tmp_path):
    t = load_trials(write(tmp_path / "t.txt", "2.5 target\n-1 nontarget\n0.5 NON\n"))
    np.testing.assert_array_equal(t.scores, [2.5, -1, 0.5])
    np.testing.assert_array_equal(t.labels, [True, False, False])
    assert not t.has_ids and t.source == str(tmp_path / "t.txt")


def test_four_columns_without_header(tmp_path):
    t = load_trials(write(tmp_path / "t.txt", "m1 s1 2.5 1\nm1 s2 -1 0\n"))
    assert t.model_ids.tolist() == ["m1", "m1"] and t.segment_ids.tolist() == ["s1", "s2"]
    np.testing.assert_array_equal(t.labels, [True, False])


def test_header_in_any_order_with_condition(tmp_path):
    p = write(tmp_path / "t.txt", "Target Test Condition Score Model\n"
                                  "tgt s1 tel 1.5 m1\nimp s2 mic -2 m1\nimp s1 tel 0 m2\n")
    t = load_trials(p)
    np.testing.assert_array_equal(t.scores, [1.5, -2, 0])
    np.testing.assert_array_equal(t.labels, [True, False, False])
    assert t.model_ids.tolist() == ["m1", "m1", "m2"]
    assert t.segment_ids.tolist() == ["s1", "s2", "s1"]
    assert t.conditions.tolist() == ["tel", "mic", "tel"]


@pytest.mark.parametrize("names", ["score label", "llr class", "scores key", "score target"])
def test_header_aliases(tmp_path, names):
    t = load_trials(write(tmp_path / "t.txt", f"{names}\n1 true\n0 false\n"))
    np.testing.assert_array_equal(t.labels, [True, False])


def test_csv_with_header_and_quotes(tmp_path):
    p = write(tmp_path / "t.csv", 'model,segment,score,label\n"m1","s1",1.5,target\n'
                                  'm1,s2,-0.5,nontarget\n')
    t = load_trials(p)
    assert t.model_ids.tolist() == ["m1", "m1"]
    np.testing.assert_array_equal(t.scores, [1.5, -0.5])


def test_csv_detected_from_content(tmp_path):
    t = load_trials(write(tmp_path / "t.txt", "score, label\n1.5, target\n-0.5, nontarget\n"))
    np.testing.assert_array_equal(t.scores, [1.5, -0.5])
    t = load_trials(write(tmp_path / "u.dat", "1.5,target\n-0.5,nontarget\n"))
    np.testing.assert_array_equal(t.labels, [True, False])


def test_tsv(tmp_path):
    t = load_trials(write(tmp_path / "t.tsv", "score\tlabel\n1.5\ttarget\n-0.5\tnontarget\n"))
    np.testing.assert_array_equal(t.scores, [1.5, -0.5])


def test_weights_column(tmp_path):
    t = load_trials(write(tmp_path / "t.txt", "score label weight\n1 target 2\n0 non 0.5\n"))
    np.testing.assert_array_equal(t.weights, [2, 0.5])
    with pytest.raises(FileFormatError, match=r"line 3: the weight -1\.0 is negative"):
        load_trials(write(tmp_path / "u.txt", "score label weight\n1 target 2\n0 non -1\n"))


def test_unknown_header_column_is_named(tmp_path):
    p = write(tmp_path / "t.txt", "model segment score label speaker\nm s 1 target x\n")
    with pytest.raises(FileFormatError) as exc:
        load_trials(p)
    assert exc.value.line == 1 and "unknown column 'speaker'" in str(exc.value)


@pytest.mark.parametrize(("header", "message"), [
    ("model segment score", "no label column"),
    ("score label label", "two header columns mean label"),
    ("model score label", "model column but no segment column"),
])
def test_bad_headers(tmp_path, header, message):
    n = len(header.split())
    row = " ".join(["1"] * n)
    with pytest.raises(FileFormatError, match=message):
        load_trials(write(tmp_path / "t.txt", f"{header}\n{row}\n"))


def test_header_only(tmp_path):
    with pytest.raises(FileFormatError, match="header line but no trials"):
        load_trials(write(tmp_path / "t.txt", "score label\n"))


def test_three_columns_without_header(tmp_path):
    with pytest.raises(FileFormatError, match=r"line 1: expected 2 fields \(score label\) or 4"):
        load_trials(write(tmp_path / "t.txt", "m s 1\n"))


def test_errors_give_the_line_after_a_header(tmp_path):
    p = write(tmp_path / "t.txt", "score label\n1 target\n\nx target\n")
    with pytest.raises(FileFormatError) as exc:
        load_trials(p)
    assert exc.value.line == 4 and "'x' is not a number" in str(exc.value)


def test_duplicates_in_a_labelled_file(tmp_path):
    p = write(tmp_path / "t.txt", "m s1 1 target\nm s2 0 non\nm s1 1 target\n")
    with pytest.warns(LlrlabWarning, match="1 duplicate"):
        t, report = load_trials_with_report(p)
    assert len(t) == 2 and report.n_left_duplicates == 1 and report.right == ""
    p = write(tmp_path / "u.txt", "m s1 1 target\nm s2 0 non\nm s1 1 non\n")
    with pytest.raises(FileFormatError, match="line 3: trial 'm s1' appears twice"):
        load_trials(p)


@pytest.mark.parametrize("name", ["t.txt", "t.csv", "t.tsv"])
@pytest.mark.parametrize("ids", [True, False])
@pytest.mark.parametrize("header", [True, False])
def test_write_read_round_trip(tmp_path, name, ids, header):
    rng = np.random.default_rng(3)
    n = 200
    x = rng.normal(size=n) * 1e-7
    lab = rng.random(n) < 0.5
    kw = {}
    if ids:
        kw = {"model_ids": [f"m{i % 7}" for i in range(n)],
              "segment_ids": [f"s{i}" for i in range(n)]}
    t = Trials(x, lab, **kw)
    write_trials(tmp_path / name, t, header=header)
    back = load_trials(tmp_path / name)
    assert back.scores.tobytes() == x.tobytes()
    np.testing.assert_array_equal(back.labels, lab)
    if ids:
        np.testing.assert_array_equal(back.model_ids, t.model_ids)
        np.testing.assert_array_equal(back.segment_ids, t.segment_ids)


def test_round_trip_with_conditions_and_weights(tmp_path):
    t = Trials([1.0, -2.0, 0.5], [True, False, False], weights=[1, 2, 3],
               conditions=["a", "b", "a"], model_ids=["m", "m", "n"],
               segment_ids=["x", "y", "x"])
    write_trials(tmp_path / "t.csv", t)
    back = load_trials(tmp_path / "t.csv")
    assert back.conditions.tolist() == ["a", "b", "a"]
    np.testing.assert_array_equal(back.weights, [1, 2, 3])
    with pytest.raises(DataError, match="need a header"):
        write_trials(tmp_path / "u.txt", t, header=False)
