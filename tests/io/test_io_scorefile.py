"""A score file to calibrate: detect its format, write new scores back in that same format."""

from __future__ import annotations

import h5py
import numpy as np
import pytest

from llrlab.core import DataError, FileFormatError, Scores, Trials
from llrlab.core.io import (
    ScoreFormat,
    check_extension,
    read_score_file,
    write_score_file,
    write_scores,
)
from llrlab.core.io.labelled import read_labelled

from ._files import write


def transform(s):
    return 2 * s + 1


def new_text(x):
    """The expected text of a transformed score, computed with Python floats."""
    return repr(2 * float(x) + 1)


def round_trip(tmp_path, src, out_name):
    """Read ``src``, write 2*s+1 to ``out_name``, read it back; check what must not change."""
    data, fmt = read_score_file(src)
    new = transform(data.scores)
    out = tmp_path / out_name
    check_extension(out, fmt)
    write_score_file(out, data.with_scores(new), fmt)
    back, fmt_back = read_score_file(out)
    assert fmt_back == fmt
    assert type(back) is type(data)
    assert np.array_equal(back.scores, new)
    for attr in ("model_ids", "segment_ids", "conditions", "labels", "weights"):
        a, b = getattr(data, attr, None), getattr(back, attr, None)
        assert (a is None) == (b is None), attr
        if a is not None:
            assert np.array_equal(a, b), attr
    return data, fmt, out


# --------------------------------------------------------------------------------------------
# Round trips, one per kind

# Scores that need all 17 digits, a tiny and a large magnitude, and an integer value.
SCORES = ["0.1", "-2.5", "0.3333333333333333", "1e-300", "-12345.678901234567", "3"]
MODELS = ["m1", "m1", "m1", "m2", "m2", "m2"]
SEGS = ["s1", "s2", "s3", "s1", "s2", "s3"]


@pytest.mark.parametrize(("delim", "name"), [(" ", "scores.txt"), ("\t", "scores.tsv"),
                                              ("\t", "scores.txt"), (",", "scores.csv"),
                                              (",", "scores.txt")])
def test_bosaris_text(tmp_path, delim, name):
    lines = [delim.join(f) for f in zip(MODELS, SEGS, SCORES, strict=True)]
    src = write(tmp_path / name, "\n".join(lines) + "\n")
    data, fmt, out = round_trip(tmp_path, src, "out_" + name)
    assert isinstance(data, Scores)
    assert fmt == ScoreFormat("bosaris", delim)
    assert data.model_ids.tolist() == MODELS and data.segment_ids.tolist() == SEGS
    np.testing.assert_array_equal(data.scores, np.array(SCORES, dtype=float))
    expected = "".join(delim.join((m, s, new_text(x))) + "\n"
                       for m, s, x in zip(MODELS, SEGS, SCORES, strict=True))
    assert out.read_text(encoding="utf-8") == expected
    assert out.read_text(encoding="utf-8").startswith(f"m1{delim}s1{delim}1.2\n")


def test_bare(tmp_path):
    src = write(tmp_path / "scores.txt", "\n".join(SCORES) + "\n")
    data, fmt, out = round_trip(tmp_path, src, "calibrated.txt")
    assert isinstance(data, Scores) and not data.has_ids
    assert fmt == ScoreFormat("bare") and fmt.delimiter is None
    assert out.read_text(encoding="utf-8") == "".join(new_text(x) + "\n" for x in SCORES)
    assert out.read_text(encoding="utf-8").splitlines()[-1] == "7.0"


def test_hdf5(tmp_path):
    # model-major, as an HDF5 score file returns its trials
    s = Scores(np.array(SCORES, dtype=float), MODELS, SEGS)
    src = tmp_path / "scores.h5"
    write_scores(src, s)
    data, fmt, out = round_trip(tmp_path, src, "calibrated.h5")
    assert fmt == ScoreFormat("hdf5") and isinstance(data, Scores)
    assert data.model_ids.tolist() == MODELS and data.segment_ids.tolist() == SEGS
    assert np.array_equal(data.scores, s.scores)
    with h5py.File(out, "r") as f:
        assert f["scores"].dtype == np.float64
        np.testing.assert_array_equal(f["score_mask"][()], np.ones((2, 3)))
        assert np.array_equal(f["scores"][()].ravel(), transform(s.scores))


