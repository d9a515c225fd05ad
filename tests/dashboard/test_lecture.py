"""The lecture channel, the speaker view and the audience's page following each other (no
browser: the pages' objects driven as their widgets would)."""

from __future__ import annotations

import gc

import pytest

from llrlab.dashboard import lecture_channel
from llrlab.dashboard.lessons import builtin_lessons


def test_a_channel_tells_every_other_member():
    ch = lecture_channel.open_channel()
    seen = {"a": [], "b": []}
    a = ch.join(lambda p: seen["a"].append((p.lesson, p.step)), name="a")
    ch.join(lambda p: seen["b"].append((p.lesson, p.step)), name="b")
    assert ch.publish("calibration", 3, origin=a)
    assert seen == {"a": [], "b": [("calibration", 3)]}
    assert not ch.publish("calibration", 3)  # no change, no message
    assert ch.set_blackout(True)  # from no member: everyone hears it
    assert ch.position.blackout and ch.position.version == 2
    assert seen["a"] == [("calibration", 3)]
    a.leave()
    ch.publish("calibration", 4)
    assert seen["a"] == [("calibration", 3)]  # a member that left hears nothing more
    assert seen["b"][-1] == ("calibration", 4)


def test_tokens_find_their_channel_and_only_the_control_token_steers():
    ch = lecture_channel.open_channel()
    assert lecture_channel.find(ch.control_token) == (ch, True)
    assert lecture_channel.find(ch.follow_token) == (ch, False)
    assert ch.control_token != ch.follow_token and len(ch.control_token) >= 24
    for bad in ("", "x", "a" * 200, None, 123, ch.control_token[:-1] + "!", "../../etc"):
        assert lecture_channel.find(bad) is None
    token = ch.control_token
    del ch
    gc.collect()
    assert lecture_channel.find(token) is None  # a channel ends with its last page


@pytest.fixture
def lecture():
    from llrlab.dashboard.app import create_app
    from llrlab.dashboard.speaker import SpeakerView

    app = create_app(threaded=False, demo=False)
    area = app.main_area
    app.state.lesson.open("calibration", 2)
    speaker = SpeakerView(library=builtin_lessons(), channel=area.channel)
    return app, speaker


def test_the_speaker_view_follows_the_audience_and_steers_it(lecture):
    app, speaker = lecture
    st, lesson = app.state, builtin_lessons()["calibration"]
    assert "step 2 of 11" in speaker.lesson_title.object
    assert lesson.step(3).title.split(":")[0] in speaker.upcoming.object
    st.lesson.go(1)  # the audience moves: the speaker view follows
    assert "step 3 of 11" in speaker.lesson_title.object
    speaker.next.clicks += 1  # the speaker moves: the audience follows
    assert st.lesson.step == 4
    speaker.page.param.update(keys="e", presses=1)
    assert st.lesson.step == len(lesson) and "last step" in speaker.upcoming.object
    speaker.page.param.update(keys="e g2", presses=2)
    assert st.lesson.step == 2
    # the black screen, both ways
    speaker.black.value = True
    assert app.page_control.blackout
    app.page_control.blackout = False
    assert not speaker.black.value and speaker.audience.object == ""


def test_notes_reach_the_speaker_view_only(lecture):
    from llrlab.dashboard.lessons import parse_lesson
    from llrlab.dashboard.speaker import SpeakerView

    from .test_lessons import GOOD

    lesson = parse_lesson(GOOD.replace("point.plo: -2.2\n",
                                       "point.plo: -2.2\nnotes: Secret **hint**.\n", 1),
                          "mine.md")
    from llrlab.dashboard.app import create_app

    app = create_app(threaded=False, demo=False, lessons={"mine": lesson})
    app.state.lesson.open("mine", 1)
    speaker = SpeakerView(library={"mine": lesson}, channel=app.main_area.channel)
    assert "Secret **hint**." in speaker.notes.object
    assert "Secret" not in app.main_area.lesson_text.text.object


def test_a_speaker_link_without_its_lecture_says_so():
    from llrlab.dashboard.speaker import speaker_page

    page = speaker_page("no-such-channel-token-here", builtin_lessons())
    text = " ".join(str(getattr(o, "object", "")) for o in page.main.objects)
    assert "not open any more" in text
    ch = lecture_channel.open_channel()
    page = speaker_page(ch.follow_token, builtin_lessons())  # a follower cannot steer
    assert "not open any more" in " ".join(str(getattr(o, "object", ""))
                                           for o in page.main.objects)
