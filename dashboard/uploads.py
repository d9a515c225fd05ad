"""Uploads: files arrive in chunks, are written to disk as they come, and are checked on the
server.

Panel's ``FileDropper`` sends a file in chunks of a few MB (so no websocket message exceeds
the server's cap) and keeps them in memory until the last one; its ``max_file_size`` is
checked by the browser only, so a client that disables it could send any amount.  Here
:class:`SpoolingFileDropper` checks every chunk as it arrives: chunks out of order, a
malformed message or a file that grows past the server's limit are refused at once (the
partial file is deleted, later chunks of it are dropped), and accepted bytes go straight to
a private temporary file.  At most one chunk per session is in memory.

:class:`UploadPanel` is the "Upload files" card.  Its Load button asks the browser which
files it holds (their names and sizes, from FilePond) before loading: a click right after a
new file was chosen waits for that file to arrive instead of loading the previous one, and
a click with no file says so.  Names are shown as text (:mod:`.safe`); on disk a file is
called ``scores.<ext>`` or ``key.<ext>`` in a directory of its own, so no name (a NUL byte,
``../``, a megabyte of characters) reaches the file system.  These directories live in the
process's upload folder (:mod:`.upload_folders`), removed when the server stops.
"""

from __future__ import annotations

import json
import logging
import os
import re
import shutil
import time
import weakref
from typing import ClassVar

import panel as pn
import param
from panel.io.state import set_curdoc

from llrlab.core import LlrlabError

from .safe import MAX_SHOWN, md_text, shorten
from .script_button import ScriptButton
from .state import DashboardState
from .state.data import load_with_notes
from .upload_folders import new_upload_folder

__all__ = [
    "DEFAULT_MAX_UPLOAD_MB",
    "SpoolingFileDropper",
    "UploadPanel",
    "UploadRefused",
    "upload_limits",
    "upload_memory_limit",
]

log = logging.getLogger(__name__)

#: Largest file accepted by the upload widgets, in MB (``llrlab serve --max-upload-mb``).
DEFAULT_MAX_UPLOAD_MB = 500
#: Bytes per chunk sent by the browser.
CHUNK_BYTES = 4_000_000
#: Longest file name kept (longer names are shortened; they are only shown).
MAX_NAME = 255
#: Seconds a Load request waits for a file the browser holds but the server has not received.
WAIT_SECONDS = 120.0
#: Memory a load of uploaded files may take, in multiples of the upload limit (and at most
#: the memory available): what an HDF5 file declares or a text file grows to is checked
#: against it before it is allocated.
UPLOAD_MEMORY_FACTOR = 8
#: What a gzip-compressed upload may inflate to, in multiples of the upload limit (2 GB for
#: the default 500 MB): beyond it, or when its compression ratio announces more than twice
#: that, the load stops with a message.
UPLOAD_GUNZIP_FACTOR = 4
#: The most wall time one load of uploaded text files may take, in seconds.
UPLOAD_SECONDS = 300
_EXTENSION = re.compile(r"^\.[A-Za-z0-9]{1,12}$")


class UploadRefused(LlrlabError):
    """An upload the server does not accept (too large, malformed)."""


def disk_name(stem, name):
    """``stem`` plus the extension of ``name`` when it is plain (letters and digits).

    The loaders read the extension (``.csv`` means commas); nothing else of a user's file
    name is used on disk.

    Examples
    --------
    >>> disk_name("scores", "my trials.CSV"), disk_name("key", "x.h5\\x00/../../etc")
    ('scores.CSV', 'key')
    """
    ext = os.path.splitext(name)[1]
    return stem + (ext if _EXTENSION.match(ext) else "")


