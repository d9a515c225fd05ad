"""Guided lessons and saved views: the lesson file format (Markdown and JSON), its strict
checks (file, line, key in one line; hostile text, sizes, unknown keys), stepping through the
built-in lesson with the dashboard's state checked at each step, and the saved views
(presenter mode's snapshots) round-tripped through a file."""

from __future__ import annotations

import json
import math

import pytest

from llrlab.dashboard import cli
from llrlab.dashboard.lessons import LessonError, builtin_lessons, load_lesson, parse_lesson
from llrlab.dashboard.state import DashboardState, SyncRunner
from llrlab.dashboard.state.presenter import MAX_VIEWS

GOOD = """---
title: Two steps
teaching.enabled: true
---

## First
show: nber, det
highlight: nber.act
point.plo: -2.2
teaching.shift: 2

Text of the **first** step.

## Second
show: histogram
calibration.method: affine

Text of the second step.
"""


def _state(**kw):
    return DashboardState(runner=SyncRunner(), **kw)


# ---------------------------------------------------------------------------- the format


def test_a_markdown_lesson_is_read_with_its_steps():
    lesson = parse_lesson(GOOD, "two.md")
    assert (lesson.id, lesson.title, len(lesson)) == ("two", "Two steps", 2)
    one, two = lesson.steps
    assert (one.title, one.show, one.highlight, one.line) == ("First", ("nber", "det"),
                                                              ("nber.act",), 6)
    assert one.text == "Text of the **first** step."
    assert one.state["teaching"]["enabled"] is True and one.state["teaching"]["shift"] == 2
    # point.plo is turned into the p_target that gives it with the step's (default) costs
    assert math.log(one.state["point"]["p_target"] / (1 - one.state["point"]["p_target"])) \
        == pytest.approx(-2.2, abs=1e-12)
    # every step starts from the defaults: the first step's shift does not leak
    assert two.state["teaching"]["shift"] == 0.0
    assert two.state["calibration"]["method"] == "affine"
    assert two.show == ("histogram",) and two.highlight == ()


def test_the_json_form_gives_the_same_lesson():
    text = json.dumps({
        "title": "Two steps", "state": {"teaching": {"enabled": True}},
        "steps": [
            {"title": "First", "show": ["nber", "det"], "highlight": ["nber.act"],
             "state": {"point": {"plo": -2.2}, "teaching.shift": 2},
             "text": "Text of the **first** step."},
            {"title": "Second", "show": "histogram", "state": {"calibration.method": "affine"},
             "text": ["Text of the second step."]},
        ]})
    md, js = parse_lesson(GOOD, "two.md"), parse_lesson(text, "two.json")
    for a, b in zip(md.steps, js.steps, strict=True):
        assert (a.title, a.text, a.show, a.highlight, a.state) == \
            (b.title, b.text, b.show, b.highlight, b.state)


def _bad(text, name="bad.md"):
    with pytest.raises(LessonError) as err:
        parse_lesson(text, name)
    msg = str(err.value)
    assert "\n" not in msg and len(msg) < 600 and msg.startswith(name)
    return msg


