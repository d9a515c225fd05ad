"""A served session's end frees its page, and the page's buttons with a script leave nothing
in Panel's registry of JavaScript links.

Panel keeps every widget given a JavaScript callback with ``js_on_click`` in
``panel.links.Callback.registry``, whose entries never free themselves (one kept every
closed session's state alive), and while any is registered, Panel walks all the models of a
page at each change of a layout's children.  The dashboard's buttons with a script are
:class:`~llrlab.dashboard.script_button.ScriptButton`: the script on the button's own model.
"""

from __future__ import annotations

import gc
import weakref

import pytest
from bokeh.document import Document
from panel.links import Callback

from llrlab.dashboard.app import create_app
from llrlab.dashboard.script_button import ScriptButton
from llrlab.dashboard.session import end_with_session


def _scripts(model):
    return [cb for cbs in model.js_event_callbacks.values() for cb in cbs]


def _end(doc):
    """What Bokeh does when the session of ``doc`` is destroyed."""
    for cb in list(doc.session_destroyed_callbacks):
        cb(None)


def test_a_page_registers_no_javascript_link_and_its_buttons_carry_their_scripts():
    before = set(Callback.registry.keys())
    page = create_app(demo=False, threaded=False, lesson="calibration")
    doc = Document()
    uploads = page.uploads.layout.get_root(doc)
    doc.add_root(uploads)
    assert set(Callback.registry.keys()) == before
    model = page.uploads.button._models[uploads.ref["id"]][0]
    (script,) = _scripts(model)
    assert "channel.value = JSON.stringify" in script.code
    # the arguments are the models of the same page
    assert script.args["channel"] is page.uploads._channel._models[uploads.ref["id"]][0]
    assert script.args["scores"] is page.uploads.scores._models[uploads.ref["id"]][0]


def test_a_script_button_binds_plain_values_and_needs_its_widgets_made_first():
    import panel as pn

    doc = Document()
    plain = ScriptButton(name="go", code="window.x = token;", args={"token": "abc"})
    root = plain.get_root(doc)
    (script,) = _scripts(root)
    assert script.args == {"token": "abc"}
    assert script.code == "try { window.x = token; } catch (err) { console.log(err) }"
    late = pn.widgets.TextInput()
    button = ScriptButton(name="Load", code="late.value = 'x';", args={"late": late})
    with pytest.raises(RuntimeError, match="must come before it in the page"):
        pn.Column(button, late).get_root(Document())
    root = pn.Column(late, button).get_root(Document())
    (script,) = _scripts(button._models[root.ref["id"]][0])
    assert script.args["late"] is late._models[root.ref["id"]][0]


def test_an_ended_page_is_freed():
    """A page closed while loading (its sidebar never shown): its state is closed, and
    nothing (a registry of links, once) keeps it alive.  A served page's memory after its
    end: tests/browser/test_sessions.py."""
    page = create_app(demo=False, threaded=False)
    doc = Document()
    end_with_session(doc, page.state)
    gone = [weakref.ref(page.state), weakref.ref(page.uploads.button)]
    _end(doc)
    assert page.state.jobs.closed
    del page, doc
    gc.collect()
    assert [r() for r in gone] == [None, None]
