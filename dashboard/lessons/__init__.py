"""Guided lessons: a sequence of steps a lecturer clicks through, each setting the dashboard's
state and showing a few sentences beside the plots.

A lesson is a plain text file (``docs/lessons.md`` documents the format), either Markdown::

    ---
    title: Calibration and the DCF
    teaching.enabled: true
    ---

    ## What an LLR is
    show: histogram, nber
    highlight: histogram.threshold
    point.plo: 0

    The system outputs a log-likelihood ratio ...

(a front matter between ``---`` lines with the lesson's title and settings shared by every
step; then one ``## Title`` per step, its settings as ``key: value`` lines up to the first
blank line, then its text), or JSON with the same content (``{"title": ..., "state": {...},
"steps": [{"title": ..., "show": [...], "highlight": [...], "state": {...}, "text": ...}]}``).

Settings are ``PART.NAME: VALUE`` for the dashboard's choices (teaching, calibration,
conditions, point, uncertainty, display; e.g. ``teaching.scale: 2``, ``calibration.method:
affine``, ``point.plo: -2.2``); values are JSON (numbers, ``true``, lists) or bare text.
``show`` lists the panels shown (1 to 3 of :data:`~llrlab.dashboard.state.presenter.PANELS`)
and ``highlight`` what is highlighted; ``notes`` (a step's, optional) are the speaker's notes,
shown in the speaker view only, never to the audience.  Every step is set from the same
starting point -- the dashboard's defaults (with :data:`LESSON_DEFAULTS` on top), then the
lesson's settings, then the step's -- so a step looks the same whichever way it is reached
(forward, back, or a link).  A step's text is Markdown with TeX formulas
(:mod:`llrlab.dashboard.lesson_text`).

Files are checked strictly: an unknown key, a bad value, a missing title or text, a formula
or link that is not allowed gives one complete line naming the file, the line of the key (or
of the text) and the step (:class:`LessonError`).  The lessons shipped with llrlab are the
``*.md`` files of this folder (:func:`builtin_lessons`).

Checking a file imports the dashboard's state classes and nothing heavier (no Panel, no
SciPy statistics): ``llrlab serve --lesson FILE`` reports a bad file at once.

This module imports neither Panel nor Bokeh.
"""

from __future__ import annotations

import functools
import json
import math
import os
import re
from dataclasses import dataclass, field
from importlib import resources

from llrlab.core import DataError

__all__ = ["HEADER_KEYS", "LESSON_DEFAULTS", "LESSON_PARTS", "STEP_KEYS", "Lesson",
           "LessonError", "Step", "builtin_lessons", "find_lesson", "load_lesson",
           "parse_lesson"]

#: The parts of the dashboard a lesson may set.
LESSON_PARTS = ("teaching", "calibration", "conditions", "point", "uncertainty", "display")
#: Settings every step starts from (the dashboard's defaults), per part; the display's
#: style (presentation, SVG) and the condition selection are left as the user has them.
_BASE_PARAMS = {
    "teaching": ("enabled", "mu_tar", "sigma_tar", "mu_non", "sigma_non", "n_tar", "n_non",
                 "seed", "scale", "shift", "references"),
    "calibration": ("method", "train_prior", "fusion"),
    "conditions": ("weighting", "show_curves"),
    "point": ("p_target", "c_miss", "c_fa"),
    "uncertainty": ("ci_method", "ci_level"),
    "display": ("nber_range", "det_kind", "show_contributions", "show_dev", "llr_unit",
                "reliability", "reliability_bins"),
}
#: Where a lesson's starting point differs from the dashboard's defaults: no reference
#: miscalibrations on the NBER plot unless a lesson turns them on.
LESSON_DEFAULTS = {"teaching": {"references": False}}
_MAX_BYTES = 1_000_000
_MAX_STEPS = 100
_MAX_TITLE = 120
_MAX_TEXT = 4000
_KEY = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)?)\s*:\s*(.*)$")
#: The keys of a lesson's header and of a step besides ``PART.NAME`` settings (a new key is
#: added here and read in ``_build``); ``notes`` are the speaker's (at most _MAX_NOTES
#: characters).
HEADER_KEYS = ("title", "description", "show", "highlight")
STEP_KEYS = ("show", "highlight", "notes")
_MAX_NOTES = 4000
_SHOWN = 60


