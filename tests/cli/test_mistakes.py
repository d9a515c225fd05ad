"""Common mistakes on the command line get one line that says what is wrong and what to do
(exit code 2), through the installed console script, before any file is written."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from llrlab.core.io import write_key, write_scores, write_trials

from .._time_scale import scaled
from ..dashboard.conftest import make_trials
from ._checks import one_line_error

LLRLAB = Path(sys.executable).parent / "llrlab"


def _llrlab(*args, cwd=None):
    r = subprocess.run([str(LLRLAB), *map(str, args)], capture_output=True, text=True,
                       timeout=scaled(300), cwd=cwd)
    return r.returncode, r.stdout, r.stderr


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    d = tmp_path_factory.mktemp("mistakes")
    for role, seed in (("dev", 1), ("eval", 2)):
        t = make_trials(2000, seed=seed, ids=True)
        write_scores(d / f"{role}.txt", t)
        write_key(d / f"{role}_key.txt", t)
        write_trials(d / f"{role}_labelled.txt", t)
    return d


@pytest.mark.parametrize("extra, needles", [
    (["--method", "pav"], ["--method has no effect without --calibrate-on"]),
    (["--prior", "0.1"], ["--prior has no effect without --calibrate-on"]),
    (["--seed", "3"], ["--seed has no effect without --bootstrap"]),
    (["--ci-method", "normal"], ["--ci-method has no effect without --ci"]),
    (["--by-speaker"], ["--by-speaker has no effect without --bootstrap"]),
])
def test_an_option_without_the_option_it_acts_with_is_refused(data, extra, needles):
    code, out, err = _llrlab("eval", data / "eval.txt", data / "eval_key.txt", *extra)
    one_line_error(code, err, *needles, "give")
    assert out == ""


def test_method_and_prior_with_a_saved_model_say_the_model_decides(data, tmp_path):
    model = tmp_path / "m.json"
    assert _llrlab("calibrate", "--dev", data / "dev.txt", data / "dev_key.txt",
                   "--model", model)[0] == 0
    code, _, err = _llrlab("eval", data / "eval.txt", data / "eval_key.txt", "--model", model,
                           "--method", "pav")
    one_line_error(code, err, "--method has no effect", "a saved --model already has")


def test_prior_with_pav_is_refused(data):
    code, _, err = _llrlab("eval", data / "eval.txt", data / "eval_key.txt",
                           "--calibrate-on", data / "dev.txt", data / "dev_key.txt",
                           "--method", "pav", "--prior", "0.2")
    one_line_error(code, err, "--prior has no effect with --method pav")


def test_calibrate_on_before_the_scores_is_understood(data):
    """``--calibrate-on DEV KEY`` written before ``SCORES KEY`` used to swallow them
    ("required: scores"); four names can only mean DEV KEY SCORES KEY."""
    before = _llrlab("eval", "--calibrate-on", data / "dev.txt", data / "dev_key.txt",
                     data / "eval.txt", data / "eval_key.txt", "--json")
    after = _llrlab("eval", data / "eval.txt", data / "eval_key.txt", "--calibrate-on",
                    data / "dev.txt", data / "dev_key.txt", "--json")
    assert before[0] == 0, before[2]
    assert before[1] == after[1]


def test_calibrate_on_swallowing_an_ambiguous_count_is_explained(data):
    code, _, err = _llrlab("eval", "--calibrate-on", data / "dev_labelled.txt",
                           data / "eval.txt", data / "eval_key.txt")
    one_line_error(code, err, "--calibrate-on takes DEV [KEY], got 3 files",
                    "it came before the scores", "llrlab eval SCORES [KEY] --calibrate-on")


def test_no_scores_at_all(data):
    code, _, err = _llrlab("eval")
    one_line_error(code, err, "give the scores to evaluate")


def test_calibrate_prior_with_pav_writes_nothing(data, tmp_path):
    out = tmp_path / "cal.txt"
    code, _, err = _llrlab("calibrate", "--dev", data / "dev.txt", data / "dev_key.txt",
                           "--method", "pav", "--prior", "0.3", "--out", out)
    one_line_error(code, err, "--prior has no effect with --method pav")
    assert not out.exists()


# ------------------------------------------------------------------ the files themselves
def test_key_given_first(data):
    code, _, err = _llrlab("eval", data / "eval_key.txt", data / "eval.txt")
    one_line_error(code, err, "eval_key.txt, line 1", "the two files look swapped",
                    "give the score file first, then the key")


def test_a_header_line_in_a_score_file(data, tmp_path):
    f = tmp_path / "with_header.txt"
    f.write_text("model segment score\n" + (data / "eval.txt").read_text())
    code, _, err = _llrlab("eval", f, data / "eval_key.txt")
    one_line_error(code, err, "with_header.txt, line 1", "looks like a header line",
                    "a BOSARIS score file has no header: delete that line")


def test_a_forgotten_key(data):
    code, _, err = _llrlab("eval", data / "eval.txt")
    one_line_error(code, err, "eval.txt", "give its key file too")


def test_a_key_given_with_a_labelled_file(data):
    code, _, err = _llrlab("eval", data / "eval_labelled.txt", data / "eval_key.txt")
    one_line_error(code, err, "eval_labelled.txt", "holds its own labels",
                    "give it alone, without a key file")


def test_compare_with_a_system_missing(data):
    code, _, err = _llrlab("compare", data / "eval.txt", data / "eval_key.txt")
    one_line_error(code, err, "needs SCORES_A SCORES_B KEY; got two files",
                    "eval_key.txt is a key file", "second system missing?")


def test_gzipped_files_and_standard_input_are_read(data, tmp_path):
    import gzip

    gz = tmp_path / "eval.txt.gz"
    gz.write_bytes(gzip.compress((data / "eval.txt").read_bytes()))
    plain = _llrlab("eval", data / "eval.txt", data / "eval_key.txt", "--json")
    assert plain[0] == 0, plain[2]
    assert _llrlab("eval", gz, data / "eval_key.txt", "--json")[1] == plain[1]
    with open(gz, "rb") as f:
        r = subprocess.run([str(LLRLAB), "eval", "-", str(data / "eval_key.txt"), "--json"],
                           stdin=f, capture_output=True, text=True,
                           timeout=scaled(300))
    assert r.returncode == 0 and r.stdout == plain[1]


def test_dask_written_before_the_files_takes_no_file_as_its_scheduler(data):
    """``--dask [SCHEDULER]`` before ``SCORES KEY`` used to take SCORES as a scheduler
    address ("missing port number")."""
    pytest.importorskip("dask", reason="the scale extra is not installed")
    from llrlab.core.io import load_trials, write_scores

    h5, key = data / "eval.h5", data / "eval_key.h5"
    t = load_trials(data / "eval.txt", data / "eval_key.txt")
    write_scores(h5, t)
    write_key(key, t)
    before = _llrlab("eval", "--dask", h5, key, "--json")
    plain = _llrlab("eval", h5, key, "--json")
    assert before[0] == 0, before[2]
    assert before[1] == plain[1]
    # text files are read in memory: --dask says so
    code, _, err = _llrlab("eval", "--dask", data / "eval.txt", data / "eval_key.txt")
    one_line_error(code, err, "eval.txt is neither a Parquet nor an HDF5 file",
                    "text files are read in memory, without --dask")
