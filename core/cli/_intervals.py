"""``llrlab eval --ci [LEVEL] --bootstrap N --by-speaker``: intervals beside the measures.

``--ci`` adds binomial intervals (:func:`llrlab.core.uncertainty.operating_point_ci`) of
``Pmiss``, ``Pfa`` and actual DCF at the Bayes threshold; ``--bootstrap N`` adds bootstrap
intervals (:func:`llrlab.core.uncertainty.bootstrap_ci`) of EER, Cllr, actual and minimum
DCF, by trial or, with ``--by-speaker``, by model id.  Without these flags nothing changes.
"""

from __future__ import annotations

from ..errors import LlrlabError

__all__ = ["add_interval_args", "interval_lines"]


def add_interval_args(p):
    """Add ``--ci``, ``--ci-method``, ``--bootstrap``, ``--by-speaker`` and ``--seed``."""
    g = p.add_argument_group("confidence intervals")
    g.add_argument("--ci", nargs="?", const=0.95, type=float, metavar="LEVEL",
                   help="binomial confidence intervals of Pmiss, Pfa and actual DCF at the "
                        "Bayes threshold (LEVEL in (0, 1), default 0.95); also the level of "
                        "--bootstrap")
    g.add_argument("--ci-method", choices=("wilson", "normal", "clopper-pearson"),
                   default="wilson",
                   help="interval of the proportions for --ci (default wilson; the DCF "
                        "interval is the MOVER combination, or seed 002's normal one)")
    g.add_argument("--bootstrap", type=int, metavar="N",
                   help="bootstrap intervals of EER, Cllr, actual and minimum DCF from N "
                        "replicates (percentile)")
    g.add_argument("--by-speaker", action="store_true",
                   help="with --bootstrap: resample speakers (model ids) instead of trials "
                        "(needs a score file with ids)")
    g.add_argument("--seed", type=int, default=0,
                   help="seed of the bootstrap (default 0)")


def _requested(args):
    if args.by_speaker and args.bootstrap is None:
        raise LlrlabError("--by-speaker resamples speakers for --bootstrap N; give "
                          "--bootstrap too")
    if args.bootstrap is not None and args.bootstrap < 1:
        raise LlrlabError(f"--bootstrap needs a number of replicates >= 1, got "
                          f"{args.bootstrap}")
    return args.ci is not None or args.bootstrap is not None


def _iv(x):
    """``"estimate [lower, upper]"`` of any interval result."""
    est, lo, hi = (float(v) for v in (x.estimate, x.lower, x.upper))
    return f"{est:.4g} [{lo:.4g}, {hi:.4g}]"


def interval_lines(args, columns):
    """Compute the intervals asked for and return the text lines (empty without flags).

    ``columns`` is a list of ``(trials, summary)``, one per column of the main table (raw,
    then calibrated); each ``summary`` dict gains the keys ``"ci"`` and/or ``"bootstrap"``
    (for ``--json``).
    """
    if not _requested(args):
        return []
    from ..operating_point import plo_from_costs
    from ..uncertainty import bootstrap_ci, check_confidence, operating_point_ci

    level = check_confidence(0.95 if args.ci is None else args.ci)
    plo = float(plo_from_costs(args.p_target, args.c_miss, args.c_fa))
    names = ["raw", "calibrated"][:len(columns)]
    head = f"{'':28}" + "".join(f"{n:>34}" for n in names) if len(columns) > 1 else None
    pct = f"{100 * level:g}%"
    lines = []
    if args.ci is not None:
        cis = []
        for trials, summary in columns:
            ci = operating_point_ci(trials, plo=plo, confidence=level, method=args.ci_method)
            cis.append(ci)
            summary["ci"] = {
                "confidence": level, "method": args.ci_method, "dcf_method": ci.dcf.method,
                "threshold": -plo,
                **{k: [float(x.estimate), float(x.lower), float(x.upper)] for k, x in
                   (("p_miss", ci.p_miss), ("p_fa", ci.p_fa), ("act_dcf", ci.dcf))},
            }
        lines.append(f"{pct} confidence intervals ({args.ci_method}; {cis[0].dcf.method} for "
                     f"the DCF) at the Bayes threshold {-plo:.6g}:")
        if head:
            lines.append(head)
        for label, get in (("Pmiss", lambda c: c.p_miss), ("Pfa", lambda c: c.p_fa),
                           ("actual DCF (normalized)", lambda c: c.dcf)):
            lines.append(f"{label:28}" + "".join(f"{_iv(get(c)):>34}" for c in cis))
    if args.bootstrap is not None:
        by = "speaker" if args.by_speaker else "trial"
        boots = []
        for trials, summary in columns:
            b = bootstrap_ci(trials, plo=plo, n_boot=args.bootstrap, confidence=level, by=by,
                             seed=args.seed)
            boots.append(b)
            summary["bootstrap"] = {
                "confidence": level, "method": b.method, "by": by, "n_boot": b.n_boot,
                "n_used": b.n_used, "n_dropped": b.n_dropped, "seed": args.seed,
                **{k: [b.interval(k).estimate, b.interval(k).lower, b.interval(k).upper]
                   for k in ("eer", "cllr", "act_dcf", "min_dcf")},
            }
        lines.append(f"{pct} bootstrap intervals (percentile, {boots[0].n_used} of "
                     f"{args.bootstrap} replicates by {by}, seed {args.seed}):")
        if head:
            lines.append(head)
        for key, label in (("eer", "EER (ROCCH)"), ("cllr", "Cllr [bits]"),
                           ("act_dcf", "actual DCF (normalized)"),
                           ("min_dcf", "minimum DCF (normalized)")):
            lines.append(f"{label:28}" + "".join(f"{_iv(b.interval(key)):>34}" for b in boots))
    return lines
