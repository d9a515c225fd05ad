"""The optional ``/conditions`` string matrix of BOSARIS HDF5 score and key files."""

from __future__ import annotations

import io

import h5py
import numpy as np
import pytest

from llrlab.core import FileFormatError, Trials
from llrlab.core.cli import run
from llrlab.core.io import load_trials, write_key, write_scores

MODELS, SEGS = ["m1", "m2"], ["s1", "s2", "s3"]
TMASK = np.array([[1, -1, -1], [-1, 1, 1]], dtype=np.int8)
SCORES = np.array([[1.5, -2.0, 0.5], [0.25, 2.0, 3.0]])
COND = np.array([[b"tel", b"mic", b"tel"], [b"mic", b"mic", b"tel"]])  # fixed-length bytes


def _files(tmp_path, *, cond_in="key", transpose=False, cond=COND):
    s, k = tmp_path / "s.h5", tmp_path / "k.h5"
    with h5py.File(s, "w") as f:
        f["scores"] = SCORES
        f["score_mask"] = np.ones_like(TMASK, dtype=np.uint8)
        f["ID/row_ids"] = np.array([m.encode() for m in MODELS])
        f["ID/column_ids"] = np.array([x.encode() for x in SEGS])
        if cond_in in ("scores", "both"):
            f["conditions"] = cond.T if transpose else cond
    with h5py.File(k, "w") as f:
        f["trial_mask"] = TMASK
        f["file_format"] = np.bytes_(b"2.0")
        f["ID/row_ids"] = np.array([m.encode() for m in MODELS])
        f["ID/column_ids"] = np.array([x.encode() for x in SEGS])
        if cond_in in ("key", "both"):
            f["conditions"] = cond.T if transpose else cond
    return s, k


@pytest.mark.parametrize("cond_in", ["key", "scores", "both"])
@pytest.mark.parametrize("transpose", [False, True])
def test_conditions_are_read_from_either_file(tmp_path, cond_in, transpose):
    t = load_trials(*_files(tmp_path, cond_in=cond_in, transpose=transpose))
    assert t.conditions.tolist() == ["tel", "mic", "tel", "mic", "mic", "tel"]
    assert t.scores.tolist() == [1.5, -2.0, 0.5, 0.25, 2.0, 3.0]


def test_without_conditions_none(tmp_path):
    assert load_trials(*_files(tmp_path, cond_in="none")).conditions is None


def test_round_trip_writes_conditions(tmp_path):
    t = Trials([1.0, -1.0, 2.0, 0.5], [True, False, True, False],
               conditions=["a", "b", "ß", "a"], model_ids=["m1", "m1", "m2", "m2"],
               segment_ids=["s1", "s2", "s1", "s3"])
    write_scores(tmp_path / "s.h5", t)
    write_key(tmp_path / "k.h5", t)
    back = load_trials(tmp_path / "s.h5", tmp_path / "k.h5")
    assert back.conditions.tolist() == ["a", "b", "ß", "a"]
    # Without conditions no dataset is written.
    write_key(tmp_path / "k2.h5",
              Trials(t.scores, t.labels, model_ids=t.model_ids, segment_ids=t.segment_ids))
    with h5py.File(tmp_path / "k2.h5") as f:
        assert "conditions" not in f


def test_conflicting_and_missing_conditions(tmp_path):
    other = COND.astype("S5")
    other[1, 2] = b"radio"
    s, k = _files(tmp_path, cond_in="key")
    with h5py.File(s, "a") as f:
        f["conditions"] = other
    with pytest.raises(FileFormatError, match=r"k.h5: trial m2 s3 has condition 'tel' here "
                                              r"but 'radio' in .*s.h5"):
        load_trials(s, k)
    hole = COND.copy()
    hole[0, 1] = b""
    with pytest.raises(FileFormatError, match="trial m1 s2 has no condition in /conditions"):
        load_trials(*_files(tmp_path, cond=hole))
    with pytest.raises(FileFormatError, match=r"/conditions has shape \(3, 3\)"):
        load_trials(*_files(tmp_path, cond=np.full((3, 3), b"x")))
    with pytest.raises(FileFormatError, match="/conditions should hold strings"):
        load_trials(*_files(tmp_path, cond=np.ones((2, 3))))


def test_eval_by_condition_from_hdf5_needs_no_condition_file(tmp_path):
    s, k = _files(tmp_path)
    out, err = io.StringIO(), io.StringIO()
    assert run(["eval", str(s), str(k), "--by-condition", "--p-target", "0.5"],
               out=out, err=err) == 0, err.getvalue()
    assert "by condition" in out.getvalue() and "mic" in out.getvalue()
