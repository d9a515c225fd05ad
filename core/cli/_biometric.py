"""``llrlab eval --biometric``: the threshold measures of the scores, named as the field names
them (:mod:`llrlab.core.threshold`, :mod:`llrlab.core.auc`).

``--biometric`` adds a table of the raw scores' threshold-sweep EER with its threshold, FNMR
at each FMR of ``--fmr`` (FMR100, FMR1000, FMR10000 by default), ZeroFMR, ZeroFNMR and the
AUC with DeLong's interval; ``--dev DEV [KEY]`` adds the HTER on the evaluated trials at a
threshold fixed on DEV (``--hter-at eer`` or an FMR); ``--threshold T [T ...]`` the errors at
score thresholds.  ``--json`` gets the same numbers as keys (fractions, like the API).
"""

from __future__ import annotations

import argparse
import math

from ..errors import LlrlabError
from ._common import fmt_number, load_trials_arg, percent, requires

__all__ = ["add_biometric_args", "biometric_lines", "biometric_summary",
           "check_biometric_args", "split_dev", "wants_biometric"]


def _hter_at(text):
    """``--hter-at``: ``eer`` or an FMR in [0, 1]."""
    if text.strip().lower() == "eer":
        return "eer"
    try:
        x = float(text)
    except ValueError:
        x = math.nan
    if not 0.0 <= x <= 1.0:
        raise argparse.ArgumentTypeError(f"takes 'eer' or a dev FMR in [0, 1] (e.g. 0.001), "
                                         f"got {text!r}")
    return x


def add_biometric_args(p):
    g = p.add_argument_group("threshold measures (biometrics; of the raw scores)")
    g.add_argument("--biometric", action="store_true",
                   help="add the threshold-sweep EER with its threshold, FNMR at FMR "
                        "(FMR100, FMR1000, FMR10000), ZeroFMR, ZeroFNMR and the AUC with "
                        "DeLong's 95%% interval (--ci LEVEL sets the level)")
    g.add_argument("--fmr", nargs="+", type=float, metavar="X",
                   help="FMR targets of the FNMR-at-FMR rows (default 0.01 0.001 0.0001); "
                        "implies --biometric")
    g.add_argument("--eer-rule", choices=("fvc", "closest"),
                   help="threshold of the threshold-sweep EER: 'fvc' (default; of the two "
                        "thresholds around the crossing of FMR and FNMR, the one with the "
                        "smaller sum; FVC2000, pyeer) or 'closest' (the smaller |FMR - FNMR|; "
                        "bob.measure); implies --biometric")
    g.add_argument("--dev", nargs="+", metavar=("DEV", "KEY"),
                   help="dev trials: add the HTER of the evaluated trials at a threshold "
                        "fixed on DEV (see --hter-at); implies --biometric")
    g.add_argument("--hter-at", type=_hter_at, metavar="{eer,FMR}",
                   help="where the HTER threshold is fixed on --dev: 'eer' (default; dev's "
                        "threshold-sweep EER) or a dev FMR such as 0.001 (dev's FNMR at that "
                        "FMR)")
    g.add_argument("--threshold", nargs="+", type=float, metavar="T",
                   help="also report the errors at these score thresholds (accept when "
                        "score >= T)")


def split_dev(args):
    """``--dev DEV KEY SCORES KEY`` placed before the scores takes them too (argparse cannot
    tell where its list ends): four names are split back, as for ``--calibrate-on``."""
    dev = args.dev
    if dev is not None and len(dev) == 4 and args.scores is None:
        args.dev, args.scores, args.key = dev[:2], dev[2], dev[3]
    elif dev is not None and len(dev) > 2:
        placed = " (it came before the scores, so it took them too)" \
            if args.scores is None else ""
        raise LlrlabError(f"--dev takes DEV [KEY], got {len(dev)} files{placed}; write: "
                          f"llrlab eval SCORES [KEY] --dev DEV [KEY]")


def wants_biometric(args):
    """Whether the threshold table is asked for (``--biometric`` or an option implying it)."""
    return bool(getattr(args, "biometric", False) or args.fmr or args.eer_rule
                or args.dev)


def check_biometric_args(args):
    """Refuse options that would be ignored or cannot work (before any file is read)."""
    requires(args.hter_at is not None, args.dev is not None, "--hter-at", "--dev DEV [KEY]",
             "it fixes the HTER threshold on the dev trials")
    for x in args.fmr or ():
        if not 0.0 <= x <= 1.0:
            raise LlrlabError(f"--fmr takes FMR targets in [0, 1] (0.01 for FMR100), got {x:g}")
    for t in args.threshold or ():
        if math.isnan(t):
            raise LlrlabError("--threshold takes numbers (inf and -inf allowed), got nan")
    if getattr(args, "dask", None) is not None and (wants_biometric(args) or args.threshold):
        raise LlrlabError("the threshold measures (--biometric, --dev, --threshold) are not "
                          "computed on Dask; leave out --dask, or the threshold options")


def _level(args):
    return 0.95 if getattr(args, "ci", None) is None else float(args.ci)


def _key(fmr):
    from ..threshold import fmr_label

    return fmr_label(fmr).lower().replace("zerofmr", "zero_fmr")


