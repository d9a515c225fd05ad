"""The log of ``llrlab serve``: access tokens redacted in every line, whatever the form (unit
level; ``test_serve_process.py`` checks the served process's real output)."""

from __future__ import annotations

import logging
import sys
import time
import warnings

import pytest

from llrlab.dashboard.logs import REDACTED, redact, serve_logging

SECRET = "Wk3-secret_token.2024~x"


@pytest.mark.parametrize(("line", "expected"), [
    # the access-log line of issue 18, right and wrong tokens alike
    ("403 GET /static/js/bokeh.min.js?token=abc123 (127.0.0.1) 0.52ms",
     "403 GET /static/js/bokeh.min.js?token=*** (127.0.0.1) 0.52ms"),
    ("200 GET /?token=Wk3-secret_token.2024~x (127.0.0.1) 12.00ms",
     "200 GET /?token=*** (127.0.0.1) 12.00ms"),
    # any position in the query, several tokens, any case
    ("GET /?a=1&token=one&b=2&Token=two;TOKEN=three#frag",
     "GET /?a=1&token=***&b=2&Token=***;TOKEN=***#frag"),
    ("GET /?token=&a=1", "GET /?token=&a=1"),  # nothing to hide
    # percent-encoded names, values, signs; a URL inside a query (the login redirect)
    ("GET /?%74oken=abc", "GET /?%74oken=***"),
    ("GET /?%74%6F%6B%65%6E=abc&x=1", "GET /?%74%6F%6B%65%6E=***&x=1"),
    ("GET /?token=Wk3%2Dsecret_token.2024~x", "GET /?token=***"),
    ("GET /llrlab-token?next=%2F%3Ftoken%3Dabc%26a%3D1",
     "GET /llrlab-token?next=%2F%3Ftoken%3D***"),
    ("GET /login?next=%252F%253Ftoken%253Dabc", "GET /login?next=%2F%3Ftoken%3D***"),
    ("GET /?q=a+token=abc", "GET /?q=a+token=***"),
    # cookies and other token-named parameters (Bokeh's own session tokens too)
    ("Cookie: llrlab_token_3f9a=abc; theme=dark", "Cookie: llrlab_token_3f9a=***; theme=dark"),
    ("GET /autoload.js?bokeh-token=eyJzZXNzaW9u", "GET /autoload.js?bokeh-token=***"),
    # printed dicts and JSON: request arguments, cookies
    ("{'token': [b'abc'], 'theme': [b'dark']}", "{'token': ***, 'theme': [b'dark']}"),
    ('{"token": "abc", "n": 1}', '{"token": ***, "n": 1}'),
    ("{'llrlab_token_x': 'abc'}", "{'llrlab_token_x': ***}"),
    # a lecture's link (the speaker view's, the lecture page's, the class's) holds its token
    ("200 GET /lecture-position?channel=Ab-9_x&since=3 (127.0.0.1) 1.00ms",
     "200 GET /lecture-position?channel=***&since=3 (127.0.0.1) 1.00ms"),
    ("GET /?view=speaker&channel=Zz9", "GET /?view=speaker&channel=***"),
    ("GET /?channels=4", "GET /?channels=4"),
    # lines without tokens are left alone
    ("Refusing websocket connection from Origin 'http://evil.example.org'",
     "Refusing websocket connection from Origin 'http://evil.example.org'"),
    ("tokens: 5 of 10; x=1", "tokens: 5 of 10; x=1"),
])
def test_redact(line, expected):
    assert redact(line) == expected


@pytest.mark.parametrize("line", [
    f"404 GET /{SECRET} (127.0.0.1)",                           # in the path
    f"Referer: http://127.0.0.1:5006/page#{SECRET}",            # after a fragment
    "GET /x/Wk3%2Dsecret%5Ftoken%2E2024%7Ex",                  # every character escaped
    "GET /x/Wk3%252Dsecret_token.2024~x",                       # escaped twice
    f"ValueError: bad value {SECRET!r} in header",              # an exception's message
    f"the token is {SECRET}, its twin {SECRET}",                # twice
])
def test_the_servers_own_token_is_redacted_anywhere(line):
    out = redact(line, secrets=[SECRET])
    assert SECRET not in out and REDACTED in out
    assert "secret" not in out


