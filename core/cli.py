"""The ``llrlab`` command line (numeric subcommands; ``serve`` is added by the dashboard).

``llrlab eval SCORES [KEY]`` prints the evaluation of a score set; bad input exits with code 2
and one line on stderr.  :func:`build_parser` is reused by ``llrlab.dashboard.cli``, which adds
the ``serve`` subcommand, so that this module never imports Panel or Bokeh.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings

from .errors import LlrlabError, LlrlabWarning

__all__ = ["StderrProgress", "build_parser", "main", "run"]


class StderrProgress:
    """Progress callback ``(fraction, message)`` that writes to stderr.

    Writes at most every half second, and only once the task has run for a second, so that
    small files stay quiet.
    """

    def __init__(self, stream=None, quiet=False):
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.start = time.monotonic()
        self.last = 0.0
        self.shown = False

    def __call__(self, fraction, message=""):
        if self.quiet:
            return
        now = time.monotonic()
        if now - self.start < 1.0 or (now - self.last < 0.5 and fraction < 1.0):
            return
        self.last = now
        self.shown = True
        self.stream.write(f"\r{message} {100 * fraction:5.1f}%")
        if fraction >= 1.0:
            self.stream.write("\n")
        self.stream.flush()

    def done(self):
        if self.shown and not self.quiet:
            self.stream.write("\n")
            self.stream.flush()


def _operating_point_args(p):
    p.add_argument("--p-target", type=float, default=0.01, help="target prior (default 0.01)")
    p.add_argument("--c-miss", type=float, default=1.0, help="cost of a miss (default 1)")
    p.add_argument("--c-fa", type=float, default=1.0, help="cost of a false alarm (default 1)")


def build_parser():
    """The argparse parser of all numeric subcommands."""
    parser = argparse.ArgumentParser(
        prog="llrlab",
        description="Analyse and calibrate the scores of binary detectors.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    ev = sub.add_parser(
        "eval", help="evaluate a score set (EER, Cllr, minCllr, act/min DCF, PRBEP, DR30)",
        description="Evaluate scores: SCORES + KEY (BOSARIS text or HDF5), or one labelled "
                    "file (score label, or model segment score label).")
    ev.add_argument("scores", help="score file (text or HDF5), or a labelled file")
    ev.add_argument("key", nargs="?", help="key file (text or HDF5); omit for a labelled file")
    _operating_point_args(ev)
    ev.add_argument("--json", action="store_true", help="print one JSON object")
    ev.add_argument("--quiet", action="store_true", help="no progress on stderr")
    ev.add_argument("--calibrate-on", nargs="+", metavar=("DEV", "KEY"),
                    help="also report the metrics after calibration trained on DEV [KEY]")
    ev.add_argument("--method", choices=("affine", "pav"), default="affine",
                    help="calibration method for --calibrate-on (default affine)")
    ev.add_argument("--prior", type=float, default=0.5,
                    help="training prior of the calibration (default 0.5)")
    ev.set_defaults(handler=_cmd_eval)

    try:
        from .calibration.cli import add_calibrate_parser, add_fuse_parser
    except ImportError:  # pragma: no cover - the calibration package is always shipped
        pass
    else:
        add_calibrate_parser(sub)
        add_fuse_parser(sub)
    return parser


def _load(path, key, progress):
    from .io import load_trials

    return load_trials(path, key, progress=progress)


def _fmt(v):
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float) and not math.isfinite(v):
        return str(v)
    return f"{v:.6g}" if abs(v) < 1e6 else f"{v:.6e}"


_ROWS = [
    ("n_tar", "target trials"),
    ("n_non", "non-target trials"),
    ("eer", "EER (ROCCH)"),
    ("cllr", "Cllr [bits]"),
    ("min_cllr", "min Cllr [bits]"),
    ("act_dcf", "actual DCF (normalized)"),
    ("min_dcf", "minimum DCF (normalized)"),
    ("prbep", "PRBEP [errors]"),
    ("effective_prior", "effective prior"),
]


def _evaluate(trials, args):
    from .analysis import analyze
    from .operating_point import plo_from_costs

    a = analyze(trials, plo=[])
    summary = a.summary(args.p_target, args.c_miss, args.c_fa)
    op = a.at(float(plo_from_costs(args.p_target, args.c_miss, args.c_fa)))
    return summary, op


def _dr30_line(op):
    m, f = int(op.min.misses), int(op.min.false_alarms)
    status = "inside" if op.dr30_safe else "OUTSIDE"
    return (f"DR30: {status} the rule-of-30 region at this operating point "
            f"({m} misses, {f} false alarms at the minimum-DCF threshold)")


def _cmd_eval(args, out):
    progress = StderrProgress(quiet=args.quiet or args.json)
    trials = _load(args.scores, args.key, progress)
    progress.done()
    summary, op = _evaluate(trials, args)
    after = None
    if args.calibrate_on:
        if len(args.calibrate_on) > 2:
            raise LlrlabError("--calibrate-on takes DEV [KEY]: at most two files")
        from .calibration import fit_calibrator

        dev = _load(args.calibrate_on[0], (args.calibrate_on[1:] or [None])[0], progress)
        cal = fit_calibrator(dev, method=args.method, prior=args.prior)
        after, op_after = _evaluate(trials.with_scores(cal(trials.scores)), args)
    if args.json:
        obj = summary if after is None else {"raw": summary, "calibrated": after,
                                             "calibration": cal.to_dict()}
        out.write(json.dumps(obj) + "\n")
        return 0
    head = f"{'':28}{'raw':>14}" + (f"{'calibrated':>14}" if after else "")
    out.write(f"llrlab eval: {args.scores}" + (f" + {args.key}" if args.key else "") + "\n")
    out.write(f"operating point: p_target={args.p_target:g} c_miss={args.c_miss:g} "
              f"c_fa={args.c_fa:g}\n")
    out.write(head + "\n")
    for key, label in _ROWS:
        line = f"{label:28}{_fmt(summary[key]):>14}"
        if after:
            line += f"{_fmt(after[key]):>14}"
        out.write(line + "\n")
    out.write(_dr30_line(op) + "\n")
    if after:
        out.write(f"after {args.method} calibration trained on {args.calibrate_on[0]} "
                  f"(prior {args.prior:g}): " + _dr30_line(op_after) + "\n")
    return 0


def run(argv=None, *, parser=None, out=None, err=None):
    """Run the command line; return the exit code (2 on bad input)."""
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    parser = parser if parser is not None else build_parser()
    args = parser.parse_args(argv)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", LlrlabWarning)
        try:
            code = args.handler(args, out)
        except LlrlabError as exc:
            err.write(f"llrlab {args.command}: error: {exc}\n")
            code = 2
        except OSError as exc:
            err.write(f"llrlab {args.command}: error: {exc.strerror or exc}: "
                      f"{exc.filename or ''}\n")
            code = 2
    for w in caught:
        if issubclass(w.category, LlrlabWarning):
            err.write(f"llrlab {args.command}: warning: {w.message}\n")
        else:
            warnings.showwarning(w.message, w.category, w.filename, w.lineno)
    return code


def main(argv=None):  # pragma: no cover - thin wrapper
    sys.exit(run(argv))


if __name__ == "__main__":  # pragma: no cover
    main()
