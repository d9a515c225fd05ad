"""``bench/bench_browser.py --light-sessions``: one chromium page measured while light
websocket sessions drag on the same server (one pause point per block each), run as the
script is run, in a process of its own (its event loop is its own), on the demo."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import BENCH, scaled

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def test_light_sessions_send_their_pauses_and_get_the_exact_values(tmp_path):
    llrlab = Path(sys.executable).with_name("llrlab")
    out = subprocess.run(
        [sys.executable, str(BENCH / "bench_browser.py"), "--n-eval", "0", "--dir",
         str(tmp_path), "--llrlab", str(llrlab), "--light-sessions", "2", "--repeats", "2",
         "--moves", "20"], capture_output=True, text=True, timeout=scaled(600))
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]

    def row(name):
        m = re.search(rf"^{re.escape(name)}\s+([\d.]+)", out.stdout, re.M)
        assert m, out.stdout
        return float(m.group(1))

    assert "2 light sessions" in out.stdout
    assert row("light sessions: pauses sent") == 4  # 2 sessions x 2 blocks
    assert row("light sessions: pauses without an answer (20 s)") == 0
    assert 0 < row("light sessions: pause -> exact values, median") <= row(
        "light sessions: pause -> exact values, p90")
    assert row("requests leaving localhost") == 0
