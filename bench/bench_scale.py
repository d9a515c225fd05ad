"""Benchmark: llrlab's exact out-of-core analysis on Dask against Dask's own sort of the data.

Generates ``--n`` synthetic trials (Gaussian scores, ``--tar-fraction`` targets, float32 by
default) as chunked Parquet files, then times in the same run, on Dask's local scheduler
with its disk-based shuffle:

* ``dask sort``: ``read_parquet(...).set_index("score", npartitions=K)`` with every sorted
  partition materialized (``map_partitions(len)``): Dask's quantile pass, shuffle and
  per-partition sort;
* ``llrlab``: :func:`llrlab.core.scale.analyze_dask` (plan pass, the same shuffle into ``K``
  score-ordered partitions, per-partition summaries, merge): every measure of
  ``llrlab.core.analyze``.

Peak memory is the largest resident set of this process while each step runs (sampled from
``/proc/self/status`` every 0.1 s).  With ``--check`` (only for small ``--n``) the result is
compared with the in-memory ``analyze`` of the same scores.

Target (issue 13): 10^9 trials out of core with peak memory under 6 GiB, time <= 2x Dask's
sort.

Usage: python bench/bench_scale.py [--n 1e9] [--dir DIR] [--dtype float32] [--check]
"""

from __future__ import annotations

import argparse
import math
import os
import shutil
import tempfile
import threading
import time

import numpy as np

ROWS_PER_FILE = 1 << 24


def rss_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


class PeakRSS:
    """Largest resident set while the block runs (sampled)."""

    def __enter__(self):
        self.peak = rss_bytes()
        self._stop = threading.Event()

        def watch():
            while not self._stop.wait(0.1):
                self.peak = max(self.peak, rss_bytes())

        self._t = threading.Thread(target=watch, daemon=True)
        self._t.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._t.join()
        self.peak = max(self.peak, rss_bytes())


def generate(folder, n, tar_fraction, dtype, seed=0):
    """Write ``n`` trials as Parquet files of ROWS_PER_FILE rows (score, label)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    os.makedirs(folder, exist_ok=True)
    rng = np.random.default_rng(seed)
    for k, start in enumerate(range(0, n, ROWS_PER_FILE)):
        m = min(ROWS_PER_FILE, n - start)
        label = rng.random(m) < tar_fraction
        score = rng.standard_normal(m, dtype=np.float32 if dtype == "float32" else np.float64)
        score += np.where(label, 2.0, 0.0).astype(score.dtype)
        pq.write_table(pa.table({"score": score, "label": label}),
                       os.path.join(folder, f"part-{k:05d}.parquet"), row_group_size=1 << 20)


def dask_sort(folder, k):
    import dask
    import dask.dataframe as dd

    df = dd.read_parquet(folder)
    s = df.set_index("score", npartitions=k, shuffle_method="disk")
    return int(dask.compute(s.map_partitions(len), scheduler="threads")[0].sum())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=float, default=1e9)
    ap.add_argument("--tar-fraction", type=float, default=0.01)
    ap.add_argument("--dtype", choices=("float32", "float64"), default="float32")
    ap.add_argument("--dir", default=None, help="where to write the data (default: a temp dir)")
    ap.add_argument("--partition-rows", type=float, default=1 << 23)
    ap.add_argument("--keep", action="store_true", help="keep the generated files")
    ap.add_argument("--check", action="store_true", help="compare with the in-memory analyze")
    args = ap.parse_args()
    import dask

    from llrlab.core.scale import analyze_dask, open_scores

    n = int(args.n)
    root = args.dir or tempfile.mkdtemp(prefix="llrlab-bench-scale-")
    data = os.path.join(root, "data")
    spill = os.path.join(root, "shuffle")
    os.makedirs(spill, exist_ok=True)
    dask.config.set({"temporary_directory": spill})
    if not os.path.isdir(data) or not os.listdir(data):
        t = time.perf_counter()
        generate(data, n, args.tar_fraction, args.dtype)
        print(f"generated {n:,} trials ({args.dtype}) in {time.perf_counter() - t:.0f} s")
    k = max(1, math.ceil(n / args.partition_rows))
    rows = []
    try:
        with PeakRSS() as m1:
            t = time.perf_counter()
            got = dask_sort(data, k)
            t_sort = time.perf_counter() - t
        assert got == n, (got, n)
        with PeakRSS() as m2:
            t = time.perf_counter()
            a = analyze_dask(open_scores(data), partition_rows=int(args.partition_rows))
            t_ll = time.perf_counter() - t
        rows.append(("dask sort (set_index)", t_sort, m1.peak, k))
        rows.append(("llrlab analyze_dask", t_ll, m2.peak, a.info["partitions"]))
        print(f"\n{n:,} trials, {args.dtype}, {args.tar_fraction:g} targets, local scheduler, "
              f"{os.cpu_count()} cores")
        print(f"{'':24}{'seconds':>10}{'ratio':>8}{'peak GiB':>10}{'partitions':>12}")
        for name, sec, peak, parts in rows:
            print(f"{name:24}{sec:10.1f}{sec / t_sort:8.2f}{peak / 2**30:10.2f}{parts:12d}")
        i = a.info
        kk = i["partitions"]
        print(f"llrlab phases: plan {i['plan_seconds']:.1f} s, shuffle+sort+summaries "
              f"{i['sort_seconds']:.1f} s ({i['sort_seconds'] / kk:.2f} s per partition of "
              f"~{n / kk:,.0f} trials), merge {i['merge_seconds']:.2f} s")
        print(f"per task (CPU seconds): plan {i['plan_task_seconds'] / i['input_partitions']:.3f}"
              f" per input partition ({i['input_partitions']} of ~{n / i['input_partitions']:,.0f}"
              f" trials), summary {i['summary_task_seconds'] / kk:.3f} per sorted partition")
        print(f"EER {a.eer:.6f}  Cllr {a.cllr:.6f}  minCllr {a.min_cllr:.6f}  "
              f"ROCCH blocks {a.blocks.n_blocks}")
        if args.check:
            import pandas as pd

            from llrlab.core import analyze

            df = pd.read_parquet(data)
            s, lab = df["score"].to_numpy(np.float64), df["label"].to_numpy(bool)
            b = analyze(s[lab], s[~lab])
            worst = max(abs(getattr(a, x) - getattr(b, x)) / abs(getattr(b, x))
                        for x in ("eer", "cllr", "min_cllr", "prbep"))
            worst = max(worst, float(np.max(np.abs(a.act.dcf - b.act.dcf) / b.act.dcf)),
                        float(np.max(np.abs(a.min.dcf - b.min.dcf) / b.min.dcf)))
            print(f"largest relative difference from the in-memory analyze: {worst:.2e}")
    finally:
        shutil.rmtree(spill, ignore_errors=True)
        if not args.keep and not args.dir:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
