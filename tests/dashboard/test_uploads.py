"""Uploads checked on the server: chunks written to disk as they arrive, sizes enforced,
hostile names and messages refused, Load waiting for the file the browser holds.

The events are those the browser's FileDropper sends (``upload_event`` with ``chunk``,
``total_chunks``, ``name``, ``type``, ``data``; ``delete_event`` with ``name``), built here as
a client that ignores the browser-side size check would send them.
"""

from __future__ import annotations

import glob
import html
import json
import os
from types import SimpleNamespace

import pytest

from llrlab.core.io import write_trials
from llrlab.dashboard.app import create_app
from llrlab.dashboard.upload_folders import upload_root
from llrlab.dashboard.uploads import SpoolingFileDropper, UploadPanel, disk_name

from ..io._files import huge_declared_matrix
from .conftest import make_trials


def _event(event_name, **data):
    return SimpleNamespace(event_name=event_name, data=data)


def send(widget, name, content, chunk=4):
    """Send ``content`` (bytes) to ``widget`` in chunks of ``chunk`` bytes, as the browser
    does (an empty file is one empty chunk)."""
    parts = [content[i:i + chunk] for i in range(0, len(content), chunk)] or [b""]
    for i, part in enumerate(parts, 1):
        widget._process_event(_event("upload_event", chunk=i, total_chunks=len(parts),
                                     name=name, type="text/plain", data=part))


def request(panel, scores=(), key=()):
    """Press Load with the browser holding ``scores`` / ``key`` files [(name, size)]."""
    msg = {"n": len(panel._channel.value),
           "scores": [{"name": n, "size": s} for n, s in scores],
           "key": [{"name": n, "size": s} for n, s in key]}
    panel._channel.value = json.dumps(msg)


@pytest.fixture
def trials_text(tmp_path):
    path = tmp_path / "t.txt"
    write_trials(str(path), make_trials(2000, seed=5, ids=True))
    return path.read_bytes()


@pytest.fixture
def app_state():
    return create_app(demo=False, threaded=False).state


def test_chunks_are_written_to_disk_as_they_arrive(trials_text):
    w = SpoolingFileDropper(max_bytes=10**7, stem="scores")
    send(w, "trials.txt", trials_text[:-1000], chunk=4096)
    assert list(w.files) == ["trials.txt"]
    path, size = w.files["trials.txt"]
    assert os.path.basename(path) == "scores.txt" and size == len(trials_text) - 1000
    with open(path, "rb") as f:
        assert f.read() == trials_text[:-1000]
    assert w.value == {} and w.receiving == {}  # nothing held in memory
    # a new file replaces it, and its temporary file is removed
    send(w, "other.txt", b"1 target\n-1 nontarget\n")
    assert list(w.files) == ["other.txt"] and not os.path.exists(path)
    # a file in transit is listed with its bytes so far
    w._process_event(_event("upload_event", chunk=1, total_chunks=3, name="big.txt",
                            type="text/plain", data=b"x" * 10))
    assert w.receiving == {"big.txt": 10}
    w.cleanup()
    assert not os.path.exists(w._dir)


def test_an_oversize_upload_is_refused_as_it_arrives(tmp_path):
    """A client that ignores the browser's maxFileSize: refused at the chunk that passes
    the limit, the partial file deleted, later chunks dropped."""
    w = SpoolingFileDropper(max_bytes=5_000_000, stem="scores")
    chunk = b"0" * 4_000_000
    w._process_event(_event("upload_event", chunk=1, total_chunks=75, name="huge.txt",
                            type="text/plain", data=chunk))
    partial = w._open["huge.txt"][1]
    assert os.path.getsize(partial) == 4_000_000
    w._process_event(_event("upload_event", chunk=2, total_chunks=75, name="huge.txt",
                            type="text/plain", data=chunk))
    assert "huge.txt" in w.refusal and "5 MB" in w.refusal
    assert not os.path.exists(partial) and w._open == {} and w.receiving == {}
    for i in range(3, 76):  # the rest of the 300 MB is dropped, nothing is written
        w._process_event(_event("upload_event", chunk=i, total_chunks=75, name="huge.txt",
                                type="text/plain", data=chunk))
    assert w.files == {} and w._open == {}
    assert os.listdir(w._dir) == []
    w.cleanup()


