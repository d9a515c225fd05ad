"""``llrlab curves {epc,ape,ece,roc,det}``: the data of other views of the same scores, as CSV.

* ``llrlab curves epc --dev SCORES [KEY] --eval SCORES [KEY] [--dev ... --eval ...]``:
  expected performance curves (Bengio, Mariéthoz & Keller 2005), one block of rows per system.
* ``llrlab curves ape SCORES [KEY] [--plo-range LO HI] [--points N]``: actual, minimum and
  default Bayes error rates against prior log-odds (Brümmer 2010, sec. 7.7.4).
* ``llrlab curves ece SCORES [KEY] ...``: cross-entropy of the LLRs, of the PAV LLRs and of
  the prior (nats) against prior log-odds.
* ``llrlab curves roc SCORES [KEY] [--points N | --all]`` and ``llrlab curves det ...``: the
  ROC as a table of thresholds (:func:`llrlab.core.roc_curve`): FMR and FNMR when accepting
  ``score >= threshold``, at each distinct score; ``det`` adds their probits and thins the
  table in DET coordinates.

The CSV (a header line, then full-precision numbers: Python's shortest round-trip ``repr``)
goes to ``--out`` (written atomically, never over an input) or to stdout.  ``ape`` and ``ece``
also report ``Cllr = discrimination loss + calibration loss``: on stdout after the "wrote"
line when ``--out`` is given, else on stderr (so that stdout stays pure CSV); ``--quiet``
silences it.
"""

from __future__ import annotations

import csv
import io

from ..errors import LlrlabError
from ._common import (
    fmt_number,
    load_trials_arg,
    percent,
    refuse_overwriting_inputs,
    write_atomically,
)
from ._progress import Progress

__all__ = ["add_curves_parser"]

EPC_COLUMNS = ["system", "alpha", "threshold", "dev_p_miss", "dev_p_fa", "dev_wer",
               "eval_p_miss", "eval_p_fa", "eval_wer", "eval_hter"]
APE_COLUMNS = ["plo", "effective_prior", "bayes_error", "min_bayes_error", "default"]
ECE_COLUMNS = ["plo", "effective_prior", "ce_nats", "min_ce_nats", "default_nats"]
ROC_COLUMNS = ["threshold", "p_fa", "p_miss", "tpr", "false_alarms", "misses"]
DET_COLUMNS = ["threshold", "p_fa", "p_miss", "probit_p_fa", "probit_p_miss", "false_alarms",
               "misses"]
#: Rows of ``curves roc|det`` by default (``--points``, ``--all``).
CURVE_POINTS = 10_000


def _output_args(p):
    p.add_argument("--out", metavar="FILE.csv", help="write the CSV here (default: stdout)")
    p.add_argument("--quiet", action="store_true", help="no progress or summary on stderr")


