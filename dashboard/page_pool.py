"""Pages made before they are asked for: ``llrlab serve --class N``.

A served page costs the server's one event loop about a second or two of Python: its ~700
Bokeh models are made (the page, then its body and sidebar once the browser is there),
its data loaded and analysed, and the document serialized for the browser.  A class of
forty opening the printed link within ten seconds queues on that loop: the last students
waited well over a minute for their numbers.

With ``--class N`` the server makes N pages of its printed link (``/``: the demo, the
FILEs given, the ``--lesson``) while it waits for the class, one at a time, each with its
body, its data loaded, its analyses and its drag's grid, and its document serialized for
the browser, and then lets the loop breathe before the next.  A request for that link
takes a made page: what is left to do for it is sending it, and what the page does once
shown (Nagle's algorithm off; a lesson's later panels).  Requests beyond
the N made pages, and every other link (``?lesson=...``, a link with choices), are made
on demand as before.  Made pages are not made again when taken: after the class has
arrived the server does no work for pages nobody asked for.

How it plugs into Bokeh's server: a session is made, as for any request, by the
application context's ``create_session_if_needed`` (Panel's page function runs there),
with a request of the printed link that comes from no browser; it is kept from expiring
until it is taken, and from then on expires as any page does whose browser never opens its
websocket.  The link's request then gets that session (the context's method is wrapped),
with a new session token carrying the request's own headers, cookies and arguments; the
session's first pull of the document gets the serialization made in advance unless the
document changed since (its ``to_json`` is wrapped until then).  Bokeh has no public API
for this: the hand-over sets three private attributes of its sessions
(``ServerSession._token``, the session context's ``_token`` and ``_request``) and reads
the application context's session tables.  When a Bokeh version lacks those attributes,
``--class`` says so in one line and pages are made on demand.

While a page is made in advance, :func:`premaking` is true: the page factory
(:func:`llrlab.dashboard.app.create_app`) then hands the work it would do once the browser
shows the page, and which needs no browser, to :func:`before_browser` (run right after the
page is made), and says with :func:`settled_when` when that work is done.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import time
import weakref

log = logging.getLogger("llrlab.dashboard.page_pool")

#: Seconds a page in advance may take to settle (data, analyses, grid) before the next.
SETTLE_SECONDS = 60.0
#: Seconds between two pages made in advance (the event loop serves live pages meanwhile).
BREATHE_SECONDS = 0.05

_PREMAKING = contextvars.ContextVar("llrlab_premaking", default=False)
#: Per document made in advance: ``{"work": [callables], "settled": callable or None}``.
_PREP: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def premaking() -> bool:
    """True while the page factory runs for a page made in advance (no browser yet)."""
    return _PREMAKING.get()


def before_browser(doc, fn):
    """Run ``fn`` (work a page would do once shown, and which needs no browser) right after
    the page of ``doc``, made in advance, is made."""
    _PREP.setdefault(doc, {"work": [], "settled": None})["work"].append(fn)


def settled_when(doc, predicate):
    """``predicate()`` says when the page of ``doc``, made in advance, has done its work."""
    _PREP.setdefault(doc, {"work": [], "settled": None})["settled"] = predicate


class HandoverUnsupported(RuntimeError):
    """This Bokeh's sessions lack an attribute the hand-over sets (see the module)."""


def _check_handover(session, context):
    for obj, attr in ((session, "_token"), (context, "_token"), (context, "_request")):
        if not hasattr(obj, attr):
            raise HandoverUnsupported(
                f"this Bokeh version's sessions have no {attr} to hand a page over: pages "
                "are made on demand")


def pooled_request(request, path="/"):
    """Whether ``request`` asks for the page the pool holds: the link ``path`` with no
    arguments except the access token (``--token``)."""
    if request is None or getattr(request, "method", "GET") != "GET":
        return False
    if getattr(request, "path", None) != path:
        return False
    return not [k for k in (request.arguments or {}) if k != "token"]


