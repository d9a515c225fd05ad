"""``llrlab serve``: the dashboard's command line, and the ``llrlab`` console script.

``llrlab serve [FILES...] [--port N] [--address HOST] [--no-show] [--lesson FILE]`` serves the
dashboard on 127.0.0.1 by default.  Each FILE is ``[ROLE[:SYSTEM]=]SCORES[,KEY]``:

* ``ROLE`` is ``dev`` (trains the calibration) or ``eval``; ``SYSTEM`` names the system
  (several systems can be fused);
* ``SCORES`` is a BOSARIS score file (text or HDF5) with ``KEY`` its key file, or a labelled
  file (``score label`` or ``model segment score label``) without a key;
* files without ``ROLE=`` are taken in pairs: dev then eval of one system, the next pair for
  the next system (a single such file is an eval set).

These paths are the only server-side files the page can read; in the browser, files are
uploaded.  Without FILES the built-in demo is shown.  :func:`main` is the ``llrlab`` console
script: the numeric subcommands of :func:`llrlab.core.cli.build_parser` plus ``serve`` and
``report`` (:mod:`.report_cli`).
"""

from __future__ import annotations

import argparse
import errno
import gc
import os
import re
import signal
import socket
import sys
import threading
import time

from .logs import LEVELS
from .report_cli import add_report_parser

__all__ = ["add_serve_parser", "build_parser", "main", "parse_file_specs", "run_serve"]

SERVE_DESCRIPTION = """\
Serve the llrlab dashboard (on 127.0.0.1 by default) and open it in a browser.

Each FILE is [dev|eval[:SYSTEM]=]SCORES[,KEY]:
  dev / eval   the role of the set: dev trains the calibration and fusion, eval is tested
  SYSTEM       the system's name (load several systems to fuse them)
  SCORES,KEY   a BOSARIS score file (text or HDF5) and its key file, or one labelled file
               (score label, or model segment score label) without KEY
Files without a role are taken in pairs (dev, then eval) per system; a single such file is
an eval set.  These are the only server-side files the page can read; in the browser, files
are uploaded.  Without FILE the built-in demo data are shown.

--lesson FILE opens a guided lesson (Markdown or JSON; see docs/lessons.md), or a built-in
one by its id (calibration, forensic), at its first step in every new page; the built-in
lessons are offered too.

The server stops on Ctrl-C, SIGTERM (systemd, docker stop, kill) or SIGHUP, and then
removes the files uploaded to it (kept in a private temporary folder while it runs); the
folders of a server that was killed outright (SIGKILL) are removed by the next llrlab serve.
Its log goes to stderr (--log-level info adds every request); an access token never appears
in it, right or wrong, whatever the level.

examples:
  llrlab serve
  llrlab serve --lesson my_lesson.md
  llrlab serve dev.h5,dev_key.h5 eval.h5,eval_key.h5
  llrlab serve dev:A=a_dev.txt eval:A=a_eval.txt dev:B=b_dev.txt eval:B=b_eval.txt
"""
_ROLE = re.compile(r"^(dev|eval)(?::(.+))?=(.+)$")
#: Websocket messages larger than this are refused by the server (upload chunks are 4 MB).
WEBSOCKET_MAX_MESSAGE_MB = 64


class SpecError(ValueError):
    """A FILE argument of ``llrlab serve`` that cannot be used."""


def parse_file_specs(files, *, check=True, dirs=False):
    """FileSpecs from ``llrlab serve`` FILE arguments (see the module docstring).

    Examples
    --------
    >>> [(s.system, s.role, s.scores, s.key) for s in parse_file_specs(
    ...     ["dev:A=a_dev.h5", "eval:A=a_eval.txt,a_eval.key"], check=False)]
    [('A', 'dev', 'a_dev.h5', None), ('A', 'eval', 'a_eval.txt', 'a_eval.key')]
    >>> [(s.system, s.role) for s in parse_file_specs(["d.h5", "e.h5"], check=False)]
    [('system 1', 'dev'), ('system 1', 'eval')]
    """
    from .app import FileSpec

    specs, plain = [], []
    for arg in files or []:
        m = _ROLE.match(arg)
        if m:
            role, system, rest = m.group(1), m.group(2) or "system 1", m.group(3)
            specs.append((system, role, rest))
        else:
            plain.append(arg)
    if len(plain) == 1:
        specs.append(("system 1", "eval", plain[0]))
    else:
        for i, arg in enumerate(plain):
            specs.append((f"system {i // 2 + 1}", "dev" if i % 2 == 0 else "eval", arg))
    out, seen = [], set()
    for system, role, rest in specs:
        scores, _, key = rest.partition(",")
        key = key or None
        if (system, role) in seen:
            raise SpecError(f"{role} set of {system!r} given twice")
        seen.add((system, role))
        if check:
            for p in (scores, key):
                if p is not None and not (os.path.isfile(p) or (dirs and os.path.isdir(p))):
                    raise SpecError(f"{p}: no such file")
        out.append(FileSpec(system, role, scores, key))
    return out


