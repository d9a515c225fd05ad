"""Common mistakes naming the input files get one line saying what is wrong and what to do;
gzip files and standard input are read transparently."""

from __future__ import annotations

import gzip
import io
import sys

import h5py
import numpy as np
import pytest

from llrlab.core import DataError, FileFormatError, LlrlabError
from llrlab.core.io import (
    load_scores,
    load_trials,
    read_key,
    read_score_file,
    write_key,
    write_scores,
)

from ._files import write

SCORES = "m1 s1 1.5\nm1 s2 -0.5\nm2 s1 0.25\n"
KEY = "m1 s1 target\nm1 s2 nontarget\nm2 s1 nontarget\n"
LABELLED = "m1 s1 1.5 target\nm1 s2 -0.5 nontarget\nm2 s1 0.25 nontarget\n"


@pytest.fixture
def files(tmp_path):
    return (write(tmp_path / "scores.txt", SCORES), write(tmp_path / "key.txt", KEY),
            write(tmp_path / "lab.txt", LABELLED))


def message(call):
    with pytest.raises(LlrlabError) as exc:
        call()
    msg = str(exc.value)
    assert "\n" not in msg
    return msg


def test_key_given_in_place_of_the_scores_says_swapped(files):
    s, k, _ = files
    msg = message(lambda: load_trials(k, s))
    assert msg.startswith(f"{k}, line 1: the score 'target' is not a number")
    assert "the two files look swapped" in msg and str(s) in msg
    assert "give the score file first, then the key" in msg


def test_hdf5_files_swapped(tmp_path, files):
    s, k, _ = files
    t = load_trials(s, k)
    sh, kh = tmp_path / "s.h5", tmp_path / "k.h5"
    write_scores(sh, t)
    write_key(kh, t)
    msg = message(lambda: load_trials(kh, sh))
    assert "look swapped" in msg and "give the score file first" in msg


def test_key_given_twice(files):
    _, k, _ = files
    msg = message(lambda: load_trials(k, k))
    assert "looks like a key (labels in its third column), not a score file" in msg


def test_score_file_given_as_the_key(files):
    s, _, _ = files
    msg = message(lambda: load_trials(s, s))
    assert msg.startswith(f"{s}, line 1: unknown label '1.5'")
    assert "looks like a score file (numbers in its third column), not a key" in msg


@pytest.mark.parametrize("header", ["model segment score", "enrollment test llr"])
def test_header_line_in_a_bosaris_score_file(tmp_path, files, header):
    _, k, _ = files
    s = write(tmp_path / "h.txt", f"{header}\n{SCORES}")
    msg = message(lambda: load_trials(s, k))
    assert msg.startswith(f"{s}, line 1:")
    assert "looks like a header line" in msg and "a BOSARIS score file has no header" in msg
    assert "delete that line" in msg
    assert message(lambda: load_scores(s)).startswith(f"{s}, line 1:")


def test_a_nist_header_line_names_the_columns_of_a_score_file(tmp_path, files):
    """``modelid segmentid score`` is NIST SRE's header (llrlab.core.io.sre): read, not
    refused."""
    _, k, _ = files
    s = write(tmp_path / "h.txt", f"modelid segmentid score\n{SCORES}")
    assert list(load_trials(s, k).scores) == [1.5, -0.5, 0.25]


def test_header_line_in_a_bosaris_key_file(tmp_path, files):
    s, _, _ = files
    k = write(tmp_path / "hk.txt", f"model segment label\n{KEY}")
    msg = message(lambda: load_trials(s, k))
    assert msg.startswith(f"{k}, line 1:") and "a BOSARIS key file has no header" in msg


def test_labelled_header_given_with_a_key(tmp_path, files):
    _, k, _ = files
    lab = write(tmp_path / "lab.csv", "model,segment,score,label\nm1,s1,1,target\n")
    msg = message(lambda: load_trials(lab, k))
    assert "holds its own labels; give it alone, without a key file" in msg