def biometric_summary(trials, args, progress=None):
    """The threshold measures of ``trials`` as a dict of JSON keys (fractions), or {}."""
    from ..threshold import DEFAULT_FMR, counts_at, hter, threshold_summary

    out = {}
    if wants_biometric(args):
        rule = args.eer_rule or "fvc"
        r = threshold_summary(trials, fmr=args.fmr or DEFAULT_FMR, rule=rule,
                              confidence=_level(args))
        e = r.eer
        out.update({"eer_sweep": e.eer, "eer_sweep_low": e.eer_low,
                    "eer_sweep_high": e.eer_high, "eer_sweep_threshold": e.threshold,
                    "eer_sweep_rule": e.rule})
        c = r.fnmr_at_fmr
        for i, x in enumerate(r.fmr.tolist()):
            k = _key(x)
            out.update({k: float(c.p_miss[i]), f"{k}_threshold": float(c.threshold[i]),
                        f"{k}_fmr": float(c.p_fa[i])})
        out.update({"zero_fmr": float(r.zero_fmr.p_miss),
                    "zero_fmr_threshold": float(r.zero_fmr.threshold),
                    "zero_fnmr": float(r.zero_fnmr.p_fa),
                    "zero_fnmr_threshold": float(r.zero_fnmr.threshold),
                    "auc": r.auc.auc, "auc_lower": r.auc.lower, "auc_upper": r.auc.upper,
                    "auc_confidence": r.auc.confidence})
    if args.dev is not None:
        dev = load_trials_arg(args.dev, "--dev", progress)
        at = args.hter_at or "eer"
        h = (hter(dev, trials, rule=args.eer_rule or "fvc") if at == "eer"
             else hter(dev, trials, criterion="fmr", fmr=at))
        out.update({"hter": h.hter, "hter_threshold": h.threshold,
                    "hter_criterion": h.criterion, "hter_dev_fmr_target": h.fmr,
                    "hter_eval_fnmr": float(h.eval.p_miss), "hter_eval_fmr": float(h.eval.p_fa),
                    "hter_dev_fnmr": float(h.dev.p_miss), "hter_dev_fmr": float(h.dev.p_fa)})
    if args.threshold:
        c = counts_at(trials, threshold=args.threshold)
        out["at_threshold"] = [
            {"threshold": float(t), "misses": int(m), "false_alarms": int(f),
             "fnmr": float(pm), "fmr": float(pf)}
            for t, m, f, pm, pf in zip(c.threshold, c.misses, c.false_alarms, c.p_miss,
                                       c.p_fa, strict=True)]
    return out


def _pct(v):
    return fmt_number(percent(v))


def biometric_lines(args, b, n_tar, n_non):
    """Text lines of the threshold measures in ``b`` (from :func:`biometric_summary`)."""
    if not b:
        return []
    lines = []

    def row(label, value, threshold="", note=""):
        lines.append(f"{label:36}{value:>12}{threshold:>14}" + (f"  {note}" if note else ""))

    if "eer_sweep" in b:
        level = f"{100 * b['auc_confidence']:g}%"
        lines.append("threshold measures of the scores (accept when score >= threshold; "
                     "FNMR = Pmiss, FMR = Pfa):")
        row("", "value", "threshold")
        row("EER (threshold sweep) [%]", _pct(b["eer_sweep"]),
            fmt_number(b["eer_sweep_threshold"]),
            f"[EER_low, EER_high] = [{_pct(b['eer_sweep_low'])}, "
            f"{_pct(b['eer_sweep_high'])}]%, rule {b['eer_sweep_rule']}")
        for x in args.fmr or (0.01, 0.001, 0.0001):
            k = _key(x)
            if k == "zero_fmr":
                continue
            row(f"{k.upper()} (FNMR at FMR <= {100 * x:g}%) [%]", _pct(b[k]),
                fmt_number(b[f"{k}_threshold"]),
                f"FMR {_pct(b[f'{k}_fmr'])}%" + (
                    "; fewer than 30 false matches allowed"
                    if x * n_non < 30 else ""))
        row("ZeroFMR (FNMR at FMR = 0) [%]", _pct(b["zero_fmr"]),
            fmt_number(b["zero_fmr_threshold"]))
        row("ZeroFNMR (FMR at FNMR = 0) [%]", _pct(b["zero_fnmr"]),
            fmt_number(b["zero_fnmr_threshold"]))
        row(f"AUC [{level} DeLong CI]", fmt_number(b["auc"]), "",
            f"[{fmt_number(b['auc_lower'])}, {fmt_number(b['auc_upper'])}]")
    if "hter" in b:
        where = ("dev's threshold-sweep EER" if b["hter_criterion"] == "eer"
                 else f"dev's FMR <= {100 * b['hter_dev_fmr_target']:g}%")
        lines.append(f"HTER at the threshold of {where} on {args.dev[0]}:")
        row("HTER (evaluated trials) [%]", _pct(b["hter"]), fmt_number(b["hter_threshold"]),
            f"FNMR {_pct(b['hter_eval_fnmr'])}%, FMR {_pct(b['hter_eval_fmr'])}% "
            f"(dev: FNMR {_pct(b['hter_dev_fnmr'])}%, FMR {_pct(b['hter_dev_fmr'])}%)")
    for c in b.get("at_threshold", ()):
        lines.append(f"at score threshold {fmt_number(c['threshold'])}: {c['misses']:,} of "
                     f"{n_tar:,} targets rejected (FNMR {_pct(c['fnmr'])}%), "
                     f"{c['false_alarms']:,} of {n_non:,} non-targets accepted "
                     f"(FMR {_pct(c['fmr'])}%)")
    return lines
