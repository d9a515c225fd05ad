"""Helpers of the served-dashboard benchmarks: data files, a server process, a light client.

* :func:`data_files` writes BOSARIS HDF5 score and key files of synthetic trials (a grid of
  models x 10^4 segments, 2 % targets) once into a directory and returns ``llrlab serve``
  FILE arguments for them.
* :class:`Server` runs ``llrlab serve --no-show`` as a separate process (so that its CPU time
  is its own) and reads that CPU time with ``psutil``.
* :class:`LightClient` is a browser stand-in that speaks Bokeh's websocket protocol with
  tornado alone: it opens a session (``GET /``, then the websocket with the page's token),
  pulls the document, says "document ready" as BokehJS does (which runs the page's
  ``onload`` work), and can move the operating point as a drag on the NBER plot does (a
  change of the plot's drag channel, ``nber_drag``; with ``n``, the point the in-page drag
  sends when the pointer pauses).  It keeps every model definition it receives (id and
  name), the latest change of each model's scalar attributes and of each source's data (its
  columns' lengths: :func:`column_lengths`), and counts the messages and bytes the server
  sends.  Building no
  Bokeh model, it costs little CPU, so that ten of them measure the server rather than the
  clients.  :func:`demo_client` opens one until the table has numbers and the drag's grid
  has come; :func:`pause` sends a drag's pause point and times the server's exact answer.

Bokeh's protocol: each message is three text frames (header, metadata, content) followed by
``num_buffers`` pairs of frames (a buffer header and its binary payload).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from urllib.parse import urlsplit

import numpy as np

N_SEG = 10_000
#: The browser of the benchmarks and the browser tests (Debian's chromium), and its flags:
#: no sandbox (root), no background networking.
CHROMIUM = os.environ.get("LLRLAB_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, timeout, proc=None, name="the server"):
    """Wait until something listens on 127.0.0.1:``port``, at most ``timeout`` seconds;
    ``RuntimeError`` when ``proc`` (the server's process, if given) exits first or nothing
    listens by then."""
    deadline = time.monotonic() + timeout
    while True:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"{name} exited with {proc.returncode} before listening on "
                               f"port {port}")
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        if time.monotonic() > deadline:
            raise RuntimeError(f"nothing listens on port {port} after {timeout:.0f} s")
        time.sleep(0.1)


# ------------------------------------------------------------------------------------ files


def _write_pair(scores_path, key_path, n, seed, shift):
    import h5py

    n_model = max(n // N_SEG, 1)
    n_seg = min(n, N_SEG)
    rng = np.random.default_rng(seed)
    lab = rng.random((n_model, n_seg)) < 0.02
    x = np.where(lab, rng.normal(2.0, 1.3, lab.shape), rng.normal(-2.0, 1.3, lab.shape))
    x = 0.2 * (x + shift)
    row_ids = np.array([f"spk{i:05d}".encode() for i in range(n_model)])
    col_ids = np.array([f"seg{j:07d}.sph".encode() for j in range(n_seg)])
    with h5py.File(scores_path, "w") as h:
        h["scores"] = x
        h["score_mask"] = np.ones(lab.shape, np.uint8)
        h["ID/row_ids"] = row_ids
        h["ID/column_ids"] = col_ids
    with h5py.File(key_path, "w") as h:
        h["trial_mask"] = np.where(lab, 1, -1).astype(np.int8)
        h["file_format"] = np.bytes_(b"2.0")
        h["ID/row_ids"] = row_ids
        h["ID/column_ids"] = col_ids


def data_files(n_eval, n_dev, directory):
    """``llrlab serve`` FILE arguments of one system with ``n_dev`` dev and ``n_eval`` eval
    trials (HDF5, written into ``directory`` unless already there)."""
    os.makedirs(directory, exist_ok=True)
    out = []
    for role, n, seed, shift in (("dev", n_dev, 1, 0.0), ("eval", n_eval, 2, 0.4)):
        scores = os.path.join(directory, f"{role}-{n}-scores.h5")
        key = os.path.join(directory, f"{role}-{n}-key.h5")
        if not (os.path.exists(scores) and os.path.exists(key)):
            _write_pair(scores + ".tmp", key + ".tmp", n, seed, shift)
            os.replace(scores + ".tmp", scores)
            os.replace(key + ".tmp", key)
        out.append(f"{role}:A={scores},{key}")
    return out


# ------------------------------------------------------------------------------------ server


def stop_process_group(proc, timeout=20):
    """Stop ``proc`` (started with ``start_new_session=True``) and its children: SIGTERM to
    its process group, SIGKILL if it is still there after ``timeout`` seconds; then close
    its pipes."""
    try:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=timeout)
    except (ProcessLookupError, subprocess.TimeoutExpired):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=timeout)
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()


def add_served_arguments(ap):
    """The options every served-dashboard benchmark takes: the data size, the data directory,
    the server's log and the llrlab console script(s) to compare."""
    ap.add_argument("--n-eval", type=float, default=1e7)
    ap.add_argument("--n-dev", type=float, default=1e6)
    ap.add_argument("--dir", default="/tmp/llrlab-bench-serve")
    ap.add_argument("--log", default=None, help="write the server's output here")
    ap.add_argument("--llrlab", default=None,
                    help="the llrlab console script to serve with (e.g. of an older checkout's "
                         "venv, for a before/after comparison); default: the one on PATH")
    ap.add_argument("--before", default=None,
                    help="also measure this llrlab console script first (e.g. of a checkout "
                         "of main in another venv) and print both columns")


def served_data(args):
    """``(files, what)``: the ``llrlab serve`` FILE arguments for ``args.n_eval`` and
    ``args.n_dev`` trials (none for the demo) and a phrase naming them for the table."""
    n_eval, n_dev = int(args.n_eval), int(args.n_dev)
    files = data_files(n_eval, n_dev, args.dir) if n_eval else []
    what = f"dev {n_dev:,} / eval {n_eval:,} trials" if n_eval else "the demo"
    return files, what


def served_runs(args):
    """``[(label, llrlab)]``: the "before" script first when ``--before`` is given, then the
    one measured ("after", or "value" alone)."""
    return ([("before", args.before)] if args.before else []) + [
        ("after" if args.before else "value", args.llrlab)]


class Server:
    """``llrlab serve --no-show --port P FILES...`` in its own process group."""

    def __init__(self, files=(), *, llrlab=None, env=None, log=None):
        self.port = free_port()
        exe = llrlab or shutil.which("llrlab") or os.path.join(os.path.dirname(sys.executable),
                                                               "llrlab")
        self.log_path = log
        self._log = open(log, "w") if log else subprocess.DEVNULL
        self.proc = subprocess.Popen(
            [exe, "serve", "--no-show", "--port", str(self.port), *files],
            stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True,
            env={**os.environ, **(env or {})})
        import psutil

        self.ps = psutil.Process(self.proc.pid)
        self.url = f"http://127.0.0.1:{self.port}/"

    def wait(self, timeout=180):
        """Wait until the server listens (at most ``timeout`` seconds); returns the server."""
        wait_for_port(self.port, timeout, self.proc, name="llrlab serve")
        return self

    def wait_line(self, text, timeout=900):
        """Wait until the server's output (``log`` is needed) has a line with ``text``;
        returns that line."""
        deadline = time.monotonic() + timeout
        with open(self.log_path) as f:  # read on from where the last look stopped
            while True:
                while True:
                    start = f.tell()
                    line = f.readline()
                    if not line.endswith("\n"):  # nothing new, or a line still being written
                        f.seek(start)
                        break
                    if text in line:
                        return line
                if self.proc.poll() is not None:
                    raise RuntimeError(f"llrlab serve exited before printing {text!r}")
                if time.monotonic() > deadline:
                    raise RuntimeError(f"llrlab serve did not print {text!r} in {timeout} s")
                time.sleep(0.2)

    def cpu(self):
        """CPU seconds (user + system) used by the server process so far."""
        t = self.ps.cpu_times()
        return t.user + t.system

    def rss_mb(self):
        return self.ps.memory_info().rss / 1e6

    def stop(self):
        stop_process_group(self.proc)
        if self._log is not subprocess.DEVNULL:
            self._log.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()


# ------------------------------------------------------------------------------------ client


def _walk_models(obj, found, texts, data=None):
    """Record ``name -> id`` of every model definition inside a decoded message, the
    ``text`` attributes of the models defined there, and (into ``data``, when given)
    ``id -> column lengths`` of the sources defined there with their data: a source first
    sent already filled (a plot put in the page after its data came) has no change of its
    data to be seen by."""
    if isinstance(obj, dict):
        if obj.get("type") == "object" and "id" in obj:
            attrs = obj.get("attributes") or {}
            name = attrs.get("name")
            if isinstance(name, str):
                found[name] = obj["id"]
            if isinstance(attrs.get("text"), str):
                texts.append(attrs["text"])
            if data is not None and "data" in attrs:
                data[obj["id"]] = column_lengths(attrs["data"])
        for v in obj.values():
            _walk_models(v, found, texts, data)
    elif isinstance(obj, list):
        for v in obj:
            _walk_models(v, found, texts, data)


def column_lengths(value):
    """``{column: length}`` of a ColumnDataSource's ``data`` as Bokeh serializes it in a
    message (a ``{"type": "map", "entries": [[name, column], ...]}``, a column being a list
    or ``{"type": "ndarray", "shape": [n, ...], ...}``); ``{}`` for anything else."""
    if not isinstance(value, dict) or value.get("type") != "map":
        return {}
    out = {}
    for entry in value.get("entries") or ():
        if not (isinstance(entry, (list, tuple)) and len(entry) == 2
                and isinstance(entry[0], str)):
            continue
        name, col = entry
        if isinstance(col, list):
            out[name] = len(col)
        elif isinstance(col, dict) and col.get("type") == "ndarray":
            shape = col.get("shape") or [0]
            out[name] = int(shape[0])
    return out


class Message:
    __slots__ = ("arrived", "content", "header", "nbytes")

    def __init__(self, header, content, nbytes, arrived):
        self.header, self.content, self.nbytes, self.arrived = header, content, nbytes, arrived


class LightClient:
    """A browser stand-in on Bokeh's websocket protocol (see the module docstring)."""

    #: A text change whose value contains this is the metrics table (``views/metrics.py``).
    TABLE_MARK = "llrlab-metrics"

    def __init__(self, url):
        self.url = url
        self.models = {}
        self.messages = []
        self.table_updates = []  # arrival times of metrics-table updates
        self.table_text = ""
        self.changed = {}  # (model id, attribute) -> (arrival, value) of the latest change
        self.ws = None
        self._reader = None
        self._changed = asyncio.Event()

    async def open(self, *, timeout=300, ready=True):
        """GET the page, connect, pull the document and (``ready``) send "document ready";
        returns the seconds the ``GET /`` took.  Without ``ready`` the page stays as a
        browser leaves it before it has shown the document (see :meth:`ready`)."""
        from tornado.httpclient import AsyncHTTPClient, HTTPRequest
        from tornado.websocket import websocket_connect

        t0 = time.perf_counter()
        resp = await AsyncHTTPClient().fetch(self.url, request_timeout=timeout)
        self.get_seconds = time.perf_counter() - t0
        html = resp.body.decode()
        m = re.search(r'"token":\s*"([^"]+)"', html)
        if not m:
            raise RuntimeError("no session token in the page")
        parts = urlsplit(self.url)  # the page's query is in its session token
        ws_url = f"ws://{parts.netloc}{parts.path.rstrip('/')}/ws"
        request = HTTPRequest(ws_url, connect_timeout=timeout, request_timeout=timeout)
        self.ws = await websocket_connect(request, subprotocols=["bokeh", m.group(1)],
                                          max_message_size=256 * 1024 * 1024)
        self.ws.protocol.set_nodelay(True)  # as browsers do (no Nagle delay on small frames)
        self._reader = asyncio.ensure_future(self._read())
        # the server reads messages only after its ACK
        await self.wait_for(lambda: any(x.header["msgtype"] == "ACK" for x in self.messages),
                            timeout)
        await self.send("PULL-DOC-REQ", {})
        await self.wait_for(lambda: any(x.header["msgtype"] == "PULL-DOC-REPLY"
                                        for x in self.messages), timeout)
        if ready:
            await self.ready()
        return self.get_seconds

    async def ready(self):
        """Say "document ready", as BokehJS does once it has shown the document (the server
        then runs the page's ``onload`` work)."""
        await self.send("PATCH-DOC", {"events": [{
            "kind": "MessageSent", "msg_type": "bokeh_event",
            "msg_data": {"type": "event", "name": "document_ready",
                         "values": {"type": "map"}}}]})

    async def send(self, msgtype, content):
        header = {"msgid": uuid.uuid4().hex, "msgtype": msgtype}
        await self.ws.write_message(json.dumps(header))
        await self.ws.write_message("{}")
        await self.ws.write_message(json.dumps(content))

    async def _read(self):
        while True:
            header = await self.ws.read_message()
            if header is None:
                return
            metadata = await self.ws.read_message()
            content = await self.ws.read_message()
            nbytes = len(header) + len(metadata) + len(content)
            h = json.loads(header)
            for _ in range(h.get("num_buffers", 0) or 0):
                bh = await self.ws.read_message()
                payload = await self.ws.read_message()
                nbytes += len(bh) + len(payload)
            now = time.perf_counter()
            c = json.loads(content)
            texts, defined = [], {}
            _walk_models(c, self.models, texts, defined)
            for model, lengths in defined.items():  # (as if its data had changed now)
                self.changed[(model, "data")] = (now, lengths)
            self.messages.append(Message(h, c, nbytes, now))
            for ev in c.get("events", ()) if h["msgtype"] == "PATCH-DOC" else ():
                model, attr = (ev.get("model") or {}).get("id"), ev.get("attr")
                if attr == "data":  # a ColumnDataSource's new data: its columns' lengths
                    self.changed[(model, attr)] = (now, column_lengths(ev.get("data",
                                                                              ev.get("new"))))
                elif ev.get("kind") == "ModelChanged" and isinstance(ev.get("new"),
                                                                     (int, float, str)):
                    self.changed[(model, attr)] = (now, ev["new"])
            if self.TABLE_MARK in content:
                for ev in c.get("events", []):
                    new = ev.get("new")
                    if ev.get("attr") == "text" and isinstance(new, str):
                        texts.append(new)
                for text in texts:  # a changed table, or a table defined here
                    if self.TABLE_MARK in text:
                        self.table_text = text
                        self.table_updates.append(now)
            self._changed.set()

    async def wait_for(self, condition, timeout):
        deadline = time.perf_counter() + timeout
        while not condition():
            left = deadline - time.perf_counter()
            if left <= 0:
                raise TimeoutError("timed out waiting for the server")
            self._changed.clear()
            try:
                await asyncio.wait_for(self._changed.wait(), min(left, 0.5))
            except TimeoutError:
                pass

    def table_has_numbers(self):
        text = html.unescape(self.table_text)  # Panel sends the HTML pane's text escaped
        return bool(re.search(r'data-key="act_dcf"[^>]*>\s*\d', text))

    def change(self, name, attr):
        """``(arrival, value)`` of the latest change of ``attr`` of the model named ``name``
        (for ``"data"``: its columns' lengths), or ``None``."""
        return self.changed.get((self.models.get(name), attr))

    def grid_filled(self):
        """The arrival of the in-page drag's grid (the ``op_grid`` source's data with its
        points), or ``None`` before it."""
        got = self.change("op_grid", "data")
        return got[0] if got is not None and got[1].get("plo", 0) > 0 else None

    async def drag_to(self, x, y=0.5, *, channel="nber_drag", n=None):
        """One drag step on the NBER plot to prior log-odds ``x`` (as BokehJS sends it).
        With ``n``, the point as the in-page drag sends it when the pointer pauses or the
        drag ends (``C.data = {x, y, n}`` in :data:`.op_grid_script.SERVED_DRAG`, ``n``
        counting the page's points)."""
        cid = self.models[channel]
        entries = [["x", [float(x)]], ["y", [float(y)]]]
        if n is not None:
            entries.append(["n", [int(n)]])
        await self.send("PATCH-DOC", {"events": [{
            "kind": "ModelChanged", "model": {"id": cid}, "attr": "data",
            "new": {"type": "map", "entries": entries}}]})

    async def quiet(self, seconds):
        """Wait until no message has arrived for ``seconds``."""
        while True:
            last = self.messages[-1].arrived if self.messages else 0.0
            wait = last + seconds - time.perf_counter()
            if wait <= 0:
                return
            await asyncio.sleep(wait)

    async def close(self):
        if self.ws is not None:
            self.ws.close()
        if self._reader is not None:
            try:
                await asyncio.wait_for(self._reader, 5)
            except (TimeoutError, Exception):
                self._reader.cancel()


async def demo_client(url, delay, timeout=300):
    """A light client that opens ``url`` after ``delay`` seconds: ``(client, ready, grid)``,
    the seconds from its ``GET`` to the metrics table with numbers and to the drag's grid."""
    await asyncio.sleep(delay)
    client = LightClient(url)
    t0 = time.perf_counter()
    await client.open(timeout=timeout)
    await client.wait_for(client.table_has_numbers, timeout)
    ready = client.table_updates[-1] - t0
    with contextlib.suppress(TimeoutError):  # counted: a client without its grid
        await client.wait_for(lambda: client.grid_filled() is not None, timeout)
    grid = client.grid_filled()
    return client, ready, None if grid is None else grid - t0


async def pause(client, x, n, timeout=20.0):
    """Send the point of a drag's pause at prior log-odds ``x`` (the page's ``n``-th point):
    seconds until the client has the server's exact answer (the NBER line at ``x`` and the
    metrics table redrawn after it), or ``None`` after ``timeout``."""
    n_tables = len(client.table_updates)
    t0 = time.perf_counter()
    await client.drag_to(x, n=n)

    def answered():
        span = client.change("op_span", "location")
        return (span is not None and span[0] >= t0 and span[1] == x
                and len(client.table_updates) > n_tables)

    try:
        await client.wait_for(answered, timeout)
    except TimeoutError:
        return None
    return max(client.change("op_span", "location")[0], client.table_updates[n_tables]) - t0


# ------------------------------------------------------------------------------------ table

_FMT = {"ms": "{:8.1f} ms", "s": "{:8.2f} s ", "n": "{:8.0f}   ", "B": "{:8.0f} B ",
        "MB": "{:8.0f} MB", "x": "{:8.2f}   "}


def print_table(title, columns):
    """Print rows ``(name, value, unit, target)`` of one or more runs side by side:
    ``columns`` is a list of ``(label, rows)`` with the same row names in the same order;
    the target and "ok" are judged on the last column."""
    names = [r[0] for r in columns[-1][1]]
    width = max(len(n) for n in names)
    head = "".join(f"  {label:>11}" for label, _ in columns)
    print(f"\n{title}")
    print(f"{'measurement'.ljust(width)}{head}  {'target':>11}  ok")
    for i, name in enumerate(names):
        cells, last = [], None
        for _, rows in columns:
            _, v, unit, target = rows[i]
            scale = 1000.0 if unit == "ms" else 1.0
            cells.append(f"  {_FMT[unit].format(scale * v):>11}")
            last = (v, unit, target)
        v, unit, target = last
        scale = 1000.0 if unit == "ms" else 1.0
        tgt = "" if target is None else _FMT[unit].format(scale * target)
        ok = "" if target is None else ("yes" if v <= target else "NO")
        print(f"{name.ljust(width)}{''.join(cells)}  {tgt:>11}  {ok}")


class Hogs:
    """One busy Python process per core while the block runs."""

    def __init__(self, on):
        self.on, self.procs = on, []

    def __enter__(self):
        if self.on:
            self.procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                          for _ in range(os.cpu_count() or 1)]
            time.sleep(3)
        return self

    def __exit__(self, *exc):
        for p in self.procs:
            p.kill()
            p.wait()
