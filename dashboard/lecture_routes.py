"""The lecture page on ``llrlab serve``: every step of a lesson computed once and stepped in
the browser, and the lecture's position shared with the class over plain HTTP.

Two routes, added to the server by :func:`routes` (and guarded like every other route: the
host check and ``--token``, :func:`~.access.protect`):

``GET /lecture?channel=TOKEN`` redirects to the lecture page of the channel's lesson.

``GET /lecture/<lesson id>``
    The lesson's lecture page: the page ``llrlab report --lesson`` writes
    (:func:`~.lecture.lecture_html`: every step's text, plots, table and highlights, stepped
    with the lecturer's keys, the operating point dragged in the page).  It is made once per
    lesson and server process, in a worker thread, and then sent as it is (gzip-compressed
    when the browser accepts it) to every page that asks: a key press changes the step in the
    page itself, with no server round trip, and forty students cost the server forty file
    transfers, not forty dashboards.

``GET /lecture-position?channel=TOKEN&since=V`` and ``POST /lecture-position?channel=TOKEN``
    The position of a lecture channel (:mod:`.lecture_channel`: the lecturer's dashboard, its
    speaker view and the pages that follow share one): a ``GET`` answers at once when the
    position's version differs from ``since``, else waits for a change (a long poll, at most
    :data:`POLL_SECONDS`), with ``{"lesson", "step", "blackout", "version", "control"}``.  A
    ``POST`` of ``{"lesson", "step", "blackout"}`` moves the lecture; only the control token
    (the lecturer's) may.

The lecture page opened with ``?channel=TOKEN`` follows the lecture: the dashboard's "Class
link" gives the follow token (students' pages move with the lecturer, and may look at other
steps in between), its "Lecture page" the control token (the lecturer presents from the page
and the class, the speaker view and the dashboard follow).
"""

from __future__ import annotations

import asyncio
import gzip
import html
import json
import re
import threading
import time
from concurrent.futures import ThreadPoolExecutor

from tornado.web import RequestHandler

from .lecture_channel import find

__all__ = ["POLL_SECONDS", "class_link", "lecture_page_gzip", "routes"]

#: Longest wait of one position request before it answers with the unchanged position.
POLL_SECONDS = 20.0
#: A lesson id in a path (the lesson file names' own rule, plus a length limit).
_LESSON_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
#: Channels used over HTTP are kept this long after their last request, so that a lecture
#: led from the lecture page outlives the dashboard page that opened the channel.
_KEEP_SECONDS = 3 * 3600
_EXECUTOR = ThreadPoolExecutor(max_workers=1, thread_name_prefix="llrlab-lecture")
_gz: dict = {}
_gz_lock = threading.Lock()
_kept: dict = {}
_kept_lock = threading.Lock()


def lecture_page_gzip(lesson):
    """``(page bytes, gzip bytes)`` of ``lesson``'s lecture page, made once per lesson and
    process (run off the event loop: the first call computes every step)."""
    from .lecture import lecture_bytes

    data = lecture_bytes(lesson)
    with _gz_lock:
        hit = _gz.get(id(data))
        if hit is not None and hit[0] is data:
            return data, hit[1]
    packed = gzip.compress(data, compresslevel=6, mtime=0)
    with _gz_lock:
        _gz[id(data)] = (data, packed)  # (as many as lecture_bytes keeps pages)
        while len(_gz) > 4:
            del _gz[next(iter(_gz))]
    return data, packed


def _keep(channel):
    now = time.monotonic()
    with _kept_lock:
        _kept[id(channel)] = (channel, now)
        for key, (_c, seen) in list(_kept.items()):
            if now - seen > _KEEP_SECONDS:
                del _kept[key]


class _Waiting:
    """The position requests waiting on one channel, answered as soon as it changes: a
    member of the channel (called in the thread that moved the lecture) answers them on the
    server's event loop at once (in that same call when it is the loop's thread)."""

    def __init__(self, channel, loop):
        self.loop, self.thread = loop, threading.get_ident()
        self.requests: dict = {}
        self.member = channel.join(self._moved, None, name="http")

    def add(self, handler, done):
        self.requests[handler] = done

    def remove(self, handler):
        self.requests.pop(handler, None)

    def _moved(self, position):
        if threading.get_ident() == self.thread:
            self._answer()
        else:
            self.loop.call_soon_threadsafe(self._answer)

    def _answer(self):
        for handler, done in list(self.requests.items()):
            self.requests.pop(handler, None)
            if not handler._finished and not handler._gone:
                handler._answer(200, handler._position(handler._channel_of, handler._control))
            if not done.done():
                done.set_result(None)


def _waiting(channel):
    """The channel's :class:`_Waiting` (made on the first request that waits on it; kept
    as long as the channel)."""
    w = getattr(channel, "_http_waiting", None)
    if w is None:
        w = channel._http_waiting = _Waiting(channel, asyncio.get_running_loop())
    return w


def _page(title, text):
    return (f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
            f"</title></head><body style='font-family: sans-serif; max-width: 40em; "
            f"margin: 3em auto'><h1>{html.escape(title)}</h1><p>{html.escape(text)}</p>"
            f"</body></html>")