class LessonError(DataError):
    """A lesson file that cannot be used (one line: file, step, key, what is wrong)."""


def _short(value):
    """A value from the file, as shown in a message: one line, at most 60 characters (a
    longer one keeps both ends around " … "); messages of llrlab's own are never cut."""
    from ..safe import shorten

    return shorten(value if isinstance(value, str) else repr(value), _SHOWN)


def _number(x):
    return f"{x:,}" if isinstance(x, int) else f"{x:g}"


def _expected(obj):
    """What a setting accepts, in words (from its parameter: type, bounds, choices)."""
    import param

    if isinstance(obj, param.Boolean):
        return "true or false"
    objects = getattr(obj, "objects", None)
    if isinstance(obj, param.ListSelector):
        return f"a list of: {', '.join(map(str, objects or []))}"
    if isinstance(obj, param.Selector) and objects:
        return f"one of: {', '.join(map(str, objects))}"
    if isinstance(obj, param.Range):
        lo, hi = obj.bounds or (None, None)
        return ("two numbers [low, high]" + (f" from {_number(lo)} to {_number(hi)}"
                                             if lo is not None and hi is not None else ""))
    if isinstance(obj, param.Number):
        kind = "a whole number" if isinstance(obj, param.Integer) else "a number"
        lo, hi = obj.bounds or (None, None)
        inc_lo, inc_hi = getattr(obj, "inclusive_bounds", (True, True))
        if lo is not None and hi is not None:
            if inc_lo and inc_hi:
                return f"{kind} from {_number(lo)} to {_number(hi)}"
            return (f"{kind} {'from' if inc_lo else 'above'} {_number(lo)} and "
                    f"{'up to' if inc_hi else 'below'} {_number(hi)}")
        if lo is not None:
            return f"{kind} {'of at least' if inc_lo else 'above'} {_number(lo)}"
        if hi is not None:
            return f"{kind} {'of at most' if inc_hi else 'below'} {_number(hi)}"
        return kind
    if isinstance(obj, param.String):
        return "text"
    return f"a {type(obj).__name__.lower()} value"


@dataclass(frozen=True)
class Step:
    """One step of a lesson.

    ``state`` maps a part to its settings (plain JSON values, as in a dashboard snapshot):
    the lesson's and the step's own, on top of the defaults; ``show`` and ``highlight`` the
    panels shown and what is highlighted; ``line`` the step's line in a Markdown file (0 for
    JSON); ``notes`` the speaker's notes (Markdown; shown in the speaker view only).
    """

    title: str
    text: str
    show: tuple
    highlight: tuple
    state: dict = field(hash=False)
    line: int = 0
    notes: str = ""

    def snapshot(self):
        """The partial dashboard snapshot that sets this step (for ``restore``)."""
        out = {part: dict(values) for part, values in self.state.items()}
        out["presenter"] = {"panels": list(self.show), "highlight": list(self.highlight)}
        return out


@dataclass(frozen=True)
class Lesson:
    """A lesson: its id (the file name without extension), title, source and steps."""

    id: str
    title: str
    description: str
    source: str
    steps: tuple

    def __len__(self):
        return len(self.steps)

    def step(self, number):
        """Step ``number`` (1-based), clamped to the lesson's steps."""
        return self.steps[max(1, min(len(self.steps), int(number))) - 1]


# ---------------------------------------------------------------------------- checking


