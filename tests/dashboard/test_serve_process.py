"""``llrlab serve`` as users run it (the installed console script, a process of its own): no
access token in its log, whatever the requests and the log level; SIGTERM, SIGHUP and Ctrl-C
stop it cleanly and remove its upload folder; the next server removes the folder of one that
was killed.  Each server runs with its own temporary folder (``TMPDIR``)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
import urllib.parse

import pytest

from ..browser.conftest import free_port, stop_process_group
from ..browser.test_entry_points import LLRLAB, START_TIMEOUT
from ..browser.test_serve_access import _get, _ws

TOKEN = "workshop-secret-2024"
#: Wrong tokens a client may send: a near miss of the right one, and others.
WRONG = ["workshop-secret-2025", "hunter2-is-my-password", "other-server-token-x"]


class Served:
    """``llrlab serve --no-show --port P ARGS`` with ``folder`` as its ``TMPDIR`` and its
    stdout and stderr in files there (named after ``name``)."""

    def __init__(self, folder, *args, env=None, name="server"):
        self.folder, self.port = folder, free_port()
        self.out_path, self.err_path = folder / f"{name}.out", folder / f"{name}.err"
        with open(self.out_path, "w") as out, open(self.err_path, "w") as err:
            self.proc = subprocess.Popen(
                [str(LLRLAB), "serve", "--no-show", "--port", str(self.port), *args],
                stdout=out, stderr=err, start_new_session=True,
                env=dict(os.environ, PYTHONUNBUFFERED="1", TMPDIR=str(folder), **(env or {})))
        deadline = time.monotonic() + START_TIMEOUT
        while "the dashboard is at" not in self.out_path.read_text():
            assert self.proc.poll() is None, f"the server exited: {self.err()[-2000:]}"
            assert time.monotonic() < deadline, "the server printed no link"
            time.sleep(0.1)
        self.base = f"http://127.0.0.1:{self.port}"

    def out(self):
        return self.out_path.read_text()

    def err(self):
        return self.err_path.read_text()

    def upload_roots(self):
        return sorted(p for p in self.folder.iterdir()
                      if p.name.startswith(f"llrlab-uploads-{self.proc.pid}-"))

    def stop(self, signum, timeout=60):
        """Send ``signum`` and return the exit code."""
        self.proc.send_signal(signum)
        return self.proc.wait(timeout=timeout)

    def close(self):
        if self.proc.poll() is None:
            stop_process_group(self.proc)


@pytest.fixture
def served(tmp_path):
    servers = []

    def start(*args, env=None, name="server"):
        s = Served(tmp_path, *args, env=env, name=name)
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.close()


def _variants(text):
    """``text`` as it may travel in a URL: plain, percent-encoded, fully escaped."""
    return {text, urllib.parse.quote(text, safe=""),
            "".join(f"%{b:02X}" for b in text.encode())}


def test_no_token_in_the_log_at_any_level(served):
    """Right and wrong tokens, in every place and spelling a client may put them, on every
    kind of route (page, static, 404, the refusal page, websocket), with the access log of
    every request on (``--log-level debug``): stderr and stdout never show them, except the
    link printed for the user."""
    s = served("--token", "--log-level", "debug", env={"LLRLAB_TOKEN": TOKEN})
    base, quoted = s.base, urllib.parse.quote(TOKEN, safe="")
    status, headers, _ = _get(f"{base}/?token={TOKEN}")
    assert status == 200
    cookie = headers["Set-Cookie"].split(";")[0]
    name = cookie.split("=")[0]
    expected = {
        f"/?token={WRONG[0]}": 403,
        f"/static/js/bokeh.min.js?token={WRONG[1]}": 403,
        f"/static/js/bokeh.min.js?token={TOKEN}": 200,
        f"/no-such-page?token={TOKEN}&a=1": 404,
        f"/static/js/bokeh.min.js?a=1&token={quoted}": 200,
        "/static/js/bokeh.min.js?token=" + "".join(f"%{b:02X}" for b in TOKEN.encode()): 200,
        f"/?%74oken={WRONG[2]}": 403,
        f"/static/js/bokeh.min.js?token={WRONG[0]}&token={TOKEN}": 200,  # the last counts
        f"/{TOKEN}": 404,
        "/llrlab-token?next=" + urllib.parse.quote(f"/?token={WRONG[1]}", safe=""): 403,
        f"/metadata?token={WRONG[2]}": 403,
    }
    for route, code in expected.items():
        assert _get(base + route)[0] == code, route
    # in headers: a Referer, a wrong cookie, a wrong host name
    assert _get(f"{base}/?x=1", cookie=f"{name}={WRONG[0]}")[0] == 403
    assert _get(f"{base}/static/js/bokeh.min.js", cookie=cookie)[0] == 200
    assert _get(f"{base}/", host=f"evil.example.org:{s.port}")[0] == 403
    # the websocket: accepted with the cookie, refused without it or from another site
    assert _ws(s.port, cookie=cookie) == 101
    assert _ws(s.port, cookie=f"{name}={WRONG[1]}") == 403
    assert _ws(s.port, origin="http://evil.example.org", cookie=cookie) == 403
    time.sleep(1.0)  # the last lines reach the log
    assert s.stop(signal.SIGTERM) == 0
    out, err = s.out(), s.err()
    link = f"the dashboard is at http://127.0.0.1:{s.port}/?token={TOKEN} "
    assert out.count(TOKEN) == 1 and link in out  # the link, once
    for secret in [TOKEN, *WRONG]:
        for text in _variants(secret):
            assert text not in err, text
            assert text not in out.replace(link, ""), text
    # the requests were logged (the check is not vacuous), redacted
    logged = re.findall(r"tornado\.access: (\d{3}) GET (\S+)", err)
    assert len(logged) >= len(expected) + 3
    for line in [("403", "/?token=***"), ("200", "/static/js/bokeh.min.js?token=***"),
                 ("404", "/***")]:
        assert line in logged
    assert "Refusing websocket connection from Origin" in err
    # (the handshake's bogus Bokeh session token makes Bokeh log a traceback: redacted too)


def test_at_the_default_level_refused_requests_are_logged_redacted(served):
    s = served("--token", env={"LLRLAB_TOKEN": TOKEN})
    assert _get(f"{s.base}/static/js/bokeh.min.js?token={WRONG[0]}")[0] == 403
    assert _get(f"{s.base}/?token={TOKEN}")[0] == 200
    time.sleep(0.5)
    assert s.stop(signal.SIGTERM) == 0
    err = s.err()
    assert "WARNING tornado.access: 403 GET /static/js/bokeh.min.js?token=*** " in err
    assert "200 GET" not in err  # successful requests only from --log-level info
    assert WRONG[0] not in err and TOKEN not in err


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT],
                         ids=["SIGTERM", "SIGHUP", "SIGINT"])
def test_stop_signals_remove_the_upload_folder(served, signum):
    """systemd and ``docker stop`` send SIGTERM, a closed terminal SIGHUP: the server stops
    as on Ctrl-C, exits with 0 and leaves no upload folder (a page opened on it made one)."""
    s = served()
    assert _get(f"{s.base}/")[0] == 200  # a session: its upload widgets make their folders
    roots = s.upload_roots()
    assert len(roots) == 1 and any(p.name.startswith("upload-") for p in roots[0].iterdir())
    assert s.stop(signum) == 0
    assert s.upload_roots() == [] and not os.path.exists(roots[0])
    assert "Traceback" not in s.err() + s.out()


def test_the_next_server_removes_the_folder_of_a_killed_one(served):
    killed, running = served(name="killed"), served(name="running")  # one temporary folder
    assert _get(f"{killed.base}/")[0] == 200 and _get(f"{running.base}/")[0] == 200
    roots, live_root = killed.upload_roots(), running.upload_roots()
    assert len(roots) == 1 and len(live_root) == 1
    os.killpg(killed.proc.pid, signal.SIGKILL)  # no chance to clean up
    killed.proc.wait(timeout=60)
    assert roots[0].exists()
    third = served("--log-level", "info", name="third")
    try:
        assert not roots[0].exists()  # removed at start-up, and said so at info level
        assert "removed 1 upload folder(s) left by llrlab servers that were killed" in third.err()
        assert running.upload_roots() == live_root and live_root[0].exists()
        assert third.upload_roots() == []  # (no page opened on it yet)
    finally:
        third.close()