@pytest.mark.parametrize(("edit", "expected"), [
    # unknown state keys are refused, naming file, line and key
    (("teaching.shift: 2", "teaching.shfit: 2"), ["bad.md line 10", "teaching.shfit",
                                                  "teaching settings:"]),
    (("teaching.shift: 2", "weather.rain: 2"), ["line 10", "weather.rain", "PART one of"]),
    (("teaching.shift: 2", "colour: red"), ["line 10", "unknown key 'colour'"]),
    (("teaching.enabled: true", "teaching.bogus: 1"), ["line 3 (lesson header)",
                                                       "teaching.bogus"]),
    # bad values
    (("calibration.method: affine", "calibration.method: magic"),
     ["line 16", "step 2 'Second'", "calibration.method", "magic", "one of: none"]),
    (("teaching.shift: 2", "teaching.shift: \"x\""), ["line 10", "teaching.shift"]),
    (("show: nber, det", "show: nber, radar"), ["step 1 'First'", "unknown name 'radar'"]),
    (("show: nber, det", "show: nber, det, histogram, metrics"), ["1 to 3 panels"]),
    (("show: nber, det", "show: nber, nber"), ["given twice"]),
    (("highlight: nber.act", "highlight: nber.everything"), ["unknown name"]),
    (("point.plo: -2.2", "point.plo: -2.2\npoint.effective_prior: 0.1"), ["not both"]),
    (("point.plo: -2.2", "point.plo: -2.2\npoint.plo: 1"), ["given twice"]),
    # structure
    (("title: Two steps", "description: no title"), ["lesson header", "no title"]),
    (("## First", "Some text\n## First"), ["text before the first step"]),
    (("Text of the second step.", ""), ["step 2 'Second'", "no text"]),
    (("Text of the second step.", "See ![x](http://example.org/track.png)"),
     ["step 2", "image"]),
])
def test_a_bad_lesson_gets_one_line_naming_file_line_and_what(edit, expected):
    old, new = edit
    assert old in GOOD
    msg = _bad(GOOD.replace(old, new, 1))
    for part in expected:
        assert part in msg, msg


@pytest.mark.parametrize(("text", "expected"), [
    ("title: x\n## a\ntext", "bad.md line 1: a lesson starts with a front matter"),
    ("---\ntitle: x\n", "the front matter is not closed"),
    ("---\ntitle: x\n---\n", "no steps"),
    ("---\ntitle: " + "x" * 200 + "\n---\n## a\n\nt\n", "at most 120 characters"),
    ("---\ntitle: x\n---\n## a\n\n" + "t" * 5000 + "\n", "more than 4000 characters"),
    ("---\ntitle: x\n---\n" + "".join(f"## s{i}\n\nt\n" for i in range(101)),
     "101 steps; at most 100"),
])
def test_structure_and_sizes_are_bounded(text, expected):
    assert expected in _bad(text)


@pytest.mark.parametrize(("obj", "expected"), [
    ("{not json", "invalid JSON"),
    ({"title": "x", "steps": [], "script": "alert(1)"}, "unknown key 'script'"),
    ({"title": "x", "steps": "no"}, "'steps' must be a list"),
    ({"title": "x", "steps": [{"title": "a", "text": "t", "colour": 1}]},
     "step 1 'a': unknown key 'colour'"),
    ({"title": "x", "steps": [{"title": "a", "text": "t", "state": {"point": 3}}]},
     "a mapping of settings"),
    ({"title": "x", "steps": [{"title": "a", "text": "t", "state": {"nope": {"x": 1}}}]},
     "unknown key 'nope.x'"),
    ({"title": "x", "steps": ["a step"]}, "a step is an object"),
])
def test_a_bad_json_lesson_is_refused(obj, expected):
    text = obj if isinstance(obj, str) else json.dumps(obj)
    assert expected in _bad(text, "bad.json")


def test_load_lesson_checks_the_file(tmp_path):
    path = tmp_path / "mine.md"
    path.write_text(GOOD, encoding="utf-8")
    assert load_lesson(str(path)).id == "mine"
    path.write_bytes(b"---\ntitle: \xff\n---\n")
    with pytest.raises(LessonError, match=r"^mine\.md: not UTF-8 text \(byte 11\)$"):
        load_lesson(str(path))
    path.write_bytes(b"x" * 1_000_001)
    with pytest.raises(LessonError, match="at most 1,000,000 bytes"):
        load_lesson(str(path))
    with pytest.raises(LessonError, match=r"^none\.md: cannot read the lesson file"):
        load_lesson(str(tmp_path / "none.md"))


