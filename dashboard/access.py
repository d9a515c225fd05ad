"""Who can reach ``llrlab serve``: listening address, websocket origins and an access token.

* **Address.**  The server listens on 127.0.0.1 by default (this computer only).  Any other
  address (``0.0.0.0``, a network interface, a host name that is not loopback) lets other
  computers reach it: :func:`address_warning` says so when no token protects it.
* **Websocket origins.**  The page talks to the server over a websocket; browsers send the
  address of the page that opens it (its *origin*).  Same-origin connections (the page served
  by this server) are always accepted; :func:`websocket_origins` builds the list of *other*
  origins allowed: ``localhost``, ``127.0.0.1`` and ``[::1]`` on the server's port, the
  listening address (or this computer's names when listening on every interface), plus
  those given with ``--allow-websocket-origin``, which add to this list.  ``*`` (any web
  page the user visits could drive the server) is refused; a partial wildcard such as
  ``192.168.*.*:5006`` is accepted with a warning.
* **Host names.**  Every request must name the server (its ``Host`` header) as one of the
  same ``HOST:PORT`` entries: a web page whose own name was pointed at this computer (DNS
  rebinding) would otherwise be same-origin and could drive a server on 127.0.0.1.
* **Access token.**  ``--token`` makes every HTTP and websocket request carry a secret: the
  printed link holds it as ``?token=...``; the first page sets it as a cookie (HttpOnly,
  SameSite=Strict) that the browser sends with the websocket and later requests.
  :class:`TokenAuth` is a Bokeh ``AuthProvider`` (Bokeh's hook for authentication: it
  guards the page, ``autoload.js``, ``metadata`` and the websocket) and :func:`protect`
  extends the check to every other route of the server (static files, components, icon).
  Without the token a request gets HTTP 403 and a page that says what to do.

Examples
--------
>>> websocket_origins("127.0.0.1", 5006, ["lab.example.org:8080"])
['localhost:5006', '127.0.0.1:5006', '[::1]:5006', 'lab.example.org:8080']
>>> is_local("127.0.0.1"), is_local("0.0.0.0"), is_local("::1")
(True, False, True)
"""

from __future__ import annotations

import hmac
import inspect
import ipaddress
import re
import secrets
import socket

from bokeh.server.auth_provider import AuthProvider
from tornado.web import HTTPError, RequestHandler

__all__ = [
    "AccessError",
    "TokenAuth",
    "address_warning",
    "check_origins",
    "is_local",
    "new_token",
    "protect",
    "websocket_origins",
]

#: The page that explains a refused request (static text: nothing of the request is echoed).
REFUSED_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>llrlab: access token needed</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">
<h1>This llrlab server needs its access token</h1>
<p>Open the full link printed by <code>llrlab serve --token</code> (it ends with
<code>?token=...</code>), or ask the person who started the server for it.</p>
</body></html>
"""
#: The page of a request whose Host header names this server in an unexpected way.
UNKNOWN_HOST_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>llrlab: unknown host name</title></head>
<body style="font-family: sans-serif; max-width: 40em; margin: 3em auto">
<h1>This llrlab server does not answer to this host name</h1>
<p>Open it by the address printed by <code>llrlab serve</code>, or start it with
<code>--allow-websocket-origin HOST:PORT</code> to add the name you use.</p>
</body></html>
"""
#: Where refused page requests are sent (Bokeh's login URL).
REFUSED_PATH = "/llrlab-token"
_ORIGIN = re.compile(r"^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9*._-]+)(:(\d{1,5}|\*))?$")
_WILDCARD_ADDRESSES = {"", "0.0.0.0", "::", "*"}


class AccessError(ValueError):
    """A serve option that would expose the server (one line for the command line)."""


def is_local(address) -> bool:
    """True when ``address`` is reachable from this computer only (loopback)."""
    if address in _WILDCARD_ADDRESSES or address is None:
        return address is None
    try:
        return ipaddress.ip_address(address.strip("[]")).is_loopback
    except ValueError:
        pass
    if address.lower() == "localhost":
        return True
    try:
        infos = socket.getaddrinfo(address, None)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(i[4][0].split("%")[0]).is_loopback
                               for i in infos)


def address_warning(address, *, token=False):
    """A warning when ``address`` exposes the server to other computers, else None."""
    if is_local(address):
        return None
    where = ("every network interface of this computer" if address in _WILDCARD_ADDRESSES
             else "a network address")
    text = (f"--address {address or repr(address)} listens on {where}: anyone who can reach "
            f"this computer on that port can open the dashboard and upload files")
    if not token:
        text += " (no password: add --token for a workshop or a shared network)"
    return text


def check_origins(origins):
    """The ``--allow-websocket-origin`` values, checked: ``(origins, warnings)``.

    Raises :class:`AccessError` for ``*`` (any page could connect) or a malformed value.
    """
    out, warnings = [], []
    for raw in origins or []:
        value = raw.strip()
        if value.startswith(("http://", "https://")):
            value = value.split("://", 1)[1].rstrip("/")
        m = _ORIGIN.match(value)
        if m is None:
            raise AccessError(f"--allow-websocket-origin {raw!r} is not HOST[:PORT]")
        if set(m.group(1)) <= set("*."):
            raise AccessError(f"--allow-websocket-origin {raw!r} would let any web page the "
                              f"user visits drive this server; name the hosts (HOST[:PORT])")
        if "*" in value:
            warnings.append(f"--allow-websocket-origin {value}: the wildcard lets pages from "
                            f"every matching host connect")
        out.append(value)
    return out, warnings


