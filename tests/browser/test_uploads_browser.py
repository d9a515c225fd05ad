"""Uploads in a real browser: Load right after choosing a file, and a client that turns off
FilePond's size check (the server refuses the file as it arrives)."""

from __future__ import annotations

import os

import pytest

from llrlab.core.io import write_trials
from llrlab.dashboard.app import create_app

from ..dashboard.conftest import make_trials
from .conftest import quiet, wait_until
from .test_dashboard_browser import _open

pytestmark = pytest.mark.browser


def _inputs(page):
    page.get_by_text("Upload files").first.click()
    inputs = page.locator("input[type=file]")
    wait_until(page, lambda: inputs.count() >= 2, what="the upload widgets")
    return inputs


def _load_button(page):
    return page.locator(".bk-btn", has_text="Load uploaded file").first


def test_load_pressed_right_after_choosing_a_new_file_loads_that_file(page, serve, tmp_path):
    session = _open(page, serve)
    state = session.state
    first, second = tmp_path / "first.txt", tmp_path / "second.txt"
    write_trials(str(first), make_trials(3000, seed=21, ids=True))
    write_trials(str(second), make_trials(5000, seed=22, ids=True))
    inputs = _inputs(page)
    inputs.nth(0).set_input_files(str(first))
    _load_button(page).click()  # at once: the file has not even reached the server
    wait_until(page, lambda: "uploaded" in state.data.systems and not state.status.busy,
               what="the first file")
    assert len(state.data.systems["uploaded"].eval) == 3000 and state.status.error == ""
    inputs.nth(0).set_input_files(str(second))
    _load_button(page).click()
    wait_until(page, lambda: len(state.data.systems["uploaded"].eval) == 5000
               and not state.status.busy, what="the second file, not the first one again")
    assert state.data.systems["uploaded"].eval.source == "second.txt"
    assert state.status.error == ""
    assert page.console_errors == []


def test_load_with_no_file_says_so(page, serve):
    session = _open(page, serve)
    _inputs(page)
    _load_button(page).click()
    wait_until(page, lambda: session.state.status.error == "choose a scores file to upload first",
               what="the message")


def test_a_client_without_the_size_check_is_refused_as_the_bytes_arrive(page, serve, tmp_path):
    session = _open(page, serve, lambda: create_app(max_upload_mb=5))
    state, uploads = session.state, session.uploads
    inputs = _inputs(page)
    # the browser's own check is turned off, as a hostile client would
    page.evaluate("""() => {
      for (const m of Bokeh.documents[0].all_models) {
        if (m.constructor.__name__ === 'FileDropper') {
          Bokeh.index.find_one(m)._file_pond.setOptions({allowFileSizeValidation: false,
                                                          maxFileSize: null});
        }
      }
    }""")
    big = tmp_path / "big.txt"
    with open(big, "wb") as f:
        f.write(b"0.5 target\n-0.5 nontarget\n" * 500_000)  # 13 MB
    assert big.stat().st_size > 12_000_000
    inputs.nth(0).set_input_files(str(big))
    wait_until(page, lambda: "big.txt" in state.status.error and "5 MB" in state.status.error,
               timeout=60, what="the refusal")
    alert = page.locator(".alert-danger", has_text="upload limit")
    wait_until(page, lambda: alert.count() > 0, what="the refusal in the page")
    quiet(page)  # the rest of the chunks arrive and are dropped
    assert uploads.scores.files == {} and uploads.scores._open == {}
    spooled = [os.path.join(d, f) for d, _, fs in os.walk(uploads.scores._dir) for f in fs]
    assert spooled == []  # the partial file was deleted
    before = session.uploads._channel.value  # the Load request the page sends
    _load_button(page).click()
    wait_until(page, lambda: session.uploads._channel.value != before,
               what="the Load request on the server")
    quiet(page)  # and what the server did about it in the page
    assert not state.status.busy
    assert "uploaded" not in state.data.systems
