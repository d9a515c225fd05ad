"""Who can reach ``llrlab serve``: address warnings, websocket origins, the access token
(unit level; the served process is checked in ``tests/browser/test_serve_access.py``)."""

from __future__ import annotations

import pytest

from llrlab.dashboard import access, cli
from llrlab.dashboard.access import (
    AccessError,
    TokenAuth,
    address_warning,
    check_origins,
    is_local,
    websocket_origins,
)


@pytest.mark.parametrize("address", ["127.0.0.1", "localhost", "::1", "127.0.0.2", "[::1]"])
def test_local_addresses(address):
    assert is_local(address)
    assert address_warning(address) is None


@pytest.mark.parametrize("address", ["0.0.0.0", "::", "", "192.168.1.5", "10.0.0.1",
                                     "no-such-host.invalid"])
def test_other_addresses_are_warned_about(address):
    assert not is_local(address)
    text = address_warning(address)
    assert "anyone who can reach this computer" in text and "--token" in text
    assert "--token" not in address_warning(address, token=True)


@pytest.mark.parametrize("value", ["*", "*:*", "*:5006", "*.*", "*.*.*.*:80",
                                   "http://*", " * "])
def test_a_wildcard_origin_for_any_page_is_refused(value):
    with pytest.raises(AccessError, match="any web page"):
        check_origins([value])


@pytest.mark.parametrize("value", ["a b", "host:port", "host:123456", "<script>", "a/b",
                                   "", "host:80:80"])
def test_malformed_origins_are_refused(value):
    with pytest.raises(AccessError, match="HOST"):
        check_origins([value])


def test_origins_add_to_the_default_list():
    extra, warnings = check_origins(["lab.example.org:8080", "https://x.example.org/",
                                     "192.168.*.*:5006"])
    assert extra == ["lab.example.org:8080", "x.example.org", "192.168.*.*:5006"]
    assert len(warnings) == 1 and "wildcard" in warnings[0]
    out = websocket_origins("127.0.0.1", 5006, extra)
    assert out[:3] == ["localhost:5006", "127.0.0.1:5006", "[::1]:5006"]
    assert out[3:] == extra
    assert "10.1.2.3:7000" in websocket_origins("10.1.2.3", 7000)
    assert "[fe80::1]:7000" in websocket_origins("fe80::1", 7000)
    every = websocket_origins("0.0.0.0", 7000)
    import socket

    assert f"{socket.gethostname()}:7000" in every


@pytest.mark.parametrize("token", ["", "short", "has space in it", "tok<script>en", "é" * 10])
def test_unusable_tokens_are_refused(token):
    with pytest.raises(ValueError, match="access token"):
        TokenAuth(token)


class _Handler:
    """The parts of a tornado RequestHandler that TokenAuth reads and writes."""

    def __init__(self, query=None, cookies=None):
        self.query, self.cookies, self.set = query, dict(cookies or {}), {}

    def get_query_argument(self, name, default=None):
        return self.query if name == "token" else default

    def get_cookie(self, name):
        return self.cookies.get(name)

    def set_cookie(self, name, value, **kw):
        self.set[name] = (value, kw)


def test_token_in_the_query_or_the_cookie():
    auth = TokenAuth("abcdefgh12345678")
    get_user = auth.get_user
    h = _Handler(query="abcdefgh12345678")
    assert get_user(h) == "token"
    value, kw = h.set[auth.cookie]
    assert value == "abcdefgh12345678"
    assert kw["httponly"] and kw["samesite"] == "Strict"
    assert get_user(_Handler(cookies={auth.cookie: "abcdefgh12345678"})) == "token"
    for bad in (_Handler(), _Handler(query="abcdefgh1234567"), _Handler(query=""),
                _Handler(query="abcdefgh12345678" + "x"),
                _Handler(cookies={auth.cookie: "wrong"}),
                _Handler(cookies={"llrlab_token_other": "abcdefgh12345678"}),
                _Handler(query="\x00" * 10)):
        assert get_user(bad) is None
    assert auth.login_url == access.REFUSED_PATH
    # two servers: two cookie names
    assert TokenAuth("abcdefgh12345678").cookie != auth.cookie
    assert len(access.new_token()) >= 20


def test_serve_refuses_a_wildcard_origin_and_a_short_token(capsys, monkeypatch):
    args = cli.build_parser().parse_args(["serve", "--no-show", "--allow-websocket-origin",
                                          "*"])
    assert cli.run_serve(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "any web page" in err[0]
    args = cli.build_parser().parse_args(["serve", "--no-show", "--token"])
    monkeypatch.setenv("LLRLAB_TOKEN", "short")
    assert cli.run_serve(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "access token" in err[0]


def test_serve_options_parse():
    p = cli.build_parser()
    a = p.parse_args(["serve", "--token", "eval.txt"])  # a flag: the file stays a FILE
    assert a.token is True and a.files == ["eval.txt"]
    a = p.parse_args(["serve", "--allow-websocket-origin", "a:1",
                      "--allow-websocket-origin", "b:2"])
    assert a.allow_websocket_origin == ["a:1", "b:2"] and a.token is False
