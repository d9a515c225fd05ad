"""Better messages for the common mistakes made when naming the input files.

Private helper of :func:`llrlab.core.io.load_trials_with_report`.  When reading fails, the
first line of each file is looked at again and, if the files were evidently given the wrong
way, the error says so and what to do instead:

* a key given in place of the scores, or the two files swapped;
* a header line in a BOSARIS score or key file (the format has none);
* a BOSARIS score or key file given alone (a key forgotten, or the scores);
* a labelled file (which holds its own labels) given with a key.

Each message keeps the file, line and text of the original error.
"""

from __future__ import annotations

from ..errors import FileFormatError
from ._formats import _headerless_shape as _shape
from ._formats import head_of, is_number, labelled_header
from ._text import show
from .labelled import COLUMN_NAMES

__all__ = ["key_hint", "labelled_hint", "score_hint"]

#: Header words of BOSARIS-like files beyond the labelled file's column names.
_HEADER_WORDS = set(COLUMN_NAMES) | {"modelid", "model_id", "segmentid", "segment_id", "trial",
                                     "enrol", "enrolment", "enrollment", "testid", "test_id",
                                     "utterance", "utt", "spk", "speaker", "value"}


def _peek(src):
    """The first non-blank line of a text source, or None (HDF5, or unreadable): from the
    head the load has read already (see :class:`~llrlab.core.io._formats.Head`)."""
    return head_of(src).peek()


def _text(tok):
    return tok.decode("utf-8", "replace")


def _looks_like_header(fr):
    words = [_text(t).lower() for t in fr.tokens]
    return not any(is_number(t) for t in fr.tokens) and any(w in _HEADER_WORDS for w in words)


_labelled_roles = labelled_header


_GENERIC = "; with other columns, start the file with a header line"


def _error(src, fr, exc, hint):
    """The original error (what is wrong, where) followed by ``hint`` (what to do)."""
    line, text = (exc.line, exc.text) if exc.line is not None else (fr.line, fr.text)
    reason = exc.reason.split(_GENERIC)[0]
    return FileFormatError(src.name, f"{reason}: {hint}", line=line, text=text)


def _header_hint(src, fr, exc, what):
    words = " ".join(_text(t) for t in fr.tokens)
    roles = _labelled_roles(fr)
    alone = ("; or, since it names its labels, give it alone as a labelled file"
             if roles is not None and what == "score" and "score" in roles else "")
    return _error(src, fr, exc, f"this looks like a header line ({show(words, 60)}), but a "
                                f"BOSARIS {what} file has no header: delete that line{alone}")


def labelled_hint(src, exc):
    """The error of reading ``src`` as one labelled file, with a hint when it is a BOSARIS
    score or key file (a key forgotten, or given alone)."""
    fr = _peek(src)
    if fr is None or _labelled_roles(fr) is not None or (exc.line not in (None, fr.line)):
        return exc
    shape = _shape(fr)
    if shape == "score":
        return _error(src, fr, exc, "the file looks like a BOSARIS score file (model segment "
                                    "score), which holds no labels; give its key file too")
    if shape == "key":
        return _error(src, fr, exc, "the file looks like a BOSARIS key file (model segment "
                                    "target|nontarget), which holds no scores; give the score "
                                    "file first, then this key")
    return exc


def score_hint(src, key_src, exc):
    """The error of reading ``src`` as a score file (with ``key_src`` as its key), with a
    hint when the files look swapped, the file has a header or is a labelled file."""
    if src.is_hdf5:
        if key_src.is_hdf5 and "not a score file" in exc.reason and _hdf5_kind(key_src) == \
                "scores":
            return FileFormatError(src.name, f"is an HDF5 key and {key_src.name} an HDF5 score "
                                             f"file: the two files look swapped; give the "
                                             f"score file first, then the key")
        return exc
    fr = _peek(src)
    if fr is None:
        return exc
    shape = _shape(fr)
    if shape == "key":
        kr = _peek(key_src)
        if (kr is not None and _shape(kr) == "score") or (key_src.is_hdf5 and
                                                          _hdf5_kind(key_src) == "scores"):
            return _error(src, fr, exc, f"the two files look swapped: this one looks like a key "
                                        f"(labels in its third column) and {key_src.name} like "
                                        f"a score file; give the score file first, then the "
                                        f"key")
        return _error(src, fr, exc, "this file looks like a key (labels in its third column), "
                                    "not a score file; give the score file first, then the "
                                    "key")
    if shape == "labelled" or (_labelled_roles(fr) is not None
                               and "label" in (_labelled_roles(fr) or {})
                               and fr.ncols != 3):
        return _error(src, fr, exc, "the file looks like a labelled file (a score and a label "
                                    "on each line), which holds its own labels; give it alone, "
                                    "without a key file")
    if exc.line == fr.line and _looks_like_header(fr):
        return _header_hint(src, fr, exc, "score")
    return exc


def key_hint(src, key_src, exc):
    """The error of reading ``key_src`` as the key of the score file ``src``, with a hint
    when it looks like a score file, a labelled file or has a header."""
    kr = _peek(key_src)
    if kr is None:
        return exc
    shape = _shape(kr)
    if shape == "score":
        return _error(key_src, kr, exc, "this file looks like a score file (numbers in its "
                                        "third column), not a key; give the key file (model "
                                        "segment target|nontarget) second")
    if shape == "labelled":
        return _error(key_src, kr, exc, f"the file looks like a labelled file (a score and a "
                                        f"label on each line), not a key; give it alone, "
                                        f"without {src.name}")
    if exc.line == kr.line and _looks_like_header(kr):
        return _header_hint(key_src, kr, exc, "key")
    return exc


def _hdf5_kind(src):
    """The layout kind of an HDF5 source ("scores", "key"...), or None if unreadable."""
    return head_of(src).hdf5_kind()
