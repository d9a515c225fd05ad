"""The scripts a served page loads: BokehJS and Panel, without MathJax.

Panel 1.9's server decides per page whether the page loads Bokeh's MathJax bundle
(``bokeh-mathjax.min.js``, 1.8 MB of JavaScript): whenever any of its models is a Markdown or
HTML pane (``panel.io.resources.bundle_resources``, ``enable_mathjax='auto'``), which every
llrlab page has.  llrlab typesets no formula with MathJax: a lesson's formulas are MathML made
by :mod:`llrlab.dashboard.lesson_text`, and no other text of the page is mathematics (user
text is kept from forming MathJax's delimiters by :mod:`llrlab.dashboard.safe`).  So the
bundle only cost every page's opening the time to fetch, parse and run it, and every Markdown
or HTML pane a search for formulas at each change; and it was the one engine that could turn
text into a link that runs script (``\\href{javascript:...}``, issue 18).

:func:`without_mathjax` makes Panel's server build every page's list of scripts with
``enable_mathjax=False``: Panel's HTML and Markdown views then show their text as it is (they
typeset only when the bundle is there).  It is installed once per process, by
:func:`~llrlab.dashboard.app.create_app`; when Panel's server no longer has the function it
wraps, or the function no longer takes ``enable_mathjax``, nothing changes and the page
loads MathJax as before (``tests/dashboard/test_page_bundle.py`` checks both the wrapped
function and, on a served page, that the bundle is not loaded).
"""

from __future__ import annotations

import inspect
import logging

__all__ = ["without_mathjax"]

log = logging.getLogger(__name__)

_MARK = "_llrlab_without_mathjax"


def without_mathjax():
    """Make Panel's server leave Bokeh's MathJax bundle out of every page it serves (see the
    module docstring).  Returns True when installed (now or before), False when Panel's
    server has no ``bundle_resources(..., enable_mathjax=...)`` to wrap."""
    try:
        import panel.io.server as server
    except ImportError:  # hook: Panel without its server module
        return False
    original = getattr(server, "bundle_resources", None)
    if original is None:
        return False
    if getattr(original, _MARK, False):
        return True
    try:
        takes = "enable_mathjax" in inspect.signature(original).parameters
    except (TypeError, ValueError):
        takes = False
    if not takes:
        log.debug("panel.io.server.bundle_resources takes no enable_mathjax: MathJax stays")
        return False

    def bundle_resources(roots, resources, *args, **kwargs):
        kwargs["enable_mathjax"] = False
        return original(roots, resources, *args, **kwargs)

    setattr(bundle_resources, _MARK, True)
    bundle_resources.__wrapped__ = original
    server.bundle_resources = bundle_resources
    return True
