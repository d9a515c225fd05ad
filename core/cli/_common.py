"""What the subcommands share: progress on stderr, loading, number formatting, safe writing."""

from __future__ import annotations

import math
import os

from ..errors import LlrlabError
from ._writing import write_all_atomically, write_atomically

__all__ = ["add_input_limit_args", "fmt_number", "input_limits", "load_trials_arg",
           "operating_point_args", "percent", "refuse_overwriting_inputs", "requires",
           "write_all_atomically", "write_atomically"]

#: Defaults of ``--max-stdin-mb`` and ``--max-gunzip-mb`` (MB = 10^6 bytes); the same as the
#: library's (``llrlab.core.io.Limits``), repeated here so that ``llrlab -h`` imports no numpy.
STDIN_MB = 1000
GUNZIP_MB = 4000


def requires(given, present, option, needed, why):
    """Refuse ``option`` (``given``) without ``needed`` (``present``): it would be ignored."""
    if given and not present:
        raise LlrlabError(f"{option} has no effect without {needed} ({why}); give "
                          f"{needed} too, or leave {option} out")


def percent(fraction):
    """An error rate for a text table: a fraction in, percent out (tables label it [%])."""
    return 100.0 * fraction


def operating_point_args(p):
    p.add_argument("--p-target", type=float, default=0.01, help="target prior (default 0.01)")
    p.add_argument("--c-miss", type=float, default=1.0, help="cost of a miss (default 1)")
    p.add_argument("--c-fa", type=float, default=1.0, help="cost of a false alarm (default 1)")


def _megabytes(text):
    try:
        v = float(text)
    except ValueError:
        v = float("nan")
    if not v > 0 or v == float("inf"):
        import argparse

        raise argparse.ArgumentTypeError(f"expected a positive number of MB, got {text!r}")
    return v


def add_input_limit_args(p):
    """``--max-stdin-mb`` and ``--max-gunzip-mb``: how much hostile input a command reads."""
    g = p.add_argument_group("input limits")
    g.add_argument("--max-stdin-mb", type=_megabytes, default=STDIN_MB, metavar="MB",
                   help=f"read at most this much from standard input ('-'), which is held in "
                        f"memory; more stops the command with a message (default {STDIN_MB})")
    g.add_argument("--max-gunzip-mb", type=_megabytes, default=GUNZIP_MB, metavar="MB",
                   help=f"a gzip-compressed input may inflate to at most this much; more "
                        f"stops the command with a message, so that a small file that "
                        f"inflates to gigabytes cannot run for minutes (default {GUNZIP_MB})")


def input_limits(args):
    """The ``Limits`` of every file the command reads, from its options (see
    :func:`add_input_limit_args`); None when the parser has no such options."""
    if getattr(args, "max_stdin_mb", None) is None:
        return None
    from ..io import Limits

    return Limits(max_stdin_bytes=int(args.max_stdin_mb * 1e6),
                  max_gunzip_bytes=int(args.max_gunzip_mb * 1e6),
                  raise_with=(("max_stdin_bytes", f"raise the limit with --max-stdin-mb (now "
                                                  f"{args.max_stdin_mb:g})"),
                              ("max_gunzip_bytes", f"raise it with --max-gunzip-mb (now "
                                                   f"{args.max_gunzip_mb:g}), or decompress "
                                                   f"the file first")))


def load_trials_arg(files, option, progress=None):
    """Labelled trials from ``[SCORES, KEY]`` or ``[LABELLED]`` given to ``option``."""
    from ..io import load_trials

    if not 1 <= len(files) <= 2:
        raise LlrlabError(f"{option} takes SCORES KEY, or one labelled file; got "
                          f"{len(files)} files")
    return load_trials(files[0], files[1] if len(files) == 2 else None, progress=progress)


def fmt_number(v):
    """A number for a text table: integers in full, floats to 6 significant digits
    (``-0`` shows as ``0``; large and tiny magnitudes in exponent form, never hundreds of
    digits).

    >>> [fmt_number(x) for x in (452, 0.05680134, -0.0, 2.4e306, 1e-9, float("inf"))]
    ['452', '0.0568013', '0', '2.4e+306', '1e-09', 'inf']
    """
    if isinstance(v, int) and not isinstance(v, bool):
        return str(v)
    v = float(v)
    if not math.isfinite(v):
        return str(v)
    if v == 0:
        return "0"
    return f"{v:.6g}"


def refuse_overwriting_inputs(outputs, inputs):
    """Raise LlrlabError if an output path names an input file (it would be destroyed)."""
    for out in outputs:
        if out is None or not os.path.exists(out):
            continue
        for inp in inputs:
            if inp is not None and os.path.exists(inp) and os.path.samefile(out, inp):
                raise LlrlabError(f"{out}: the output would overwrite the input file {inp}; "
                                  f"choose another name")