#: The largest ``--class`` (pages made in advance take ~12 MB each).
MAX_CLASS = 200


def _class_size(text):
    """``--class``'s value: a whole number of pages from 0 to :data:`MAX_CLASS`."""
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of pages") from None
    if not 0 <= n <= MAX_CLASS:
        raise argparse.ArgumentTypeError(f"{n} pages: give 0 to {MAX_CLASS}")
    return n


def add_serve_parser(subparsers):
    """Add ``serve`` to an argparse subparsers object (used by the main ``llrlab`` CLI)."""
    p = subparsers.add_parser(
        "serve", help="open the interactive dashboard in a browser",
        description=SERVE_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="[dev|eval[:SYSTEM]=]SCORES[,KEY]; none: the demo data")
    p.add_argument("--port", type=int, default=5006, help="port (default 5006; 0: any)")
    p.add_argument("--address", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1, this computer only)")
    p.add_argument("--no-show", action="store_true", help="do not open a browser")
    p.add_argument("--max-upload-mb", type=float, default=500.0,
                   help="largest file accepted by the upload widgets (default 500)")
    p.add_argument("--allow-websocket-origin", action="append", default=None,
                   metavar="HOST[:PORT]",
                   help="a page address allowed to connect to the server, added to the "
                        "default list (localhost and this computer's names on the port); "
                        "repeatable; '*' is refused")
    p.add_argument("--token", action="store_true",
                   help="require an access token on every request (for a workshop or a "
                        "shared network): the printed link carries it; random, or the "
                        "value of the environment variable LLRLAB_TOKEN")
    p.add_argument("--no-demo", action="store_true",
                   help="start with no data instead of the demo when no FILE is given")
    p.add_argument("--lesson", metavar="FILE", default=None,
                   help="open this guided lesson (Markdown or JSON, see docs/lessons.md; or "
                        "a built-in lesson's id) in every new page")
    p.add_argument("--class", dest="class_size", type=_class_size, default=0, metavar="N",
                   help="a class will open the printed link: make N pages of it in advance "
                        "(with their data and analyses) while waiting, so that N students "
                        "opening it at once get their pages without queueing (~12 MB "
                        f"each; at most {MAX_CLASS}; default 0: pages made on demand)")
    p.add_argument("--log-level", choices=LEVELS, default="warning",
                   help="what the server logs on stderr (default warning: refused requests "
                        "and problems; info: every request too); access tokens are always "
                        "shown as ***")
    p.add_argument("--dask", nargs="?", const="local", metavar="SCHEDULER",
                   help="sets larger than memory: read FILEs (Parquet, or HDF5 SCORES,KEY) "
                        "lazily and compute on Dask, 'local' (default) or a dask.distributed "
                        "address (pip install 'llrlab[scale]')")
    try:
        from llrlab.core.cli._common import add_column_args, add_orientation_args
    except ImportError:  # hook: the core CLI is optional for the dashboard
        pass
    else:
        add_orientation_args(p)
        add_column_args(p)
    p.set_defaults(handler=_serve_handler, command="serve")
    return p


def _serve_handler(args, out=None):
    return run_serve(args)


