"""``llrlab compare``: is system A significantly better than system B on the same trials?

``llrlab compare SCORES_A SCORES_B KEY`` thresholds both systems' LLRs at the Bayes threshold
of the operating point, prints their error rates and DCFs, seed 002's z-test of the DCF
difference (eq. 3.32, and eq. 3.33 from the disagreeing trials) and McNemar's test of the
paired decisions (on the target trials, the non-target trials and all trials), each with a
one-sentence verdict.  Trials are paired by (model, segment) id (by position for files
without ids).  ``--json`` prints one object.
"""

from __future__ import annotations

import json

from ._common import StderrProgress, fmt_number, load_trials_arg, operating_point_args

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
            "difference": r.difference, "significant": r.significant, "verdict": r.verdict}


def _m_dict(r):
    return {"statistic": r.statistic, "p_value": r.p_value, "method": r.method,
            "a_only": r.a_only, "b_only": r.b_only, "both_right": r.both_right,
            "both_wrong": r.both_wrong, "significant": r.significant, "verdict": r.verdict}


def _cmd_compare(args, out):
    from ..operating_point import plo_from_costs
    from ..significance import mcnemar_test, paired_trials, z_test

    progress = StderrProgress(getattr(args, "err", None), quiet=args.quiet or args.json)
    key = [args.key] if args.key else []
    a = load_trials_arg([args.scores_a, *key], "compare", progress)
    b = load_trials_arg([args.scores_b, *key], "compare", progress)
    progress.done()
    plo = float(plo_from_costs(args.p_target, args.c_miss, args.c_fa))
    a, b = paired_trials(a, b)  # pair once (and warn once about left-out trials)
    names = ((args.scores_a, args.scores_b) if args.scores_a != args.scores_b
             else ("A", "B"))
    kw = {"alpha": args.alpha, "names": names}
    zi = z_test(a, b, plo, **kw)
    zd = z_test(a, b, plo, variance="dependent", **kw)
    mc = {t: mcnemar_test(a, b, plo, trials=t, **kw) for t in ("target", "non-target", "all")}
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
              f"c_fa={args.c_fa:g}; Bayes threshold {-plo:.6g} on the LLRs; "
              f"{zi.n_tar} target and {zi.n_non} non-target paired trials\n")
    out.write(f"{'':28}{'A':>14}{'B':>14}\n")
    for label, va, vb in (("Pmiss", zi.p_miss_a, zi.p_miss_b), ("Pfa", zi.p_fa_a, zi.p_fa_b),
                          ("actual DCF (normalized)", zi.dcf_a, zi.dcf_b)):
        out.write(f"{label:28}{fmt_number(va):>14}{fmt_number(vb):>14}\n")
    for title, r in (("z-test, independent (seed 002 eq. 3.32)", zi),
                     ("z-test, dependent (seed 002 eq. 3.33)", zd)):
        out.write(f"{title}: z = {r.statistic:.4g}, sd = {r.std:.4g}\n  {r.verdict}\n")
    for t, r in mc.items():
        what = {"target": "misses", "non-target": "false alarms", "all": "all errors"}[t]
        out.write(f"McNemar, {what}: {r.a_only} trials only B errs, {r.b_only} only A errs "
                  f"({r.method})\n  {r.verdict}\n")
    return 0
