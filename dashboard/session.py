"""One served session's end: its memory freed, its closing kept out of the server's log.

* :func:`end_with_session` frees a session's memory when Bokeh destroys it: the state drops
  its caches and running jobs (:meth:`DashboardState.close`).  (Panel's registry of
  JavaScript links, ``panel.links.Callback.registry``, would keep a closed page's widgets
  alive: its entries refer back to their keys and never free themselves.  The dashboard
  therefore registers nothing there: its buttons with a script are
  :class:`~llrlab.dashboard.script_button.ScriptButton`.)
* :func:`quiet_closed_connections` keeps the failed writes to a page that has just closed
  out of the server's log.
"""

from __future__ import annotations

import logging

__all__ = ["end_with_session", "quiet_closed_connections"]

log = logging.getLogger(__name__)


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
    ws_log = logging.getLogger("bokeh.server.views.ws")
    if not any(isinstance(f, _ClosedPageFilter) for f in ws_log.filters):
        ws_log.addFilter(_ClosedPageFilter())


class _ClosedPageFilter(logging.Filter):
    """Bokeh's warning for each message sent to a page that has just closed."""

    def filter(self, record):
        return not record.getMessage().startswith("Failed sending message as connection")


def end_with_session(doc, state):
    """When the served session of ``doc`` ends, close ``state`` (its caches and jobs)."""

    def ended(_context):
        try:
            state.close()
        except Exception:  # never let the clean-up of one session disturb the server
            log.exception("could not free a closed session")

    doc.on_session_destroyed(ended)
