"""`llrlab calibrate`, `fuse`, `apply` and `eval --model`: the command line gives exactly what
the Python API gives, in the input's format, and refuses bad input with one line (exit 2)."""

from __future__ import annotations

import io
import json
import os

import numpy as np
import pytest

from llrlab.core import FileFormatError, LlrlabWarning, Trials, cllr, gaussian_trials
from llrlab.core.calibration import FusionCalibrator, fit_calibrator, load_calibrator
from llrlab.core.cli import run
from llrlab.core.io import load_trials, read_score_file, write_key, write_scores, write_trials

# ------------------------------------------------------------------------------ helpers


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    code = run([str(a) for a in argv], out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def _with_ids(t, prefix, seed):
    """``t`` shuffled (targets and non-targets mixed) with (model, segment) ids."""
    n = len(t)
    p = np.random.default_rng(seed).permutation(n)
    return Trials(t.scores[p], t.labels[p], model_ids=[f"m{i % 7}" for i in range(n)],
                  segment_ids=[f"{prefix}{i}" for i in range(n)])


def _snapshot(folder):
    """Every file under ``folder`` with its bytes."""
    return {p: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _one_error_line(code, out, err, *needles):
    assert code == 2, err
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert "error:" in lines[0]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])


def _api_calibrated(cal, apply_path):
    data, fmt = read_score_file(apply_path)
    return cal(data), fmt


@pytest.fixture
def files(tmp_path):
    """Dev scores + key (text and HDF5), eval scores (text, HDF5, labelled CSV) + eval key."""
    dev = _with_ids(gaussian_trials(200, 800, seed=1, scale=2.0, shift=-1.0), "d", 0)
    # Eval is wider than dev, so some scores lie outside the dev range.
    ev = _with_ids(gaussian_trials(150, 600, seed=2, scale=3.0, shift=-1.0), "e", 1)
    f = {}
    for ext in ("txt", "h5"):
        f[f"dev_{ext}"] = (tmp_path / f"dev_scores.{ext}", tmp_path / f"dev_key.{ext}")
        write_scores(f[f"dev_{ext}"][0], dev)
        write_key(f[f"dev_{ext}"][1], dev)
        f[f"eval_{ext}"] = tmp_path / f"eval_scores.{ext}"
        write_scores(f[f"eval_{ext}"], ev)
    f["eval_csv"] = tmp_path / "eval.csv"
    write_trials(f["eval_csv"], ev)
    f["eval_key"] = tmp_path / "eval_key.txt"
    write_key(f["eval_key"], ev)
    return f


# ---------------------------------------------------------------------- 1. calibrate


@pytest.mark.parametrize("method", ["affine", "pav"])
@pytest.mark.parametrize("apply_kind, out_name", [
    ("txt", "calibrated.txt"), ("h5", "calibrated.h5"), ("csv", "calibrated.csv")])
