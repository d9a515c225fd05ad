"""Trials from a DataFrame (trials_from_frame) and labels from any form (as_labels)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from llrlab.core import DataError, LlrlabWarning
from llrlab.core.io import as_labels, trials_from_frame


@pytest.mark.parametrize(("values", "expected"), [
    ([True, False, True], [True, False, True]),
    ([1, 0, 0], [True, False, False]),
    ([1.0, -1.0, -1.0], [True, False, False]),
    (["target", " NonTarget ", "imp"], [True, False, False]),
    (["tgt", "non", "TRUE", "false"], [True, False, True, False]),
    (pd.Series([1, 0], dtype="Int64"), [True, False]),
    (pd.Categorical(["target", "nontarget"]), [True, False]),
    (np.array([1, -1], dtype=np.int8), [True, False]),
])
def test_as_labels_reads_every_form(values, expected):
    assert as_labels(values).tolist() == expected


@pytest.mark.parametrize(("values", "message"), [
    ([0, 1, 2], "the labels: 2 is not a label; labels are booleans, 0/1, -1/+1"),
    ([0, 1, -1], "the labels: 0 and -1 both appear"),
    (["target", "maybe", "perhaps"], "the labels: 'maybe', 'perhaps' are each not a label"),
    ([1.0, np.nan, 0.0], "the labels: 1 missing value(s), the first at row 1"),
    (["target", None], "the labels: 1 missing value(s), the first at row 1"),
    ([[1, 0]], "the labels must be one label per trial (1-D), got shape (1, 2)"),
])
def test_as_labels_one_line_error(values, message):
    with pytest.raises(DataError) as err:
        as_labels(values)
    text = str(err.value)
    assert message in text and "\n" not in text


def test_frame_columns_found_by_their_usual_names():
    df = pd.DataFrame({"LLR": [2.5, -1.0, 0.5, 1.0], "Class": ["target", "nontarget", "imp",
                                                             "tgt"],
                       "enroll": ["a", "a", "b", "b"], "test": ["x", "y", "x", "y"],
                       "cond": ["c1", "c1", "c2", "c2"], "weight": [1.0, 2.0, 2.0, 1.0],
                       "other": [0, 0, 0, 0]})
    t = trials_from_frame(df)
    assert t.scores.tolist() == [2.5, -1.0, 0.5, 1.0]
    assert t.labels.tolist() == [True, False, False, True]
    assert t.model_ids.tolist() == ["a", "a", "b", "b"]
    assert t.segment_ids.tolist() == ["x", "y", "x", "y"]
    assert t.conditions.tolist() == ["c1", "c1", "c2", "c2"]
    assert t.weights.tolist() == [1.0, 2.0, 2.0, 1.0]


def test_frame_columns_named_by_the_caller():
    df = pd.DataFrame({"s": [1.0, -1.0], "y": [1, 0], "score": [9.0, 9.0]})
    t = trials_from_frame(df, score="s", label="y")
    assert t.scores.tolist() == [1.0, -1.0] and t.labels.tolist() == [True, False]


def test_frame_with_to_pandas_is_read():
    class Polarsish:
        columns = ("score", "label")

        def to_pandas(self):
            return pd.DataFrame({"score": [1.0, 0.0], "label": [True, False]})

    assert trials_from_frame(Polarsish()).labels.tolist() == [True, False]


def test_repeated_trial_kept_once_with_a_warning():
    df = pd.DataFrame({"score": [1.0, 1.0, -1.0], "label": [1, 1, 0],
                       "model": ["a", "a", "a"], "segment": ["x", "x", "y"]})
    with pytest.warns(LlrlabWarning):
        t = trials_from_frame(df)
    assert len(t) == 2


@pytest.mark.parametrize(("frame", "kwargs", "message"), [
    (pd.DataFrame({"x": [1.0], "label": [1]}), {},
     "the DataFrame has no score column (its columns are 'x', 'label'); name it with "
     "score='...'"),
    (pd.DataFrame({"score": [1.0], "label": [1]}), {"weight": "w"},
     "the DataFrame has no column 'w' (given as weight=)"),
    (pd.DataFrame({"score": [1.0], "llr": [1.0], "label": [1]}), {},
     "the DataFrame has two columns that could hold the score: 'score', 'llr'"),
    (pd.DataFrame({"score": [1.0, np.inf], "label": [1, 0]}, index=[10, 11]), {},
     "column 'score' of the DataFrame has 1 value(s) that are missing (NaN) or infinite; "
     "the first, inf, at index 11"),
    (pd.DataFrame({"score": ["1.0", "oops"], "label": [1, 0]}, index=["r1", "r2"]), {},
     "column 'score' of the DataFrame must hold numbers; index 'r2' has 'oops'"),
    (pd.DataFrame({"score": [1.0, 0.0], "label": [1, 0], "weight": [1.0, -2.0]}), {},
     "column 'weight' of the DataFrame has negative weights; the first is -2.0 at index 1"),
    (pd.DataFrame({"score": [1.0, 0.0], "label": [1, 0], "condition": ["a", None]}), {},
     "column 'condition' of the DataFrame has 1 missing value(s); the first at index 1"),
    (pd.DataFrame({"score": [1.0, 2.0], "label": [1, 0], "model": ["a", "a"],
                   "segment": ["x", "x"]}), {},
     "the DataFrame: trial 'a x' appears twice with different score and label"),
])
def test_frame_errors_are_one_line(frame, kwargs, message):
    with pytest.raises(DataError) as err:
        trials_from_frame(frame, **kwargs)
    text = str(err.value)
    assert message in text and "\n" not in text


def test_not_a_frame_is_refused():
    with pytest.raises(DataError, match=r"expected a pandas DataFrame .* got list"):
        trials_from_frame([1, 2])
