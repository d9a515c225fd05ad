"""The dashboard in a real JupyterLab and a real Notebook 7: a notebook on arrays and a
DataFrame, run from the menu, in chromium.

``jupyter lab`` (and then ``jupyter notebook``) runs headless on a free port of 127.0.0.1
(a known token, a temporary root
directory and Jupyter config, settings and runtime directories of its own, so that nothing
of the user's is read or written), on a notebook this test writes:

1. ``dash = Dashboard((tar, non))`` and ``dash``: the dashboard shows inline;
2. ``f"PLO={dash.operating_point.plo}..."``: the kernel's operating point, read back;
3. ``dash.operating_point = {"p_target": 0.25}``: the operating point set from Python;
4. ``Dashboard(frame)`` on a pandas DataFrame of scores and labels: a second dashboard.

The test runs all cells through the *Run* menu, waits for the plots (a canvas in the first
cell's output) and for the page to show the operating point set by the third cell, drags the
operating point on the NBER plot, runs the second cell again (Shift+Enter) and reads the new
operating point from its output: the kernel's state followed the drag.  The server's process
group is always stopped.  Skipped when jupyterlab is not installed.
"""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import sys
import time

import pytest

from .conftest import (
    ARTIFACTS,
    PAGE_LOAD,
    SERVER_START,
    free_port,
    mouse_drag,
    scaled,
    scaled_ms,
    stop_process_group,
    wait_for_port,
    wait_until,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TOKEN = "llrlab-notebook-test"
#: The cells of the notebook (see the module docstring).
CELLS = [
    "import numpy as np\n"
    "from llrlab.dashboard import Dashboard\n"
    "rng = np.random.default_rng(0)\n"
    "dash = Dashboard((rng.normal(2, 1, 500), rng.normal(-2, 1, 5000)), name='nb')\n"
    "dash",
    # the cell's value, not print(): while the kernel handles a message of the page, Panel's
    # comm (pyviz_comms) swaps sys.stdout for its own capture, and a print of a cell run
    # at that moment is lost (seen with ipykernel 7); a cell's value is always shown
    'f"PLO={dash.operating_point.plo:.6f} P={dash.operating_point.p_target:.6f}"',
    'dash.operating_point = {"p_target": 0.25}',
    "import pandas as pd\n"
    "frame = pd.DataFrame({'score': np.r_[rng.normal(1.5, 1, 300), rng.normal(-1.5, 1, 3000)],"
    " 'label': ['target'] * 300 + ['nontarget'] * 3000})\n"
    "Dashboard(frame, name='frame')",
]
_PLO = re.compile(r"PLO=(-?[0-9.]+) P=([0-9.]+)")
#: Time for the kernel to start, import the dashboard and compute (seconds, idle machine).
KERNEL = 120.0


#: The two notebook front ends users run: (module run with ``python -m``, the notebook's path).
FRONT_ENDS = {"jupyterlab": "lab/tree/dashboard.ipynb", "notebook": "notebooks/dashboard.ipynb"}


@pytest.fixture(scope="module", params=sorted(FRONT_ENDS))
def lab(request, tmp_path_factory):
    """JupyterLab (``jupyter lab``) or Notebook 7 (``jupyter notebook``) on a notebook of
    :data:`CELLS`; yields its address."""
    app = request.param
    pytest.importorskip(app, reason=f"{app} is not installed (pip install -e '.[test]' "
                        f"installs it): no notebook to test in")
    pytest.importorskip("ipykernel", reason="ipykernel is not installed: no kernel")
    import nbformat

    base = tmp_path_factory.mktemp("lab")
    root = base / "root"
    root.mkdir()
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, root / "dashboard.ipynb")
    settings = base / "settings"
    news = settings / "@jupyterlab" / "apputils-extension"
    news.mkdir(parents=True)  # no "get notified about Jupyter news?" toast over the page
    (news / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(base / "config"),
               JUPYTER_RUNTIME_DIR=str(base / "runtime"), IPYTHONDIR=str(base / "ipython"),
               JUPYTERLAB_SETTINGS_DIR=str(settings),
               JUPYTERLAB_WORKSPACES_DIR=str(base / "workspaces"))
    port = free_port()
    cmd = [sys.executable, "-m", app, "--no-browser", "--ServerApp.ip=127.0.0.1",
           f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
           f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={root}"]
    if app == "jupyterlab":
        cmd.append("--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")  # containers run as root; jupyter refuses it otherwise
    with open(base / "server.log", "w") as log:
        proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        try:
            wait_for_port(port, proc, timeout=SERVER_START)
            yield f"http://127.0.0.1:{port}/{FRONT_ENDS[app]}?token={TOKEN}"
        finally:
            stop_process_group(proc)  # the server and its kernel
    assert proc.poll() is not None


def _idle(page):
    """The kernel is idle: JupyterLab's status bar ("Python 3 ... | Idle") or the notebook's
    execution indicator ("Kernel status: Idle", Notebook 7)."""
    bar = " ".join(page.locator(".jp-StatusBar-Widget").all_inner_texts())
    shown = page.evaluate("() => [...document.querySelectorAll("
                          "'.jp-Notebook-ExecutionIndicator')].map(e => e.textContent).join(' ')")
    return re.search(r"Python 3.*\|\s*Idle", bar) is not None or "Kernel status: Idle" in shown


def _run_all(page):
    """Run > Run All Cells from the menu; returns the time it was chosen."""
    page.locator(".lm-MenuBar-item", has_text="Run").first.click()
    page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
    return time.monotonic()


def _not_started(page):
    """No cell has run or been queued ("[ ]:" before every cell)."""
    prompts = page.evaluate("() => [...document.querySelectorAll('.jp-InputPrompt')]"
                            ".map(e => e.textContent.trim())")
    return all(p in ("[ ]:", "") for p in prompts)


def _kernel_chosen(page):
    """Answer "Select Kernel" with the proposed kernel, as a user does (Notebook 7 asks when
    the cells are run while its session is still starting); True when no dialog is left."""
    dialog = page.locator(".jp-Dialog", has_text="Select Kernel")
    if dialog.count():
        dialog.locator("button", has_text=re.compile(r"^Select$")).click()
        return False
    return True


def _cell(page, i):
    return page.locator(".jp-Notebook .jp-Cell").nth(i)


def _printed(page):
    """(plo, p_target) shown by the second cell, or None."""
    text = _cell(page, 1).locator(".jp-OutputArea-output").all_inner_texts()
    m = _PLO.search(" ".join(text))
    return None if m is None else (float(m.group(1)), float(m.group(2)))


def _figure_point(page, name, x, y):
    """Viewport coordinates of the data point (x, y) of the Bokeh figure ``name`` (in any
    of the notebook's Bokeh documents), scrolled into view."""
    return page.evaluate("""([name, x, y]) => {
        for (const doc of Bokeh.documents) {
            const m = doc.get_model_by_name(name);
            const v = m && Bokeh.index.find_one(m);
            if (!v) { continue; }
            v.el.scrollIntoView({block: "center"});
            const r = v.canvas_view.el.getBoundingClientRect();
            return [r.x + v.frame.x_scale.compute(x), r.y + v.frame.y_scale.compute(y)];
        }
        return null; }""", [name, x, y])


def _page_plo(page):
    """The prior log-odds in the page's number box (the widget beside the slider)."""
    return page.evaluate("""() => {
        for (const doc of Bokeh.documents) {
            for (const m of doc.all_models) {
                if (m.format === "0.000" && typeof m.value === "number") { return m.value; }
            }
        }
        return null; }""")


@pytest.fixture
def shot_on_failure(page, request):
    """A screenshot of the page in test-artifacts/ when the test fails (what the user saw)."""
    failed = request.session.testsfailed
    yield
    if request.session.testsfailed > failed:
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "notebook-failure.png"), full_page=True)


