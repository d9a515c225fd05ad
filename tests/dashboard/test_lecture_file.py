"""The lesson as one offline file (``llrlab report --lesson``): the console script writes every
built-in lesson under 10 MB with nothing to fetch, refuses a bad lesson with one line and exit
code 2, and the page holds each step's text (safe), panels, table and highlights."""

from __future__ import annotations

import html
import re
import subprocess
import sys
from pathlib import Path

import pytest

from llrlab.dashboard.lessons import LessonError, builtin_lessons, find_lesson, parse_lesson

from .._time_scale import scaled

LLRLAB = Path(sys.executable).parent / "llrlab"


def _run(*args, timeout=600):
    return subprocess.run([str(LLRLAB), *args], capture_output=True, text=True,
                          timeout=scaled(timeout))


def _external(page):
    """Addresses the page would load: script, link, image, frame sources and CSS url()s
    that are not data: URIs."""
    refs = re.findall(r"<(?:script|link|img|iframe|source)\b[^>]*\b(?:src|href)\s*=\s*"
                      r"[\"']?([^\"'\s>]+)", page, flags=re.I)
    refs += re.findall(r"url\(\s*[\"']?((?:https?:)?//[^)\"']+)", page, flags=re.I)
    return [r for r in refs if not r.startswith(("data:", "#"))]


@pytest.mark.parametrize("lesson_id", sorted(builtin_lessons()))
def test_the_console_script_writes_each_builtin_lesson_under_10_mb(tmp_path, lesson_id):
    out = tmp_path / "lecture.html"
    r = _run("report", "--lesson", lesson_id, "-o", str(out))
    assert r.returncode == 0, r.stderr
    lesson = builtin_lessons()[lesson_id]
    assert r.stderr == ""
    assert f"wrote {out}" in r.stdout and f"{len(lesson)} steps" in r.stdout
    size = out.stat().st_size
    print(f"{lesson_id}: {size / 1e6:.2f} MB")  # (pytest -s shows the sizes)
    assert size <= 10e6
    page = out.read_text(encoding="utf-8")
    assert "BEGIN bokeh.min.js" in page  # BokehJS inline
    assert _external(page) == []
    for k, step in enumerate(lesson.steps, 1):
        assert f'id="llrlab-step-{k}"' in page
        assert f"s{k}-op-header" in page
        assert f"<h3>{html.escape(step.title)}</h3>" in page
    assert f'id="llrlab-step-{len(lesson) + 1}"' not in page


@pytest.mark.parametrize(("args", "expected"), [
    (["--lesson", "BAD"], r"^llrlab report: error: bad\.md line 7 \(step 1 'One'\), key "
                          r"'point\.plo': bad value 99x \(expected a number from -20 to 20\)$"),
    (["--lesson", "no_such_lesson"], r"^llrlab report: error: no_such_lesson: no such lesson "
                                     r"file, nor a built-in lesson \(built-in: calibration, "
                                     r"forensic\)$"),
    (["--lesson", "missing.md"], r"^llrlab report: error: missing\.md: cannot read the lesson "
                                 r"file \(No such file or directory\)$"),
    (["--lesson", "calibration", "scores.txt"], r"^llrlab report: error: --lesson writes a "
                                                r"lesson on its own data; leave out SCORES$"),
    (["--lesson", "calibration", "--calibrate", "pav"], r"leave out --calibrate$"),
])
def test_a_bad_lesson_gets_one_line_and_exit_code_2(tmp_path, args, expected):
    bad = tmp_path / "bad.md"
    bad.write_text("---\ntitle: Bad\n---\n\n## One\nshow: nber\npoint.plo: 99x\n\nText.\n",
                   encoding="utf-8")
    args = [str(bad) if a == "BAD" else a for a in args]
    out = tmp_path / "lecture.html"
    r = subprocess.run([str(LLRLAB), "report", *args, "-o", str(out)], capture_output=True,
                       text=True, timeout=scaled(120), cwd=tmp_path)
    assert r.returncode == 2
    assert r.stdout == ""
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and re.search(expected, lines[0]), r.stderr
    assert not out.exists()