class LecturePage(RequestHandler):
    """``GET /lecture/<lesson id>``: the lesson's lecture page (see the module docstring)."""

    def initialize(self, lessons):
        self.lessons = lessons

    async def get(self, lesson_id):
        lesson = self.lessons.get(lesson_id) if _LESSON_ID.fullmatch(lesson_id) else None
        if lesson is None:
            known = ", ".join(sorted(self.lessons)) or "none"
            self.set_status(404)
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.finish(_page("llrlab: no such lesson",
                              f"This server has no lesson of that name. Its lessons: {known}."))
            return
        loop = asyncio.get_running_loop()
        data, packed = await loop.run_in_executor(_EXECUTOR, lecture_page_gzip, lesson)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-cache")
        self.set_header("X-Content-Type-Options", "nosniff")
        self.set_header("Referrer-Policy", "no-referrer")  # the channel token stays here
        self.set_header("Vary", "Accept-Encoding")
        if "gzip" in self.request.headers.get("Accept-Encoding", ""):
            self.set_header("Content-Encoding", "gzip")
            self.finish(packed)
        else:
            self.finish(data)


class LectureEntry(RequestHandler):
    """``GET /lecture?channel=TOKEN``: the lecture page of the lesson the channel is at (a
    link that stays right when the lecturer opens another lesson)."""

    def get(self):
        found = find(self.get_query_argument("channel", ""))
        lesson = found[0].position.lesson if found is not None else ""
        if not lesson or not _LESSON_ID.fullmatch(lesson):
            self.set_status(404 if found is None else 200)
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.set_header("Cache-Control", "no-store")
            self.finish(_page("llrlab: lecture", (
                "No lecture has this link: it has ended, or the link is incomplete. Ask "
                "the lecturer for the class link again." if found is None else
                "The lecturer has not opened a lesson yet: reload this page when they do.")))
            return
        _keep(found[0])
        self.set_header("Cache-Control", "no-store")
        self.redirect(f"/lecture/{lesson}?{self.request.query}")


class LecturePosition(RequestHandler):
    """``GET`` (long poll) and ``POST`` ``/lecture-position`` (see the module docstring)."""

    def initialize(self, access=None):
        self.access = access  # the server's --token, for the class's link

    def _channel(self):
        found = find(self.get_query_argument("channel", ""))
        if found is None:
            self._answer(404, {"error": "no lecture has this link (it has ended, or the "
                                        "link is incomplete)"})
            return None, False
        _keep(found[0])
        self._channel_of = found[0]
        return found

    def _answer(self, status, body):
        self.set_status(status)
        self.set_header("Content-Type", "application/json")
        self.set_header("Cache-Control", "no-store")
        self.finish(json.dumps(body))

    def _position(self, channel, control):
        p = channel.position
        out = {"lesson": p.lesson, "step": p.step, "blackout": p.blackout,
               "version": p.version, "control": control}
        if control:  # the lecturer's page offers the class its link
            out["follow"] = channel.follow_token
            if self.access:  # (this request passed the token check: the page may know it)
                out["access"] = self.access
        return out

    async def get(self):
        channel, control = self._channel()
        if channel is None:
            return
        try:
            since = int(self.get_query_argument("since", "-1"))
        except ValueError:
            self._answer(400, {"error": "since must be a whole number"})
            return
        if channel.position.version != since:
            self._answer(200, self._position(channel, control))
            return
        # wait for a change: the channel's HTTP member answers this request the moment the
        # lecture moves, before any dashboard following it takes the event loop
        self._control = control
        done = self._done = asyncio.get_running_loop().create_future()
        _waiting(channel).add(self, done)
        try:
            await asyncio.wait_for(asyncio.shield(done), POLL_SECONDS)
        except TimeoutError:
            pass
        except asyncio.CancelledError:  # the server stops: an answer, not an error
            if not self._finished and not self._gone:
                self._answer(200, self._position(channel, control))
            raise
        finally:
            _waiting(channel).remove(self)
        if not self._finished and not self._gone:
            self._answer(200, self._position(channel, control))

    def on_connection_close(self):
        self._gone = True  # nothing more to answer: the wait ends now
        if self._done is not None and not self._done.done():
            self._done.set_result(None)

    _gone, _done = False, None

    def post(self):
        channel, control = self._channel()
        if channel is None:
            return
        if not control:
            self._answer(403, {"error": "this link follows the lecture; only the lecturer's "
                                        "link moves it"})
            return
        try:
            body = json.loads(self.request.body[:4096] or b"{}")
            lesson, step = body.get("lesson", ""), body.get("step", 1)
            blackout = body.get("blackout", False)
            if (not isinstance(lesson, str) or (lesson and not _LESSON_ID.fullmatch(lesson))
                    or type(step) is not int or not 1 <= step <= 10_000
                    or not isinstance(blackout, bool)):
                raise ValueError
        except (ValueError, AttributeError):  # (not JSON, not an object, a bad field)
            self._answer(400, {"error": "expected {\"lesson\": id, \"step\": n, "
                                        "\"blackout\": true|false}"})
            return
        channel.move(lesson, step, blackout)
        self._answer(200, self._position(channel, control))


def class_link(token):
    """The path of the lecture page for a channel token (relative to the server's root)."""
    from urllib.parse import quote

    return f"lecture?channel={quote(token, safe='')}"


def routes(lessons, access=None):
    """The server's extra routes (``extra_patterns`` of Panel's ``get_server``) for
    ``lessons`` (id -> :class:`~.lessons.Lesson`); ``access``: the server's access token
    (``--token``), which the class's link then carries."""
    return [(r"/lecture", LectureEntry),
            (r"/lecture/([^/]+)", LecturePage, {"lessons": dict(lessons)}),
            (r"/lecture-position", LecturePosition, {"access": access})]
