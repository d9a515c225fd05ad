"""``llrlab compare``: is system A significantly better than system B on the same trials?

``llrlab compare SCORES_A SCORES_B KEY`` thresholds both systems' LLRs at the Bayes threshold
of the operating point, prints their error rates (in percent) and DCFs, the z-test of the DCF
difference of Bengio & Mariéthoz (2004) -- with independent errors, and with the variance of
the paired differences -- and McNemar's (1947) test of the paired decisions (on the target
trials, the non-target trials and all trials), each with a one-sentence verdict.  Trials are
paired by (model, segment) id (by position for files without ids).  Both systems' scores
should be calibrated LLRs: a warning says when they do not look like it.  ``--json`` prints
one object (error rates as fractions).
"""

from __future__ import annotations

import json

from ..errors import LlrlabError
from ._common import fmt_number, load_trials_arg, operating_point_args, percent
from ._progress import Progress

__all__ = ["add_compare_parser"]


def add_compare_parser(sub):
    """Add ``compare`` to an argparse subparsers object."""
    p = sub.add_parser(
        "compare", help="test whether two systems differ significantly (z-test, McNemar)",
        description="Compare two systems' LLRs on the same trials at one operating point: "
                    "SCORES_A SCORES_B KEY (BOSARIS text or HDF5), or two labelled files.")
    p.add_argument("scores_a", metavar="SCORES_A", help="scores (LLRs) of system A")
    p.add_argument("scores_b", metavar="SCORES_B", help="scores (LLRs) of system B")
    p.add_argument("key", metavar="KEY", nargs="?",
                   help="key file; omit when both score files are labelled files")
    operating_point_args(p)
    p.add_argument("--alpha", type=float, default=0.05,
                   help="significance level of the verdicts (default 0.05)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(handler=_cmd_compare)
    return p


def _z_dict(r):
    return {"statistic": r.statistic, "p_value": r.p_value, "std": r.std,
            "difference": r.difference, "variance_estimator": r.estimator,
            "significant": r.significant, "verdict": r.verdict}


def _m_dict(r):
    """McNemar's result; the discordant counts are named by who errs."""
    return {"statistic": r.statistic, "p_value": r.p_value, "method": r.method,
            "only_a_wrong": r.only_a_wrong, "only_b_wrong": r.only_b_wrong,
            "both_right": r.both_right, "both_wrong": r.both_wrong,
            "significant": r.significant, "verdict": r.verdict}


def _is_key(path):
    """Whether ``path`` reads as a key file (for the message about a missing system)."""
    from ..io import read_key

    try:
        read_key(path)
    except (LlrlabError, OSError):
        return False
    return True


def _cmd_compare(args, out):
    import warnings

    from ..analysis import analyze
    from ..errors import LlrlabWarning
    from ..llr_check import miscalibration_warning
    from ..operating_point import plo_from_costs
    from ..significance import mcnemar_test, opposite_verdicts, paired_trials, z_test

    key = [args.key] if args.key else []
    with Progress(getattr(args, "err", None), quiet=args.quiet or args.json) as progress:
        try:
            a = load_trials_arg([args.scores_a, *key], "compare", progress)
        except LlrlabError:
            if not key and _is_key(args.scores_b):
                raise LlrlabError(f"it needs SCORES_A SCORES_B KEY; got two files, and "
                                  f"{args.scores_b} is a key file: is the score file of the "
                                  f"second system missing?") from None
            raise
        b = load_trials_arg([args.scores_b, *key], "compare", progress)
        plo = float(plo_from_costs(args.p_target, args.c_miss, args.c_fa))
        with progress.step(f"pairing and testing {len(a):,} trials"):
            a, b = paired_trials(a, b)  # pair once (and warn once about left-out trials)
            names = ((args.scores_a, args.scores_b) if args.scores_a != args.scores_b
                     else ("A", "B"))
            kw = {"alpha": args.alpha, "names": names}
            zi = z_test(a, b, plo, **kw)
            zd = z_test(a, b, plo, variance="dependent", **kw)
            mc = {t: mcnemar_test(a, b, plo, trials=t, **kw)
                  for t in ("target", "non-target", "all")}
            notes = [miscalibration_warning(analyze(t, plo=[]), f"the scores of {n}")
                     for t, n in ((a, args.scores_a), (b, args.scores_b))]
    for note in filter(None, notes):
        warnings.warn(note, LlrlabWarning, stacklevel=1)
    if args.json:
        obj = {
            "a": args.scores_a, "b": args.scores_b, "key": args.key,
            "p_target": args.p_target, "c_miss": args.c_miss, "c_fa": args.c_fa,
            "plo": plo, "threshold": -plo, "alpha": args.alpha,
            "n_tar": zi.n_tar, "n_non": zi.n_non,
            "p_miss_a": zi.p_miss_a, "p_fa_a": zi.p_fa_a, "act_dcf_a": zi.dcf_a,
            "p_miss_b": zi.p_miss_b, "p_fa_b": zi.p_fa_b, "act_dcf_b": zi.dcf_b,
            "z_test": _z_dict(zi), "z_test_dependent": _z_dict(zd),
            "mcnemar": {t: _m_dict(r) for t, r in mc.items()},
        }
        out.write(json.dumps(obj) + "\n")
        return 0
    out.write(f"llrlab compare: A = {args.scores_a}, B = {args.scores_b}"
              + (f", key {args.key}" if args.key else "") + "\n")
    out.write(f"operating point: p_target={args.p_target:g} c_miss={args.c_miss:g} "
              f"c_fa={args.c_fa:g}; Bayes threshold {fmt_number(-plo)} on the LLRs; "
              f"{zi.n_tar} target and {zi.n_non} non-target paired trials\n")
    out.write(f"{'':28}{'A':>14}{'B':>14}\n")
    for label, va, vb in (("Pmiss [%]", percent(zi.p_miss_a), percent(zi.p_miss_b)),
                          ("Pfa [%]", percent(zi.p_fa_a), percent(zi.p_fa_b)),
                          ("actual DCF (normalized)", zi.dcf_a, zi.dcf_b)):
        out.write(f"{label:28}{fmt_number(va):>14}{fmt_number(vb):>14}\n")
    for title, r in (("z-test of the DCF difference, independent errors", zi),
                     ("z-test of the DCF difference, paired (dependent) errors", zd)):
        out.write(f"{title} (Bengio & Mariéthoz 2004): z = {r.statistic:.4g}, "
                  f"sd = {r.std:.4g} ({r.estimator_text})\n  {r.verdict}\n")
    for t, r in mc.items():
        what = {"target": "misses", "non-target": "false alarms", "all": "all errors"}[t]
        out.write(f"McNemar, {what}: A errs where B is right on {r.only_a_wrong} trials, B errs "
                  f"where A is right on {r.only_b_wrong} ({r.method})\n  {r.verdict}\n")
    note = opposite_verdicts(mc["all"], zi, zd)
    if note:
        out.write(f"note: {note}\n")
    return 0
