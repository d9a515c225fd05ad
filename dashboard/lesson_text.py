r"""The text of a lesson step: Markdown with formulas, checked and rendered to safe HTML.

A step's text is Markdown (CommonMark with tables and strikethrough) in which formulas are
TeX between ``$...$`` (inline), ``$$...$$`` (displayed), ``\(...\)`` (inline) or ``\[...\]``
(displayed).  The server turns each formula into MathML (``latex2mathml``), which the browser
typesets itself (MathML Core: Chromium 109+, Firefox, Safari) in the text's own font size, with
no script and nothing fetched; no MathJax or KaTeX runs over a lesson's text.

Two layers keep a lesson file from putting a link, a style, HTML or script into the page
(SECURITY.md, "Output safety"):

1. :func:`check_text`, when the lesson file is read: every formula uses only the TeX commands
   of :data:`ALLOWED_COMMANDS` (and the environments of :data:`ALLOWED_ENVIRONMENTS`), no
   HTML tag or character reference, no look-alike of a TeX or HTML delimiter; nowhere in the
   text -- formula or not, after decoding character references, Unicode compatibility forms
   and white space after a backslash -- is a command that links, styles, loads or defines
   (:data:`FORBIDDEN_COMMANDS`) or a ``javascript:`` / ``vbscript:`` address; links go to
   ``http(s)``, ``mailto`` or a relative address; no image.  Each problem is one
   :class:`TextProblem` with the line where it is.
2. :func:`render_html`, whatever it is given: raw HTML is escaped (Markdown's ``html`` off),
   links are limited as above, each formula is converted, parsed as XML and rebuilt from an
   allow-list of MathML elements and attributes (no ``href``, ``class``, ``style``, ``id``,
   ``mathcolor``, no ``annotation-xml``), and the whole result is parsed once more and checked
   against the allow-list of every element and attribute the page may get; a formula that
   fails is shown as its escaped source, a text that fails as escaped plain text.

This module imports neither Panel nor Bokeh.
"""

from __future__ import annotations

import functools
import html
import re
import unicodedata
from html.parser import HTMLParser
from xml.etree import ElementTree

__all__ = ["ALLOWED_COMMANDS", "ALLOWED_ENVIRONMENTS", "FORBIDDEN_COMMANDS", "MATH_CSS",
           "MAX_FORMULA", "TEXT_VARS_CSS", "TextProblem", "check_plain", "check_text",
           "formulas", "gate", "render_html", "text_css", "text_vars"]

#: The style of the rendered formulas (a maths font, the text's size; a displayed formula
#: with room above and below for an integral's limits): the served lesson's text and the
#: lecture file's.
MATH_CSS = """
math { font-family: math, "STIX Two Math", "Cambria Math", "Latin Modern Math",
                     "DejaVu Math TeX Gyre", serif; font-size: inherit; }
math[display="block"] { overflow: visible; max-width: 100%; padding: 0.3em 0; }
"""



def text_css(px, head, scope=None):
    """The type of a lesson step's rendered text: ``px`` pixels, the step's title ``head``,
    formulas' scripts and fractions no smaller than the text (MathML shrinks each level by
    0.71-0.8: a subscript of 18 px text was 14.4 px).  ``scope``: the CSS selector of the
    text's box (None: the box is the shadow host of the served lesson's pane).  ``px`` and
    ``head`` may be CSS lengths instead of numbers (:data:`TEXT_VARS_CSS`)."""
    host, inner = (":host", "") if scope is None else (scope, scope + " ")
    if isinstance(px, str):
        t, h = px, head
        half, fifth = f"calc(0.5 * {px})", f"calc(0.2 * {px})"
    else:
        t, h, half, fifth = f"{px:g}px", f"{head:g}px", f"{0.5 * px:g}px", f"{0.2 * px:g}px"
    return (f"{host} {{ font-size: {t}; line-height: 1.45; }}"
            f" {inner}p, {inner}li {{ font-size: {t}; margin: 0 0 {half} 0; }}"
            f" {inner}h3 {{ font-size: {h}; line-height: 1.25; font-weight: 700;"
            f" margin: {fifth} 0 {half} 0; }}"
            f" {inner}code, {inner}em {{ font-size: 1em; }}"
            f" {inner}math * {{ font-size: max({t}, 0.8em) !important; }}")


