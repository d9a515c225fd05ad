"""The versioned JSON model format: exact round trips, and clear errors for corrupt files."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from llrlab.core import FileFormatError, Trials, gaussian_trials
from llrlab.core.calibration import (
    FORMAT_VERSION,
    AffineCalibrator,
    FusionCalibrator,
    PAVCalibrator,
    fit_calibrator,
    from_dict,
    load_calibrator,
    save_calibrator,
)


@pytest.fixture(scope="module")
def trained():
    dev = gaussian_trials(300, 3000, seed=1, scale=2.0, shift=1.0)
    other = gaussian_trials(300, 3000, seed=2, scale=0.5)
    ids = dict(model_ids=[f"m{i}" for i in range(len(dev))], segment_ids=["s"] * len(dev))
    a = Trials(dev.scores, dev.labels, model_ids=ids["model_ids"],
               segment_ids=ids["segment_ids"], source="a")
    b = Trials(other.scores[: len(dev)], dev.labels, model_ids=ids["model_ids"],
               segment_ids=ids["segment_ids"], source="b")
    return {"affine": AffineCalibrator.fit(dev, prior=0.2),
            "pav": PAVCalibrator.fit(dev),
            "fusion": FusionCalibrator.fit([a, b], prior=0.3)}


@pytest.mark.parametrize("kind", ["affine", "pav", "fusion"])
def test_round_trip_is_exact(trained, kind, tmp_path):
    cal = trained[kind]
    d = cal.to_dict()
    assert d["llrlab_calibrator"] == FORMAT_VERSION and d["kind"] == kind
    text = json.dumps(d, allow_nan=False)  # standard JSON: no NaN or infinity anywhere
    back = from_dict(json.loads(text))
    assert type(back) is type(cal) and back.to_dict() == d
    x = np.random.default_rng(0).normal(0, 3, (1000, cal.n_systems))
    x = x[:, 0] if cal.n_systems == 1 else x
    assert np.array_equal(back(x), cal(x))  # bit for bit
    path = tmp_path / "model.json"
    save_calibrator(cal, path)
    assert load_calibrator(path).to_dict() == d
    assert json.loads(path.read_text()) == d


def test_fit_calibrator_dispatches(trained):
    dev = gaussian_trials(300, 3000, seed=1, scale=2.0, shift=1.0)
    assert fit_calibrator(dev, method="affine", prior=0.2).to_dict() == \
        trained["affine"].to_dict()
    assert fit_calibrator([dev], method="pav").to_dict() == trained["pav"].to_dict()
    with pytest.raises(ValueError, match="unknown calibration method 'spline'"):
        fit_calibrator(dev, method="spline")
    with pytest.raises(ValueError, match="takes one dev set, got 2"):
        fit_calibrator([dev, dev], method="affine")


def _corrupt(d, path, value):
    """Set (or delete, with value=KeyError) the field at a dotted path of a copy of d."""
    d = copy.deepcopy(d)
    *head, last = path.split(".")
    node = d
    for k in head:
        node = node[k]
    if value is KeyError:
        del node[last]
    else:
        node[last] = value
    return d


@pytest.mark.parametrize("kind, path, value, match", [
    ("affine", "llrlab_calibrator", KeyError, "no 'llrlab_calibrator' field"),
    ("affine", "llrlab_calibrator", 99, "format 99 by a newer llrlab"),
    ("affine", "llrlab_calibrator", "1", "must be a format version number"),
    ("affine", "kind", "spline", "unknown kind 'spline'"),
    ("affine", "params", KeyError, "missing the field\\(s\\) 'params'"),
    ("affine", "params.scale", KeyError, "params is missing the field\\(s\\) 'scale'"),
    ("affine", "params.scale", "2.0", "params.scale must be a number"),
    ("affine", "params.offset", None, "params.offset must be a number"),
    ("affine", "params.prior", 1.5, "params.prior must lie strictly between 0 and 1"),
    ("affine", "params.regularised", "no", "params.regularised must be true or false"),
    ("affine", "training.n_tar", -3, "training.n_tar must be a non-negative whole number"),
    ("affine", "training.score_range", [[1.0, 0.0]], "low end above its high end"),
    ("affine", "training.score_range", [[0.0, 1.0], [0.0, 1.0]], "one system's"),
    ("affine", "training.notes", "x", "training.notes must be a list"),
    ("pav", "params.llr", [0.0], "lists of equal length"),
    ("pav", "params.lower", [], "non-empty"),
    ("pav", "params.pure_ends", [True], "two booleans"),
    ("fusion", "params.weights", [1.0], "equal length"),
    ("fusion", "params.systems", ["a", 3], "params.systems must be a string"),
])
def test_corrupt_models_are_refused_with_the_field_named(trained, kind, path, value, match):
    bad = _corrupt(trained[kind].to_dict(), path, value)
    with pytest.raises(FileFormatError, match=f"model.json: not a valid calibration model: "
                                              f".*{match}"):
        from_dict(bad, source="model.json")


def test_pav_blocks_must_be_ordered_and_monotone(trained):
    d = trained["pav"].to_dict()
    lo, hi, llr = d["params"]["lower"], d["params"]["upper"], d["params"]["llr"]
    for field, value, match in [("lower", lo[::-1], "ordered and disjoint"),
                                ("upper", [x + 100 for x in hi], "ordered and disjoint"),
                                ("llr", llr[::-1], "non-decreasing")]:
        with pytest.raises(FileFormatError, match=match):
            from_dict(_corrupt(d, f"params.{field}", value))


def test_non_finite_numbers_are_refused(tmp_path, trained):
    text = json.dumps(trained["affine"].to_dict()).replace(
        '"scale": ' + repr(trained["affine"].scale), '"scale": NaN')
    p = tmp_path / "nan.json"
    p.write_text(text)
    with pytest.raises(FileFormatError, match=r"nan\.json.*params\.scale must be finite"):
        load_calibrator(p)


@pytest.mark.parametrize("content, match", [
    ("{not json", "bad.json, line 1: not valid JSON"),
    ('{"a": 1,\n\n "b": }', "bad.json, line 3: not valid JSON"),
    ("[1, 2]", "not an llrlab calibration model"),
    ("", "not valid JSON"),
])
def test_unreadable_model_files(tmp_path, content, match):
    p = tmp_path / "bad.json"
    p.write_text(content)
    with pytest.raises(FileFormatError, match=match):
        load_calibrator(p)


def test_missing_and_binary_model_files(tmp_path):
    with pytest.raises(FileFormatError, match=r"nothere\.json: file not found"):
        load_calibrator(tmp_path / "nothere.json")
    p = tmp_path / "bin.json"
    p.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(FileFormatError, match=r"bin\.json: not valid JSON"):
        load_calibrator(p)
