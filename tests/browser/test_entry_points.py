"""The entry points users run, run the way they run them: the installed ``llrlab`` console
script (``llrlab serve`` with the demo, with BOSARIS text files and with HDF5 files) and
``panel serve dashboard/app.py``, each as a separate process, checked in headless chromium.

Each check: at least two rendered plots, a metrics table with numbers, no console error and no
request leaving localhost.  A busy port ends ``llrlab serve`` with exit code 2 and one line.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from llrlab.core.io import write_key, write_scores

from ..dashboard.conftest import make_trials
from .conftest import (
    LLRLAB,
    PAGE_LOAD,
    SERVER_START,
    free_port,
    scaled,
    screenshot,
    settle,
    stop_process_group,
    wait_for_port,
    wait_until,
)

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
#: A freshly started server's start and first page (imports, demo data), seconds on an idle
#: machine (scaled: ``scaled(START_TIMEOUT)``).
START_TIMEOUT = SERVER_START


@pytest.fixture
def served():
    """``start(argv, cwd=None) -> url``: run a server command as users do; stopped after."""
    procs = []

    def start(argv, port, cwd=None):
        env = dict(os.environ, PYTHONUNBUFFERED="1")
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True, start_new_session=True)
        procs.append(proc)
        wait_for_port(port, proc)
        return f"http://127.0.0.1:{port}/"

    yield start
    for proc in procs:
        stop_process_group(proc)


def _numbers(texts):
    return [t for t in texts if re.fullmatch(r"[\d,]+(\.\d+)?", t.strip())]


def _check_page(page, url, name, *, datasets=("dev", "eval")):
    page.goto(url)
    wait_until(page, lambda: page.locator(".bk-Canvas").count() >= 2, timeout=PAGE_LOAD,
               what="two rendered plots")
    for role in datasets:
        cells = page.locator(f'td[data-role="{role}"]')
        wait_until(page, lambda cells=cells: len(_numbers(cells.all_inner_texts())) >= 8,
                   timeout=PAGE_LOAD, what=f"numbers in the {role} column of the table")
    settle(page)
    screenshot(page, name)
    assert page.console_errors == []
    assert page.external_requests == []


def test_llrlab_serve_shows_the_demo(page, served):
    port = free_port()
    url = served([str(LLRLAB), "serve", "--no-show", "--port", str(port)], port)
    _check_page(page, url, "10_entry_llrlab_serve_demo")
    assert page.get_by_text("system A", exact=False).count() > 0


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The same dev and eval trials as BOSARIS text (score + key) and as BOSARIS HDF5."""
    d = tmp_path_factory.mktemp("files")
    out = {}
    for role, seed in (("dev", 1), ("eval", 2)):
        t = make_trials(3300, seed=seed, ids=True)
        for ext in ("txt", "h5"):
            scores, key = d / f"{role}_scores.{ext}", d / f"{role}_key.{ext}"
            write_scores(scores, t)
            write_key(key, t)
            out[role, ext] = (scores, key)
    return out


@pytest.mark.parametrize("ext", ["txt", "h5"])
def test_llrlab_serve_with_files_on_the_command_line(page, served, files, ext):
    port = free_port()
    args = [f"{role}:mine={files[role, ext][0]},{files[role, ext][1]}"
            for role in ("dev", "eval")]
    url = served([str(LLRLAB), "serve", "--no-show", "--port", str(port), *args], port)
    _check_page(page, url, f"11_entry_llrlab_serve_{ext}")
    assert page.get_by_text("eval 3,300 trials", exact=False).count() > 0
    assert page.get_by_text("mine", exact=True).count() > 0


def test_panel_serve_dashboard_app_py(page, served):
    port = free_port()
    url = served([sys.executable, "-m", "panel", "serve", str(ROOT / "dashboard" / "app.py"),
                  "--port", str(port), "--address", "127.0.0.1"], port, cwd=ROOT)
    _check_page(page, url + "app", "12_entry_panel_serve")


def test_llrlab_serve_on_a_busy_port_exits_2_with_one_line():
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = subprocess.run([str(LLRLAB), "serve", "--no-show", "--port", str(port)],
                           capture_output=True, text=True, timeout=scaled(START_TIMEOUT))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1, r.stderr
    assert f"port {port}" in lines[0] and "already in use" in lines[0]
    assert "--port" in lines[0]
    assert "Traceback" not in r.stderr + r.stdout
