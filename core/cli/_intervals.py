"""``llrlab eval --ci [LEVEL] --bootstrap N --by-speaker``: intervals beside the measures.

``--ci`` adds binomial intervals (:func:`llrlab.core.uncertainty.operating_point_ci`) of
``Pmiss``, ``Pfa`` and actual DCF at the Bayes threshold; ``--bootstrap N`` adds bootstrap
intervals (:func:`llrlab.core.uncertainty.bootstrap_ci`; BCa unless ``--bootstrap-method``)
of EER, Cllr, actual and minimum DCF, by trial or, with ``--by-speaker``, by model id.  The
text names the interval kinds and the variance of the binomial intervals (binomial, or per
condition for weighted trials).  Without these flags nothing changes.
"""

from __future__ import annotations

from .._interval_kinds import BOOTSTRAP_METHODS, BOOTSTRAP_TEXT, VARIANCE_TEXT
from ..errors import LlrlabError
from ._common import requires

__all__ = ["add_interval_args", "check_interval_args", "interval_lines"]

#: interval rows shown in percent in the text table (fractions in --json)
_PERCENT = {"p_miss", "p_fa", "eer"}


def add_interval_args(p):
    """Add ``--ci``, ``--ci-method``, ``--bootstrap``, ``--bootstrap-method``,
    ``--by-speaker`` and ``--seed``."""
    g = p.add_argument_group("confidence intervals")
    g.add_argument("--ci", nargs="?", const=0.95, type=float, metavar="LEVEL",
                   help="binomial confidence intervals of Pmiss, Pfa and actual DCF at the "
                        "Bayes threshold (LEVEL in (0, 1), default 0.95); also the level of "
                        "--bootstrap")
    g.add_argument("--ci-method", choices=("wilson", "normal", "clopper-pearson"),
                   help="interval of the proportions for --ci (default wilson; the DCF "
                        "interval is their MOVER combination, or the normal one of Bengio & "
                        "Mariéthoz 2004); weighted trials use the variance per condition "
                        "(Cochran 1977)")
    g.add_argument("--bootstrap", type=int, metavar="N",
                   help="bootstrap intervals of EER, Cllr, actual and minimum DCF from N "
                        "replicates (BCa of Efron 1987 unless --bootstrap-method)")
    g.add_argument("--bootstrap-method", choices=BOOTSTRAP_METHODS,
                   help="kind of the bootstrap intervals: bca (default; bias-corrected and "
                        "accelerated), percentile (lies too low for EER and min DCF, which "
                        "choose a threshold on the same trials) or basic; measured coverage "
                        "in docs/conventions.md")
    g.add_argument("--by-speaker", action="store_true",
                   help="with --bootstrap: resample speakers (model ids) instead of trials "
                        "(needs a score file with ids)")
    g.add_argument("--seed", type=int,
                   help="seed of the bootstrap (default 0)")


def check_interval_args(args):
    """Refuse interval options that would be ignored (before any file is read)."""
    boot = args.bootstrap is not None
    requires(args.by_speaker, boot, "--by-speaker", "--bootstrap N",
             "it resamples speakers for the bootstrap")
    requires(args.seed is not None, boot, "--seed", "--bootstrap N",
             "it seeds the bootstrap")
    requires(args.bootstrap_method is not None, boot, "--bootstrap-method", "--bootstrap N",
             "it chooses the kind of the bootstrap intervals")
    requires(args.ci_method is not None, args.ci is not None, "--ci-method", "--ci",
             "it chooses the binomial intervals of --ci")
    if boot and args.bootstrap < 1:
        raise LlrlabError(f"--bootstrap needs a number of replicates >= 1, got "
                          f"{args.bootstrap}")


def _requested(args):
    check_interval_args(args)
    return args.ci is not None or args.bootstrap is not None


def _iv(x, key=None):
    """``"estimate [lower, upper]"`` of any interval result (percent for error rates)."""
    scale = 100.0 if key in _PERCENT else 1.0
    est, lo, hi = (scale * float(v) for v in (x.estimate, x.lower, x.upper))
    return f"{est:.4g} [{lo:.4g}, {hi:.4g}]"


def interval_lines(args, columns, progress=None):
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
    method = args.ci_method or "wilson"
    seed = 0 if args.seed is None else args.seed
    kind = args.bootstrap_method or "bca"
    plo = float(plo_from_costs(args.p_target, args.c_miss, args.c_fa))
    names = ["raw", "calibrated"][:len(columns)]
    head = f"{'':28}" + "".join(f"{n:>34}" for n in names) if len(columns) > 1 else None
    pct = f"{100 * level:g}%"
    lines = []
    if args.ci is not None:
        cis = []
        for trials, summary in columns:
            ci = operating_point_ci(trials, plo=plo, confidence=level, method=method)
            cis.append(ci)
            summary["ci"] = {
                "confidence": level, "method": method, "dcf_method": ci.dcf.method,
                "variance": ci.variance, "threshold": -plo,
                **{k: [float(x.estimate), float(x.lower), float(x.upper)] for k, x in
                   (("p_miss", ci.p_miss), ("p_fa", ci.p_fa), ("act_dcf", ci.dcf))},
            }
        variances = ", ".join(dict.fromkeys(VARIANCE_TEXT[c.variance] for c in cis))
        lines.append(f"{pct} confidence intervals ({method}; {cis[0].dcf.method} for "
                     f"the DCF; {variances}) at the Bayes threshold {-plo:.6g}:")
        if head:
            lines.append(head)
        for key, label, get in (("p_miss", "Pmiss [%]", lambda c: c.p_miss),
                                ("p_fa", "Pfa [%]", lambda c: c.p_fa),
                                ("act_dcf", "actual DCF (normalized)", lambda c: c.dcf)):
            lines.append(f"{label:28}" + "".join(f"{_iv(get(c), key):>34}" for c in cis))
    if args.bootstrap is not None:
        by = "speaker" if args.by_speaker else "trial"
        boots = []
        for i, (trials, summary) in enumerate(columns):
            what = f"bootstrap: {args.bootstrap} replicates by {by} of {len(trials):,} trials"
            with _step(progress, what + (" (calibrated)" if i else "")):
                b = bootstrap_ci(trials, plo=plo, n_boot=args.bootstrap, confidence=level,
                                 by=by, seed=seed, method=kind)
            boots.append(b)
            summary["bootstrap"] = {
                "confidence": level, "method": b.method, "by": by, "n_boot": b.n_boot,
                "n_used": b.n_used, "n_dropped": b.n_dropped, "seed": seed,
                **{k: [b.interval(k).estimate, b.interval(k).lower, b.interval(k).upper]
                   for k in ("eer", "cllr", "act_dcf", "min_dcf")},
            }
        lines.append(f"{pct} bootstrap intervals ({BOOTSTRAP_TEXT[kind]}; {boots[0].n_used} "
                     f"of {args.bootstrap} replicates by {by}, seed {seed}):")
        if head:
            lines.append(head)
        for key, label in (("eer", "EER (ROCCH) [%]"), ("cllr", "Cllr [bits]"),
                           ("act_dcf", "actual DCF (normalized)"),
                           ("min_dcf", "minimum DCF (normalized)")):
            lines.append(f"{label:28}" + "".join(f"{_iv(b.interval(key), key):>34}"
                                                 for b in boots))
    return lines


def _step(progress, message):
    if progress is None:
        import contextlib

        return contextlib.nullcontext()
    return progress.step(message)
