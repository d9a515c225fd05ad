"""``llrlab plot KIND FILES... -o FIGURE``: a figure for a paper or a slide, from score files.

KIND is one of ``det``, ``nber``, ``ape``, ``ece``, ``epc``, ``tippett``, ``reliability``,
``hist`` (:mod:`llrlab.core.plot`); FIGURE is a ``.pdf``, ``.svg`` or ``.png`` file.  The
FILES name one or more systems: ``SCORES KEY`` pairs, or one labelled file, or several score
files with one ``--key``, or several labelled files with ``--labelled``.  ``--dev`` names a
dev set per system, the same way: EPC thresholds are chosen on it and ``--calibrate``
trains on it.

This module imports nothing but ``argparse``-level code until the command runs (``llrlab
-h`` stays fast); the handler checks every option, then that matplotlib is installed, and
only then reads the files.
"""

from __future__ import annotations

import argparse
import os

from ..errors import LlrlabError
from ._common import operating_point_args, refuse_overwriting_inputs, requires
from ._progress import Progress

__all__ = ["DESCRIPTION", "KINDS", "add_plot_parser"]

#: The figures, with what the "wrote" line calls them.
KINDS = {
    "det": "DET plot",
    "nber": "NBER plot",
    "ape": "APE plot",
    "ece": "ECE plot",
    "epc": "EPC",
    "tippett": "Tippett plot",
    "reliability": "reliability diagram",
    "hist": "score histograms",
}
#: Kinds that read the scores as LLRs (a warning when they do not look calibrated).
_LLR_KINDS = ("nber", "ape", "ece", "tippett", "reliability")

DESCRIPTION = """\
Draw a figure for a paper or a slide (PDF with embedded TrueType fonts, SVG with its text
kept as text, or PNG) from score files, with matplotlib (pip install "llrlab[plot]").

KIND:
  det           DET plot on probit axes (ticks 0.1 ... 40 %%), ROCCH and/or steppy curves,
                EER, operating point, DR30 markers and the regions beyond them
  nber          normalized Bayes error rate (actual and minimum DCF) against prior log-odds
  ape           actual, minimum and default Bayes error rates, with Cllr's split
  ece           empirical cross-entropy (bits) of the LLRs, the PAV LLRs and the prior
  epc           expected performance curve: HTER on eval at the threshold chosen on --dev
  tippett       Tippett plot (LLRs in --unit, log10 by default) with misleading evidence
  reliability   reliability diagram (--method pav or bins)
  hist          score histograms of targets and non-targets with the Bayes threshold

FILE... names the systems: SCORES KEY pairs (a BOSARIS score file, text or HDF5, and its
key); one labelled file (score label, or model segment score label); several score files
and --key KEY, one key for all; or several labelled files and --labelled.  Several systems
are drawn in one plot (one colour and marker glyph each; hist: one plot each).  --dev
names a dev set per system, the same way (--dev-key KEY for one dev key).  The scores are
read as natural-log LLRs unless --calibrate trains a calibration on --dev.

examples:
  llrlab plot det A_eval.h5 B_eval.h5 --key eval_key.h5 --names A B -o det.pdf
  llrlab plot nber scores.txt scores.key --p-target 0.001 -o nber.svg
  llrlab plot epc A_eval.h5 eval_key.h5 --dev A_dev.h5 dev_key.h5 -o epc.pdf
  llrlab plot tippett raw.txt raw.key --dev dev.txt dev.key --calibrate affine -o tip.png
"""


