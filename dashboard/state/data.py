"""The loaded data: systems with their dev and eval trials, and the jobs that load files.

Loading reports in the page what the loaders report (:func:`load_with_notes`): trials in
the scores but not in the key and the reverse (both counts, an example of each), repeated
lines.  A failure names the file as the user knows it, also when the loader's message does
not (a memory error, an unexpected exception).
"""

from __future__ import annotations

import os
import shutil

import param

from llrlab.core import Trials

from ..compute import SystemData
from .jobs import with_notes

__all__ = ["DataState", "load_with_notes"]


def load_with_notes(scores, key=None, progress=None, **limits):
    """``(trials, notes)``: ``llrlab.core.io.load_trials_with_report`` and the messages of the
    warnings it raised (trials dropped by the join, repeated lines).  ``limits``:
    ``max_trials`` / ``max_bytes`` of the loader."""
    from llrlab.core.io import load_trials_with_report

    (trials, _report), notes = with_notes(load_trials_with_report, scores, key,
                                          progress=progress, **limits)
    return trials, notes


class _FileFailed(Exception):
    """A file could not be loaded: its name as the user knows it, and why."""

    def __init__(self, name, exc):
        super().__init__(name)
        self.name, self.exc = name, exc


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
    origin = param.Parameter(default=None, precedence=-1, doc="""
        What the loaded data are, the same in every session of the server (e.g. the
        server's own files and their modification times), so that their results can be
        shared between sessions; None when they are this session's own (uploads).""")
    notes = param.Dict(default={}, precedence=-1, doc="""
        (system, role) -> what loading that set reported (trials in only one of the score
        and key files, with counts; repeated lines), shown in the page while it is loaded.""")

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

    def set_systems(self, systems, *, show=None, interactive=True, origin=None):
        """Replace all loaded data: ``{name: SystemData}``; show system ``show`` (else keep
        the shown one, else the first).  ``origin``: see the parameter (None: the data are
        this session's own)."""
        systems = dict(systems)
        names = list(systems)
        current = show if show in systems else (self.system if self.system in systems
                                                 else (names[0] if names else None))
        self.param.system.objects = names
        before = self.version
        notes = {k: v for k, v in self.notes.items() if k[0] in systems}
        self.param.update(systems=systems, system=current, interactive=interactive,
                          notes=notes, origin=origin)
        if self.version == before:  # the same objects again (a reload): still new data
            self.param.trigger("systems")

    def load_files(self, items, *, display=None, replace=False, loader=None, cleanup=None,
                   interactive=True, origin=None):
        """Load files (in the background when the runner is threaded) and add them.

        Parameters
        ----------
        items : list of (system, role, scores_path, key_path or None)
        display : dict, optional
            Maps a path to the name shown in messages (uploads kept in temporary files).
        replace : bool
            Replace all loaded data instead of adding to it.
        loader : callable, optional
            ``loader(scores_path, key_path, progress)`` returning ``Trials`` or
            ``(Trials, notes)``; default :func:`load_with_notes`.
        cleanup : str, optional
            A temporary directory removed once the files are read.
        interactive : bool
            A user's request: leave teaching mode and show the loaded system.  False (data
            loaded at start-up) keeps the choices, e.g. those restored from the URL.
        origin : hashable, optional
            With ``replace``: what the files are, the same in every session (see the
            parameter); their results are then shared between sessions.

        A file that cannot be read sets the status error (its message names the file) and
        leaves the loaded data as they were.  What the loader reports (see
        :func:`load_with_notes`) is kept in ``notes``.
        """
        loader = loader or load_with_notes

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

                    try:
                        got = loader(scores, key, prog)
                        t, notes = got if isinstance(got, tuple) else (got, [])
                        if str(scores) in display:
                            # shares every array and id code (no string ids built)
                            t = t.with_source(display[str(scores)])
                        t = t.require_both_classes()
                    except Exception as exc:
                        raise _FileFailed(name, exc) from exc
                    out.append((system, role, t, " ".join(shown(n) for n in notes)))
                return out
            finally:
                if cleanup:
                    shutil.rmtree(cleanup, ignore_errors=True)

        def done(out):
            systems = {} if replace else dict(self.systems)
            notes = {} if replace else dict(self.notes)
            for system, role, t, note in out:
                systems[system] = systems.get(system, SystemData()).replace(role, t)
                notes.pop((system, role), None)
                if note:
                    notes[(system, role)] = note
            self.notes = notes
            self.set_systems(systems, show=out[-1][0] if out and interactive else None,
                             interactive=interactive, origin=origin if replace else None)

        def fail(exc):
            name = None
            if isinstance(exc, _FileFailed):
                name, exc = exc.name, exc.exc

            def named(text):
                text = shown(text)
                return text if name is None or name in text else f"{name}: {text}"

            self.jobs.report(exc, "loading", shown=named)

        self.jobs.run("loading", job, done, fail)

    def notes_text(self):
        """What loading reported about the loaded sets, one sentence per set ('' if
        nothing)."""
        return " ".join(self.notes[k] for k in sorted(self.notes))

