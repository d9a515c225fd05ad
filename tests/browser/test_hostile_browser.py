"""Hostile values in a real browser: no script runs, the text shows literally.

Each test puts an HTML payload where the page shows user-controlled text (a link value,
an uploaded file's name, a trial id echoed in an error, condition names) and asserts that
no JavaScript dialog opens (``page.on("dialog")``) and that the payload is shown as text.
"""

from __future__ import annotations

import pytest

from llrlab.dashboard.app import create_app

from .conftest import grace, settle, wait_until
from .test_dashboard_browser import _open

pytestmark = pytest.mark.browser

#: Runs ``alert(1)`` when rendered as HTML (the image ``x`` fails to load).
PAYLOAD = "<img src=x onerror=alert(1)>"
#: The same without spaces (for whitespace-separated files): ``/`` separates attributes
#: and the empty ``src`` fails to load.
PAYLOAD_NOSPACE = "<img/src/onerror=alert(1)>"


def _watch_dialogs(page):
    """The messages of the dialogs that open in ``page`` (each is dismissed)."""
    seen = []

    def on_dialog(dialog):
        seen.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", on_dialog)
    return seen


def _assert_no_script_ran(page, dialogs, seconds=0.5):
    """Once the page has drawn what the server sent, and ``seconds`` later (scaled: an
    injected image would have failed to load by then): no dialog opened and no
    ``img[onerror]`` element is in the page."""
    settle(page)
    grace(page, seconds)
    assert dialogs == []
    assert page.locator("img[onerror]").count() == 0


def _shown(page, selector, text):
    """True when a visible element matching ``selector`` shows ``text`` literally (the
    match looks into the element's shadow root)."""
    loc = page.locator(selector, has_text=text)
    return loc.count() > 0 and loc.first.is_visible()


def _upload(page, session, path, *, key=None):
    """Upload ``path`` (and ``key``) through the page and press Load."""
    uploads = session.uploads
    page.get_by_text("Upload files").first.click()
    inputs = page.locator("input[type=file]")
    wait_until(page, lambda: inputs.count() >= 2, what="the upload widgets")
    inputs.nth(0).set_input_files(str(path))
    if key is not None:
        inputs.nth(1).set_input_files(str(key))
    wait_until(page, lambda: path.name in uploads.scores.files, what="the upload to arrive")
    if key is not None:
        wait_until(page, lambda: key.name in uploads.key.files, what="the key to arrive")
    page.locator(".bk-btn", has_text="Load uploaded file").first.click()


def test_link_value_in_the_error_runs_no_script(page, serve):
    dialogs = _watch_dialogs(page)
    url, sessions = serve(create_app)
    page.goto(url + f"?weights=custom&custom={PAYLOAD}=1")
    wait_until(page, lambda: sessions and PAYLOAD in sessions[0].state.status.error,
               what="the error naming the link value")
    wait_until(page, lambda: _shown(page, ".alert-danger", PAYLOAD),
               what="the link value shown literally in the alert")
    wait_until(page, lambda: _shown(page, ".notyf__message", PAYLOAD),
               what="the link value shown literally in the notification")
    _assert_no_script_ran(page, dialogs)


def test_link_to_an_unknown_system_runs_no_script(page, serve):
    dialogs = _watch_dialogs(page)
    served = serve(create_app)
    state = _open(page, served=served, query=f"?system={PAYLOAD}&tab=1").state
    _assert_no_script_ran(page, dialogs, seconds=0.8)
    assert state.data.system in state.data.systems  # the unknown value was refused


def test_uploaded_file_name_runs_no_script(page, serve, tmp_path):
    dialogs = _watch_dialogs(page)
    served = serve(create_app)
    session = _open(page, served=served)
    bad = tmp_path / f"{PAYLOAD}.txt"
    bad.write_text("model segment score label\nm1 s1 0.5 target\nm1 s2 abc nontarget\n")
    _upload(page, session, bad)
    wait_until(page, lambda: bad.name in session.state.status.error,
               what="the error naming the file")
    wait_until(page, lambda: _shown(page, ".alert-danger", bad.name),
               what="the file name shown literally")
    _assert_no_script_ran(page, dialogs)


