"""One served session's lifecycle: its end, and work deferred on its event loop.

* :func:`end_with_session` frees a session's memory when Bokeh destroys it: the state drops
  its caches and running jobs (:meth:`DashboardState.close`), and Panel's registry of
  JavaScript links forgets the widgets of pages that are gone.  That registry
  (``panel.links.Callback.registry``) is a weak-key dictionary whose values refer back to
  their keys (a link's arguments reach the widget that owns it), so an entry is never freed by
  itself: one such widget kept every closed session's state alive.
* :class:`Debounce` runs a function once calls have stopped for a while (a timeout on the
  session's event loop, restarted by every call); at once outside a served session.
"""

from __future__ import annotations

import logging

import panel as pn
from panel.io.state import set_curdoc

__all__ = ["Debounce", "end_with_session", "forget_dead_links", "quiet_closed_connections"]

log = logging.getLogger(__name__)


def served_doc():
    """The current Bokeh document when it belongs to a served session, else None."""
    doc = pn.state.curdoc
    return doc if doc is not None and doc.session_context is not None else None


def forget_dead_links(doc=None):
    """Drop the JavaScript links whose source is rendered in no live document: no model at
    all, or (``doc`` given: that session is ending) only models of ``doc`` or of none.

    Bokeh calls a session's destroy callbacks in no fixed order (they are kept in a set), so
    Panel may not yet have removed the ending page's models from its widgets when this runs:
    the models' document, not their presence, tells which links belong to the ending page.
    """
    from panel.links import Callback

    def dead(source):
        models = getattr(source, "_models", None) or {}
        return all(getattr(model, "document", None) in (None, doc)
                   for model, _parent in list(models.values()))

    registry = Callback.registry
    for source in list(registry.keys()):
        if dead(source):
            registry.pop(source, None)


def _closed_connection(context):
    """True when an event-loop error is only a write to a page that has gone."""
    from tornado.iostream import StreamClosedError
    from tornado.websocket import WebSocketClosedError

    return isinstance(context.get("exception"), (WebSocketClosedError, StreamClosedError))


def quiet_closed_connections(loop=None):
    """Make the server's event loop drop, instead of logging as "Task exception was never
    retrieved", the failure of a message sent to a page that has just closed.

    Panel sends a session's updates as tasks it does not await; when the browser closes the
    page (or the tab) in the middle of an update, each of them fails with
    ``WebSocketClosedError``.  Nothing is lost (the page is gone); any other error keeps the
    loop's previous handling.  Idempotent.
    """
    import asyncio

    if loop is None:
        try:
            loop = asyncio.get_event_loop()
        except RuntimeError:
            return
    previous = loop.get_exception_handler()
    if getattr(previous, "llrlab_quiet", False):
        return

    def handler(lp, context):
        if _closed_connection(context):
            log.debug("a message to a closed page was dropped")
        elif previous is not None:
            previous(lp, context)
        else:
            lp.default_exception_handler(context)

    handler.llrlab_quiet = True
    loop.set_exception_handler(handler)


def end_with_session(doc, state):
    """When the served session of ``doc`` ends: close ``state`` and forget dead links."""

    def ended(_context):
        try:
            state.close()
            forget_dead_links(doc)
        except Exception:  # never let the clean-up of one session disturb the server
            log.exception("could not free a closed session")

    doc.on_session_destroyed(ended)


class Debounce:
    """``Debounce(fn, ms)()`` runs ``fn()`` once ``ms`` milliseconds have passed without
    another call (e.g. the end or a pause of a drag); at once without a served session."""

    def __init__(self, fn, ms):
        self.fn = fn
        self.ms = ms
        self.doc = served_doc()
        self._timeout = None

    def __call__(self):
        doc = self.doc
        if doc is None:
            self.fn()
            return
        if self._timeout is not None:
            try:
                doc.remove_timeout_callback(self._timeout)
            except ValueError:  # already run
                pass
        self._timeout = doc.add_timeout_callback(self._run, self.ms)

    def _run(self):
        self._timeout = None
        with set_curdoc(self.doc):
            try:
                self.fn()
            except Exception:  # never let a deferred callback kill the session
                log.exception("deferred dashboard callback failed")
