"""Panel panes and widgets that send what changed and no more.

A drag's pause changes the metrics table, the line above it and the sidebar's
operating-point widgets; Panel 1.9 does more than that for each:

* when the ``object`` of an HTML or Markdown pane changes, it recomputes and sets every
  property of the pane's Bokeh model (``HTMLBasePane._update``: the design's modifiers, new
  stylesheet models, each property validated again), though only the text changed;
* when any parameter of a component changes (a widget's ``value``), it recomputes the
  design's parameters (``Reactive._update_properties``: the theme's modifiers), which it
  uses only when the change is to ``stylesheets``.

Measured in-process on the demo page (40 pauses x 5): 9.3 -> 7.5 ms of the server's CPU per
pause for the panes alone; and a DR30 warning that changes no longer makes Bokeh walk all
the document's models (Panel's new stylesheet models for the alert: ~70 ms).
:class:`TextHTML`, :class:`TextMarkdown` and :class:`TextAlert` set the model's ``text``
alone, the value Panel computes (``_transform_object``); every component here skips the
design when ``stylesheets`` did not change (with it, Panel's own code runs).  What the
models receive is the same as with Panel's classes.
"""

from __future__ import annotations

import panel as pn

__all__ = ["LeanFloatInput", "LeanFloatSlider", "TextAlert", "TextHTML", "TextMarkdown"]


class _Lean:
    def _update_properties(self, *events, doc):
        if any(e.name == "stylesheets" for e in events):
            return super()._update_properties(*events, doc=doc)
        return self._process_param_change({e.name: e.new for e in events})


class _TextOnly(_Lean):
    # never chosen by ``pn.panel`` for an object (only made by name)
    priority = False

    def _update(self, ref, model):
        model.text = self._transform_object(self.object)["object"]


class TextHTML(_TextOnly, pn.pane.HTML):
    """A :class:`panel.pane.HTML` whose changed ``object`` updates the model's text alone."""


class TextMarkdown(_TextOnly, pn.pane.Markdown):
    """A :class:`panel.pane.Markdown` whose changed ``object`` updates the model's text
    alone."""


class TextAlert(_TextOnly, pn.pane.Alert):
    """A :class:`panel.pane.Alert` whose changed ``object`` updates the model's text alone
    (Panel's full update of an alert made Bokeh walk the document's models again: the DR30
    warning changes as a drag crosses a DR30 marker)."""


class LeanFloatInput(_Lean, pn.widgets.FloatInput):
    """A :class:`panel.widgets.FloatInput` that skips the design on a new value."""


class LeanFloatSlider(_Lean, pn.widgets.FloatSlider):
    """A :class:`panel.widgets.FloatSlider` that skips the design on a new value."""
