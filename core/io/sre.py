"""NIST SRE tab-separated files with a header line: system outputs and trial keys.

The NIST speaker recognition evaluations (SRE 2016-2021 evaluation plans, sec. "System
output format" and the answer keys released after each evaluation) exchange one trial per
line, tab-separated, under a header naming the columns, e.g. ::

    modelid<TAB>segmentid<TAB>side<TAB>LLR              (system output)
    modelid<TAB>segmentid<TAB>side<TAB>targettype       (trial key: target / nontarget)

The columns are found by their header words (any case, any order; other columns are
ignored): the model (``modelid``, ``model_id``, ``enrollment_id``, ``enrollid``,
``enroll_id``), the segment (``segmentid``, ``segment_id``, ``segment``, ``test_id``), an
optional ``side``, the score (``LLR``, ``score``) and the label (``targettype``,
``target_type``).  A trial is (model, segment), or (model, segment, side) when the sides
differ within the file (then the segment id is ``segment:side``).  A score file is joined
with its key as a BOSARIS pair is; a file with both a score and a label column is one
labelled file.
"""

from __future__ import annotations

from ..errors import FileFormatError
from ._columns import ID, LABEL, NUMBER, Col, read_columns
from .bosaris_text import Table

__all__ = ["HEADER_WORDS", "read_sre", "sre_columns"]

HEADER_WORDS = {
    "modelid": "model", "model_id": "model", "enrollment_id": "model", "enrollid": "model",
    "enroll_id": "model",
    "segmentid": "segment", "segment_id": "segment", "segment": "segment",
    "test_id": "segment",
    "side": "side",
    "llr": "score", "score": "score",
    "targettype": "label", "target_type": "label",
}

_COLS = {"model": Col(ID, "model id"), "segment": Col(ID, "segment id"),
         "side": Col(ID, "side"), "score": Col(NUMBER, "score"), "label": Col(LABEL)}


def sre_columns(fr):
    """``{role: column}`` of an SRE header line, or None when it is not one (it names a
    model and a segment column and a score or label column with NIST's words, and no field
    is a number)."""
    from ._formats import is_number

    words = [t.decode("utf-8", "replace").lower() for t in fr.tokens]
    if any(is_number(t) for t in fr.tokens):
        return None
    roles = {}
    for j, w in enumerate(words):
        role = HEADER_WORDS.get(w)
        if role is not None and role not in roles:
            roles[role] = j
    nist = {"modelid", "segmentid", "targettype", "enrollment_id", "enrollid", "enroll_id",
            "test_id", "target_type"}
    if "model" not in roles or "segment" not in roles or not (
            "score" in roles or "label" in roles) or not nist & set(words):
        return None
    return roles


def read_sre(src, role, *, progress=None, limits=None, require_both=True):
    """An SRE file read for ``role``: a Table of scores (``"scores"``) or labels
    (``"key"``), or ``(trials, n_duplicates)`` (``"labelled"``)."""
    from ._formats import ANY_COUNT, head_of

    fr = head_of(src).first_row(ANY_COUNT)
    roles = sre_columns(fr)
    need = {"scores": ("score",), "key": ("label",), "labelled": ("score", "label")}[role]
    missing = [r for r in need if r not in roles]
    if missing:
        have = "a score (LLR) column" if "score" in roles else "a targettype column"
        todo = ("give it with its trial key (the file with the targettype column)"
                if "score" in roles else "give the system's score file first, then this key")
        raise fr.error(0, f"detected as a NIST SRE file with {have} but no "
                          f"{' and no '.join(missing)} column; {todo}")
    # every column is read (the ones llrlab does not use as ids, so any text passes)
    kinds = {j: _COLS[r] for r, j in roles.items()}
    cols = [kinds.get(j, Col(ID, "column")) for j in range(fr.ncols)]
    got = read_columns(src, cols, delimiter=fr.delimiter, describe="", first_line=fr.line + 1,
                       skip_line=fr.line, progress=progress, limits=limits)
    v = {r: got.values[j] for r, j in roles.items()}
    segment = v["segment"]
    if "side" in v and len(v["side"].vocab) > 1:
        from ..trials import IdCodes

        sides = v["side"].strings()
        segment = IdCodes.encode([f"{s}:{d}" for s, d in zip(segment.strings(), sides,
                                                              strict=True)])
    if role == "labelled":
        from .labelled import trials_from_columns

        col = {"model": v["model"], "segment": segment, "score": v["score"],
               "label": v["label"]}
        return trials_from_columns(src.name, col, got.locator, progress=progress,
                                   require_both=require_both)
    values = {"scores": v["score"]} if role == "scores" else {"labels": v["label"]}
    if not len(v["model"]):
        raise FileFormatError(src.name, "has a header line but no trials")
    return Table(src.name, v["model"], segment, values, got.locator)
