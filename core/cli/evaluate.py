"""``llrlab eval``: the evaluation of one score set, optionally before and after calibration.

``llrlab eval SCORES [KEY]`` prints EER, Cllr, minCllr, actual and minimum DCF, PRBEP and the
DR30 status at an operating point; ``--calibrate-on DEV [KEY]`` (train a calibration on dev)
or ``--model MODEL.json`` (a saved calibration) adds a column of the same metrics after
calibration.  ``--json`` prints one object.  ``--conditions``, ``--condition-weights``,
``--select-conditions`` and ``--by-condition`` pool conditions with weights (van Leeuwen
2008; see :mod:`._conditions`).  ``--ci [LEVEL]``, ``--bootstrap N`` and ``--by-speaker`` add
confidence intervals (:mod:`._intervals`).  ``--biometric``, ``--dev DEV [KEY]`` and
``--threshold T`` add the threshold measures of biometrics (:mod:`._biometric`).

Units: the text table shows EER and error rates in percent (labelled ``[%]``); ``--json``
gives them as fractions, like the Python API.  Cllr is in bits.
"""

from __future__ import annotations

import json
import os

from ..errors import LlrlabError
from ._biometric import (
    add_biometric_args,
    biometric_lines,
    biometric_summary,
    check_biometric_args,
    split_dev,
    wants_biometric,
)
from ._common import fmt_number, load_trials_arg, operating_point_args, percent, requires
from ._conditions import (
    add_condition_args,
    condition_report,
    conditions_for_eval,
    weighted_for_eval,
    weighting_line,
)
from ._intervals import add_interval_args, check_interval_args, interval_lines
from ._progress import Progress

__all__ = ["add_eval_parser"]

def add_eval_parser(sub):
    """Add ``eval`` to an argparse subparsers object."""
    ev = sub.add_parser(
        "eval", help="evaluate a score set (EER, Cllr, minCllr, act/min DCF, PRBEP, DR30)",
        usage="llrlab eval [options] SCORES [KEY]",
        description="Evaluate scores: SCORES + KEY (BOSARIS text or HDF5), or one labelled "
                    "file (score label, or model segment score label).  Text files may be "
                    "gzipped; '-' reads standard input.  The table gives EER and error rates "
                    "in percent, --json as fractions.")
    ev.add_argument("scores", nargs="?", metavar="SCORES",
                    help="score file (text or HDF5), or a labelled file")
    ev.add_argument("key", nargs="?", metavar="KEY",
                    help="key file (text or HDF5); omit for a labelled file")
    operating_point_args(ev)
    ev.add_argument("--json", action="store_true", help="print one JSON object")
    ev.add_argument("--tar", metavar="GENUINE",
                    help="a file of target (genuine) scores, one per line (pyeer's format), "
                         "with --non; in place of SCORES")
    ev.add_argument("--non", metavar="IMPOSTOR",
                    help="a file of non-target (impostor) scores, one per line, with --tar")
    ev.add_argument("--quiet", action="store_true", help="no progress on stderr")
    how = ev.add_mutually_exclusive_group()
    how.add_argument("--calibrate-on", nargs="+", metavar=("DEV", "KEY"),
                     help="also report the metrics after calibration trained on DEV [KEY]")
    how.add_argument("--model", metavar="MODEL.json",
                     help="also report the metrics after a saved calibration (llrlab "
                          "calibrate --model)")
    ev.add_argument("--method", choices=("affine", "pav"),
                    help="calibration method for --calibrate-on (default affine)")
    ev.add_argument("--prior", type=float,
                    help="training prior of the affine calibration of --calibrate-on "
                         "(default 0.5)")
    ev.add_argument("--dask", nargs="?", const="local", metavar="SCHEDULER",
                    help="compute out of core on Dask (pip install 'llrlab[scale]'): SCORES "
                         "is a Parquet file or directory, or an HDF5 score file with its KEY; "
                         "SCHEDULER is 'local' (default) or a dask.distributed address")
    add_condition_args(ev)
    add_interval_args(ev)
    add_biometric_args(ev)
    ev.set_defaults(handler=_cmd_eval)
    return ev


_ROWS = [
    ("n_tar", "target trials"),
    ("n_non", "non-target trials"),
    ("eer", "EER (ROCCH) [%]"),
    ("cllr", "Cllr [bits]"),
    ("min_cllr", "min Cllr [bits]"),
    ("act_dcf", "actual DCF (normalized)"),
    ("min_dcf", "minimum DCF (normalized)"),
    ("prbep", "PRBEP [errors]"),
    ("effective_prior", "effective prior"),
]


