"""``llrlab report``: one self-contained interactive HTML file of an evaluation.

``llrlab report SCORES [KEY] [--dev DEV [DEV_KEY]] [--calibrate affine|pav] -o report.html``
analyses the scores (and the dev set), trains the calibration on dev when asked, and writes
the page of :func:`llrlab.dashboard.report.report_html`: the metrics table, the NBER, DET,
histogram, calibration, Tippett and reliability plots, with a draggable operating point that
works offline, without a server.

``llrlab report --lesson LESSON -o lecture.html`` writes a lesson (a file, or a built-in
lesson's id) as one offline page for the class: every step's text, plots, table and
highlights, stepped with the served lesson's keys (:mod:`llrlab.dashboard.lecture`).  The
lesson is checked before anything heavy is imported.

This module imports only ``argparse`` when the parser is built (``llrlab -h`` stays fast);
the handler imports numpy, the core and Bokeh.
"""

from __future__ import annotations

import argparse
import os

__all__ = ["add_report_parser"]

REPORT_DESCRIPTION = """\
Write one self-contained interactive HTML report: the metrics table, NBER, DET, histogram,
calibration, Tippett and reliability plots.  It opens in any browser with no server and no
network; dragging on the NBER, DET, histogram or Tippett plot moves the operating point and
the table follows (exact at each point of a grid of prior log-odds, 1/512 apart).

SCORES KEY is a BOSARIS score file (text or HDF5) and its key, or SCORES alone is a labelled
file (score label, or model segment score label).  Without --calibrate the scores are read
as natural-log LLRs.

--lesson LESSON writes a guided lesson instead (a lesson file, see docs/lessons.md, or a
built-in lesson's id: calibration, forensic) as one offline page for the class: every step's
text, plots, metrics table and highlights, on the demo data as llrlab serve shows them,
stepped with the served lesson's keys (Page Down / Page Up, arrows, Space, Home / End, a
number then Enter, B for a black screen); the operating point can be dragged in every step.

examples:
  llrlab report eval.h5 eval_key.h5 -o report.html
  llrlab report eval.txt eval.key --dev dev.txt dev.key --calibrate affine -o report.html
  llrlab report --lesson calibration -o lecture.html
  llrlab report --lesson my_lesson.md -o lecture.html
"""


