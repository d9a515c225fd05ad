"""The log of ``llrlab serve``: its level and format, and no access token in any line.

With ``--token`` every request carries a secret (``?token=...`` in the printed link, then a
cookie).  Tornado's access log writes the full request URI (``403 GET /?token=...``), and any
library may log a URL, a header or a cookie.  :func:`serve_logging` makes every log record
of the process -- Tornado, Bokeh, Panel, llrlab, and Python warnings routed through logging
-- pass through :func:`redact` when it is created (a ``logging`` record factory: no logger
or handler, present or added later, is missed):

* the value of every ``NAME=VALUE`` whose NAME contains ``token`` (any case, also
  percent-encoded, with ``=`` or ``%3D``): the query parameter, the cookie
  ``llrlab_token_...``, Bokeh's ``bokeh-token``; right and wrong tokens alike (a wrong one
  is often a near miss of the right one, or someone's other password);
* ``'...token...': VALUE`` in the printed form of a dict (request arguments, cookies);
* the server's own token wherever it appears, also percent-encoded (in a path, a Referer
  header, a message of an exception).

Each is replaced by ``***``.  Tracebacks and stack traces of a record are redacted too.  The
link printed at start-up is not a log line: it is the token's one intended appearance.

Examples
--------
>>> redact("403 GET /static/js/bokeh.min.js?token=abc123 (127.0.0.1) 0.52ms")
'403 GET /static/js/bokeh.min.js?token=*** (127.0.0.1) 0.52ms'
>>> redact("GET /x?a=1&TOKEN=wrong&b=2; cookie llrlab_token_k2=s3cr3t-value")
'GET /x?a=1&TOKEN=***&b=2; cookie llrlab_token_k2=***'
>>> redact("Referer: /page/s3cr3t-value", secrets=["s3cr3t-value"])
'Referer: /page/***'
"""

from __future__ import annotations

import contextlib
import re
import sys
from urllib.parse import unquote_plus

# (``logging`` is imported where it is used: ``llrlab -h`` reads LEVELS and stays light)

__all__ = ["LEVELS", "LOG_FORMAT", "REDACTED", "redact", "serve_logging"]

#: What a redacted value is replaced by.
REDACTED = "***"
#: ``--log-level`` choices (Tornado's access log writes successful requests at info).
LEVELS = ("debug", "info", "warning", "error")
#: One log line of the server: time, level, the logger's name, the message.
LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
#: Percent-decodings tried on each word (a URL inside a URL's query is encoded twice).
_DECODINGS = 3

# the sign of NAME=VALUE (or NAME%3DVALUE, encoded); the NAME is the run of name characters
# just before it, back to the previous sign (at most _LONGEST_NAME, possibly percent-
# encoded).  Assignments inside another's value (next=/?token=...) are found too.
_SIGN = re.compile(r"=|%3[dD]")
_NAME_CHARS = frozenset("_.%~+-")
_LONGEST_NAME = 200
# the VALUE that follows: up to a separator of query strings, cookies, headers or reprs
_VALUE = re.compile(r"[^\s&;#\"'<>,)\]}]+")
# 'NAME': VALUE or "NAME": VALUE in a dict's repr or JSON; VALUE a (byte) string, a list of
# one, or a bare word
_MAPPING = re.compile(
    r"(?P<key>(?P<q>['\"])(?P<name>[^'\"\n]{0,200}?)(?P=q)\s*:\s*)"
    r"(?P<value>\[\s*b?(?P<q2>['\"])[^'\"\n]*(?P=q2)\s*\]|b?(?P<q3>['\"])[^'\"\n]*(?P=q3)"
    r"|[^\s,}\]]+)")


def _is_token_name(name):
    name = unquote_plus(name).lower()
    return "token" in name or name == "channel"  # (a lecture's link holds its token)


def _plain(text, secrets):
    """``text`` with token values and ``secrets`` replaced, without decoding it."""
    def mapping(m):
        if m.group("value") == REDACTED or not _is_token_name(m.group("name")):
            return m.group(0)
        return m.group("key") + REDACTED

    out, pos, previous = [], 0, 0
    for m in _SIGN.finditer(text):
        # the name: back to the previous sign at most (each character is looked at once)
        start, stop = m.start(), max(pos, previous, m.start() - _LONGEST_NAME)
        previous = m.end()
        while start > stop and (text[start - 1].isalnum() or text[start - 1] in _NAME_CHARS):
            start -= 1
        if m.start() < pos or start == m.start() or not _is_token_name(text[start:m.start()]):
            continue
        value = _VALUE.match(text, m.end())
        if value is None or value.group(0) == REDACTED:
            continue
        out += [text[pos:m.end()], REDACTED]
        pos = value.end()
    text = "".join(out) + text[pos:]
    text = _MAPPING.sub(mapping, text)
    for secret in secrets:
        text = text.replace(secret, REDACTED)
    return text