#: :func:`text_css` for a pane whose sizes change (the served lesson's text): the sizes are
#: the pane's CSS variables ``--llrlab-text`` and ``--llrlab-head`` (:func:`text_vars`), set
#: in its inline style.  (A pane's changed ``stylesheets`` did not always reach the page: a
#: link opened at 1920 x 1080 kept 1280 x 720's 18 px.)
TEXT_VARS_CSS = text_css("var(--llrlab-text, 18px)", "var(--llrlab-head, 24px)")


def text_vars(px, head):
    """The inline style that sizes :data:`TEXT_VARS_CSS`: text ``px``, title ``head``."""
    return {"--llrlab-text": f"{px:g}px", "--llrlab-head": f"{head:g}px"}


#: Longest formula (characters between its delimiters) and deepest nesting of braces.
MAX_FORMULA = 1000
MAX_DEPTH = 24

#: TeX commands a formula may use: symbols, operators, fonts, fractions, roots, accents,
#: spacing and delimiters -- all that ``latex2mathml`` turns into plain MathML.
ALLOWED_COMMANDS = frozenset("""
alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi
pi varpi rho varrho sigma varsigma tau upsilon phi varphi chi psi omega
Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega
cdot times div pm mp ast star circ bullet cap cup setminus wedge vee oplus otimes
le leq ge geq ne neq lt gt ll gg approx sim simeq cong equiv propto
in notin ni subset subseteq supset supseteq mid parallel perp
to rightarrow leftarrow leftrightarrow Rightarrow Leftarrow Leftrightarrow mapsto
uparrow downarrow longrightarrow longleftarrow implies iff
infty partial nabla forall exists neg lnot emptyset varnothing ell hbar Re Im prime
ldots cdots vdots ddots dots
sum prod int iint oint lim limsup liminf sup inf max min argmax argmin det Pr exp log
ln lg sin cos tan sinh cosh tanh arcsin arccos arctan sec csc cot deg dim gcd hom ker bmod
frac dfrac tfrac binom sqrt over
left right big Big bigg Bigg bigl bigr Bigl Bigr
langle rangle lfloor rfloor lceil rceil lbrace rbrace vert Vert lvert rvert lVert rVert
mathrm mathit mathbf mathsf mathtt mathcal mathbb mathfrak boldsymbol text textrm textit
textbf operatorname mathop
hat tilde bar vec dot ddot check breve acute grave widehat widetilde overline underline
overbrace underbrace overset underset stackrel
limits nolimits displaystyle textstyle
quad qquad
begin end
""".split())
#: Commands of one non-letter character: spacing, escaped symbols, the row separator.
_ALLOWED_SYMBOLS = frozenset((",", ";", ":", "{", "}", "_", "%", "#", "|", "\\", " "))
#: Environments a formula may use (``\begin{...}``).
ALLOWED_ENVIRONMENTS = ("matrix", "pmatrix", "bmatrix", "vmatrix", "Vmatrix", "cases")
#: Commands refused anywhere in a lesson's text, formula or not (whatever a TeX renderer
#: would make of them: a link, a class, a style, an id, data, a loaded extension, a raw
#: character or a new definition).
FORBIDDEN_COMMANDS = (
    "href", "url", "class", "style", "cssId", "data", "unicode", "require", "html",
    "htmlClass", "htmlId", "htmlStyle", "htmlData", "includegraphics", "bbox", "color",
    "textcolor", "colorbox", "fcolorbox", "mmlToken", "toggle", "mathtip", "texttip",
    "def", "gdef", "edef", "xdef", "let", "futurelet", "newcommand", "renewcommand",
    "providecommand", "DeclareMathOperator", "newenvironment", "renewenvironment", "csname",
    "endcsname", "expandafter", "input", "include", "write", "catcode")
