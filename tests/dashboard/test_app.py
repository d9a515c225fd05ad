"""The page factory, the upload panel and the command line (no browser)."""

from __future__ import annotations

import argparse

import pytest

from llrlab.core.io import write_trials
from llrlab.dashboard import cli
from llrlab.dashboard.app import DEMO_FILES, create_app, demo_specs
from llrlab.dashboard.controls import UploadPanel

from .conftest import make_trials
from .test_uploads import send


def test_demo_files_are_shipped():
    specs = demo_specs()
    assert len(specs) == len(DEMO_FILES)
    import os

    total = 0
    for s in specs:
        for p in (s.scores, s.key):
            assert os.path.isfile(p), p
            total += os.path.getsize(p)
    assert total < 5_000_000


def test_create_app_loads_the_demo():
    page = create_app(threaded=False)
    st = page.state
    assert st.status.error == ""
    assert set(st.data.systems) == {"system A", "system B"}
    for sd in st.data.systems.values():
        n = len(sd.eval)
        assert 20_000 <= n <= 100_000
        assert 0.01 <= sd.eval.n_tar / n <= 0.10
    assert set(st.results.datasets) == {"dev", "eval"}
    # eval is mildly miscalibrated after a calibration trained on dev
    st.calibration.method = "affine"
    ev = {r["role"]: r for r in st.export.metrics_rows()}["eval"]
    assert ev["cllr"] > ev["min_cllr"] + 0.005
    st.calibration.fusion = True
    assert st.status.error == ""
    assert all("fused" in r["dataset"] for r in st.export.metrics_rows())


def test_create_app_with_command_line_files(tmp_path):
    t = make_trials(4000, seed=3, ids=True)
    path = tmp_path / "trials.txt"
    write_trials(str(path), t)
    specs = cli.parse_file_specs([f"eval:mine={path}"])
    page = create_app(specs, threaded=False)
    assert list(page.state.data.systems) == ["mine"]
    assert len(page.state.data.systems["mine"].eval) == 4000


def test_upload_panel_valid_and_broken_files(tmp_path):
    page = create_app(demo=False, threaded=False)
    st = page.state
    up = UploadPanel(st)
    t = make_trials(3000, seed=4, ids=True)
    path = tmp_path / "good.txt"
    write_trials(str(path), t)
    send(up.scores, "good.txt", path.read_bytes(), chunk=1 << 16)
    up.role.value = "dev"
    up.system.value = "upl"
    up._load()
    assert st.status.error == ""
    assert len(st.data.systems["upl"].dev) == 3000
    systems = st.data.systems
    send(up.scores, "bad.txt", b"m1 s1 1.0 target\nm1 s2 oops nontarget\n")
    up._load()
    assert st.status.error.startswith("bad.txt")
    assert "llrlab-upload" not in st.status.error  # the temporary path is not shown
    assert st.data.systems is systems
    up.max_bytes = 5  # scores and key together are checked again at Load
    up._load()
    assert "limit" in st.status.error
    up.cleanup()


def test_parse_file_specs(tmp_path):
    a, b = tmp_path / "a.h5", tmp_path / "b.txt"
    a.write_bytes(b"")
    b.write_bytes(b"")
    specs = cli.parse_file_specs([str(a), f"{b},{a}"])
    assert [(s.system, s.role, s.key) for s in specs] == [
        ("system 1", "dev", None), ("system 1", "eval", str(a))]
    specs = cli.parse_file_specs([f"eval:X={a}"])
    assert (specs[0].system, specs[0].role) == ("X", "eval")
    with pytest.raises(cli.SpecError, match="no such file"):
        cli.parse_file_specs([str(tmp_path / "missing.txt")])
    with pytest.raises(cli.SpecError, match="twice"):
        cli.parse_file_specs([f"dev={a}", f"dev={b}"])


