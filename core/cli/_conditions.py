"""``llrlab eval`` options for condition-weighted pooling (van Leeuwen 2008).

``--conditions FILE`` joins a ``model segment condition`` file to the trials (labelled files
with a condition column need none); ``--condition-weights {equal,pooled,NAME=W,...}`` makes
the main table report the condition-weighted pool; ``--select-conditions A,B`` pools only
some conditions; ``--by-condition`` adds a table with one column per condition, the weighted
pool and the plain pool of all (selected) trials.  See :mod:`llrlab.core.conditions`.
"""

from __future__ import annotations

from ..errors import DataError
from ._common import fmt_number, percent

__all__ = ["add_condition_args", "by_condition_table", "condition_report",
           "conditions_for_eval", "weighted_for_eval", "weighting_line"]


def add_condition_args(p):
    g = p.add_argument_group("conditions (condition-weighted pooling, van Leeuwen 2008)")
    g.add_argument("--conditions", metavar="FILE",
                   help="'model segment condition' file joined to the trials (not needed "
                        "for a labelled file with a condition column, or HDF5 files with "
                        "/conditions)")
    g.add_argument("--condition-weights", metavar="SPEC",
                   help="pool the conditions with weights: 'equal' (each condition counts "
                        "the same), 'pooled' (each trial counts once) or NAME=W,NAME=W,...; "
                        "the main table then reports the weighted pool")
    g.add_argument("--select-conditions", metavar="NAME,...",
                   help="pool only these conditions (comma-separated)")
    g.add_argument("--by-condition", action="store_true",
                   help="add a table per condition with the weighted pool (--condition-"
                        "weights, default equal) and the plain pool of all trials")


def _active(args):
    return bool(args.condition_weights or args.by_condition or args.select_conditions)


def _spec(args):
    from ..conditions import parse_condition_weights

    try:
        return parse_condition_weights(args.condition_weights or "equal")
    except DataError as exc:
        raise DataError(f"--condition-weights: {exc}") from None


def _select(args):
    if not args.select_conditions:
        return None
    names = [s.strip() for s in args.select_conditions.split(",") if s.strip()]
    if not names:
        raise DataError("--select-conditions: no condition named")
    return names


def conditions_for_eval(trials, args, progress=None):
    """The trials with conditions attached (``--conditions``), checked for the options used.

    Their ``source`` becomes the file that holds the conditions, so that errors about
    conditions name it.
    """
    if not (args.conditions or _active(args)):
        return trials
    where = args.conditions or trials.source
    if args.conditions:
        from ..io import attach_conditions

        trials = attach_conditions(trials, args.conditions, progress=progress)
    elif _active(args) and trials.conditions is None:
        raise DataError(f"{trials.source or args.scores}: the trials have no conditions; give "
                        f"--conditions FILE ('model segment condition') or a labelled file "
                        f"with a condition column")
    if _active(args):
        _spec(args)  # report a malformed specification before any computation
        _select(args)
    return trials.with_source(where)


def weighted_for_eval(trials, args):
    """The trials the main table is computed from: condition-weighted if asked for."""
    if not (args.condition_weights or args.select_conditions):
        return trials
    from ..conditions import condition_weights

    return condition_weights(trials, _spec(args), select=_select(args)).trials


#: The text table shows at most this many conditions (the largest); --json gives all.
MAX_CONDITION_COLUMNS = 20

_TABLE = [
    ("n_tar", "target trials"),
    ("n_non", "non-target trials"),
    ("p_miss", "Pmiss (actual) [%]"),
    ("p_fa", "Pfa (actual) [%]"),
    ("act_dcf", "actual DCF (normalized)"),
    ("min_dcf", "minimum DCF (normalized)"),
    ("eer", "EER (ROCCH) [%]"),
    ("cllr", "Cllr [bits]"),
    ("min_cllr", "min Cllr [bits]"),
]


def by_condition_table(trials, args, plo):
    """``(lines, summary)``: the per-condition table and its JSON object."""
    from ..conditions import by_condition

    spec = _spec(args)
    r = by_condition(trials, spec, select=_select(args), plo=plo, grid=[plo])
    s = r.summary()
    names = r.conditions.tolist()
    hidden = 0
    if len(names) > MAX_CONDITION_COLUMNS:  # the largest conditions, in their usual order
        size = {n: s["conditions"][n]["n_tar"] + s["conditions"][n]["n_non"] for n in names}
        keep = set(sorted(names, key=lambda n: -size[n])[:MAX_CONDITION_COLUMNS])
        hidden = len(names) - len(keep)
        names = [n for n in names if n in keep]
    width = max([14] + [len(n) + 2 for n in names])
    cols = [s["conditions"][n] for n in names] + [s["weighted"], s["unweighted"]]
    head = "".join(f"{n:>{width}}" for n in names) + f"{'weighted':>{width}}" \
        + f"{'all trials':>{width}}"
    label = "equal" if spec == "equal" else "pooled" if spec == "pooled" else \
        args.condition_weights
    lines = [f"by condition (weights: {label}; weighted pool as in van Leeuwen 2008):",
             f"{'':28}{head}"]
    w = r.weights
    if w.spec == "pooled" or not (w.w_tar == w.w_non).all():
        rows = [("w_tar", "weight in Pmiss"), ("w_non", "weight in Pfa")]
    else:
        rows = [("w_tar", "weight")]
    rows += [("beta_tar", "trial weight (targets)"), ("beta_non", "trial weight (non-t.)")]
    for key, text in rows:
        # no cells under "weighted" and "all trials" (and no trailing spaces)
        lines.append(f"{text:28}" + "".join(f"{fmt_number(c[key]):>{width}}"
                                            for c in cols[:-2]))
    for key, text in _TABLE:
        shown = [percent(c[key]) if key in ("p_miss", "p_fa", "eer") else c[key]
                 for c in cols]
        lines.append(f"{text:28}" + "".join(f"{fmt_number(v):>{width}}" for v in shown))
    if hidden:
        lines.append(f"(the {MAX_CONDITION_COLUMNS} largest of {len(names) + hidden} conditions "
                     f"are shown; --json gives every condition)")
    return lines, s


def condition_report(trials, args, summary):
    """Add the condition keys to ``summary`` (JSON) and return the lines to print."""
    if not _active(args):
        return []
    from ..operating_point import plo_from_costs

    lines = []
    if args.condition_weights or args.select_conditions:
        summary["condition_weights"] = args.condition_weights or "equal"
        if args.select_conditions:
            summary["selected_conditions"] = _select(args)
    if args.by_condition:
        plo = float(plo_from_costs(args.p_target, args.c_miss, args.c_fa))
        lines, summary["by_condition"] = by_condition_table(trials, args, plo)
    return lines


def weighting_line(args):
    """The line saying that the main table is a condition-weighted pool ('' if it is not)."""
    if not (args.condition_weights or args.select_conditions):
        return ""
    sel = f", conditions {args.select_conditions}" if args.select_conditions else ""
    return (f"trials pooled with condition weights {args.condition_weights or 'equal'}"
            f"{sel} (van Leeuwen 2008)\n")
