"""``llrlab calibrate``, ``fuse`` and ``apply``: train on dev, write calibrated scores.

* ``llrlab calibrate --dev SCORES KEY [--apply SCORES] [--method affine|pav] [--prior P]
  --out FILE [--model MODEL.json]`` trains a calibration on the dev trials and writes the
  calibrated scores of ``--apply`` (default: the dev scores themselves) in that file's format,
  plus the model as JSON.
* ``llrlab fuse --dev A B ... [--key KEY] [--apply EA EB ...] [--prior P] --out FILE`` does
  the same for a linear fusion of several systems, matched by trial id.
* ``llrlab apply MODEL.json SCORES [SCORES ...] --out FILE`` re-applies a saved model.

Outputs are written to temporary files and renamed when all are complete (see
:mod:`._writing`, and ``-h``); an output that names an input file is refused.  Scores are
written with full precision.
"""

from __future__ import annotations

import json
import os

from ..errors import LlrlabError
from ._common import load_trials_arg, refuse_overwriting_inputs, write_all_atomically
from ._progress import Progress
from ._writing import OUTPUTS_HELP

__all__ = ["add_apply_parser", "add_calibrate_parser", "add_fuse_parser"]


def _output_args(p, what):
    p.add_argument("--out", metavar="FILE",
                   help=f"write the {what} scores here, in the format of the (first) --apply "
                        f"file: BOSARIS HDF5 or text, or a labelled file")
    p.add_argument("--model", metavar="MODEL.json", dest="model_out",
                   help="write the trained model here (default: FILE with the extension "
                        "replaced by .calibration.json)")
    p.add_argument("--json", action="store_true",
                   help="print a JSON report instead of text")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")


def add_calibrate_parser(sub):
    """Add ``calibrate`` to an argparse subparsers object."""
    p = sub.add_parser(
        "calibrate", help="train a calibration on dev trials and write calibrated scores",
        description="Train an affine (prior-weighted logistic regression) or PAV calibration "
                    "on labelled dev trials, apply it to a score file and write the "
                    "calibrated LLRs in that file's format, with the model as JSON.",
        epilog=OUTPUTS_HELP)
    p.add_argument("--dev", nargs="+", required=True, metavar=("SCORES", "KEY"),
                   help="dev trials: a score file and its key, or one labelled file")
    p.add_argument("--apply", metavar="SCORES",
                   help="scores to calibrate (default: the dev score file itself)")
    p.add_argument("--method", choices=("affine", "pav"), default="affine",
                   help="affine (default) or pav")
    p.add_argument("--prior", type=float,
                   help="training prior of the affine calibration (default 0.5; PAV has "
                        "none)")
    _output_args(p, "calibrated")
    p.set_defaults(handler=_cmd_calibrate)
    return p


def add_fuse_parser(sub):
    """Add ``fuse`` to an argparse subparsers object."""
    p = sub.add_parser(
        "fuse", help="train a linear fusion of several systems and write fused scores",
        description="Train llr = b + sum_k a_k s_k (prior-weighted logistic regression) on "
                    "the dev scores of several systems, matched by (model, segment) id, "
                    "apply it to their eval scores and write the fused LLRs.",
        epilog=OUTPUTS_HELP)
    p.add_argument("--dev", nargs="+", required=True, metavar="DEV",
                   help="one dev file per system: score files with --key, else labelled "
                        "files")
    p.add_argument("--key", metavar="KEY", help="the key of every dev score file")
    p.add_argument("--apply", nargs="+", metavar="SCORES",
                   help="one score file per system, in the order of --dev (default: the dev "
                        "files)")
    p.add_argument("--prior", type=float, default=0.5,
                   help="training prior (default 0.5)")
    p.add_argument("--names", nargs="+", metavar="NAME",
                   help="the systems' names (default: the dev file names)")
    _output_args(p, "fused")
    p.set_defaults(handler=_cmd_fuse)
    return p