#: rows shown in percent in the text table (fractions in --json)
_PERCENT = {"eer"}


def _evaluate(trials, args):
    from ..analysis import analyze
    from ..operating_point import plo_from_costs

    a = analyze(trials, plo=[])
    summary = a.summary(args.p_target, args.c_miss, args.c_fa)
    op = a.at(float(plo_from_costs(args.p_target, args.c_miss, args.c_fa)))
    return a, summary, op


def _dr30_line(op):
    m, f = int(op.min.misses), int(op.min.false_alarms)
    status = "inside" if op.dr30_safe else "OUTSIDE"
    return (f"DR30: {status} the rule-of-30 region at this operating point "
            f"({m} misses, {f} false alarms at the minimum-DCF threshold)")


def _check_args(args):
    """Refuse option combinations that would be silently ignored, before any file is read.

    ``--calibrate-on DEV [KEY]`` placed before SCORES takes the next file names too
    (argparse cannot tell where its list ends); four names are unambiguous and are split back
    into ``DEV KEY SCORES KEY``, other counts get a message saying what happened.
    """
    dask = getattr(args, "dask", None)
    if dask not in (None, "local") and "://" not in dask and os.path.exists(dask):
        # `--dask SCORES [KEY]`: the optional SCHEDULER took the file name
        if args.key is not None:
            raise LlrlabError(f"--dask took {dask} as the scheduler; write: llrlab eval "
                              f"SCORES [KEY] --dask [SCHEDULER]")
        args.dask, args.scores, args.key = "local", dask, args.scores
    cal = args.calibrate_on
    if cal is not None and len(cal) > 2:
        if args.scores is None and len(cal) == 4:
            args.calibrate_on, args.scores, args.key = cal[:2], cal[2], cal[3]
        else:
            placed = " (it came before the scores, so it took them too)" \
                if args.scores is None else ""
            raise LlrlabError(f"--calibrate-on takes DEV [KEY], got {len(cal)} files{placed}; "
                              f"write: llrlab eval SCORES [KEY] --calibrate-on DEV [KEY]")
    split_dev(args)
    if (args.tar is None) != (args.non is None):
        raise LlrlabError("--tar and --non come together: --tar GENUINE --non IMPOSTOR")
    if args.tar is not None and args.scores is not None:
        raise LlrlabError("give the scores either as SCORES [KEY] or as --tar GENUINE --non "
                          "IMPOSTOR, not both")
    if args.tar is not None and args.dask is not None:
        raise LlrlabError("--dask reads a Parquet or HDF5 SCORES file; leave --tar/--non "
                          "out, or --dask")
    if args.tar is not None:
        args.scores = f"{args.tar} + {args.non}"  # the name the report shows
    elif args.scores is None:
        raise LlrlabError("give the scores to evaluate: llrlab eval SCORES KEY, llrlab "
                          "eval LABELLED_FILE, or llrlab eval --tar GENUINE --non IMPOSTOR "
                          "(see llrlab eval -h)")
    requires(args.method is not None, args.calibrate_on is not None, "--method",
             "--calibrate-on DEV [KEY]", "it chooses the calibration trained on DEV" + (
                 "; a saved --model already has its method" if args.model else ""))
    requires(args.prior is not None, args.calibrate_on is not None, "--prior",
             "--calibrate-on DEV [KEY]", "it is the training prior of that calibration" + (
                 "; a saved --model already has its prior" if args.model else ""))
    if args.prior is not None and args.method == "pav":
        raise LlrlabError("--prior has no effect with --method pav: PAV calibration does "
                          "not depend on a training prior; leave --prior out")
    check_interval_args(args)
    check_biometric_args(args)


def _calibration(args, progress):
    """The calibrator asked for (trained on --calibrate-on, or read from --model), or None."""
    from ..calibration import fit_calibrator, load_calibrator

    if args.model:
        cal = load_calibrator(args.model)
        if cal.n_systems != 1:
            raise LlrlabError(f"{args.model}: a fusion of {cal.n_systems} systems cannot "
                              f"calibrate one score set; use 'llrlab apply'")
        return cal, f"the calibration in {args.model}"
    if args.calibrate_on:
        method = args.method or "affine"
        prior = 0.5 if args.prior is None else args.prior
        dev = load_trials_arg(args.calibrate_on, "--calibrate-on", progress)
        with progress.step(f"training the {method} calibration on {args.calibrate_on[0]}"):
            cal = fit_calibrator(dev, method=method, prior=prior)
        at = "" if method == "pav" else f", prior {prior:g}"
        return cal, f"{method} calibration trained on {args.calibrate_on[0]}{at}"
    return None, ""


