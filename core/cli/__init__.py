"""The ``llrlab`` command line (numeric subcommands; ``serve`` is added by the dashboard).

Subcommands: ``eval`` (:mod:`.evaluate`), ``calibrate``, ``fuse`` and ``apply``
(:mod:`.calibrate`), ``curves`` (:mod:`.curves`), ``compare`` (:mod:`.compare`), ``plot``
(:mod:`.plot`).  Bad
input exits with code 2 and one line on stderr naming the file, the line and the problem;
llrlab's warnings are printed as ``llrlab CMD: warning: ...``.
:func:`build_parser` is reused by ``llrlab.dashboard.cli``, which adds ``serve``, so that
this package never imports Panel or Bokeh.
"""

from __future__ import annotations

import argparse
import sys
import warnings

from ..errors import LlrlabError, LlrlabWarning
from ._common import (
    add_column_args,
    add_input_limit_args,
    add_orientation_args,
    input_limits,
)
from ._progress import Progress
from ._signals import TERMINATED_EXIT, Terminated, terminate_as_interrupt
from .calibrate import add_apply_parser, add_calibrate_parser, add_fuse_parser
from .compare import add_compare_parser
from .curves import add_curves_parser
from .evaluate import add_eval_parser
from .plot import add_plot_parser

__all__ = ["Progress", "build_parser", "main", "run"]


class _VersionAction(argparse.Action):
    """``--version``: print ``llrlab X.Y.Z`` (the package metadata is read only when asked)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, **kwargs):
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS,
                         help="print llrlab's version and exit")

    def __call__(self, parser, namespace, values, option_string=None):
        from .._version import __version__

        sys.stdout.write(f"llrlab {__version__}\n")
        parser.exit()


def build_parser():
    """The argparse parser of all numeric subcommands."""
    parser = argparse.ArgumentParser(
        prog="llrlab",
        description="Analyse and calibrate the scores of binary detectors.",
    )
    parser.add_argument("--version", action=_VersionAction)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    add_eval_parser(sub)
    add_calibrate_parser(sub)
    add_fuse_parser(sub)
    add_apply_parser(sub)
    add_compare_parser(sub)
    add_curves_parser(sub)
    add_plot_parser(sub)
    for p in sub.choices.values():
        add_input_limit_args(p)
        add_orientation_args(p)
        add_column_args(p)
    return parser


def run(argv=None, *, parser=None, out=None, err=None):
    """Run the command line; return the exit code (2 on bad input, 130 on Ctrl-C, 143 on
    SIGTERM: both stop the command cleanly, leaving every output as it was)."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    parser = parser if parser is not None else build_parser()
    args = parser.parse_args(argv)
    args.err = err  # progress goes where the errors go
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LlrlabWarning)
        try:
            with terminate_as_interrupt() as stop:
                try:
                    code = _handle(args, out)
                except Exception:
                    if stop.received is None:
                        raise
                    # C code turned the signal's exception into its own (an import)
                    raise stop.exception() from None
        except LlrlabError as exc:
            err.write(f"llrlab {args.command}: error: {exc}\n")
            code = 2
        except BrokenPipeError:  # the reader went away (`llrlab eval ... | head`): be quiet
            _silence(out)
            code = 0
        except OSError as exc:
            where = f": {exc.filename}" if exc.filename else ""
            err.write(f"llrlab {args.command}: error: {exc.strerror or exc}{where}\n")
            code = 2
        except MemoryError:
            err.write(f"llrlab {args.command}: error: not enough memory for these data; free "
                      f"memory or evaluate a subset of the trials\n")
            code = 2
        except Terminated:
            err.write(f"\nllrlab {args.command}: terminated (SIGTERM); no output was written\n")
            code = TERMINATED_EXIT
        except KeyboardInterrupt:
            err.write(f"\nllrlab {args.command}: interrupted; no output was written\n")
            code = 130
    for w in caught:
        if issubclass(w.category, LlrlabWarning):
            err.write(f"llrlab {args.command}: warning: {w.message}\n")
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    return code


def _handle(args, out):
    """Run the subcommand, its input limits (``--max-stdin-mb``...) and how scores are read
    (``--distance``, ``--llr-unit``, ``--columns``, ``--fta-as-error``) applying to every
    file it reads."""
    limits = input_limits(args)
    higher = getattr(args, "higher_is_target", True)
    unit = getattr(args, "llr_unit", "ln")
    columns = getattr(args, "columns", None)
    fta = getattr(args, "fta_as_error", False)
    if limits is None and higher and unit == "ln" and not columns and not fta:
        return args.handler(args, out)
    from contextlib import nullcontext

    from ..io import default_limits, failures_to_acquire, score_orientation
    from ..io.labelled import column_names

    with default_limits(limits) if limits is not None else nullcontext(), \
            score_orientation(higher_is_target=higher, unit=unit), column_names(columns), \
            failures_to_acquire(as_error=fta):
        return args.handler(args, out)


def _silence(out):
    """After a broken pipe, point ``out`` at /dev/null so that the interpreter's final flush
    does not complain (Python's documented idiom)."""
    import os

    try:
        fd = out.fileno()
    except (AttributeError, OSError, ValueError):
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def main(argv=None):  # pragma: no cover - thin wrapper
    sys.exit(run(argv))