@pytest.mark.parametrize("data", [
    {"chunk": 0, "total_chunks": 1, "name": "a.txt", "type": "", "data": b"x"},
    {"chunk": 2, "total_chunks": 1, "name": "a.txt", "type": "", "data": b"x"},
    {"chunk": 1, "total_chunks": 1, "name": "a.txt", "type": "", "data": "text, not bytes"},
    {"chunk": 1, "total_chunks": 1, "name": "a.txt", "type": "", "data": None},
    {"chunk": "1", "total_chunks": 1, "name": "a.txt", "type": "", "data": b"x"},
    {"chunk": 1, "total_chunks": 1, "name": "", "type": "", "data": b"x"},
    {"chunk": 1, "total_chunks": 1, "name": ["a"], "type": "", "data": b"x"},
    {"chunk": 1, "total_chunks": 1, "type": "", "data": b"x"},
])
def test_malformed_upload_messages_are_refused(data):
    w = SpoolingFileDropper(max_bytes=1000)
    w._process_event(_event("upload_event", **data))
    assert w.refusal and w.files == {} and w._open == {}
    w.cleanup()


def test_chunks_out_of_order_are_refused():
    w = SpoolingFileDropper(max_bytes=1000)
    w._process_event(_event("upload_event", chunk=1, total_chunks=3, name="a.txt",
                            type="", data=b"abc"))
    w._process_event(_event("upload_event", chunk=3, total_chunks=3, name="a.txt",
                            type="", data=b"abc"))
    assert "out of order" in w.refusal and w.files == {} and os.listdir(w._dir) == []
    # a changed chunk count too
    w._process_event(_event("upload_event", chunk=1, total_chunks=2, name="b.txt",
                            type="", data=b"abc"))
    w._process_event(_event("upload_event", chunk=2, total_chunks=5, name="b.txt",
                            type="", data=b"abc"))
    assert "out of order" in w.refusal and w.files == {}
    w.cleanup()


def test_a_deleted_file_is_removed_from_disk():
    w = SpoolingFileDropper(max_bytes=1000)
    send(w, "a.txt", b"1 target\n")
    path = w.files["a.txt"][0]
    w._process_event(_event("delete_event", name="a.txt"))
    assert w.files == {} and not os.path.exists(path)
    w.cleanup()


@pytest.mark.parametrize("name", ["bad\x00name.txt", "../../../etc/passwd", "a/b\\c.txt",
                                  "x" * 100_000 + ".txt", ".", ""])
def test_hostile_names_never_reach_the_file_system(name, app_state, trials_text):
    before = set(glob.glob(os.path.join(upload_root(), "*")))
    up = UploadPanel(app_state)
    send(up.scores, name, trials_text, chunk=1 << 16)
    if not name:
        assert up.scores.refusal and up.scores.files == {}
        up.cleanup()
        return
    (shown, (path, _)), = up.scores.files.items()
    assert os.path.dirname(os.path.dirname(path)) == up.scores._dir
    assert os.path.basename(path) in ("scores.txt", "scores")
    assert len(shown) <= 255
    up._load()
    assert app_state.status.error == ""
    assert len(app_state.data.systems["uploaded"].eval) == 2000
    up.cleanup()
    after = set(glob.glob(os.path.join(upload_root(), "*")))
    assert after <= before  # nothing left behind