class SpoolingFileDropper(pn.widgets.FileDropper):
    """A FileDropper that writes each file to disk as its chunks arrive, within a size limit.

    ``files`` maps the name of the one completely received file to ``(path, size)``
    (``value`` stays empty: no file is held in memory).  ``receiving`` maps the name of a
    file in transit to the bytes received so far.  ``refusal`` is the message of the last
    refused file ('' if none).  Temporary files are removed when a file is replaced or
    deleted in the browser, by :meth:`cleanup`, and at the latest when the widget is
    garbage-collected.
    """

    files = param.Dict(default={}, doc="name -> (path, size) of the received file.")
    receiving = param.Dict(default={}, doc="name -> bytes received, of files in transit.")
    refusal = param.String(default="", doc="Why the last file was refused ('' if none).")

    # server-side only: not properties of the browser's model
    _rename: ClassVar[dict] = {**pn.widgets.FileDropper._rename, "files": None,
                               "receiving": None, "refusal": None}

    def __init__(self, *, max_bytes, stem="upload", **params):
        params.setdefault("chunk_size", CHUNK_BYTES)
        params.setdefault("multiple", False)
        super().__init__(**params)
        self.max_bytes = int(max_bytes)
        self._stem = stem
        self._dir = new_upload_folder("upload-")
        self._finalizer = weakref.finalize(self, shutil.rmtree, self._dir, ignore_errors=True)
        self._count = 0
        self._open = {}  # name -> (file object, path, next chunk, total chunks, bytes)
        self.refused = {}  # name -> why its last upload was refused

    # ---------------------------------------------------------------- events

    def _process_event(self, event):
        try:
            data = event.data if isinstance(event.data, dict) else {}
            name = data.get("name")
            if not isinstance(name, str) or not name:
                raise UploadRefused("an upload message without a file name was refused")
            name = shorten(name, MAX_NAME)
            if event.event_name == "delete_event":
                self._delete(name)
            elif event.event_name == "upload_event":
                self._chunk(name, data)
        except UploadRefused as exc:
            if isinstance(name, str) and name:
                self.refused[name] = str(exc)
            self.refusal = str(exc)
        except OSError as exc:
            log.error("could not store an upload", exc_info=exc)
            self.refusal = f"could not store the upload ({exc.strerror or exc})"

    def _chunk(self, name, data):
        chunk, total, payload = data.get("chunk"), data.get("total_chunks"), data.get("data")
        if isinstance(payload, (bytearray, memoryview)):
            payload = bytes(payload)
        ok = (isinstance(chunk, int) and isinstance(total, int) and 1 <= chunk <= total
              and isinstance(payload, bytes))
        if not ok:
            self._abort(name)
            raise UploadRefused(f"{name}: malformed upload message; the file was refused")
        if chunk == 1:  # one file in transit per widget: a new one replaces any other
            for other in list(self._open):
                self._abort(other)
            self.refused.pop(name, None)
            self._count += 1
            folder = os.path.join(self._dir, str(self._count))
            os.mkdir(folder, 0o700)
            path = os.path.join(folder, disk_name(self._stem, name))
            self._open[name] = [open(path, "xb"), path, 1, total, 0]
            self._set_receiving(name, 0)
            self.refusal = ""
        entry = self._open.get(name)
        if entry is None:  # a refused (or never started) file: its later chunks are dropped
            return
        f, path, expected, declared, size = entry
        if chunk != expected or total != declared:
            self._abort(name)
            raise UploadRefused(f"{name}: chunks arrived out of order; the file was refused")
        size += len(payload)
        if size > self.max_bytes:
            self._abort(name)
            raise UploadRefused(f"{name}: larger than the {self.max_bytes / 1e6:g} MB upload "
                                f"limit of this server; the file was refused")
        f.write(payload)
        entry[2], entry[4] = expected + 1, size
        if chunk < total:
            self._set_receiving(name, size)
            return
        f.close()
        del self._open[name]
        self._set_receiving(name, None)
        old = dict(self.files)
        self.files = {name: (path, size)}  # one file per widget: the newest
        for _n, (p, _s) in old.items():
            if p != path:
                _remove(p)

    def _set_receiving(self, name, size):
        receiving = dict(self.receiving)
        if size is None:
            receiving.pop(name, None)
        else:
            receiving[name] = size
        self.receiving = receiving

    def _abort(self, name):
        entry = self._open.pop(name, None)
        if entry is not None:
            entry[0].close()
            _remove(entry[1])
        if name in self.receiving:
            self._set_receiving(name, None)

    def _delete(self, name):
        self._abort(name)
        if name in self.files:
            path = self.files[name][0]
            self.files = {k: v for k, v in self.files.items() if k != name}
            _remove(path)

    def cleanup(self):
        """Close and remove every temporary file of this widget."""
        for name in list(self._open):
            self._abort(name)
        self.files = {}
        self._finalizer()