def _word(word, secrets):
    """One whitespace-free word, redacted; if a percent-decoding of it reveals a token
    the plain form hid (``%74oken=``, ``next=%2F%3Ftoken%3D...``, the secret spelled with
    escapes), that decoding, redacted, replaces the word."""
    shown = _plain(word, secrets)
    level = shown
    for _ in range(_DECODINGS):
        if "%" not in level and "+" not in level:
            break
        decoded = unquote_plus(level, errors="replace")
        if decoded == level:
            break
        cleaned = _plain(decoded, secrets)
        if cleaned != decoded:
            return cleaned
        level = decoded
    return shown


def redact(text, secrets=()):
    """``text`` with every token value, and every one of ``secrets``, replaced by ``***``
    (see the module docstring).

    >>> redact("GET /?%74oken=abc&x=1 and /llrlab-token?next=%2F%3Ftoken%3Dabc%26a%3D1")
    'GET /?%74oken=***&x=1 and /llrlab-token?next=%2F%3Ftoken%3D***'
    >>> redact("{'token': [b'abc'], 'theme': [b'dark']}")
    "{'token': ***, 'theme': [b'dark']}"
    """
    secrets = [s for s in secrets if s]
    text = _plain(str(text), secrets)
    return "".join(_word(part, secrets) if part and not part.isspace() else part
                   for part in re.split(r"(\s+)", text))


def _redact_record(record, secrets):
    import logging

    try:
        message = record.getMessage()
    except Exception:  # arguments that do not fit the format: keep both, redacted
        message = f"{record.msg} {record.args!r}"
        record.msg, record.args = redact(message, secrets), None
    else:
        cleaned = redact(message, secrets)
        if cleaned != message:
            record.msg, record.args = cleaned, None
    if record.exc_info and not record.exc_text:
        record.exc_text = redact(logging.Formatter().formatException(record.exc_info),
                                 secrets)
    if record.stack_info:
        record.stack_info = redact(record.stack_info, secrets)


#: Loggers of the web server whose records ``serve_logging`` shows at the chosen level.
_SERVER_LOGGERS = ("tornado", "tornado.access", "tornado.application", "tornado.general",
                   "bokeh")


@contextlib.contextmanager
def serve_logging(level="warning", secrets=()):
    """Within the block: log records at ``level`` and above go to stderr as
    ``LOG_FORMAT`` lines (the server's loggers' own handlers are set aside), Python warnings are
    logged, and every record is redacted (:func:`redact`, with ``secrets``) when it is
    created.  Everything is put back as it was at the end."""
    import logging

    if level not in LEVELS:
        raise ValueError(f"log level {level!r}; use one of {', '.join(LEVELS)}")
    secrets = tuple(s for s in secrets if s)
    root = logging.getLogger()
    previous, root_level = logging.getLogRecordFactory(), root.level
    # The server's loggers (Bokeh's, Tornado's) go through this one handler at ``level``:
    # their own handlers, levels and propagation are set aside for the block (Bokeh adds a
    # stderr handler; dask.distributed's configuration gives tornado one of its own, stops
    # its propagation and silences it below CRITICAL).
    servers = [logging.getLogger(n) for n in _SERVER_LOGGERS]
    saved = [(lg, lg.level, lg.propagate, list(lg.handlers)) for lg in servers]

    def factory(*args, **kwargs):
        record = previous(*args, **kwargs)
        _redact_record(record, secrets)
        return record

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter(LOG_FORMAT))
    logging.setLogRecordFactory(factory)
    for lg in servers:
        for h in list(lg.handlers):
            lg.removeHandler(h)
        lg.setLevel(logging.NOTSET)
        lg.propagate = True
    root.addHandler(handler)
    root.setLevel(level.upper())
    logging.captureWarnings(True)
    try:
        yield
    finally:
        logging.captureWarnings(False)
        root.removeHandler(handler)
        if logging.getLogRecordFactory() is factory:
            logging.setLogRecordFactory(previous)
        root.setLevel(root_level)
        for lg, lv, prop, handlers in saved:
            lg.setLevel(lv)
            lg.propagate = prop
            for h in handlers:
                if h not in lg.handlers:
                    lg.addHandler(h)