def test_hdf5_detected_by_content_not_name(tmp_path):
    src = tmp_path / "scores.h5"
    write_scores(src, Scores([1.0, 2.0], ["m", "m"], ["a", "b"]))
    renamed = tmp_path / "scores.txt"
    src.rename(renamed)
    assert read_score_file(renamed)[1].kind == "hdf5"


LABELS = ["target", "nontarget", "nontarget", "nontarget", "target", "nontarget"]


def test_labelled_two_columns(tmp_path):
    src = write(tmp_path / "trials.txt", "".join(f"{x} {lab}\n"
                                                 for x, lab in zip(SCORES, LABELS, strict=True)))
    data, fmt, out = round_trip(tmp_path, src, "calibrated.txt")
    assert isinstance(data, Trials) and not data.has_ids
    assert fmt == ScoreFormat("labelled", " ", columns=("score", "label"))
    assert not fmt.header and fmt.names is None
    assert out.read_text(encoding="utf-8") == "".join(
        f"{new_text(x)} {lab}\n" for x, lab in zip(SCORES, LABELS, strict=True))


def test_labelled_four_columns_tab_without_header(tmp_path):
    rows = zip(MODELS, SEGS, SCORES, LABELS, strict=True)
    src = write(tmp_path / "trials.txt", "".join("\t".join(r) + "\n" for r in rows))
    data, fmt, out = round_trip(tmp_path, src, "calibrated.txt")
    assert fmt.kind == "labelled" and fmt.delimiter == "\t" and not fmt.header
    assert fmt.columns == ("model", "segment", "score", "label")
    assert data.model_ids.tolist() == MODELS
    assert out.read_text(encoding="utf-8") == "".join(
        f"{m}\t{s}\t{new_text(x)}\t{lab}\n"
        for m, s, x, lab in zip(MODELS, SEGS, SCORES, LABELS, strict=True))


def test_labelled_csv_header_condition_weight(tmp_path):
    # unusual column order and spellings; labels in other words; integer weights
    header = "LLR,Model,seg,Class,weight,Cond"
    labels = ["tgt", "non", "IMP", "false", "True", "0"]
    conds = ["tel", "mic", "tel", "mic", "tel", "mic"]
    weights = ["1", "0.5", "2", "0.25", "1", "3"]
    rows = zip(SCORES, MODELS, SEGS, labels, weights, conds, strict=True)
    src = write(tmp_path / "trials.csv", header + "\n" + "".join(",".join(r) + "\n"
                                                                 for r in rows))
    data, fmt, out = round_trip(tmp_path, src, "calibrated.csv")
    assert fmt == ScoreFormat("labelled", ",", header=True,
                              columns=("score", "model", "segment", "label", "weight",
                                       "condition"),
                              names=("LLR", "Model", "seg", "Class", "weight", "Cond"))
    assert fmt.describe() == "labelled CSV file with a header"
    assert data.conditions.tolist() == conds
    np.testing.assert_array_equal(data.weights, [1, 0.5, 2, 0.25, 1, 3])
    np.testing.assert_array_equal(data.labels, [True, False, False, False, True, False])
    expected = header + "\n" + "".join(
        f"{new_text(x)},{m},{s},{'target' if lab else 'nontarget'},{float(w)!r},{c}\n"
        for x, m, s, lab, w, c in zip(SCORES, MODELS, SEGS, data.labels, weights, conds,
                                      strict=True))
    assert out.read_text(encoding="utf-8") == expected
    assert out.read_text(encoding="utf-8").splitlines()[1] == "1.2,m1,s1,target,1.0,tel"


def test_labelled_header_detected_in_a_txt_with_spaces(tmp_path):
    src = write(tmp_path / "trials.txt", "\n\nscore label weight\n1.5 target 1\n0 non 2\n")
    _, fmt, out = round_trip(tmp_path, src, "calibrated.txt")
    assert fmt.header and fmt.delimiter == " " and fmt.columns == ("score", "label", "weight")
    # blank lines are not kept: the output has the layout, not the exact bytes, of the input
    assert out.read_text(encoding="utf-8") == ("score label weight\n4.0 target 1.0\n"
                                               "1.0 nontarget 2.0\n")


def test_labelled_one_class_only(tmp_path):
    src = write(tmp_path / "targets.txt", "m1 s1 1.5 target\nm1 s2 0.25 tgt\n")
    with pytest.raises(DataError, match="no non-target"):  # the default is unchanged
        read_labelled(src)
    data, fmt, out = round_trip(tmp_path, src, "calibrated.txt")
    assert isinstance(data, Trials) and data.n_non == 0 and data.n_tar == 2
    assert fmt.columns == ("model", "segment", "score", "label")
    assert out.read_text(encoding="utf-8") == "m1 s1 4.0 target\nm1 s2 1.5 target\n"