def test_lesson_text_is_shown_as_text_not_html():
    """Raw HTML in a step's text is escaped by the Markdown renderer; titles, which go into
    the navigation bar's Markdown, are escaped entirely."""
    from llrlab.dashboard.layout import LessonText, PageControl, StageNav

    hostile = GOOD.replace("Text of the **first** step.",
                           "<script>alert(1)</script> <img src=x onerror=alert(2)>") \
        .replace("## First", "## <b onclick=alert(3)>First</b>")
    lesson = parse_lesson(hostile, "hostile.md")
    st = _state(lessons={"hostile": lesson})
    st.lesson.open("hostile")
    PageControl()
    text, nav = LessonText(state=st), StageNav(state=st)
    html = text.text._transform_object(text.text.object)["object"]
    for bad in ("<script", "<img", "<b "):
        assert bad not in html.replace("&lt;", "<").replace("&amp;lt;", "&lt;")
    assert "&lt;script&gt;" in html.replace("&amp;", "&")
    # the step list is a native select: its options are text, never markup
    assert "1 / 2 · <b onclick=alert(3)>First</b>" in nav.steps.options
    hostile_title = parse_lesson(hostile.replace("title: Two steps", "title: <i>x</i>"),
                                 "hostile.md")
    st2 = _state(lessons={"hostile": hostile_title})
    st2.lesson.open("hostile")
    nav2 = StageNav(state=st2)
    assert "<i>" not in nav2.where.object and "&#60;i&#62;x" in nav2.where.object


# ---------------------------------------------------------------------------- the built-in lesson


STEPS = [
    "What an LLR is",
    "The Bayes threshold −plo",
    "Actual and minimum DCF",
    "The NBER plot: every operating point at once",
    "The DET plot, the ROCCH and the EER",
    "PAV: the best monotone calibration, and why it overfits",
    "Miscalibration: a scale or a shift",
    "Affine calibration repairs a scale and a shift",
    "DR30: when to trust a number",
    "Cllr: the Bayes error integrated over all operating points",
    "Pooling conditions",
]


def test_the_builtin_lesson_cites_published_sources():
    lesson = builtin_lessons()["calibration"]
    assert [s.title for s in lesson.steps] == STEPS
    for step in lesson.steps:
        assert 2 <= step.text.count(". ") + 1 and len(step.text) < 1200
        assert "seed" not in step.text.lower()
    text = " ".join(s.text for s in lesson.steps)
    for source in ("Brümmer & de Villiers 2011", "Brümmer 2010", "van Leeuwen (2008)",
                   "Doddington 1998", "Martin et al. 1997", "Ayer et al. 1955"):
        assert source in text


@pytest.fixture(scope="module")
def walked():
    """The built-in lesson stepped forward then back; the state and the numbers at each
    step, both ways."""
    from llrlab.dashboard.app import demo_specs, load_specs

    st = _state()
    load_specs(st, demo_specs())
    st.lesson.open("calibration")
    lesson = st.lesson.current()

    def record():
        op = st.op["eval"]
        d = st.results.datasets
        return {"snapshot": st.snapshot(), "error": st.status.error, "op": op,
                "cllr": {r: d[r].llr.cllr for r in ("dev", "eval") if r in d},
                "min_cllr": d["eval"].llr.min_cllr}

    forward = {1: record()}
    while st.lesson.go(1):
        forward[st.lesson.step] = record()
    assert st.lesson.go(1) is False  # the last step stays
    back = {st.lesson.step: record()}
    while st.lesson.go(-1):
        back[st.lesson.step] = record()
    return lesson, forward, back


def test_each_step_sets_the_state_the_same_way_forward_and_back(walked):
    lesson, forward, back = walked
    assert sorted(forward) == sorted(back) == list(range(1, len(STEPS) + 1))
    for k in forward:
        assert forward[k]["error"] == ""
        assert forward[k]["snapshot"] == back[k]["snapshot"], k
        snap, step = forward[k]["snapshot"], lesson.step(k)
        assert snap["presenter"]["panels"] == list(step.show)
        assert snap["presenter"]["highlight"] == list(step.highlight)