@pytest.mark.parametrize("dev_kind", ["txt", "h5"])
def test_calibrate_writes_the_api_result_in_the_apply_format(
        files, tmp_path, dev_kind, apply_kind, out_name, method):
    dev_files = files[f"dev_{dev_kind}"]
    apply_path = files[f"eval_{apply_kind}"]
    out = tmp_path / out_name
    code, stdout, err = _run(["calibrate", "--dev", *dev_files, "--apply", apply_path,
                              "--method", method, "--out", out])
    assert code == 0, err
    assert err == ""
    model = tmp_path / "calibrated.calibration.json"  # the default name
    assert out.exists() and model.exists()
    assert f"wrote 750 calibrated scores to {out}" in stdout
    assert f"wrote the model to {model}" in stdout

    cal = fit_calibrator(load_trials(*dev_files), method=method, prior=0.5)
    want, in_fmt = _api_calibrated(cal, apply_path)
    got, out_fmt = read_score_file(out)
    assert out_fmt == in_fmt
    assert type(got) is type(want)
    assert np.array_equal(got.scores, want.scores)  # bit for bit
    assert np.array_equal(got.model_ids, want.model_ids)
    assert np.array_equal(got.segment_ids, want.segment_ids)
    assert not np.array_equal(got.scores, read_score_file(apply_path)[0].scores)

    if apply_kind == "h5":
        assert out.read_bytes()[:8] == b"\x89HDF\r\n\x1a\n"
    else:
        in_lines = apply_path.read_text().splitlines()
        out_lines = out.read_text().splitlines()
        assert len(out_lines) == len(in_lines)
        if apply_kind == "csv":  # same header, same columns; only the scores change
            assert out_lines[0] == in_lines[0] == "model,segment,score,label"
            rows_in = [line.split(",") for line in in_lines[1:]]
            rows_out = [line.split(",") for line in out_lines[1:]]
            assert [(r[0], r[1], r[3]) for r in rows_out] == [(r[0], r[1], r[3])
                                                               for r in rows_in]
            assert np.array_equal(got.labels, read_score_file(apply_path)[0].labels)
        else:  # BOSARIS text: same ids in the same order
            assert [ln.split()[:2] for ln in out_lines] == [ln.split()[:2] for ln in in_lines]
            assert [float(ln.split()[2]) for ln in out_lines] == want.scores.tolist()

    d = json.loads(model.read_text())
    assert d == cal.to_dict()
    assert load_calibrator(model).to_dict() == cal.to_dict()


def test_calibrate_prior_and_model_path(files, tmp_path, method="affine"):
    dev_files = files["dev_txt"]
    out, model = tmp_path / "o.txt", tmp_path / "sub_model.json"
    code, _, err = _run(["calibrate", "--dev", *dev_files, "--apply", files["eval_txt"],
                         "--method", method, "--prior", "0.1", "--out", out,
                         "--model", model])
    assert code == 0, err
    assert not (tmp_path / "o.calibration.json").exists()
    cal = fit_calibrator(load_trials(*dev_files), method=method, prior=0.1)
    loaded = load_calibrator(model)
    assert loaded.to_dict() == cal.to_dict()
    assert np.array_equal(read_score_file(out)[0].scores,
                          _api_calibrated(cal, files["eval_txt"])[0].scores)
    default = fit_calibrator(load_trials(*dev_files), method=method, prior=0.5)
    assert loaded.to_dict()["params"]["prior"] == 0.1
    assert loaded.prior == 0.1
    assert loaded.scale != default.scale  # the prior changed the fit


def test_calibrate_refuses_a_prior_for_pav(files, tmp_path):
    """PAV does not depend on a prior: --prior would be silently ignored, so it is refused
    before anything is read or written."""
    out = tmp_path / "o.txt"
    code, _, err = _run(["calibrate", "--dev", *files["dev_txt"], "--method", "pav",
                         "--prior", "0.1", "--out", out])
    assert code == 2 and not out.exists()
    assert err.count("\n") == 1 and "--prior has no effect with --method pav" in err


# ---------------------------------------------------------- 2. calibrate without --apply


@pytest.mark.parametrize("kind", ["txt", "h5"])
def test_calibrate_without_apply_calibrates_the_dev_scores(files, tmp_path, kind):
    dev_files = files[f"dev_{kind}"]
    out = tmp_path / f"self.{kind}"
    code, stdout, err = _run(["calibrate", "--dev", *dev_files, "--out", out])
    assert code == 0, err
    assert f"applied to {dev_files[0]}" in stdout
    cal = fit_calibrator(load_trials(*dev_files))
    want, fmt = _api_calibrated(cal, dev_files[0])
    got, out_fmt = read_score_file(out)
    assert out_fmt == fmt
    assert np.array_equal(got.scores, want.scores)
    assert np.array_equal(got.segment_ids, want.segment_ids)
    assert load_calibrator(tmp_path / "self.calibration.json").to_dict() == cal.to_dict()


