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
    from llrlab.core.cli._writing import write_all_atomically

    def write(tmp):
        with open(tmp, "w") as f:
            f.write("x" * 1_000_000)
            f.flush()
            print("writing", flush=True)
            time.sleep(60)

    write_all_atomically([(sys.argv[1], write)])
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
