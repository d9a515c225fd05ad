"""``llrlab serve`` as a separate process: the access token on every HTTP and websocket
request, the websocket origins and host names, the warning on a non-local address (localhost
only: the non-local address is tried on a busy port, so nothing is ever exposed)."""

from __future__ import annotations

import base64
import os
import re
import socket
import subprocess
import urllib.error
import urllib.request

import pytest

from .conftest import (
    WAIT,
    new_context,
    scaled,
    screenshot,
    wait_until,
)
from .test_entry_points import LLRLAB, START_TIMEOUT

pytestmark = pytest.mark.browser

#: Every route of the server (the page, Bokeh's and Panel's endpoints and static files).
ROUTES = ["/", "/?token=wrong-token-value", "/ws", "/metadata", "/autoload.js",
          "/favicon.ico", "/static/js/bokeh.min.js", "/static/extensions/panel/panel.min.js",
          "/components/panel/x.js", "/lecture/calibration", "/lecture?channel=x",
          "/lecture-position?channel=x"]


@pytest.fixture
def server(llrlab_serve):
    """``start(*args, env=None) -> (port, the line with the link)``; stopped after the test."""

    def start(*args, env=None):
        s = llrlab_serve(*args, env=env)
        return s.port, s.link_line

    return start


def _get(url, cookie=None, host=None):
    headers = {"Cookie": cookie} if cookie else {}
    if host:
        headers["Host"] = host
    req = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=scaled(WAIT)) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers, exc.read()


def _ws(port, origin=None, cookie=None):
    """HTTP status of a websocket handshake (101 when the server accepted it).

    A plain socket, closed before returning: a client whose socket is left to the garbage
    collector makes a ResourceWarning surface in whichever test runs next."""
    lines = ["GET /ws HTTP/1.1", f"Host: 127.0.0.1:{port}", "Upgrade: websocket",
             "Connection: Upgrade", "Sec-WebSocket-Version: 13",
             "Sec-WebSocket-Key: " + base64.b64encode(os.urandom(16)).decode(),
             "Sec-WebSocket-Protocol: bokeh, not-a-session"]
    if origin:
        lines.append(f"Origin: {origin}")
    if cookie:
        lines.append(f"Cookie: {cookie}")
    with socket.create_connection(("127.0.0.1", port), timeout=scaled(WAIT)) as s:
        s.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        head = b""
        while b"\r\n" not in head:
            chunk = s.recv(4096)
            if not chunk:
                break
            head += chunk
    status = head.split(b"\r\n", 1)[0].split()
    assert len(status) >= 2 and status[0].startswith(b"HTTP/"), head[:200]
    return int(status[1])