def add_curves_parser(sub):
    """Add ``curves`` (with its kinds ``epc``, ``ape``, ``ece``) to an argparse subparsers."""
    p = sub.add_parser(
        "curves", help="write EPC, APE, ECE, ROC or DET curve data as CSV",
        description="Write the data of an expected performance curve (epc), an applied "
                    "probability of error plot (ape), an empirical cross-entropy plot "
                    "(ece), or the ROC or DET curve with its thresholds (roc, det) as CSV "
                    "with full-precision numbers.")
    kinds = p.add_subparsers(dest="kind", metavar="KIND")
    kinds.required = True

    e = kinds.add_parser(
        "epc", help="expected performance curve: threshold chosen on dev, HTER on eval",
        description="For each alpha in [0, 1], choose the threshold minimizing "
                    "alpha*Pfa + (1-alpha)*Pmiss on the dev trials and report the eval error "
                    "rates and HTER at it (Bengio, Mariéthoz & Keller 2005).  Repeat "
                    "--dev/--eval to compare systems.")
    e.add_argument("--dev", nargs="+", action="append", required=True,
                   metavar=("SCORES", "KEY"),
                   help="dev trials: a score file and its key, or one labelled file")
    e.add_argument("--eval", nargs="+", action="append", required=True, dest="eval_sets",
                   metavar=("SCORES", "KEY"),
                   help="eval trials (one --eval per --dev, in the same order)")
    e.add_argument("--points", type=int, default=101,
                   help="number of alpha values from 0 to 1 (default 101)")
    _output_args(e)
    e.set_defaults(handler=_cmd_epc)

    for kind, what in (("ape", "actual, minimum and default Bayes error rates"),
                       ("ece", "cross-entropy of the LLRs, the PAV LLRs and the prior, "
                               "in nats")):
        k = kinds.add_parser(
            kind, help=f"{kind.upper()} plot data: {what} against prior log-odds",
            description=f"{kind.upper()} plot data (Brümmer 2010, sec. 7.7.4): {what}, on a "
                        f"grid of prior log-odds; also reports Cllr = discrimination loss "
                        f"(min Cllr) + calibration loss, in bits.")
        k.add_argument("scores", help="score file (text or HDF5), or a labelled file")
        k.add_argument("key", nargs="?", help="key file; omit for a labelled file")
        k.add_argument("--plo-range", nargs=2, type=float, default=[-10.0, 10.0],
                       metavar=("LO", "HI"), help="prior log-odds range (default -10 10)")
        k.add_argument("--points", type=int, default=201,
                       help="number of prior log-odds (default 201)")
        _output_args(k)
        k.set_defaults(handler=_cmd_ape if kind == "ape" else _cmd_ece)

    for kind, what, extra in (
            ("roc", "false-alarm (FMR) and miss (FNMR) rates", ", tpr = 1 - p_miss"),
            ("det", "false-alarm and miss rates and their probits",
             "; probits of 0 and 1 are written as -8 and 8")):
        k = kinds.add_parser(
            kind, help=f"{kind.upper()} curve with thresholds: {what} at each score "
                       f"threshold",
            description=f"The {kind.upper()} curve as a table of thresholds: {what} when "
                        f"accepting score >= threshold, at each distinct score (then inf, "
                        f"every trial rejected); rates are fractions, false_alarms and "
                        f"misses trial counts{extra}.  At most --points rows keep the curve's "
                        f"shape (in {'probit' if kind == 'det' else 'ROC'} coordinates); "
                        f"--all writes every threshold.  Also reports the threshold-sweep "
                        f"EER and the AUC.")
        k.add_argument("scores", help="score file (text or HDF5), or a labelled file")
        k.add_argument("key", nargs="?", help="key file; omit for a labelled file")
        size = k.add_mutually_exclusive_group()
        size.add_argument("--points", type=int, default=CURVE_POINTS,
                          help=f"at most this many rows (default {CURVE_POINTS:,}; at least 3)")
        size.add_argument("--all", action="store_true", help="every threshold (no thinning)")
        _output_args(k)
        k.set_defaults(handler=_cmd_roc)
    return p


def _grid(lo, hi, points, option):
    import numpy as np

    if points < 2:
        raise LlrlabError(f"--points must be at least 2, got {points}")
    if not (np.isfinite(lo) and np.isfinite(hi) and lo < hi):
        raise LlrlabError(f"{option} needs finite LO < HI, got {lo!r} {hi!r}")
    return np.linspace(lo, hi, points)


def _csv_text(header, rows):
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    for row in rows:
        w.writerow([v if isinstance(v, str) else repr(float(v)) for v in row])
    return buf.getvalue()


def _emit(args, out, text, n_rows, inputs, notes=()):
    """Write the CSV to --out (atomically) or ``out``; print ``notes`` where they fit."""
    err = getattr(args, "err", None)
    if args.out:
        refuse_overwriting_inputs([args.out], inputs)

        def write(tmp):
            with open(tmp, "w", encoding="utf-8", newline="") as f:
                f.write(text)

        write_atomically(args.out, write)
        out.write(f"wrote {n_rows} rows to {args.out}\n")
        out.writelines(f"{n}\n" for n in notes)
    else:
        out.write(text)
        if not args.quiet and err is not None:
            err.writelines(f"llrlab curves {args.kind}: {n}\n" for n in notes)
    return 0


