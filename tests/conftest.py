"""The time scale of the tests (``tests/_time_scale.py``): checked when pytest starts, shown in
its header, and applied to pytest-timeout's limit of every test (the ``timeout`` of
pyproject.toml, ``--timeout``, ``PYTEST_TIMEOUT`` or a test's ``timeout`` mark)."""

from __future__ import annotations

import os

import pytest

from ._time_scale import ENV, scaled, time_scale


def pytest_configure(config):
    try:
        time_scale()
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None


def pytest_report_header(config):
    factor, how = time_scale()
    return f"time limits: x{factor:.3g} ({how}; set {ENV} to choose)"


def _timeout_mark(item):
    """pytest-timeout's limit for ``item`` as written, and the rest of its mark; the same
    precedence as pytest-timeout: the test's mark, then ``--timeout``, ``PYTEST_TIMEOUT``,
    the ini file."""
    mark = item.get_closest_marker("timeout")
    if mark is not None:
        args, kwargs = list(mark.args), dict(mark.kwargs)
        seconds = kwargs.pop("timeout", None) if "timeout" in kwargs else (
            args.pop(0) if args else None)
        return seconds, args, kwargs
    config = item.config
    seconds = config.getoption("timeout", None)
    if seconds is None:
        seconds = os.environ.get("PYTEST_TIMEOUT") or config.getini("timeout")
    return seconds, [], {}


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config, items):
    # the browser tests last (in their own order): they take most of the time, and a run cut
    # short (CI's session limit, Ctrl-C) has then reported everything else
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)
    if not config.pluginmanager.hasplugin("timeout"):
        return
    for item in items:
        seconds, args, kwargs = _timeout_mark(item)
        if seconds in (None, "") or float(seconds) <= 0:  # no limit
            continue
        item.add_marker(pytest.mark.timeout(scaled(float(seconds)), *args, **kwargs),
                        append=False)
