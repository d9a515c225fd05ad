"""The page's address follows the view: ``pn.state.location.sync`` of the state's parts.

A drag moves the operating point tens of times a second; rewriting the address (a message to
the browser and a history change) on every step costs time and fills nothing useful, so the
operating point reaches the address through a :class:`Debounced` mirror: its values are copied
from the state only once the point has stayed still for ``delay`` seconds (the drag paused or
ended).  The other way round (a link opened) the mirror sets the state at once.  The sidebar's
operating-point widgets show the same mirror (``controls.py``): when a drag pauses, the widgets
and the address are updated together, in one message.  A point that is already a pause (the
in-page drag sends one point per pause, :mod:`.views.op_grid`) is copied at once
(:meth:`Debounced.at_once`), in the message that answers it.
"""

from __future__ import annotations

import contextlib
import weakref

import param

from .views._common import apply_held, changed_values

__all__ = ["POINT_NAMES", "Debounced", "keep_lesson_in_address", "sync_url"]


class Debounced(param.Parameterized):
    """A copy of some parameters of ``part`` that follows it ``delay`` seconds late.

    Changes of the copy (the address of a link being opened) are set on ``part`` at once;
    changes of ``part`` are copied after it has been still for ``delay`` seconds, with the
    timer of the session's document ``doc`` (without a document: at once).
    """

    def __init__(self, part, names, doc=None, delay=0.3):
        super().__init__()
        self._part, self._names = part, tuple(names)
        # weakly: Panel keeps a closed page's objects in dictionaries keyed weakly by its
        # document, so a strong reference back to the document would keep them forever
        self._doc_ref = None if doc is None else weakref.ref(doc)
        self._delay_ms = int(1000 * delay)
        self._generation = 0
        self._copying = False
        self._now = False
        for name in self._names:
            p = part.param[name]
            self.param.add_parameter(name, param.Number(
                default=getattr(part, name), bounds=p.bounds,
                inclusive_bounds=p.inclusive_bounds, label=p.label))
        part.param.watch(self._part_changed, list(self._names))
        self.param.watch(self._copy_changed, list(self._names))

    @property
    def _doc(self):
        return None if self._doc_ref is None else self._doc_ref()

    @contextlib.contextmanager
    def at_once(self):
        """Within this block, changes of ``part`` are copied at once, not ``delay`` later: a
        change that is already the end of a pause (one message to the browser, with the
        change itself; a timer and a second held change and message cost the server ~5 ms
        per pause)."""
        old, self._now = self._now, True
        try:
            yield
        finally:
            self._now = old

    def _part_changed(self, *_events):
        doc = self._doc
        if self._now:
            self._generation += 1  # (a copy still waiting for its timer is superseded)
            self._copy()
            return
        if doc is None or doc.session_context is None:
            if self._doc_ref is None:  # not served: follow at once
                self._copy()
            return
        self._generation += 1
        gen = self._generation

        def later():
            if gen == self._generation:  # still since then: one message for all widgets
                apply_held(self._doc, self._copy)  # (a closed page's document: None)

        try:
            doc.add_timeout_callback(later, self._delay_ms)
        except Exception:  # the session has ended
            pass

    def _copy(self):
        changed = changed_values(self, {n: getattr(self._part, n) for n in self._names})
        if changed:
            self._copying = True
            try:
                self.param.update(**changed)
            finally:
                self._copying = False

    def _copy_changed(self, *events):
        if self._copying:
            return
        # only what was set here: the other values of the copy may be late
        self._part.param.update(**changed_values(self._part, {e.name: e.new for e in events}))


#: The operating point's parameters shown by the sidebar and kept in the address.
POINT_NAMES = ("p_target", "c_miss", "c_fa", "effective_prior", "plo")


def sync_url(location, state, params, *, mirrors=None):
    """Sync ``state``'s parts with the page address ``location``: ``params`` maps a part's
    name to ``{parameter: query parameter}``; a part named in ``mirrors`` is synced through
    that object (a :class:`Debounced` copy) instead."""
    mirrors = mirrors or {}
    for part_name, names in params.items():
        location.sync(mirrors.get(part_name) or getattr(state, part_name), names)


def keep_lesson_in_address(location, lesson, doc):
    """While a lesson opened by the server (``llrlab serve --lesson``) is open, the page's
    address names it and its step, so that the link a lecturer shares opens the same step.

    The server sets the address before the page exists; when the page starts, the browser
    replaces it with its own (Panel's location view reports ``window.location``), sometimes
    after the page's load callbacks ran.  So whenever an address without the lesson arrives
    while it is open, the lesson and its step are put back (on the next turn of the event
    loop: a value the browser just sent is not echoed back in the same turn).  ``doc`` is the
    page's document (None when not served: the address is then set at once).
    """
    if doc is None:  # not served: no browser replaces the address
        location.update_query(lesson=lesson.lesson, step=lesson.step)
        return
    doc_ref = weakref.ref(doc)

    def put_back():
        if lesson.lesson and "lesson" not in location.query_params:
            location.update_query(lesson=lesson.lesson, step=lesson.step)

    def check(*_):
        d = doc_ref()
        if d is not None and lesson.lesson and "lesson" not in location.query_params:
            try:
                d.add_next_tick_callback(put_back)
            except Exception:  # the session has ended
                pass

    location.param.watch(check, ["search"])
    check()