def test_the_steps_show_what_their_text_says(walked):
    _, forward, _ = walked
    snap = {k: v["snapshot"] for k, v in forward.items()}
    op = {k: v["op"] for k, v in forward.items()}
    # 1-2: synthetic data; the Bayes threshold at plo = -2.2
    assert snap[1]["teaching"]["enabled"] and op[2].plo == pytest.approx(-2.2, abs=1e-12)
    # 3: a shift of 2 makes act DCF exceed min DCF (the calibration loss)
    assert snap[3]["teaching"]["shift"] == 2
    assert op[3].act_dcf > op[3].min_dcf + 0.2
    assert op[2].act_dcf < op[2].min_dcf + 0.01  # the true LLRs: nearly no loss
    # 6: PAV is optimistic on dev (overfits); its Cllr numbers are those the text gives
    assert snap[6]["calibration"]["method"] == "pav"
    cl = forward[6]["cllr"]
    assert cl["dev"] < cl["eval"] - 0.01
    assert round(cl["dev"], 2) == 0.48 and round(cl["eval"], 2) == 0.50
    # 7: scale 2 (over-confident) with the miscalibrated references drawn
    assert snap[7]["teaching"]["scale"] == 2 and snap[7]["teaching"]["references"]
    assert op[7].act_dcf > op[7].min_dcf + 0.3
    # 8: affine calibration repairs scale 2 and shift -1
    assert (snap[8]["calibration"]["method"], snap[8]["teaching"]["scale"],
            snap[8]["teaching"]["shift"]) == ("affine", 2, -1)
    assert op[8].act_dcf < op[8].min_dcf + 0.01
    # 9: the operating point in the region DR30 does not trust
    assert op[9].dr30_safe is False and op[9].plo == pytest.approx(-5.0)
    # 10: Cllr = min Cllr + calibration loss, the loss clearly positive
    assert forward[10]["cllr"]["eval"] > forward[10]["min_cllr"] + 0.1
    # 11: the demo's conditions, weighted equally
    assert not snap[11]["teaching"]["enabled"]
    assert snap[11]["conditions"]["weighting"] == "equal per condition"


def test_a_step_can_be_opened_directly_and_is_clamped():
    st = _state()
    st.lesson.open("calibration", 8)
    assert (st.calibration.method, st.teaching.scale) == ("affine", 2)
    st.lesson.step = 99
    assert st.lesson.step == len(STEPS)
    st.lesson.close()
    assert st.presenter.highlight == [] and not st.staged


def test_serve_refuses_a_bad_lesson_file_with_one_line(tmp_path, capsys):
    path = tmp_path / "broken.md"
    path.write_text(GOOD.replace("teaching.shift: 2", "teaching.shfit: 2"), encoding="utf-8")
    args = cli.build_parser().parse_args(["serve", "--no-show", "--lesson", str(path)])
    assert cli.run_serve(args) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("llrlab serve: error: broken.md line 10 (step 1 'First'): "
                          "unknown key 'teaching.shfit'")
    assert "\n" not in err


# ---------------------------------------------------------------------------- saved views


def test_saved_views_round_trip_through_a_file(tmp_path):
    one = _state()
    one.teaching.enabled = True
    one.save_view("true LLRs")
    one.restore({"teaching": {"scale": 2.0}, "calibration": {"method": "affine"},
                 "presenter": {"panels": ["nber"]}})
    one.save_view("  affine\n on  scale 2 ")
    path = tmp_path / "views.json"
    path.write_text(one.views_file(), encoding="utf-8")

    two = _state()
    assert two.import_views(path.read_bytes(), source="views.json") == 2
    assert [v["name"] for v in two.presenter.views] == ["true LLRs", "affine on scale 2"]
    assert two.presenter.views == json.loads(json.dumps(one.presenter.views))
    two.show_view(1)
    assert two.status.error == ""
    assert (two.teaching.scale, two.calibration.method, two.presenter.panels) == \
        (2.0, "affine", ["nber"])
    assert two.snapshot() == one.snapshot()
    # presenter mode's arrows step through the views
    two.navigate(-1)
    assert (two.presenter.current, two.teaching.scale) == (0, 1.0)
    two.navigate(-1)
    assert two.presenter.current == 0


def _views(views):
    return json.dumps({"format": "llrlab-views", "version": 1, "views": views})


