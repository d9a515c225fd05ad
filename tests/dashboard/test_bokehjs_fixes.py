"""The BokehJS the page's fixes replace is the BokehJS installed (``dashboard/bokehjs_fixes``):
a Bokeh release that renames a module or a member fails here, not silently in the page."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from llrlab.dashboard.bokehjs_fixes import BOKEHJS_FIXES_JS, REPLACED


@pytest.fixture(scope="module")
def bokehjs():
    return (resources.files("bokeh") / "server" / "static" / "js" / "bokeh.js").read_text(
        encoding="utf-8")


@pytest.mark.parametrize(("module", "cls", "member"), REPLACED)
def test_what_each_fix_replaces_exists(bokehjs, module, cls, member):
    # the module is in BokehJS's table of modules, and defines the class with the member
    assert f'"{module}":' in bokehjs
    start = bokehjs.index(f"/* {module}.js */")
    following = re.compile(r"\n/\* [\w/.-]+\.js \*/ function").search(bokehjs, start + 10)
    body = bokehjs[start:following.start() if following else None]
    assert re.search(rf"class {cls}\b", body), (module, cls)
    assert re.search(rf"(get )?{member}\(", body), (module, cls, member)
    # and the fix names all three
    assert f"'{module}'" in BOKEHJS_FIXES_JS and f"'{cls}'" in BOKEHJS_FIXES_JS
    assert member in BOKEHJS_FIXES_JS


def test_the_fixes_are_in_the_page_script():
    from llrlab.dashboard.page_control import PageControl

    assert PageControl._scripts["render"].startswith(BOKEHJS_FIXES_JS)
