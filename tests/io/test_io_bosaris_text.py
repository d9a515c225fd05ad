"""BOSARIS text score / key / index files and their join on (model, segment)."""

from __future__ import annotations

import numpy as np
import pytest

from llrlab.core import DataError, FileFormatError, LlrlabWarning, Scores, Trials
from llrlab.core.io import (
    JoinReport,
    Key,
    load_scores,
    load_trials,
    load_trials_with_report,
    read_key,
    read_ndx,
    write_key,
    write_ndx,
    write_scores,
)
from llrlab.core.io import bosaris_text as bt


def write(path, text, mode="w"):
    if mode == "wb":
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def toy(tmp_path):
    """Three models x two segments, one score and a label per trial, ids in file order."""
    scores = write(tmp_path / "scores.txt",
                   "m1 s1 2.5\nm1 s2 -1.25\nm2 s1 0.5\nm2 s2 -3\nm3 s1 1e-3\nm3 s2 7\n")
    key = write(tmp_path / "key.txt",
                "m2 s2 nontarget\nm1 s1 target\nm3 s2 target\nm1 s2 nontarget\n"
                "m3 s1 nontarget\nm2 s1 nontarget\n")
    return scores, key


def test_join_keeps_score_file_order(toy):
    t = load_trials(*toy)
    assert isinstance(t, Trials)
    np.testing.assert_array_equal(t.scores, [2.5, -1.25, 0.5, -3.0, 1e-3, 7.0])
    np.testing.assert_array_equal(t.labels, [True, False, False, False, False, True])
    assert t.model_ids.tolist() == ["m1", "m1", "m2", "m2", "m3", "m3"]
    assert t.segment_ids.tolist() == ["s1", "s2", "s1", "s2", "s1", "s2"]
    assert "scores.txt" in t.source and "key.txt" in t.source


def test_report_of_a_complete_join(toy):
    t, report = load_trials_with_report(*toy)
    assert isinstance(report, JoinReport)
    assert report.complete
    assert (report.n_joined, report.n_left_only, report.n_right_only) == (len(t), 0, 0)


@pytest.mark.parametrize(("target", "non"), [
    ("target", "nontarget"), ("TARGET", "NonTarget"), ("tgt", "non"), ("tar", "imp"),
    ("True", "FALSE"), ("1", "0"), ("target", "non-target"), ("Tar", "impostor"),
])
def test_label_words(tmp_path, target, non):
    s = write(tmp_path / "s.txt", "a x 1\na y 2\n")
    k = write(tmp_path / "k.txt", f"a x {target}\na y {non}\n")
    np.testing.assert_array_equal(load_trials(s, k).labels, [True, False])


def test_whitespace_variants(tmp_path):
    # tabs, several spaces, CRLF line ends, blank lines, a UTF-8 BOM, no final newline
    s = write(tmp_path / "s.txt", b"\xef\xbb\xbfm1\ts1\t0.5\r\n\r\n  m1   s2 -0.5 \r\n", "wb")
    k = write(tmp_path / "k.txt", "m1 s1 target\n\nm1 s2 nontarget")
    t = load_trials(s, k)
    np.testing.assert_array_equal(t.scores, [0.5, -0.5])
    assert t.model_ids.tolist() == ["m1", "m1"]


def test_non_ascii_ids(tmp_path):
    s = write(tmp_path / "s.txt", "modèle ségment 1.5\nmodèle x 0\n")
    k = write(tmp_path / "k.txt", "modèle x nontarget\nmodèle ségment target\n")
    t = load_trials(s, k)
    assert t.segment_ids.tolist() == ["ségment", "x"]
    np.testing.assert_array_equal(t.labels, [True, False])


def test_mismatch_is_counted_warned_and_reported(tmp_path):
    s = write(tmp_path / "s.txt",
              "m1 s1 1\nm1 s2 2\nm9 s1 3\nm1 s3 4\nm9 s2 5\nm2 s1 6\n")
    k = write(tmp_path / "k.txt",
              "m1 s1 target\nm1 s2 nontarget\nm2 s1 nontarget\nm7 s7 target\n"
              "m8 s8 nontarget\nm6 s6 target\n")
    with pytest.warns(LlrlabWarning) as rec:
        t, report = load_trials_with_report(s, k)
    msg = str(rec[0].message)
    # both counts and one example id of each side
    assert "3 scored trial(s)" in msg and "'m9 s1'" in msg
    assert "3 key trial(s)" in msg and "'m7 s7'" in msg
    assert str(s) in msg and str(k) in msg
    assert (report.n_joined, report.n_left_only, report.n_right_only) == (3, 3, 3)
    assert report.left_only_example == "m9 s1"
    assert report.right_only_example == "m7 s7"
    assert not report.complete
    np.testing.assert_array_equal(t.scores, [1, 2, 6])


def test_mismatch_only_in_the_key(tmp_path):
    s = write(tmp_path / "s.txt", "m1 s1 1\nm1 s2 2\n")
    k = write(tmp_path / "k.txt", "m1 s1 target\nm1 s2 nontarget\nm1 s3 target\n")
    with pytest.warns(LlrlabWarning,
                      match=r"all 2 scored trials of .* are in .*; 1 key trial\(s\)"):
        _, report = load_trials_with_report(s, k)
    assert (report.n_left_only, report.n_right_only) == (0, 1)


