"""Bad input: always FileFormatError or DataError with file, line and text, never a traceback."""

from __future__ import annotations

import h5py
import numpy as np
import pytest

from llrlab.core import DataError, FileFormatError, LlrlabError
from llrlab.core.io import (
    attach_conditions,
    load_scores,
    load_trials,
    read_key,
    read_ndx,
    write_key,
    write_scores,
)

from ._files import write

GOOD_KEY = "m1 s1 target\nm1 s2 nontarget\nm2 s1 nontarget\n"


def scores_error(tmp_path, content, name="scores.txt"):
    s = write(tmp_path / name, content)
    k = write(tmp_path / "key.txt", GOOD_KEY)
    with pytest.raises(FileFormatError) as exc:
        load_trials(s, k)
    return exc.value, str(s)


def test_file_not_found(tmp_path):
    k = write(tmp_path / "key.txt", GOOD_KEY)
    missing = tmp_path / "nope.txt"
    for call in (lambda: load_trials(missing, k), lambda: load_trials(k, missing),
                 lambda: load_trials(missing), lambda: load_scores(missing),
                 lambda: read_key(missing), lambda: read_ndx(missing)):
        with pytest.raises(FileFormatError, match=r"nope.txt: file not found"):
            call()


def test_directory(tmp_path):
    with pytest.raises(FileFormatError, match="is a directory"):
        load_scores(tmp_path)
    with pytest.raises(FileFormatError, match="is a directory"):
        load_trials(tmp_path)


@pytest.mark.parametrize("content", ["", "\n\n  \n", "\t"])
def test_empty_file(tmp_path, content):
    e, path = scores_error(tmp_path, content)
    assert e.path == path and "empty" in str(e)


@pytest.mark.parametrize(("value", "kind"), [("nan", "NaN"), ("NaN", "NaN"), ("inf", "infinite"),
                                             ("-Infinity", "infinite"), ("1e999", "infinite")])
def test_non_finite_score(tmp_path, value, kind):
    e, path = scores_error(tmp_path, f"m1 s1 1\nm1 s2 2\nm2 s1 {value}\n")
    assert e.line == 3 and e.path == path
    assert kind in str(e) and value in str(e) and f"{path}, line 3" in str(e)


def test_missing_column(tmp_path):
    e, _ = scores_error(tmp_path, "m1 s1 1\nm1 s2 2\n\nm2 s1\n")
    assert e.line == 4
    assert "expected 3 fields (model segment score)" in str(e) and "found 2" in str(e)
    assert e.text == "m2 s1"


def test_extra_column(tmp_path):
    e, _ = scores_error(tmp_path, "m1 s1 1\nm1 s2 2 target\nm2 s1 3\n")
    assert e.line == 2 and "found 4" in str(e)


def test_wrong_number_of_columns_on_the_first_line(tmp_path):
    e, _ = scores_error(tmp_path, "m1 1\nm1 s2 2\n")
    assert e.line == 1 and "expected 3 fields" in str(e)


def test_compensating_column_errors_are_found(tmp_path):
    # 2 + 4 fields: the token count is right (6 = 2 x 3) but two lines are wrong
    e, _ = scores_error(tmp_path, "m1 s1\n1 m1 s2 2\n")
    assert e.line == 1


def test_non_number_score(tmp_path):
    e, _ = scores_error(tmp_path, "m1 s1 1\nm1 s2 abc\nm2 s1 3\n")
    assert e.line == 2 and "'abc' is not a number" in str(e) and e.text == "m1 s2 abc"


def test_unknown_label(tmp_path):
    s = write(tmp_path / "s.txt", "m1 s1 1\nm1 s2 2\n")
    k = write(tmp_path / "k.txt", "m1 s1 target\nm1 s2 maybe\n")
    with pytest.raises(FileFormatError) as exc:
        load_trials(s, k)
    e = exc.value
    assert e.path == str(k) and e.line == 2 and "unknown label 'maybe'" in str(e)
    assert "nontarget" in str(e)


def test_non_utf8_bytes_give_the_line(tmp_path):
    e, _ = scores_error(tmp_path, b"m1 s1 1\nm1 s2 2\nm2 s\xe9 3\n")
    assert e.line == 3 and "not UTF-8" in str(e) and "0xe9" in str(e)


def test_utf16_file(tmp_path):
    e, _ = scores_error(tmp_path, "m1 s1 1\n".encode("utf-16"))
    assert e.line == 1 and "UTF-16" in str(e)


def test_control_character(tmp_path):
    e, _ = scores_error(tmp_path, b"m1 s1 1\nm1 s2\x00 2\n")
    assert e.line == 2 and "control character 0x00" in str(e)


def test_no_targets_in_a_labelled_file(tmp_path):
    p = write(tmp_path / "lab.txt", "1 nontarget\n2 nontarget\n")
    with pytest.raises(DataError, match=r"lab.txt: no target trials"):
        load_trials(p)


