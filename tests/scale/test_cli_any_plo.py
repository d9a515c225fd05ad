"""``llrlab eval --dask`` prints the JSON of ``llrlab eval`` at any operating point: the
installed console script on a Parquet file, against ``llrlab eval`` of the same trials in a
labelled text file (with trials of weight 0 too)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

LLRLAB = Path(sys.executable).parent / "llrlab"
POINTS = {
    "p0.01": ("--p-target", "0.01"),
    "p0.001": ("--p-target", "0.001"),
    "p0.05": ("--p-target", "0.05"),
    "p0.01-cmiss10": ("--p-target", "0.01", "--c-miss", "10", "--c-fa", "1"),
}


def near_thresholds(scores, rng, per_point=40):
    """``scores`` with some of them moved to within 1e-3 of the Bayes threshold of each
    operating point of :data:`POINTS` (where rounding the prior log-odds to a grid would
    move the threshold past them)."""
    from llrlab.core.operating_point import plo_from_costs

    s = scores.copy()
    pick = rng.choice(s.size, per_point * len(POINTS), replace=False).reshape(len(POINTS), -1)
    for rows, point in zip(pick, POINTS.values(), strict=True):
        opts = dict(zip(point[::2], map(float, point[1::2]), strict=True))
        t = -float(plo_from_costs(opts["--p-target"], opts.get("--c-miss", 1.0),
                                  opts.get("--c-fa", 1.0)))
        s[rows] = t + rng.uniform(-1e-3, 1e-3, rows.size)
    return s


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Continuous LLR-like scores (no two equal), some of them near the thresholds of
    :data:`POINTS`: a prior log-odds moved by a rounding moves the threshold past scores,
    so any approximation changes the counts."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    d = tmp_path_factory.mktemp("cli")
    rng = np.random.default_rng(17)
    lab = rng.random(30_000) < 0.1
    x = rng.normal(0.0, 1.0, lab.size) + 2.5 * lab
    s = near_thresholds(2.5 * x - 3.125, rng)  # the LLR of N(2.5, 1) against N(0, 1)
    pq.write_table(pa.table({"score": s, "label": lab}), d / "s.parquet",
                   row_group_size=4_000)
    text = "".join(f"{v!r} {'target' if t else 'nontarget'}\n"
                   for v, t in zip(s.tolist(), lab.tolist(), strict=True))
    (d / "s.txt").write_text(text)
    return d / "s.parquet", d / "s.txt"


@pytest.fixture(scope="module")
def on_dask(files):
    """The JSON of ``llrlab eval --dask`` at each point (the commands run side by side)."""
    parquet, _ = files
    procs = {k: subprocess.Popen([str(LLRLAB), "eval", str(parquet), *p, "--dask", "--json",
                                  "--quiet"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True)
             for k, p in POINTS.items()}
    out = {}
    for k, proc in procs.items():
        stdout, stderr = proc.communicate(timeout=600)
        assert proc.returncode == 0, stderr
        out[k] = json.loads(stdout)
    return out


def _in_memory(*args):
    from llrlab.core.cli import run

    out, err = io.StringIO(), io.StringIO()
    assert run(["eval", *map(str, args), "--json", "--quiet"], out=out, err=err) == 0, \
        err.getvalue()
    return json.loads(out.getvalue())


@pytest.mark.parametrize("point", POINTS)
def test_eval_dask_json_equals_eval_json(files, on_dask, point):
    _, text = files
    mem, big = _in_memory(text, *POINTS[point]), dict(on_dask[point])
    assert set(big) == set(mem)
    # Cllr is summed per input partition on Dask (math.fsum of the partial sums): equal to
    # 1e-12 relative; every other number is computed from the same integer counts and the
    # same PAV blocks, and is equal to the last bit
    assert big.pop("cllr") == pytest.approx(mem.pop("cllr"), rel=1e-12, abs=0)
    assert big == mem


@pytest.fixture(scope="module")
def conditions_h5(tmp_path_factory):
    """BOSARIS HDF5 scores and key of continuous scores with three conditions."""
    from llrlab.core.io import write_key_hdf5, write_scores_hdf5

    from ._data import grid_trials

    d = tmp_path_factory.mktemp("cond")
    from llrlab.core import Trials

    t = grid_trials(40, 400, seed=9, conditions=True, decimals=None)
    t = Trials(near_thresholds(t.scores, np.random.default_rng(9)), t.labels,
               conditions=t.conditions, model_ids=t.model_ids, segment_ids=t.segment_ids)
    write_scores_hdf5(d / "scores.h5", t)
    write_key_hdf5(d / "key.h5", t)
    return d / "scores.h5", d / "key.h5"


@pytest.mark.parametrize("point", ["p0.01", "p0.01-cmiss10"])
def test_condition_weighted_eval_dask_json_equals_eval_json(conditions_h5, point):
    """Per-trial weights from condition weighting (van Leeuwen 2008): weighted counts are
    sums of the same weights in another order, equal to 1e-12 relative."""
    scores, key = conditions_h5
    args = (scores, key, *POINTS[point], "--condition-weights", "tel=2,mic=1,far=1")
    _same_json(args, args)


def _same_json(dask_args, memory_args):
    """``llrlab eval DASK_ARGS --dask --json`` (the console script) equals ``llrlab eval
    MEMORY_ARGS --json``: floats to 1e-12 relative (weighted counts are sums of the same
    weights in another order), everything else exactly."""
    mem = _in_memory(*memory_args)
    r = subprocess.run([str(LLRLAB), "eval", *map(str, dask_args), "--dask", "--json",
                        "--quiet"], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    big = json.loads(r.stdout)
    assert set(big) == set(mem)
    for k, v in mem.items():
        if isinstance(v, float):
            assert big[k] == pytest.approx(v, rel=1e-12, abs=0), k
        else:
            assert big[k] == v, k


@pytest.fixture(scope="module")
def zero_weight_files(tmp_path_factory):
    """Trials with per-trial weights of 0, as Parquet (``weight`` column) and as a labelled
    text file with a weight column: ``tied``, 3000 tied scores (one decimal), a third of
    the weights 0; ``edge``, a target of weight 0 between the non-target and the other
    target (more targets than non-targets: the minimum-DCF threshold at p_target 0.5 was
    that target of weight 0 in memory and the other target on Dask)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    from llrlab.core import Trials
    from llrlab.core.io import write_labelled

    d = tmp_path_factory.mktemp("zeros")
    rng = np.random.default_rng(23)
    lab = rng.random(3_000) < 0.1
    sets = {"tied": (np.round(rng.normal(0.0, 1.0, lab.size) * 2.0 + 4.0 * lab - 3.0, 1), lab,
                     rng.choice([0.0, 0.0, 0.5, 1.0, 2.0], lab.size)),
            "edge": (np.array([1.68859533, 1.30184271, -0.03936602]),
                     np.array([True, True, False]), np.array([1.0, 0.0, 1.0]))}
    out = {}
    for name, (s, lab, w) in sets.items():
        pq.write_table(pa.table({"score": s, "label": lab, "weight": w}),
                       d / f"{name}.parquet", row_group_size=700)
        write_labelled(d / f"{name}.txt", Trials(s, lab, weights=w))
        out[name] = d / f"{name}.parquet", d / f"{name}.txt"
    return out