def test_find_lesson_takes_a_file_or_a_builtin_id(tmp_path, monkeypatch):
    assert find_lesson("calibration") is builtin_lessons()["calibration"]
    mine = tmp_path / "calibration.md"  # a file of that name wins over the built-in one
    mine.write_text("---\ntitle: Mine\n---\n\n## One\nshow: nber\n\nText.\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert find_lesson("calibration.md").title == "Mine"
    assert find_lesson(str(mine)).title == "Mine"
    with pytest.raises(LessonError, match="no such lesson file, nor a built-in lesson"):
        find_lesson("calibratoin")


_SMALL = """---
title: A small <b>lesson</b>
teaching.enabled: true
teaching.n_tar: 200
teaching.n_non: 2000
---

## First <i>step</i>
show: nber, metrics
highlight: nber, metrics.act_dcf, nber.act
point.plo: -1

Text with <script>alert(1)</script> and $\\frac{a}{b}$.

## Second
show: ece, tippett, histogram
highlight: histogram.threshold
teaching.shift: 1

More text.
"""


@pytest.fixture(scope="module")
def small():
    from llrlab.dashboard.lecture import lecture_html

    lesson = parse_lesson(_SMALL, "small.md")
    return lesson, lecture_html(lesson, title='A "title" </script><b>')


def test_step_text_is_rendered_safely_as_the_served_lesson_renders_it(small):
    from llrlab.dashboard.lesson_text import render_html

    lesson, page = small
    assert "<script>alert(1)</script>" not in page
    assert render_html(lesson.steps[0].text) in page  # the same HTML as served (MathML)
    assert "<math" in page
    assert "First &lt;i&gt;step&lt;/i&gt;" in page
    assert "A small &lt;b&gt;lesson&lt;/b&gt;" in page


def test_the_page_title_and_step_titles_are_escaped(small):
    _, page = small
    assert "<title>A &#34;title&#34; &lt;/script&gt;&lt;b&gt;</title>" in page
    assert "fixedTitle = true" in page
    script = page[page.index("var llrlabLecture"):]
    assert '"First <i>step<\\/i>"' in script  # a JavaScript string; no end of the script
    assert "</script><b>" not in page


def test_serve_takes_a_builtin_lesson_id_too():
    from llrlab.dashboard.cli import _lessons

    lessons, opened = _lessons("forensic")
    assert opened == "forensic" and lessons["forensic"] is builtin_lessons()["forensic"]


def test_each_step_has_its_panels_table_and_highlights(small):
    _, page = small
    first = page[page.index('id="llrlab-step-1"'):page.index('id="llrlab-step-2"')]
    second = page[page.index('id="llrlab-step-2"'):]
    assert re.findall(r'data-panel="(\w+)"', first) == ["nber", "metrics"]
    assert re.findall(r'data-panel="(\w+)"', second) == ["histogram", "tippett", "ece"]
    assert 'llrlab-panel llrlab-lit" data-panel="nber"' in first
    assert 'id="s1-table"' in first and 'id="s2-table"' not in page  # no table in step 2
    assert '<tr data-key="act_dcf" class="llrlab-lit">' in first
    assert '<tr data-key="min_dcf">' in first
    for name in ("s1_nber", "s2_histogram", "s2_tippett", "s2_ece", "s1_op", "s2_op"):
        assert f'"name":"{name}"' in page


def test_highlighted_elements_are_drawn_thicker():
    """``nber.act`` lit: the act DCF lines of the step's NBER plot are drawn twice as thick
    as in the presentation style (thicker than the unlit min DCF lines);
    ``histogram.threshold`` lit: the threshold's line."""
    from llrlab.dashboard import lecture
    from llrlab.dashboard.state.display import DisplayState

    lesson = parse_lesson(_SMALL, "small.md")
    seen = {}
    real = lecture._thicken

    def spy(fig, tags):
        real(fig, tags)
        seen[fig.name] = (set(tags), {
            t: [r.glyph.line_width for r in fig.renderers if t in lecture._tags(r)]
            for t in ("nber.act", "nber.min", "histogram.threshold")})

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(lecture, "_thicken", spy)
        lecture.lecture_html(lesson)
    (tags1, w1), (tags2, w2) = seen["nber"], seen["histogram"]
    assert tags1 == {"nber.act"} and tags2 == {"histogram.threshold"}
    assert min(w1["nber.act"]) >= 1.5 * max(w1["nber.min"])
    style = DisplayState(presentation=True).line_width(2.5)
    assert w2["histogram.threshold"] == [2 * style]


def test_the_lecture_file_button_of_an_open_lesson():
    """The sidebar's "Lecture file": shown while a lesson is open; pressed, it makes the file
    through the session's runner (here inline) and offers it with its size; the same lesson's
    file is made once per process; another lesson hides the download again."""
    from llrlab.dashboard import lecture
    from llrlab.dashboard.state import DashboardState, SyncRunner
    from llrlab.dashboard.views import ExportView

    small = parse_lesson(_SMALL, "small.md")
    st = DashboardState(runner=SyncRunner(), lessons={**builtin_lessons(), "small": small})
    view = ExportView(state=st)
    assert not view.lecture.visible and not view.lecture_download.visible
    st.lesson.open("small")
    assert view.lecture.visible and not view.lecture_download.visible
    made = []
    real = lecture.lecture_html

    def counting(lesson, **kw):
        made.append(lesson.id)
        return real(lesson, **kw)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(lecture, "lecture_html", counting)
        view.lecture.clicks += 1  # as a press in the page does
        assert view.lecture_download.visible
        data = view.lecture_download.file.getvalue()
        assert data.lstrip().startswith(b"<!DOCTYPE html>") and b'id="llrlab-step-2"' in data
        assert view.lecture_download.filename == "small-lecture.html"
        assert view.lecture_download.label == f"Download the lecture file " \
                                              f"({len(data) / 1e6:.1f} MB)"
        assert not view.lecture.disabled and view.lecture.name == "Lecture file"
        ExportView(state=st).lecture.clicks += 1  # another page of the same lesson
        assert made == ["small"]
    st.lesson.open("calibration")
    assert view.lecture.visible and not view.lecture_download.visible
    st.lesson.close()
    assert not view.lecture.visible