def test_the_name_shown_in_errors_is_the_users(app_state):
    up = UploadPanel(app_state)
    send(up.scores, "bad\x00file.txt", b"m1 s1 1.0 target\nm1 s2 oops nontarget\n")
    up._load()
    assert app_state.status.error.startswith("bad\\x00file.txt")  # the NUL written as an escape
    assert "llrlab-upload" not in app_state.status.error
    up.cleanup()


def test_disk_name():
    assert disk_name("scores", "a.csv") == "scores.csv"
    assert disk_name("scores", "a.tar.h5") == "scores.h5"
    assert disk_name("key", "noext") == "key"
    assert disk_name("key", "a.t xt") == "key"
    assert disk_name("key", "a." + "x" * 20) == "key"


# ------------------------------------------------------------------ Load requests

def test_load_with_no_file_in_the_browser_says_so(app_state, trials_text):
    up = UploadPanel(app_state)
    request(up)
    assert app_state.status.error == "choose a scores file to upload first"
    # the browser removed the file although the server still has it: nothing is loaded
    send(up.scores, "a.txt", trials_text, chunk=1 << 16)
    app_state.status.error = ""
    request(up)
    assert app_state.status.error == "choose a scores file to upload first"
    assert app_state.data.systems == {}
    up.cleanup()


def test_load_right_after_choosing_a_new_file_waits_for_it(app_state, tmp_path):
    """The race of a Load click sent before the new file's first chunk: the previous file
    must not be loaded (under the new name or any other); the new one is, once it has
    arrived."""
    up = UploadPanel(app_state)
    old = tmp_path / "old.txt"
    write_trials(str(old), make_trials(1000, seed=6, ids=True))
    new = tmp_path / "new.txt"
    write_trials(str(new), make_trials(3000, seed=7, ids=True))
    send(up.scores, "old.txt", old.read_bytes(), chunk=1 << 16)
    # the browser now holds new.txt; the server has not seen a byte of it
    request(up, scores=[("new.txt", new.stat().st_size)])
    assert app_state.data.systems == {} and app_state.status.error == ""
    assert "Load waits for new.txt" in html.unescape(up.status.object)
    data = new.read_bytes()
    up.scores._process_event(_event("upload_event", chunk=1, total_chunks=2, name="new.txt",
                                    type="text/plain", data=data[:1000]))
    assert app_state.data.systems == {}  # still arriving
    assert "receiving new.txt" in html.unescape(up.status.object)
    up.scores._process_event(_event("upload_event", chunk=2, total_chunks=2, name="new.txt",
                                    type="text/plain", data=data[1000:]))
    assert len(app_state.data.systems["uploaded"].eval) == 3000
    assert app_state.data.systems["uploaded"].eval.source == "new.txt"
    assert up.status.object == ""
    up.cleanup()


def test_load_waits_for_the_key_too(app_state, tmp_path):
    up = UploadPanel(app_state)
    scores = tmp_path / "s.txt"
    key = tmp_path / "k.txt"
    scores.write_text("m1 s1 2.0\nm1 s2 -1.0\nm2 s1 -2.0\n")
    key.write_text("m1 s1 target\nm1 s2 nontarget\nm2 s1 nontarget\n")
    send(up.scores, "s.txt", scores.read_bytes())
    request(up, scores=[("s.txt", scores.stat().st_size)],
            key=[("k.txt", key.stat().st_size)])
    assert app_state.data.systems == {}
    send(up.key, "k.txt", key.read_bytes())
    assert len(app_state.data.systems["uploaded"].eval) == 3
    up.cleanup()


def test_a_refused_file_ends_the_wait_with_its_message(app_state):
    up = UploadPanel(app_state, max_upload_mb=1e-5)  # 10 bytes
    request(up, scores=[("big.txt", 100)])
    send(up.scores, "big.txt", b"x" * 100)
    assert "big.txt" in app_state.status.error and "limit" in app_state.status.error
    assert up._waiting is None and app_state.data.systems == {}
    up.cleanup()