def run_serve(args):
    """Serve the dashboard until interrupted; returns an exit code (2 on bad input)."""
    # the lesson file first: its check imports the dashboard's state classes only, so a bad
    # file gets its one line before Panel and the numerics are imported
    lessons, lesson = _lessons(getattr(args, "lesson", None))
    if lessons is None:
        return 2
    try:
        # --dask reads directories of Parquet files too
        specs = parse_file_specs(args.files, dirs=getattr(args, "dask", None) is not None)
    except SpecError as exc:
        sys.stderr.write(f"llrlab serve: error: {exc}\n")
        return 2
    from panel.io.server import get_server

    from .access import (
        AccessError,
        TokenAuth,
        address_warning,
        check_origins,
        new_token,
        protect,
        websocket_origins,
    )
    from .app import create_app
    from .lecture_routes import routes

    max_mb = float(args.max_upload_mb)
    try:
        origins, warnings = check_origins(args.allow_websocket_origin)
        token = (os.environ.get("LLRLAB_TOKEN") or new_token()) if args.token else None
        kwargs = {} if token is None else {"auth_provider": TokenAuth(token)}
    except (AccessError, ValueError) as exc:
        sys.stderr.write(f"llrlab serve: error: {exc}\n")
        return 2
    warning = address_warning(args.address, token=token is not None)
    for text in ([warning] if warning else []) + warnings:
        sys.stderr.write(f"llrlab serve: warning: {text}\n")

    options = {"higher_is_target": getattr(args, "higher_is_target", True),
               "unit": getattr(args, "llr_unit", "ln"), "columns": getattr(args, "columns", None),
               "fta_as_error": getattr(args, "fta_as_error", False)}
    if options != {"higher_is_target": True, "unit": "ln", "columns": None,
                   "fta_as_error": False}:
        if not specs:
            sys.stderr.write("llrlab serve: error: --distance, --higher-is-target, --llr-unit, "
                             "--columns and --fta-as-error say how the FILEs given are read "
                             "(not the demo); give the FILEs, or tick the boxes of the "
                             "upload card when uploading\n")
            return 2
        from . import app as app_module

        app_module.READ_OPTIONS.update(options)

    dask = getattr(args, "dask", None)
    if dask is not None:
        from llrlab.core import LlrlabError

        from .scaled import configure

        try:  # an address is connected to now: a wrong one is one line, not a page error
            configure(dask, connect=True)
        except LlrlabError as exc:
            sys.stderr.write(f"llrlab serve: error: {exc}\n")
            return 2

    # the page loads every script and stylesheet from this server, never from a CDN, even
    # when the environment asks for one (BOKEH_RESOURCES=cdn): a classroom or an analyst's
    # laptop is often offline
    from bokeh.settings import settings as bokeh_settings

    bokeh_settings.resources.set_value("server")

    def app():  # Panel calls only plain functions as page factories (not a partial)
        return create_app(specs or None, demo=not args.no_demo, max_upload_mb=max_mb,
                          lessons=lessons, lesson=lesson, dask=dask is not None)

    from .logs import serve_logging
    from .upload_folders import remove_stale_upload_folders, remove_upload_root

    with serve_logging(getattr(args, "log_level", "warning"), [token] if token else []):
        try:
            server = get_server(app, port=args.port, address=args.address, show=False,
                                start=False, title="llrlab", verbose=False,
                                websocket_max_message_size=WEBSOCKET_MAX_MESSAGE_MB * 1_000_000,
                                extra_patterns=routes(lessons, token), **kwargs)
        except OSError as exc:
            sys.stderr.write(f"llrlab serve: error: {_listen_error(exc, args)}\n")
            return 2
        remove_stale_upload_folders()
        allowed = websocket_origins(args.address, server.port, origins)
        server._tornado.websocket_origins.update(allowed)
        protect(server, hosts=allowed, auth=kwargs.get("auth_provider"))
        path = "/" if token is None else f"/?token={token}"
        host = socket.gethostname() if args.address in ("0.0.0.0", "::", "") else args.address
        url = f"http://{host}:{server.port}{path}"
        print(f"llrlab serve: the dashboard is at {url} (Ctrl-C stops the server)", flush=True)
        if not args.no_show:
            server.io_loop.add_callback(server.show, path)
        _stop_on_signals(server.io_loop)
        size = getattr(args, "class_size", 0)
        if size:
            from .page_pool import HandoverUnsupported, PagePool

            def announce(line):
                print(f"llrlab serve: {line}", flush=True)

            try:
                pool = PagePool(server._tornado, size, host=f"{host}:{server.port}",
                                announce=announce)
            except HandoverUnsupported as exc:
                announce(f"--class: {exc}")
            else:
                server.io_loop.add_callback(pool.fill)
            if lesson is not None:  # and its lecture page (its first opening: seconds)
                server.io_loop.add_callback(_lecture_page_ahead, lessons[lesson], announce)
        # what exists now (the modules, Panel's and Bokeh's classes: ~190,000 objects) lives
        # as long as the server: kept out of the collector's full passes, which walked it
        # at every page made (one pass per page, 0.14-0.17 s of its ~1 s; after: 0-0.06 s)
        gc.collect()
        gc.freeze()
        server.start()
        try:
            server.io_loop.start()
        except KeyboardInterrupt:
            pass
        finally:
            remove_upload_root()
    return 0