def test_calibrate_one_labelled_dev_file_without_apply(tmp_path):
    t = gaussian_trials(100, 400, seed=3, scale=0.5, shift=2.0)
    dev = tmp_path / "dev.txt"
    write_trials(dev, t)
    out = tmp_path / "self.txt"
    code, _, err = _run(["calibrate", "--dev", dev, "--out", out, "--method", "pav"])
    assert code == 0, err
    cal = fit_calibrator(load_trials(dev), method="pav")
    got, fmt = read_score_file(out)
    assert fmt == read_score_file(dev)[1]
    assert np.array_equal(got.scores, cal(load_trials(dev)).scores)
    assert np.array_equal(got.labels, t.labels)
    assert out.read_text().splitlines()[0] == dev.read_text().splitlines()[0]  # the header


@pytest.mark.parametrize("command", ["calibrate", "fuse"])
def test_a_labelled_dev_file_without_apply_is_parsed_once(tmp_path, monkeypatch, command):
    import llrlab.core.io.labelled as labelled

    calls = []
    real = labelled.read_labelled

    def counting(path, *a, **kw):
        calls.append(str(path))
        return real(path, *a, **kw)

    monkeypatch.setattr(labelled, "read_labelled", counting)  # every load reads it from here
    dev = tmp_path / "dev.txt"
    write_trials(dev, gaussian_trials(100, 400, seed=3, scale=0.5, shift=2.0))
    code, _, err = _run([command, "--dev", dev, "--out", tmp_path / "self.txt"])
    assert code == 0, err
    assert calls == [str(dev)]


# --------------------------------------------------------------------------- 3. fuse


@pytest.fixture
def systems(tmp_path):
    """Two correlated systems: dev A, B + one key; eval A (500 trials), eval B (7 fewer)."""
    rng = np.random.default_rng(5)

    def pair(n_tar, n_non, seed, prefix):
        base = gaussian_trials(n_tar, n_non, seed=seed, output="score")
        b = Trials(0.7 * base.scores + rng.normal(size=len(base)) - 0.5, base.labels)
        return _with_ids(base, prefix, seed), _with_ids(b, prefix, seed)

    dev_a, dev_b = pair(200, 800, 1, "d")
    ev_a, ev_b = pair(100, 400, 2, "e")
    f = {k: tmp_path / f"{k}.txt" for k in ("dev_a", "dev_b", "key", "ev_a", "ev_b",
                                            "ev_b_full")}
    write_scores(f["dev_a"], dev_a)
    write_scores(f["dev_b"], dev_b)
    write_key(f["key"], dev_a)
    write_scores(f["ev_a"], ev_a)
    write_scores(f["ev_b_full"], ev_b)
    write_scores(f["ev_b"], ev_b.subset(np.arange(len(ev_b) - 7)))
    return f


def _api_fusion(f, prior, names):
    dev = [load_trials(f["dev_a"], f["key"]), load_trials(f["dev_b"], f["key"])]
    return FusionCalibrator.fit(dev, prior=prior, names=names)


def test_fuse_two_systems_equals_the_api(systems, tmp_path):
    f = systems
    out = tmp_path / "fused.txt"
    code, stdout, err = _run(["fuse", "--dev", f["dev_a"], f["dev_b"], "--key", f["key"],
                              "--apply", f["ev_a"], f["ev_b_full"], "--names", "a", "b",
                              "--prior", "0.3", "--out", out])
    assert code == 0, err
    assert err == ""
    assert "linear fusion of 2 systems" in stdout and "[a]" in stdout and "[b]" in stdout
    cal = _api_fusion(f, 0.3, ["a", "b"])
    want = cal.apply_systems([read_score_file(f["ev_a"])[0],
                              read_score_file(f["ev_b_full"])[0]])
    got, fmt = read_score_file(out)
    assert fmt == read_score_file(f["ev_a"])[1]
    assert len(got) == 500
    assert np.array_equal(got.scores, want.scores)
    assert np.array_equal(got.segment_ids, want.segment_ids)
    model = load_calibrator(tmp_path / "fused.calibration.json")
    assert model.to_dict() == cal.to_dict()
    assert model.systems == ("a", "b") and model.prior == 0.3


