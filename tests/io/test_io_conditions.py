"""Condition files joined into Trials.conditions."""

from __future__ import annotations

import numpy as np
import pytest

from llrlab.core import DataError, FileFormatError, LlrlabWarning, Trials
from llrlab.core.io import attach_conditions, attach_conditions_with_report


@pytest.fixture
def trials():
    return Trials([1.0, -1.0, 0.5, 2.0], [True, False, False, True],
                  model_ids=["m1", "m1", "m2", "m2"], segment_ids=["s1", "s2", "s1", "s2"],
                  source="scores.txt")


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_attach(tmp_path, trials):
    p = write(tmp_path / "c.txt", "m2 s2 mic\nm1 s1 tel\nm2 s1 tel\nm1 s2 mic\n")
    t, report = attach_conditions_with_report(trials, p)
    assert t.conditions.tolist() == ["tel", "mic", "tel", "mic"]
    np.testing.assert_array_equal(t.scores, trials.scores)
    assert report.complete and report.n_joined == 4


def test_csv_condition_file(tmp_path, trials):
    p = write(tmp_path / "c.csv", "m1,s1,a\nm1,s2,b\nm2,s1,a\nm2,s2,b\n")
    assert attach_conditions(trials, p).conditions.tolist() == ["a", "b", "a", "b"]


def test_mismatch_is_reported_and_unconditioned_trials_dropped(tmp_path, trials):
    p = write(tmp_path / "c.txt", "m1 s1 tel\nm1 s2 mic\nm2 s2 tel\nm5 s5 x\nm6 s6 y\n")
    with pytest.warns(LlrlabWarning) as rec:
        t, report = attach_conditions_with_report(trials, p)
    msg = str(rec[0].message)
    assert "1 trial(s) of scores.txt are not in" in msg and "'m2 s1'" in msg
    assert "2 condition trial(s)" in msg and "'m5 s5'" in msg
    assert (report.n_joined, report.n_left_only, report.n_right_only) == (3, 1, 2)
    np.testing.assert_array_equal(t.scores, [1.0, -1.0, 2.0])
    assert t.conditions.tolist() == ["tel", "mic", "tel"]


def test_conflicting_condition(tmp_path, trials):
    p = write(tmp_path / "c.txt", "m1 s1 tel\nm1 s2 mic\nm1 s1 mic\n")
    with pytest.raises(FileFormatError, match=r"c.txt, line 3: trial 'm1 s1' appears twice "
                                              r"with different condition"):
        attach_conditions(trials, p)


def test_errors(tmp_path, trials):
    with pytest.raises(FileFormatError, match="line 2: expected 3 fields"):
        attach_conditions(trials, write(tmp_path / "c.txt", "m1 s1 a\nm1 s2\n"))
    with pytest.raises(FileFormatError, match="no trial joins"):
        attach_conditions(trials, write(tmp_path / "d.txt", "x y a\n"))
    with pytest.raises(DataError, match="no \\(model, segment\\) ids"):
        attach_conditions(Trials.from_tar_non([1.0], [0.0]), tmp_path / "c.txt")
    with pytest.raises(FileFormatError, match="file not found"):
        attach_conditions(trials, tmp_path / "none.txt")


def test_dropping_a_whole_class_is_a_data_error(tmp_path, trials):
    p = write(tmp_path / "c.txt", "m1 s2 a\nm2 s1 a\n")
    with pytest.warns(LlrlabWarning), pytest.raises(DataError, match="no target trials"):
        attach_conditions(trials, p)