def test_utf8_bom_and_crlf(tmp_path):
    src = write(tmp_path / "scores.txt", b"\xef\xbb\xbfm1 s1 0.5\r\nm1 s2 -1\r\n")
    data, fmt = read_score_file(src)
    assert fmt == ScoreFormat("bosaris", " ")
    assert data.model_ids.tolist() == ["m1", "m1"]


def test_progress_is_reported(tmp_path):
    src = write(tmp_path / "scores.txt", "m1 s1 0.5\nm1 s2 -1\n")
    seen = []
    read_score_file(src, progress=lambda f, msg: seen.append(f))
    assert seen and seen[-1] == 1.0 and seen == sorted(seen)


# --------------------------------------------------------------------------------------------
# ScoreFormat


def test_describe():
    assert ScoreFormat("hdf5").describe() == "BOSARIS HDF5 score file"
    assert ScoreFormat("bosaris", " ").describe() == "space-separated BOSARIS text score file"
    assert ScoreFormat("bare").describe() == "text file with one score per line"
    assert ScoreFormat("labelled", "\t", columns=("score", "label")).describe() == \
        "labelled tab-separated text file without a header"


@pytest.mark.parametrize("kwargs", [
    {"kind": "xml"},
    {"kind": "bosaris"},
    {"kind": "bosaris", "delimiter": ";"},
    {"kind": "hdf5", "delimiter": " "},
    {"kind": "bare", "header": True},
    {"kind": "labelled", "delimiter": " ", "columns": ("score",)},
    {"kind": "labelled", "delimiter": " ", "columns": ("score", "label", "weight")},
    {"kind": "labelled", "delimiter": " ", "columns": ("score", "label", "model"),
     "header": True},
    {"kind": "labelled", "delimiter": " ", "columns": ("score", "label", "colour"),
     "header": True},
    {"kind": "labelled", "delimiter": ",", "columns": ("score", "label"), "header": True,
     "names": ("score",)},
])
def test_invalid_formats(kwargs):
    with pytest.raises(DataError):
        ScoreFormat(**kwargs)


# --------------------------------------------------------------------------------------------
# Errors


@pytest.mark.parametrize("name", ["calibrated.txt", "calibrated", "calibrated.csv",
                                  "calibrated.h5.txt"])
def test_check_extension_text_name_for_hdf5(name):
    with pytest.raises(DataError) as exc:
        check_extension(name, ScoreFormat("hdf5"))
    assert str(exc.value) == (f"{name}: the scores are written as a BOSARIS HDF5 score file "
                              f"(the format of the input); give the output a .h5 name")


@pytest.mark.parametrize("name", ["out.h5", "out.HDF5", "dir.v2/out.hdf", "out.he5"])
@pytest.mark.parametrize("fmt", [ScoreFormat("bosaris", " "), ScoreFormat("bare"),
                                 ScoreFormat("labelled", ",", columns=("score", "label"))])
def test_check_extension_hdf5_name_for_text(name, fmt):
    with pytest.raises(DataError, match=r"the scores are written as a .*(BOSARIS text|one "
                                        r"score|labelled).*give the output a \.(txt|csv) name"):
        check_extension(name, fmt)
    check_extension(name, ScoreFormat("hdf5"))  # no error


def test_check_extension_delimiter():
    space = ScoreFormat("bosaris", " ")
    comma = ScoreFormat("labelled", ",", columns=("score", "label"))
    with pytest.raises(DataError, match=r"out\.csv: .*space-separated.*a \.txt name"):
        check_extension("out.csv", space)
    with pytest.raises(DataError, match=r"out\.tsv: .*CSV.*a \.csv name"):
        check_extension("out.tsv", comma)
    for name in ("out.txt", "out.scores", "out"):
        check_extension(name, space)
        check_extension(name, comma)
    check_extension("out.csv", comma)
    check_extension("out.tsv", space)
    check_extension("out.csv", ScoreFormat("bare"))


def test_write_scores_without_ids_as_hdf5_or_bosaris(tmp_path):
    s = Scores([0.5, -1.0], source="bare.txt")
    for fmt, name in ((ScoreFormat("hdf5"), "out.h5"), (ScoreFormat("bosaris", " "), "o.txt")):
        with pytest.raises(DataError, match=r"bare\.txt have no \(model, segment\) ids"):
            write_score_file(tmp_path / name, s, fmt)
        assert not (tmp_path / name).exists()


