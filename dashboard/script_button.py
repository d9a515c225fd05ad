"""A button whose click runs JavaScript in the page, without Panel's link registry.

Panel's ``Button.js_on_click`` registers a ``panel.links.Callback``.  While one is registered
anywhere in a page, Panel's pre-processing hook (``Callback._process_callbacks``) walks every
Bokeh model of the page (``Model.select``) each time the children of any layout change: on a
lesson page of ~700 models that was ~8 % of the server's time to open the page (py-spy), and
it comes back with every layout change of a step.  :class:`ScriptButton` attaches its
``CustomJS`` to the button's own Bokeh model when Panel makes it, as Panel's callback would,
and registers nothing.
"""

from __future__ import annotations

import panel as pn
from bokeh.models import CustomJS

__all__ = ["ScriptButton"]


class ScriptButton(pn.widgets.Button):
    """``ScriptButton(code=JS, args={...}, **button_params)``: on a click, the page runs
    ``code`` with the names of ``args`` bound (plain values as they are; Panel objects as
    their Bokeh models of the same page, which must therefore come earlier in the page than
    the button).  Python's ``on_click`` callbacks work as on any button."""

    def __init__(self, *, code, args=None, **params):
        super().__init__(**params)
        self._script = (code, dict(args or {}))

    def _get_model(self, doc, root=None, parent=None, comm=None):
        model = super()._get_model(doc, root, parent, comm)
        root = model if root is None else root
        code, args = self._script
        refs = {name: self._model_of(value, root) for name, value in args.items()}
        # as Panel's own callbacks: an error in the page is logged there, not raised
        model.js_on_event("button_click", CustomJS(
            args=refs, code=f"try {{ {code} }} catch (err) {{ console.log(err) }}"))
        return model

    def _model_of(self, value, root):
        if not isinstance(value, pn.viewable.Viewable):
            return value
        made = value._models.get(root.ref["id"])
        if made is None:
            raise RuntimeError(f"{type(value).__name__} {value.name!r}, an argument of the "
                               f"button {self.name!r}, must come before it in the page")
        return made[0]
