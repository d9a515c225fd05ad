"""The process's upload folder: private, removed on demand and at exit; folders of killed
processes removed by the next server, and nothing else (unit level; the served process is
checked in ``test_serve_process.py``)."""

from __future__ import annotations

import fcntl
import os
import stat
import subprocess
import sys
import textwrap

import pytest

from llrlab.dashboard import upload_folders
from llrlab.dashboard.upload_folders import (
    ROOT_PREFIX,
    new_upload_folder,
    remove_stale_upload_folders,
    upload_root,
)


def _fake_root(tmp_path, name, *, lock=True):
    path = tmp_path / name
    path.mkdir(mode=0o700)
    (path / "upload-x").mkdir()
    (path / "upload-x" / "scores.txt").write_text("0.5 target\n")
    if lock:
        (path / ".lock").write_text("")
    return path


def test_the_upload_root_is_private_and_locked():
    root = upload_root()
    assert os.path.basename(root).startswith(f"{ROOT_PREFIX}{os.getpid()}-")
    assert stat.S_IMODE(os.stat(root).st_mode) == 0o700
    folder = new_upload_folder("upload-")
    assert os.path.dirname(folder) == root
    fd = os.open(os.path.join(root, ".lock"), os.O_RDONLY)
    try:  # another open file cannot take the lock: the folder counts as in use
        with pytest.raises(BlockingIOError):
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    finally:
        os.close(fd)


def test_a_removed_root_is_made_again(monkeypatch, tmp_path):
    monkeypatch.setattr(upload_folders, "_root", None)
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    first = upload_root()
    upload_folders.remove_upload_root()
    assert not os.path.exists(first)
    second = new_upload_folder()
    assert os.path.dirname(second) != first and os.path.isdir(second)
    import shutil

    shutil.rmtree(os.path.dirname(second))  # (a tmp-cleaner removing it)
    third = new_upload_folder()
    assert os.path.isdir(third)
    upload_folders.remove_upload_root()
    assert os.listdir(tmp_path) == []


def test_only_folders_of_dead_processes_are_removed(tmp_path, monkeypatch):
    dead = _fake_root(tmp_path, f"{ROOT_PREFIX}4242-dead1")
    live = _fake_root(tmp_path, f"{ROOT_PREFIX}{os.getpid()}-live1")
    unlocked = _fake_root(tmp_path, f"{ROOT_PREFIX}4243-nolock", lock=False)
    other_name = _fake_root(tmp_path, "llrlab-upload-old9")      # not this naming scheme
    lookalike = _fake_root(tmp_path, f"{ROOT_PREFIX}x-dead2")     # no pid
    target = _fake_root(tmp_path, "precious")
    link = tmp_path / f"{ROOT_PREFIX}4244-link"
    link.symlink_to(target)                                       # a link is never followed
    plain = tmp_path / f"{ROOT_PREFIX}4245-file"
    plain.write_text("not a folder")
    fd = os.open(live / ".lock", os.O_RDONLY)
    fcntl.flock(fd, fcntl.LOCK_EX)  # held by a running process (here: this one)
    try:
        removed = remove_stale_upload_folders(str(tmp_path))
    finally:
        os.close(fd)
    assert removed == [str(dead)]
    assert not dead.exists()
    for kept in (live, unlocked, other_name, lookalike, target, link, plain):
        assert os.path.lexists(kept), kept
    assert (target / "upload-x" / "scores.txt").exists()


def test_folders_of_another_user_are_kept(tmp_path, monkeypatch):
    dead = _fake_root(tmp_path, f"{ROOT_PREFIX}4242-dead1")
    monkeypatch.setattr(os, "getuid", lambda: os.stat(dead).st_uid + 1)
    assert remove_stale_upload_folders(str(tmp_path)) == []
    assert dead.exists()


_KILLED = textwrap.dedent("""
    import os, sys
    from llrlab.dashboard.upload_folders import new_upload_folder
    folder = new_upload_folder()
    open(os.path.join(folder, "scores.txt"), "w").write("0.5 target")
    print(os.path.dirname(folder), flush=True)
    sys.stdin.read()
""")


def test_a_killed_process_folder_is_removed_and_a_living_ones_is_not(tmp_path):
    env = dict(os.environ, TMPDIR=str(tmp_path))
    procs = [subprocess.Popen([sys.executable, "-c", _KILLED], env=env, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE)
             for _ in range(2)]
    try:
        roots = [p.stdout.readline().strip() for p in procs]
        assert all(os.path.isdir(r) for r in roots)
        assert remove_stale_upload_folders(str(tmp_path)) == []  # both alive
        procs[0].kill()
        procs[0].wait(timeout=60)
        assert remove_stale_upload_folders(str(tmp_path)) == [roots[0]]
        assert not os.path.exists(roots[0]) and os.path.isdir(roots[1])
        procs[1].stdin.close()  # a normal exit: it removes its own folder
        assert procs[1].wait(timeout=60) == 0
        assert not os.path.exists(roots[1])
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
            p.stdout.close()
            if p.stdin and not p.stdin.closed:
                p.stdin.close()
