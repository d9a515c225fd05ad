"""Checks run in a fresh interpreter, where no other test has imported anything yet.

Import isolation (``llrlab.core`` never loads Panel or Bokeh; the core loads none of the
scale extra's packages; ``llrlab -h`` loads no numeric stack) can only be seen from a process
of its own: in the test process some earlier test has always imported them already.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def python_prints(code, env=None):
    """What ``python -c code`` prints (stripped), in a fresh interpreter with the environment
    updated by ``env``; a failing ``code`` raises ``CalledProcessError``."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env={**os.environ, **(env or {})}).stdout.strip()


def loaded_by(code, modules):
    """Which of the top-level ``modules`` a fresh interpreter has in ``sys.modules`` after
    running ``code`` (a list, in the order of ``modules``; ``[]`` when none)."""
    out = python_prints(f"import sys\n{code}\n"
                        f"print(','.join(m for m in {tuple(modules)!r} if m in sys.modules))")
    return out.split(",") if out else []


def bench_served():
    """``bench/_served.py`` (the served benchmarks' helpers: server process, light websocket
    client) as a module, loaded once from the repository."""
    name = "llrlab_bench_served"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "bench" / "_served.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    return sys.modules[name]


def stop_process_group(proc, *streams):
    """Stop ``proc`` (started with ``start_new_session=True``) and its children as the
    benchmarks do (``bench/_served.py``: SIGTERM to its process group, SIGKILL 20 s later);
    then close ``streams`` (its pipes)."""
    bench_served().stop_process_group(proc)
    for stream in streams:
        stream.close()
