"""Benchmark: loading and writing score files with llrlab.core.io, against pandas and h5py.

Every measurement runs in a fresh subprocess, which reports its wall time and its peak
resident memory above what it held just before the measured step (the kernel's high-water
mark ``VmHWM``, reset through ``/proc/self/clear_refs`` before the step; pandas is imported
before that baseline in every process, so that the peak counts the data, not a library's
import).  The cases are run
interleaved -- repeat 1 of every case, then repeat 2, ... -- so that the load of the other
processes on the machine falls on all of them alike; the table gives medians and the ratio of
the llrlab median to the reference median measured in the same run.

Cases (a full grid of ``n / 10^4`` models x 10^4 segments, 10 % targets, ids like
``spk00042`` / ``seg0001234.sph``, scores written in full precision, ~45 bytes a line):

========================  =====================================  ===============================
case                      llrlab                                 reference
========================  =====================================  ===============================
``text load``             ``load_trials(scores.txt, key.txt)``   pandas ``read_csv`` (C parser)
                                                                 of both + ``merge`` on
                                                                 (model, segment)
``text load, shuffled``   the same with the key lines shuffled   the same
``labelled load``         ``load_trials(labelled.txt)``          ``read_csv`` of the file
``tiny lines``            ``load_trials`` of ``5 n`` lines       ``read_csv`` of the file
                          ``"s l"`` (4 bytes each)
``HDF5 load``             ``load_trials(scores.h5, key.h5)``     raw h5py reads of the datasets
``write HDF5``            ``write_score_file(out.h5, ...)`` of   h5py writes of the same
                          calibrated scores read from HDF5       matrices and id lists
``write text``            ``write_score_file(out.txt, ...)``     pandas ``DataFrame.to_csv``
========================  =====================================  ===============================

``--before DIR`` also runs the llrlab side with the ``llrlab`` package found in ``DIR`` (e.g.
an older checkout: ``DIR/llrlab/core`` -> its ``core/``), so that before and after are
measured side by side in the same run.

Usage::

    python bench/bench_io.py [--n 1e7] [--repeats 3] [--cases text hdf5 write ...]
                             [--dir /tmp/llrlab-bench-io] [--before DIR]

The files are generated once in ``--dir`` (kept for the next run; at 10^7 trials about 2 GB).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

import numpy as np

N_SEG = 10_000
CASES = {
    "text": "text load",
    "shuffled": "text load, shuffled key",
    "labelled": "labelled load",
    "tiny": "tiny lines (labelled)",
    "hdf5": "HDF5 load",
    "write-hdf5": "write HDF5",
    "write-text": "write text",
}
REFERENCE = {
    "text": "pandas read_csv x2 + merge",
    "shuffled": "pandas read_csv x2 + merge",
    "labelled": "pandas read_csv",
    "tiny": "pandas read_csv",
    "hdf5": "raw h5py reads",
    "write-hdf5": "raw h5py writes",
    "write-text": "pandas to_csv",
}


# --------------------------------------------------------------------------------------------
# Files


def _grid(n):
    n_model = max(n // N_SEG, 1)
    n_seg = min(n, N_SEG)
    models = [f"spk{i:05d}" for i in range(n_model)]
    segs = [f"seg{j:07d}.sph" for j in range(n_seg)]
    return models, segs


def make_files(n, d):
    """Write the benchmark files for ``n`` trials into ``d`` (skipped if already there)."""
    stamp = os.path.join(d, f"done-{n}")
    f = paths(d)
    if os.path.exists(stamp):
        return f
    os.makedirs(d, exist_ok=True)
    import h5py

    rng = np.random.default_rng(0)
    models, segs = _grid(n)
    n_model, n_seg = len(models), len(segs)
    lab = rng.random((n_model, n_seg)) < 0.1
    x = rng.normal(size=(n_model, n_seg)) + 2.0 * lab
    word = np.array(["nontarget", "target"])
    perm = rng.permutation(n_model * n_seg)
    with open(f["scores"], "w") as fs, open(f["key"], "w") as fk, \
            open(f["labelled"], "w") as fl:
        for i, m in enumerate(models):
            xs = map(float.__repr__, x[i].tolist())
            ws = word[lab[i].astype(int)].tolist()
            rows = list(zip(segs, xs, ws, strict=True))
            fs.write("".join(f"{m} {s} {v}\n" for s, v, _ in rows))
            fk.write("".join(f"{m} {s} {w}\n" for s, _, w in rows))
            fl.write("".join(f"{m} {s} {v} {w}\n" for s, v, w in rows))
    with open(f["key"], "rb") as fk:
        lines = fk.read().splitlines(keepends=True)
    with open(f["key_shuffled"], "wb") as out:
        out.write(b"".join(lines[i] for i in perm.tolist()))
    del lines
    tiny = rng.integers(0, 10, 5 * n)
    tl = rng.random(5 * n) < 0.1
    with open(f["tiny"], "wb") as out:
        for lo in range(0, tiny.size, 1 << 20):
            a = tiny[lo:lo + (1 << 20)].astype(np.uint8) + ord("0")
            b = tl[lo:lo + (1 << 20)].astype(np.uint8) + ord("0")
            buf = np.empty((a.size, 4), np.uint8)
            buf[:, 0], buf[:, 1], buf[:, 2], buf[:, 3] = a, ord(" "), b, ord("\n")
            out.write(buf.tobytes())
    row_ids = np.array([m.encode() for m in models])
    col_ids = np.array([s.encode() for s in segs])
    with h5py.File(f["scores_h5"], "w") as h:
        h["scores"] = x
        h["score_mask"] = np.ones((n_model, n_seg), np.uint8)
        h["ID/row_ids"] = row_ids
        h["ID/column_ids"] = col_ids
    with h5py.File(f["key_h5"], "w") as h:
        h["trial_mask"] = np.where(lab, 1, -1).astype(np.int8)
        h["file_format"] = np.bytes_(b"2.0")
        h["ID/row_ids"] = row_ids
        h["ID/column_ids"] = col_ids
    open(stamp, "w").close()
    return f


def paths(d):
    return {k: os.path.join(d, v) for k, v in {
        "scores": "scores.txt", "key": "key.txt", "key_shuffled": "key_shuffled.txt",
        "labelled": "labelled.txt", "tiny": "tiny.txt", "scores_h5": "scores.h5",
        "key_h5": "key.h5", "out_h5": "out.h5", "out_txt": "out.txt"}.items()}


def input_bytes(case, f):
    files = {"text": ("scores", "key"), "shuffled": ("scores", "key_shuffled"),
             "labelled": ("labelled",), "tiny": ("tiny",), "hdf5": ("scores_h5", "key_h5"),
             "write-hdf5": ("scores_h5",), "write-text": ("scores",)}[case]
    return sum(os.path.getsize(f[k]) for k in files)


# --------------------------------------------------------------------------------------------
# One measurement (in a child process)


def _rss_kb(field):
    with open("/proc/self/status") as st:
        for line in st:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(field)


def _reset_peak():
    with open("/proc/self/clear_refs", "w") as cr:
        cr.write("5")


def _pandas_read(path, names, dtypes):
    import csv

    import pandas as pd

    return pd.read_csv(path, sep=r"\s+", header=None, names=names, dtype=dtypes,
                       quoting=csv.QUOTE_NONE, engine="c")


def child(case, impl, d):
    """Run one measurement; print ``{"seconds": ..., "peak_mb": ...}`` as JSON."""
    import warnings

    import pandas  # noqa: F401 - imported before the baseline by every side alike

    warnings.simplefilter("ignore")
    f = paths(d)
    ids = {"model": object, "segment": object}
    setup, step = None, None
    if impl in ("llrlab", "before"):
        from llrlab.core.io import load_trials, read_score_file, write_score_file

        if case in ("text", "shuffled"):
            key = f["key"] if case == "text" else f["key_shuffled"]
            step = lambda: load_trials(f["scores"], key)  # noqa: E731
        elif case in ("labelled", "tiny"):
            step = lambda: load_trials(f[case])  # noqa: E731
        elif case == "hdf5":
            step = lambda: load_trials(f["scores_h5"], f["key_h5"])  # noqa: E731
        else:
            src, out = (("scores_h5", "out_h5") if case == "write-hdf5"
                        else ("scores", "out_txt"))

            def setup():
                data, fmt = read_score_file(f[src])
                return data.with_scores(0.5 * data.scores + 0.125), fmt

            step = lambda a: write_score_file(f[out], *a)  # noqa: E731
    else:
        import h5py

        if case in ("text", "shuffled"):
            key = f["key"] if case == "text" else f["key_shuffled"]

            def step():
                s = _pandas_read(f["scores"], ["model", "segment", "score"],
                                 {**ids, "score": np.float64})
                k = _pandas_read(key, ["model", "segment", "label"], {**ids, "label": object})
                return s.merge(k, on=["model", "segment"])
        elif case == "labelled":
            step = lambda: _pandas_read(  # noqa: E731
                f["labelled"], ["model", "segment", "score", "label"],
                {**ids, "score": np.float64, "label": object})
        elif case == "tiny":
            step = lambda: _pandas_read(f["tiny"], ["score", "label"],  # noqa: E731
                                        {"score": np.float64, "label": object})
        elif case == "hdf5":
            def step():
                out = []
                for name in ("scores_h5", "key_h5"):
                    with h5py.File(f[name], "r") as h:
                        for ds in ("scores", "score_mask", "trial_mask", "ID/row_ids",
                                   "ID/column_ids"):
                            if ds in h:
                                out.append(h[ds][()])
                return out
        elif case == "write-hdf5":
            def setup():
                with h5py.File(f["scores_h5"], "r") as h:
                    return {k: h[k][()] for k in ("scores", "score_mask", "ID/row_ids",
                                                  "ID/column_ids")}

            def step(a):
                with h5py.File(f["out_h5"], "w") as h:
                    h["scores"] = 0.5 * a["scores"] + 0.125
                    for k in ("score_mask", "ID/row_ids", "ID/column_ids"):
                        h[k] = a[k]
        else:
            def setup():
                s = _pandas_read(f["scores"], ["model", "segment", "score"],
                                 {**ids, "score": np.float64})
                s["score"] = 0.5 * s["score"] + 0.125
                return s

            step = lambda s: s.to_csv(f["out_txt"], sep=" ", header=False,  # noqa: E731
                                      index=False)
    arg = setup() if setup is not None else None
    import gc

    gc.collect()
    before = _rss_kb("VmRSS")
    _reset_peak()
    t = time.perf_counter()
    result = step(arg) if setup is not None else step()
    seconds = time.perf_counter() - t
    peak = _rss_kb("VmHWM")
    del result
    print(json.dumps({"seconds": seconds, "peak_mb": (peak - before) / 1024}))


# --------------------------------------------------------------------------------------------
# The driver


def measure(case, impl, d, before_dir):
    env = dict(os.environ)
    if impl == "before":
        env["PYTHONPATH"] = before_dir + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, os.path.abspath(__file__), "--child", case, impl, "--dir", d]
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"{case} {impl} failed:\n{out.stderr}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=1e7, help="trials (default 1e7)")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--cases", nargs="+", choices=list(CASES), default=list(CASES))
    ap.add_argument("--dir", default=None, help="where the files go (default: a directory "
                                                "in the temporary directory, kept)")
    ap.add_argument("--before", default=None, metavar="DIR",
                    help="also time the llrlab package found in DIR (an older version)")
    ap.add_argument("--child", nargs=2, metavar=("CASE", "IMPL"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    n = int(args.n)
    import tempfile

    d = args.dir or os.path.join(tempfile.gettempdir(), f"llrlab-bench-io-{n}")
    if args.child:
        child(*args.child, d)
        return
    f = make_files(n, d)
    impls = ["reference", "llrlab"] + (["before"] if args.before else [])
    runs = {(c, i): [] for c in args.cases for i in impls}
    for _ in range(args.repeats):
        for c in args.cases:
            for i in impls:
                runs[c, i].append(measure(c, i, d, args.before))
    print(f"n = {n:,} trials, {args.repeats} interleaved repeats, medians; peak = extra "
          f"resident memory during the step, as a multiple of the input file bytes")
    head = (f"{'case':26s} {'reference':27s} {'ref s':>7s} {'ref peak':>8s} "
            + "".join(f"{i + ' s':>10s} {i[:6] + ' x ref':>12s} {i[:6] + ' peak':>11s}"
                      for i in impls[1:]))
    print(head)
    for c in args.cases:
        size = input_bytes(c, f)
        ref_t = statistics.median(r["seconds"] for r in runs[c, "reference"])
        ref_m = statistics.median(r["peak_mb"] for r in runs[c, "reference"]) * 2**20 / size
        row = f"{CASES[c]:26s} {REFERENCE[c]:27s} {ref_t:7.3f} {ref_m:7.2f}x "
        for i in impls[1:]:
            t = statistics.median(r["seconds"] for r in runs[c, i])
            m = statistics.median(r["peak_mb"] for r in runs[c, i]) * 2**20 / size
            row += f"{t:10.3f} {t / ref_t:11.2f}x {m:10.2f}x"
        print(row)


if __name__ == "__main__":
    main()
