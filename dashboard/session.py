"""One served session's end: its memory freed, its closing kept out of the server's log.

* :func:`end_with_session` frees a session's memory when Bokeh destroys it: the state drops
  its caches and running jobs (:meth:`DashboardState.close`), and Panel's registry of
  JavaScript links forgets the widgets of pages that are gone.  That registry
  (``panel.links.Callback.registry``) is a weak-key dictionary whose values refer back to
  their keys (a link's arguments reach the widget that owns it), so an entry is never freed by
  itself: one such widget kept every closed session's state alive.  Only the ending page's
  own entries go: a widget built for another page but not shown yet (the sidebar is filled
  once the browser is ready) has no Bokeh model, and dropping its entry would leave its
  JavaScript unattached when it is shown (the Load button of the uploads did nothing).
* :func:`quiet_closed_connections` keeps the failed writes to a page that has just closed
  out of the server's log.
"""

from __future__ import annotations

import logging
import weakref

__all__ = ["end_with_session", "forget_dead_links", "link_sources",
           "quiet_closed_connections"]

log = logging.getLogger(__name__)


def link_sources():
    """The widgets that have JavaScript links now (a weak set).  Taken before a page is
    built, it tells which links the page added (see :func:`end_with_session`)."""
    from panel.links import Callback

    return weakref.WeakSet(Callback.registry.keys())


def forget_dead_links(doc, owned=()):
    """Drop the JavaScript links of the page of ``doc``, which is ending: those whose source
    widget is rendered only in ``doc`` (or in no document any more), and those of the
    widgets in ``owned`` (built for that page, perhaps never rendered).

    A widget with no Bokeh model that is not in ``owned`` is kept: it belongs to another
    page that has not shown it yet.  Bokeh calls a session's destroy callbacks in no fixed
    order (they are kept in a set), so Panel may not yet have removed the ending page's
    models from its widgets when this runs: the models' document, not their presence, tells
    which links belong to the ending page.
    """
    from panel.links import Callback

    def dead(source):
        if source in owned:
            return True
        models = list((getattr(source, "_models", None) or {}).values())
        return bool(models) and all(getattr(model, "document", None) in (None, doc)
                                    for model, _parent in models)

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
    ws_log = logging.getLogger("bokeh.server.views.ws")
    if not any(isinstance(f, _ClosedPageFilter) for f in ws_log.filters):
        ws_log.addFilter(_ClosedPageFilter())


class _ClosedPageFilter(logging.Filter):
    """Bokeh's warning for each message sent to a page that has just closed."""

    def filter(self, record):
        return not record.getMessage().startswith("Failed sending message as connection")


def end_with_session(doc, state, links_before):
    """When the served session of ``doc`` ends: close ``state`` and forget its page's links.

    ``links_before``: :func:`link_sources` taken before the page was built; the widgets
    with links added since then are the page's own (called once the page is built, on the
    event loop, where no other page is built meanwhile).
    """
    from panel.links import Callback

    owned = weakref.WeakSet(k for k in list(Callback.registry.keys())
                            if k not in links_before)

    def ended(_context):
        try:
            state.close()
            forget_dead_links(doc, owned)
        except Exception:  # never let the clean-up of one session disturb the server
            log.exception("could not free a closed session")

    doc.on_session_destroyed(ended)