def _fmt(key, value):
    return fmt_number(percent(value) if key in _PERCENT else value)


def write_report(out, args, a, summary, op, *, cal=None, what="", after=None, op_after=None,
                 note=None):
    """Write ``llrlab eval``'s report of one evaluation (in memory or on Dask alike).

    Warns when uncalibrated scores do not look like LLRs, then writes the ``--json`` object,
    or the text table of the raw (and calibrated) measures with the DR30 lines and the
    calibration's parameters.  ``note`` is a line under the title (how it was computed).
    Returns True after the JSON object (nothing more is to be written).
    """
    from ..llr_check import miscalibration_warning

    if cal is None:
        import warnings

        from ..errors import LlrlabWarning

        warning = miscalibration_warning(a, f"the scores of {args.scores}")
        if warning:
            warnings.warn(warning, LlrlabWarning, stacklevel=1)
    if args.json:
        obj = summary if after is None else {"raw": summary, "calibrated": after,
                                             "calibration": cal.report()}
        out.write(json.dumps(obj) + "\n")
        return True
    head = f"{'':28}{'raw':>14}" + (f"{'calibrated':>14}" if after else "")
    out.write(f"llrlab eval: {args.scores}" + (f" + {args.key}" if args.key else "") + "\n")
    if note:
        out.write(f"{note}\n")
    if not getattr(args, "higher_is_target", True):
        out.write("scores: distances, negated as read (--distance)\n")
    if getattr(args, "llr_unit", "ln") != "ln":
        out.write(f"scores: {args.llr_unit} LLRs, converted to natural log as read\n")
    out.write(f"operating point: p_target={args.p_target:g} c_miss={args.c_miss:g} "
              f"c_fa={args.c_fa:g}\n")
    out.write(weighting_line(args) + head + "\n")
    for key, label in _ROWS:
        line = f"{label:28}{_fmt(key, summary[key]):>14}"
        if after:
            line += f"{_fmt(key, after[key]):>14}"
        out.write(line + "\n")
    if "failures_to_acquire" in summary:
        how = "counted as errors" if args.fta_as_error else "left out"
        out.write(f"{'failures to acquire':28}{summary['failures_to_acquire']:>14}  ({how})\n")
    out.write(_dr30_line(op) + "\n")
    if after:
        out.write(f"after {what}: " + _dr30_line(op_after) + "\n")
        out.write("".join(f"  {line}\n" for line in cal.lines()))
    return False


def _cmd_eval(args, out):
    _check_args(args)
    if args.dask is not None:  # the same report, computed on Dask
        from ..scale.cli import eval_dask

        return eval_dask(args, out)
    from ..io.peers import failures_to_acquire

    with Progress(args.err, quiet=args.quiet or args.json) as progress, \
            failures_to_acquire(as_error=args.fta_as_error) as fta:
        if args.tar is not None:
            from ..io import load_genuine_impostor

            trials = load_genuine_impostor(args.tar, args.non, progress=progress)
        else:
            trials = load_trials_arg([args.scores] + ([args.key] if args.key else []),
                                     "eval", progress)
        trials = conditions_for_eval(trials, args, progress)
        cal, what = _calibration(args, progress)
        with progress.step(f"analysing {len(trials):,} trials"):
            a, summary, op = _evaluate(weighted_for_eval(trials, args), args)
            tables = condition_report(trials, args, summary)
        biometric = {}
        if wants_biometric(args) or args.threshold:
            with progress.step("computing the threshold measures"):
                biometric = biometric_summary(weighted_for_eval(trials, args), args, progress)
            summary.update(biometric)
        if fta.files:
            summary["failures_to_acquire"] = fta.total
        after = None
        if cal is not None:
            with progress.step(f"calibrating and analysing {len(trials):,} trials"):
                calibrated = cal(trials)
                _, after, op_after = _evaluate(weighted_for_eval(calibrated, args), args)
                tables_after = condition_report(calibrated, args, after)
        ci_lines = interval_lines(args, [(weighted_for_eval(trials, args), summary)] + (
            [(weighted_for_eval(calibrated, args), after)] if after else []), progress)
    if write_report(out, args, a, summary, op, cal=cal, what=what,
                    after=after, op_after=op_after if after else None):
        return 0
    out.write("".join(f"{line}\n" for line in ci_lines))
    out.write("".join(f"{line}\n" for line in biometric_lines(args, biometric, a.n_tar,
                                                               a.n_non)))
    out.write("".join(f"{line}\n" for line in tables))
    if after and tables:
        out.write(f"after {what}, " + "".join(f"{line}\n" for line in tables_after))
    return 0