def _cmd_epc(args, out):
    from ..epc import epc_many

    if len(args.dev) != len(args.eval_sets):
        raise LlrlabError(f"curves epc needs one --eval per --dev; got {len(args.dev)} --dev "
                          f"and {len(args.eval_sets)} --eval")
    alpha = _grid(0.0, 1.0, args.points, "--points")
    pairs, names = [], []
    with Progress(getattr(args, "err", None), quiet=args.quiet) as progress:
        for dev, ev in zip(args.dev, args.eval_sets, strict=True):
            pairs.append((load_trials_arg(dev, "--dev", progress),
                          load_trials_arg(ev, "--eval", progress)))
            names.append(ev[0])
        with progress.step(f"computing {len(pairs)} expected performance curve(s)"):
            curves = epc_many(pairs, alpha)
    rows = []
    for name, c in zip(names, curves, strict=True):
        cols = (c.alpha, c.threshold, c.dev_p_miss, c.dev_p_fa, c.dev_wer, c.p_miss, c.p_fa,
                c.wer, c.hter)
        rows.extend([name, *vals] for vals in zip(*cols, strict=True))
    inputs = [f for files in args.dev + args.eval_sets for f in files]
    return _emit(args, out, _csv_text(EPC_COLUMNS, rows), len(rows), inputs)


def _load_one(args):
    files = [args.scores] + ([args.key] if args.key else [])
    with Progress(getattr(args, "err", None), quiet=args.quiet) as progress:
        trials = load_trials_arg(files, f"curves {args.kind}", progress)
    return trials, files


def _decomposition(c):
    return (f"Cllr {fmt_number(c.cllr)} bits = discrimination loss (min Cllr) "
            f"{fmt_number(c.discrimination_loss)} + calibration loss "
            f"{fmt_number(c.calibration_loss)}")


def _cmd_ape(args, out):
    from scipy.special import expit

    from ..ape import ape_curves

    plo = _grid(*args.plo_range, args.points, "--plo-range")
    trials, files = _load_one(args)
    c = ape_curves(trials, plo=plo)
    cols = (c.plo, expit(c.plo), c.bayes_error, c.min_bayes_error,
            c.default)
    rows = list(zip(*cols, strict=True))
    return _emit(args, out, _csv_text(APE_COLUMNS, rows), len(rows), files,
                 [_decomposition(c), f"ROCCH-EER {fmt_number(percent(c.eer))}%"])


def _cmd_ece(args, out):
    from scipy.special import expit

    from ..ape import ece_curves

    plo = _grid(*args.plo_range, args.points, "--plo-range")
    trials, files = _load_one(args)
    c = ece_curves(trials, plo=plo)
    cols = (c.plo, expit(c.plo), c.ce, c.min_ce, c.default)
    rows = list(zip(*cols, strict=True))
    return _emit(args, out, _csv_text(ECE_COLUMNS, rows), len(rows), files,
                 [_decomposition(c)])


def _cmd_roc(args, out):
    from ..det import probit
    from ..threshold import roc_curve, threshold_summary

    if args.points < 3:
        raise LlrlabError(f"--points must be at least 3, got {args.points}")
    trials, files = _load_one(args)
    full = roc_curve(trials)
    det = args.kind == "det"
    c = full if args.all else full.decimated(args.points, det=det)
    if det:
        cols = (c.threshold, c.p_fa, c.p_miss, probit(c.p_fa), probit(c.p_miss),
                c.false_alarms, c.misses)
    else:  # the hit rate from the counts when unweighted (exact, no 1 - x rounding)
        tpr = (1.0 - c.p_miss if trials.tar_weights is not None
               else (c.n_tar - c.misses) / c.n_tar)
        cols = (c.threshold, c.p_fa, c.p_miss, tpr, c.false_alarms, c.misses)
    rows = [[*vals[:-2], str(int(vals[-2])), str(int(vals[-1]))]
            for vals in zip(*cols, strict=True)]
    s = threshold_summary(trials, fmr=[])
    notes = [f"{len(full):,} thresholds" + ("" if c.complete else
                                             f", thinned to {len(c):,} rows (--all for all)"),
             f"EER (threshold sweep) {fmt_number(percent(s.eer.eer))}% at threshold "
             f"{fmt_number(s.eer.threshold)}; AUC {fmt_number(s.auc.auc)}"]
    return _emit(args, out, _csv_text(DET_COLUMNS if det else ROC_COLUMNS, rows), len(rows),
                 files, notes)
