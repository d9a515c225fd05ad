"""The page's address and an open lesson: the browser's own address, reported when the page
starts, must not drop the lesson the server opened (``llrlab serve --lesson``)."""

from __future__ import annotations

import gc
import weakref

from panel.io.location import Location

from llrlab.dashboard.state.lesson import LessonState
from llrlab.dashboard.url import keep_lesson_in_address


class _Doc:
    """The next-tick queue of a served document, run by hand."""

    def __init__(self):
        self.queue = []

    def add_next_tick_callback(self, fn):
        self.queue.append(fn)

    def run(self):
        while self.queue:
            self.queue.pop(0)()


def _lesson_state():
    st = LessonState()
    st.param.lesson.objects = ["", "lecture"]
    return st


def test_an_address_without_the_open_lesson_gets_it_back():
    loc, doc, lesson = Location(), _Doc(), _lesson_state()
    lesson.open("lecture", 2)
    keep_lesson_in_address(loc, lesson, doc)
    doc.run()
    assert loc.query_params == {"lesson": "lecture", "step": 2}
    loc.search = "?system=A"  # the browser reports its own address
    assert loc.query_params == {"system": "A"}  # (not in the same turn)
    doc.run()
    assert loc.query_params == {"system": "A", "lesson": "lecture", "step": 2}
    # an address that names a lesson is left as it is, and a closed lesson is not put back
    loc.search = "?lesson=lecture&step=3"
    lesson.close()
    loc.search = ""
    doc.run()
    assert loc.search == ""


def test_not_served_the_address_is_set_at_once_and_a_closed_page_is_not_kept():
    loc, lesson = Location(), _lesson_state()
    lesson.open("lecture", 3)
    keep_lesson_in_address(loc, lesson, None)
    assert loc.query_params == {"lesson": "lecture", "step": 3}
    # the page's location (kept by Panel for the session) does not keep its document alive
    doc, loc2 = _Doc(), Location()
    keep_lesson_in_address(loc2, lesson, doc)
    ref = weakref.ref(doc)
    del doc
    gc.collect()
    assert ref() is None
    loc2.search = "?x=1"  # and a page already gone is left alone
    assert loc2.query_params == {"x": 1}
