"""User-controlled text made safe to show in the page.

Everything that comes from a file, an upload, a link or a person -- trial ids, condition,
file and system names, link values, error messages that echo them -- is hostile: the page
shows it *as text*, never as HTML or Markdown.  Every place that puts such a value into an
HTML string (tables, notifications) or a Markdown string (status lines, alerts, notes) goes
through this module:

* :func:`shorten` -- one line of bounded length: control characters are written as escapes
  (``\\x00``, ``\\n``) and the middle of a long value is cut, so that a 1 MB id cannot make a
  1 MB message;
* :func:`html_text` -- :func:`shorten`, then ``html.escape`` (for HTML panes, attribute
  values and notifications, which render HTML);
* :func:`md_text` -- :func:`shorten`, then every ASCII punctuation character as a numeric
  character reference (``&#60;`` for ``<``): any Markdown renderer shows the character
  itself and reads none of them as syntax, so neither raw HTML nor a link, emphasis or
  heading can be formed (Panel's Markdown and Alert panes pass raw HTML through).  A
  formula cannot be formed either: the Markdown renderer decodes the references, and a
  page with MathJax typesets ``$$...$$``, ``\\(...\\)`` and ``\\[...\\]``, honouring
  ``\\href{javascript:...}`` (Panel 1.9 loads MathJax whenever a Markdown pane is shown,
  and its Markdown pane never sends ``disable_math`` to the page; llrlab's served pages
  leave MathJax out, :mod:`~llrlab.dashboard.page_bundle`, and this guards any other
  page, such as a notebook with Panel's ``mathjax`` extension).  So a word joiner
  (U+2060, invisible) stands on both sides of every ``$`` and after every backslash: no two
  dollars and no backslash-parenthesis or -bracket are adjacent in what the page shows.

The text of a lesson step, which has formulas of its own, is rendered by
:mod:`llrlab.dashboard.lesson_text` instead (formulas as MathML, no MathJax).

Widgets that display plain text (Bokeh's Select, MultiSelect, TextInput, legends drawn on
the canvas) need no escaping; widgets that render HTML labels are not used for user values
(the condition picker is a native multi-select, not Choices.js).

Examples
--------
>>> html_text('<img src=x onerror=alert(1)>')
'&lt;img src=x onerror=alert(1)&gt;'
>>> md_text("a*b <i>")
'a&#42;b &#60;i&#62;'
>>> md_text("$$").replace(WORD_JOINER, "+")
'+&#36;++&#36;+'
>>> shorten("id\\x00" + "x" * 500, limit=20)
'id\\\\x00xxx … xxxxxxxx'
"""

from __future__ import annotations

import html
import string

__all__ = ["MAX_MESSAGE", "MAX_SHOWN", "WORD_JOINER", "html_text", "md_text", "shorten"]

#: Longest text shown for one value (an id, a name), in characters.
MAX_SHOWN = 300
#: Longest message shown (an error, the notes of a computation), in characters.
MAX_MESSAGE = 1200
_PUNCT = frozenset(string.punctuation)
_CUT = " … "
#: U+2060 WORD JOINER: zero width, shown as nothing; keeps MathJax from finding delimiters.
WORD_JOINER = "\u2060"
#: How md_text writes a character: a numeric reference, and around the characters of
#: MathJax's delimiters a word joiner.
_MD = {c: f"&#{ord(c)};" for c in _PUNCT}
_MD["$"] = f"{WORD_JOINER}&#36;{WORD_JOINER}"
_MD["\\"] = f"&#92;{WORD_JOINER}"


def _printable(text: str) -> str:
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def shorten(value, limit: int = MAX_SHOWN) -> str:
    """``value`` as one printable line of at most ``limit`` characters.

    Control characters (line breaks, tabs, NUL, ...) are written as Python escapes; when
    the result is longer than ``limit``, its middle is replaced by ``" … "`` (both ends
    are kept: a file name's extension, an id's prefix).
    """
    text = value if isinstance(value, str) else str(value)
    # escape only what can be shown (a control character becomes at most 10 characters)
    if len(text) > 4 * limit:
        half = 2 * limit
        text = text[:half] + text[-half:]
    text = _printable(text)
    if len(text) <= limit:
        return text
    keep = max(limit - len(_CUT), 2)
    head = (keep + 1) // 2
    return text[:head] + _CUT + text[len(text) - (keep - head):]


def html_text(value, limit: int = MAX_MESSAGE) -> str:
    """``value`` shortened and escaped for HTML (element text or a quoted attribute)."""
    return html.escape(shorten(value, limit), quote=True)


def md_text(value, limit: int = MAX_MESSAGE) -> str:
    """``value`` shortened and escaped for Markdown: shown literally by the renderer, and
    never read as a formula by the page (see the module docstring)."""
    text = shorten(value, limit)
    return "".join(_MD.get(c, c) for c in text)
