"""Benchmark: llrlab calibration (affine, fusion, PAV) against scikit-learn and scipy.

Synthetic Gaussian scores, 1 target per 10 non-targets, deliberately miscalibrated
(``3 x + 7`` with ``x`` the well-calibrated score), fixed seeds.  On the same data in one run:

1. **Affine calibration** at training priors 0.5 and 0.01: ``AffineCalibrator.fit`` (the user
   call: optimizer plus training report with Cllr and minCllr) and its kernel
   ``_logreg.fit_linear``, against scikit-learn's ``LogisticRegression(C=inf, lbfgs,
   tol=1e-10)`` with sample weights ``p/T`` (targets) and ``(1-p)/N`` (non-targets), times n,
   whose intercept is ``offset + logit p``; and against ``scipy.optimize.minimize(BFGS)`` with
   the analytic gradient (``gtol=1e-10``) on the same objective.
2. **Fusion of 3 correlated systems**: ``FusionCalibrator.fit`` against the same references.
3. **PAV** on scores rounded to 2 decimals (ties): ``PAVCalibrator.fit`` and
   ``llrlab.core.pav`` against ``IsotonicRegression(out_of_bounds="clip")`` fitted on
   (score, label), whose LLR is ``logit(fitted p) - logit(T / (T + N))``.

The objective of 1-2 is the prior-weighted cross-entropy

    Ce(p) = p mean_tar softplus(-(llr + logit p)) + (1-p) mean_non softplus(llr + logit p),

computed for every method's parameters by one function (``np.logaddexp``).  ``rel param diff``
is ``max_i |theta_i - ref_i| / |ref_i|`` over (weights..., offset); ``dCe`` is
``(Ce_ref - Ce_llrlab) / Ce_llrlab`` (positive: llrlab reached a lower objective).  Times are
the median of ``--repeats`` runs after one untimed warm-up (whose result is the one compared),
the methods of a row taking turns run by run; ``sk/ll``, ``sp/ll`` are the reference's time
over llrlab's (> 1: llrlab faster).  No timing is asserted.

On small VMs the thread pools of OpenBLAS (numpy, scipy) and OpenMP (scikit-learn) can make
times erratic; ``--threads 1`` pins them all, and llrlab's own chunk threads, to one thread
for a steadier comparison; without it llrlab uses every core for its long passes.

Usage: python bench/bench_calibration.py [--sizes 1e4 1e5 1e6] [--repeats 5] [--quick]
                                         [--threads N]
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

import numpy as np
import scipy
import sklearn
from _timing import interleaved
from scipy.optimize import minimize
from scipy.special import expit, logit
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_info, threadpool_limits

from llrlab.core import Trials, _parallel, pav
from llrlab.core.calibration import AffineCalibrator, FusionCalibrator, PAVCalibrator
from llrlab.core.calibration._logreg import fit_linear
from llrlab.core.errors import LlrlabWarning

#: Above this many trials the repeats are capped (runtime on a 2-core machine).
BIG = 500_000
BIG_REPEATS = 3


# --- data --------------------------------------------------------------------------------------

def split(n):
    t = n // 11
    return t, n - t


def affine_data(n, seed):
    """Scores ``3 x + 7`` where ``x`` is a calibrated LLR / 2 (x ~ N(+-1, 1))."""
    rng = np.random.default_rng(seed)
    t, m = split(n)
    lab = np.r_[np.ones(t, bool), np.zeros(m, bool)]
    x = np.where(lab, 1.0, -1.0) + rng.normal(size=n)
    return 3.0 * x + 7.0, lab


def fusion_data(n, seed):
    """Three systems sharing a common noise term (correlation ~0.6), each miscalibrated."""
    rng = np.random.default_rng(seed)
    t, m = split(n)
    lab = np.r_[np.ones(t, bool), np.zeros(m, bool)]
    common = rng.normal(size=n)
    maps = [(3.0, 7.0), (0.5, -2.0), (-1.5, 1.0)]  # the third system scores targets lower
    sep = [1.0, 0.8, 0.6]
    cols = []
    for (a, b), d in zip(maps, sep, strict=True):
        x = np.where(lab, d, -d) + np.sqrt(0.6) * common + np.sqrt(0.4) * rng.normal(size=n)
        cols.append(a * x + b)
    return np.column_stack(cols), lab


# --- the shared objective and the references ---------------------------------------------------

def ce(llr, lab, p):
    """Prior-weighted cross-entropy ``Ce(p)`` of LLRs, in nats (numerically stable)."""
    lp = logit(p)
    return (p * np.logaddexp(0.0, -(llr[lab] + lp)).mean()
            + (1 - p) * np.logaddexp(0.0, llr[~lab] + lp).mean())


def sample_weights(lab, p):
    t = np.count_nonzero(lab)
    m = lab.size - t
    return np.where(lab, p / t, (1 - p) / m) * lab.size


def sklearn_fit(x, lab, p):
    """Weights and offset from LogisticRegression with the prior sample weights."""
    lr = LogisticRegression(C=np.inf, solver="lbfgs", tol=1e-10, max_iter=10000)
    lr.fit(x, lab, sample_weight=sample_weights(lab, p))
    return np.r_[lr.coef_[0], lr.intercept_[0] - logit(p)], lr.n_iter_[0] >= 10000


def scipy_fit(x, lab, p):
    """Weights and offset by BFGS on Ce(p) with its analytic gradient, from zero."""
    lp = logit(p)
    y = np.where(lab, -1.0, 1.0)  # loss of trial t: softplus(y_t (llr_t + logit p))
    c = np.where(lab, p / np.count_nonzero(lab), (1 - p) / np.count_nonzero(~lab))
    xa = np.column_stack([x, np.ones(x.shape[0])])

    def fun(theta):
        s = y * (xa @ theta + lp)
        return c @ np.logaddexp(0.0, s), xa.T @ (c * y * expit(s))

    res = minimize(fun, np.zeros(xa.shape[1]), jac=True, method="BFGS",
                   options={"gtol": 1e-10, "maxiter": 10000})
    return res.x, not res.success


def max_grad(x, lab, p, theta):
    """``max |dCe / dtheta|`` at ``theta = (weights..., offset)``: how close to the optimum."""
    y = np.where(lab, -1.0, 1.0)
    c = np.where(lab, p / np.count_nonzero(lab), (1 - p) / np.count_nonzero(~lab))
    g = c * y * expit(y * (x @ theta[:-1] + theta[-1] + logit(p)))
    return float(np.max(np.abs(np.r_[x.T @ g, g.sum()])))


def rel_diff(theta, ref):
    return float(np.max(np.abs(theta - ref) / np.abs(ref)))


# --- tables ------------------------------------------------------------------------------------

def linear_rows(name, x, lab, p, repeats, fit_llrlab):
    """One row comparing an llrlab linear fit with sklearn and scipy on (x, lab)."""
    x2 = x if x.ndim == 2 else x[:, None]
    res, t = interleaved({"ll": lambda: fit_llrlab(p), "kernel": lambda: fit_linear(x2, lab, p),
                          "sk": lambda: sklearn_fit(x2, lab, p),
                          "sp": lambda: scipy_fit(x2, lab, p)}, repeats)
    theta, (sk, sk_flag), (sp, sp_flag) = res["ll"], res["sk"], res["sp"]
    t_ll, t_kernel, t_sk, t_sp = t["ll"], t["kernel"], t["sk"], t["sp"]

    def obj(th):
        return ce(x2 @ th[:-1] + th[-1], lab, p)

    c_ll = obj(theta)
    g = [max_grad(x2, lab, p, th) for th in (theta, sk, sp)]
    flags = (" sklearn:max_iter" if sk_flag else "") + (" scipy:not-converged" if sp_flag
                                                         else "")
    return (f"{name:>6} {x.shape[0]:>9,d} {t_ll:>8.4f} {t_kernel:>8.4f} {t_sk:>8.4f} "
            f"{t_sp:>8.4f} {t_sk / t_ll:>6.1f}x {t_sp / t_ll:>6.1f}x "
            f"{rel_diff(theta, sk):>9.1e} {rel_diff(theta, sp):>9.1e} "
            f"{(obj(sk) - c_ll) / c_ll:>+9.1e} {(obj(sp) - c_ll) / c_ll:>+9.1e} "
            f"{g[0]:>7.0e} {g[1]:>7.0e} {g[2]:>7.0e}{flags}")


LINEAR_HEADER = (f"{'prior':>6} {'n':>9} {'llrlab':>8} {'kernel':>8} {'sklearn':>8} "
                 f"{'scipy':>8} {'sk/ll':>7} {'sp/ll':>7} {'rel d sk':>9} {'rel d sp':>9} "
                 f"{'dCe sk':>9} {'dCe sp':>9} {'|g| ll':>7} {'|g| sk':>7} {'|g| sp':>7}")


def affine_table(sizes, reps):
    print("1. Affine calibration (scores 3x+7, 1:10): time [s], time ratios, parameter and "
          "objective differences")
    print(LINEAR_HEADER)
    print("-" * len(LINEAR_HEADER))
    for n in sizes:
        s, lab = affine_data(n, seed=1)
        for p in (0.5, 0.01):
            # a fresh Trials per call: a Trials caches its sort, which a repeated fit of the
            # same object would otherwise get for free (its construction is timed too)
            def fit(p, s=s, lab=lab):
                cal = AffineCalibrator.fit(Trials(s, lab), prior=p)
                return np.array([cal.scale, cal.offset])
            print(linear_rows(f"{p:g}", s, lab, p, reps(n), fit), flush=True)


def fusion_table(sizes, reps):
    print("\n2. Fusion of 3 correlated systems (1:10), prior 0.5: same columns")
    print(LINEAR_HEADER)
    print("-" * len(LINEAR_HEADER))
    for n in sizes:
        x, lab = fusion_data(n, seed=2)
        def fit(p, x=x, lab=lab):  # fresh Trials per call (see affine_table)
            systems = [Trials(x[:, k], lab) for k in range(x.shape[1])]
            cal = FusionCalibrator.fit(systems, prior=p)
            return np.r_[cal.weights, cal.offset]
        print(linear_rows("0.5", x, lab, 0.5, reps(n), fit), flush=True)


def sklearn_pav_llr(s, y):
    """Per-trial LLRs from IsotonicRegression fitted on (score, 0/1 label ``y``)."""
    q = IsotonicRegression(out_of_bounds="clip").fit(s, y).predict(s)
    with np.errstate(divide="ignore"):
        return logit(q) - logit(y.mean())


def pav_row(n, repeats):
    s, lab = affine_data(n, seed=3)
    s = np.round(s, 2)
    y = lab.astype(np.float64)
    res, t = interleaved({
        "cal": lambda: PAVCalibrator.fit(Trials(s, lab)),  # fresh: no cached sort
        "pav": lambda: pav(s, lab),
        "skfit": lambda: IsotonicRegression(out_of_bounds="clip").fit(s, y),
        "sk": lambda: sklearn_pav_llr(s, y)}, repeats)
    ll, sk = res["pav"].trial_llr, res["sk"]
    fin = np.isfinite(ll) & np.isfinite(sk)
    inf = ~fin
    agree = np.count_nonzero(inf & (ll == sk))
    return (f"{n:>9,d} {res['pav'].n_blocks:>7d} {t['cal']:>10.4f} {t['pav']:>8.4f} "
            f"{t['skfit']:>8.4f} {t['sk']:>11.4f} {t['skfit'] / t['cal']:>8.1f}x "
            f"{t['sk'] / t['pav']:>8.1f}x {np.max(np.abs(ll[fin] - sk[fin])):>10.1e} "
            f"{f'{agree}/{np.count_nonzero(inf)}':>10}")


def pav_table(sizes, reps):
    header = (f"{'n':>9} {'blocks':>7} {'PAVCal.fit':>10} {'pav()':>8} {'sk fit':>8} "
              f"{'sk fit+pred':>11} {'fit ratio':>9} {'pav ratio':>9} {'max|dLLR|':>10} "
              f"{'inf agree':>10}")
    print("\n3. PAV (scores 3x+7 rounded to 2 decimals, 1:10): time [s]; fit ratio = sk fit / "
          "PAVCalibrator.fit,\n   pav ratio = sk fit+predict / pav(); max|dLLR| over the "
          "trials finite in both; inf agree = infinite LLRs equal in both / trials infinite "
          "in either")
    print(header)
    print("-" * len(header))
    for n in sizes:
        print(pav_row(n, reps(n)), flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="+", type=float, default=[1e4, 1e5, 1e6])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="smoke run: small sizes, 1 repeat")
    ap.add_argument("--threads", type=int, default=None,
                    help="limit every BLAS / OpenMP pool to this many threads (threadpoolctl); "
                         "default: the libraries' own defaults")
    args = ap.parse_args(argv)
    if args.quick:
        args.sizes, args.repeats = [1e3, 1e4], 1
    sizes = [int(v) for v in args.sizes]

    def reps(n):
        return min(args.repeats, BIG_REPEATS) if n > BIG else args.repeats

    warnings.simplefilter("error", LlrlabWarning)  # none is expected on this data
    if args.threads is not None:  # llrlab's own chunk threads too (LLRLAB_THREADS)
        _parallel.set_threads(args.threads)
    t0 = time.perf_counter()
    with threadpool_limits(limits=args.threads):
        pools = ", ".join([f"{p['internal_api']} {p['num_threads']}"
                           for p in threadpool_info()] + [f"llrlab {_parallel._WORKERS}"])
        affine_table(sizes, reps)
        fusion_table(sizes, reps)
        pav_table(sizes, reps)
    capped = [n for n in sizes if reps(n) < args.repeats]
    print(f"\nTimes: median of {args.repeats} runs after 1 warm-up, methods taking turns"
          + (f" ({BIG_REPEATS} runs at {', '.join(f'{n:,d}' for n in capped)} trials, to keep "
             f"the run short)" if capped else "") + ".")
    print("llrlab = the .fit call (optimizer + training report: Cllr, minCllr); kernel = "
          "_logreg.fit_linear;\nsk/ll, sp/ll = reference time / llrlab .fit time (> 1: llrlab "
          "faster); rel d = max_i |theta_i - ref_i| / |ref_i|\nover (weights, offset); "
          "dCe = (Ce_ref - Ce_llrlab) / Ce_llrlab (> 0: llrlab lower); |g| = max |dCe/dtheta| "
          "at each\nsolution; sklearn = LogisticRegression(C=inf; penalty=None is deprecated "
          "in 1.8+).")
    print(f"machine: {os.cpu_count()} CPUs, numpy {np.__version__}, scipy {scipy.__version__}, "
          f"scikit-learn {sklearn.__version__}; thread pools: {pools}; "
          f"total {time.perf_counter() - t0:.0f} s")

if __name__ == "__main__":
    main()