_FORBIDDEN_RE = re.compile(r"\\(" + "|".join(sorted(FORBIDDEN_COMMANDS, key=len, reverse=True))
                           + r")(?![A-Za-z])")
_SCHEMES = ("javascript:", "vbscript:")
#: Characters of TeX or HTML syntax: a look-alike of one (e.g. U+FF3C FULLWIDTH REVERSE
#: SOLIDUS) is refused in a formula.
_SYNTAX = set("\\{}$<>&#%^_")
_COMMAND = re.compile(r"\\([A-Za-z]+|.?)", re.S)
_TAG = re.compile(r"<[A-Za-z/!?]")
_ENTITY = re.compile(r"&(#[0-9]+|#[xX][0-9A-Fa-f]+|[A-Za-z][A-Za-z0-9]*);?")
_LINK_OK = re.compile(r"^(https?://|mailto:|[?#./]|[A-Za-z0-9_-]+(/|\.|$))", re.I)


class TextProblem(ValueError):
    """A problem in a step's text; ``line`` is its line in the text (0 for the first)."""

    def __init__(self, line, message):
        super().__init__(message)
        self.line = int(line)


def _shown(text, limit=80):
    """A formula or address in a message: one line, bounded (both ends kept)."""
    from .safe import shorten

    return shorten(" ".join(text.split()), limit)


# ---------------------------------------------------------------------------- Markdown


def _bracket_math(state, silent):
    r"""Inline rule: ``\(...\)`` (inline) and ``\[...\]`` (displayed) formulas."""
    src, pos = state.src, state.pos
    if src[pos] != "\\" or pos + 1 >= len(src) or src[pos + 1] not in "([":
        return False
    close = "\\)" if src[pos + 1] == "(" else "\\]"
    end = src.find(close, pos + 2)
    if end < 0 or end == pos + 2:
        return False
    if not silent:
        display = src[pos + 1] == "["
        token = state.push("math_inline_double" if display else "math_inline", "math", 0)
        token.content = src[pos + 2:end]
        token.markup = src[pos:pos + 2]
    state.pos = end + 2
    return True


def _link_ok(url):
    return bool(_LINK_OK.match(url.strip())) and not _has_scheme(url)


def _has_scheme(text):
    compact = re.sub(r"[\s\x00-\x1f]", "", _decoded(text)[0]).lower()
    return any(s in compact for s in _SCHEMES)


@functools.lru_cache(maxsize=1)
def _markdown():
    from markdown_it import MarkdownIt
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.enable(["table", "strikethrough"])
    md.use(dollarmath_plugin, allow_labels=False, allow_space=False, allow_digits=False,
           double_inline=True)
    md.inline.ruler.before("escape", "math_bracket", _bracket_math)
    md.validateLink = _link_ok

    def inline(self, tokens, idx, options, env):
        return _formula_html(tokens[idx].content, display=False)

    def display(self, tokens, idx, options, env):
        return _formula_html(tokens[idx].content, display=True)

    def block(self, tokens, idx, options, env):
        return f"<p>{_formula_html(tokens[idx].content, display=True)}</p>\n"

    def link_open(self, tokens, idx, options, env):
        token = tokens[idx]
        if str(token.attrGet("href") or "").lower().startswith(("http://", "https://")):
            token.attrSet("target", "_blank")
            token.attrSet("rel", "noopener noreferrer")
        return self.renderToken(tokens, idx, options, env)

    md.add_render_rule("math_inline", inline)
    md.add_render_rule("math_inline_double", display)
    md.add_render_rule("math_block", block)
    md.add_render_rule("link_open", link_open)
    return md