def test_trial_id_echoed_in_an_error_runs_no_script(page, serve, tmp_path):
    dialogs = _watch_dialogs(page)
    served = serve(create_app)
    session = _open(page, served=served)
    bad = tmp_path / "ids.txt"
    bad.write_text(f"model segment score label\n{PAYLOAD_NOSPACE} s1 abc target\n"
                   "m s2 -1 nontarget\n")
    _upload(page, session, bad)
    wait_until(page, lambda: PAYLOAD_NOSPACE in session.state.status.error,
               what="the error echoing the id")
    wait_until(page, lambda: _shown(page, ".alert-danger", PAYLOAD_NOSPACE),
               what="the id shown literally")
    _assert_no_script_ran(page, dialogs)


def test_trial_ids_in_the_join_report_run_no_script(page, serve, tmp_path):
    """Trials only in the scores (or only in the key) are reported in the page, their ids
    as text."""
    dialogs = _watch_dialogs(page)
    served = serve(create_app)
    session = _open(page, served=served)
    scores = tmp_path / "scores.txt"
    key = tmp_path / "key.txt"
    lines = [f"m{i} s{i}" for i in range(40)]
    scores.write_text("".join(f"{t} {i - 20.0}\n" for i, t in enumerate(lines))
                      + f"{PAYLOAD_NOSPACE} s0 1.0\n")
    key.write_text("".join(f"{t} {'target' if i >= 20 else 'nontarget'}\n"
                           for i, t in enumerate(lines))
                   + f"m0 {PAYLOAD_NOSPACE} target\n")
    _upload(page, session, scores, key=key)
    state = session.state
    wait_until(page, lambda: "uploaded" in state.data.systems and not state.status.busy,
               what="the uploaded system")
    wait_until(page, lambda: _shown(page, ".alert-warning", PAYLOAD_NOSPACE),
               what="the join report in the page")
    # both counts and both files, in the page
    for part in ("1 scored trial", "1 key trial", "scores.txt", "key.txt", "40 trials"):
        assert page.locator(".alert-warning", has_text=part).count() > 0, part
    _assert_no_script_ran(page, dialogs)


def test_condition_names_run_no_script(page, serve, tmp_path):
    dialogs = _watch_dialogs(page)
    warnings = []
    page.on("console", lambda m: warnings.append(m.text) if m.type == "warning" else None)
    # no demo: the custom weights are then filled with the uploaded file's conditions
    url, sessions = serve(lambda: create_app(demo=False))
    page.goto(url)
    wait_until(page, lambda: sessions and page.get_by_text("No data loaded").count() > 0,
               what="the empty page")
    session = sessions[0]
    rows = ["score,label,condition"]
    for i in range(60):
        cond = (PAYLOAD_NOSPACE, "<b>bold</b>", "tel")[i % 3]
        rows.append(f"{(i % 7) - 3.0 + (2.0 if i % 2 else 0.0)},"
                    f"{'target' if i % 2 else 'nontarget'},{cond}")
    path = tmp_path / "conds.csv"
    path.write_text("\n".join(rows) + "\n")
    _upload(page, session, path)
    state = session.state
    wait_until(page, lambda: "uploaded" in state.data.systems and not state.status.busy
               and len(state.conditions.available) == 3, what="the conditions")
    # the picker lists the names as text
    wait_until(page, lambda: any(PAYLOAD_NOSPACE in t for t in page.locator(
        "select[multiple] option").all_inner_texts()), what="the names in the picker")
    # per-condition curves and table, custom weights naming them
    page.get_by_text("Per-condition curves").first.evaluate(
        "e => e.getRootNode().querySelector('input[type=checkbox]').click()")
    wait_until(page, lambda: _shown(page, "table.llrlab-conditions", PAYLOAD_NOSPACE),
               what="the per-condition table")
    assert _shown(page, "table.llrlab-conditions", "<b>bold</b>")
    page.locator(".bk-btn", has_text="custom").first.click()
    wait_until(page, lambda: state.conditions.weighting == "custom" and not state.status.busy,
               what="custom weights")
    header = page.get_by_text(f"Conditions: custom (<b>bold</b>=1, {PAYLOAD_NOSPACE}=1")
    wait_until(page, lambda: header.count() > 0 and header.first.is_visible(),
               what="the weighting text naming the conditions")
    _assert_no_script_ran(page, dialogs)
    assert page.locator("b", has_text="bold").count() == 0
    # the picker is not Choices.js (which renders labels as HTML and warns about it)
    assert [m for m in warnings if "allowHTML" in m] == []