def test_fuse_keeps_only_the_common_trials_with_one_warning(systems, tmp_path):
    f = systems
    out = tmp_path / "fused.txt"
    code, stdout, err = _run(["fuse", "--dev", f["dev_a"], f["dev_b"], "--key", f["key"],
                              "--apply", f["ev_a"], f["ev_b"], "--names", "a", "b",
                              "--out", out])
    assert code == 0, err
    lines = err.splitlines()
    assert len(lines) == 1 and "warning:" in lines[0], err
    assert "7 of the 500" in lines[0] and str(f["ev_a"]) in lines[0]
    assert "wrote 493 fused scores" in stdout
    cal = _api_fusion(f, 0.5, ["a", "b"])
    ev_a, ev_b = read_score_file(f["ev_a"])[0], read_score_file(f["ev_b"])[0]
    with pytest.warns(LlrlabWarning, match="7 of the 500"):
        want = cal.apply_systems([ev_a, ev_b])
    got = read_score_file(out)[0]
    assert len(got) == 493
    assert set(got.keys().tolist()) == set(ev_a.keys().tolist()) & set(ev_b.keys().tolist())
    assert np.array_equal(got.segment_ids, want.segment_ids)
    assert np.array_equal(got.scores, want.scores)


def test_fuse_apply_count_mismatch_exits_2(systems, tmp_path):
    f = systems
    before = _snapshot(tmp_path)
    code, out, err = _run(["fuse", "--dev", f["dev_a"], f["dev_b"], "--key", f["key"],
                           "--apply", f["ev_a"], "--out", tmp_path / "fused.txt"])
    _one_error_line(code, out, err, "--apply", "2 dev files", "1 --apply")
    assert _snapshot(tmp_path) == before


def test_fuse_names_count_mismatch_exits_2(systems, tmp_path):
    f = systems
    code, out, err = _run(["fuse", "--dev", f["dev_a"], f["dev_b"], "--key", f["key"],
                           "--names", "a", "b", "c", "--out", tmp_path / "fused.txt"])
    _one_error_line(code, out, err, "--names")
    assert not (tmp_path / "fused.txt").exists()


# -------------------------------------------------------------------------- 4. apply


@pytest.mark.parametrize("method, kind", [("affine", "txt"), ("pav", "csv"),
                                          ("affine", "h5")])
def test_apply_reproduces_calibrate(files, tmp_path, method, kind):
    first, again = tmp_path / f"first.{kind}", tmp_path / f"again.{kind}"
    code, _, err = _run(["calibrate", "--dev", *files["dev_txt"], "--apply",
                         files[f"eval_{kind}"], "--method", method, "--out", first])
    assert code == 0, err
    model = tmp_path / "first.calibration.json"
    code, stdout, err = _run(["apply", model, files[f"eval_{kind}"], "--out", again])
    assert code == 0, err
    assert err == ""
    assert f"wrote 750 calibrated scores to {again}" in stdout
    if kind == "h5":
        a, b = read_score_file(first)[0], read_score_file(again)[0]
        assert np.array_equal(a.scores, b.scores)
        assert np.array_equal(a.model_ids, b.model_ids)
        assert np.array_equal(a.segment_ids, b.segment_ids)
    else:
        assert again.read_bytes() == first.read_bytes()


def test_apply_reproduces_fuse(systems, tmp_path):
    f = systems
    first, again = tmp_path / "first.txt", tmp_path / "again.txt"
    argv = ["fuse", "--dev", f["dev_a"], f["dev_b"], "--key", f["key"], "--apply",
            f["ev_a"], f["ev_b_full"], "--names", "a", "b", "--out", first]
    assert _run(argv)[0] == 0
    code, _, err = _run(["apply", tmp_path / "first.calibration.json", f["ev_a"],
                         f["ev_b_full"], "--out", again])
    assert code == 0, err
    assert again.read_bytes() == first.read_bytes()