def formulas(text):
    """The formulas of a step's text as ``(line, source, display)``: the line (0 for the
    first) where each starts, its TeX between the delimiters, displayed or inline."""
    lines = text.split("\n")
    out = []
    for tok in _markdown().parse(text):
        if tok.type == "math_block":
            out.append((tok.map[0] if tok.map else 0, tok.content, True))
        elif tok.type == "inline" and tok.children:
            start = tok.map[0] if tok.map else 0
            stop = tok.map[1] if tok.map else len(lines)
            block = "\n".join(lines[start:stop])
            pos = 0
            for child in tok.children:
                if child.type not in ("math_inline", "math_inline_double"):
                    continue
                at = block.find(child.content, pos)
                if at < 0:
                    at = pos
                out.append((start + block.count("\n", 0, at), child.content,
                            child.type == "math_inline_double"))
                pos = at + len(child.content)
    return out


# ---------------------------------------------------------------------------- checking


def _decoded(text):
    """``(normalized, index)``: ``text`` with character references decoded (three times,
    for references of references), Unicode compatibility forms folded (NFKC) and white
    space after a backslash removed; ``index[i]`` is the position in ``text`` that character
    ``i`` comes from."""
    chars, index = list(text), list(range(len(text)))
    for _ in range(3):
        src, pos = "".join(chars), index
        if "&" not in src:
            break
        chars, index, last = [], [], 0
        for m in _ENTITY.finditer(src):
            value = html.unescape(m.group(0))
            if value == m.group(0):
                continue
            chars += src[last:m.start()]
            index += pos[last:m.start()]
            chars += value
            index += [pos[m.start()]] * len(value)
            last = m.end()
        chars += src[last:]
        index += pos[last:]
    out, where = [], []
    for c, i in zip(chars, index, strict=True):
        folded = unicodedata.normalize("NFKC", c)
        out += folded
        where += [i] * len(folded)
    # white space after a backslash: '\ href' and '\<newline>href' read as '\href'
    text2, keep, skip = "".join(out), [], False
    for k, c in enumerate(text2):
        if skip and c.isspace():
            continue
        skip = c == "\\"
        keep.append(k)
    return "".join(text2[k] for k in keep), [where[k] for k in keep]


def _forbidden(text):
    """``(offset, what)`` of the first forbidden command or address in ``text``, or None."""
    norm, index = _decoded(text)
    m = _FORBIDDEN_RE.search(norm)
    hits = [] if m is None else [(index[m.start()], f"the command \\{m.group(1)}")]
    low = norm.lower()
    compact = [(k, c) for k, c in enumerate(low) if not (c.isspace() or ord(c) < 32)]
    squeezed = "".join(c for _, c in compact)
    for scheme in _SCHEMES:
        at = squeezed.find(scheme)
        if at >= 0:
            hits.append((index[compact[at][0]], f"a {scheme[:-1]}: address"))
    return min(hits) if hits else None


