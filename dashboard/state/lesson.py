"""Guided lessons: which lesson is open and at which step (both part of a link, so that a
student opens the same step).  The lessons themselves are in ``llrlab.dashboard.lessons``;
applying a step to the dashboard is :meth:`~.dashboard.DashboardState.restore` of the step's
snapshot (wired in ``dashboard.py``)."""

from __future__ import annotations

import param

from ..lessons import Lesson, Step, builtin_lessons

__all__ = ["LessonState"]


class LessonState(param.Parameterized):
    """The open lesson (``""``: none) and its step (1-based)."""

    lesson = param.Selector(default="", objects=[""], label="Lesson", doc="""
        The id of the open lesson ('' when none is open).""")
    step = param.Integer(default=1, bounds=(1, None), label="Step")
    library = param.Dict(default={}, precedence=-1, doc="""
        id -> Lesson: the lessons this session can open (the built-in ones and the one given
        to llrlab serve --lesson).""")

    def __init__(self, library=None, **params):
        lessons = builtin_lessons() if library is None else dict(library)
        super().__init__(library=lessons)
        self.param.lesson.objects = ["", *lessons]
        if params:
            self.param.update(**params)

    def current(self) -> Lesson | None:
        """The open lesson, or None."""
        return self.library.get(self.lesson) if self.lesson else None

    def current_step(self) -> Step | None:
        """The shown step of the open lesson, or None."""
        lesson = self.current()
        return None if lesson is None else lesson.step(self.step)

    @param.depends("lesson", "step", watch=True, on_init=True)
    def _clamp(self):
        lesson = self.current()
        if lesson is not None and self.step > len(lesson):
            self.step = len(lesson)

    def open(self, lesson_id, step=1):
        """Open a lesson at ``step`` (one change of both)."""
        self.param.update(lesson=lesson_id, step=max(1, int(step)))

    def close(self):
        self.lesson = ""

    def go(self, delta):
        """Move ``delta`` steps (clamped to the lesson); False when no lesson is open or the
        step does not change."""
        lesson = self.current()
        if lesson is None:
            return False
        new = max(1, min(len(lesson), self.step + int(delta)))
        if new == self.step:
            return False
        self.step = new
        return True