def add_plot_parser(sub):
    """Add ``plot`` to an argparse subparsers object."""
    p = sub.add_parser(
        "plot", help="draw a figure (DET, NBER, APE, ECE, EPC, Tippett, reliability, "
                     "histograms) as PDF, SVG or PNG",
        usage="llrlab plot KIND FILE [FILE ...] -o FIGURE.{pdf,svg,png} [options]",
        description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kind", nargs="?", metavar="KIND", help=", ".join(KINDS))
    p.add_argument("files", nargs="*", metavar="FILE",
                   help="SCORES KEY pairs, or labelled files (see above)")
    p.add_argument("-o", "--out", metavar="FIGURE",
                   help="the figure to write: .pdf, .svg or .png")
    which = p.add_argument_group("systems")
    which.add_argument("--key", metavar="KEY", help="one key file for every score FILE")
    which.add_argument("--labelled", action="store_true",
                       help="every FILE (and --dev file) is a labelled file")
    which.add_argument("--names", nargs="+", metavar="NAME",
                       help="the systems' names in the legend (default: the file names)")
    which.add_argument("--dev", nargs="+", metavar="FILE",
                       help="a dev set per system (grouped like FILE): the EPC's thresholds "
                            "are chosen on it, --calibrate trains on it")
    which.add_argument("--dev-key", metavar="KEY", help="one key file for every --dev file")
    which.add_argument("--calibrate", choices=("affine", "pav"),
                       help="calibrate each system with a map trained on its --dev set")
    which.add_argument("--prior", type=float,
                       help="training prior of --calibrate affine (default 0.5)")
    what = p.add_argument_group("what is drawn")
    operating_point_args(what)
    what.set_defaults(p_target=None, c_miss=None, c_fa=None)  # None: not given (see below)
    what.add_argument("--no-operating-point", action="store_true",
                      help="do not mark the operating point")
    what.add_argument("--det-kind", choices=("rocch", "steppy", "both"),
                      help="det: the ROC convex hull (default), the steppy curve, or both")
    what.add_argument("--plo-range", nargs=2, type=float, metavar=("LO", "HI"),
                      help="nber, ape, ece: the prior log-odds axis (default -7 3 for nber, "
                           "-10 10 for ape and ece)")
    what.add_argument("--unit", choices=("ln", "log10", "bits"),
                      help="tippett, hist: the unit of the LLR axis (tippett: log10 by "
                           "default; hist: the raw scores by default)")
    what.add_argument("--method", choices=("pav", "bins"),
                      help="reliability: the PAV step function (default) or bins")
    what.add_argument("--bins", type=int,
                      help="reliability --method bins (default 10), hist (default 80)")
    look = p.add_argument_group("output")
    look.add_argument("--size", default="column",
                      help="column (3.5 in wide, the default), double (7 in), slide (8 x 5 "
                           "in, 16 pt type), or WIDTHxHEIGHT in inches")
    look.add_argument("--dpi", type=float, help="PNG resolution (default 300 dots per inch)")
    look.add_argument("--title", help="a title above the plot (papers use captions instead)")
    look.add_argument("--no-legend", action="store_true", help="draw no legend")
    look.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(handler=_cmd_plot)
    return p


# ------------------------------------------------------------------------- checking


def _groups(files, key, labelled, option):
    """The file lists of the systems (``[SCORES, KEY]`` or ``[LABELLED]``)."""
    if labelled:
        return [[f] for f in files]
    if key is not None:
        return [[f, key] for f in files]
    if len(files) == 1:
        return [list(files)]
    if len(files) % 2:
        raise LlrlabError(f"{option}: {len(files)} files; give SCORES KEY pairs, one labelled "
                          f"file, score files with --{'dev-' if option == '--dev' else ''}key "
                          f"KEY (one key for all), or labelled files with --labelled")
    return [files[i:i + 2] for i in range(0, len(files), 2)]


def _stem(path):
    base = os.path.basename(path)
    for ext in (".gz",):
        base = base.removesuffix(ext)
    return os.path.splitext(base)[0] or base


def _names(args, groups):
    if args.names is not None:
        if len(args.names) != len(groups):
            raise LlrlabError(f"--names gives {len(args.names)} name(s) for {len(groups)} "
                              f"system(s); give one name per system")
        return list(args.names)
    if len(groups) == 1:
        return [None]
    names = [_stem(g[0]) for g in groups]
    return [n if names.count(n) == 1 else f"{n} ({i + 1})" for i, n in enumerate(names)]


def _check(args):
    """Refuse what cannot work or would be ignored, before any file is read; return the
    output format and the systems' file groups (eval, dev)."""
    from ..plot._style import output_format

    if args.kind is None:
        raise LlrlabError(f"give the figure to draw: llrlab plot KIND FILE... -o FIGURE, with "
                          f"KIND one of {', '.join(KINDS)} (see llrlab plot -h)")
    if args.kind not in KINDS:
        raise LlrlabError(f"unknown figure {args.kind!r}; choose one of {', '.join(KINDS)}")
    if not args.files:
        raise LlrlabError(f"give the scores to draw: llrlab plot {args.kind} SCORES KEY -o "
                          f"FIGURE (see llrlab plot -h)")
    if not args.out:
        raise LlrlabError("give the figure to write with -o FIGURE.pdf, .svg or .png")
    fmt = output_format(args.out)
    if args.key is not None and args.labelled:
        raise LlrlabError("--key and --labelled exclude each other: labelled files carry "
                          "their labels")
    if args.dev_key is not None and args.labelled:
        raise LlrlabError("--dev-key and --labelled exclude each other: labelled files carry "
                          "their labels")
    kind = args.kind
    requires(args.dpi is not None, fmt == "png", "--dpi", "a .png output",
             "PDF and SVG are vector formats, sharp at any size")
    if args.dpi is not None and not 10 <= args.dpi <= 2400:
        raise LlrlabError(f"--dpi must be from 10 to 2400, got {args.dpi:g}")
    for option, given, kinds in (("--det-kind", args.det_kind, ("det",)),
                                 ("--plo-range", args.plo_range, ("nber", "ape", "ece")),
                                 ("--unit", args.unit, ("tippett", "hist")),
                                 ("--method", args.method, ("reliability",)),
                                 ("--bins", args.bins, ("reliability", "hist"))):
        if given is not None and kind not in kinds:
            raise LlrlabError(f"{option} has no effect on a {KINDS[kind]}; it applies to "
                              f"{' and '.join(kinds)} only; leave it out")
    if args.bins is not None and kind == "reliability" and args.method != "bins":
        raise LlrlabError("--bins has no effect with the PAV reliability diagram; add "
                          "--method bins, or leave --bins out")
    if args.bins is not None and args.bins < 1:
        raise LlrlabError(f"--bins must be at least 1, got {args.bins}")
    given_op = any(v is not None for v in (args.p_target, args.c_miss, args.c_fa))
    if given_op and args.no_operating_point:
        raise LlrlabError("--p-target, --c-miss and --c-fa choose the operating point that "
                          "--no-operating-point hides; leave one or the other out")
    if kind == "epc" and args.dev is None:
        raise LlrlabError("an EPC chooses each threshold on a dev set: give --dev FILE... "
                          "(one dev set per system)")
    requires(args.calibrate is not None, args.dev is not None, "--calibrate", "--dev FILE...",
             "the calibration is trained on the dev set")
    requires(args.dev_key is not None, args.dev is not None, "--dev-key", "--dev FILE...",
             "it is the key of the dev files")
    requires(args.prior is not None, args.calibrate is not None, "--prior", "--calibrate",
             "it is the training prior of the calibration")
    if args.prior is not None and args.calibrate == "pav":
        raise LlrlabError("--prior has no effect with --calibrate pav: PAV calibration does "
                          "not depend on a training prior; leave --prior out")
    if args.dev is not None and kind != "epc" and args.calibrate is None:
        raise LlrlabError(f"--dev has no effect on a {KINDS[kind]} without --calibrate (it "
                          f"is the calibration's training set); add --calibrate affine or "
                          f"pav, or leave --dev out")
    evals = _groups(args.files, args.key, args.labelled, "FILE")
    devs = None
    if args.dev is not None:
        devs = _groups(args.dev, args.dev_key, args.labelled, "--dev")
        if len(devs) != len(evals):
            raise LlrlabError(f"--dev names {len(devs)} dev set(s) for {len(evals)} "
                              f"system(s); give one dev set per system, in the same order")
    from ..plot._style import figure_size

    figure_size(args.size)
    return fmt, evals, devs


# ------------------------------------------------------------------------- drawing


def _operating_point(args):
    """The prior log-odds of the operating point (None: not drawn); the reliability
    diagram's prior (0 unless the operating point is given)."""
    from ..operating_point import plo_from_costs

    if args.no_operating_point:
        return None
    given = any(v is not None for v in (args.p_target, args.c_miss, args.c_fa))
    if args.kind == "reliability" and not given:
        return 0.0
    return float(plo_from_costs(0.01 if args.p_target is None else args.p_target,
                                1.0 if args.c_miss is None else args.c_miss,
                                1.0 if args.c_fa is None else args.c_fa))


def _load(args, evals, devs, progress):
    """``(eval, dev)`` per system: Analyses of the LLRs (calibrated when asked), dev None
    without --dev; with the warnings of scores read as LLRs that do not look calibrated."""
    import warnings

    from ..analysis import analyze
    from ..calibration import fit_calibrator
    from ..errors import LlrlabWarning
    from ..llr_check import miscalibration_warning
    from ._common import load_trials_arg

    out = []
    for i, files in enumerate(evals):
        ev = load_trials_arg(files, "FILE", progress)
        dev = None if devs is None else load_trials_arg(devs[i], "--dev", progress)
        if args.calibrate:
            prior = 0.5 if args.prior is None else args.prior
            with progress.step(f"training the {args.calibrate} calibration on "
                               f"{os.path.basename(devs[i][0])}"):
                cal = fit_calibrator(dev, method=args.calibrate, prior=prior)
                ev, dev = cal(ev), cal(dev)
        with progress.step(f"analysing {len(ev):,} trials"):
            a_ev = analyze(ev, plo=[])
            a_dev = None if dev is None else analyze(dev, plo=[])
        if args.kind in _LLR_KINDS and not args.calibrate:
            note = miscalibration_warning(a_ev, f"the scores of {files[0]}")
            if note:
                warnings.warn(note, LlrlabWarning, stacklevel=1)
        out.append((a_ev, a_dev))
    return out


def _draw(args, sets, names, plo, size):
    """Draw the figure; return its Figure."""
    from .. import plot
    from ..plot._style import new_axes

    kind = args.kind
    legend = not args.no_legend
    if kind == "hist":
        axes = new_axes(size, rows=len(sets))
        for ax, (a, _), name in zip(axes if len(sets) > 1 else [axes], sets, names,
                                    strict=True):
            plot.hist(a, ax=ax, unit=args.unit, plo=plo, legend=legend,
                      bins=80 if args.bins is None else args.bins,
                      title=name if len(sets) > 1 else args.title)
        fig = (axes[0] if len(sets) > 1 else axes).figure
        if len(sets) > 1 and args.title:
            from ..plot._draw import plain

            fig.suptitle(plain(args.title))
        return fig
    ax = new_axes(size, det=kind == "det")
    common = dict(ax=ax, legend=legend, title=args.title)
    if kind == "epc":
        data = {n: (d, e) for n, (e, d) in zip(names, sets, strict=True)} \
            if len(sets) > 1 else (sets[0][1], sets[0][0])
        if len(sets) == 1 and names[0] is not None:
            data = {names[0]: data}
        plot.epc(data, plo=plo, **common)
        return ax.figure
    data = sets[0][0] if len(sets) == 1 and names[0] is None else \
        {n: a for n, (a, _) in zip(names, sets, strict=True)}
    if kind == "det":
        plot.det(data, plo=plo, kind=args.det_kind or "rocch", **common)
    elif kind in ("nber", "ape", "ece"):
        extra = {} if args.plo_range is None else {"plo_range": args.plo_range}
        plot.KINDS[kind](data, plo=plo, **extra, **common)
    elif kind == "tippett":
        plot.tippett(data, plo=plo, unit=args.unit or "log10", **common)
    else:  # reliability
        plot.reliability(data, plo=0.0 if plo is None else plo, method=args.method or "pav",
                         bins=10 if args.bins is None else args.bins, **common)
    return ax.figure


def _cmd_plot(args, out):
    fmt, evals, devs = _check(args)
    from ..plot._style import figure_size, matplotlib, save, style

    mpl = matplotlib()  # before reading anything: one line when the extra is missing
    inputs = [f for g in evals + (devs or []) for f in g]
    refuse_overwriting_inputs([args.out], inputs)
    names = _names(args, evals)
    size = figure_size(args.size)
    plo = _operating_point(args)
    with Progress(getattr(args, "err", None), quiet=args.quiet) as progress:
        sets = _load(args, evals, devs, progress)
        with progress.step(f"drawing the {KINDS[args.kind]}"), mpl.rc_context(style(size)):
            fig = _draw(args, sets, names, plo, size)
            title = args.title or f"llrlab {KINDS[args.kind]}"
            from ._common import write_atomically

            write_atomically(args.out, lambda tmp: save(fig, tmp, dpi=args.dpi, format=fmt,
                                                        title=title))
    w, h = fig.get_size_inches()
    n = len(sets)
    pixels = ""
    if fmt == "png":
        dpi = 300 if args.dpi is None else args.dpi
        pixels = f", {round(w * dpi)} x {round(h * dpi)} px"
    out.write(f"llrlab plot: wrote {args.out} ({KINDS[args.kind]}, {n} system"
              f"{'s' if n > 1 else ''}, {w:g} x {h:g} in{pixels}, {fmt.upper()})\n")
    return 0
