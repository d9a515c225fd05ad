"""Uncertainty: binomial intervals at the operating point (they follow a drag) and bootstrap
intervals (computed on request, in the background, and cached)."""

from __future__ import annotations

import param

from .. import compute
from .jobs import LRU, with_notes

__all__ = ["BOOT_CACHE", "CI_CHOICES", "UncertaintyState"]

CI_CHOICES = ("off", "normal", "wilson", "exact")
#: How many bootstrap results (per results and settings) a session keeps.
BOOT_CACHE = 6


class UncertaintyState(param.Parameterized):
    """Interval settings, and the bootstrap of the shown results.

    The dashboard tells this part which results are shown (:meth:`show_for`); ``boot`` then
    holds their bootstrap for the current settings, when one was run.
    """

    ci_method = param.Selector(default="off", objects=list(CI_CHOICES),
                               label="Confidence intervals", doc="""
        Binomial intervals of Pmiss, Pfa and act DCF at the operating point: normal
        (Bengio & Mariéthoz 2004), Wilson (1927), or Clopper & Pearson (1934) 'exact'.""")
    ci_level = param.Number(default=0.95, bounds=(0.5, 0.999), step=0.01,
                            label="Confidence level")
    boot_by = param.Selector(default="trial", objects=["trial", "speaker"],
                             label="Bootstrap by")
    boot_n = param.Integer(default=200, bounds=(20, 5000), step=50,
                           label="Bootstrap replicates")
    boot = param.Parameter(default=None, precedence=-1, doc="""
        role -> BootstrapCI of the shown results and bootstrap settings, or None.""")

    def __init__(self, jobs=None, **params):
        super().__init__(**params)
        self.jobs = jobs
        self._results = None
        self._cache = LRU(BOOT_CACHE)

    # ------------------------------------------------------------------ binomial intervals

    def intervals(self, results, plo):
        """``{role: OperatingPointCI}`` at ``plo`` (from the counts at the Bayes threshold:
        a few binary searches), or None when intervals are off.

        Raises
        ------
        llrlab.core.LlrlabError
            When the counts cannot support an interval.
        """
        if self.ci_method == "off":
            return None
        return {role: compute.op_interval(d.llr, plo, method=self.ci_method,
                                          confidence=self.ci_level)
                for role, d in results.datasets.items()}

    # ------------------------------------------------------------------ bootstrap

    def _key(self, results):
        return (results.key, self.boot_by, int(self.boot_n), round(float(self.ci_level), 12))

    def show_for(self, results):
        """The shown results changed: show their bootstrap for the settings, if cached."""
        self._results = results
        self.boot = None if results is None else self._cache.get(self._key(results))

    @param.depends("boot_by", "boot_n", "ci_level", watch=True)
    def _settings_changed(self):
        if self._results is not None:
            self.boot = self._cache.get(self._key(self._results))

    def current(self, role, plo):
        """``(BootstrapCI or None, fresh)``: the bootstrap of ``role`` for the shown results
        and settings; ``fresh`` is False when its DCFs are for another operating point."""
        b = (self.boot or {}).get(role)
        return b, b is not None and b.plo == plo

    def run_bootstrap(self, plo):
        """Bootstrap intervals of Cllr, minDCF (at ``plo``) and EER of every shown dataset,
        in the background (cached per results and settings)."""
        res = self._results
        if res is None or not res.datasets:
            self.jobs.status.error = "load data before asking for bootstrap intervals"
            return
        key = self._key(res)
        hit = self._cache.get(key)
        if hit is not None and all(b.plo == plo for b in hit.values()):
            self.boot = hit
            return
        n, level, by = int(self.boot_n), float(self.ci_level), self.boot_by
        datasets = dict(res.datasets)

        def resample(progress):
            out = {}
            for i, (role, d) in enumerate(datasets.items()):
                progress(i / len(datasets), f"bootstrap of {d.label} ({n} replicates, "
                                            f"by {by})")
                out[role] = compute.bootstrap(d, plo, n_boot=n, confidence=level, by=by)
            return out

        def done(result):
            out, notes = result
            self._cache.put(key, out)
            if self._results is not None and self._key(self._results) == key:
                self.boot = out
            if notes:
                self.jobs.status.notice = " ".join(notes)

        self.jobs.run("bootstrap", lambda progress: with_notes(resample, progress), done,
                      lambda exc: self.jobs.report(exc, "bootstrap"))