@pytest.mark.parametrize("value", ["not json", "[1, 2]", '{"scores": 5}', "x" * 30_000,
                                   '{"scores": [{"name": 1, "size": "a"}]}'])
def test_malformed_load_requests_load_what_the_server_has(value, app_state, trials_text):
    up = UploadPanel(app_state)
    send(up.scores, "a.txt", trials_text, chunk=1 << 16)
    up._channel.value = value
    parsed = None
    try:
        parsed = json.loads(value)
    except ValueError:
        pass
    if isinstance(parsed, dict):  # a request whose lists are unreadable: use what is here
        assert len(app_state.data.systems["uploaded"].eval) == 2000
    else:  # not a request at all: ignored
        assert app_state.data.systems == {}
    up.cleanup()


def test_load_of_a_file_the_server_refused_says_why_at_once(app_state):
    up = UploadPanel(app_state, max_upload_mb=1e-5)  # 10 bytes
    send(up.scores, "big.txt", b"x" * 100)
    app_state.status.error = ""
    request(up, scores=[("big.txt", 100)])  # the browser believes it was sent
    assert "big.txt" in app_state.status.error and "limit" in app_state.status.error
    assert up._waiting is None
    send(up.scores, "big.txt", b"1 target\n")  # the same name again, small enough
    assert up.scores.refused == {}
    up.cleanup()


def test_one_file_in_transit_per_widget():
    """A client that starts many files at once keeps only the newest on disk."""
    w = SpoolingFileDropper(max_bytes=1000)
    for i in range(50):
        w._process_event(_event("upload_event", chunk=1, total_chunks=2, name=f"f{i}.txt",
                                type="", data=b"x" * 10))
    assert list(w._open) == ["f49.txt"] and list(w.receiving) == ["f49.txt"]
    on_disk = [f for _, _, fs in os.walk(w._dir) for f in fs]
    assert len(on_disk) == 1
    w._process_event(_event("upload_event", chunk=2, total_chunks=2, name="f3.txt",
                            type="", data=b"x"))  # a dropped file's later chunk: ignored
    assert w.files == {} and list(w._open) == ["f49.txt"]
    w.cleanup()


# ------------------------------------------------------------------ what loading reports

def test_trials_in_only_one_file_are_reported_in_the_page_with_counts(app_state, tmp_path):
    """The join drops trials of the scores that are not in the key and the reverse: the
    page says so, with both counts and the files' names (not only the server's stderr)."""
    up = UploadPanel(app_state)
    lines = [f"m{i} s{i}" for i in range(40)]
    scores = "".join(f"{t} {i - 20.0}\n" for i, t in enumerate(lines)) + "x1 y1 1.0\nx2 y2 0\n"
    key = "".join(f"{t} {'target' if i >= 20 else 'nontarget'}\n" for i, t in enumerate(lines))
    key += "only key target\n"
    send(up.scores, "my scores.txt", scores.encode())
    send(up.key, "my key.txt", key.encode())
    up._load()
    assert app_state.status.error == ""
    assert len(app_state.data.systems["uploaded"].eval) == 40
    text = app_state.data.notes_text()
    assert "2 scored trial" in text and "1 key trial" in text
    assert "my scores.txt" in text and "my key.txt" in text and "llrlab-upload" not in text
    assert "'x1 y1'" in text  # an example of each
    # another system's load keeps the note; loading that set again without mismatches
    # clears it
    app_state.data.load_files([("other", "eval", "x.txt", None)],
                              loader=lambda s, k, p: (make_trials(500, seed=1), []))
    assert list(app_state.data.notes) == [("uploaded", "eval")]
    app_state.data.load_files([("uploaded", "eval", "x.txt", None)],
                              loader=lambda s, k, p: make_trials(500, seed=2))
    assert app_state.data.notes == {} and app_state.data.notes_text() == ""
    up.cleanup()


