"""A file uploaded through the page of ``llrlab serve`` (the console script, a process of its
own) is on disk while the server runs and gone once SIGTERM (systemd, ``docker stop``) has
stopped it: before, only Ctrl-C removed the upload folders."""

from __future__ import annotations

import signal

import pytest

from llrlab.core.io import write_trials

from ..dashboard.conftest import make_trials
from ..dashboard.test_serve_process import Served
from .conftest import wait_until
from .test_entry_points import START_TIMEOUT
from .test_uploads_browser import _inputs

pytestmark = pytest.mark.browser


def test_sigterm_removes_a_file_uploaded_through_the_page(page, tmp_path):
    data = tmp_path / "mine.txt"
    write_trials(str(data), make_trials(2000, seed=5, ids=True))
    s = Served(tmp_path, "--token", env={"LLRLAB_TOKEN": "upload-test-token"})
    try:
        page.goto(f"{s.base}/?token=upload-test-token")
        wait_until(page, lambda: page.locator(".bk-Canvas").count() >= 2,
                   timeout=START_TIMEOUT, what="the dashboard")
        _inputs(page).nth(0).set_input_files(str(data))

        def spooled():
            return [p for root in s.upload_roots() for p in root.rglob("scores.txt")]

        wait_until(page, lambda: spooled() and spooled()[0].stat().st_size
                   == data.stat().st_size, timeout=60, what="the upload on the server's disk")
        root = s.upload_roots()[0]
        assert spooled()[0].read_bytes() == data.read_bytes()
        assert page.console_errors == [] and page.external_requests == []
        assert s.stop(signal.SIGTERM) == 0
        assert not root.exists() and s.upload_roots() == []
        assert "Traceback" not in s.err()
        assert "upload-test-token" not in s.err()
    finally:
        s.close()