def test_apply_wrong_number_of_files_exits_2(systems, files, tmp_path):
    f = systems
    assert _run(["fuse", "--dev", f["dev_a"], f["dev_b"], "--key", f["key"], "--names",
                 "a", "b", "--model", tmp_path / "fusion.json"])[0] == 0
    assert _run(["calibrate", "--dev", *files["dev_txt"], "--model",
                 tmp_path / "affine.json"])[0] == 0
    before = _snapshot(tmp_path)
    code, out, err = _run(["apply", tmp_path / "fusion.json", f["ev_a"],
                           "--out", tmp_path / "x.txt"])
    _one_error_line(code, out, err, "fusion.json", "fusion of 2 systems (a, b)",
                    "give 2 score file(s), got 1")
    code, out, err = _run(["apply", tmp_path / "affine.json", f["ev_a"], f["ev_b"],
                           "--out", tmp_path / "x.txt"])
    _one_error_line(code, out, err, "affine.json", "is an affine calibration of one system",
                    "give 1 score file(s), got 2")
    assert _snapshot(tmp_path) == before


# ---------------------------------------------------------------------- 5. eval --model


def _table_row(out, label):
    for line in out.splitlines():
        if line.startswith(label):
            return [float(v) for v in line[len(label):].split()]
    raise AssertionError(f"no row {label!r} in\n{out}")


@pytest.mark.parametrize("method", ["affine", "pav"])
def test_eval_with_a_saved_model(files, tmp_path, method):
    model = tmp_path / "m.json"
    assert _run(["calibrate", "--dev", *files["dev_txt"], "--method", method,
                 "--model", model])[0] == 0
    trials = load_trials(files["eval_txt"], files["eval_key"])
    cal = fit_calibrator(load_trials(*files["dev_txt"]), method=method)
    raw_cllr, cal_cllr = cllr(trials), cllr(cal(trials))
    assert cal_cllr < raw_cllr

    code, out, err = _run(["eval", files["eval_txt"], files["eval_key"], "--model", model])
    assert code == 0, err
    assert any(line.split() == ["raw", "calibrated"] for line in out.splitlines()), out
    raw, after = _table_row(out, "Cllr [bits]")
    assert raw == pytest.approx(raw_cllr, rel=1e-5)
    assert after == pytest.approx(cal_cllr, rel=1e-5)
    assert f"the calibration in {model}" in out

    code, out, err = _run(["eval", files["eval_txt"], files["eval_key"], "--model", model,
                           "--json"])
    assert code == 0, err
    d = json.loads(out)
    assert set(d) == {"raw", "calibrated", "calibration"}
    assert d["raw"]["cllr"] == pytest.approx(raw_cllr, rel=1e-12)
    assert d["calibrated"]["cllr"] == pytest.approx(cal_cllr, rel=1e-12)
    assert d["calibration"] == cal.report()


def test_eval_refuses_a_fusion_model(systems, tmp_path):
    f = systems
    model = tmp_path / "fusion.json"
    assert _run(["fuse", "--dev", f["dev_a"], f["dev_b"], "--key", f["key"],
                 "--model", model])[0] == 0
    code, out, err = _run(["eval", f["dev_a"], f["key"], "--model", model])
    _one_error_line(code, out, err, "fusion.json", "fusion of 2 systems")


# --------------------------------------------------------------------------- 6. --json


def test_calibrate_json_report(files, tmp_path):
    out = tmp_path / "cal.h5"
    code, stdout, err = _run(["calibrate", "--dev", *files["dev_h5"], "--apply",
                              files["eval_h5"], "--prior", "0.2", "--out", out, "--json"])
    assert code == 0, err
    assert err == ""
    d = json.loads(stdout)
    assert {"calibration", "n_scores", "outside_dev_range", "out", "model"} <= set(d)
    cal = fit_calibrator(load_trials(*files["dev_h5"]), prior=0.2)
    rep = d["calibration"]
    assert rep == cal.report()
    assert all(not isinstance(v, dict) for v in rep.values())  # flat
    assert rep["method"] == "affine" and rep["prior"] == 0.2
    assert {"scale", "offset", "train_cllr_before", "train_cllr_after",
            "train_min_cllr"} <= set(rep)
    assert rep["train_cllr_before"] == cllr(load_trials(*files["dev_h5"]))
    assert rep["train_min_cllr"] <= rep["train_cllr_after"] < rep["train_cllr_before"]
    assert d["n_scores"] == 750
    dev_scores = load_trials(*files["dev_h5"]).scores
    ev = read_score_file(files["eval_h5"])[0].scores
    n_out = int(np.sum((ev < dev_scores.min()) | (ev > dev_scores.max())))
    assert n_out > 0
    assert d["outside_dev_range"] == [n_out]
    assert d["out"] == str(out)
    assert d["model"] == str(tmp_path / "cal.calibration.json")


