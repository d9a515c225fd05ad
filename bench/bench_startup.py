"""Start-up time of the ``llrlab`` console script, side by side with a bare interpreter.

    python bench/bench_startup.py [--repeats 15]

Interleaved runs (so that machine load hits every command alike), medians in seconds:
``python -c pass`` (the floor), ``llrlab --version``, ``llrlab -h``, ``llrlab eval -h`` and
``import llrlab.core``; the ratio column is each command over the bare interpreter.  Target:
``llrlab -h`` in under 0.3 s.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

LLRLAB = str(Path(sys.executable).parent / "llrlab")
COMMANDS = {
    "python -c pass": [sys.executable, "-c", "pass"],
    "llrlab --version": [LLRLAB, "--version"],
    "llrlab -h": [LLRLAB, "-h"],
    "llrlab eval -h": [LLRLAB, "eval", "-h"],
    "import llrlab.core": [sys.executable, "-c", "import llrlab.core"],
    "import numpy (reference)": [sys.executable, "-c", "import numpy"],
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args()
    times = {name: [] for name in COMMANDS}
    for _ in range(args.repeats):
        for name, argv in COMMANDS.items():
            t = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           check=True)
            times[name].append(time.perf_counter() - t)
    floor = statistics.median(times["python -c pass"])
    print(f"{'command':28} {'median':>9} {'ratio':>7}")
    for name, ts in times.items():
        m = statistics.median(ts)
        print(f"{name:28} {m:8.3f}s {m / floor:6.1f}x")


if __name__ == "__main__":
    main()