def add_report_parser(subparsers):
    """Add ``report`` to an argparse subparsers object (used by the ``llrlab`` CLI)."""
    from llrlab.core.cli._common import operating_point_args

    p = subparsers.add_parser(
        "report", help="write a self-contained interactive HTML report (works offline)",
        usage="llrlab report [options] SCORES [KEY] -o REPORT.html\n"
              "       llrlab report --lesson LESSON -o LECTURE.html",
        description=REPORT_DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("scores", nargs="?", metavar="SCORES",
                   help="score file (text or HDF5), or a labelled file")
    p.add_argument("key", nargs="?", metavar="KEY",
                   help="key file (text or HDF5); omit for a labelled file")
    p.add_argument("-o", "--out", metavar="REPORT.html",
                   help="the HTML file to write (.html or .htm)")
    p.add_argument("--dev", nargs="+", metavar=("DEV", "DEV_KEY"),
                   help="a dev set: shown beside the scores, and the training set of "
                        "--calibrate")
    p.add_argument("--calibrate", choices=("affine", "pav"),
                   help="calibrate the scores with a map trained on --dev")
    p.add_argument("--prior", type=float,
                   help="training prior of the affine calibration (default 0.5)")
    operating_point_args(p)
    p.add_argument("--unit", choices=("ln", "log10", "bits"), default="ln",
                   help="unit of the LLR axes: natural log (default), log10 (the forensic "
                        "convention) or bits")
    p.add_argument("--lesson", metavar="LESSON",
                   help="write this lesson (a lesson file, or a built-in lesson's id) as one "
                        "offline page with every step, instead of a report of SCORES")
    p.add_argument("--title", help="page title (default: llrlab report: SCORES)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(handler=_cmd_report)
    return p


def _check_args(args):
    from llrlab.core import LlrlabError
    from llrlab.core.cli._common import requires

    if args.lesson is not None:
        given = [name for name, v in (("SCORES", args.scores), ("--dev", args.dev),
                                      ("--calibrate", args.calibrate),
                                      ("--prior", args.prior)) if v is not None]
        if given:
            raise LlrlabError(f"--lesson writes a lesson on its own data; leave out "
                              f"{', '.join(given)}")
    elif args.scores is None:
        raise LlrlabError("give the scores to report on: llrlab report SCORES KEY -o "
                          "REPORT.html (see llrlab report -h)")
    if not args.out:
        raise LlrlabError("give the file to write with -o REPORT.html")
    if os.path.splitext(args.out)[1].lower() not in (".html", ".htm"):
        raise LlrlabError(f"{args.out}: the report is an HTML page; give it a .html name")
    if args.dev is not None and len(args.dev) > 2:
        raise LlrlabError(f"--dev takes DEV [DEV_KEY], got {len(args.dev)} files")
    requires(args.calibrate is not None, args.dev is not None, "--calibrate",
             "--dev DEV [DEV_KEY]", "the calibration is trained on the dev set")
    requires(args.prior is not None, args.calibrate is not None, "--prior", "--calibrate",
             "it is the training prior of the calibration")
    if args.prior is not None and args.calibrate == "pav":
        raise LlrlabError("--prior has no effect with --calibrate pav: PAV calibration "
                          "does not depend on a training prior; leave --prior out")


def _calibrated(raw, trials, cal):
    """Analysis of the calibrated LLRs, reusing the sort of ``raw`` for monotone maps."""
    from llrlab.core import analyze, analyze_transformed

    if cal.monotone:
        try:
            return analyze_transformed(raw, cal.apply)
        except ValueError:
            pass
    return analyze(cal(trials))


def _cmd_lesson(args, out):
    """``llrlab report --lesson``: the lesson is checked first (one line, exit 2), then
    the dashboard is imported and every step computed."""
    from llrlab.core.cli._common import refuse_overwriting_inputs
    from llrlab.core.cli._progress import Progress

    from .lessons import find_lesson

    lesson = find_lesson(args.lesson)
    if os.path.exists(args.lesson):
        refuse_overwriting_inputs([args.out], [args.lesson])
    with Progress(getattr(args, "err", None), quiet=args.quiet) as progress:
        with progress.step("loading the dashboard"):
            from .lecture import lecture_html
            from .report import write_report
        text = lecture_html(lesson, progress=progress, title=args.title)
        with progress.step(f"writing {args.out}"):
            write_report(args.out, text)
    out.write(f"llrlab report: wrote {args.out} ({len(text.encode('utf-8')) / 1e6:.2f} MB, "
              f"lesson {lesson.title!r}, {len(lesson)} steps); open it in a browser\n")
    return 0


def _cmd_report(args, out):
    if args.lesson is not None:
        _check_args(args)
        return _cmd_lesson(args, out)
    from llrlab.core import analyze, miscalibration_warning
    from llrlab.core.calibration import fit_calibrator
    from llrlab.core.cli._common import load_trials_arg, refuse_overwriting_inputs
    from llrlab.core.cli._progress import Progress

    _check_args(args)
    inputs = [args.scores, args.key, *(args.dev or [])]
    refuse_overwriting_inputs([args.out], inputs)
    name = os.path.basename(args.scores)
    with Progress(getattr(args, "err", None), quiet=args.quiet) as progress:
        ev = load_trials_arg([args.scores] + ([args.key] if args.key else []), "report",
                             progress)
        dev = None if args.dev is None else load_trials_arg(args.dev, "--dev", progress)
        with progress.step(f"analysing {len(ev):,} trials"):
            raw_ev = analyze(ev)
            raw_dev = None if dev is None else analyze(dev)
        cal, notes = None, []
        if args.calibrate:
            prior = 0.5 if args.prior is None else args.prior
            with progress.step(f"training the {args.calibrate} calibration on "
                               f"{os.path.basename(args.dev[0])}"):
                cal = fit_calibrator(dev, method=args.calibrate, prior=prior)
            with progress.step("analysing the calibrated scores"):
                sets = _sets_calibrated(raw_ev, ev, raw_dev, dev, cal)
        else:
            sets = _sets_raw(raw_ev, raw_dev)
            note = miscalibration_warning(raw_ev, f"the scores of {name}")
            if note:
                notes.append(note)
        with progress.step("building the report"):
            text = _build(args, sets, cal, notes, len(ev))
        with progress.step(f"writing {args.out}"):
            from .report import write_report

            write_report(args.out, text)
    out.write(f"llrlab report: wrote {args.out} ({len(text.encode('utf-8')) / 1e6:.2f} MB, "
              f"{len(sets)} score set{'s' if len(sets) > 1 else ''}); open it in a browser\n")
    return 0


def _sets_raw(raw_ev, raw_dev):
    from .report import ReportSet

    sets = [ReportSet("eval", raw_ev)]
    if raw_dev is not None:
        sets.append(ReportSet("dev", raw_dev))
    return sets


def _sets_calibrated(raw_ev, ev, raw_dev, dev, cal):
    from .report import ReportSet

    return [ReportSet("eval", _calibrated(raw_ev, ev, cal), raw_ev),
            ReportSet("dev", _calibrated(raw_dev, dev, cal), raw_dev),
            ReportSet("eval before calibration", raw_ev)]


def _build(args, sets, cal, notes, n):
    from .report import report_html

    name = os.path.basename(args.scores)
    title = args.title or f"llrlab report: {name}"
    what = (f"{args.calibrate} calibration trained on {os.path.basename(args.dev[0])}"
            if cal is not None else "scores read as LLRs")
    subtitle = f"{name}: {n:,} trials; {what}"
    return report_html(sets, calibration=cal, p_target=args.p_target, c_miss=args.c_miss,
                       c_fa=args.c_fa, llr_unit=args.unit, title=title, subtitle=subtitle,
                       notes=notes)