def _formula_problem(tex):
    """Why formula ``tex`` is refused (one phrase), or '' when it may be shown."""
    if len(tex) > MAX_FORMULA:
        return f"has more than {MAX_FORMULA} characters"
    for c in tex:
        if c not in _SYNTAX and _SYNTAX & set(unicodedata.normalize("NFKC", c)):
            return (f"has the character U+{ord(c):04X} ({unicodedata.name(c, '?')}), a "
                    f"look-alike of TeX or HTML syntax")
        if unicodedata.category(c) in ("Cc", "Cf") and c not in "\n\t":
            return f"has the control character U+{ord(c):04X}"
    if _TAG.search(tex):
        return "has an HTML tag (write \\lt or '< ' for a less-than sign)"
    if _ENTITY.search(tex):
        return "has an HTML character reference ('&...;')"
    depth = 0
    for k, c in enumerate(tex):
        if c == "{" and (k == 0 or tex[k - 1] != "\\"):
            depth += 1
            if depth > MAX_DEPTH:
                return f"nests braces more than {MAX_DEPTH} deep"
        elif c == "}" and (k == 0 or tex[k - 1] != "\\"):
            depth -= 1
            if depth < 0:
                return "closes a brace that is not open"
    if depth:
        return "leaves a brace open"
    for m in _COMMAND.finditer(tex):
        name = m.group(1)
        if name == "":
            return "ends with a backslash"
        if len(name) == 1 and not name.isalpha():
            if name not in _ALLOWED_SYMBOLS:
                return f"uses \\{name}, which lesson maths does not allow"
            continue
        if name not in ALLOWED_COMMANDS:
            return (f"uses \\{name}, which lesson maths does not allow (a formula may not "
                    f"link, style, load or define anything; docs/lessons.md lists the "
                    f"commands it may use)")
        if name in ("begin", "end"):
            env = re.match(r"\s*\{([^{}]*)\}", tex[m.end():])
            if env is None or env.group(1) not in ALLOWED_ENVIRONMENTS:
                got = env.group(1) if env else ""
                return (f"uses the environment '{_shown(got, 30)}' (allowed: "
                        f"{', '.join(ALLOWED_ENVIRONMENTS)})")
    if _mathml(tex, False) is None:
        return "cannot be read as a formula"
    return ""


def check_plain(text):
    """Check a title or description (shown as text): no forbidden command or script
    address, as in :func:`check_text` (which checks a step's text).

    Raises
    ------
    TextProblem
    """
    hit = _forbidden(text)
    if hit is not None:
        _raise(0, f"{hit[1]} is not allowed in a lesson (no command that links, styles, "
                  f"loads or defines, no script address)")


def check_text(text):
    """Check a step's text (see the module docstring).

    Raises
    ------
    TextProblem
        The first problem, with its line in ``text``; the message says what is wrong and,
        for a formula, shows it.
    """
    lines = text.split("\n")
    hit = _forbidden(text)
    if hit is not None:
        at, what = hit
        line = text.count("\n", 0, at)
        return _raise(line, f"{what} is not allowed in a lesson's text (no command that "
                            f"links, styles, loads or defines, no script address): "
                            f"'{_shown(lines[line].strip())}'")
    for line, tex, display in formulas(text):
        why = _formula_problem(tex)
        if why:
            delim = ("$$", "$$") if display else ("$", "$")
            _raise(line, f"the formula {delim[0]}{_shown(tex, 60)}{delim[1]} {why}")
    for tok in _markdown().parse(text):
        for child in (tok, *(tok.children or ())):
            if child.type == "image":
                _raise(tok.map[0] if tok.map else 0,
                       "the text has an image ('![...](...)'); a lesson's text is Markdown "
                       "without images (they would be fetched from wherever they point)")
    for k, line in enumerate(lines):  # links the Markdown renderer refused are shown as text
        for m in re.finditer(r"\]\(\s*<?([^)\s>]*)", line):
            if m.group(1) and not _link_ok(m.group(1)):
                _raise(k, f"the link address '{_shown(m.group(1), 60)}' is not allowed (a "
                          f"link goes to an http(s) or mailto address, or a relative one)")
    return None


def _raise(line, message):
    raise TextProblem(line, message)


# ---------------------------------------------------------------------------- MathML