def test_no_trial_joins_names_both_files(tmp_path):
    s = write(tmp_path / "scores.txt", "m1 s1 1\nm1 s2 2\n")
    k = write(tmp_path / "key.txt", "M1 s1 target\nM1 s2 nontarget\n")
    with pytest.raises(FileFormatError) as exc:
        load_trials(s, k)
    msg = str(exc.value)
    assert str(s) in msg and str(k) in msg and "no trial joins" in msg


def test_identical_duplicate_is_kept_once_with_a_warning(tmp_path):
    s = write(tmp_path / "s.txt", "m1 s1 1.5\nm1 s2 2\nm1 s1 1.5\nm1 s2 2\nm2 s1 0\n")
    k = write(tmp_path / "k.txt", "m1 s1 target\nm1 s2 nontarget\nm2 s1 nontarget\n")
    with pytest.warns(LlrlabWarning, match=r"2 duplicate trial\(s\) with identical scores.*"
                                           r"'m1 s1' \(line 1 and line 3\)"):
        t, report = load_trials_with_report(s, k)
    np.testing.assert_array_equal(t.scores, [1.5, 2.0, 0.0])
    assert report.n_left_duplicates == 2


def test_duplicate_with_two_scores_is_an_error(tmp_path):
    s = write(tmp_path / "s.txt", "m1 s1 1.5\nm1 s2 2\nm1 s1 1.25\n")
    k = write(tmp_path / "k.txt", "m1 s1 target\nm1 s2 nontarget\n")
    with pytest.raises(FileFormatError) as exc:
        load_trials(s, k)
    e = exc.value
    assert e.line == 3 and e.path == str(s)
    assert "'m1 s1' appears twice" in str(e) and "1.5" in str(e) and "1.25" in str(e)
    assert "line 1" in str(e)


def test_duplicate_key_with_two_labels_is_an_error(tmp_path):
    s = write(tmp_path / "s.txt", "m1 s1 1\nm1 s2 2\n")
    k = write(tmp_path / "k.txt", "m1 s1 target\nm1 s2 nontarget\n\nm1 s2 target\n")
    with pytest.raises(FileFormatError, match=r"k.txt, line 4: trial 'm1 s2' appears twice"):
        load_trials(s, k)


@pytest.mark.parametrize("word", ["target", "nontarget"])
def test_one_class_only_is_a_data_error(tmp_path, word):
    s = write(tmp_path / "s.txt", "m1 s1 1\nm1 s2 2\n")
    k = write(tmp_path / "k.txt", f"m1 s1 {word}\nm1 s2 {word}\n")
    missing = "non-target" if word == "target" else "target"
    with pytest.raises(DataError, match=rf"s.txt.*k.txt.*no {missing} trials"):
        load_trials(s, k)


def test_round_trip_scores_and_key(tmp_path):
    rng = np.random.default_rng(1)
    n = 500
    models = np.array([f"m{i % 17}" for i in range(n)])
    segs = np.array([f"seg{i // 17}" for i in range(n)])
    scores = rng.normal(size=n) * 10.0 ** rng.integers(-300, 300, n)
    labels = rng.random(n) < 0.3
    t = Trials(scores, labels, model_ids=models, segment_ids=segs)
    write_scores(tmp_path / "s.txt", t)
    write_key(tmp_path / "k.txt", t)
    back = load_trials(tmp_path / "s.txt", tmp_path / "k.txt")
    assert back.scores.view(np.int64).tolist() == scores.view(np.int64).tolist()
    np.testing.assert_array_equal(back.labels, labels)
    np.testing.assert_array_equal(back.model_ids, models)
    np.testing.assert_array_equal(back.segment_ids, segs)


def test_written_scores_use_shortest_round_trip_text(tmp_path):
    s = Scores([0.1, 1 / 3, -0.0, 5e-324, 1e300], ["a"] * 5, ["x", "y", "z", "u", "v"])
    write_scores(tmp_path / "s.txt", s)
    lines = (tmp_path / "s.txt").read_text().splitlines()
    assert [ln.split()[2] for ln in lines] == ["0.1", "0.3333333333333333", "-0.0", "5e-324",
                                                "1e+300"]


def test_load_scores_text_with_and_without_ids(tmp_path):
    s = load_scores(write(tmp_path / "s.txt", "m1 s1 0.5\nm1 s2 -1\n"))
    assert isinstance(s, Scores) and s.has_ids
    assert s.segment_ids.tolist() == ["s1", "s2"]
    bare = load_scores(write(tmp_path / "b.txt", "0.5\n-1\n3\n"))
    assert not bare.has_ids
    np.testing.assert_array_equal(bare.scores, [0.5, -1, 3])
    write_scores(tmp_path / "b2.txt", bare)
    np.testing.assert_array_equal(load_scores(tmp_path / "b2.txt").scores, bare.scores)