def _remove(path):
    try:
        os.remove(path)
        os.rmdir(os.path.dirname(path))
    except OSError:
        pass


# JavaScript run in the browser when Load is pressed: which files FilePond holds in each
# widget (names and sizes), written to a hidden text input that the server watches.  FilePond
# lists a newly chosen file only after a moment (0.3 s measured here): while a file input
# still holds a file FilePond does not list, or while no scores file is listed, the answer
# is deferred (up to 2 s), so that a click right after choosing a file reports that file.
_LOAD_JS = """
function pond(model) {
  try {
    const view = Bokeh.index.find_one(model);
    return view == null ? null : view;
  } catch (e) { return null; }
}
function held(model) {
  const view = pond(model);
  if (view == null || view._file_pond == null) { return null; }
  try {
    return view._file_pond.getFiles().map(f => ({name: f.filename, size: f.fileSize}));
  } catch (e) { return null; }
}
function unlisted(model) {
  const view = pond(model);
  const files = held(model);
  if (view == null || files == null || view.shadow_el == null) { return false; }
  const names = new Set(files.map(f => f.name));
  for (const input of view.shadow_el.querySelectorAll("input[type=file]")) {
    for (const f of (input.files || [])) { if (!names.has(f.name)) { return true; } }
  }
  return false;
}
const start = performance.now();
function answer() {
  const s = held(scores);
  const settling = unlisted(scores) || unlisted(key) || (s != null && s.length === 0);
  if (settling && performance.now() - start < 2000) { setTimeout(answer, 50); return; }
  channel.value = JSON.stringify({n: Date.now() + Math.random(), scores: s, key: held(key)});
}
answer();
"""