def _this_computer(port):
    names = {socket.gethostname(), socket.getfqdn()}
    out = [f"{n}:{port}" for n in sorted(names) if n and n != "localhost"]
    try:
        addrs = {i[4][0] for i in socket.getaddrinfo(socket.gethostname(), None)}
    except OSError:
        addrs = set()
    for a in sorted(addrs):
        ip = ipaddress.ip_address(a.split("%")[0])
        if not ip.is_loopback:
            out.append(f"[{ip}]:{port}" if ip.version == 6 else f"{ip}:{port}")
    return out


def websocket_origins(address, port, extra=()):
    """The origins allowed to open the websocket (the default list plus ``extra``)."""
    out = [f"localhost:{port}", f"127.0.0.1:{port}", f"[::1]:{port}"]
    if address in _WILDCARD_ADDRESSES:
        out += _this_computer(port)
    elif not is_local(address):
        host = f"[{address}]" if ":" in address and not address.startswith("[") else address
        out.append(f"{host}:{port}")
    for o in extra:
        if o not in out:
            out.append(o)
    return out


def new_token():
    """A random access token (128 bits, URL-safe)."""
    return secrets.token_urlsafe(16)


class TokenAuth(AuthProvider):
    """Bokeh authentication by an access token in the query (``?token=``) or a cookie.

    A request that carries the right token in its query sets the cookie, so that the
    websocket and later requests of the page (which carry no query) pass.  The cookie's name
    is random per server: servers on other ports of the same host keep their own cookies.
    """

    def __init__(self, token):
        token = str(token)
        if len(token) < 8 or not re.fullmatch(r"[A-Za-z0-9._~-]+", token):
            raise ValueError("an access token needs at least 8 characters among letters, "
                             "digits and . _ ~ -")
        self.token = token
        self.cookie = f"llrlab_token_{secrets.token_hex(4)}"
        super().__init__()

    def allowed(self, handler: RequestHandler) -> bool:
        """True when ``handler``'s request carries the token (and then sets the cookie)."""
        given = handler.get_query_argument("token", default=None)
        if given is not None and _same(given, self.token):
            if not _is_websocket(handler):
                handler.set_cookie(self.cookie, self.token, httponly=True,
                                   samesite="Strict", path="/")
            return True
        cookie = handler.get_cookie(self.cookie)
        return cookie is not None and _same(cookie, self.token)

    @property
    def get_user(self):
        def get_user(handler):
            return "token" if self.allowed(handler) else None
        return get_user

    @property
    def login_url(self):
        return REFUSED_PATH

    @property
    def login_handler(self):
        return RefusedHandler


class RefusedHandler(RequestHandler):
    """The page of a request without the token (HTTP 403)."""

    def get(self):
        self.set_status(403)
        self.set_header("Content-Type", "text/html; charset=utf-8")
        self.set_header("Cache-Control", "no-store")
        self.finish(REFUSED_PAGE)


def _same(a, b):
    return hmac.compare_digest(a.encode("utf-8", "replace"), b.encode("utf-8", "replace"))


def _is_websocket(handler):
    from tornado.websocket import WebSocketHandler

    return isinstance(handler, WebSocketHandler)


def protect(server, *, hosts=None, auth: TokenAuth | None = None):
    """Check every request to ``server`` (a Bokeh ``Server``) before it is handled.

    ``hosts``: the ``Host`` header must match one of these ``HOST:PORT`` patterns (the
    websocket origins): a web page whose name was pointed at this computer (DNS rebinding)
    is refused, as a page on another site already is.  ``auth``: the request must carry the
    token -- on every route, not only those Bokeh guards with its auth provider.  Each
    handler class is replaced by a subclass whose ``prepare`` answers HTTP 403 otherwise.
    Returns the number of routes checked.
    """
    n = 0
    for rule in server._tornado.wildcard_router.rules:
        target = rule.target
        if (not isinstance(target, type) or not issubclass(target, RequestHandler)
                or getattr(target, "_llrlab_gate", 0)):
            continue
        rule.target = _gated(target, hosts, auth)
        n += 1
    return n


def _host_allowed(host, hosts):
    from bokeh.server.util import check_allowlist

    return check_allowlist((host or "").lower(), hosts)


def _gated(base, hosts, auth):
    async def prepare(self):
        if hosts is not None and not _host_allowed(self.request.host, hosts):
            raise HTTPError(403, reason="unknown host name")
        if auth is not None and not isinstance(self, RefusedHandler) and not auth.allowed(self):
            raise HTTPError(403, reason="access token needed")
        result = base.prepare(self)
        if inspect.isawaitable(result):
            await result

    def write_error(self, status_code, **kwargs):
        if status_code == 403:
            self.set_header("Content-Type", "text/html; charset=utf-8")
            self.set_header("Cache-Control", "no-store")
            self.finish(REFUSED_PAGE if self._reason == "access token needed"
                        else UNKNOWN_HOST_PAGE)
        else:
            base.write_error(self, status_code, **kwargs)

    return type(f"Checked{base.__name__}", (base,),
                {"prepare": prepare, "write_error": write_error, "_llrlab_gate": 1})
