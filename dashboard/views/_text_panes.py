"""HTML and Markdown panes whose new text is sent alone.

When the ``object`` of a Panel HTML or Markdown pane changes, Panel 1.9 recomputes and sets
every property of its Bokeh model (``HTMLBasePane._update``: the design's modifiers, new
stylesheet models, each property validated again), though only the text changed: 2-3 ms of
the server's CPU per pane on the metrics table of a drag's pause (the table and the line
above it change at every pause).  These panes set the model's ``text`` alone, the same value
Panel computes (``_transform_object``); the other parameters reach the model through Panel's
own watchers, as in their base classes.
"""

from __future__ import annotations

import panel as pn

__all__ = ["TextHTML", "TextMarkdown"]


class _TextOnly:
    # never chosen by ``pn.panel`` for an object (only made by name)
    priority = False

    def _update(self, ref, model):
        model.text = self._transform_object(self.object)["object"]


class TextHTML(_TextOnly, pn.pane.HTML):
    """A :class:`panel.pane.HTML` whose changed ``object`` updates the model's text alone."""


class TextMarkdown(_TextOnly, pn.pane.Markdown):
    """A :class:`panel.pane.Markdown` whose changed ``object`` updates the model's text
    alone."""
