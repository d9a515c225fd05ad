"""The peers' score files (bob.measure, bob.bio, pyeer) read as they are, through the
installed console script and the library, against the same trials in llrlab's own format."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llrlab.core.errors import FileFormatError, LlrlabWarning
from llrlab.core.io import failures_to_acquire, load_genuine_impostor, load_trials

from .._time_scale import scaled

LLRLAB = Path(sys.executable).parent / "llrlab"


def _run(*args):
    return subprocess.run([str(LLRLAB), *map(str, args)], capture_output=True, text=True,
                          timeout=scaled(120))


def _eval_json(*args):
    r = _run("eval", "--json", "--quiet", *args)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _data(n=60, seed=3):
    rng = np.random.default_rng(seed)
    labels = rng.random(n) < 0.4
    labels[:2] = (True, False)
    scores = np.round(rng.normal(size=n) + 2 * labels, 3)
    return scores, labels


def _native(path, scores, labels, ids=None):
    words = np.where(labels, "target", "nontarget")
    if ids is None:
        path.write_text("".join(f"{float(s)!r} {w}\n" for s, w in zip(scores, words, strict=True)))
    else:
        path.write_text("".join(f"{m} {t} {float(s)!r} {w}\n"
                                for (m, t), s, w in zip(ids, scores, words, strict=True)))
    return path


def _bob_measure(path, scores, labels, *, zero_one=False, header=False):
    neg = "0" if zero_one else "-1"
    path.write_text(("label score\n" if header else "")
                    + "".join(f"{'1' if lab else neg} {float(s)!r}\n"
                              for s, lab in zip(scores, labels, strict=True)))
    return path


def _bio_ids(labels, seed=0):
    """(claimed, real, model, test) per trial: real == claimed for the targets."""
    rng = np.random.default_rng(seed)
    claimed = [f"subj{rng.integers(8)}" for _ in labels]
    real = [c if lab else f"other{i}"
            for i, (c, lab) in enumerate(zip(claimed, labels, strict=True))]
    model = [f"{c}/enrol" for c in claimed]
    test = [f"probe/{i:03d}.wav" for i in range(len(labels))]
    return claimed, real, model, test


def test_bob_measure_two_columns_equal_the_native_file(tmp_path):
    scores, labels = _data()
    want = _eval_json(_native(tmp_path / "native.txt", scores, labels))
    for kw in ({}, {"zero_one": True}, {"header": True}):
        got = _eval_json(_bob_measure(tmp_path / "bob.txt", scores, labels, **kw))
        assert got == want, kw


def test_bob_bio_four_and_five_columns_equal_the_native_file(tmp_path):
    scores, labels = _data(seed=4)
    claimed, real, model, test = _bio_ids(labels)
    native4 = _native(tmp_path / "n4.txt", scores, labels,
                      ids=list(zip(claimed, test, strict=True)))
    native5 = _native(tmp_path / "n5.txt", scores, labels, ids=list(zip(model, test, strict=True)))
    four = tmp_path / "bio4.txt"
    four.write_text("".join(f"{c} {r} {t} {float(s)!r}\n"
                            for c, r, t, s in zip(claimed, real, test, scores, strict=True)))
    five = tmp_path / "bio5.txt"
    five.write_text("".join(f"{c} {m} {r} {t} {float(s)!r}\n"
                            for c, m, r, t, s in zip(claimed, model, real, test, scores,
                                                     strict=True)))
    assert _eval_json(four) == _eval_json(native4)
    assert _eval_json(five) == _eval_json(native5)
    t4, t5 = load_trials(four), load_trials(five)
    np.testing.assert_array_equal(t4.labels, labels)
    assert list(t4.model_ids[:3]) == claimed[:3] and list(t5.model_ids[:3]) == model[:3]
    assert list(t5.segment_ids[:3]) == test[:3]


def test_failures_to_acquire_are_counted_and_left_out_or_counted_as_errors(tmp_path):
    scores, labels = _data(seed=5)
    fta = np.zeros(scores.size, bool)
    fta[[3, 7, 11]] = True
    n_tar_fta = int(labels[fta].sum())
    bob = tmp_path / "bob.txt"
    bob.write_text("".join(f"{'1' if lab else '-1'} {'nan' if f else repr(float(s))}\n"
                           for s, lab, f in zip(scores, labels, fta, strict=True)))
    # left out: the same numbers as the acquired trials alone, and one warning line
    r = _run("eval", "--json", bob)
    assert r.returncode == 0
    got = json.loads(r.stdout)
    kept = _eval_json(_native(tmp_path / "kept.txt", scores[~fta], labels[~fta]))
    assert got == {**kept, "failures_to_acquire": 3}
    fta_lines = [ln for ln in r.stderr.splitlines() if "failure(s) to acquire" in ln]
    assert len(fta_lines) == 1
    assert f"3 failure(s) to acquire (NaN scores: {n_tar_fta} target, {3 - n_tar_fta} " \
           f"non-target) left out" in fta_lines[0] and "--fta-as-error" in fta_lines[0]
    # counted as errors: as if scored below every acquired trial
    low = scores.copy()
    low[fta] = scores[~fta].min() - 1
    as_error = _eval_json("--fta-as-error", bob)
    assert as_error == {**_eval_json(_native(tmp_path / "low.txt", low, labels)),
                        "failures_to_acquire": 3}
    # the text table has one line for them
    r = _run("eval", bob)
    assert "failures to acquire                      3  (left out)" in r.stdout


def test_fta_as_error_gives_iso_frr_and_far_at_every_threshold(tmp_path):
    """ISO/IEC 19795-1: FRR = FTA + FNMR (1 - FTA), FAR = FMR (1 - FTA), per class."""
    scores, labels = _data(n=200, seed=6)
    fta = np.random.default_rng(1).random(scores.size) < 0.1
    path = tmp_path / "bob.txt"
    path.write_text("".join(f"{'1' if lab else '-1'} {'nan' if f else repr(float(s))}\n"
                            for s, lab, f in zip(scores, labels, fta, strict=True)))
    with warnings.catch_warnings(), failures_to_acquire(as_error=True) as rec:
        warnings.simplefilter("ignore", LlrlabWarning)
        t = load_trials(path)
    assert rec.total == fta.sum()
    tar, non = labels, ~labels
    fta_t, fta_n = fta[tar].mean(), fta[non].mean()
    for thr in np.unique(scores[~fta]):
        fnmr = np.mean(scores[tar & ~fta] < thr)
        fmr = np.mean(scores[non & ~fta] >= thr)
        p_miss = np.mean(t.scores[t.labels] < thr)
        p_fa = np.mean(t.scores[~t.labels] >= thr)
        assert p_miss == pytest.approx(fta_t + fnmr * (1 - fta_t))
        assert p_fa == pytest.approx(fmr * (1 - fta_n))


def test_pyeer_genuine_and_impostor_files_equal_the_native_file(tmp_path):
    scores, labels = _data(seed=7)
    gen, imp = tmp_path / "genuine.txt", tmp_path / "impostor.txt"
    gen.write_text("".join(f"{float(s)!r}\n" for s in scores[labels]))
    imp.write_text("".join(f"{float(s)!r}\n" for s in scores[~labels]))
    order = np.argsort(~labels, kind="stable")
    want = _eval_json(_native(tmp_path / "n.txt", scores[order], labels[order]))
    assert _eval_json("--tar", gen, "--non", imp) == want
    t = load_genuine_impostor(gen, imp)
    assert (t.n_tar, t.n_non) == (labels.sum(), (~labels).sum())
    # as the two files of SCORES KEY (as llrlab serve, report and the upload take them):
    # the same trials, and a line saying how they were read
    assert _eval_json(gen, imp) == want
    r = _run("eval", gen, imp)
    assert r.returncode == 0
    assert "read as genuine (target) scores and impostor (non-target) scores" in r.stderr


def test_genuine_and_impostor_words_are_labels(tmp_path):
    scores, labels = _data(seed=8)
    words = tmp_path / "w.txt"
    words.write_text("".join(f"{float(s)!r} {'genuine' if lab else 'impostor'}\n"
                             for s, lab in zip(scores, labels, strict=True)))
    assert _eval_json(words) == _eval_json(_native(tmp_path / "n.txt", scores, labels))


def test_ambiguous_first_lines_are_decided_on_the_head(tmp_path):
    """``1 0`` is a target scored 0 (bob.measure) or a non-target scored 1 (llrlab): the
    head's other lines decide; when every line is ambiguous, llrlab's order stands."""
    bob = tmp_path / "bob.txt"
    bob.write_text("1 0\n-1 1\n1 0.5\n-1 -0.25\n")
    t = load_trials(bob)
    np.testing.assert_array_equal(t.scores, [0, 1, 0.5, -0.25])
    np.testing.assert_array_equal(t.labels, [True, False, True, False])
    own = tmp_path / "own.txt"
    own.write_text("1 0\n0 1\n")
    t = load_trials(own)
    np.testing.assert_array_equal(t.scores, [1, 0])
    np.testing.assert_array_equal(t.labels, [False, True])


@pytest.mark.parametrize("args, message", [
    (("{bob}", "{key}"), "detected as a bob.measure 2-column label-score file (label first: "
                         "1/-1 or 1/0), which holds its own labels; give it alone, without a "
                         "key file"),
    (("{bio}", "{key}"), "detected as a bob.bio 4-column score file (claimed_id real_id "
                         "test_label score), which holds its own labels; give it alone"),
    (("{gen}",), "detected as a file of one score per line (e.g. pyeer's genuine or impostor "
                 "scores), which holds no labels; give the two files as --tar GENUINE --non "
                 "IMPOSTOR"),
    (("--tar", "{bob}", "--non", "{gen}"), "detected as a bob.measure 2-column label-score "
                                           "file (label first: 1/-1 or 1/0); --tar takes a "
                                           "file of one score per line"),
    (("--tar", "{gen}"), "--tar and --non come together"),
    (("{bob}", "--tar", "{gen}", "--non", "{gen}"), "give the scores either as SCORES [KEY] "
                                                    "or as --tar GENUINE --non IMPOSTOR"),
])
def test_misused_peer_files_get_one_line_saying_what_was_detected(tmp_path, args, message):
    files = {"bob": "1 0.5\n-1 -0.5\n", "key": "m s target\n",
             "bio": "a a t1 0.9\na b t2 0.1\n", "gen": "0.9\n0.8\n"}
    paths = {}
    for k, text in files.items():
        paths[k] = tmp_path / f"{k}.txt"
        paths[k].write_text(text)
    r = _run("eval", *(a.format(**paths) for a in args))
    assert r.returncode == 2 and r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and message in lines[0], r.stderr


def test_an_infinite_score_in_a_bob_file_is_an_error_with_its_line(tmp_path):
    p = tmp_path / "bob.txt"
    p.write_text("1 0.5\n-1 inf\n")
    with pytest.raises(FileFormatError, match=r"line 2: the score is infinite"):
        load_trials(p)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(-400, 400), st.booleans()), min_size=2, max_size=40),
       st.sampled_from([("1", "-1"), ("1", "0"), ("+1", "-1")]))
def test_bob_measure_reads_as_written(tmp_path_factory, rows, words):
    """Any scores (integers too, which look like labels) and both label conventions."""
    rows[0], rows[1] = (rows[0][0], True), (rows[1][0], False)
    scores = np.array([s / 8 for s, _ in rows])
    labels = np.array([lab for _, lab in rows])
    p = tmp_path_factory.mktemp("h") / "bob.txt"
    p.write_text("".join(f"{words[0] if lab else words[1]} {float(s)!r}\n"
                         for s, lab in zip(scores, labels, strict=True)))
    t = load_trials(p)
    if not np.isin(scores, (0.0, 1.0, -1.0)).all():  # else every line is ambiguous
        np.testing.assert_array_equal(t.scores, scores)
        np.testing.assert_array_equal(t.labels, labels)


# ------------------------------------------------------------------ Parquet, in memory

def _parquet(path, scores, labels, *, label_kind="words", ids=None, **extra):
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    lab = {"words": np.where(labels, "target", "nontarget"), "bool": labels,
           "int": labels.astype(int)}[label_kind]
    cols = {"score": scores, "label": lab, **extra}
    if ids is not None:
        cols = {"model": [m for m, _ in ids], "segment": [s for _, s in ids], **cols}
    pd.DataFrame(cols).to_parquet(path)
    return path


@pytest.mark.parametrize("label_kind", ["words", "bool", "int"])
def test_parquet_is_read_in_memory_like_the_native_file(tmp_path, label_kind):
    scores, labels = _data(seed=9)
    ids = [(f"m{i % 7}", f"seg{i}") for i in range(scores.size)]
    want = _eval_json(_native(tmp_path / "n.txt", scores, labels, ids=ids))
    # told by its magic bytes, not its name; a column llrlab does not know is ignored
    p = _parquet(tmp_path / "table.bin", scores, labels, label_kind=label_kind, ids=ids,
                 other=np.arange(scores.size))
    assert _eval_json(p) == want
    t = load_trials(p)
    assert list(t.model_ids[:2]) == ["m0", "m1"]


def test_parquet_mistakes_get_one_line(tmp_path):
    scores, labels = _data(seed=10)
    p = _parquet(tmp_path / "t.parquet", scores, labels)
    key = tmp_path / "key.txt"
    key.write_text("m s target\n")
    r = _run("eval", p, key)
    assert r.returncode == 2
    assert r.stderr.splitlines() == [f"llrlab eval: error: {p}: detected as a Parquet table "
                                     f"(score, label[, model, segment, condition, weight]), "
                                     f"which holds its own labels; give it alone, without a "
                                     f"key file"]
    import pandas as pd

    pd.DataFrame({"llr": scores}).to_parquet(p)
    with pytest.raises(FileFormatError, match="has no label column; its columns are llr"):
        load_trials(p)
    pd.DataFrame({"score": scores, "label": np.where(labels, "yes", "no")}).to_parquet(p)
    with pytest.raises(FileFormatError, match="unknown label 'no'"):
        load_trials(p)


def test_parquet_without_pyarrow_says_which_extra_to_install(tmp_path, monkeypatch):
    scores, labels = _data(seed=11)
    p = _parquet(tmp_path / "t.parquet", scores, labels)
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(FileFormatError, match=r"t.parquet: is a Parquet file; reading it "
                                              r"needs pyarrow: pip install 'llrlab\[scale\]'"):
        load_trials(p)


# ------------------------------------------------------------------ NIST SRE, with a header

def _sre_pair(tmp_path, scores, labels, *, sides=None):
    n = scores.size
    sides = sides or ["a"] * n
    rows = [(f"m{i % 5}", f"seg{i // 2}", sides[i]) for i in range(n)]
    sc = tmp_path / "system.tsv"
    sc.write_text("modelid\tsegmentid\tside\tLLR\n" + "".join(
        f"{m}\t{s}\t{d}\t{float(x)!r}\n" for (m, s, d), x in zip(rows, scores, strict=True)))
    key = tmp_path / "key.tsv"
    # the key in another order, with a column llrlab does not use
    key.write_text("segmentid\tmodelid\tside\tgender\ttargettype\n" + "".join(
        f"{s}\t{m}\t{d}\tf\t{'target' if lab else 'nontarget'}\n"
        for (m, s, d), lab in reversed(list(zip(rows, labels, strict=True)))))
    return rows, sc, key


def test_nist_sre_score_file_and_key_equal_the_bosaris_pair(tmp_path):
    scores, labels = _data(seed=12)
    rows, sc, key = _sre_pair(tmp_path, scores, labels)
    bs, bk = tmp_path / "b.scores", tmp_path / "b.key"
    bs.write_text("".join(f"{m} {s} {float(x)!r}\n"
                          for (m, s, _), x in zip(rows, scores, strict=True)))
    bk.write_text("".join(f"{m} {s} {'target' if lab else 'nontarget'}\n"
                          for (m, s, _), lab in zip(rows, labels, strict=True)))
    assert _eval_json(sc, key) == _eval_json(bs, bk)


def test_nist_sre_sides_that_differ_are_part_of_the_trial(tmp_path):
    scores, labels = _data(n=8, seed=13)
    # the same model and segment, sides a and b: two trials, not a repeated one
    _, sc, key = _sre_pair(tmp_path, scores, labels, sides=["a", "b"] * 4)
    t = load_trials(sc, key)
    assert len(t) == 8 and t.segment_ids[0] == "seg0:a" and t.segment_ids[1] == "seg0:b"


def test_nist_sre_file_with_llr_and_targettype_is_one_labelled_file(tmp_path):
    p = tmp_path / "both.tsv"
    p.write_text("modelid\tsegmentid\tLLR\ttargettype\nm1\ts1\t2\ttarget\nm1\ts2\t-1\t"
                 "nontarget\n")
    t = load_trials(p)
    np.testing.assert_array_equal(t.labels, [True, False])


@pytest.mark.parametrize("which, message", [
    ("alone", "system.tsv, line 1: detected as a NIST SRE file with a score (LLR) column but "
              "no label column; give it with its trial key (the file with the targettype "
              "column)"),
    ("swapped", "key.tsv, line 1: detected as a NIST SRE trial key with a header (modelid "
                "segmentid [side] targettype) and {sc} as the score file: the two files look "
                "swapped; give the score file first, then the key"),
    ("two-scores", "system.tsv, line 1: detected as a NIST SRE file with a score (LLR) column "
                   "but no label column"),
])
def test_nist_sre_mistakes_get_one_line(tmp_path, which, message):
    scores, labels = _data(n=6, seed=14)
    _, sc, key = _sre_pair(tmp_path, scores, labels)
    args = {"alone": (sc,), "swapped": (key, sc), "two-scores": (sc, sc)}[which]
    r = _run("eval", *args)
    assert r.returncode == 2
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and message.format(sc=sc) in lines[0], r.stderr


# ------------------------------------------------------------------ distances

@pytest.mark.parametrize("option", [("--distance",), ("--higher-is-target", "false"),
                                    ("--higher-is-target", "FALSE")])
def test_distances_are_negated_in_every_command(tmp_path, option):
    scores, labels = _data(seed=15)
    sim = _native(tmp_path / "sim.txt", scores, labels)
    dist = _native(tmp_path / "dist.txt", -scores, labels)
    sim_b = _native(tmp_path / "sim_b.txt", scores * 0.5 + 0.1, labels)
    dist_b = _native(tmp_path / "dist_b.txt", -(scores * 0.5 + 0.1), labels)
    assert _eval_json(dist, *option) == _eval_json(sim)
    assert _eval_json("--tar", _lines(tmp_path / "g", -scores[labels]), "--non",
                      _lines(tmp_path / "i", -scores[~labels]), *option)["eer"] == \
        _eval_json(sim)["eer"]
    r1 = _run("compare", "--json", "--quiet", dist, dist_b, *option)
    r2 = _run("compare", "--json", "--quiet", sim, sim_b)
    assert r1.returncode == 0 and r1.stdout.replace("/dist", "/sim") == r2.stdout
    for src, out, extra in ((dist, "a.txt", option), (sim, "b.txt", ())):
        r = _run("calibrate", "--dev", src, "--apply", src, "--out", tmp_path / out,
                 "--quiet", *extra)
        assert r.returncode == 0, r.stderr
    assert (tmp_path / "a.txt").read_text() == (tmp_path / "b.txt").read_text()
    # the distances read the wrong way round give the mirrored EER
    assert _eval_json(dist)["eer"] > _eval_json(sim)["eer"] + 0.3


def _lines(path, values):
    path.write_text("".join(f"{float(v)!r}\n" for v in values))
    return path


def test_a_bad_direction_is_one_line():
    r = _run("eval", "x.txt", "--higher-is-target", "maybe")
    assert r.returncode == 2
    assert "argument --higher-is-target: expected true or false, got 'maybe'" in r.stderr


# ------------------------------------------------------------------ --columns

def test_columns_option_maps_any_csv_header(tmp_path):
    scores, labels = _data(seed=16)
    ids = [(f"m{i % 4}", f"t{i}") for i in range(scores.size)]
    csv = tmp_path / "trials.csv"
    csv.write_text("enroll_id,test_id,cos,is_same,notes\n" + "".join(
        f"{m},{t},{float(s)!r},{int(lab)},n{i}\n"
        for i, ((m, t), s, lab) in enumerate(zip(ids, scores, labels, strict=True))))
    want = _eval_json(_native(tmp_path / "n.txt", scores, labels, ids=ids))
    assert _eval_json(csv, "--columns",
                      "score=cos,label=is_same,model=enroll_id,segment=test_id") == want
    # the ids may be left out; the names are matched in any case
    got = _eval_json(csv, "--columns", "score=COS,label=is_same")
    assert got == want  # the same trials, with or without their ids
    # a Parquet table's columns likewise
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    pq = tmp_path / "t.parquet"
    pd.DataFrame({"cos": scores, "is_same": labels}).to_parquet(pq)
    assert _eval_json(pq, "--columns", "score=cos,label=is_same") == want


@pytest.mark.parametrize("columns, message", [
    ("score=cosine,label=is_same", "line 1: the header has no column 'cosine' (named by "
                                   "--columns); its columns are 'enroll_id test_id cos "
                                   "is_same notes'"),
    ("scor=cos", "argument --columns: unknown column role 'scor'"),
    ("score", "argument --columns: expected ROLE=NAME pairs"),
    ("score=cos,score=x", "argument --columns: score is named twice"),
    (None, "line 1: this looks like a header line whose column names llrlab does not know; "
           "name the columns with --columns"),
])
def test_columns_mistakes_get_one_line(tmp_path, columns, message):
    csv = tmp_path / "trials.csv"
    csv.write_text("enroll_id,test_id,cos,is_same,notes\nm,t,0.5,1,x\nm,u,0.1,0,y\n")
    r = _run("eval", csv, *(("--columns", columns) if columns else ()))
    assert r.returncode == 2
    assert message in r.stderr.splitlines()[-1] and "Traceback" not in r.stderr


# ------------------------------------------------------------------ --llr-unit

@pytest.mark.parametrize("unit, factor", [("log10", np.log(10.0)), ("bits", np.log(2.0))])
def test_llr_unit_reads_and_writes_llrs_in_that_unit(tmp_path, unit, factor):
    scores, labels = _data(seed=17)
    ln = _native(tmp_path / "ln.txt", scores, labels)
    other = _native(tmp_path / "u.txt", scores / factor, labels)
    a, b = _eval_json(ln), _eval_json(other, "--llr-unit", unit)
    assert a == pytest.approx(b, rel=1e-12)
    assert _eval_json(other)["cllr"] != pytest.approx(a["cllr"])  # read as ln: wrong
    for src, out, extra in ((ln, "ln_out.txt", ()), (other, "u_out.txt", ("--llr-unit", unit))):
        r = _run("calibrate", "--dev", src, "--out", tmp_path / out, *extra)
        assert r.returncode == 0, r.stderr
    x = np.array([float(ln.split()[0]) for ln in (tmp_path / "ln_out.txt").read_text()
                  .splitlines()])
    y = np.array([float(ln.split()[0]) for ln in (tmp_path / "u_out.txt").read_text()
                  .splitlines()])
    np.testing.assert_allclose(y * factor, x, rtol=1e-9, atol=1e-12)
    r = _run("eval", other, "--llr-unit", unit)
    assert f"scores: {unit} LLRs, converted to natural log as read" in r.stdout


def test_calibrate_applies_to_peer_files_read_the_right_way_round(tmp_path):
    """``--apply`` reads its file as a score file: a bob.measure ``-1 0`` line is a
    non-target scored 0 there too (not a score -1 labelled 0), and the calibrated scores
    are written as llrlab's labelled file."""
    scores, labels = _data(n=40, seed=18)
    scores = np.round(scores)  # many 0, 1 and -1 scores: lines that read both ways
    bob = _bob_measure(tmp_path / "bob.txt", scores, labels)
    native = _native(tmp_path / "n.txt", scores, labels)
    for src, out in ((bob, "a.txt"), (native, "b.txt")):
        r = _run("calibrate", "--dev", src, "--apply", src, "--out", tmp_path / out)
        assert r.returncode == 0, r.stderr
    assert (tmp_path / "a.txt").read_text() == (tmp_path / "b.txt").read_text()