class _Checker:
    """Checks settings against fresh parts of the dashboard (no data, nothing computed)."""

    def __init__(self):
        from ..state.calibration import CalibrationState
        from ..state.conditions import ConditionsState
        from ..state.display import DisplayState
        from ..state.operating_point import OperatingPointState
        from ..state.presenter import HIGHLIGHTS, MAX_PANELS, PANELS
        from ..state.teaching import TeachingState
        from ..state.uncertainty import UncertaintyState

        self.classes = {"teaching": TeachingState, "calibration": CalibrationState,
                        "conditions": ConditionsState, "point": OperatingPointState,
                        "uncertainty": UncertaintyState, "display": DisplayState}
        self.panels, self.highlights, self.max_panels = PANELS, HIGHLIGHTS, MAX_PANELS
        fresh = {name: cls() for name, cls in self.classes.items()}
        base = {name: {p: part.param[p].serialize(getattr(part, p)) for p in params}
                for name, params in _BASE_PARAMS.items() for part in [fresh[name]]}
        self.base = _merge(base, LESSON_DEFAULTS)

    def settable(self, part):
        cls = self.classes[part]
        return sorted(p for p, obj in cls.param.objects("existing").items()
                      if p != "name" and (obj.precedence is None or obj.precedence >= 0))

    def setting(self, key, value, where):
        """``(part, name, value)`` of one ``PART.NAME`` setting, its value checked."""
        part, _, name = key.partition(".")
        if not name or part not in self.classes:
            raise LessonError(f"{where}: unknown key {_short(key)!r} (a step's keys are show, "
                              f"highlight, notes and settings PART.NAME with PART one of "
                              f"{', '.join(LESSON_PARTS)})")
        known = self.settable(part)
        if name not in known:
            raise LessonError(f"{where}: unknown key {_short(key)!r} ({part} settings: "
                              f"{', '.join(known)})")
        obj = self.classes[part]()
        try:
            obj.param.update(**{name: obj.param[name].deserialize(value)})
        except (ValueError, TypeError):
            raise LessonError(f"{where}, key {key!r}: bad value {_short(value)} (expected "
                              f"{_expected(obj.param[name])})") from None
        if getattr(obj, "error", ""):  # e.g. costs the operating point refuses
            raise LessonError(f"{where}, key {key!r}: bad value {_short(value)} "
                              f"({' '.join(obj.error.split())})")
        return part, name, value

    def names(self, key, value, allowed, where):
        if isinstance(value, str):
            items = [v.strip() for v in value.split(",") if v.strip()]
        elif isinstance(value, list) and all(isinstance(v, str) for v in value):
            items = [v.strip() for v in value]
        else:
            raise LessonError(f"{where}, key {key!r}: a list of names, e.g. "
                              f"'{', '.join(allowed[:2])}'")
        for v in items:
            if v not in allowed:
                raise LessonError(f"{where}, key {key!r}: unknown name {_short(v)!r} (known: "
                                  f"{', '.join(allowed)})")
        if len(set(items)) != len(items):
            raise LessonError(f"{where}, key {key!r}: a name is given twice")
        return tuple(items)

    def show(self, value, where):
        items = self.names("show", value, self.panels, where)
        if not 1 <= len(items) <= self.max_panels:
            raise LessonError(f"{where}, key 'show': 1 to {self.max_panels} panels, got "
                              f"{len(items)}")
        return items

    def highlight(self, value, where):
        return self.names("highlight", value, self.highlights, where)


@functools.lru_cache(maxsize=1)
def _checker():
    return _Checker()


def _point(values, wheres):
    """A step's operating point as (p_target, c_miss, c_fa): a prior log-odds or effective
    prior is turned into the p_target that gives it with the step's costs (so that setting
    the costs and the prior log-odds at once has one meaning).  ``wheres``: key -> where it
    was set."""
    values = dict(values)
    plo = values.pop("plo", None)
    eff = values.pop("effective_prior", None)
    if plo is not None and eff is not None:
        raise LessonError(f"{wheres['point.effective_prior']}: set point.plo or "
                          f"point.effective_prior, not both")
    key = "point.plo"
    if eff is not None:
        plo, key = math.log(eff / (1.0 - eff)), "point.effective_prior"
    if plo is not None:
        ratio = math.log(float(values["c_miss"]) / float(values["c_fa"]))
        x = float(plo) - ratio
        p = 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))
        if not 0.0 < p < 1.0:
            raise LessonError(f"{wheres[key]}, key {key!r}: prior log-odds {_short(plo)} "
                              f"is too far out for the costs C_miss = {values['c_miss']}, "
                              f"C_fa = {values['c_fa']}")
        values["p_target"] = p
    return values


def _merge(base, *layers):
    out = {part: dict(values) for part, values in base.items()}
    for layer in layers:
        for part, values in layer.items():
            out.setdefault(part, {}).update(values)
    return out


def _text_problem(at, exc):
    """The LessonError of a problem in a title or text (``at(line)``: where that line is)."""
    return LessonError(f"{at(exc.line)}: {exc}")