def test_write_scores_as_labelled(tmp_path):
    s = Scores([0.5, -1.0], ["m", "m"], ["a", "b"], source="scores.txt")
    fmt = ScoreFormat("labelled", " ", columns=("model", "segment", "score", "label"))
    with pytest.raises(DataError, match=r"scores\.txt have no labels"):
        write_score_file(tmp_path / "out.txt", s, fmt)
    assert not (tmp_path / "out.txt").exists()


def test_write_labelled_needs_matching_columns(tmp_path):
    fmt = ScoreFormat("labelled", " ", columns=("score", "label"))
    t = Trials([0.5, -1.0], [True, False], weights=[1.0, 2.0])
    with pytest.raises(DataError, match=r"no column for them \(weights\)"):
        write_score_file(tmp_path / "out.txt", t, fmt)
    fmt = ScoreFormat("labelled", " ", header=True, columns=("score", "label", "condition"))
    with pytest.raises(DataError, match=r"they are missing \(conditions\)"):
        write_score_file(tmp_path / "out.txt", Trials([0.5], [True]), fmt)


def test_write_rejects_non_data_and_bad_ids(tmp_path):
    with pytest.raises(DataError, match="Scores or Trials"):
        write_score_file(tmp_path / "o.txt", [0.5, 1.0], ScoreFormat("bare"))
    with pytest.raises(DataError, match="ScoreFormat"):
        write_score_file(tmp_path / "o.txt", Scores([0.5]), "bare")
    s = Scores([0.5], ["a,b"], ["s"])
    with pytest.raises(DataError, match="model id 'a,b'"):
        write_score_file(tmp_path / "o.csv", s, ScoreFormat("bosaris", ","))
    write_score_file(tmp_path / "o.txt", s, ScoreFormat("bosaris", " "))
    assert (tmp_path / "o.txt").read_text(encoding="utf-8") == "a,b s 0.5\n"


def test_trials_written_as_scores_drop_the_labels(tmp_path):
    t = Trials([0.5, -1.0], [True, False], model_ids=["m", "m"], segment_ids=["a", "b"])
    write_score_file(tmp_path / "o.txt", t, ScoreFormat("bosaris", "\t"))
    assert (tmp_path / "o.txt").read_text(encoding="utf-8") == "m\ta\t0.5\nm\tb\t-1.0\n"


@pytest.mark.parametrize("content", ["", "\n  \n\t\n", b"\xef\xbb\xbf\n"])
def test_empty_file(tmp_path, content):
    src = write(tmp_path / "empty.txt", content)
    with pytest.raises(FileFormatError, match=r"empty\.txt: is empty"):
        read_score_file(src)


def test_missing_file(tmp_path):
    with pytest.raises(FileFormatError, match=r"nope\.txt: file not found"):
        read_score_file(tmp_path / "nope.txt")


@pytest.mark.parametrize(("content", "line", "what"), [
    ("m1 s1 0.5\nm1 s2 abc\n", 2, "'abc' is not a number"),
    ("m1 s1 0.5\n\nm1 s2\n", 3, "expected 3 fields"),
    ("0.5\n1.5\n-2\nnan\n", 4, "NaN"),
    ("1 target\n2 nontarget\n3 maybe\n", 3, "unknown label 'maybe'"),
    ("score label\n1 target\n2 x target\n", 3, "expected 2 fields"),
    ("score label colour\n1 target red\n", 1, "unknown column 'colour'"),
    ("\n1 2 3 4 5\n", 2, "start the file with a header line"),
    ("m1 s1 0.5\nm1 s2\x00 1\n", 2, "control character"),
])
def test_bad_line_is_named(tmp_path, content, line, what):
    src = write(tmp_path / "bad.txt", content)
    with pytest.raises(FileFormatError) as exc:
        read_score_file(src)
    assert exc.value.line == line
    assert f"bad.txt, line {line}: " in str(exc.value)
    assert what in str(exc.value)


def test_conflicting_repeated_trial(tmp_path):
    src = write(tmp_path / "dup.txt", "m1 s1 0.5\nm1 s2 1\nm1 s1 0.75\n")
    with pytest.raises(FileFormatError, match=r"dup\.txt, line 3: trial 'm1 s1' appears twice"):
        read_score_file(src)