@pytest.mark.parametrize("exc, shown", [
    (MemoryError(), "trials.h5: not enough memory for this data set"),
    (ValueError("could not convert string to float: np.bytes_(b'abc')"),
     "trials.h5: ValueError: could not convert string to float: np.bytes_(b'abc')"),
])
def test_a_failed_load_names_the_file(app_state, exc, shown, caplog):
    def loader(scores, key, progress):
        raise exc

    app_state.data.load_files([("A", "eval", "/somewhere/llrlab-upload-x/trials.h5", None)],
                              display={"/somewhere/llrlab-upload-x/trials.h5": "trials.h5"},
                              loader=loader)
    assert app_state.status.error == shown
    assert "Traceback" in caplog.text  # the unexpected error is logged in full


def test_a_small_upload_declaring_a_huge_matrix_is_refused_by_the_loader(app_state, tmp_path):
    """An HDF5 file of a few hundred kB declaring a 40000 x 40000 matrix: the load is refused
    before anything is allocated (the upload limit bounds the memory of the load)."""
    p = huge_declared_matrix(tmp_path / "huge.h5")
    key = tmp_path / "key.txt"
    key.write_text("m0 s0 target\nm0 s1 nontarget\n")
    assert p.stat().st_size < 2_000_000
    up = UploadPanel(app_state, max_upload_mb=5)
    send(up.scores, "huge.h5", p.read_bytes(), chunk=1 << 20)
    send(up.key, "key.txt", key.read_bytes())
    up._load()
    err = app_state.status.error
    assert err.startswith("huge.h5") and "not enough memory" in err and "40000 x 40000" in err
    assert "\n" not in err and app_state.data.systems == {}
    up.cleanup()


def test_peer_formats_load_through_the_upload_path(app_state):
    """A bob.measure file (with a failure to acquire), a bob.bio file and a NIST SRE pair,
    uploaded as users upload them: the same trials as from the command line, and the
    failure to acquire said in the page."""
    up = UploadPanel(app_state)
    send(up.scores, "bob.txt", b"1 0.5\n-1 -0.3\n1 nan\n-1 0.2\n1 1.5\n")
    up._load()
    assert app_state.status.error == ""
    assert len(app_state.data.systems["uploaded"].eval) == 4
    assert "1 failure(s) to acquire (NaN scores: 1 target, 0 non-target) left out" in \
        app_state.data.notes_text()
    send(up.scores, "scores-bio.txt", b"a a t1 0.9\na b t2 0.1\nb b t3 0.7\nc a t5 -0.4\n")
    up._load()
    t = app_state.data.systems["uploaded"].eval
    assert app_state.status.error == "" and list(t.labels) == [True, False, True, False]
    send(up.scores, "system.tsv", b"modelid\tsegmentid\tLLR\nm1\ts1\t2\nm1\ts2\t-1\nm2\ts1\t0\n")
    send(up.key, "key.tsv", b"modelid\tsegmentid\ttargettype\nm1\ts1\ttarget\nm1\ts2\t"
                            b"nontarget\nm2\ts1\tnontarget\n")
    up._load()
    t = app_state.data.systems["uploaded"].eval
    assert app_state.status.error == "" and list(t.scores) == [2, -1, 0]
    # distances, negated as they are read
    up.distance.value = True
    up._load()
    assert list(app_state.data.systems["uploaded"].eval.scores) == [-2, 1, 0]
    up.cleanup()


