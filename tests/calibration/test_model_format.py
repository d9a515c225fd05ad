"""The versioned JSON model format: exact round trips, and clear errors for corrupt files."""

from __future__ import annotations

import copy
import json
import re

import numpy as np
import pytest

from llrlab.core import DataError, FileFormatError, LlrlabError, Trials, gaussian_trials
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


#: A number as the text shows it (with its sign).
_NUMBER = re.compile(r"[-+]?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def _significant(text):
    mantissa = text.lstrip("+-").split("e")[0].replace(".", "").lstrip("0")
    return len(mantissa)


@pytest.mark.parametrize("kind", ["affine", "pav", "fusion"])
def test_text_shows_parameters_to_ten_digits_and_the_model_keeps_them_all(trained, kind):
    """The printed formula is the same on every computer: the trained parameters differ
    between BLAS builds in their last digits (21.673122735293877 vs 21.67312273529388 in the
    README), which 10 significant digits never show; the model file keeps all 17."""
    from llrlab.core.calibration.base import PARAMETER_DIGITS

    cal = trained[kind]
    first = cal.lines()[0]
    shown = [m for m in _NUMBER.findall(first.split(":", 1)[1]) if "." in m or "e" in m]
    assert shown and max(map(_significant, shown)) <= PARAMETER_DIGITS == 10, first
    d = cal.to_dict()
    params = d["params"]
    full = ([params["scale"], params["offset"]] if kind == "affine" else
            [*params["weights"], params["offset"]] if kind == "fusion" else
            [params["lower"][0], params["upper"][-1]])
    for value in full:
        assert any(abs(float(m)) == pytest.approx(abs(value), rel=1e-9) for m in shown)
        # a change in the 14th digit (what another BLAS build gives) does not change the text
        twin = copy.deepcopy(d)
        for key in ("scale", "offset", "lower", "upper", "weights"):
            v = twin["params"].get(key)
            if isinstance(v, list):
                twin["params"][key] = [x * (1 + 3e-14) if x == value else x for x in v]
            elif v == value:
                twin["params"][key] = v * (1 + 3e-14)
        assert from_dict(twin).lines()[0] == first
    assert from_dict(json.loads(json.dumps(d))).to_dict() == d  # every digit kept


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


# ------------------------------------------------------------------ hostile model files


def _one_line_error(path, match):
    with pytest.raises(LlrlabError) as info:
        load_calibrator(path)
    msg = str(info.value)
    assert "\n" not in msg and len(msg) < 400, msg
    assert msg.startswith(f"{path}: "), msg
    assert re.search(match, msg), msg
    return msg


def test_deeply_nested_json_is_refused_in_one_line(tmp_path, trained):
    # Regression: a RecursionError traceback from the JSON parser
    p = tmp_path / "deep.json"
    p.write_text('{"llrlab_calibrator": 1, "kind": "affine", "params": '
                 + "[" * 100_000 + "]" * 100_000 + "}")
    _one_line_error(p, "nested too deeply")
    # nested just below the parser's limit: the field is named, the echo is shortened
    d = trained["affine"].to_dict()
    p2 = tmp_path / "deep2.json"
    p2.write_text(json.dumps(d).replace('"scale": ' + repr(trained["affine"].scale),
                                        '"scale": ' + "[" * 900 + "]" * 900))
    _one_line_error(p2, r"params\.scale must be a number, got \[\[\[")


@pytest.mark.parametrize("field", ["params.offset", "training.n_tar", "params.prior"])
@pytest.mark.parametrize("digits", [400, 5000])
def test_huge_integers_are_refused_in_one_line(tmp_path, trained, field, digits):
    # Regression: OverflowError (400 digits, float()) and ValueError (5000 digits, over
    # Python's int-from-text limit) tracebacks
    d = trained["affine"].to_dict()
    marker = 123456789
    p = tmp_path / "big.json"
    p.write_text(json.dumps(_corrupt(d, field, marker)).replace(str(marker), "9" * digits))
    msg = _one_line_error(p, "too many digits" if digits > 4300 else
                          f"{re.escape(field)} (is too large|must be a non-negative|"
                          f"must lie strictly)")
    assert "9" * 50 not in msg  # the echoed value is shortened


@pytest.mark.parametrize("kind, field, value", [
    ("affine", "params.scale", 1e308),
    ("affine", "params.scale", -1e308),
    ("fusion", "params.weights", [1e308, 1.0]),
    ("pav", "params.llr", None),
])
def test_overflowing_parameters_blame_the_model(tmp_path, trained, kind, field, value):
    # Regression: scale 1e308 gave infinite LLRs, reported as "scores of dev.txt has ...
    # NaN or infinite value(s)": the input scores were blamed for the model's overflow
    d = trained[kind].to_dict()
    if value is None:  # PAV: finite LLRs whose interpolation overflows
        n = len(d["params"]["llr"])
        value = [-1.7e308] * (n // 2) + [1.7e308] * (n - n // 2)
    p = tmp_path / "model.json"
    p.write_text(json.dumps(_corrupt(d, field, value)))
    _one_line_error(p, "not a valid calibration model: .*overflow.*floating-point range")


def test_a_model_overflowing_outside_its_training_range_names_itself():
    cal = AffineCalibrator.fit(gaussian_trials(100, 1000, seed=3))
    big = from_dict(_corrupt(cal.to_dict(), "params.scale", 1e300))  # fine on dev scores
    assert np.all(np.isfinite(big(np.array([-5.0, 5.0]))))
    with pytest.raises(DataError, match=r"the calibration maps the score 10000000000\.0 to the LLR "
                                        r"inf: its parameters overflow.*check the model"):
        big(np.array([0.0, 1e10]))
    assert big(np.array([np.inf]))[0] == np.inf  # an infinite score may give an infinite LLR


def test_argument_type_errors_name_the_argument(tmp_path, trained):
    cal = trained["affine"]
    with pytest.raises(TypeError, match=r"save_calibrator: the first argument, cal, must be a "
                                        r"calibrator.*got PosixPath \(the arguments are "
                                        r"swapped\?\)"):
        save_calibrator(tmp_path / "m.json", cal)
    with pytest.raises(TypeError, match="the second argument, path, must be a file path, "
                                        "got dict"):
        save_calibrator(cal, {})
    with pytest.raises(TypeError, match="load_calibrator: path must be a file path, got "
                                        "AffineCalibrator"):
        load_calibrator(cal)