def test_fuse_json_report(systems, tmp_path):
    f = systems
    out = tmp_path / "fused.txt"
    code, stdout, err = _run(["fuse", "--dev", f["dev_a"], f["dev_b"], "--key", f["key"],
                              "--apply", f["ev_a"], f["ev_b_full"], "--names", "a", "b",
                              "--out", out, "--model", tmp_path / "f.json", "--json"])
    assert code == 0, err
    d = json.loads(stdout)
    cal = _api_fusion(f, 0.5, ["a", "b"])
    assert d["calibration"] == cal.report()
    assert d["calibration"]["method"] == "fusion"
    assert d["calibration"]["systems"] == ["a", "b"]
    assert len(d["calibration"]["weights"]) == 2
    assert len(d["calibration"]["train_cllr_before"]) == 2
    assert d["n_scores"] == 500
    assert len(d["outside_dev_range"]) == 2
    assert all(isinstance(n, int) and n >= 0 for n in d["outside_dev_range"])
    assert d["out"] == str(out) and d["model"] == str(tmp_path / "f.json")


# ----------------------------------------------------------------------- 7. bad input


def _good_model(tmp_path, files):
    model = tmp_path / "good.json"
    assert _run(["calibrate", "--dev", *files["dev_txt"], "--model", model])[0] == 0
    return model


def _bad_model(tmp_path, files, change):
    d = json.loads(_good_model(tmp_path, files).read_text())
    bad = tmp_path / "bad.json"
    if change == "not json":
        bad.write_text("this is not JSON\n")
    elif change == "missing field":
        del d["params"]["offset"]
        bad.write_text(json.dumps(d))
    else:
        d["llrlab_calibrator"] = 99
        bad.write_text(json.dumps(d))
    return bad