def _notes(notes, where):
    """A step's speaker notes (text, or a list of lines) checked: Markdown of at most
    _MAX_NOTES characters without images ('' when there are none)."""
    if isinstance(notes, list) and all(isinstance(n, str) for n in notes):
        notes = "\n".join(notes)
    if notes is None:
        return ""
    if not isinstance(notes, str):
        raise LessonError(f"{where}, key 'notes': text (the speaker's notes)")
    if len(notes) > _MAX_NOTES:
        raise LessonError(f"{where}, key 'notes': more than {_MAX_NOTES} characters")
    if "![" in notes:
        raise LessonError(f"{where}, key 'notes': an image ('![...](...)'); notes are "
                          f"Markdown without images")
    return notes.strip()


def _build(source, lesson_id, header, steps):
    """A Lesson from parsed (unchecked) content.

    ``header``: dict with title, description, show, highlight, settings (list of (key,
    value, where)) and wheres (key -> where it is, for messages); ``steps``: list of dicts
    with title, text, show, highlight, settings, line, where, wheres and text_at (text line
    -> where it is).
    """
    from ..lesson_text import TextProblem, check_plain, check_text

    chk = _checker()
    where0 = f"{source}, lesson header"
    hw = header.get("wheres", {})
    title = header.get("title")
    if not isinstance(title, str) or not title.strip():
        raise LessonError(f"{where0}: no title (add 'title: ...')")
    if len(title) > _MAX_TITLE:
        raise LessonError(f"{hw.get('title', where0)}, key 'title': at most {_MAX_TITLE} "
                          f"characters")
    description = header.get("description") or ""
    if not isinstance(description, str):
        raise LessonError(f"{hw.get('description', where0)}, key 'description': text")
    for key, text in (("title", title), ("description", description)):
        try:
            check_plain(text)
        except TextProblem as exc:
            raise LessonError(f"{hw.get(key, where0)}, key {key!r}: {exc}") from None
    common, common_at = {}, {}
    for key, value, where in header["settings"]:
        part, name, value = chk.setting(key, value, where)
        common.setdefault(part, {})[name] = value
        common_at[key] = where
    show0 = chk.show(header["show"], hw.get("show", where0)) \
        if header.get("show") is not None else ("nber", "det")
    high0 = chk.highlight(header["highlight"], hw.get("highlight", where0)) \
        if header.get("highlight") is not None else ()
    if not steps:
        raise LessonError(f"{source}: no steps (each step starts with a line '## Title')")
    if len(steps) > _MAX_STEPS:
        raise LessonError(f"{source}: {len(steps)} steps; at most {_MAX_STEPS}")
    out = []
    for s in steps:
        where = s["where"]
        sw = s.get("wheres", {})
        st = s.get("title")
        if not isinstance(st, str) or not st.strip():
            raise LessonError(f"{where}: no title")
        if len(st) > _MAX_TITLE:
            raise LessonError(f"{where}: the title has more than {_MAX_TITLE} characters")
        try:
            check_plain(st)
        except TextProblem as exc:
            raise LessonError(f"{where}: the title: {exc}") from None
        text = s.get("text")
        if not isinstance(text, str) or not text.strip():
            raise LessonError(f"{where}: no text (a few sentences after the settings)")
        if len(text) > _MAX_TEXT:
            raise LessonError(f"{where}: the text has more than {_MAX_TEXT} characters")
        try:
            check_text(text)
        except TextProblem as exc:
            raise _text_problem(s["text_at"], exc) from None
        notes = _notes(s.get("notes"), where)
        own = {}
        wheres = dict(common_at)
        for key, value, kwhere in s["settings"]:
            part, name, value = chk.setting(key, value, kwhere)
            own.setdefault(part, {})[name] = value
            wheres[key] = kwhere
        state = _merge(chk.base, common, own)
        state["point"] = _point(state["point"], wheres)
        show = chk.show(s["show"], sw.get("show", where)) if s.get("show") is not None \
            else show0
        high = chk.highlight(s["highlight"], sw.get("highlight", where)) \
            if s.get("highlight") is not None else high0
        out.append(Step(" ".join(st.split()), text, show, high, state, s.get("line", 0),
                        notes))
    return Lesson(lesson_id, " ".join(title.split()), description.strip(), source,
                  tuple(out))


# ---------------------------------------------------------------------------- Markdown


def _value(text):
    text = text.strip()
    try:
        return json.loads(text)
    except ValueError:
        return text


