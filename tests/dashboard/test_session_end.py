"""A served session's end frees its page's JavaScript links, and only those.

Panel keeps every widget with a JavaScript link (the uploads' Load button asks the browser
which files it holds) in ``panel.links.Callback.registry``, whose entries never free
themselves; :func:`llrlab.dashboard.session.end_with_session` drops the ending page's.
A page's sidebar is built when the page is requested but shown (rendered into Bokeh
models) only once the browser is ready, so at any moment another page may hold widgets with
no model yet: their links must survive the end of other sessions, or their JavaScript is
never attached (the Load button then did nothing, as seen in the load test).
"""

from __future__ import annotations

import gc
import weakref

from bokeh.document import Document
from panel.links import Callback

from llrlab.dashboard.app import create_app
from llrlab.dashboard.session import end_with_session, forget_dead_links, link_sources


def _page():
    """A page as a session builds it: its widgets made, none rendered yet."""
    before = link_sources()
    page = create_app(demo=False, threaded=False)
    return page, before


def _end(doc):
    """What Bokeh does when the session of ``doc`` is destroyed."""
    for cb in list(doc.session_destroyed_callbacks):
        cb(None)


def test_another_session_ending_keeps_the_links_of_a_page_not_shown_yet():
    page, _ = _page()
    button = page.uploads.button
    assert button in Callback.registry
    other, other_doc = _page()[0], Document()
    end_with_session(other_doc, other.state, link_sources())
    _end(other_doc)
    forget_dead_links(Document())  # any other page ending, with nothing of its own
    assert button in Callback.registry


def test_the_ending_page_drops_its_own_links_rendered_or_not():
    shown, shown_before = _page()
    hidden, hidden_before = _page()
    doc_shown, doc_hidden = Document(), Document()
    end_with_session(doc_shown, shown.state, shown_before)
    end_with_session(doc_hidden, hidden.state, hidden_before)
    doc_shown.add_root(shown.uploads.button.get_root(doc_shown))  # shown in its page
    keep, _ = _page()  # a third page, not shown yet

    _end(doc_hidden)  # a page whose sidebar was never shown (closed while loading)
    assert hidden.uploads.button not in Callback.registry
    assert shown.uploads.button in Callback.registry
    assert keep.uploads.button in Callback.registry

    _end(doc_shown)
    assert shown.uploads.button not in Callback.registry
    assert keep.uploads.button in Callback.registry

    # nothing of the ended pages is held by the registry or the ownership records
    gone = [weakref.ref(hidden.state), weakref.ref(hidden.uploads.button)]
    del hidden, doc_hidden
    gc.collect()
    assert [r() for r in gone] == [None, None]
