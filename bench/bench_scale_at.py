"""Benchmark: what exactness at every operating point costs on Dask.

``analyze_dask`` keeps the score-sorted partitions (on the local scheduler: ``.npy`` files
under Dask's temporary directory) so that ``at(plo)`` is exact at any prior log-odds; with
``keep_sorted=False`` (what ``llrlab eval --dask`` uses: it tabulates its own operating
point) nothing is kept.  For each shape of data, side by side in one process (interleaved,
``--repeats`` runs each, median and spread), with Dask's default number of threads and with
one thread:

* ``analyze_dask`` with and without the kept partitions (the ratio is the cost of keeping
  them);
* ``at(plo)``: at prior log-odds of the report's grid (tabulated: a look-up in the table)
  and at random ones (one binary search per class in the partition holding the threshold),
  median time per call over ``--points`` distinct points per run.

Shapes (each row says its own): 1 % and 10 % targets, continuous scores (every score
distinct) or scores rounded to 1e-3 (ties), unweighted or with per-trial weights (condition
weights reach the kernel as per-trial weights), trials in random order.  The data are
Parquet files as users have them (``bench_scale.generate``).

Usage: python bench/bench_scale_at.py [--n 2e6] [--partition-rows 262144] [--repeats 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import tempfile
import time

import numpy as np
from _timing import interleaved_times, load_average

SHAPES = {
    "1% targets, continuous": {"tar_fraction": 0.01, "round": None, "weights": False},
    "10% targets, continuous": {"tar_fraction": 0.10, "round": None, "weights": False},
    "10% targets, ties (1e-3)": {"tar_fraction": 0.10, "round": 3, "weights": False},
    "10% targets, weighted": {"tar_fraction": 0.10, "round": None, "weights": True},
}


def write_shape(folder, n, shape, seed=0):
    """Parquet files of ``n`` shuffled trials of one shape (score, label[, weight])."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(seed)
    label = rng.random(n) < shape["tar_fraction"]
    score = rng.standard_normal(n) + np.where(label, 2.0, 0.0)
    if shape["round"] is not None:
        score = np.round(score, shape["round"])
    cols = {"score": score, "label": label}
    if shape["weights"]:
        cols["weight"] = rng.choice([0.5, 1.0, 2.0, 4.0], n)
    rows = 1 << 20
    for k, start in enumerate(range(0, n, rows)):
        t = pa.table({c: v[start:start + rows] for c, v in cols.items()})
        pq.write_table(t, os.path.join(folder, f"part-{k:04d}.parquet"))


def _stats(times):
    med = statistics.median(times)
    return med, (max(times) - min(times)) / med if med else 0.0


def run_shape(name, folder, args, threads):
    import dask

    from llrlab.core.op_grid import grid_plo
    from llrlab.core.scale import analyze_dask, open_scores

    rows = int(args.partition_rows)
    data = open_scores(folder)
    kw = {} if threads is None else {"num_workers": threads}
    with dask.config.set(**kw):
        analyses = []

        def keep():
            analyses.append(analyze_dask(data, partition_rows=rows))
            return analyses[-1]

        def table_only():
            return analyze_dask(data, partition_rows=rows, keep_sorted=False)

        res, times = interleaved_times({"kept": keep, "not kept": table_only},
                                       args.repeats)
    a = res["kept"]
    rng = np.random.default_rng(1)
    grid = grid_plo()
    at_times = {"tabulated": [], "looked up": []}
    for _ in range(args.repeats):
        for kind in at_times:
            if kind == "tabulated":
                plo = rng.choice(grid[(grid > -8) & (grid < 8)], args.points, replace=False)
            else:
                plo = rng.uniform(-8, 8, args.points)
            t = time.perf_counter()
            for x in plo.tolist():
                a.at(x)
            at_times[kind].append((time.perf_counter() - t) / args.points)
    for b in analyses:
        b.release()
    return {"shape": name, "threads": "default" if threads is None else str(threads),
            "partitions": a.info["partitions"], "kept": _stats(times["kept"]),
            "not kept": _stats(times["not kept"]),
            "at tabulated": _stats(at_times["tabulated"]),
            "at looked up": _stats(at_times["looked up"])}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=2e6)
    ap.add_argument("--partition-rows", type=float, default=1 << 18)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--points", type=int, default=200, help="at() calls per run")
    args = ap.parse_args()
    import dask

    n = int(args.n)
    root = tempfile.mkdtemp(prefix="llrlab-bench-at-")
    spill = os.path.join(root, "tmp")
    os.makedirs(spill)
    dask.config.set({"temporary_directory": spill})
    rows = []
    try:
        for name, shape in SHAPES.items():
            folder = os.path.join(root, name.replace(" ", "_").replace("%", "pc"))
            write_shape(folder, n, shape)
            for threads in (None, 1):
                rows.append(run_shape(name, folder, args, threads))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"\n{n:,} trials per shape, {args.repeats} interleaved runs each, local scheduler, "
          f"{os.cpu_count()} cores, load average {load_average()} at the end")
    print("median seconds (spread = (max - min) / median); at() in microseconds per call")
    head = (f"{'shape':28}{'threads':>8}{'parts':>6}{'not kept s':>12}{'kept s':>10}"
            f"{'ratio':>7}{'spread':>8}{'at tab us':>11}{'at look us':>12}{'spread':>8}")
    print(head)
    for r in rows:
        nk, k = r["not kept"], r["kept"]
        tab, look = r["at tabulated"], r["at looked up"]
        print(f"{r['shape']:28}{r['threads']:>8}{r['partitions']:>6}{nk[0]:12.2f}{k[0]:10.2f}"
              f"{k[0] / nk[0]:7.2f}{max(nk[1], k[1]):8.0%}{tab[0] * 1e6:11.0f}"
              f"{look[0] * 1e6:12.0f}{look[1]:8.0%}")


if __name__ == "__main__":
    main()