def test_forgotten_key(files):
    s, _, _ = files
    msg = message(lambda: load_trials(s))
    assert msg.startswith(f"{s}, line 1: expected 2 fields (score label) or 4")
    assert "looks like a BOSARIS score file (model segment score), which holds no labels; " \
           "give its key file too" in msg
    assert "start the file with a header line" not in msg


def test_key_given_alone(files):
    _, k, _ = files
    msg = message(lambda: load_trials(k))
    assert "looks like a BOSARIS key file" in msg and "give the score file first" in msg


def test_key_given_with_a_labelled_file(files):
    _, k, lab = files
    msg = message(lambda: load_trials(lab, k))
    assert msg.startswith(f"{lab}, line 1: expected 3 fields (model segment score) per line, "
                          f"found 4")
    assert "holds its own labels; give it alone, without a key file" in msg


def test_labelled_file_given_as_a_key(files):
    s, _, lab = files
    msg = message(lambda: load_trials(s, lab))
    assert msg.startswith(f"{lab}, line 1:") and "not a key; give it alone" in msg


def test_an_hdf5_score_file_alone_needs_its_key(tmp_path, files):
    s, k, _ = files
    sh = tmp_path / "s.h5"
    write_scores(sh, load_trials(s, k))
    with pytest.raises(DataError, match="give its key file too"):
        load_trials(sh)


def test_other_errors_are_unchanged(tmp_path, files):
    _, k, _ = files
    s = write(tmp_path / "s.txt", "m1 s1 1\nm1 s2 abc\n")
    msg = message(lambda: load_trials(s, k))
    assert msg == f"{s}, line 2: the score 'abc' is not a number: 'm1 s2 abc'"


# --------------------------------------------------------------------------------------------
# gzip


def gz(path, text):
    path.write_bytes(gzip.compress(text.encode()))
    return path


def test_gzip_files_are_read_transparently(tmp_path, files):
    s, k, _ = files
    ref = load_trials(s, k)
    for sp, kp in ((gz(tmp_path / "s.txt.gz", SCORES), gz(tmp_path / "k.txt.gz", KEY)),
                   (gz(tmp_path / "scores.bin", SCORES), k)):  # by magic bytes
        t = load_trials(sp, kp)
        np.testing.assert_array_equal(t.scores, ref.scores)
        np.testing.assert_array_equal(t.labels, ref.labels)
        assert t.model_ids.tolist() == ref.model_ids.tolist()
    t = load_trials(gz(tmp_path / "lab.txt.gz", LABELLED))
    np.testing.assert_array_equal(t.scores, ref.scores)
    assert len(load_scores(gz(tmp_path / "bare.gz", "1\n2\n"))) == 2
    csv = gz(tmp_path / "l.csv.gz", "score,label\n1,target\n0,nontarget\n")
    data, fmt = read_score_file(csv)
    assert fmt.kind == "labelled" and fmt.delimiter == "," and len(data) == 2
    assert len(read_key(gz(tmp_path / "k2.gz", KEY))) == 3


def test_gzip_errors_name_the_file_and_line(tmp_path, files):
    _, k, _ = files
    s = gz(tmp_path / "s.txt.gz", "m1 s1 1\nm1 s2 x\n")
    msg = message(lambda: load_trials(s, k))
    assert msg.startswith(f"{s}, line 2: the score 'x' is not a number")


