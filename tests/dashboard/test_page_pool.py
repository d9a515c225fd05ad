"""Which requests take a page made in advance (``llrlab serve --class``, page_pool.py); the
served behaviour is tested in tests/browser/test_class_pages.py."""

from __future__ import annotations

import pytest

from llrlab.dashboard.page_pool import pooled_request


class _Request:
    def __init__(self, path, arguments, method="GET"):
        self.path, self.arguments, self.method = path, arguments, method


@pytest.mark.parametrize("request_, pooled", [
    (_Request("/", {}), True),
    (_Request("/", {"token": [b"x"]}), True),
    (_Request("/", {"lesson": [b"calibration"]}), False),
    (_Request("/", {"token": [b"x"], "cal": [b"pav"]}), False),
    (_Request("/ws", {}), False),
    (_Request("/lecture/calibration", {}), False),
    (_Request("/", {}, method="POST"), False),
    (None, False),
])
def test_which_requests_take_a_made_page(request_, pooled):
    assert pooled_request(request_) is pooled


def test_a_bokeh_without_the_session_tables_is_one_line():
    """A Bokeh whose server lacks what the hand-over uses: PagePool says so (the CLI prints
    it as one line and makes pages on demand) instead of failing the server's start."""
    from llrlab.dashboard.page_pool import HandoverUnsupported, PagePool

    class App:
        def __init__(self):
            self._applications = {"/": object()}

    with pytest.raises(HandoverUnsupported, match="pages are made on demand"):
        PagePool(App(), 3)
    with pytest.raises(HandoverUnsupported):
        PagePool(object(), 3)
