"""``llrlab eval --dask [SCHEDULER]``: the evaluation of ``llrlab eval`` computed on Dask.

The same table and the same ``--json`` object as the in-memory path, from
:func:`~llrlab.core.scale.analyze_dask`, exact at any operating point: the operating point of
``--p-target``/``--c-miss``/``--c-fa`` is tabulated in the partition summaries (so the sorted
partitions need not be kept).  SCORES is a Parquet file or directory, or
an HDF5 score file with its KEY; SCHEDULER is ``local`` (the default: Dask's threaded
scheduler, out of core) or the address of a ``dask.distributed`` scheduler.
``--condition-weights`` / ``--select-conditions`` use the trials' own conditions (Parquet
``condition`` column, HDF5 ``/conditions``); ``--calibrate-on DEV [KEY]`` trains out of core
(see :mod:`llrlab.core.scale.calibration`), ``--model`` applies a saved calibration.
"""

from __future__ import annotations

from ..errors import LlrlabError

__all__ = ["eval_dask"]

_UNSUPPORTED = (("conditions", "--conditions (use a condition column or /conditions)"),
                ("by_condition", "--by-condition"), ("ci", "--ci"),
                ("bootstrap", "--bootstrap"), ("by_speaker", "--by-speaker"))


def _check_options(args):
    for attr, name in _UNSUPPORTED:
        if getattr(args, attr, None):
            raise LlrlabError(f"{name} is not available with --dask")


def _weighted(data, args, client):
    from ._frame import ScoreSet

    if not (args.condition_weights or args.select_conditions):
        return data
    from ..cli._conditions import _select, _spec
    from .conditions import condition_weights_dask

    cw = condition_weights_dask(data, _spec(args), select=_select(args), client=client)
    return ScoreSet(cw.scores.frame, cw.scores.source)


def _plo(args):
    from ..operating_point import plo_from_costs

    return float(plo_from_costs(args.p_target, args.c_miss, args.c_fa))


def _summary(a, args):
    return a.summary(args.p_target, args.c_miss, args.c_fa), a.at(_plo(args))


def eval_dask(args, out):
    """The ``eval`` subcommand on Dask (``args`` as parsed by ``llrlab eval``)."""
    from ..calibration import load_calibrator
    from ..cli.evaluate import write_report
    from ._dask import scheduler_of
    from .analysis import analyze_dask
    from .calibration import fit_calibrator_dask
    from .readers import open_scores

    _check_options(args)
    scheduler = None if args.dask in (None, "local") else args.dask
    client, _ = scheduler_of(scheduler)
    client = None if client == "threads" else client
    data = _weighted(open_scores(args.scores, args.key), args, client)
    cal, what = None, ""
    if args.model:
        cal = load_calibrator(args.model)
        if cal.n_systems != 1:
            raise LlrlabError(f"{args.model}: a fusion of {cal.n_systems} systems cannot "
                              f"calibrate one score set; use 'llrlab apply'")
        what = f"the calibration in {args.model}"
    elif args.calibrate_on:
        if not 1 <= len(args.calibrate_on) <= 2:
            raise LlrlabError(f"--calibrate-on takes DEV KEY, or one labelled file; got "
                              f"{len(args.calibrate_on)} files")
        method = args.method or "affine"
        prior = 0.5 if args.prior is None else args.prior
        dev = open_scores(*args.calibrate_on)  # unweighted, as in memory
        cal = fit_calibrator_dask(dev, method=method, prior=prior, client=client)
        at = "" if method == "pav" else f", prior {prior:g}"
        what = f"{method} calibration trained on {args.calibrate_on[0]}{at}"
    # the operating point is tabulated: exact without keeping the sorted partitions
    a = analyze_dask(data, plo=[_plo(args)], client=client, keep_sorted=False)
    summary, op = _summary(a, args)
    after = None
    if cal is not None:
        b = analyze_dask(data, plo=[_plo(args)], client=client, transform=cal.apply,
                         keep_sorted=False)
        after, op_after = _summary(b, args)
    for s in (summary, after):
        if s is not None and (args.condition_weights or args.select_conditions):
            s["condition_weights"] = args.condition_weights or "equal"
            if args.select_conditions:
                from ..cli._conditions import _select

                s["selected_conditions"] = _select(args)
    write_report(out, args, a, summary, op, cal=cal, what=what, after=after,
                 op_after=op_after if after else None, note=a.note)
    return 0
