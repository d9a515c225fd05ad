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