def test_hdf5_with_the_wrong_layout(tmp_path):
    p = tmp_path / "odd.h5"
    with h5py.File(p, "w") as f:
        f["matrix"] = np.zeros((2, 2))
        f["names"] = np.array([b"a", b"b"])
    with pytest.raises(FileFormatError) as exc:
        load_scores(p)
    msg = str(exc.value)
    assert "found /matrix, /names" in msg
    assert "expected /scores + /score_mask" in msg and "/ID/row_ids" in msg


def test_truncated_hdf5_is_wrapped(tmp_path):
    p = write(tmp_path / "broken.h5", b"\x89HDF\r\n\x1a\n" + b"\x00garbage" * 10)
    for call in (lambda: load_scores(p), lambda: read_key(p),
                 lambda: load_trials(p, p)):
        with pytest.raises(FileFormatError, match="cannot be opened as an HDF5 file"):
            call()


def test_not_hdf5_despite_the_extension(tmp_path):
    p = write(tmp_path / "scores.h5", b"\x00\x01\x02 binary junk")
    with pytest.raises(FileFormatError, match=r"scores\.h5, line 1"):
        load_scores(p)


def test_bad_format_argument(tmp_path):
    from llrlab.core import Scores

    with pytest.raises(DataError, match="format must be"):
        write_scores(tmp_path / "x", Scores([1.0]), format="xml")


def test_unwritable_destination(tmp_path):
    from llrlab.core.io import Key

    k = Key(["m"], ["s"], [True])
    for name in ("k.txt", "k.h5"):
        with pytest.raises(FileFormatError, match="cannot be written"):
            write_key(tmp_path / "missing-dir" / name, k)


GARBAGE = [
    b"", b"\n", b"\xff\xfe\x00", b"a b c d e f g\n", b"1 2 3\n4 5\n", b"\x89HDF\r\n\x1a\n",
    b"model segment score label\n", b"score label\n1 target\n2\n", b"a,b,c\n", b'"', b",,,\n",
    b"m s 1e400 target\n", b"x y -nan\n", b"m s 1 target extra\n", "é è\n".encode("latin-1"),
]


@pytest.mark.parametrize("content", GARBAGE)
def test_garbage_never_escapes_as_a_bare_exception(tmp_path, content):
    p = write(tmp_path / "g.txt", content)
    k = write(tmp_path / "k.txt", GOOD_KEY)
    s = write(tmp_path / "s.txt", "m1 s1 1\nm1 s2 2\nm2 s1 3\n")
    from llrlab.core import Trials

    t = Trials([1.0, 2.0], [True, False], model_ids=["m1", "m1"], segment_ids=["s1", "s2"])
    calls = [lambda: load_trials(p), lambda: load_trials(p, k), lambda: load_trials(s, p),
             lambda: load_scores(p), lambda: read_key(p), lambda: read_ndx(p),
             lambda: attach_conditions(t, p)]
    for call in calls:
        try:
            call()
        except LlrlabError as exc:
            assert str(exc)
        except Exception as exc:  # pragma: no cover - the failure being tested for
            pytest.fail(f"{type(exc).__name__} escaped: {exc}")


def test_writing_without_ids(tmp_path):
    from llrlab.core import Trials
    from llrlab.core.io import write_ndx

    t = Trials.from_tar_non([1.0], [0.0])
    for call in (lambda: write_key(tmp_path / "k.txt", t), lambda: write_key(tmp_path / "k.h5", t),
                 lambda: write_ndx(tmp_path / "n.txt", t), lambda: write_ndx(tmp_path / "n.h5", t),
                 lambda: write_ndx(tmp_path / "n.txt", [1, 2])):
        with pytest.raises(DataError, match="ids"):
            call()
    with pytest.raises(DataError, match="needs a Key or Trials"):
        write_key(tmp_path / "k.txt", "not a key")


def test_damaged_hdf5_dataset_is_wrapped(tmp_path):
    p = tmp_path / "damaged.h5"
    with h5py.File(p, "w") as f:
        f.create_dataset("scores", data=np.arange(20000.0).reshape(50, 400), compression="gzip",
                         chunks=(50, 400))
        f["score_mask"] = np.ones((50, 400), np.uint8)
        f["ID/row_ids"] = np.array([f"m{i}".encode() for i in range(50)])
        f["ID/column_ids"] = np.array([f"s{i}".encode() for i in range(400)])
        offset = f["scores"].id.get_chunk_info(0).byte_offset
    data = bytearray(p.read_bytes())
    data[offset + 10:offset + 200] = b"\xff" * 190
    p.write_bytes(bytes(data))
    with pytest.raises(FileFormatError, match=r"damaged.h5: cannot be read as a BOSARIS HDF5"):
        load_scores(p)