class PagePool:
    """``size`` pages of the application at ``path`` made in advance (see the module).

    Parameters
    ----------
    tornado_app : bokeh.server.tornado.BokehTornado
        The server's Tornado application (its secret key and token settings).
    size : int
        How many pages to make.
    path : str
        The application's link.
    host : str
        The server's ``host:port`` (the Host header of the pages' request).
    announce : callable, optional
        Called with one line when the pages are made (or cannot be).
    """

    def __init__(self, tornado_app, size, *, path="/", host="127.0.0.1", announce=None):
        self.app = tornado_app
        self.size = int(size)
        self.path, self.host = path, host
        self.context = getattr(tornado_app, "_applications", {}).get(path)
        for attr in ("_sessions", "_pending_sessions", "_session_contexts",
                     "create_session_if_needed"):
            if not hasattr(self.context, attr):
                raise HandoverUnsupported(
                    f"this Bokeh version's application context has no {attr} to hand a "
                    "page over: pages are made on demand")
        self.ready = []     # sessions made, settled and not taken yet
        self.made = 0
        self.announce = announce
        self._create = self.context.create_session_if_needed
        self.context.create_session_if_needed = self._create_or_take

    # ------------------------------------------------------------------ hand-over

    async def _create_or_take(self, session_id, request=None, token=None):
        ctx = self.context
        if (self.ready and pooled_request(request, self.path)
                and session_id not in ctx._sessions
                and session_id not in ctx._pending_sessions):
            return self._hand_over(self.ready.pop(0), request, token)
        return await self._create(session_id, request, token)

    def _hand_over(self, session, request, token):
        from bokeh.server.contexts import _RequestProxy
        from bokeh.util.token import generate_jwt_token, get_token_payload

        payload = get_token_payload(token) if token else {}
        payload.pop("session_expiry", None)
        new_token = generate_jwt_token(
            session.id, secret_key=self.app.secret_key, signed=self.app.sign_sessions,
            expiration=self.app.session_token_expiration, extra_payload=payload)
        session._token = new_token
        context = self.context._session_contexts[session.id]
        context._token = new_token
        context._request = _RequestProxy(request, arguments=payload.get("arguments"),
                                         cookies=payload.get("cookies"),
                                         headers=payload.get("headers"))
        # from now on it expires as any page does whose browser never comes (Bokeh's
        # unused-session lifetime, counted from now)
        session.unsubscribe(_NOBODY)
        session.unblock_expiration()
        return session

    # ------------------------------------------------------------------ making

    def _request(self):
        from bokeh.util.token import generate_jwt_token, generate_session_id
        from tornado.httputil import HTTPHeaders, HTTPServerRequest

        host = self.host
        request = HTTPServerRequest(method="GET", uri=self.path, version="HTTP/1.1",
                                    headers=HTTPHeaders({"Host": host}), host=host)
        request.route_params, request.app_path = {}, self.path  # (as Panel's handler sets)
        payload = {"headers": {"Host": host}, "cookies": {}, "arguments": {}}
        payload.update(self.context.application.process_request(request))
        session_id = generate_session_id(secret_key=self.app.secret_key,
                                         signed=self.app.sign_sessions)
        token = generate_jwt_token(session_id, secret_key=self.app.secret_key,
                                   signed=self.app.sign_sessions,
                                   expiration=self.app.session_token_expiration,
                                   extra_payload=payload)
        return session_id, request, token

    async def make_one(self):
        """Make one page in advance and wait until it has settled; returns its session."""
        from panel.io.state import set_curdoc

        session_id, request, token = self._request()
        reset = _PREMAKING.set(True)
        try:
            session = await self._create(session_id, request, token)
        finally:
            _PREMAKING.reset(reset)
        # (a Bokeh without the hand-over's attributes: left to expire as an unopened page)
        _check_handover(session, self.context._session_contexts[session.id])
        session.block_expiration()  # (until taken: see _hand_over)
        doc = session.document
        prep = _PREP.get(doc, {"work": [], "settled": None})

        def run_work():
            with set_curdoc(doc):
                for fn in prep["work"]:
                    fn()

        await session.with_document_locked(run_work)
        settled = prep["settled"]
        deadline = time.monotonic() + SETTLE_SECONDS
        while settled is not None and not settled():
            if time.monotonic() > deadline:
                log.warning("a page made in advance did not settle in %.0f s",
                            SETTLE_SECONDS)
                break
            await asyncio.sleep(0.1)
        self._render_ahead(session)
        _serialize_ahead(doc)
        self.made += 1
        return session

    def _render_ahead(self, session):
        """Render the page's HTML once, as its request will: Panel then points the page's
        stylesheets at this server (a change it keeps from the document's listeners), so
        that the serialization made ahead has them as the browser must get them."""
        from panel.io.resources import Resources
        from panel.io.server import server_html_page_for_session
        from panel.io.state import set_curdoc

        doc = session.document
        with set_curdoc(doc):
            resources = Resources.from_bokeh(self.app.resources())
            server_html_page_for_session(
                session, resources=resources, title=doc.title, token=session.token,
                template=doc.template, template_variables=doc.template_variables)

    async def fill(self):
        """Make the pool's pages, one at a time."""
        t0 = time.monotonic()
        for _ in range(self.size):
            try:
                session = await self.make_one()
            except HandoverUnsupported as exc:
                if self.announce is not None:
                    self.announce(f"--class: {exc}")
                return
            except Exception:  # a page that cannot be made now will be made on demand
                log.exception("could not make a page in advance")
                break
            self.ready.append(session)
            await asyncio.sleep(BREATHE_SECONDS)
        if self.announce is not None:
            pages = "1 page" if self.made == 1 else f"{self.made} pages"
            self.announce(f"{pages} made for a class in {time.monotonic() - t0:.0f} s")


#: A connection that is never subscribed: ``ServerSession.unsubscribe(_NOBODY)`` only
#: restarts the session's unused-time clock.
_NOBODY = object()


def _serialize_ahead(doc):
    """Serialize ``doc`` now, for its browser's first pull of the document: that pull gets
    this serialization (the larger part of what a page costs when it is asked for) unless
    the document changed meanwhile, in which case it is serialized again, as always."""
    def shape():
        return [r.id for r in doc.roots], len(doc.models)

    ahead = {"json": doc.to_json(), "shape": shape()}

    def changed(event):
        ahead["json"] = None

    def to_json(*, deferred=True):
        cached, ahead["json"] = ahead["json"], None
        del doc.to_json  # (the class's method from now on)
        doc.remove_on_change(changed)
        if cached is None or not deferred or shape() != ahead["shape"]:
            return doc.to_json(deferred=deferred)
        doc.models.flush_synced()
        return cached

    doc.on_change(changed)
    doc.to_json = to_json
