"""Outputs are written all or none, keep the mode of the file they replace, follow symbolic
links, refuse special files, and leave no temporary file behind, even after SIGKILL."""

from __future__ import annotations

import os
import re
import signal
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from llrlab.core.cli._writing import write_all_atomically
from llrlab.core.errors import FileFormatError

from .._time_scale import scaled

LLRLAB = Path(sys.executable).parent / "llrlab"
ASSETS = Path(__file__).resolve().parents[2] / "assets"
DEV = [ASSETS / "demo_A_dev_scores.h5", ASSETS / "demo_dev_key.h5"]


def _text(content):
    def write(tmp):
        with open(tmp, "w") as f:
            f.write(content)
    return write


def _calibrate(tmp_path, *args):
    return subprocess.run([str(LLRLAB), "calibrate", "--dev", *map(str, DEV), *map(str, args)],
                          capture_output=True, text=True, timeout=scaled(300), cwd=tmp_path)


def _leftovers(folder):
    return sorted(p.name for p in Path(folder).iterdir() if p.name.startswith("."))


def test_calibrate_writes_scores_and_model_both_or_neither(tmp_path):
    """The model path is a directory: the scores file must stay as it was (it used to be
    replaced before the model failed)."""
    old = tmp_path / "F.h5"
    old.write_text("old content")
    (tmp_path / "M.json").mkdir()
    r = _calibrate(tmp_path, "--out", "F.h5", "--model", "M.json")
    assert r.returncode == 2
    assert r.stderr.strip() == ("llrlab calibrate: error: M.json: is a directory, not a "
                                "regular file; llrlab writes its outputs to regular files only")
    assert old.read_text() == "old content"
    assert _leftovers(tmp_path) == []


def test_a_failed_rename_puts_back_the_outputs_already_replaced(tmp_path, monkeypatch):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("old a")
    real_replace = os.replace

    def replace(src, dst):
        if str(dst) == str(b):
            raise PermissionError(13, "Permission denied")
        return real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(FileFormatError, match=r"b\.txt: cannot be written \(Permission"):
        write_all_atomically([(a, _text("new a")), (b, _text("new b"))])
    monkeypatch.undo()
    assert a.read_text() == "old a" and not b.exists()
    assert _leftovers(tmp_path) == []


def test_the_mode_of_a_replaced_output_is_kept(tmp_path):
    out = tmp_path / "scores.h5"
    out.write_text("old")
    out.chmod(0o600)
    model = tmp_path / "model.json"
    model.write_text("{}")
    model.chmod(0o640)
    r = _calibrate(tmp_path, "--out", out, "--model", model)
    assert r.returncode == 0, r.stderr
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert stat.S_IMODE(model.stat().st_mode) == 0o640
    assert out.read_bytes()[:4] == b"\x89HDF"


def test_a_symbolic_link_is_followed_and_kept(tmp_path):
    target = tmp_path / "real.txt"
    target.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(target.name)
    write_all_atomically([(link, _text("new"))])
    assert link.is_symlink() and os.readlink(link) == "real.txt"
    assert target.read_text() == "new"


@pytest.mark.parametrize("kind", ["device", "fifo", "dangling link"])
def test_special_outputs_are_refused_before_anything_is_written(tmp_path, kind):
    if kind == "device":
        path = Path("/dev/null")
        want = "is a character device, not a regular file"
    elif kind == "fifo":
        path = tmp_path / "pipe.txt"
        os.mkfifo(path)
        want = "is a named pipe (FIFO), not a regular file"
    else:
        path = tmp_path / "dangling.txt"
        path.symlink_to(tmp_path / "missing" / "x.txt")
        want = "is a symbolic link to a missing file"
    other = tmp_path / "other.txt"
    other.write_text("old")
    with pytest.raises(FileFormatError, match=re.escape(want)):
        write_all_atomically([(other, _text("new")), (path, _text("x"))])
    assert other.read_text() == "old"
    if kind == "device":
        assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


_SLOW_WRITER = textwrap.dedent("""
    import sys, time
    from llrlab.core.cli._signals import Terminated, terminate_as_interrupt
    from llrlab.core.cli._writing import write_all_atomically

    def slow(tmp):
        with open(tmp, "w") as f:
            f.write("x" * 1_000_000)
            f.flush()
            print("writing", flush=True)
            time.sleep(60)

    def fast(tmp):
        with open(tmp, "w") as f:
            f.write("new")

    *first, last = sys.argv[1:]  # the outputs: the last one is written slowly
    try:
        with terminate_as_interrupt():  # (as the command line does)
            write_all_atomically([*((p, fast) for p in first), (last, slow)])
    except Terminated:
        sys.exit(143)
""")


@pytest.mark.parametrize("name", ["out.txt", "out.h5"])
def test_sigkill_while_writing_leaves_no_temporary_file(tmp_path, name):
    """A text output is written to an unnamed file: nothing is left.  HDF5 needs a named
    temporary file; the next write of the same output removes the one a killed process
    left."""
    out = tmp_path / name
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_WRITER, str(out)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "writing"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=scaled(30))
    proc.stdout.close()
    left = _leftovers(tmp_path)
    if name.endswith(".txt"):
        assert left == []
    else:
        assert left == [f".out.partial-{proc.pid}.h5"]
        time.sleep(0.1)
        write_all_atomically([(out, _text("complete"))])
        assert _leftovers(tmp_path) == []
    assert not out.exists() or out.read_text() == "complete"