def test_failures_to_acquire_as_errors_through_the_upload_and_serve(app_state, tmp_path,
                                                                    monkeypatch):
    """The upload card's box and ``llrlab serve FILE --fta-as-error``: a NaN-scored target
    is kept as a miss (scored below every other), as on the command line."""
    up = UploadPanel(app_state)
    data = b"1 0.5\n-1 -0.3\n1 nan\n-1 0.2\n1 1.5\n"
    send(up.scores, "bob.txt", data)
    up._load()
    assert len(app_state.data.systems["uploaded"].eval) == 4
    up.fta.value = True
    up._load()
    t = app_state.data.systems["uploaded"].eval
    assert app_state.status.error == "" and len(t) == 5 and min(t.tar) < min(t.non)
    up.cleanup()
    from llrlab.dashboard import app as app_module
    from llrlab.dashboard.app import FileSpec

    p = tmp_path / "bob.txt"
    p.write_bytes(data)
    monkeypatch.setattr(app_module, "READ_OPTIONS", {"fta_as_error": True})
    monkeypatch.setattr(app_module, "_FILE_CACHE", {})
    state = create_app([FileSpec("bob", "eval", str(p))], demo=False, threaded=False).state
    assert len(state.data.systems["bob"].eval) == 5


def test_pyeer_genuine_and_impostor_files_through_the_upload_and_serve(app_state, tmp_path,
                                                                      monkeypatch):
    """pyeer's two files of one score per line (genuine, impostor) as the upload's scores and
    key, and as a ``llrlab serve`` FILE spec: targets and non-targets, said in the page."""
    up = UploadPanel(app_state)
    send(up.scores, "genuine.txt", b"2.5\n1.9\n3.1\n0.4\n")
    send(up.key, "impostor.txt", b"-1.2\n0.1\n-2.5\n-0.3\n-1.9\n0.8\n")
    up._load()
    assert app_state.status.error == ""
    t = app_state.data.systems["uploaded"].eval
    assert list(t.tar) == [2.5, 1.9, 3.1, 0.4] and list(t.non) == [-1.2, 0.1, -2.5, -0.3,
                                                                   -1.9, 0.8]
    assert "read as genuine (target) scores and impostor (non-target)" in \
        app_state.data.notes_text()
    up.cleanup()
    from llrlab.dashboard import app as app_module
    from llrlab.dashboard.app import FileSpec
    from llrlab.dashboard.cli import parse_file_specs

    (tmp_path / "g.txt").write_text("2.5\n1.9\n3.1\n0.4\n")
    (tmp_path / "i.txt").write_text("-1.2\n0.1\n-2.5\n")
    monkeypatch.setattr(app_module, "_FILE_CACHE", {})
    specs = parse_file_specs([f"eval:pyeer={tmp_path / 'g.txt'},{tmp_path / 'i.txt'}"])
    assert specs == [FileSpec("pyeer", "eval", str(tmp_path / "g.txt"), str(tmp_path / "i.txt"))]
    state = create_app(specs, demo=False, threaded=False).state
    t = state.data.systems["pyeer"].eval
    assert (len(t.tar), len(t.non)) == (4, 3)


def test_serve_reads_its_files_with_the_reading_options(tmp_path, monkeypatch):
    """``llrlab serve FILE --distance --llr-unit log10`` (the options the server sets in
    ``READ_OPTIONS``): the session's trials are the negated, converted scores."""
    from llrlab.dashboard import app as app_module
    from llrlab.dashboard.app import FileSpec

    p = tmp_path / "dist.txt"
    p.write_text("1 target\n3 nontarget\n2 nontarget\n0.5 target\n")
    monkeypatch.setattr(app_module, "READ_OPTIONS", {"higher_is_target": False,
                                                     "unit": "log10"})
    monkeypatch.setattr(app_module, "_FILE_CACHE", {})
    state = create_app([FileSpec("dist", "eval", str(p))], demo=False, threaded=False).state
    got = state.data.systems["dist"].eval.scores
    assert list(got) == pytest.approx([-x * 2.302585092994046 for x in (1, 3, 2, 0.5)])


def test_serve_refuses_reading_options_without_files(capsys):
    from llrlab.dashboard.cli import build_parser, run_serve

    for option in ("--distance", "--fta-as-error"):
        args = build_parser().parse_args(["serve", option, "--no-show"])
        assert run_serve(args) == 2
        assert "--llr-unit, --columns and --fta-as-error say how the FILEs" in \
            capsys.readouterr().err