#: MathML elements a formula may become, with their allowed attributes and values.
_VALUE = {
    "bool": re.compile(r"^(true|false)$"),
    "length": re.compile(r"^-?[0-9]*\.?[0-9]+(em|ex)?$"),
    "variant": re.compile(r"^(normal|bold|italic|bold-italic|double-struck|script|"
                          r"bold-script|fraktur|bold-fraktur|sans-serif|bold-sans-serif|"
                          r"sans-serif-italic|sans-serif-bold-italic|monospace)$"),
    "form": re.compile(r"^(prefix|infix|postfix)$"),
    "align": re.compile(r"^(left|center|right)( (left|center|right))*$"),
    "level": re.compile(r"^[0-9]$"),
    "display": re.compile(r"^(block|inline)$"),
    "newline": re.compile(r"^newline$"),
    "xmlns": re.compile(r"^http://www\.w3\.org/1998/Math/MathML$"),
}
_TOKEN_ATTRS = {"mathvariant": "variant"}
_MO_ATTRS = {"stretchy": "bool", "fence": "bool", "form": "form", "accent": "bool",
             "movablelimits": "bool", "minsize": "length", "maxsize": "length",
             "lspace": "length", "rspace": "length", "mathvariant": "variant"}
_MATHML = {
    "math": {"display": "display", "xmlns": "xmlns"},
    "mrow": {}, "mi": _TOKEN_ATTRS, "mn": _TOKEN_ATTRS, "mtext": _TOKEN_ATTRS,
    "mo": _MO_ATTRS, "mspace": {"width": "length", "linebreak": "newline"},
    "msub": {}, "msup": {}, "msubsup": {},
    "mfrac": {"linethickness": "length"}, "msqrt": {}, "mroot": {},
    "mover": {"accent": "bool"}, "munder": {"accentunder": "bool"},
    "munderover": {"accent": "bool", "accentunder": "bool"},
    "mtable": {"columnalign": "align"}, "mtr": {}, "mtd": {"columnalign": "align"},
    "mstyle": {"displaystyle": "bool", "scriptlevel": "level"},
    "mpadded": {"width": "length", "lspace": "length"}, "mphantom": {},
}
_NS = "{http://www.w3.org/1998/Math/MathML}"


#: A sign after one of these (or first in its row) is a prefix: ``(-x)`` has no space after
#: the minus (the converter leaves the form to the browser, which sees an infix minus).
_SIGNS = frozenset("−-+±∓")
_BEFORE_PREFIX = frozenset("([{|‖⟨,;:=<>≤≥≠≈∼→←↔⇒⇔∈")


def _tag(el):
    return el.tag[len(_NS):] if el.tag.startswith(_NS) else el.tag


def _space_functions(el):
    """A thin space after a function name (``ln``, ``log``, ``min``, ...) that is not followed
    by a parenthesis: ``ln 2`` rather than ``ln2`` (the converter writes names as ``mi``,
    which the browser sets without the space TeX gives an operator)."""
    kids = list(el)
    for k in range(len(kids) - 1, -1, -1):
        child, nxt = kids[k], kids[k + 1] if k + 1 < len(kids) else None
        name = (child.text or "").strip()
        if (_tag(child) in ("mi", "mo") and len(name) > 1 and name.isalpha() and nxt is not None
                and not (_tag(nxt) == "mo" and (nxt.text or "").strip()[:1] in "([{|")):
            el.insert(k + 1, ElementTree.Element("mspace", {"width": "0.167em"}))


def _prefix_signs(el):
    """Mark the signs of ``el``'s rows that stand before their operand as prefix."""
    prev = None
    for child in el:
        if (_tag(child) == "mo" and (child.text or "").strip() in _SIGNS
                and "form" not in child.attrib
                and (prev is None or (_tag(prev) == "mo"
                                      and (prev.text or "").strip()[-1:] in _BEFORE_PREFIX))):
            child.set("form", "prefix")
        prev = child


