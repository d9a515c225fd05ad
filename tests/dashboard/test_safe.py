"""User-controlled text is shown as text: the escaping used wherever the page shows it."""

from __future__ import annotations

import html
import re

import panel as pn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llrlab.dashboard.safe import MAX_SHOWN, html_text, md_text, shorten

HOSTILE = [
    "<img src=x onerror=alert(1)>",
    "<img/src/onerror=alert(1)>",
    "<script>alert(1)</script>",
    "[click](javascript:alert(1))",
    "![x](x onerror=alert(1))",
    "**bold** _it_ `code` # head",
    "a\n\n# heading\n<div>",
    "&lt;img src=x onerror=alert(1)&gt;",
    "<a href='javascript:alert(1)'>x</a>",
    "\x00\x1b[31m\u202e",
]


def rendered(markdown_text):
    """HTML of ``markdown_text`` as Panel's Markdown (and Alert) pane renders it."""
    obj = pn.pane.Markdown(markdown_text)._transform_object(markdown_text)["object"]
    return html.unescape(obj)  # Panel escapes the HTML once more for its model


def text_of(html_text_):
    return html.unescape(re.sub(r"</?p>", "", html_text_)).strip()


@pytest.mark.parametrize("value", HOSTILE)
def test_markdown_shows_hostile_values_as_text(value):
    out = rendered(md_text(value))
    assert re.findall(r"<(/?\w+)", out) in ([], ["p", "/p"])  # no element but a paragraph
    assert text_of(out) == shorten(value).strip()


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=60))
def test_markdown_shows_any_text_as_text(value):
    out = rendered(md_text(value))
    assert set(re.findall(r"<(/?\w+)", out)) <= {"p", "/p"}
    assert " ".join(text_of(out).split()) == " ".join(shorten(value).split())


@pytest.mark.parametrize("value", HOSTILE)
def test_html_shows_hostile_values_as_text(value):
    out = html_text(value)
    assert "<" not in out and ">" not in out and '"' not in out and "'" not in out
    assert html.unescape(out) == shorten(value)


def test_shorten_bounds_every_shown_value():
    huge = "m" * 1_000_000 + ".txt"
    s = shorten(huge)
    assert len(s) <= MAX_SHOWN and s.endswith(".txt") and " … " in s
    assert len(md_text(huge)) < 10 * MAX_SHOWN and len(html_text(huge)) < 2000
    assert shorten("a\nb\tc\x00") == "a\\nb\\tc\\x00"  # one line, control characters shown
    assert shorten("short") == "short"
    assert len(shorten("\x00" * 10_000, limit=40)) <= 40