async def _lecture_page_ahead(lesson, announce):
    """Make ``lesson``'s lecture page (``/lecture/<id>``) now, off the event loop, as its
    first request would (a few seconds: every step computed), and say so."""
    import asyncio
    import logging

    from .lecture_routes import _EXECUTOR, lecture_page_gzip

    t0 = time.monotonic()
    try:
        await asyncio.get_running_loop().run_in_executor(_EXECUTOR, lecture_page_gzip, lesson)
    except Exception:  # made (or its error shown) when first asked for, as without --class
        logging.getLogger("llrlab.dashboard").exception(
            "could not make the lecture page of %s in advance", lesson.id)
        return
    announce(f"the lecture page /lecture/{lesson.id} made in {time.monotonic() - t0:.0f} s")


#: Signals that stop the server as Ctrl-C does: SIGTERM (systemd, docker stop, kill) and
#: SIGHUP (the terminal was closed).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP")
                     if hasattr(signal, name))


def _stop_on_signals(io_loop):
    """Make ``STOP_SIGNALS`` stop ``io_loop`` (the server then cleans up and exits with 0); a
    second signal gets its default action (ends the process at once).  Only the main
    thread can handle signals: elsewhere (a test serving in a thread) nothing changes."""
    loop = io_loop.asyncio_loop

    def stop():
        for s in STOP_SIGNALS:
            loop.remove_signal_handler(s)
        io_loop.stop()

    # only the main thread's loop can take signals, and Windows' loops take none
    if threading.current_thread() is not threading.main_thread() or sys.platform == "win32":
        return
    for s in STOP_SIGNALS:
        loop.add_signal_handler(s, stop)


def _lessons(path):
    """``(lessons, id of the lesson to open)``: the built-in lessons plus the file of
    ``--lesson`` (which replaces a built-in one of the same name); ``(None, None)`` after
    printing one line when the file is not a valid lesson."""
    from .lessons import LessonError, builtin_lessons, find_lesson

    if path is None:
        return builtin_lessons(), None
    try:
        lesson = find_lesson(path)
    except LessonError as exc:
        sys.stderr.write(f"llrlab serve: error: {exc}\n")
        return None, None
    lessons = builtin_lessons()
    lessons[lesson.id] = lesson
    return lessons, lesson.id


def _listen_error(exc, args):
    """One line for an OSError raised while binding the server's socket."""
    if exc.errno == errno.EADDRINUSE:
        return (f"port {args.port} on {args.address} is already in use (another llrlab "
                f"serve?); choose another with --port N, or --port 0 for any free port")
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"cannot listen on {args.address}: it is not an address of this computer"
    if exc.errno == errno.EACCES:
        return (f"no permission to listen on port {args.port}; choose a port above 1023 "
                f"with --port N")
    return f"cannot listen on {args.address}:{args.port}: {exc.strerror or exc}"


def build_parser():
    """The ``llrlab`` parser: the core subcommands (when available) plus ``serve``."""
    try:
        from llrlab.core.cli import build_parser as core_parser
    except ImportError:  # hook: the core CLI is optional for the dashboard
        core_parser = None
    if core_parser is not None:
        parser = core_parser()
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    else:
        parser = argparse.ArgumentParser(prog="llrlab", description="llrlab dashboard")
        sub = parser.add_subparsers(dest="command", metavar="COMMAND")
        sub.required = True
    add_serve_parser(sub)
    report = add_report_parser(sub)
    if core_parser is not None and report is not None:
        from llrlab.core.cli._common import add_column_args, add_orientation_args

        add_orientation_args(report)
        add_column_args(report)
    return parser


def main(argv=None):
    """Console script ``llrlab``."""
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser.parse_args(argv)
    if getattr(args, "command", None) == "serve":
        sys.exit(run_serve(args))
    from llrlab.core.cli import run

    sys.exit(run(argv, parser=parser))


if __name__ == "__main__":  # pragma: no cover
    main()