def add_apply_parser(sub):
    """Add ``apply`` to an argparse subparsers object."""
    p = sub.add_parser(
        "apply", help="apply a saved calibration or fusion model to score files",
        description="Apply a model written by 'llrlab calibrate' or 'llrlab fuse' to score "
                    "files (one per system of a fusion) and write the LLRs.",
        epilog=OUTPUTS_HELP)
    p.add_argument("model", metavar="MODEL.json", help="the saved model")
    p.add_argument("scores", nargs="+", metavar="SCORES",
                   help="score file(s) to calibrate; one per system for a fusion")
    p.add_argument("--out", metavar="FILE", required=True,
                   help="write the LLRs here, in the format of the first SCORES file")
    p.add_argument("--json", action="store_true", help="print a JSON report")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(handler=_cmd_apply, model_out=None)
    return p


# ---------------------------------------------------------------------------------- helpers
def _model_path(args):
    if args.model_out:
        return args.model_out
    if args.out:
        return os.path.splitext(args.out)[0] + ".calibration.json"
    raise LlrlabError("nothing to write: give --out FILE (and optionally --model MODEL.json)")


def _read_inputs(paths, progress):
    """Read the score files to calibrate: ``[(data, fmt)]``."""
    from ..io import read_score_file

    return [read_score_file(p, progress=progress) for p in paths]


def _check_outputs(args, fmt, model_path, inputs):
    from ..io import check_extension

    refuse_overwriting_inputs([args.out, model_path], inputs)
    if args.out:
        check_extension(args.out, fmt)
    if model_path and os.path.splitext(model_path)[1].lower() != ".json":
        raise LlrlabError(f"{model_path}: the model is written as JSON; give it a .json name")
    if args.out and model_path and os.path.abspath(args.out) == os.path.abspath(model_path):
        raise LlrlabError(f"{model_path}: the model would overwrite the scores written to "
                          f"--out; choose another name")


def _outside(cal, systems):
    """Per system: how many scores lie outside the dev score range."""
    import numpy as np

    return [int(np.count_nonzero((s.scores < lo) | (s.scores > hi)))
            for s, (lo, hi) in zip(systems, cal.training.score_range, strict=True)]


def _write_outputs(args, cal, result, fmt, model_path, progress):
    """Write the scores and the model: both or neither."""
    from ..calibration import save_calibrator
    from ..io import write_score_file
    from ..io.orientation import in_llr_unit

    jobs = []
    if args.out:
        written = in_llr_unit(result)  # LLRs in the unit of --llr-unit
        jobs.append((args.out, lambda tmp: write_score_file(tmp, written, fmt)))
    if model_path:
        jobs.append((model_path, lambda tmp: save_calibrator(cal, tmp)))
    what = " and ".join(p for p in (args.out, model_path) if p)
    with progress.step(f"writing {what}"):
        write_all_atomically(jobs)  # both or neither: never new scores beside an old model


def _report(args, out, cal, result, fmt, sources, outside, model_path):
    """Print what was trained and written."""
    if args.json:
        obj = {"calibration": cal.report(), "applied_to": sources, "n_scores": len(result),
               "outside_dev_range": outside, "out": args.out, "out_format": fmt.describe(),
               "model": model_path}
        out.write(json.dumps(obj, allow_nan=False) + "\n")
        return 0
    out.write("".join(f"{line}\n" for line in cal.lines()))
    ranges = cal.training.score_range
    beyond = ("saturate at the end blocks' LLRs" if cal.kind == "pav"
              else "are extrapolated linearly")
    for src, n_out, (lo, hi) in zip(sources, outside, ranges, strict=True):
        note = (f"; {n_out} score(s) lie outside the dev score range [{lo:.6g}, {hi:.6g}] "
                f"and {beyond}" if n_out else "")
        out.write(f"applied to {src}{note}\n")
    if args.out:
        out.write(f"wrote {len(result)} {'fused' if cal.n_systems > 1 else 'calibrated'} "
                  f"scores to {args.out} ({fmt.describe()})\n")
    if model_path:
        out.write(f"wrote the model to {model_path}\n")
    return 0


def _dev_trials(files, already_read, option, progress):
    """Labelled dev trials from ``files``: ``[SCORES, KEY]`` or ``[LABELLED]``.

    ``already_read`` is what :func:`_read_inputs` made of ``files[0]`` when it is also the
    file to calibrate; a labelled file is then not parsed a second time.
    """
    from ..io.bosaris_text import require_both_classes
    from ..trials import Trials

    if len(files) == 1 and isinstance(already_read, Trials):
        return require_both_classes(already_read)
    return load_trials_arg(files, option, progress)