@pytest.mark.parametrize(("data", "expected"), [
    (b"\xff\xfe", "not UTF-8 text"),
    (b"[1, 2]", "no \"format\": \"llrlab-views\""),
    (b"{", "invalid JSON"),
    (json.dumps({"format": "llrlab-views", "version": 9, "views": []}), "version 9"),
    (_views([{"name": "a", "state": {"weather": {}}}]), "views.json, view 1: unknown part"),
    (_views([{"name": "a", "state": {"teaching": {"evil": 1}}}]),
     "unknown setting teaching.'evil'"),
    (_views([{"name": "a", "state": {"teaching": {"scale": "big"}}}]), "teaching.scale"),
    (_views([{"name": "", "state": {}}]), "the name must be text of 1 to 120"),
    (_views([{"name": "x" * 121, "state": {}}]), "the name must be text of 1 to 120"),
    (_views([{"name": "a", "state": {}, "js": "alert(1)"}]), "a view is"),
    (_views([{"name": "a", "state": {}}] * (MAX_VIEWS + 1)), f"at most {MAX_VIEWS}"),
    (b" " * 2_000_001, "at most 2,000,000 bytes"),
])
def test_a_bad_views_file_is_refused_and_changes_nothing(data, expected):
    st = _state()
    st.save_view("kept")
    with pytest.raises(LessonError.__mro__[1]) as err:  # DataError
        st.import_views(data if isinstance(data, bytes) else data.encode(), "views.json")
    msg = str(err.value)
    assert expected in msg and msg.startswith("views.json") and len(msg) < 300
    assert [v["name"] for v in st.presenter.views] == ["kept"]


def test_arrow_presses_taken_together_keep_their_order():
    """A busy server may receive several key presses in one message: 'f' at the last step
    (stays) then 'b' must end one step back, not where it was (a sum would give 0)."""
    from llrlab.dashboard.app import create_app

    app = create_app(threaded=False)
    st, page = app.state, app.page_control
    st.lesson.open("calibration", len(builtin_lessons()["calibration"]))
    last = st.lesson.step
    page.param.update(keys="f b", presses=2)
    assert st.lesson.step == last - 1
    page.param.update(keys="f b b b", presses=4)  # two more presses, both back
    assert st.lesson.step == last - 3


def test_home_end_and_a_step_number_jump():
    """Home and End go to the first and last step, a number and Enter to that step (clamped
    to the lesson); the page knows when the last step is shown (its end signal)."""
    from llrlab.dashboard.app import create_app

    app = create_app(threaded=False)
    st, page = app.state, app.page_control
    n = len(builtin_lessons()["calibration"])
    st.lesson.open("calibration", 3)
    assert page.staged and not page.at_end
    page.param.update(keys="e", presses=1)
    assert st.lesson.step == n and page.at_end
    assert app.main_area.nav.next.name == "End ■" and app.main_area.nav.next.disabled
    page.param.update(keys="e h", presses=2)
    assert st.lesson.step == 1 and not page.at_end
    page.param.update(keys="e h g5", presses=3)
    assert st.lesson.step == 5
    page.param.update(keys="e h g5 g99", presses=4)
    assert st.lesson.step == n
    st.lesson.close()
    assert not page.staged


def test_speaker_notes_in_markdown_and_json():
    """A step's ``notes`` (one line, or more lines indented under it) are the speaker's; the
    audience's text never has them."""
    md = GOOD.replace("point.plo: -2.2\n", "point.plo: -2.2\nnotes: Ask the room first.\n"
                      "  Then show **act DCF**.\n", 1)
    lesson = parse_lesson(md, "notes.md")
    assert lesson.step(1).notes == "Ask the room first.\nThen show **act DCF**."
    assert lesson.step(2).notes == ""
    assert "Ask the room" not in lesson.step(1).text
    js = parse_lesson(json.dumps({"title": "J", "steps": [
        {"title": "a", "text": "Some text.", "notes": ["one", "two"]}]}), "j.json")
    assert js.step(1).notes == "one\ntwo"
    for bad, msg in ((123, "key 'notes': text"), ("x" * 4001, "more than 4000 characters"),
                     ("see ![x](http://e/x.png)", "an image")):
        with pytest.raises(LessonError, match=msg):
            parse_lesson(json.dumps({"title": "J", "steps": [
                {"title": "a", "text": "Some text.", "notes": bad}]}), "j.json")
    with pytest.raises(LessonError, match="given twice"):
        parse_lesson(md.replace("notes: Ask", "notes: x\nnotes: Ask"), "twice.md")
