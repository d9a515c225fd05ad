"""Writing the command line's outputs safely: all of them or none, never half a file.

:func:`write_all_atomically` writes each output to a temporary file beside it and renames
the temporary files into place only once every one of them is complete:

* On Linux a text output's temporary file is unnamed (``O_TMPFILE``): a process killed
  while writing, even by SIGKILL, leaves nothing behind.  It gets a (hidden) name only at
  the very end, to be renamed over the output.  HDF5 needs a real path (the library resolves
  it), so HDF5 outputs, and every output elsewhere, use a hidden ``.NAME.partial-PID`` file,
  removed on any error.
* Just before the renames, each existing output gets a hidden hard link (or copy)
  ``.NAME.partial-PID.previous``: if renaming one output fails, the outputs already renamed
  are put back from these, so that new scores never sit beside an old model.  They are
  removed when the write ends, whatever its outcome.
* Only a process killed outright (SIGKILL, a power cut) can leave hidden files behind:
  ``.NAME.partial-PID`` (an unfinished output) or ``.NAME.partial-PID.previous`` (the old
  content of an output, if it was killed between the renames of two outputs).  The next
  write of the same output removes every such file whose PID no longer runs, before it
  writes anything.  (The command line turns SIGTERM into an interruption, which cleans up
  like Ctrl-C: see :mod:`._signals`.)
* An existing output keeps its permission bits (and, where allowed, its owner).
* A symbolic link is followed: the file it points to is replaced and the link kept.
* Outputs that are not regular files (devices such as ``/dev/null``, FIFOs, sockets,
  directories) are refused before anything is written: renaming over them would replace
  the special file itself.
"""

from __future__ import annotations

import os
import shutil
import stat

from ..errors import FileFormatError

__all__ = ["OUTPUTS_HELP", "write_all_atomically", "write_atomically"]

#: What ``-h`` says about the way outputs are written (the epilog of the writing commands).
OUTPUTS_HELP = (
    "Outputs are written to hidden temporary files beside them and renamed into place only "
    "when all are complete: an error, Ctrl-C or SIGTERM leaves the existing files as they "
    "were.  Only a process killed outright (SIGKILL, a power cut) can leave hidden files "
    "behind: .NAME.partial-PID (an unfinished output) or .NAME.partial-PID.previous (the "
    "old content of a replaced output); the next write of the same output removes them.")

_KIND = {stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device",
         stat.S_IFIFO: "a named pipe (FIFO)", stat.S_IFSOCK: "a socket",
         stat.S_IFDIR: "a directory"}


def _target(path):
    """The regular file that ``path`` names (a symbolic link is followed) and its current
    status (None if it does not exist yet); raise for anything else."""
    path = os.fspath(path)
    real = os.path.realpath(path)
    if os.path.islink(path) and not os.path.lexists(real):
        raise FileFormatError(path, "is a symbolic link to a missing file; remove the link "
                                    "or give another output name")
    try:
        st = os.stat(real)
    except FileNotFoundError:
        folder = os.path.dirname(real) or "."
        if not os.path.isdir(folder):
            raise FileFormatError(path, f"cannot be written: no folder {folder}") from None
        return real, None
    if not stat.S_ISREG(st.st_mode):
        kind = _KIND.get(stat.S_IFMT(st.st_mode), "not a regular file")
        raise FileFormatError(path, f"is {kind}, not a regular file; llrlab writes its "
                                    f"outputs to regular files only")
    return real, st


#: outputs whose writer needs a real file name (HDF5 resolves the path it opens)
_NAMED = {".h5", ".hdf5", ".hdf", ".he5"}


#: The ending of the hidden copy of an output being replaced (see the module docstring).
PREVIOUS = ".previous"


def stale_pid(name, stem, ext):
    """The PID in ``name`` when it is one of this output's hidden files
    (``.STEM.partial-PID EXT`` or the same with ``.previous``), else None.

    >>> stale_pid(".model.partial-412.json", "model", ".json")
    412
    >>> stale_pid(".model.partial-412.json.previous", "model", ".json")
    412
    >>> stale_pid(".model.partial-x.json", "model", ".json"), stale_pid("m.json", "m", ".json")
    (None, None)
    """
    prefix = f".{stem}.partial-"
    if not name.startswith(prefix):
        return None
    rest = name[len(prefix):]
    for middle in (rest, rest[:-len(PREVIOUS)] if rest.endswith(PREVIOUS) else None):
        if middle is not None and middle.endswith(ext):
            pid = middle[:len(middle) - len(ext)]
            if pid.isdigit():
                return int(pid)
    return None