def _clean(el):
    """Element ``el`` rebuilt as MathML text from the allow-list (ValueError otherwise)."""
    tag = _tag(el)
    allowed = _MATHML.get(tag)
    if allowed is None:
        raise ValueError(f"element {tag!r}")
    if tag in ("mrow", "math", "mstyle", "mtd", "msqrt", "mpadded", "mphantom"):
        _prefix_signs(el)
        _space_functions(el)
    attrs = []
    for name, value in el.attrib.items():
        kind = allowed.get(name)
        if kind is None or not _VALUE[kind].match(value):
            raise ValueError(f"attribute {name!r}")
        attrs.append(f' {name}="{html.escape(value, quote=True)}"')
    inner = html.escape(el.text or "", quote=False)
    if "\\" in inner:
        raise ValueError("an unconverted command")
    for child in el:
        inner += _clean(child) + html.escape(child.tail or "", quote=False)
    return f"<{tag}{''.join(attrs)}>{inner}</{tag}>"


@functools.lru_cache(maxsize=2048)
def _mathml(tex, display):
    """MathML of formula ``tex`` from the allow-list, or None when it cannot be made."""
    from latex2mathml.converter import convert

    try:
        raw = convert(tex, display="block" if display else "inline")
        root = ElementTree.fromstring(raw)
        return _clean(root)
    except Exception:  # the converter's own errors (and any other) on hostile input
        return None


def _formula_html(tex, display):
    r"""A formula as MathML, or (refused or unreadable) its source as escaped code."""
    out = None if _formula_problem(tex) else _mathml(tex, display)
    if out is None:
        delim = "$$" if display else "$"
        return f"<code>{html.escape(delim + tex + delim)}</code>"
    return out


# ---------------------------------------------------------------------------- the gate

_HTML_ATTRS = {
    "p": {}, "em": {}, "strong": {}, "code": {}, "pre": {}, "ul": {}, "ol": {"start": r"\d+"},
    "li": {}, "h1": {}, "h2": {}, "h3": {}, "h4": {}, "h5": {}, "h6": {}, "blockquote": {},
    "hr": {}, "br": {}, "table": {}, "thead": {}, "tbody": {}, "tr": {}, "s": {}, "del": {},
    "th": {"style": r"text-align:(left|center|right)"},
    "td": {"style": r"text-align:(left|center|right)"},
    "a": {"href": None, "target": r"_blank", "rel": r"noopener noreferrer"},
}


class _Gate(HTMLParser):
    """Checks rendered HTML against the allow-list of elements and attributes."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.bad = ""

    def handle_starttag(self, tag, attrs):
        if self.bad:
            return
        if tag in _MATHML:
            allowed = {k: _VALUE[v] for k, v in _MATHML[tag].items()}
        elif tag in _HTML_ATTRS:
            allowed = _HTML_ATTRS[tag]
        else:
            self.bad = f"element {tag!r}"
            return
        for name, value in attrs:
            if name not in allowed:
                self.bad = f"attribute {name!r} of {tag!r}"
                return
            rule = allowed[name]
            value = value or ""
            if rule is None:  # a link address
                ok = _link_ok(value)
            elif isinstance(rule, str):
                ok = re.fullmatch(rule, value) is not None
            else:
                ok = rule.match(value) is not None
            if not ok:
                self.bad = f"the value of {name!r} of {tag!r}"
                return

    handle_startendtag = handle_starttag

    def handle_comment(self, data):
        self.bad = self.bad or "a comment"

    def handle_pi(self, data):
        self.bad = self.bad or "a processing instruction"

    def handle_decl(self, decl):
        self.bad = self.bad or "a declaration"

    def unknown_decl(self, data):
        self.bad = self.bad or "a declaration"


def gate(markup):
    """'' when ``markup`` holds only allowed elements and attributes, else what is not."""
    g = _Gate()
    g.feed(markup)
    g.close()
    return g.bad


@functools.lru_cache(maxsize=256)
def render_html(text):
    """A step's text as HTML for the page (see the module docstring): Markdown rendered with
    raw HTML escaped, formulas as MathML; checked against the allow-list as a whole (a text
    that fails is shown as escaped plain text)."""
    out = _markdown().render(text)
    if gate(out):
        return f"<p>{html.escape(text)}</p>"
    return out