def test_damaged_gzip_is_a_clear_error(tmp_path, files):
    _, k, _ = files
    data = gzip.compress(SCORES.encode() * 1000)
    s = write(tmp_path / "cut.gz", data[: len(data) // 2])
    msg = message(lambda: load_trials(s, k))
    assert str(s) in msg and "gzip" in msg
    bad = write(tmp_path / "bad.gz", b"\x1f\x8b" + b"\x00" * 30)
    assert "gzip" in message(lambda: load_scores(bad))


def test_gzipped_hdf5_is_refused_with_a_hint(tmp_path, files):
    s, k, _ = files
    sh = tmp_path / "s.h5"
    write_scores(sh, load_trials(s, k))
    z = write(tmp_path / "s.h5.gz", gzip.compress(sh.read_bytes()))
    msg = message(lambda: load_scores(z))
    assert "gzip-compressed HDF5" in msg and "decompress it first" in msg


# --------------------------------------------------------------------------------------------
# standard input


class _Stdin:
    def __init__(self, data):
        self.buffer = io.BytesIO(data)


def test_dash_reads_standard_input(monkeypatch, files):
    s, k, _ = files
    monkeypatch.setattr(sys, "stdin", _Stdin(SCORES.encode()))
    t = load_trials("-", k)
    np.testing.assert_array_equal(t.scores, load_trials(s, k).scores)
    monkeypatch.setattr(sys, "stdin", _Stdin(KEY.encode()))
    assert load_trials(s, "-").n_tar == 1
    monkeypatch.setattr(sys, "stdin", _Stdin(gzip.compress(LABELLED.encode())))
    assert len(load_trials("-")) == 3
    monkeypatch.setattr(sys, "stdin", _Stdin(b"1\n2\n"))
    data, fmt = read_score_file("-")
    assert fmt.kind == "bare" and data.scores.tolist() == [1.0, 2.0]


def test_dash_reads_hdf5_from_standard_input(monkeypatch, tmp_path, files):
    s, k, _ = files
    sh = tmp_path / "s.h5"
    write_scores(sh, load_trials(s, k))
    monkeypatch.setattr(sys, "stdin", _Stdin(sh.read_bytes()))
    assert len(load_scores("-")) == 3


def test_stdin_errors_say_stdin(monkeypatch, files):
    _, k, _ = files
    monkeypatch.setattr(sys, "stdin", _Stdin(b"m1 s1 1\nm1 s2 nan\n"))
    msg = message(lambda: load_trials("-", k))
    assert msg.startswith("<stdin>, line 2: the score is NaN")


def test_stdin_for_both_files_is_refused(monkeypatch):
    monkeypatch.setattr(sys, "stdin", _Stdin(SCORES.encode()))
    assert "only one of the two files" in message(lambda: load_trials("-", "-"))


def test_stdin_beyond_max_bytes(monkeypatch):
    monkeypatch.setattr(sys, "stdin", _Stdin(SCORES.encode() * 100))
    msg = message(lambda: load_scores("-", max_bytes=100))
    assert msg.startswith("<stdin>:") and "not enough memory" in msg


def test_hdf5_stdin_tree_is_checked_too(monkeypatch, tmp_path):
    p = tmp_path / "e.h5"
    with h5py.File(p, "w") as f:
        f["scores"] = h5py.ExternalLink("/etc/passwd", "/x")
        f["score_mask"] = np.ones((1, 1), np.uint8)
        f["ID/row_ids"] = np.array([b"m"])
        f["ID/column_ids"] = np.array([b"s"])
    monkeypatch.setattr(sys, "stdin", _Stdin(p.read_bytes()))
    with pytest.raises(FileFormatError, match="external link"):
        load_scores("-")


# --------------------------------------------------------------------------------------------
# progress


def test_progress_rises_to_one_during_a_long_load(tmp_path, monkeypatch):
    from llrlab.core.io import _source

    monkeypatch.setattr(_source, "BLOCK", 4096)
    lines = "".join(f"m{i % 7} s{i} {i * 0.5}\n" for i in range(5000))
    s = write(tmp_path / "s.txt", lines)
    k = write(tmp_path / "k.txt", "".join(f"m{i % 7} s{i} {'target' if i % 3 else 'non'}\n"
                                         for i in range(5000)))
    seen = []
    load_trials(s, k, progress=lambda f, m: seen.append(f))
    assert seen[0] == 0.0 and seen[-1] == 1.0 and seen == sorted(seen)
    assert len(seen) > 10  # keeps reporting while the blocks are read
