"""Scores held in Python objects as the dashboard's systems (systems_from_objects)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from llrlab.core import DataError, Trials
from llrlab.dashboard.state.objects import MAX_SYSTEMS, systems_from_objects

TAR, NON = [2.0, 1.5, -0.5], [0.0, -1.0, -2.0, 1.0]


def _same(t, scores, labels):
    assert t.scores.tolist() == scores and t.labels.tolist() == labels


def test_tar_non_arrays():
    s = systems_from_objects((np.array(TAR), np.array(NON)))
    assert list(s) == ["system"] and s["system"].dev is None
    _same(s["system"].eval, TAR + NON, [True] * 3 + [False] * 4)


@pytest.mark.parametrize("labels", [[1, 0, 1], [True, False, True], [1, -1, 1],
                                    ["target", "nontarget", "tgt"],
                                    pd.Series(["tar", "imp", "tar"])])
def test_scores_and_labels(labels):
    s = systems_from_objects((np.array([0.3, -1.2, 2.0]), labels), name="mine")
    _same(s["mine"].eval, [0.3, -1.2, 2.0], [True, False, True])


def test_trials_and_dev():
    ev = Trials([1.0, -1.0], [True, False])
    dv = Trials.from_tar_non([2.0], [-2.0, 0.0])
    s = systems_from_objects(ev, dev=dv)["system"]
    assert s.eval.scores.tolist() == [1.0, -1.0] and s.dev.scores.tolist() == [2.0, -2.0, 0.0]


def test_dict_of_one_system_dev_and_eval():
    s = systems_from_objects({"dev": (TAR, NON), "eval": ([*NON[::-1], 3.0], TAR)},
                             name="A")
    assert list(s) == ["A"] and s["A"].dev.n_tar == 3 and s["A"].eval.n_non == 3


def test_dict_of_systems():
    s = systems_from_objects({"A": (TAR, NON), "B": {"dev": (TAR, NON), "eval": (TAR, NON)}})
    assert list(s) == ["A", "B"]
    assert s["A"].dev is None and s["B"].dev.n_tar == 3 and s["B"].eval.n_non == 4


def test_frame_split_by_system_and_role():
    df = pd.DataFrame({
        "score": [2.0, -1.0, 1.0, -2.0, 3.0, -3.0, 0.5, -0.5],
        "label": ["target", "nontarget"] * 4,
        "system": ["A"] * 4 + ["B"] * 4,
        "role": ["dev", "dev", "eval", "eval"] * 2,
        "condition": ["c1", "c2"] * 4,
    })
    s = systems_from_objects(df)
    assert list(s) == ["A", "B"]
    _same(s["A"].dev, [2.0, -1.0], [True, False])
    _same(s["B"].eval, [0.5, -0.5], [True, False])
    assert s["B"].eval.conditions.tolist() == ["c1", "c2"]


def test_frame_columns_named_and_frame_as_dict_value():
    df = pd.DataFrame({"llr_x": [1.0, -1.0, 0.5], "truth": [1, 0, 0], "set": ["eval"] * 3})
    s = systems_from_objects({"X": df}, score="llr_x", label="truth", role="set")
    _same(s["X"].eval, [1.0, -1.0, 0.5], [True, False, False])


def test_frame_with_dev_argument():
    df = pd.DataFrame({"score": [1.0, -1.0], "label": [1, 0]})
    s = systems_from_objects(df, dev=(TAR, NON), name="Z")["Z"]
    assert s.dev.n_non == 4 and s.eval.n_tar == 1


def _error(data, **kwargs):
    with pytest.raises(DataError) as err:
        systems_from_objects(data, **kwargs)
    text = str(err.value)
    assert "\n" not in text
    return text


@pytest.mark.parametrize(("data", "kwargs", "message"), [
    (None, {}, "no scores given; give (tar, non) arrays, (scores, labels) arrays, a Trials"),
    ("scores.txt", {}, "system 'system' eval: cannot read a str as scores; give (tar, non)"),
    ((TAR, NON, NON), {}, "cannot read a tuple of 3 as scores"),
    (np.zeros(4), {}, "cannot read a ndarray as scores"),
    (([1.0, 2.0], ["target", "non", "tar"]), {},
     "read as (scores, labels), but there are 2 scores and 3 labels"),
    (([1.0, 2.0], ["target", "maybe"]), {}, "'maybe' is not a label"),
    (([1.0, 2.0], [1, 1]), {}, "system 'system' eval has no non-target trials"),
    (([1.0, np.nan], [-1.0]), {}, "system 'system' eval: target scores has 1 NaN or infinite"),
    ({}, {}, "the dict of systems is empty"),
    ({"A": {"train": (TAR, NON)}}, {},
     "system 'A': a dict of sets takes the keys 'dev' and 'eval', got 'train'"),
    ({" ": (TAR, NON)}, {}, "a system name (a key of the dict) is empty"),
    ({"A": (TAR, NON), "A ": (TAR, NON)}, {}, "two systems are named 'A'"),
    ({f"s{i}": (TAR, NON) for i in range(MAX_SYSTEMS + 1)}, {},
     f"{MAX_SYSTEMS + 1} systems given; a dashboard takes at most {MAX_SYSTEMS}"),
    ({"A": (TAR, NON)}, {"dev": (TAR, NON)}, "dev= adds the dev set of one set of scores"),
    (pd.DataFrame({"score": [1.0, -1.0], "label": [1, 0], "role": ["dev", "test"]}), {},
     "column 'role' of the DataFrame holds the sets: 'dev' or 'eval', found 'test'"),
    (pd.DataFrame({"score": np.arange(60.0), "label": [1, 0] * 30,
                   "system": [f"s{i}" for i in range(60)]}), {},
     f"column 'system' of the DataFrame names 60 systems (at most {MAX_SYSTEMS})"),
    (pd.DataFrame({"score": [1.0], "label": [1]}), {"system": "sys"},
     "the DataFrame has no column 'sys' (given as system=)"),
    (pd.DataFrame({"score": [1.0, 0.0], "labels": ["yes", "no"]}), {},
     "column 'labels' of system 'system' eval: 'no', 'yes' are each not a label"),
])
def test_bad_objects_get_one_line(data, kwargs, message):
    assert message in _error(data, **kwargs)