def _remove_stale(folder, stem, ext):
    """Remove the hidden files of this output (unfinished outputs and ``.previous`` copies)
    left by processes that no longer run."""
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return
    for name in names:
        pid = stale_pid(name, stem, ext)
        if pid is None or _alive(pid):
            continue
        path = os.path.join(folder, name)
        try:
            if not os.path.isdir(path) or os.path.islink(path):
                os.remove(path)
        except OSError:
            pass


def _alive(pid):
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


class _Temp:
    """A temporary file beside ``real``: unnamed (O_TMPFILE) where the system allows it."""

    def __init__(self, real):
        self.real = real
        folder, base = os.path.split(real)
        stem, self.ext = os.path.splitext(base)
        self.hidden = os.path.join(folder, f".{stem}.partial-{os.getpid()}{self.ext}")
        _remove_stale(folder, stem, self.ext)
        self.fd = None
        flag = getattr(os, "O_TMPFILE", 0)
        if flag and os.path.isdir("/proc/self/fd") and self.ext.lower() not in _NAMED:
            try:
                self.fd = os.open(folder or ".", flag | os.O_WRONLY, 0o666)
            except OSError:  # the file system does not support unnamed files
                self.fd = None
        # the path the writer opens: the unnamed file through /proc, or the hidden name
        self.path = f"/proc/self/fd/{self.fd}" if self.fd is not None else self.hidden

    def publish(self):
        """Give an unnamed file its hidden name (the last step before the rename): a hard
        link through ``/proc``, else ``linkat(fd, "", AT_EMPTY_PATH)`` (some kernels refuse
        the first), else a copy of its bytes."""
        if self.fd is None:
            return
        try:
            os.link(self.path, self.hidden, follow_symlinks=True)
        except OSError:
            if not _link_fd(self.fd, self.hidden):
                shutil.copyfile(self.path, self.hidden)
        os.close(self.fd)
        self.fd = None

    def discard(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        if os.path.lexists(self.hidden):
            os.remove(self.hidden)


def _link_fd(fd, name):
    """``linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH)``; True if it worked."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.linkat(fd, b"", -100, os.fsencode(name), 0x1000) == 0  # AT_FDCWD, ..
    except (OSError, AttributeError):
        return False


def _keep_mode(st, hidden):
    """Give the new file the mode (and, if allowed, the owner) of the file it replaces."""
    os.chmod(hidden, stat.S_IMODE(st.st_mode))
    if hasattr(os, "chown"):
        try:
            os.chown(hidden, st.st_uid, st.st_gid)
        except OSError:  # only the owner's group, or root, may keep them
            pass


def write_atomically(path, write):
    """Call ``write(tmp)`` on a temporary file beside ``path``, then rename it to ``path``
    (see :func:`write_all_atomically`)."""
    write_all_atomically([(path, write)])


def write_all_atomically(jobs):
    """Write several files, each through ``write(tmp_path)``: all of them, or none.

    ``jobs`` is a list of ``(path, write)``.  Every output is checked before anything is
    written, written to a temporary file, and renamed into place only once all are complete;
    a failure leaves every existing output as it was and no temporary file behind.  Errors
    name the output, never the temporary file.
    """
    targets = [(os.fspath(path), *_target(path), write) for path, write in jobs]
    temps, backups, renamed = [], [], []
    current = None  # the output being written or renamed, for error messages
    try:
        for path, real, _st, write in targets:
            current = path
            temp = _Temp(real)
            temps.append(temp)
            try:
                write(temp.path)
            except FileFormatError as exc:
                if exc.path != temp.path:
                    raise
                raise FileFormatError(path, exc.reason.replace(temp.path, path),
                                      line=exc.line, text=exc.text) from None
        for (path, real, st, _), temp in zip(targets, temps, strict=True):
            current = path
            temp.publish()
            if st is not None:
                _keep_mode(st, temp.hidden)
                backup = temp.hidden + PREVIOUS
                try:  # the old file, to put back if a later rename fails
                    os.link(real, backup)
                except OSError:  # no hard links on this file system: a copy
                    shutil.copy2(real, backup)
                backups.append((real, backup))
        for (path, real, _, _), temp in zip(targets, temps, strict=True):
            current = path
            os.replace(temp.hidden, real)
            renamed.append(real)
    except OSError as exc:
        _undo(renamed, backups)
        raise FileFormatError(current, f"cannot be written ({exc.strerror or exc})") from None
    except BaseException:
        _undo(renamed, backups)
        raise
    finally:
        for temp in temps:
            temp.discard()
        for _, backup in backups:
            if os.path.lexists(backup):
                os.remove(backup)


def _undo(renamed, backups):
    """Put back the outputs already renamed (their old content, or no file)."""
    old = dict(backups)
    for real in renamed:
        if real in old:
            os.replace(old[real], real)
        else:
            os.remove(real)