BAD = {
    "NaN dev score": lambda f, t: (
        ["calibrate", "--dev", _nan_scores(f, t), f["dev_txt"][1], "--apply", f["eval_txt"],
         "--out", t / "o.txt"],
        ["nan_scores.txt", "line 5", "NaN"]),
    "no non-targets": lambda f, t: (
        ["calibrate", "--dev", f["dev_txt"][0], _all_target_key(f, t), "--out", t / "o.txt"],
        ["all_target_key.txt", "no non-target"]),
    "txt out for HDF5": lambda f, t: (
        ["calibrate", "--dev", *f["dev_txt"], "--apply", f["eval_h5"], "--out", t / "x.txt"],
        ["x.txt", "HDF5", ".h5 name"]),
    "HDF5 out for txt": lambda f, t: (
        ["calibrate", "--dev", *f["dev_txt"], "--apply", f["eval_txt"], "--out", t / "x.h5"],
        ["x.h5", "text", ".txt name"]),
    "out is the apply file": lambda f, t: (
        ["calibrate", "--dev", *f["dev_txt"], "--apply", f["eval_txt"], "--out",
         f["eval_txt"]],
        ["eval_scores.txt", "overwrite"]),
    "out is the dev key": lambda f, t: (
        ["calibrate", "--dev", *f["dev_h5"], "--apply", f["eval_h5"], "--out",
         f["dev_h5"][1]],
        ["dev_key.h5", "overwrite"]),
    "out is the dev scores": lambda f, t: (
        ["calibrate", "--dev", *f["dev_txt"], "--out", f["dev_txt"][0]],
        ["dev_scores.txt", "overwrite"]),
    "model is the out file": lambda f, t: (
        ["calibrate", "--dev", *f["dev_txt"], "--out", t / "same.json", "--model",
         t / "same.json"],
        ["same.json", "overwrite"]),
    "model not json": lambda f, t: (
        ["calibrate", "--dev", *f["dev_txt"], "--out", t / "o.txt", "--model", t / "out.txt"],
        ["out.txt", "JSON", ".json"]),
    "nothing to write": lambda f, t: (
        ["calibrate", "--dev", *f["dev_txt"], "--apply", f["eval_txt"]],
        ["--out"]),
    "missing apply file": lambda f, t: (
        ["calibrate", "--dev", *f["dev_txt"], "--apply", t / "nope.txt", "--out", t / "o.txt"],
        ["nope.txt", "not found"]),
    "missing dev key": lambda f, t: (
        ["calibrate", "--dev", f["dev_txt"][0], t / "nokey.txt", "--out", t / "o.txt"],
        ["nokey.txt", "not found"]),
    "model not JSON": lambda f, t: (
        ["apply", _bad_model(t, f, "not json"), f["eval_txt"], "--out", t / "o.txt"],
        ["bad.json", "line 1", "not valid JSON"]),
    "model missing a field": lambda f, t: (
        ["apply", _bad_model(t, f, "missing field"), f["eval_txt"], "--out", t / "o.txt"],
        ["bad.json", "not a valid calibration model", "'offset'"]),
    "model from the future": lambda f, t: (
        ["apply", _bad_model(t, f, "version"), f["eval_txt"], "--out", t / "o.txt"],
        ["bad.json", "format 99", "newer llrlab"]),
    "missing model": lambda f, t: (
        ["apply", t / "nomodel.json", f["eval_txt"], "--out", t / "o.txt"],
        ["nomodel.json", "not found"]),
    "apply out is the model": lambda f, t: (
        ["apply", _good_model(t, f), f["eval_txt"], "--out", t / "good.json"],
        ["good.json", "overwrite"]),
}


def _nan_scores(f, t):
    lines = f["dev_txt"][0].read_text().splitlines(keepends=True)
    m, s, _ = lines[4].split()
    lines[4] = f"{m} {s} nan\n"
    p = t / "nan_scores.txt"
    p.write_text("".join(lines))
    return p


def _all_target_key(f, t):
    p = t / "all_target_key.txt"
    p.write_text("".join(" ".join(line.split()[:2]) + " target\n"
                         for line in f["dev_txt"][1].read_text().splitlines()))
    return p


@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_exit_2_one_line_nothing_written(files, tmp_path, case):
    argv, needles = BAD[case](files, tmp_path)
    before = _snapshot(tmp_path)
    code, out, err = _run(argv)
    _one_error_line(code, out, err, *needles)
    assert _snapshot(tmp_path) == before  # inputs byte-identical, no output, no partial file


# ------------------------------------------------------------------ 8. atomic writing


def _failing_after(real, path_arg=0):
    """``real`` that writes its file completely, then fails (like a full disk at close)."""
    def fail(*args, **kwargs):
        real(*args, **kwargs)
        path = os.fspath(args[path_arg])
        # a temporary file: unnamed (through /proc) for text, a hidden name for HDF5
        assert ".partial-" in path or path.startswith("/proc/self/fd/")
        assert os.path.exists(path)
        raise FileFormatError(path, "cannot be written (No space left on device)")
    return fail