def _parse_markdown(text, source, lesson_id):
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---":
        raise LessonError(f"{source} line 1: a lesson starts with a front matter: a line '---', "
                          f"'title: ...', and '---'")
    try:
        end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    except StopIteration:
        raise LessonError(f"{source}: the front matter is not closed (a line '---' after "
                          f"'title: ...')") from None
    header = {"settings": [], "wheres": {}}
    for i in range(1, end):
        line = lines[i]
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        where = f"{source} line {i + 1} (lesson header)"
        m = _KEY.match(line.strip())
        if not m:
            raise LessonError(f"{where}: expected 'key: value', got {_short(line.strip())!r}")
        key, raw = m.group(1), m.group(2)
        if key in HEADER_KEYS:
            if key in header:
                raise LessonError(f"{where}: key {key!r} given twice")
            header[key] = raw.strip() if key in ("title", "description") else _value(raw)
            header["wheres"][key] = where
        elif "." in key:
            header["settings"].append((key, _value(raw), where))
        else:
            raise LessonError(f"{where}: unknown key {_short(key)!r} (the header's keys are "
                              f"{', '.join(HEADER_KEYS)} and settings PART.NAME)")
    steps, current = [], None
    for i in range(end + 1, len(lines)):
        line = lines[i]
        if line.startswith("## "):
            title = line[3:].strip()
            label = f"step {len(steps) + 1} {_short(title)!r}"
            current = {"title": title, "settings": [], "text": [], "line": i + 1,
                       "where": f"{source} line {i + 1} ({label})", "label": label,
                       "wheres": {}, "text_from": None, "in_settings": True}
            steps.append(current)
            continue
        if current is None:
            if line.strip():
                raise LessonError(f"{source} line {i + 1}: text before the first step (a step "
                                  f"starts with a line '## Title')")
            continue
        if current["in_settings"]:
            if not line.strip():
                current["in_settings"] = False
                continue
            if line[:1] in " \t" and current.get("_last") == "notes":
                current["notes"] += "\n" + line.strip()  # the notes go on
                continue
            m = _KEY.match(line.strip())
            if m:
                key, raw = m.group(1), m.group(2)
                where = f"{source} line {i + 1} ({current['label']})"
                if key in STEP_KEYS:
                    if key in current:
                        raise LessonError(f"{where}: key {key!r} given twice")
                    current[key] = raw.strip() if key == "notes" else _value(raw)
                    current["wheres"][key] = where
                elif "." in key:
                    if any(k == key for k, _, _ in current["settings"]):
                        raise LessonError(f"{where}: key {key!r} given twice")
                    current["settings"].append((key, _value(raw), where))
                else:
                    raise LessonError(f"{where}: unknown key {_short(key)!r} (a step's keys "
                                      f"are {', '.join(STEP_KEYS)} and settings PART.NAME)")
                current["_last"] = key
                continue
            current["in_settings"] = False
        if current["text_from"] is None and line.strip():
            current["text_from"] = i + 1  # the file's line of the text's first line
        if current["text_from"] is not None:
            current["text"].append(line)
    for s in steps:
        s["text"] = "\n".join(s["text"]).rstrip()
        first, label = s["text_from"] or s["line"], s["label"]
        s["text_at"] = (lambda k, first=first, label=label:
                        f"{source} line {first + k} ({label})")
    return _build(source, lesson_id, header, steps)


# ---------------------------------------------------------------------------- JSON


def _flat(state, where):
    """``{"part": {"name": v}}`` (or dotted keys) as a list of (key, value, where)."""
    if state is None:
        return []
    if not isinstance(state, dict):
        raise LessonError(f"{where}, key 'state': a mapping of parts to settings")
    out = []
    for part, values in state.items():
        if "." in str(part):
            out.append((str(part), values, where))
            continue
        if not isinstance(values, dict):
            raise LessonError(f"{where}, key 'state.{_short(str(part))}': a mapping of "
                              f"settings")
        out += [(f"{part}.{name}", v, where) for name, v in values.items()]
    return out