#: A formula MathJax would turn into a link that runs script (issue 18), and disguises.
MATH_PAYLOADS = [
    "$$\\href{javascript:alert('math')}{x}$$",
    "\\(\\href{javascript:alert(2)}{y}\\)",
    "\\[\\class{z}{\\href{javascript:alert(3)}{z}}\\]",
]

#: Every <a> of the page (through the shadow roots) whose address runs script.
_SCRIPT_LINKS = """() => {
  const out = [];
  const walk = (n) => {
    if (n.shadowRoot) walk(n.shadowRoot);
    for (const c of n.children || []) {
      const h = (c.getAttribute && (c.getAttribute('href') || c.getAttribute('xlink:href')))
                || '';
      if (/^\\s*(javascript|vbscript|data):/i.test(h)) out.push(c.outerHTML.slice(0, 200));
      walk(c);
    }
  };
  walk(document.documentElement);
  return out;
}"""


@pytest.mark.parametrize("payload", MATH_PAYLOADS)
def test_a_formula_in_a_file_name_runs_no_script(page, serve, tmp_path, payload):
    """An uploaded file's name echoed in the error alert (Markdown, which the page typesets
    with MathJax): no formula forms from it, so no link, and no dialog after a click on every
    element of the alert."""
    dialogs = _watch_dialogs(page)
    served = serve(create_app)
    session = _open(page, served=served)
    bad = tmp_path / f"{payload}.txt"
    bad.write_text("model segment score label\nm1 s1 0.5 target\nm1 s2 abc nontarget\n")
    _upload(page, session, bad)
    wait_until(page, lambda: bad.name in session.state.status.error,
               what="the error naming the file")
    alert = page.locator(".alert-danger", has_text=".txt").first
    wait_until(page, lambda: alert.is_visible(), what="the file name shown in the alert")
    grace(page, 0.5)  # MathJax, were it to typeset the name, has done so
    assert page.evaluate(_SCRIPT_LINKS) == []
    text = alert.evaluate("""(box) => { const walk = (n) => { let t = '';
        if (n.shadowRoot) t += walk(n.shadowRoot);
        for (const c of n.childNodes) {
          if (c.nodeType === Node.TEXT_NODE) t += c.textContent;
          else if (c.nodeType === Node.ELEMENT_NODE && c.tagName !== 'STYLE') t += walk(c); }
        return t; }; return walk(box); }""")
    assert payload in text.replace("\u2060", "")  # literally, as text
    alert.evaluate("""(box) => { const walk = (e) => {
        if (e.shadowRoot) walk(e.shadowRoot);
        for (const c of e.children || []) { if (c.click) c.click(); walk(c); } };
        walk(box); }""")
    box = alert.bounding_box()
    for fx in (0.1, 0.3, 0.5, 0.7, 0.9):
        page.mouse.click(box["x"] + fx * box["width"], box["y"] + box["height"] / 2)
    _assert_no_script_ran(page, dialogs)