def test_load_scores_duplicates(tmp_path):
    with pytest.warns(LlrlabWarning, match="1 duplicate"):
        s = load_scores(write(tmp_path / "s.txt", "m1 s1 0.5\nm1 s2 -1\nm1 s1 0.5\n"))
    assert len(s) == 2
    with pytest.raises(FileFormatError, match="line 3"):
        load_scores(write(tmp_path / "t.txt", "m1 s1 0.5\nm1 s2 -1\nm1 s1 0.25\n"))


def test_key_and_ndx_round_trip(tmp_path):
    k = Key(["m1", "m1", "m2"], ["s1", "s2", "s1"], [True, False, False])
    write_key(tmp_path / "k.txt", k)
    assert (tmp_path / "k.txt").read_text() == "m1 s1 target\nm1 s2 nontarget\nm2 s1 nontarget\n"
    back = read_key(tmp_path / "k.txt")
    assert back.model_ids.tolist() == ["m1", "m1", "m2"]
    np.testing.assert_array_equal(back.labels, [True, False, False])
    assert (back.n_tar, back.n_non) == (1, 2)
    write_ndx(tmp_path / "n.txt", k)
    ndx = read_ndx(tmp_path / "n.txt")
    assert len(ndx) == 3 and ndx.segment_ids.tolist() == ["s1", "s2", "s1"]


def test_writing_ids_with_whitespace_is_refused(tmp_path):
    s = Scores([1.0], ["model one"], ["s"])
    with pytest.raises(DataError, match="whitespace"):
        write_scores(tmp_path / "s.txt", s)


def test_same_order_key_fast_path_gives_the_same_trials(tmp_path):
    rng = np.random.default_rng(5)
    n = 2000
    m = [f"m{i % 40}" for i in range(n)]
    s = [f"s{i // 40}" for i in range(n)]
    x = rng.normal(size=n)
    lab = rng.random(n) < 0.2
    sc = write(tmp_path / "s.txt", "".join(f"{a} {b} {v!r}\n" for a, b, v in zip(m, s, x.tolist(),
                                                                                     strict=True)))
    words = ["target" if v else "nontarget" for v in lab]
    same = write(tmp_path / "k1.txt", "".join(f"{a} {b} {w}\n" for a, b, w in zip(m, s, words,
                                                                                     strict=True)))
    perm = rng.permutation(n)
    shuffled = write(tmp_path / "k2.txt", "".join(f"{m[i]} {s[i]} {words[i]}\n" for i in perm))
    t1, t2 = load_trials(sc, same), load_trials(sc, shuffled)
    for a, b in ((t1.scores, t2.scores), (t1.labels, t2.labels), (t1.model_ids, t2.model_ids),
                 (t1.segment_ids, t2.segment_ids)):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(t1.labels, lab)


@pytest.mark.parametrize("dense", [True, False])
def test_dense_and_sorting_join_agree(tmp_path, monkeypatch, dense):
    if not dense:
        monkeypatch.setattr(bt, "DENSE_CELLS_PER_TRIAL", 0)
        monkeypatch.setattr(bt, "DENSE_MIN_CELLS", 0)
    rng = np.random.default_rng(7)
    n = 3000
    pairs = rng.permutation(60 * 80)[:n]
    m = [f"m{p // 80}" for p in pairs]
    s = [f"s{p % 80}" for p in pairs]
    x = rng.normal(size=n)
    lab = rng.random(n) < 0.3
    sc = write(tmp_path / "s.txt", "".join(f"{a} {b} {v!r}\n" for a, b, v in
                                           zip(m[:2500], s[:2500], x[:2500].tolist(), strict=True)))
    keep = rng.permutation(np.arange(500, n))
    k = write(tmp_path / "k.txt", "".join(f"{m[i]} {s[i]} {'tgt' if lab[i] else 'non'}\n"
                                          for i in keep))
    with pytest.warns(LlrlabWarning):
        t, report = load_trials_with_report(sc, k)
    assert (report.n_joined, report.n_left_only, report.n_right_only) == (2000, 500, 500)
    assert report.left_only_example == f"{m[0]} {s[0]}"
    assert report.right_only_example == f"{m[keep[np.argmax(keep >= 2500)]]} " \
                                        f"{s[keep[np.argmax(keep >= 2500)]]}"
    np.testing.assert_array_equal(t.scores, x[500:2500])
    np.testing.assert_array_equal(t.labels, lab[500:2500])


def test_progress_is_reported_from_0_to_1(toy):
    seen = []
    load_trials(*toy, progress=lambda f, msg: seen.append((f, msg)))
    fractions = [f for f, _ in seen]
    assert fractions[0] == 0.0 and fractions[-1] == 1.0
    assert fractions == sorted(fractions)
    assert all(isinstance(m, str) and m for _, m in seen)


def test_comma_separated_score_and_key_files(tmp_path):
    s = write(tmp_path / "s.csv", "m1,s1,1.5\nm1,s2,-1\n")
    k = write(tmp_path / "k.txt", "m1,s1,target\nm1,s2,nontarget\n")
    t = load_trials(s, k)
    np.testing.assert_array_equal(t.scores, [1.5, -1.0])
    np.testing.assert_array_equal(t.labels, [True, False])