def _text_report(*args):
    """The text report of ``llrlab eval`` (the installed console script) without its first
    line (the file names) and the line that says how it was computed."""
    r = subprocess.run([str(LLRLAB), "eval", *map(str, args), "--quiet"], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    return [line for line in r.stdout.splitlines()[1:] if not line.startswith("computed on")]


@pytest.mark.parametrize("name,point", [
    ("tied", ("--p-target", "0.05")),
    ("tied", ("--p-target", "0.01", "--c-miss", "10", "--c-fa", "1")),
    ("edge", ("--p-target", "0.5"))])
def test_eval_dask_with_trials_of_weight_zero_equals_eval(zero_weight_files, name, point):
    """Trials of weight 0 (docs/conventions.md): the JSON object, and the text report with
    its DR30 line (misses and false alarms at the minimum-DCF threshold), are those of
    ``llrlab eval``."""
    parquet, text = zero_weight_files[name]
    _same_json((parquet, *point), (text, *point))
    on_dask = _text_report(parquet, *point, "--dask")
    in_memory = _text_report(text, *point)
    assert on_dask == in_memory
    assert any(line.startswith("DR30:") for line in in_memory)
    if name == "edge":  # the target of weight 0 below the threshold is a miss
        assert "(1 misses, 0 false alarms at the minimum-DCF threshold)" in in_memory[-1]