def test_redaction_takes_linear_time_on_hostile_lines():
    """A log line can hold anything a client sent: no input makes the redaction slow."""
    hostile = ["a" * 200_000, ("x" * 50 + "=") * 4000, "=" * 200_000, "%3D" * 60_000,
               "'" * 200_000, "token=" * 30_000, ("%2574oken%253Dabc ") * 10_000]
    for line in hostile:
        t0 = time.perf_counter()
        redact(line, secrets=[SECRET])
        assert time.perf_counter() - t0 < 3.0, line[:30]


def test_every_record_is_redacted_when_created(capsys):
    """Messages with arguments, exceptions, stack traces, badly formatted records and Python
    warnings: none shows the token, on any logger, and the set-up is undone afterwards."""
    before = logging.getLogRecordFactory()
    with serve_logging("debug", [SECRET]):
        logging.getLogger("tornado.access").info("%d %s %.2fms", 200,
                                                 f"GET /?token={SECRET} (127.0.0.1)", 1.0)
        logging.getLogger("some.library").warning("header %r", {"Cookie": f"x={SECRET}"})
        try:
            raise ValueError(f"no such page /?token={SECRET}")
        except ValueError:
            logging.getLogger("tornado.application").exception("Uncaught exception")
        logging.getLogger("bokeh.server").error("stack", stack_info=True,
                                                extra={"x": SECRET})
        logging.getLogger("x").error("two args %s %s", f"token={SECRET}")  # one missing
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.warn(f"deprecated URL /?token={SECRET}", UserWarning, stacklevel=1)
        logging.getLogger("llrlab.dashboard").debug("a line without a token")
    err = capsys.readouterr().err
    assert SECRET not in err
    assert "GET /?token=*** (127.0.0.1)" in err and "INFO tornado.access: 200" in err
    assert "no such page /?token=***" in err and "Traceback" in err
    assert "two args %s %s ('token=***',)" in err and "a line without a token" in err
    assert "deprecated URL /?token=***" in err
    assert logging.getLogRecordFactory() is before  # the set-up is undone
    after = before("x", logging.INFO, __file__, 1, "token=%s", (SECRET,), None)
    assert after.getMessage() == f"token={SECRET}"


def test_an_unknown_level_is_refused():
    with pytest.raises(ValueError, match="log level"), serve_logging("verbose"):
        pass


def test_server_loggers_show_at_the_chosen_level_whatever_a_library_set(capsys):
    """dask.distributed's logging configuration (imported by ``serve --dask``) gives tornado a
    handler of its own, stops its propagation and silences it below CRITICAL: requests must
    still be logged (redacted, in one format) at ``--log-level info``, and the library's
    set-up comes back afterwards."""
    tornado = logging.getLogger("tornado")
    own = logging.StreamHandler(sys.stderr)
    saved = tornado.level, tornado.propagate, list(tornado.handlers)
    tornado.setLevel(logging.CRITICAL)
    tornado.propagate = False
    tornado.addHandler(own)
    try:
        with serve_logging("info", [SECRET]):
            logging.getLogger("tornado.access").info("200 GET /?token=%s", SECRET)
        err = capsys.readouterr().err
        assert SECRET not in err
        assert err.count("GET /?token=***") == 1 and "INFO tornado.access: 200" in err
        assert tornado.level == logging.CRITICAL and tornado.propagate is False
        assert own in tornado.handlers
    finally:
        tornado.removeHandler(own)
        tornado.setLevel(saved[0])
        tornado.propagate = saved[1]
