"""Benchmark: loading score/key files with llrlab.core.io at 10^5 and 10^6 trials.

Synthetic trial lists (a full grid of models x segments, 10 % targets, ids like
``spk00042`` / ``seg000123.sph``) with scores written in full precision (shortest round-trip
``repr``, ~18 characters: the slowest case for float parsing).  Cases:

* ``text score+key (same order)``: BOSARIS text score file and key, key lines in the same order
  as the score lines (typical when both come from one trial list);
* ``text score+key (shuffled)``: the key lines in random order (worst case of the join);
* ``labelled file``: one ``model segment score label`` file;
* ``load_scores text``: the score file alone, unlabelled;
* ``HDF5 score+key``: BOSARIS HDF5 score and key matrices.

For scale, ``numpy.loadtxt`` of just the score column of the same score file (numpy's C
parser, no ids, no key) is timed as a reference for the machine.  Each time is the median of
``--repeats`` runs in this process (after one untimed warm-up load).

``--big-hdf5 1e7`` adds a BOSARIS HDF5 score + key pair of that many trials (a full
1000-model grid), to check that a 10^7-trial matrix loads in seconds.

Usage: python bench/bench_io.py [--sizes 1e5 1e6] [--repeats 3] [--big-hdf5 1e7]
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import warnings

import numpy as np
from _timing import run_times

from llrlab.core import Trials
from llrlab.core.io import load_scores, load_trials, write_key, write_scores, write_trials


def median_time(fn, repeats):
    times = run_times(fn, repeats, warmup=True)  # warm-up: page cache, allocator
    return statistics.median(times), min(times)


def make_files(n, d, rng):
    n_seg = 1000
    n_model = max(n // n_seg, 1)
    m = np.repeat([f"spk{i:05d}" for i in range(n_model)], n_seg)[:n]
    s = np.tile([f"seg{j:06d}.sph" for j in range(n_seg)], n_model)[:n]
    x = rng.normal(size=n) + 2.0 * (lab := rng.random(n) < 0.1)
    t = Trials(x, lab, model_ids=m, segment_ids=s)
    f = {k: os.path.join(d, v) for k, v in
         {"s": "scores.txt", "k": "key.txt", "ks": "key_shuffled.txt", "l": "labelled.txt",
          "sh": "scores.h5", "kh": "key.h5"}.items()}
    write_scores(f["s"], t)
    write_key(f["k"], t)
    perm = rng.permutation(n)
    write_key(f["ks"], Trials(x[perm], lab[perm], model_ids=m[perm], segment_ids=s[perm]))
    write_trials(f["l"], t, header=False)
    write_scores(f["sh"], t)
    write_key(f["kh"], t)
    return f


def make_big_hdf5(n, d, rng):
    """A full grid of 1000 models x n/1000 segments written directly with h5py."""
    import h5py

    n_model = 1000
    n_seg = max(n // n_model, 1)
    with h5py.File(os.path.join(d, "big_scores.h5"), "w") as f:
        f["scores"] = rng.normal(size=(n_model, n_seg))
        f["score_mask"] = np.ones((n_model, n_seg), np.uint8)
        f["ID/row_ids"] = np.array([f"spk{i:05d}".encode() for i in range(n_model)])
        f["ID/column_ids"] = np.array([f"seg{j:07d}.sph".encode() for j in range(n_seg)])
    with h5py.File(os.path.join(d, "big_key.h5"), "w") as f:
        f["trial_mask"] = np.where(rng.random((n_model, n_seg)) < 0.01, 1, -1).astype(np.int8)
        f["file_format"] = np.bytes_(b"2.0")
        f["ID/row_ids"] = np.array([f"spk{i:05d}".encode() for i in range(n_model)])
        f["ID/column_ids"] = np.array([f"seg{j:07d}.sph".encode() for j in range(n_seg)])
    return os.path.join(d, "big_scores.h5"), os.path.join(d, "big_key.h5")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", type=float, default=[1e5, 1e6])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--big-hdf5", type=float, default=0,
                    help="also time an HDF5 score+key matrix of this many trials")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    warnings.simplefilter("error")  # a clean join must not warn
    rows = []
    with tempfile.TemporaryDirectory() as d:
        for n in (int(v) for v in args.sizes):
            f = make_files(n, d, rng)
            mb = os.path.getsize(f["s"]) / 1e6
            cases = [
                ("text score+key (same order)", lambda f=f: load_trials(f["s"], f["k"])),
                ("text score+key (shuffled)", lambda f=f: load_trials(f["s"], f["ks"])),
                ("labelled file", lambda f=f: load_trials(f["l"])),
                ("load_scores text", lambda f=f: load_scores(f["s"])),
                ("HDF5 score+key", lambda f=f: load_trials(f["sh"], f["kh"])),
                ("ref: np.loadtxt score column", lambda f=f: np.loadtxt(
                    f["s"], usecols=2, dtype=np.float64, comments=None)),
            ]
            for name, fn in cases:
                med, best = median_time(fn, args.repeats)
                rows.append((name, n, mb, med, best))
        if args.big_hdf5:
            n = int(args.big_hdf5)
            sh, kh = make_big_hdf5(n, d, rng)
            med, best = median_time(lambda: load_trials(sh, kh), args.repeats)
            rows.append(("HDF5 score+key (matrix)", n, os.path.getsize(sh) / 1e6, med, best))
            med, best = median_time(lambda: load_scores(sh), args.repeats)
            rows.append(("load_scores HDF5 (matrix)", n, os.path.getsize(sh) / 1e6, med, best))
    print(f"{'case':32s} {'trials':>9s} {'score MB':>9s} {'median s':>9s} {'min s':>7s}")
    for name, n, mb, med, best in rows:
        print(f"{name:32s} {n:9d} {mb:9.1f} {med:9.3f} {best:7.3f}")


if __name__ == "__main__":
    main()