def test_the_token_is_checked_on_every_request(server, browser):
    port, line = server("--token")
    m = re.search(r"(http://127\.0\.0\.1:\d+/\?token=([A-Za-z0-9_-]{20,}))", line)
    assert m, line
    link, token = m.group(1), m.group(2)
    base = f"http://127.0.0.1:{port}"
    # without the token: 403 everywhere (redirected to the explanation)
    for route in ROUTES:
        status, _, body = _get(base + route)
        assert status == 403, route
        assert b"needs its access token" in body, route
        assert b"wrong-token-value" not in body  # nothing of the request is echoed
    status, _, body = _get(base + "/no-such-page")  # no route: tornado's bare 404
    assert status == 404 and b"llrlab" not in body
    assert _ws(port) == 403
    # the printed link: the page, and a cookie for the rest
    status, headers, _ = _get(link)
    assert status == 200
    cookie = headers["Set-Cookie"].split(";")[0]
    assert "HttpOnly" in headers["Set-Cookie"] and "SameSite=Strict" in headers["Set-Cookie"]
    assert _get(base + "/static/js/bokeh.min.js", cookie)[0] == 200
    assert _get(base + "/", cookie)[0] == 200
    assert _ws(port, cookie=cookie) == 101
    assert _get(base + "/", cookie.split("=")[0] + "=" + token[:-1] + "x")[0] == 403
    # the lecture routes with the cookie: a lesson or a lecture that does not exist is one
    # plain answer (nothing of the request echoed)
    status, _, body = _get(base + "/lecture/no-such-lesson", cookie)
    assert status == 404 and b"Its lessons: calibration, forensic." in body
    assert b"no-such-lesson" not in body
    status, _, body = _get(base + "/lecture-position?channel=" + "a" * 24, cookie)
    assert status == 404 and b"no lecture has this link" in body
    status, _, body = _get(base + "/lecture?channel=<script>", cookie)
    assert status == 404 and b"<script>" not in body

    # in a browser: the link works, the bare address does not
    ctx = new_context(browser, viewport={"width": 1400, "height": 1000})
    try:
        page = ctx.new_page()
        errors = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(link)
        wait_until(page, lambda: page.locator(".bk-Canvas").count() >= 2,
                   timeout=START_TIMEOUT, what="the plots with the token")
        page.reload()  # the cookie keeps the page open after the query is gone
        wait_until(page, lambda: page.locator(".bk-Canvas").count() >= 2,
                   timeout=START_TIMEOUT, what="the plots after a reload")
        screenshot(page, "20_token_ok")
        assert errors == []
    finally:
        ctx.close()
    ctx = new_context(browser)
    try:
        page = ctx.new_page()
        page.goto(base + "/")
        wait_until(page, lambda: page.get_by_text("needs its access token").count() > 0,
                   what="the refusal page")
        page.wait_for_load_state("networkidle")  # what the page loads, it has loaded
        assert page.locator(".bk-Canvas").count() == 0
    finally:
        ctx.close()


def test_a_fixed_token_from_the_environment(server):
    port, line = server("--token", env={"LLRLAB_TOKEN": "workshop-2024-abc"})
    assert line.strip().split()[-5].endswith("/?token=workshop-2024-abc"), line
    base = f"http://127.0.0.1:{port}"
    assert _get(base + "/?token=workshop-2024-abc")[0] == 200
    assert _get(base + "/?token=workshop-2024-abd")[0] == 403


def test_websocket_origins_add_to_the_default_list(server):
    port, _ = server("--allow-websocket-origin", "lab.example.org:8080")
    base = f"http://127.0.0.1:{port}"
    # the Host header must name this server: a page whose name was pointed at 127.0.0.1
    # (DNS rebinding) is refused
    assert _get(base + "/static/js/bokeh.min.js")[0] == 200
    assert _get(base + "/static/js/bokeh.min.js", host=f"localhost:{port}")[0] == 200
    status, _, body = _get(base + "/", host=f"evil.example.org:{port}")
    assert status == 403 and b"does not answer to this host name" in body
    assert _get(base + "/static/js/bokeh.min.js", host="lab.example.org:8080")[0] == 200
    assert _ws(port, origin="http://lab.example.org:8080") == 101  # added
    assert _ws(port, origin=f"http://localhost:{port}") == 101     # the default list stays
    assert _ws(port, origin=f"http://127.0.0.1:{port}") == 101
    assert _ws(port, origin="http://evil.example.org") == 403
    assert _ws(port, origin="http://lab.example.org:8081") == 403


def test_wildcard_origin_and_exposed_address_on_the_command_line():
    r = subprocess.run([str(LLRLAB), "serve", "--no-show", "--allow-websocket-origin", "*"],
                       capture_output=True, text=True, timeout=scaled(START_TIMEOUT))
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and "any web page" in r.stderr
    # a non-local address is warned about before listening (on a busy port: it never
    # listens, nothing is exposed)
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        r = subprocess.run([str(LLRLAB), "serve", "--no-show", "--address", "0.0.0.0",
                            "--port", str(port)], capture_output=True, text=True,
                           timeout=scaled(START_TIMEOUT))
    assert r.returncode == 2
    warning, error = r.stderr.strip().splitlines()
    assert warning.startswith("llrlab serve: warning: --address 0.0.0.0")
    assert "anyone who can reach this computer" in warning and "--token" in warning
    assert "already in use" in error