def _parse_json(text, source, lesson_id):
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise LessonError(f"{source}: invalid JSON ({' '.join(str(exc).split())})") from None
    if not isinstance(obj, dict):
        raise LessonError(f"{source}: a lesson is a JSON object with title and steps")
    known = (*HEADER_KEYS, "state", "steps")
    bad = [k for k in obj if k not in known]
    if bad:
        raise LessonError(f"{source}, lesson header: unknown key {_short(bad[0])!r} (known: "
                          f"{', '.join(known)})")
    where0 = f"{source}, lesson header"
    header = {k: obj[k] for k in HEADER_KEYS if k in obj}
    header["settings"] = _flat(obj.get("state"), where0)
    raw_steps = obj.get("steps")
    if not isinstance(raw_steps, list):
        raise LessonError(f"{source}: 'steps' must be a list of steps")
    steps = []
    step_known = ("title", "text", *STEP_KEYS, "state")
    for i, s in enumerate(raw_steps, 1):
        title = s.get("title") if isinstance(s, dict) else None
        where = f"{source}, step {i}" + (f" {_short(title)!r}" if isinstance(title, str)
                                         else "")
        if not isinstance(s, dict):
            raise LessonError(f"{where}: a step is an object with title and text")
        bad = [k for k in s if k not in step_known]
        if bad:
            raise LessonError(f"{where}: unknown key {_short(bad[0])!r} (known: "
                              f"{', '.join(step_known)})")
        text = s.get("text")
        if isinstance(text, list) and all(isinstance(t, str) for t in text):
            text = "\n".join(text)
        if isinstance(text, str):
            text = text.strip()
        step = {"title": title, "text": text, "settings": _flat(s.get("state"), where),
                "where": where,
                "text_at": lambda k, where=where: f"{where}, key 'text', line {k + 1}"}
        step.update({k: s.get(k) for k in STEP_KEYS})
        steps.append(step)
    return _build(source, lesson_id, header, steps)


# ---------------------------------------------------------------------------- loading


def parse_lesson(text, source="lesson", lesson_id=None):
    """A :class:`Lesson` from the text of a lesson file (JSON when it starts with ``{``,
    else Markdown); ``source`` names it in messages.

    Raises
    ------
    LessonError
        One line naming ``source``, the step and the key.
    """
    if len(text) > _MAX_BYTES:
        raise LessonError(f"{source}: a lesson file is at most {_MAX_BYTES:,} characters")
    text = text.lstrip("\ufeff")
    lesson_id = lesson_id or os.path.splitext(os.path.basename(source))[0] or "lesson"
    if text.lstrip().startswith("{"):
        return _parse_json(text, source, lesson_id)
    return _parse_markdown(text, source, lesson_id)


def load_lesson(path):
    """Read and check a lesson file (Markdown or JSON, UTF-8).

    Raises
    ------
    LessonError
        The file cannot be read, or is not a valid lesson (one line naming the file, the
        step and the key).
    """
    name = os.path.basename(path)
    try:
        size = os.path.getsize(path)
        if size > _MAX_BYTES:
            raise LessonError(f"{name}: a lesson file is at most {_MAX_BYTES:,} bytes")
        with open(path, "rb") as f:
            raw = f.read(_MAX_BYTES + 1)
    except OSError as exc:
        raise LessonError(f"{name}: cannot read the lesson file "
                          f"({exc.strerror or exc})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LessonError(f"{name}: not UTF-8 text (byte {exc.start})") from None
    return parse_lesson(text, name)


@functools.lru_cache(maxsize=1)
def _builtin():
    root = resources.files(__name__)
    out = {}
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.name.endswith((".md", ".json")):
            lesson = parse_lesson(entry.read_text(encoding="utf-8"), entry.name)
            out[lesson.id] = lesson
    return out


def builtin_lessons():
    """``{id: Lesson}`` of the lessons shipped with llrlab."""
    return dict(_builtin())


def find_lesson(name):
    """The lesson a command line names (``llrlab serve --lesson``, ``llrlab report
    --lesson``): a lesson file (Markdown or JSON), or the id of a built-in lesson
    (``calibration``, ``forensic``) when no file has that name.

    Raises
    ------
    LessonError
        One line: the file is not a valid lesson (see :func:`load_lesson`), or there is
        neither a file nor a built-in lesson of that name.
    """
    if os.path.exists(name) or os.sep in name or "." in name:
        return load_lesson(name)  # a file: checked first, the built-in ones are not read
    lessons = _builtin()
    if name in lessons:
        return lessons[name]
    raise LessonError(f"{_short(name)}: no such lesson file, nor a built-in lesson "
                      f"(built-in: {', '.join(lessons)})")
