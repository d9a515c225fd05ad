"""Where uploaded files are kept on disk: one private folder per process, removed when it ends.

Every upload widget and every load of uploaded files makes its folder inside
``<tmp>/llrlab-uploads-<pid>-<random>/`` (mode 0700; ``<tmp>`` is ``$TMPDIR``, else
``/tmp``), which is created when first needed and holds a lock file (``.lock``, locked
with ``flock`` for as long as the process lives).

* ``llrlab serve`` removes the folder when it stops: on Ctrl-C (SIGINT), SIGTERM (systemd,
  ``docker stop``, ``kill``) and SIGHUP (its terminal closed), as at any normal exit of the
  process (``atexit``).
* A process killed outright (SIGKILL, the out-of-memory killer, a power cut) cannot clean
  up: the next ``llrlab serve`` removes such folders when it starts
  (:func:`remove_stale_upload_folders`) -- only folders named like these, owned by this
  user, whose lock no process holds (the kernel releases a lock when its holder dies, in
  any PID namespace, so a live server's folder is never touched).

Examples
--------
>>> import os
>>> folder = new_upload_folder("doc-")
>>> os.path.dirname(folder) == upload_root() and os.path.isdir(folder)
True
"""

from __future__ import annotations

import atexit
import logging
import os
import re
import shutil
import stat
import tempfile
import threading

try:
    import fcntl
except ImportError:  # no flock (Windows): folders are still removed at exit and on signals
    fcntl = None

__all__ = ["ROOT_PREFIX", "new_upload_folder", "remove_stale_upload_folders",
           "remove_upload_root", "upload_root"]

log = logging.getLogger(__name__)

#: The start of the name of a process's upload folder (``llrlab-uploads-<pid>-<random>``).
ROOT_PREFIX = "llrlab-uploads-"
_ROOT_NAME = re.compile(re.escape(ROOT_PREFIX) + r"\d+-[A-Za-z0-9_]+")
_LOCK = ".lock"

_guard = threading.Lock()
_root = None  # (path, locked file descriptor or None, pid)


def upload_root():
    """This process's upload folder (created, and locked, when first needed; created again
    if something removed it)."""
    global _root
    with _guard:
        if _root is not None and _root[2] == os.getpid() and os.path.isdir(_root[0]):
            return _root[0]
        if _root is not None and _root[2] == os.getpid():
            _close(_root[1])
        path = tempfile.mkdtemp(prefix=f"{ROOT_PREFIX}{os.getpid()}-")
        _root = (path, _lock(path), os.getpid())
        return path


def new_upload_folder(prefix="upload-"):
    """A new private folder inside :func:`upload_root`."""
    return tempfile.mkdtemp(prefix=prefix, dir=upload_root())


def remove_upload_root():
    """Remove this process's upload folder and everything in it (nothing if there is none)."""
    global _root
    with _guard:
        if _root is None or _root[2] != os.getpid():
            return
        path, fd, _ = _root
        _root = None
    shutil.rmtree(path, ignore_errors=True)
    _close(fd)


atexit.register(remove_upload_root)


def remove_stale_upload_folders(tmpdir=None):
    """Remove the upload folders of llrlab processes that ended without cleaning up.

    Only folders of ``tmpdir`` (default: the temporary folder) named
    ``llrlab-uploads-<pid>-<random>``, owned by this user, that hold a lock file no process
    has locked.  Returns their paths.
    """
    if fcntl is None:
        return []
    tmpdir = tmpdir or tempfile.gettempdir()
    try:
        names = os.listdir(tmpdir)
    except OSError:
        return []
    mine = _root[0] if _root is not None else None
    removed = []
    for name in names:
        path = os.path.join(tmpdir, name)
        if not _ROOT_NAME.fullmatch(name) or path == mine:
            continue
        try:
            st = os.lstat(path)
            if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
                continue
            fd = os.open(os.path.join(path, _LOCK), os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:  # gone meanwhile, not ours, or no lock file (still being made)
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:  # held: its server is running
                continue
            shutil.rmtree(path, ignore_errors=True)
            if not os.path.lexists(path):
                removed.append(path)
        finally:
            os.close(fd)
    if removed:
        log.info("removed %d upload folder(s) left by llrlab servers that were killed: %s",
                 len(removed), ", ".join(removed))
    return removed


def _lock(path):
    """Create the lock file of the folder ``path`` and lock it; its descriptor (None
    without flock)."""
    if fcntl is None:
        return None
    fd = os.open(os.path.join(path, _LOCK), os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                 | getattr(os, "O_CLOEXEC", 0), 0o600)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    return fd


def _close(fd):
    if fd is not None:
        try:
            os.close(fd)
        except OSError:
            pass
