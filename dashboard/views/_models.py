"""The served document's model graph: changes that add models, or only move them, without
a walk of every model of the page per change.

Bokeh walks every model of a document again (``DocumentModelManager.recompute``) after each
change of a property that holds models; for a served page that walk took ~0.15 s.
"""

from __future__ import annotations

import contextlib


def frozen(doc):
    """A block whose changes (e.g. new renderers and legend items) ``doc``'s models are walked
    for once, at its end: ``doc.models.freeze()``; nothing for no document."""
    return doc.models.freeze() if doc is not None else contextlib.nullcontext()


@contextlib.contextmanager
def same_models(doc, moved):
    """A block that only moves ``moved``, a model ``doc`` already holds, to another place
    in the same figure (a legend beside or below its plot): the set of the document's models
    is the same after it.

    A walk would then find nothing to attach or detach, so it is skipped: the block runs
    with Bokeh's freeze count raised and lowered again without the walk (on every lesson
    step whose layout moved a legend, 20 % of the server's CPU).  Where that is not possible
    (no document, a model not in it, a Bokeh without the count) it is :func:`frozen`: one
    walk."""
    models = None if doc is None else doc.models
    if models is None or moved.document is not doc or not isinstance(
            getattr(models, "_freeze_count", None), int):
        with frozen(doc):
            yield
        return
    models._freeze_count += 1
    try:
        yield
    finally:
        models._freeze_count -= 1