class UploadPanel:
    """Upload widgets: a scores (or labelled, or HDF5) file and an optional key file."""

    def __init__(self, state: DashboardState, *, max_upload_mb=DEFAULT_MAX_UPLOAD_MB):
        self.state = state
        self.max_bytes = int(max_upload_mb * 1_000_000)
        size = f"{int(max_upload_mb)}MB"
        common = {"max_file_size": size, "sizing_mode": "stretch_width", "layout": "compact",
                  "max_bytes": self.max_bytes}
        self.scores = SpoolingFileDropper(name="Scores, labelled file or HDF5",
                                          stem="scores", **common)
        self.key = SpoolingFileDropper(name="Key file (optional)", stem="key", **common)
        self.role = pn.widgets.RadioButtonGroup(name="Use as", options=["dev", "eval"],
                                                value="eval", button_type="primary",
                                                button_style="outline")
        # distances (a smaller score favours the target) are negated as they are read, as
        # ``llrlab CMD --distance`` does (llrlab.core.io.orientation)
        self.distance = pn.widgets.Checkbox(name="Scores are distances (smaller = target)",
                                            value=False)
        # NaN scores of bob.measure / bob.bio files (failures to acquire): left out and
        # counted, or counted as errors as ISO/IEC 19795-1 does (``--fta-as-error``)
        self.fta = pn.widgets.Checkbox(name="Failures to acquire (NaN scores) count as errors",
                                       value=False)
        self.system = pn.widgets.TextInput(name="System name", value="uploaded",
                                           sizing_mode="stretch_width")
        # the browser's view of the files, sent with each press of Load (see _LOAD_JS); in
        # the layout before the button, whose script uses it
        self._channel = pn.widgets.TextInput(value="", visible=False, max_length=20_000)
        self.button = ScriptButton(name="Load uploaded file", button_type="primary",
                                   sizing_mode="stretch_width", code=_LOAD_JS,
                                   args={"scores": self.scores, "key": self.key,
                                         "channel": self._channel})
        self.status = pn.pane.Markdown("", margin=(0, 10), name="upload_status",
                                       styles={"color": "#555555", "font-size": "90%"})
        self._channel.param.watch(self._on_request, ["value"])
        self._waiting = None  # (what the browser holds, deadline) of a Load request
        for w in (self.scores, self.key):
            w.param.watch(self._on_progress, ["files", "receiving", "refusal"])
        self.layout = pn.Column(
            self.scores, self.key, pn.Row(pn.pane.Markdown("Use as:", margin=(8, 5)),
                                          self.role),
            self.distance, self.fta, self.system, self._channel, self.button, self.status,
            sizing_mode="stretch_width")
        if pn.state.curdoc is not None and pn.state.curdoc.session_context is not None:
            pn.state.on_session_destroyed(lambda _ctx: self.cleanup())

    def cleanup(self):
        """Remove the temporary files (the session has ended)."""
        self.scores.cleanup()
        self.key.cleanup()

    # ---------------------------------------------------------------- Load requests

    def _on_request(self, event):
        text = event.new or ""
        try:
            req = json.loads(text) if 0 < len(text) <= 20_000 else None
        except ValueError:
            req = None
        if not isinstance(req, dict):
            log.warning("a malformed Load request was ignored")
            return
        held = {w: _held(req.get(w)) for w in ("scores", "key")}
        self._waiting = (held, time.monotonic() + WAIT_SECONDS)
        self._try_load()
        doc = pn.state.curdoc
        if self._waiting is not None and doc is not None and doc.session_context is not None:
            # says so if the file never arrives (no upload event would wake _try_load)
            def timeout():
                with set_curdoc(doc):
                    self._try_load()

            doc.add_timeout_callback(timeout, int(1000 * WAIT_SECONDS) + 500)

    def _on_progress(self, event):
        if event.name == "refusal" and event.new:
            self._waiting = None
            self.state.status.error = event.new
        self._try_load()

    def _try_load(self):
        """Load what the browser holds once it has all arrived (or say what is missing)."""
        if self._waiting is None:
            self._show_transfer()
            return
        held, deadline = self._waiting
        if held["scores"] == []:
            self._waiting = None
            self._show_transfer()
            self.state.status.error = "choose a scores file to upload first"
            return
        refused = [getattr(self, w).refused.get(shorten(held[w][-1][0], MAX_NAME))
                   for w in ("scores", "key") if held[w]]
        if any(refused):
            self._waiting = None
            self._show_transfer()
            self.state.status.error = next(r for r in refused if r)
            return
        missing = [w for w in ("scores", "key") if not self._arrived(w, held[w])]
        if not missing:
            self._waiting = None
            self._show_transfer()
            self._load()
            return
        if time.monotonic() > deadline:
            self._waiting = None
            self._show_transfer()
            names = ", ".join(held[w][-1][0] for w in missing)
            self.state.status.error = (f"{shorten(names, MAX_SHOWN)}: the upload did not arrive; "
                                f"choose the file again")
            return
        self._show_transfer(waiting=[held[w][-1][0] for w in missing])

    def _arrived(self, which, held):
        widget = getattr(self, which)
        if held is None:  # the browser did not say: use what the server has
            return not widget.receiving
        if not held:
            return True
        name, size = held[-1]
        name = shorten(name, MAX_NAME)
        have = widget.files.get(name)
        return have is not None and have[1] == size and name not in widget.receiving

    def _show_transfer(self, waiting=()):
        parts = []
        for w in (self.scores, self.key):
            for name, got in w.receiving.items():
                parts.append(f"receiving {md_text(name, MAX_SHOWN)}: {got / 1e6:.1f} MB")
        if waiting:
            names = ", ".join(md_text(n, MAX_SHOWN) for n in waiting)
            parts.append(f"Load waits for {names} to arrive")
        self.status.object = "; ".join(parts)

    def _load(self, _event=None):
        """Load the received files (see ``load_files`` of the state)."""
        files, keys = dict(self.scores.files), dict(self.key.files)
        if not files:
            self.state.status.error = "choose a scores file to upload first"
            return
        (name, (path, size)), = list(files.items())[-1:]
        key_item = list(keys.items())[-1] if keys else None
        total = size + (key_item[1][1] if key_item else 0)
        if total > self.max_bytes:
            self.state.status.error = (f"{name}: the upload is larger than the "
                                f"{self.max_bytes / 1e6:g} MB limit of this server")
            return
        # the files are linked into a directory of their own, removed once read: the widget
        # may replace or delete its copy meanwhile
        tmp = new_upload_folder("load-")
        display = {}
        try:
            scores_path = _link(tmp, "scores", path)
            display[scores_path] = name
            key_path = None
            if key_item is not None:
                key_path = _link(tmp, "key", key_item[1][0])
                display[key_path] = key_item[0]
        except OSError as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            log.error("could not prepare an upload for loading", exc_info=exc)
            self.state.status.error = f"{name}: could not store the upload ({exc.strerror or exc})"
            return
        system = self.system.value.strip() or "uploaded"
        limits = upload_limits(self.max_bytes)

        higher, fta = not self.distance.value, self.fta.value

        def loader(scores, key, progress):
            from .app import read_options

            with read_options(higher_is_target=higher, fta_as_error=fta):
                return load_with_notes(scores, key, progress, limits=limits)

        self.state.data.load_files([(system, self.role.value, scores_path, key_path)],
                                   display=display, cleanup=tmp, loader=loader)


