"""Benchmark: loading a BOSARIS score file and its key with llrlab, against pandas.

Everything is measured side by side in ONE process: for every repeat, every shape, every
thread setting, each contender loads the files once, in turn (interleaved), so that a busy
phase of this shared machine falls on all of them alike.  Each row of the table gives the
median time of each contender, the ratio llrlab / pandas computed per repeat (both loads of
a repeat ran back to back) with its median and its spread (min - max over the repeats), the
peak memory of the llrlab load as a multiple of the bytes of the input files, and the load
average of the machine while the row was measured.

The pandas baseline -- the ordinary, fair way to do the same job with pandas:

    s = pd.read_csv(scores, sep=r"\\s+", header=None, names=["model", "segment", "score"],
                    dtype={"model": object, "segment": object, "score": np.float64},
                    quoting=csv.QUOTE_NONE, engine="c")
    k = pd.read_csv(key, ...same..., names=["model", "segment", "label"],
                    dtype={"model": object, "segment": object, "label": object})
    trials = s.merge(k, on=["model", "segment"])        # inner join, pandas' hash join

i.e. the same dtypes llrlab gets (ids and labels as strings, scores as float64), the C
parser, and one merge on (model, segment).  llrlab does more (checks every line, keeps the
score file's order, reports trials found in one file only and repeated trials, turns labels
into booleans), so a ratio of 1 means the checks cost nothing.  The ``hdf5`` row compares
``load_trials(scores.h5, key.h5)`` with raw h5py reads of every dataset of both files; the
``write-hdf5`` row ``write_score_file(out.h5, ...)`` of calibrated scores read from HDF5
with h5py writes of the same matrices and ids; the ``write-text`` row
``write_score_file(out.txt, ...)`` with pandas ``DataFrame.to_csv`` of the same scores.

Peak memory: the process's resident high-water mark (``VmHWM``, reset through
``/proc/self/clear_refs`` before each load, after ``malloc_trim``) minus its resident size
just before the load: what the load added at its peak, over the bytes of the input files.

Threads: "default" leaves the thread pools as they are; "1" runs the load inside
``threadpoolctl.threadpool_limits(1)`` (BLAS/OpenMP pools; the pandas C parser and numpy's
sorts are single-threaded either way).

Shapes (10 % target trials; scores written in full precision):

=================  ==========================================================================
ids                ``repeating``: 2,500 models x 4,000 segments (10^7 trials; 250 x 4,000 at
                   10^6), the score file model-major.  ``unique``: each test segment against
                   3 models out of n/100, the segment's trials together; segment ids
                   distinct.  ``all-unique``: every trial has its own segment.
length             ``short``: ``m0012``, ``s000123``.  ``long``: both ids like
                   ``id10270/5r0dWxy17C8/00001.wav`` (23-33 characters, slashes).
key                ``ordered``: the key lists the trials in the score file's order.
                   ``shuffled``: in random order.  ``extra``: shuffled, with 10 % more trials
                   (segments that were not scored).
worst              all-unique long ids, extra shuffled key.
=================  ==========================================================================

Usage::

    python bench/bench_io.py [--n 1e6] [--repeats 5] [--shapes ...] [--threads default 1]
                             [--before DIR] [--dir /tmp/llrlab-bench-io]

``--before DIR`` adds the llrlab found in ``DIR`` (``DIR/llrlab/core``, e.g. an export of an
older commit) as a third contender, imported in the same process under another name, for a
before/after table measured side by side.  The files are written once in ``--dir`` and kept
(10^7 trials with long ids take about 1.6 GB per shape).
"""

from __future__ import annotations

import argparse
import csv
import ctypes
import gc
import importlib
import os
import statistics
import sys
import tempfile
import time
import warnings

import numpy as np

#: name: (ids, length, key)
SHAPES = {f"{ids}-{length}-{key}": (ids, length, key) for ids in ("repeating", "unique")
          for length in ("short", "long") for key in ("ordered", "shuffled")}
SHAPES.update({
    "worst": ("all-unique", "long", "extra"),
    "hdf5": ("repeating", "short", "hdf5"),
    "write-hdf5": ("repeating", "short", "write-hdf5"),
    "write-text": ("repeating", "short", "write-text"),
})


# --------------------------------------------------------------------------------------------
# Files


