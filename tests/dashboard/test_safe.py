"""User-controlled text is shown as text: the escaping used wherever the page shows it."""

from __future__ import annotations

import html
import re

import panel as pn
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from llrlab.dashboard.safe import MAX_SHOWN, WORD_JOINER, html_text, md_text, shorten

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
    # formulas: the page typesets $$...$$, \(...\) and \[...\] with MathJax, which honours
    # \href (and \class, \style, ...)
    "$$\\href{javascript:alert(1)}{x}$$",
    "\\(\\href{javascript:alert(1)}{x}\\)",
    "\\[\\class{x}{\\href{javascript:alert(1)}{x}}\\]",
    "$$\\href{javascript&#58;alert(1)}{x}$$",
    "  $$  \\href {javascript:alert(1)} {x}  $$",
]
#: MathJax's delimiters in the page (Bokeh's bundle: FindTeX with its default delimiters).
MATH_DELIMITERS = ("$$", "\\(", "\\[")


def rendered(markdown_text):
    """HTML of ``markdown_text`` as Panel's Markdown (and Alert) pane renders it."""
    obj = pn.pane.Markdown(markdown_text)._transform_object(markdown_text)["object"]
    return html.unescape(obj)  # Panel escapes the HTML once more for its model


def text_of(html_text_):
    """The text the page shows (the word joiners md_text adds show as nothing)."""
    return html.unescape(re.sub(r"</?p>", "", html_text_)).replace(WORD_JOINER, "").strip()


def assert_no_formula(out):
    """Nothing in rendered HTML that the page's MathJax would typeset."""
    for delim in MATH_DELIMITERS:
        assert delim not in out, (delim, out)


@pytest.mark.parametrize("value", HOSTILE)
def test_markdown_shows_hostile_values_as_text(value):
    out = rendered(md_text(value))
    assert re.findall(r"<(/?\w+)", out) in ([], ["p", "/p"])  # no element but a paragraph
    assert text_of(out) == shorten(value).strip()
    assert_no_formula(out)


@settings(max_examples=200, deadline=None)
@given(st.text(min_size=1, max_size=60))
def test_markdown_shows_any_text_as_text(value):
    out = rendered(md_text(value))
    assert set(re.findall(r"<(/?\w+)", out)) <= {"p", "/p"}
    assert " ".join(text_of(out).split()) == " ".join(shorten(value).split())
    assert_no_formula(out)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="$\\()[]{}ab &#;", min_size=1, max_size=40),
       st.sampled_from(["", "(", "a "]), st.sampled_from(["", "(", "[", ")", " b"]))
def test_no_formula_forms_from_a_value_and_the_text_around_it(value, before, after):
    """Neither within a value nor where it meets the page's own text (which has brackets and
    parentheses but no dollar or backslash) do MathJax's delimiters form."""
    assert_no_formula(rendered(before + md_text(value) + after))


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
