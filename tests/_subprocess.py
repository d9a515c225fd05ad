"""Checks run in a fresh interpreter, where no other test has imported anything yet.

Import isolation (``llrlab.core`` never loads Panel or Bokeh; the core loads none of the
scale extra's packages; ``llrlab -h`` loads no numeric stack) can only be seen from a process
of its own: in the test process some earlier test has always imported them already.
"""

from __future__ import annotations

import os
import subprocess
import sys

from ._time_scale import scaled


def python_prints(code, env=None, timeout=120):
    """What ``python -c code`` prints (stripped), in a fresh interpreter with the environment
    updated by ``env``; a failing ``code`` raises ``CalledProcessError``, one that runs
    longer than ``timeout`` seconds on an idle machine (scaled) ``TimeoutExpired``."""
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, env={**os.environ, **(env or {})},
                          timeout=scaled(timeout)).stdout.strip()


def loaded_by(code, modules):
    """Which of the top-level ``modules`` a fresh interpreter has in ``sys.modules`` after
    running ``code`` (a list, in the order of ``modules``; ``[]`` when none)."""
    out = python_prints(f"import sys\n{code}\n"
                        f"print(','.join(m for m in {tuple(modules)!r} if m in sys.modules))")
    return out.split(",") if out else []

