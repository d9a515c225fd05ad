"""Lecture channels: the step of a lesson shared by several pages of one server process.

A lecturer's page (the audience window, on the projector) opens a :class:`LectureChannel`;
the speaker view (a second window, :mod:`.speaker`) joins it, and so can students' pages that
follow the lecture.  Every member is told when the lesson, the step or the black screen
changes, on its own session's event loop; a member that may steer (``control``) publishes its
own moves, and the others follow.

A channel is found by one of its two tokens, long random strings (``secrets``): the
*control* token (the speaker view's link: it steers the lecture) and the *follow* token (a
student's link: it only follows).  Sessions hold their channel; the registry holds channels
weakly, so a channel ends with its last page.  Everything here is thread-safe (Panel may serve
sessions from several threads) and imports neither Panel nor Bokeh.

API
---
``open_channel()`` -> a new :class:`LectureChannel` (held by the caller).
``find(token)`` -> ``(channel, can_control)`` or ``None``.
``channel.publish(lesson, step, *, origin=None)``, ``channel.set_blackout(on, origin=None)``,
``channel.move(lesson, step, blackout, *, origin=None)`` (both in one change).
``channel.join(callback, doc=None, *, name="")`` -> a :class:`Membership`; ``callback(position)``
is called with the newest :class:`Position` on ``doc``'s event loop (once per burst of moves:
moves that arrive while one is waiting are folded into it); ``membership.leave()``.
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
import weakref
from dataclasses import dataclass

__all__ = ["MAX_CHANNELS", "LectureChannel", "Membership", "Position", "find", "open_channel"]

log = logging.getLogger(__name__)

#: Most channels one process keeps (each is a few hundred bytes; a page opens one).
MAX_CHANNELS = 10_000
_TOKEN_BYTES = 18

_lock = threading.Lock()
_registry: weakref.WeakValueDictionary = weakref.WeakValueDictionary()


@dataclass(frozen=True)
class Position:
    """Where a lecture is: the lesson's id ('' for none), the step (1-based), whether the
    audience's screen is black, and a counter that grows with every change."""

    lesson: str = ""
    step: int = 1
    blackout: bool = False
    version: int = 0


class Membership:
    """One page's place in a channel (see :meth:`LectureChannel.join`)."""

    def __init__(self, channel, callback, doc, name):
        self._channel = channel
        self._callback = callback
        self._doc_ref = None if doc is None else weakref.ref(doc)
        self.name = name
        self._waiting = False
        self._lock = threading.Lock()

    @property
    def channel(self):
        return self._channel

    def leave(self):
        self._channel._leave(self)

    def _deliver(self):
        """Run the callback with the channel's newest position (on the member's loop)."""
        with self._lock:
            self._waiting = False
        try:
            self._callback(self._channel.position)
        except Exception:  # one member's failure must not stop the others
            log.exception("a lecture channel member failed to follow")

    def _notify(self):
        """Schedule :meth:`_deliver` once, on the member's session (thread-safe)."""
        doc = None if self._doc_ref is None else self._doc_ref()
        if self._doc_ref is not None and doc is None:  # the page has gone
            self._channel._leave(self)
            return
        with self._lock:
            if self._waiting:
                return
            self._waiting = True
        if doc is None:
            self._deliver()
            return
        try:
            doc.add_next_tick_callback(self._deliver_in(doc))
        except Exception:  # the session has ended
            self._channel._leave(self)

    def _deliver_in(self, doc):
        def run():
            try:
                from panel.io.state import set_curdoc
            except ImportError:  # pragma: no cover - Panel is a dependency of the dashboard
                self._deliver()
                return
            with set_curdoc(doc):
                self._deliver()

        return run


class LectureChannel:
    """The shared position of one lecture (see the module docstring)."""

    def __init__(self):
        self.control_token = secrets.token_urlsafe(_TOKEN_BYTES)
        self.follow_token = secrets.token_urlsafe(_TOKEN_BYTES)
        self.created = time.time()
        self._lock = threading.Lock()
        self._position = Position()
        self._members: list[Membership] = []

    @property
    def position(self):
        with self._lock:
            return self._position

    @property
    def members(self):
        with self._lock:
            return list(self._members)

    def join(self, callback, doc=None, *, name=""):
        """Add a member: ``callback(position)`` runs on ``doc``'s event loop (at once without
        a document) after every change another member makes."""
        member = Membership(self, callback, doc, name)
        with self._lock:
            self._members.append(member)
        return member

    def _leave(self, member):
        with self._lock:
            self._members = [m for m in self._members if m is not member]

    def _change(self, origin, **changes):
        with self._lock:
            new = {**self._position.__dict__, **changes}
            if all(getattr(self._position, k) == v for k, v in changes.items()):
                return False
            new["version"] = self._position.version + 1
            self._position = Position(**new)
            others = [m for m in self._members if m is not origin]
        for m in others:
            m._notify()
        return True

    def publish(self, lesson, step, *, origin=None):
        """The lecture is at ``step`` of ``lesson``: every member but ``origin`` follows.
        Returns False when that is where it already was."""
        return self._change(origin, lesson=str(lesson or ""), step=max(1, int(step)))

    def move(self, lesson, step, blackout, *, origin=None):
        """Step and black screen in one change (every member sees both at once)."""
        return self._change(origin, lesson=str(lesson or ""), step=max(1, int(step)),
                            blackout=bool(blackout))

    def set_blackout(self, on, *, origin=None):
        """Black the audience's screen (or bring it back)."""
        return self._change(origin, blackout=bool(on))


def open_channel():
    """A new channel, registered under its two tokens (held weakly: keep a reference)."""
    channel = LectureChannel()
    with _lock:
        if len(_registry) >= 2 * MAX_CHANNELS:
            raise RuntimeError(f"more than {MAX_CHANNELS} lectures at once in this server")
        _registry[channel.control_token] = channel
        _registry[channel.follow_token] = channel
    return channel


def find(token):
    """``(channel, can_control)`` for a token of a live channel, else None.  A token that
    is not text of the right form is refused without a look-up."""
    if not isinstance(token, str) or not 16 <= len(token) <= 64 or not token.replace(
            "-", "").replace("_", "").isalnum():
        return None
    with _lock:
        channel = _registry.get(token)
    if channel is None:
        return None
    return channel, secrets.compare_digest(token, channel.control_token)