def test_dashboard_in_jupyterlab_follows_a_drag(lab, page, shot_on_failure):
    t0 = time.monotonic()
    page.goto(lab, timeout=scaled_ms(PAGE_LOAD))
    # the notebook is open and its kernel idle
    wait_until(page, lambda: _cell(page, 2).count() == 1, PAGE_LOAD, "the notebook's cells")
    wait_until(page, lambda: _idle(page), KERNEL, "an idle kernel")
    # Run > Run All Cells, as a user does (again, as a user would, when the front end took
    # the first one while its kernel session was still starting: nothing ran)
    runs = [_run_all(page)]

    def plots():
        if not _kernel_chosen(page):
            return False
        if _not_started(page) and time.monotonic() - runs[-1] > scaled(15):
            runs.append(_run_all(page))
        return _cell(page, 0).locator(".jp-OutputArea-output canvas").count() >= 3

    wait_until(page, plots, KERNEL, "the dashboard's plots in the output")
    wait_until(page, lambda: _printed(page) is not None, KERNEL, "the second cell's output")
    plo0, p0 = _printed(page)
    # the third cell set the operating point from Python: the page shows it
    set_plo = math.log(0.25 / 0.75)
    wait_until(page, lambda: abs(_page_plo(page) - set_plo) < 1e-3, KERNEL,
               "the page to show the operating point set from Python")
    assert abs(p0 - 0.25) > 1e-6 and abs(plo0 - set_plo) > 1e-3  # printed before it was set
    # the dashboard of the DataFrame renders too
    wait_until(page, lambda: _cell(page, 3).locator(".jp-OutputArea-output canvas").count()
               >= 3, KERNEL, "the DataFrame's dashboard's plots in the output")
    rendered = time.monotonic() - t0
    # drag the operating point on the NBER plot from plo(0.25) to -4
    start = _figure_point(page, "nber", set_plo, 0.5)
    end = _figure_point(page, "nber", -4.0, 0.5)
    assert start is not None and end is not None
    mouse_drag(page, start[0], start[1], int(end[0] - start[0]), 0)
    wait_until(page, lambda: abs(_page_plo(page) + 4.0) < 0.1, KERNEL,
               "the page's operating point to follow the drag")
    # run the second cell again: the kernel's operating point is the dragged one
    _cell(page, 1).locator(".jp-InputArea-editor").click()
    page.keyboard.press("Shift+Enter")
    wait_until(page, lambda: abs(_printed(page)[0] + 4.0) < 0.1, KERNEL,
               "the kernel's operating point after the drag")
    plo, p = _printed(page)
    assert abs(plo - _page_plo(page)) < 5e-4  # the page's box has three decimals
    assert p == pytest.approx(1 / (1 + math.exp(-plo)), abs=1e-6)  # costs 1: plo moves p
    front = "Notebook 7" if "/notebooks/" in page.url else "JupyterLab"
    print(f"\n{front}: page open to plots and state {rendered:.1f} s, whole test "
          f"{time.monotonic() - t0:.1f} s (time scale x{scaled(1.0):.2g})")
    # the page loaded no script from the network: only Panel's stylesheets of models made
    # after the first render are asked of its CDN (blocked here; the page works without)
    scripts = [u for u in page.external_requests if not u.endswith(".css")
               and ".css?" not in u]
    assert scripts == []