def upload_memory_limit(max_upload_bytes):
    """Bytes of memory a load of uploads may take: ``UPLOAD_MEMORY_FACTOR`` times the
    upload limit, and no more than the memory available now.

    Examples
    --------
    >>> upload_memory_limit(5_000_000) <= 40_000_000
    True
    """
    from llrlab.core.io._source import available_memory

    return int(min(UPLOAD_MEMORY_FACTOR * max_upload_bytes, available_memory()))


def upload_limits(max_upload_bytes):
    """The limits of one load of uploaded files (``llrlab.core.io.Limits``), so that one
    upload costs the server at most a known amount of memory and of a worker's time:

    * memory: :func:`upload_memory_limit` (8 times the upload limit, at most the memory
      available), checked before anything is allocated;
    * a gzip file inflates to at most ``UPLOAD_GUNZIP_FACTOR`` (4) times the upload limit
      (2 GB at the default 500 MB), and is refused at once when its compression ratio
      announces more than twice that (a gzip bomb);
    * a text load stops after ``UPLOAD_SECONDS`` (300 s) of wall time.

    Examples
    --------
    >>> lim = upload_limits(5_000_000)
    >>> lim.max_gunzip_bytes, lim.max_seconds
    (20000000, 300)
    """
    from llrlab.core.io import Limits

    mb = max_upload_bytes / 1e6
    raise_with = (("max_gunzip_bytes", f"upload it decompressed (this server's budget is "
                                       f"{UPLOAD_GUNZIP_FACTOR} times its upload limit of "
                                       f"{mb:g} MB)"),
                  ("max_seconds", "upload a smaller file, or give it to llrlab on the "
                                  "command line"))
    return Limits(max_bytes=upload_memory_limit(max_upload_bytes),
                  max_gunzip_bytes=int(UPLOAD_GUNZIP_FACTOR * max_upload_bytes),
                  max_seconds=UPLOAD_SECONDS, raise_with=raise_with)


def _held(value):
    """The browser's list of ``(name, size)`` for one widget, or None (unknown)."""
    if not isinstance(value, list):
        return None
    out = []
    for item in value[-4:]:
        if not isinstance(item, dict):
            return None
        name, size = item.get("name"), item.get("size")
        if not isinstance(name, str) or not isinstance(size, int) or isinstance(size, bool):
            return None
        out.append((name, size))
    return out


def _link(tmp, sub, path):
    folder = os.path.join(tmp, sub)
    os.mkdir(folder, 0o700)
    target = os.path.join(folder, os.path.basename(path))
    try:
        os.link(path, target)
    except OSError:  # another file system, or no hard links: copy
        shutil.copyfile(path, target)
    return target
