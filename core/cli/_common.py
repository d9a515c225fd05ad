"""What the subcommands share: progress on stderr, loading, number formatting, safe writing."""

from __future__ import annotations

import math
import os

from ..errors import LlrlabError
from ._writing import write_all_atomically, write_atomically

__all__ = ["add_column_args", "add_input_limit_args", "add_orientation_args", "fmt_number",
           "input_limits", "load_trials_arg",
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


def _boolean(text):
    low = text.lower()
    if low in ("true", "yes", "1"):
        return True
    if low in ("false", "no", "0"):
        return False
    import argparse

    raise argparse.ArgumentTypeError(f"expected true or false, got {text!r}")


def add_orientation_args(p):
    """``--higher-is-target true|false`` and its alias ``--distance``: which way the scores
    of every file the command reads point (see :mod:`llrlab.core.io.orientation`)."""
    g = p.add_argument_group("how scores are read")
    g.add_argument("--higher-is-target", type=_boolean, default=True, metavar="true|false",
                   help="false for distances (a smaller score favours the target): every "
                        "score read is negated, so the measures, plots and written LLRs "
                        "see similarities (default true)")
    g.add_argument("--distance", dest="higher_is_target", action="store_const", const=False,
                   help="the scores are distances: the same as --higher-is-target false")
    g.add_argument("--fta-as-error", action="store_true",
                   help="count the failures to acquire (NaN scores of a bob.measure or "
                        "bob.bio file) as errors, as ISO/IEC 19795-1's FRR and FAR do: a "
                        "target one as a miss, a non-target one as a correct rejection "
                        "(default: leave them out, and say how many)")
    g.add_argument("--llr-unit", choices=("ln", "log10", "bits"), default="ln",
                   help="the logarithm of the LLRs read and written: ln (natural, the "
                        "default), log10 (as forensic reports quote them) or bits (log2); "
                        "llrlab computes in ln and writes calibrated or fused LLRs back in "
                        "this unit")


def _column_map(text):
    """``score=cos,label=is_same`` as ``{"score": "cos", "label": "is_same"}``."""
    import argparse

    from ..io.labelled import ROLES

    out = {}
    for part in text.split(","):
        role, sep, name = part.partition("=")
        role, name = role.strip().lower(), name.strip()
        if not sep or not name:
            raise argparse.ArgumentTypeError(f"expected ROLE=NAME pairs separated by commas "
                                             f"(e.g. score=cos,label=is_same), got {part!r}")
        if role not in ROLES:
            raise argparse.ArgumentTypeError(f"unknown column role {role!r}; known: "
                                             f"{', '.join(ROLES)}")
        if role in out:
            raise argparse.ArgumentTypeError(f"{role} is named twice")
        out[role] = name
    return out


def add_column_args(p):
    """``--columns ROLE=NAME,...``: the names of a labelled file's columns."""
    p.add_argument("--columns", type=_column_map, metavar="ROLE=NAME,...",
                   help="the header names of a labelled file's (or Parquet table's) columns, "
                        "e.g. score=cos,label=is_same,model=enroll,segment=test (roles: "
                        "score, label, model, segment, condition, weight); its other columns "
                        "are ignored")


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