def _dead_pid():
    """The PID of a process that has ended (and, for this test's short life, not reused)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait(timeout=60)
    return proc.pid


@pytest.mark.parametrize("name", ["model.calibration.json", "out.h5", "out", "x.previous"])
def test_hidden_files_of_a_killed_write_are_removed_by_the_next_write(tmp_path, name):
    """A write killed between its renames leaves ``.NAME.partial-PID.previous`` (the old
    content of an output already replaced) and possibly ``.NAME.partial-PID``: the next write
    of that output removes both before writing; files of a live process, and files of other
    outputs, are kept."""
    out = tmp_path / name
    out.write_text("old")
    stem, ext = os.path.splitext(name)
    dead, alive = _dead_pid(), os.getppid()
    stale = [f".{stem}.partial-{dead}{ext}.previous", f".{stem}.partial-{dead}{ext}"]
    kept = [f".{stem}.partial-{alive}{ext}.previous", f".other.partial-{dead}{ext}.previous",
            f".{stem}.partial-{dead}{ext}.previous.bak", f".{stem}.partial-x{ext}.previous"]
    for n in stale + kept:
        (tmp_path / n).write_text("left over")
    write_all_atomically([(out, _text("new"))])
    assert out.read_text() == "new"
    assert _leftovers(tmp_path) == sorted(kept)


def test_calibrate_removes_the_previous_model_copy_a_killed_run_left(tmp_path):
    """The case of issue 18: ``.A.calibration.partial-PID.json.previous`` beside the model."""
    model = tmp_path / "A.calibration.json"
    model.write_text("{}")
    left = tmp_path / f".A.calibration.partial-{_dead_pid()}.json.previous"
    left.write_text("{}")
    r = _calibrate(tmp_path, "--out", "A.h5", "--quiet")
    assert r.returncode == 0, r.stderr
    assert not left.exists() and _leftovers(tmp_path) == []
    assert "affine" in model.read_text()


@pytest.mark.parametrize("name", ["out.txt", "out.h5"])
def test_sigterm_while_writing_leaves_the_outputs_as_they_were(tmp_path, name):
    first, out = tmp_path / "first.txt", tmp_path / name
    first.write_text("old first")
    out.write_text("old")
    proc = subprocess.Popen([sys.executable, "-c", _SLOW_WRITER, str(first), str(out)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "writing"
    os.kill(proc.pid, signal.SIGTERM)
    assert proc.wait(timeout=30) == 143
    proc.stdout.close()
    assert _leftovers(tmp_path) == []
    assert first.read_text() == "old first" and out.read_text() == "old"


def wait_for_signal_handler(proc, signum, timeout=120):
    """Wait until ``proc`` catches ``signum`` (its ``SigCgt`` mask in /proc), so that a test
    never signals a process still starting up (whose default action would kill it)."""
    status = Path(f"/proc/{proc.pid}/status")
    if not status.exists():
        pytest.skip("no /proc to see the process's signal handlers")
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, "the process ended before catching the signal"
        caught = next(line for line in status.read_text().splitlines()
                      if line.startswith("SigCgt:"))
        if int(caught.split()[1], 16) >> (signum - 1) & 1:
            return
        time.sleep(0.05)
    raise AssertionError(f"the process did not catch signal {signum}")


def test_the_console_script_stops_cleanly_on_sigterm(tmp_path):
    """``llrlab eval -`` waits for its standard input; SIGTERM ends it with one line and
    exit code 143 (128 + 15), like Ctrl-C with its 130."""
    proc = subprocess.Popen([str(LLRLAB), "eval", "-"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        proc.stdin.write("0.5 target\n")
        proc.stdin.flush()
        wait_for_signal_handler(proc, signal.SIGTERM)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 143, err
    assert err.strip() == "llrlab eval: terminated (SIGTERM); no output was written"


@pytest.mark.parametrize("signum, code, line", [
    (signal.SIGTERM, 143, "llrlab eval: terminated (SIGTERM); no output was written"),
    (signal.SIGINT, 130, "llrlab eval: interrupted; no output was written")])
def test_a_stop_signal_that_c_code_turns_into_another_error_still_stops_cleanly(
        monkeypatch, signum, code, line):
    """The CI caught SIGTERM landing inside ``import numpy``: numpy's C code replaced the
    handler's exception by an ImportError, and the command died with a traceback.  Whatever
    error SIGTERM or Ctrl-C causes, the command reports the stop with its exit code."""
    import io

    import llrlab.core.cli as cli

    def import_hit_by_the_signal(args, out):
        try:
            signal.raise_signal(signum)
        except KeyboardInterrupt:  # (Terminated is one)
            raise ImportError('PyCapsule_Import could not import module "datetime"') from None

    monkeypatch.setattr(cli, "_handle", import_hit_by_the_signal)
    err = io.StringIO()
    assert cli.run(["eval", "-"], out=io.StringIO(), err=err) == code
    assert err.getvalue().strip() == line
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_error_without_sigterm_is_not_reported_as_a_termination(monkeypatch):
    import io

    import llrlab.core.cli as cli

    def broken(args, out):
        raise ImportError("a real import error")

    monkeypatch.setattr(cli, "_handle", broken)
    with pytest.raises(ImportError, match="a real import error"):
        cli.run(["eval", "-"], out=io.StringIO(), err=io.StringIO())