def _long_ids(k, salt):
    """Ids like ``id10270/5r0dWxy17C8/00001.wav`` (23-33 characters) for the integers k."""
    alphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    out = []
    for i in k.tolist():
        h = (i * 2654435761 + salt * 97) % (62 ** 11)
        mid = []
        for _ in range(6 + i % 6):
            h, r = divmod(h, 62)
            mid.append(alphabet[r])
        out.append(f"id{10000 + (i * 7 + salt) % 1300}/{''.join(mid)}/{i % 100000:05d}.wav")
    return np.array(out, dtype=object)


def _trials(n, ids, rng):
    """(model index, segment index) of n trials, each pair once."""
    if ids == "repeating":
        n_model, n_seg = max(n // 4000, 1), 4000
        return (np.repeat(np.arange(n_model), n_seg)[:n], np.tile(np.arange(n_seg), n_model)[:n])
    n_model = max(n // 100, 10)
    if ids == "all-unique":
        return rng.integers(0, n_model, n), np.arange(n)
    n_seg = -(-n // 3)
    base = rng.integers(0, n_model, n_seg)
    models = (base[:, None] + np.array([0, n_model // 3, 2 * n_model // 3])) % n_model
    return models.ravel()[:n], np.repeat(np.arange(n_seg), 3)[:n]


def _names(idx, length, kind):
    k = np.arange(int(idx.max()) + 1)
    if length == "long":
        return _long_ids(k, 1 if kind == "m" else 2)
    width = 4 if kind == "m" else 6
    width = max(width, len(str(k.size)))
    return np.array([f"{kind}{i:0{width}d}" for i in k.tolist()], dtype=object)


def _write_lines(path, cols):
    with open(path, "w") as f:
        n = len(cols[0])
        for lo in range(0, n, 1 << 20):
            parts = [c[lo:lo + (1 << 20)] for c in cols]
            f.write("".join(" ".join(row) + "\n" for row in zip(*parts, strict=True)))


def make_files(n, shape, d):
    """Write the score and key files of a shape (kept for the next run); their paths."""
    ids, length, _ = SHAPES[shape]
    tag = f"{ids}-{length}-{n}"
    folder = os.path.join(d, tag)
    out = {"scores": os.path.join(folder, "scores.txt"),
           "ordered": os.path.join(folder, "key.txt"),
           "shuffled": os.path.join(folder, "key_shuffled.txt"),
           "extra": os.path.join(folder, "key_extra.txt"),
           "scores_h5": os.path.join(folder, "scores.h5"),
           "key_h5": os.path.join(folder, "key.h5")}
    if os.path.exists(os.path.join(folder, "done")):
        return out
    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(0)
    mi, si = _trials(n, ids, rng)
    n_extra = n // 10
    si_extra = np.arange(si.max() + 1, si.max() + 1 + n_extra)
    mi_extra = rng.integers(0, mi.max() + 1, n_extra)
    models = _names(mi, length, "m")
    segs = _names(np.concatenate([si, si_extra]), length, "s")
    lab = rng.random(n + n_extra) < 0.1
    x = rng.normal(size=n) + 2.0 * lab[:n]
    m, s = models[np.concatenate([mi, mi_extra])], segs[np.concatenate([si, si_extra])]
    word = np.array(["nontarget", "target"], dtype=object)[lab.astype(int)]
    _write_lines(out["scores"], [m[:n], s[:n], list(map(float.__repr__, x.tolist()))])
    _write_lines(out["ordered"], [m[:n], s[:n], word[:n]])
    perm = rng.permutation(n)
    _write_lines(out["shuffled"], [m[perm], s[perm], word[perm]])
    perm = rng.permutation(n + n_extra)
    _write_lines(out["extra"], [m[perm], s[perm], word[perm]])
    if ids == "repeating":
        import h5py

        n_model, n_seg = mi.max() + 1, si.max() + 1
        rows = np.array([v.encode() for v in models.tolist()])
        cols = np.array([v.encode() for v in segs[:n_seg].tolist()])
        with h5py.File(out["scores_h5"], "w") as h:
            h["scores"] = x.reshape(n_model, n_seg)
            h["score_mask"] = np.ones((n_model, n_seg), np.uint8)
            h["ID/row_ids"], h["ID/column_ids"] = rows, cols
        with h5py.File(out["key_h5"], "w") as h:
            h["trial_mask"] = np.where(lab[:n], 1, -1).astype(np.int8).reshape(n_model, n_seg)
            h["file_format"] = np.bytes_(b"2.0")
            h["ID/row_ids"], h["ID/column_ids"] = rows, cols
    open(os.path.join(folder, "done"), "w").close()
    return out


def inputs(files, shape):
    key = SHAPES[shape][2]
    if key == "hdf5":
        return files["scores_h5"], files["key_h5"]
    if key == "write-hdf5":
        return files["scores_h5"], files["scores_h5"] + ".out.h5"
    if key == "write-text":
        return files["scores"], files["scores"] + ".out.txt"
    return files["scores"], files[key]


# --------------------------------------------------------------------------------------------
# Contenders


def pandas_load(scores, key):
    import pandas as pd

    kw = {"sep": r"\s+", "header": None, "quoting": csv.QUOTE_NONE, "engine": "c"}
    s = pd.read_csv(scores, names=["model", "segment", "score"],
                    dtype={"model": object, "segment": object, "score": np.float64}, **kw)
    k = pd.read_csv(key, names=["model", "segment", "label"],
                    dtype={"model": object, "segment": object, "label": object}, **kw)
    return s.merge(k, on=["model", "segment"])


def h5py_load(scores, key):
    import h5py

    out = []
    for name in (scores, key):
        with h5py.File(name, "r") as h:
            for ds in ("scores", "score_mask", "trial_mask", "ID/row_ids", "ID/column_ids"):
                if ds in h:
                    out.append(h[ds][()])
    return out


def h5py_write(data):
    import h5py

    def write(_src, out):
        with h5py.File(out, "w") as h:
            h["scores"] = 0.5 * data["scores"] + 0.125
            for k in ("score_mask", "ID/row_ids", "ID/column_ids"):
                h[k] = data[k]
    return write


def h5py_read(path):
    import h5py

    with h5py.File(path, "r") as h:
        return {k: h[k][()] for k in ("scores", "score_mask", "ID/row_ids", "ID/column_ids")}


def pandas_write(frame):
    def write(_src, out):
        frame.to_csv(out, sep=" ", header=False, index=False)
    return write


def pandas_scores(path):
    import pandas as pd

    s = pd.read_csv(path, sep=r"\s+", header=None, names=["model", "segment", "score"],
                    dtype={"model": object, "segment": object, "score": np.float64},
                    quoting=csv.QUOTE_NONE, engine="c")
    s["score"] = 0.5 * s["score"] + 0.125
    return s


def llrlab_loader(package):
    return importlib.import_module(f"{package}.core.io").load_trials


def llrlab_writer(package, src):
    io = importlib.import_module(f"{package}.core.io")
    data, fmt = io.read_score_file(src)
    data = data.with_scores(0.5 * data.scores + 0.125)
    return lambda _src, out: io.write_score_file(out, data, fmt)


def import_before(folder):
    """The llrlab package in ``folder`` imported as ``llrlab_before`` (core imports itself
    relatively, so it runs under another name beside the current one)."""
    link_dir = tempfile.mkdtemp(prefix="llrlab-before-")
    os.symlink(os.path.abspath(os.path.join(folder, "llrlab")),
               os.path.join(link_dir, "llrlab_before"))
    sys.path.insert(0, link_dir)
    return "llrlab_before"


# --------------------------------------------------------------------------------------------
# Measuring


def _status_kb(field):
    with open("/proc/self/status") as st:
        for line in st:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(field)


_LIBC = ctypes.CDLL(None) if sys.platform.startswith("linux") else None


def measure(fn, threads):
    """``(seconds, peak bytes added)`` of one call of ``fn``."""
    from threadpoolctl import threadpool_limits

    gc.collect()
    if _LIBC is not None:
        _LIBC.malloc_trim(0)
    before = _status_kb("VmRSS")
    with open("/proc/self/clear_refs", "w") as cr:
        cr.write("5")
    if threads == "1":
        with threadpool_limits(1):
            t = time.perf_counter()
            result = fn()
            seconds = time.perf_counter() - t
    else:
        t = time.perf_counter()
        result = fn()
        seconds = time.perf_counter() - t
    peak = (_status_kb("VmHWM") - before) * 1024
    del result
    return seconds, peak


def _spread(values):
    return f"{min(values):.2f}-{max(values):.2f}"


def print_table(rows, others, out):
    """The table of the repeats measured so far."""
    head = (f"{'n':>9s} {'shape':25s} {'thr':>4s} {'ref':>5s} {'ref s':>7s} "
            + "".join(f"{c + ' s':>9s} {c[:6] + '/ref':>11s} {'spread':>10s} {'peak/B':>7s}"
                      for c in others) + f" {'ref peak/B':>10s} {'load':>5s}")
    print(head, file=out)
    for row in rows:
        ref_t = row["t"]["reference"]
        line = (f"{row['n']:9.0e} {row['shape']:25s} {row['threads']:>4s} "
                f"{'h5py' if 'hdf5' in row['shape'] else 'pd':>5s} "
                f"{statistics.median(ref_t):7.2f} ")
        for c in others:
            ratios = [a / b for a, b in zip(row["t"][c], ref_t, strict=True)]
            peak = statistics.median(row["peak"][c]) / row["bytes"]
            line += (f"{statistics.median(row['t'][c]):9.2f} {statistics.median(ratios):10.2f}x "
                     f"{_spread(ratios):>10s} {peak:6.2f}x")
        ref_peak = statistics.median(row["peak"]["reference"]) / row["bytes"]
        line += f" {ref_peak:9.2f}x {statistics.median(row['load']):5.1f}"
        print(line, file=out, flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, nargs="+", default=[1e6], help="trials (default 1e6)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--shapes", nargs="+", choices=list(SHAPES), default=list(SHAPES))
    ap.add_argument("--threads", nargs="+", choices=("default", "1"), default=["default", "1"])
    ap.add_argument("--before", metavar="DIR", help="also time the llrlab package in DIR")
    ap.add_argument("--dir", default=os.path.join(tempfile.gettempdir(), "llrlab-bench-io"))
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    import pandas  # noqa: F401 - imported before any measurement, by every contender alike

    packages = {"llrlab": "llrlab"}
    if args.before:
        packages["before"] = import_before(args.before)
    rows = []
    for n in (int(v) for v in args.n):
        for shape in args.shapes:
            files = make_files(n, shape, args.dir)
            s, k = inputs(files, shape)
            if shape == "write-hdf5":
                ref = h5py_write(h5py_read(s))
                contenders = {c: llrlab_writer(p, s) for c, p in packages.items()}
            elif shape == "write-text":
                ref = pandas_write(pandas_scores(s))
                contenders = {c: llrlab_writer(p, s) for c, p in packages.items()}
            else:
                ref = h5py_load if shape == "hdf5" else pandas_load
                contenders = {c: llrlab_loader(p) for c, p in packages.items()}
            size = os.path.getsize(s) + (0 if shape.startswith("write") else os.path.getsize(k))
            for threads in args.threads:
                rows.append({"n": n, "shape": shape, "threads": threads, "files": (s, k),
                             "bytes": size,
                             "runs": {"reference": ref, **contenders},
                             "t": {c: [] for c in ("reference", *contenders)},
                             "peak": {c: [] for c in ("reference", *contenders)},
                             "load": []})
    print(f"load average at start: {' '.join(open('/proc/loadavg').read().split()[:3])}; "
          f"{os.cpu_count()} cores; {args.repeats} interleaved repeats", flush=True)
    for row in rows:  # warm-up: page cache, imports, allocator
        s, k = row["files"]
        for fn in row["runs"].values():
            fn(s, k)
        break
    for rep in range(args.repeats):
        for row in rows:
            s, k = row["files"]
            row["load"].append(os.getloadavg()[0])
            for name, fn in row["runs"].items():
                seconds, peak = measure(lambda fn=fn, s=s, k=k: fn(s, k), row["threads"])
                row["t"][name].append(seconds)
                row["peak"][name].append(peak)
        print(f"  repeat {rep + 1}/{args.repeats} done, load {os.getloadavg()[0]:.1f}",
              file=sys.stderr, flush=True)
        if rep + 1 < args.repeats:
            print(f"after {rep + 1} repeats:", file=sys.stderr)
            print_table(rows, list(packages), sys.stderr)
    print_table(rows, list(packages), sys.stdout)
    print(f"load average at end: {' '.join(open('/proc/loadavg').read().split()[:3])}")


if __name__ == "__main__":
    main()