# --------------------------------------------------------------------------------- commands
def _progress(args):
    return Progress(getattr(args, "err", None), quiet=args.quiet or args.json)


def _cmd_calibrate(args, out):
    from ..calibration import fit_calibrator

    if len(args.dev) > 2:
        raise LlrlabError(f"--dev takes SCORES KEY, or one labelled file; got "
                          f"{len(args.dev)} files")
    if args.prior is not None and args.method == "pav":
        raise LlrlabError("--prior has no effect with --method pav: PAV calibration does "
                          "not depend on a training prior; leave --prior out")
    prior = 0.5 if args.prior is None else args.prior
    model_path = _model_path(args)
    apply_path = args.apply or args.dev[0]
    with _progress(args) as progress:
        [(data, fmt)] = _read_inputs([apply_path], progress)
        _check_outputs(args, fmt, model_path, [*args.dev, apply_path])
        dev = _dev_trials(args.dev, None if args.apply else data, "--dev", progress)
        with progress.step(f"training the {args.method} calibration on {len(dev):,} trials"):
            cal = fit_calibrator(dev, method=args.method, prior=prior)
        with progress.step(f"calibrating {len(data):,} scores"):
            result, outside = cal(data), _outside(cal, [data])
        _write_outputs(args, cal, result, fmt, model_path, progress)
    return _report(args, out, cal, result, fmt, [apply_path], outside, model_path)


def _cmd_fuse(args, out):
    from ..calibration import FusionCalibrator
    from ..io import load_trials

    apply_paths = args.apply or args.dev
    if len(apply_paths) != len(args.dev):
        raise LlrlabError(f"--apply needs one score file per system: {len(args.dev)} dev "
                          f"files, {len(apply_paths)} --apply files")
    if args.names and len(args.names) != len(args.dev):
        raise LlrlabError(f"--names needs one name per system ({len(args.dev)})")
    model_path = _model_path(args)
    with _progress(args) as progress:
        inputs = _read_inputs(apply_paths, progress)
        _check_outputs(args, inputs[0][1], model_path, [*args.dev, args.key, *apply_paths])
        read = [None] * len(args.dev) if args.apply or args.key else [d for d, _ in inputs]
        dev = [_dev_trials([p], r, "--dev", progress) if args.key is None
               else load_trials(p, args.key, progress=progress)
               for p, r in zip(args.dev, read, strict=True)]
        with progress.step(f"training the fusion of {len(dev)} systems"):
            cal = FusionCalibrator.fit(dev, prior=args.prior, names=args.names)
        systems = [d for d, _ in inputs]
        with progress.step(f"fusing {len(systems[0]):,} trials"):
            fused, outside = cal.apply_systems(systems), _outside(cal, systems)
        _write_outputs(args, cal, fused, inputs[0][1], model_path, progress)
    return _report(args, out, cal, fused, inputs[0][1], apply_paths, outside, model_path)


def _cmd_apply(args, out):
    from ..calibration import load_calibrator

    cal = load_calibrator(args.model)
    if len(args.scores) != cal.n_systems:
        what = (f"a fusion of {cal.n_systems} systems ({', '.join(cal.systems)})"
                if cal.n_systems > 1 else
                f"{'an' if cal.kind == 'affine' else 'a'} {cal.kind} calibration of one system")
        raise LlrlabError(f"{args.model} is {what}; give {cal.n_systems} score file(s), got "
                          f"{len(args.scores)}")
    with _progress(args) as progress:
        inputs = _read_inputs(args.scores, progress)
        _check_outputs(args, inputs[0][1], None, [args.model, *args.scores])
        systems = [d for d, _ in inputs]
        with progress.step(f"applying the model to {len(systems[0]):,} scores"):
            result, outside = cal.apply_systems(systems), _outside(cal, systems)
        _write_outputs(args, cal, result, inputs[0][1], None, progress)
    return _report(args, out, cal, result, inputs[0][1], args.scores, outside, None)
