"""The lecture routes of ``llrlab serve`` (:mod:`llrlab.dashboard.lecture_routes`): the
position of a lecture over HTTP (long poll, who may move it, hostile requests) and the entry
link, on a Tornado server in a thread of this process."""

from __future__ import annotations

import asyncio
import json
import threading
import time
import urllib.error
import urllib.request

import pytest
from tornado.httpserver import HTTPServer
from tornado.web import Application

from llrlab.dashboard import lecture_routes
from llrlab.dashboard.lecture_channel import open_channel
from llrlab.dashboard.lessons import builtin_lessons

from .._time_scale import scaled


@pytest.fixture
def base(monkeypatch):
    monkeypatch.setattr(lecture_routes, "POLL_SECONDS", 1.5)
    ready, box = threading.Event(), {}

    def run():
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        server = HTTPServer(Application(lecture_routes.routes(builtin_lessons(), "tok")))
        server.listen(0, "127.0.0.1")
        box["port"] = next(iter(server._sockets.values())).getsockname()[1]
        box["loop"], box["server"] = loop, server
        ready.set()
        loop.run_forever()
        loop.close()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    assert ready.wait(10)
    yield f"http://127.0.0.1:{box['port']}"
    box["loop"].call_soon_threadsafe(box["server"].stop)
    box["loop"].call_soon_threadsafe(box["loop"].stop)
    t.join(10)


def _get(url, data=None):
    req = urllib.request.Request(url, data=data, method="POST" if data is not None else "GET")
    try:
        with urllib.request.urlopen(req, timeout=scaled(10)) as r:
            return r.status, r.read(), r.url
    except urllib.error.HTTPError as e:
        return e.code, e.read(), url


def test_the_position_long_poll_and_who_may_move_it(base):
    channel = open_channel()
    channel.publish("calibration", 3)
    follow = f"{base}/lecture-position?channel={channel.follow_token}"
    lead = f"{base}/lecture-position?channel={channel.control_token}"
    status, body, _ = _get(follow)
    p = json.loads(body)
    assert status == 200 and (p["lesson"], p["step"], p["blackout"]) == ("calibration", 3, False)
    assert p["control"] is False and "follow" not in p and "access" not in p
    lp = json.loads(_get(lead)[1])
    assert lp["control"] is True and lp["follow"] == channel.follow_token
    assert lp["access"] == "tok"
    # an unchanged position: the request waits (here 1.5 s), then answers as it is
    t0 = time.monotonic()
    assert json.loads(_get(f"{follow}&since={p['version']}")[1]) == p
    assert time.monotonic() - t0 >= 1.4
    # a change answers a waiting request at once
    box = {}

    def wait():
        t = time.monotonic()
        box["p"] = json.loads(_get(f"{follow}&since={p['version']}")[1])
        box["t"] = time.monotonic() - t

    waiter = threading.Thread(target=wait)
    waiter.start()
    time.sleep(0.3)
    move = json.dumps({"lesson": "calibration", "step": 5, "blackout": True}).encode()
    status, body, _ = _get(lead, move)
    assert status == 200 and json.loads(body)["step"] == 5
    waiter.join(10)
    assert (box["p"]["step"], box["p"]["blackout"]) == (5, True)
    assert box["t"] < 1.2  # (the change, not the time limit, ended the wait)
    assert (channel.position.step, channel.position.blackout) == (5, True)
    # a student's link cannot move the lecture
    status, body, _ = _get(follow, move.replace(b"5", b"9"))
    assert status == 403 and b"only the lecturer" in body and channel.position.step == 5


@pytest.mark.parametrize("body", [b"not json", b"[1, 2]", b'{"step": "x"}', b'{"step": 0}',
                                  b'{"lesson": "../../etc", "step": 2}',
                                  b'{"lesson": "<script>", "step": 2}', b'{"step": 1e400}',
                                  b'{"step": 2.5}', b'{"step": true}', b'{"lesson": 7}',
                                  b'{"step": 2, "blackout": "yes"}', b"\xff\xfe"])
def test_a_bad_move_is_refused_in_one_line(base, body):
    channel = open_channel()
    channel.publish("calibration", 2)
    status, out, _ = _get(f"{base}/lecture-position?channel={channel.control_token}", body)
    assert status == 400 and b"expected" in out and b"script" not in out
    assert channel.position.step == 2


@pytest.mark.parametrize("query", ["", "?channel=", "?channel=short",
                                   "?channel=" + "a" * 30, "?channel=%3Cscript%3E" * 3])
def test_a_link_of_no_lecture(base, query):
    status, body, _ = _get(f"{base}/lecture-position{query}")
    assert status == 404 and json.loads(body)["error"].startswith("no lecture has this link")
    status, body, _ = _get(f"{base}/lecture{query}")
    assert status == 404 and b"No lecture has this link" in body and b"<script" not in body


def test_since_must_be_a_number(base):
    channel = open_channel()
    status, body, _ = _get(f"{base}/lecture-position?channel={channel.follow_token}&since=x")
    assert status == 400 and b"whole number" in body


def test_the_entry_link_goes_to_the_lecture_s_lesson(base, monkeypatch):
    channel = open_channel()
    status, body, _ = _get(f"{base}/lecture?channel={channel.follow_token}")
    assert status == 200 and b"has not opened a lesson yet" in body
    channel.publish("forensic", 4)
    # (the lecture page itself is made by lecture_html: a stand-in here, tested elsewhere)
    monkeypatch.setattr(lecture_routes, "lecture_page_gzip",
                        lambda lesson: (f"page of {lesson.id}".encode(), b""))
    status, body, url = _get(f"{base}/lecture?channel={channel.follow_token}&token=t")
    assert status == 200 and body == b"page of forensic"
    assert url.endswith(f"/lecture/forensic?channel={channel.follow_token}&token=t")
    status, body, _ = _get(f"{base}/lecture/nope")
    assert status == 404 and b"Its lessons: calibration, forensic." in body


def test_a_student_who_leaves_while_waiting(base, caplog):
    import socket

    channel = open_channel()
    channel.publish("calibration", 2)
    port = base.rsplit(":", 1)[1]
    with socket.create_connection(("127.0.0.1", int(port))) as s:
        s.sendall(f"GET /lecture-position?channel={channel.follow_token}&since="
                  f"{channel.position.version} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
        time.sleep(0.3)
    time.sleep(0.3)
    move = json.dumps({"lesson": "calibration", "step": 3, "blackout": False}).encode()
    assert _get(f"{base}/lecture-position?channel={channel.control_token}", move)[0] == 200
    time.sleep(1.8)  # (past the waiting request's time limit)
    assert [r.getMessage() for r in caplog.records if r.levelname == "ERROR"] == []