@pytest.mark.parametrize("kind", ["txt", "h5"])
def test_failed_score_write_leaves_old_outputs_and_no_partial_file(
        files, tmp_path, monkeypatch, kind):
    import llrlab.core.io as lio

    out, model = tmp_path / f"out.{kind}", tmp_path / "out.calibration.json"
    out.write_bytes(b"old scores")
    model.write_bytes(b"old model")
    before = _snapshot(tmp_path)
    monkeypatch.setattr(lio, "write_score_file", _failing_after(lio.write_score_file))
    code, stdout, err = _run(["calibrate", "--dev", *files["dev_txt"], "--apply",
                              files[f"eval_{kind}"], "--out", out])
    _one_error_line(code, stdout, err, str(out), "No space left on device")
    # the message names the user's file, not the temporary one
    assert ".partial-" not in err and "/proc/self" not in err
    assert _snapshot(tmp_path) == before
    assert not [p for p in os.listdir(tmp_path) if ".partial-" in p]


def test_failed_model_write_leaves_the_old_scores_too(files, tmp_path, monkeypatch):
    import llrlab.core.calibration as lcal

    out, model = tmp_path / "out.txt", tmp_path / "m.json"
    out.write_bytes(b"old scores")
    model.write_bytes(b"old model")
    before = _snapshot(tmp_path)
    monkeypatch.setattr(lcal, "save_calibrator", _failing_after(lcal.save_calibrator, 1))
    code, stdout, err = _run(["calibrate", "--dev", *files["dev_txt"], "--out", out,
                              "--model", model])
    _one_error_line(code, stdout, err, str(model), "No space left on device")
    assert _snapshot(tmp_path) == before
    assert not [p for p in os.listdir(tmp_path) if ".partial-" in p]


def test_failed_rename_names_the_output(files, tmp_path):
    out = tmp_path / "taken.txt"
    out.mkdir()  # a directory cannot be replaced by the written file
    code, stdout, err = _run(["calibrate", "--dev", *files["dev_txt"], "--out", out])
    _one_error_line(code, stdout, err, str(out), "is a directory, not a regular file")
    assert ".partial-" not in err
    assert not [p for p in os.listdir(tmp_path) if ".partial-" in p]
    assert not (tmp_path / "taken.calibration.json").exists()


def test_unwritable_output_folder(files, tmp_path):
    out = tmp_path / "no_such_dir" / "o.h5"
    code, stdout, err = _run(["calibrate", "--dev", *files["dev_h5"], "--out", out])
    _one_error_line(code, stdout, err, str(out))
    assert ".partial-" not in err


# ---------------------------------------------------------------- 9. separable dev data


@pytest.mark.parametrize("cmd", ["calibrate", "fuse"])
def test_separable_dev_data_warns_and_gives_finite_scores(tmp_path, cmd):
    rng = np.random.default_rng(7)
    tar, non = rng.uniform(1.0, 3.0, 50), rng.uniform(-3.0, 0.5, 200)
    dev = tmp_path / "dev.txt"
    write_trials(dev, Trials.from_tar_non(tar, non))
    ev = tmp_path / "eval.txt"
    write_trials(ev, Trials.from_tar_non(rng.normal(2, 3, 40), rng.normal(-1, 3, 80)))
    out = tmp_path / "out.txt"
    dev_args = [dev] if cmd == "calibrate" else [dev, dev]
    apply_args = [ev] if cmd == "calibrate" else [ev, ev]
    code, stdout, err = _run([cmd, "--dev", *dev_args, "--apply", *apply_args,
                              "--out", out, "--json"])
    assert code == 0, err
    warn = [line for line in err.splitlines() if "warning:" in line]
    assert any("separable" in line for line in warn), err
    assert all(line.startswith(f"llrlab {cmd}: warning:") for line in err.splitlines())
    d = json.loads(stdout)
    assert d["calibration"]["regularised"] is True
    assert any("separable" in n for n in d["calibration"]["notes"])
    got = read_score_file(out)[0]
    assert len(got) == 120 and np.all(np.isfinite(got.scores))
    # still a useful, increasing map: targets above non-targets on the separable dev set
    assert _run(["apply", tmp_path / "out.calibration.json", *dev_args,
                 "--out", tmp_path / "dev_cal.txt"])[0] == 0
    dev_cal = read_score_file(tmp_path / "dev_cal.txt")[0]
    assert dev_cal.tar.min() > dev_cal.non.max()
