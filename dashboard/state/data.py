"""The loaded data: systems with their dev and eval trials, and the jobs that load files."""

from __future__ import annotations

import os
import shutil

import param

from llrlab.core import Trials

from ..compute import SystemData

__all__ = ["DataState"]


class DataState(param.Parameterized):
    """Loaded systems (name -> :class:`~llrlab.dashboard.compute.SystemData`) and the one
    shown when fusion is off.

    Loading goes through the session's jobs (:meth:`load_files`): in the background when the
    runner is threaded; a file that cannot be read sets the status error (naming the file as
    the user knows it) and leaves the loaded data as they were.
    """

    #: Parameters that change the heavy results (besides ``systems``).
    result_params = ("system",)

    systems = param.Dict(default={}, precedence=-1, doc="""
        Loaded systems: name -> SystemData(dev, eval).""")
    system = param.Selector(default=None, objects=[], allow_None=True,
                            label="Shown system", doc="""
        The system shown when fusion is off.""")
    version = param.Integer(default=0, precedence=-1, doc="""
        Incremented whenever ``systems`` changes (part of the results' cache keys).""")
    interactive = param.Boolean(default=True, precedence=-1, doc="""
        The last change of ``systems`` was a user's request (the dashboard then leaves
        teaching mode); False for data loaded at start-up.""")

    def __init__(self, jobs=None, **params):
        super().__init__(**params)
        self.jobs = jobs

    @param.depends("systems", watch=True)
    def _new_version(self):
        self.version += 1

    def trials(self):
        """Every loaded Trials object (dev and eval of every system)."""
        return [t for s in self.systems.values() for t in (s.dev, s.eval) if t is not None]

    def set_trials(self, system, role, trials: Trials):
        """Add (or replace) the dev or eval trials of a system, and show it."""
        if role not in ("dev", "eval"):
            raise ValueError(f"role must be 'dev' or 'eval', got {role!r}")
        system = (system or "system").strip() or "system"
        systems = dict(self.systems)
        systems[system] = systems.get(system, SystemData()).replace(role, trials)
        self.set_systems(systems, show=system)

    def set_systems(self, systems, *, show=None, interactive=True):
        """Replace all loaded data: ``{name: SystemData}``; show system ``show`` (else keep
        the shown one, else the first)."""
        systems = dict(systems)
        names = list(systems)
        current = show if show in systems else (self.system if self.system in systems
                                                 else (names[0] if names else None))
        self.param.system.objects = names
        before = self.version
        self.param.update(systems=systems, system=current, interactive=interactive)
        if self.version == before:  # the same objects again (a reload): still new data
            self.param.trigger("systems")

    def load_files(self, items, *, display=None, replace=False, loader=None, cleanup=None,
                   interactive=True):
        """Load files (in the background when the runner is threaded) and add them.

        Parameters
        ----------
        items : list of (system, role, scores_path, key_path or None)
        display : dict, optional
            Maps a path to the name shown in messages (uploads kept in temporary files).
        replace : bool
            Replace all loaded data instead of adding to it.
        loader : callable, optional
            ``loader(scores_path, key_path, progress) -> Trials``; default
            ``llrlab.core.io.load_trials``.
        cleanup : str, optional
            A temporary directory removed once the files are read.
        interactive : bool
            A user's request: leave teaching mode and show the loaded system.  False (data
            loaded at start-up) keeps the choices, e.g. those restored from the URL.

        A file that cannot be read sets the status error (its message names the file) and
        leaves the loaded data as they were.
        """
        if loader is None:
            from llrlab.core.io import load_trials

            def loader(scores, key, progress):
                return load_trials(scores, key, progress=progress)

        display = {str(k): v for k, v in (display or {}).items()}
        items = list(items)

        def shown(text):
            for path, name in display.items():
                text = text.replace(path, name)
            return text

        def job(progress):
            try:
                out = []
                for i, (system, role, scores, key) in enumerate(items):
                    name = display.get(str(scores), os.path.basename(str(scores)))

                    def prog(fraction, message="", i=i, name=name):
                        progress((i + min(max(fraction, 0.0), 1.0)) / len(items),
                                 f"loading {name}")

                    t = loader(scores, key, prog)
                    if str(scores) in display:
                        t = _with_source(t, display[str(scores)])
                    out.append((system, role, t.require_both_classes()))
                return out
            finally:
                if cleanup:
                    shutil.rmtree(cleanup, ignore_errors=True)

        def done(out):
            systems = {} if replace else dict(self.systems)
            for system, role, t in out:
                systems[system] = systems.get(system, SystemData()).replace(role, t)
            self.set_systems(systems, show=out[-1][0] if out and interactive else None,
                             interactive=interactive)

        self.jobs.run("loading", job, done,
                      lambda exc: self.jobs.report(exc, "loading", shown=shown))


def _with_source(t: Trials, source):
    return Trials(t.scores, t.labels, t.weights, t.conditions, t.model_ids, t.segment_ids,
                  source)