def test_serve_parser_and_main(capsys):
    parser = cli.build_parser()
    args = parser.parse_args(["serve", "--port", "0", "--no-show", "x.h5"])
    assert (args.command, args.port, args.no_show, args.address) == ("serve", 0, True,
                                                                      "127.0.0.1")
    assert args.files == ["x.h5"]
    sub = argparse.ArgumentParser().add_subparsers()
    cli.add_serve_parser(sub)
    with pytest.raises(SystemExit) as exc:
        cli.main(["serve", "--help"])
    assert exc.value.code == 0
    assert "--max-upload-mb" in capsys.readouterr().out
    # a bad FILE exits with code 2 and one line, before any server starts
    args = parser.parse_args(["serve", "--no-show", "nope.h5"])
    assert cli.run_serve(args) == 2
    assert "nope.h5: no such file" in capsys.readouterr().err


class _Doc:
    """A document whose next-tick callbacks run at once."""

    def add_next_tick_callback(self, cb):
        cb()


class _Inline:
    def submit(self, fn):
        fn()


def test_an_error_while_a_result_is_applied_is_shown_not_swallowed(caplog):
    from llrlab.dashboard.app import ThreadRunner

    failures = []
    runner = ThreadRunner(_Doc(), executor=_Inline(), on_failure=failures.append)

    def apply(result):
        raise TypeError("List parameter 'Bokeh.stylesheets' must be a list")

    with caplog.at_level("ERROR"):
        runner.run(lambda progress: 42, apply, lambda exc: None, lambda *a: None)
    assert len(failures) == 1 and isinstance(failures[0], TypeError)
    assert "dashboard callback failed" in caplog.text and "Traceback" in caplog.text


def test_the_page_shows_a_failed_update_in_one_line():
    from llrlab.dashboard.app import _show_failure

    page = create_app(demo=False, threaded=False)
    _show_failure(page.state, TypeError("List parameter 'Bokeh.stylesheets' must be a list"))
    assert page.state.status.error == ("the page could not be updated: TypeError: List parameter "
                                "'Bokeh.stylesheets' must be a list")


def test_an_error_in_any_callback_of_a_served_page_stays_in_its_error_bar(caplog):
    """Panel hands an exception raised in a widget callback to the exception handler; for a
    served page it goes to that page's error bar (not only a toast that vanishes), with the
    traceback in the server log."""
    import gc
    import weakref

    from bokeh.document import Document
    from panel.io.state import set_curdoc

    from llrlab.dashboard import app

    page = create_app(demo=False, threaded=False)
    state, doc, other = page.state, Document(), Document()
    app._PAGE_STATES[doc] = weakref.ref(state)
    try:
        raise KeyError("view")
    except KeyError as exc:
        raised = exc
    with caplog.at_level("ERROR"), set_curdoc(doc):
        app._exception_handler(raised)
    assert state.status.error == "the page could not be updated: KeyError: 'view'"
    assert "error in a dashboard callback" in caplog.text and "Traceback" in caplog.text

    # another page's error does not reach this one (no state registered for it: toast)
    state.status.clear_error()
    with set_curdoc(other):
        app._exception_handler(ValueError("elsewhere"))
    assert state.status.error == ""

    # the registry refers to the state weakly and drops a closed session's document (the
    # freeing of whole served sessions is tested in tests/browser/test_sessions.py)
    assert isinstance(app._PAGE_STATES[doc], weakref.ref)
    held = len(app._PAGE_STATES)
    del doc
    gc.collect()
    assert len(app._PAGE_STATES) == held - 1


def test_the_comparison_and_forensic_tabs_are_built_when_first_shown():
    from llrlab.dashboard.views import ForensicView
    from llrlab.dashboard.views.compare import CompareView

    page = create_app(threaded=False)
    tabs, made = page.tabs, page.tab_views
    assert made == {} and [len(tabs.objects[i].objects) for i in (1, 2)] == [0, 0]
    tabs.active = 2
    forensic = made[2]
    assert isinstance(forensic, ForensicView) and 1 not in made
    assert len(tabs.objects[2].objects) == 1 and forensic.tippett.active  # shown, computing
    tabs.active = 1
    compare = made[1]
    assert isinstance(compare, CompareView) and compare.cstate.active
    assert not forensic.tippett.active
    tabs.active = 2  # shown again: the same view, not a second one
    assert made[2] is forensic and len(tabs.objects[2].objects) == 1
    assert forensic.tippett.active and not compare.cstate.active
