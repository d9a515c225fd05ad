"""Presenter mode: one plot or a chosen pair filling the screen, large fonts, and the saved
views (named snapshots of the dashboard) a speaker steps through during a talk.

The views are a list of ``{"name": ..., "state": snapshot}`` where a snapshot is
:meth:`DashboardState.snapshot` (plain JSON values); they are exported and imported as a
JSON file (:func:`views_json`, :func:`parse_views`).  Applying a view is the dashboard's
:meth:`~.dashboard.DashboardState.restore`.
"""

from __future__ import annotations

import json

import param

from llrlab.core import DataError

__all__ = ["HIGHLIGHTS", "MAX_PANELS", "MAX_VIEWS", "PANELS", "STAGE_ONLY", "VIEWS_FORMAT",
           "PresenterState", "parse_views", "views_json"]

#: The panels presenter mode and lesson steps can show: the views of the "Operating point"
#: tab, then those only a stage shows (the forensic views: Tippett plot, reliability
#: diagram, ECE plot).
PANELS = ("nber", "det", "histogram", "calibration", "metrics", "tippett", "reliability",
          "ece")
#: The panels only a stage shows (made the first time one is shown).
STAGE_ONLY = ("tippett", "reliability", "ece")
#: How many panels are shown side by side at most.
MAX_PANELS = 3
#: What a lesson step can highlight: a whole panel, or one element of it (``panel.element``).
HIGHLIGHTS = (
    *PANELS,
    "nber.act", "nber.min", "nber.op", "nber.dr30", "nber.unreliable", "nber.true",
    "nber.references", "nber.contributions",
    "det.steppy", "det.rocch", "det.eer", "det.dr30", "det.fmr", "det.op",
    "histogram.threshold", "calibration.map", "calibration.threshold",
    "metrics.cllr", "metrics.min_cllr", "metrics.eer", "metrics.act_dcf", "metrics.min_dcf",
    "metrics.dr30_safe", "metrics.p_miss", "metrics.p_fa", "metrics.threshold",
)
#: The ``format`` field of a saved-views file.
VIEWS_FORMAT = "llrlab-views"
#: Most saved views a file or a session holds.
MAX_VIEWS = 200
_NAME_MAX = 120
_FILE_MAX = 2_000_000


class PresenterState(param.Parameterized):
    """Presenter mode, the shown panels and highlights, and the saved views."""

    enabled = param.Boolean(default=False, label="Presenter mode", doc="""
        One plot or a chosen pair filling the screen, in presentation style (large fonts,
        thick lines), the sidebar folded; the arrow keys step through the lesson or the
        saved views.""")
    panels = param.ListSelector(default=["nber", "det"], objects=list(PANELS),
                                label="Presenter panels", doc="""
        The panels shown side by side in presenter mode and in a lesson (at most
        MAX_PANELS; the first ones are shown).""")
    highlight = param.ListSelector(default=[], objects=list(HIGHLIGHTS), label="Highlighted",
                                   doc="""
        Panels (outlined) and plot elements (drawn thicker) a lesson step points at.""")

    views = param.List(default=[], precedence=-1, doc="""
        The saved views: dicts {"name": str, "state": snapshot}.""")
    current = param.Integer(default=-1, precedence=-1, doc="""
        Index of the saved view last shown (-1: none).""")

    def shown_panels(self):
        """The panels to show: ``panels`` in the order of PANELS, at most MAX_PANELS (the
        NBER plot when none is chosen)."""
        chosen = [p for p in PANELS if p in (self.panels or [])]
        return chosen[:MAX_PANELS] or ["nber"]

    def lit(self, panel):
        """The elements of ``panel`` that are highlighted (``highlight`` entries
        ``"panel.element"``), as a set of element names."""
        return {h.split(".", 1)[1] for h in self.highlight or () if h.startswith(panel + ".")}

    # ------------------------------------------------------------------ saved views

    def add_view(self, name, snapshot):
        """Append a view (``name`` stripped and shortened; a default name when empty)."""
        if len(self.views) >= MAX_VIEWS:
            raise DataError(f"at most {MAX_VIEWS} saved views; delete some first")
        name = " ".join(str(name or "").split())[:_NAME_MAX] or f"view {len(self.views) + 1}"
        self.views = [*self.views, {"name": name, "state": snapshot}]
        self.current = len(self.views) - 1
        return name

    def remove_view(self, index):
        views = list(self.views)
        if 0 <= index < len(views):
            del views[index]
            self.current = min(self.current, len(views) - 1)
            self.views = views

    def step_index(self, delta):
        """The index of the view ``delta`` steps from the current one (clamped), or None
        without views."""
        if not self.views:
            return None
        return max(0, min(len(self.views) - 1, self.current + delta))


def views_json(views):
    """The text of a saved-views file."""
    return json.dumps({"format": VIEWS_FORMAT, "version": 1, "views": list(views)}, indent=1,
                      allow_nan=False)


def parse_views(text, source, check):
    """The views of a saved-views file (see :func:`views_json`), each checked with
    ``check(state, where)`` (which raises DataError naming ``where``).

    Raises
    ------
    llrlab.core.DataError
        One line naming ``source`` (and the view) for anything not in the format.
    """
    if isinstance(text, bytes):
        if len(text) > _FILE_MAX:
            raise DataError(f"{source}: a saved-views file is at most {_FILE_MAX:,} bytes")
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError:
            raise DataError(f"{source}: not a saved-views file (not UTF-8 text)") from None
    if len(text) > _FILE_MAX:
        raise DataError(f"{source}: a saved-views file is at most {_FILE_MAX:,} bytes")
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise DataError(f"{source}: not a saved-views file (invalid JSON: "
                        f"{str(exc)[:80]})") from None
    if not isinstance(obj, dict) or obj.get("format") != VIEWS_FORMAT:
        raise DataError(f"{source}: not a saved-views file (no \"format\": "
                        f"\"{VIEWS_FORMAT}\"; save one with 'Export views')")
    if obj.get("version") != 1:
        raise DataError(f"{source}: saved-views version {str(obj.get('version'))[:20]} is not "
                        f"supported (this llrlab reads version 1)")
    extra = sorted(set(obj) - {"format", "version", "views"})
    if extra:
        raise DataError(f"{source}: unknown key {extra[0][:40]!r} (known: format, version, "
                        f"views)")
    views = obj.get("views")
    if not isinstance(views, list):
        raise DataError(f"{source}: \"views\" must be a list")
    if len(views) > MAX_VIEWS:
        raise DataError(f"{source}: {len(views):,} views; at most {MAX_VIEWS} are read")
    out = []
    for i, v in enumerate(views, 1):
        if not isinstance(v, dict) or set(v) != {"name", "state"}:
            raise DataError(f"{source}, view {i}: a view is {{\"name\": ..., \"state\": "
                            f"...}}")
        name = v["name"]
        if not isinstance(name, str) or not name.strip() or len(name) > _NAME_MAX:
            raise DataError(f"{source}, view {i}: the name must be text of 1 to {_NAME_MAX} "
                            f"characters")
        check(v["state"], f"{source}, view {i}")
        out.append({"name": " ".join(name.split()), "state": v["state"]})
    return out
