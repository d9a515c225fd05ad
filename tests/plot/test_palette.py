"""The palette of every llrlab plot (``llrlab.core.palette``): WCAG contrast computed by hand,
every line colour at least 3:1 on white, distinct system styles, dash patterns."""

from __future__ import annotations

import re

import pytest

from llrlab.core import palette
from llrlab.core.palette import (
    COLORS,
    CONDITION_COLORS,
    DASH_PATTERNS,
    MIN_CONTRAST,
    OKABE_ITO,
    REF_COLORS,
    SYSTEM_COLORS,
    SYSTEM_MARKERS,
    contrast_ratio,
    dash_array,
    relative_luminance,
    system_style,
)

from .._subprocess import loaded_by


def test_relative_luminance_and_contrast_by_hand():
    # #0072B2: R = 0, G = 114/255, B = 178/255; linearized G = ((0.447059 + 0.055) / 1.055)
    # ** 2.4 = 0.168269, B = ((0.698039 + 0.055) / 1.055) ** 2.4 = 0.445201;
    # L = 0.7152 * 0.168269 + 0.0722 * 0.445201 = 0.152490; contrast = 1.05 / 0.202490
    assert relative_luminance("#0072B2") == pytest.approx(0.152490, abs=2e-6)
    assert contrast_ratio("#0072B2") == pytest.approx(1.05 / 0.202490, rel=1e-5)
    # a channel below 0.04045 is divided by 12.92: #0A0A0A -> 10/255/12.92 = 0.0030353
    assert relative_luminance("#0a0a0a") == pytest.approx(10 / 255 / 12.92)
    assert contrast_ratio("#FFFFFF", "#000") == contrast_ratio("#000000") == 21.0
    assert contrast_ratio("#123456", "#123456") == 1.0
    # symmetric: the lighter colour goes on top whatever the order
    assert contrast_ratio("#D55E00", "#FFFFFF") == contrast_ratio("#FFFFFF", "#D55E00")
    for bad in ("red", "#12345", "#GGGGGG", ""):
        with pytest.raises(ValueError, match="not a #rrggbb colour"):
            relative_luminance(bad)


def test_the_light_okabe_ito_colours_are_below_the_rule_and_left_out():
    light = {"orange", "sky blue", "yellow"}
    for name, color in OKABE_ITO.items():
        assert (contrast_ratio(color) < MIN_CONTRAST) == (name in light), name
    lines = {*COLORS.values(), *SYSTEM_COLORS, *REF_COLORS}
    assert not lines & {OKABE_ITO[n].upper() for n in light}


@pytest.mark.parametrize("where, colors", [
    ("COLORS", list(COLORS.values())),
    ("SYSTEM_COLORS", list(SYSTEM_COLORS)),
    ("REF_COLORS", list(REF_COLORS)),
    ("CONDITION_COLORS", list(CONDITION_COLORS)),
])
def test_every_line_colour_has_a_contrast_of_3_to_1_on_white(where, colors):
    low = {c: round(contrast_ratio(c), 2) for c in colors if contrast_ratio(c) < MIN_CONTRAST}
    assert low == {}, f"{where}: below {MIN_CONTRAST}:1 on white: {low}"


def test_every_colour_is_rrggbb():
    for c in [*COLORS.values(), *palette.FILLS.values(), *SYSTEM_COLORS, *REF_COLORS,
              *CONDITION_COLORS]:
        assert re.fullmatch(r"#[0-9A-Fa-f]{6}", c), c


def test_the_first_42_systems_differ_in_colour_or_glyph():
    styles = [system_style(i) for i in range(len(SYSTEM_COLORS) * len(SYSTEM_MARKERS))]
    assert len(set(styles)) == len(styles) == 42
    assert system_style(0) == (SYSTEM_COLORS[0], SYSTEM_MARKERS[0])
    assert len(set(SYSTEM_COLORS)) == len(SYSTEM_COLORS)
    # no system glyph is one of the markers with a meaning (op point, DR30, EER)
    assert not set(SYSTEM_MARKERS) & {"o", "s", "^", "v", "D", "h"}
    with pytest.raises(ValueError):
        system_style(-1)


def test_dash_patterns_scale_with_the_line_width():
    assert dash_array("solid") == [] and dash_array("solid", 4) == []
    assert dash_array("dashed") == list(DASH_PATTERNS["dashed"])
    # thicker lines: sqrt(width / 1.5) times longer, never below 1
    assert dash_array("dotted", 6.0) == [4, 6]
    assert all(v >= 1 for name in DASH_PATTERNS for v in dash_array(name, 0.1))
    with pytest.raises(ValueError, match="unknown dash pattern"):
        dash_array("wavy")


def test_the_palette_imports_no_plotting_library():
    assert loaded_by("import llrlab.core.palette",
                     ("matplotlib", "bokeh", "panel", "numpy")) == []


def test_the_dashboard_draws_with_this_palette_and_has_no_copy_of_its_own():
    import importlib.util

    from llrlab.dashboard.views import _common, styler

    for name in ("COLORS", "CONDITION_COLORS", "CONDITION_DASHES", "CURVE_DASHES", "DASH",
                 "REF_COLORS", "REF_DASHES", "line_dash"):
        assert getattr(_common, name) is getattr(palette, name), name
    assert styler.dash_array is palette.dash_array and styler.dash_name is palette.dash_name
    assert importlib.util.find_spec("llrlab.dashboard.views.palette") is None
    # teaching mode's references: the scales blue, the shifts wine, a dash pattern each
    assert REF_COLORS == (OKABE_ITO["blue"],) * 2 + ("#882255",) * 2
    assert len(set(palette.REF_DASHES)) == 4


def test_dash_names_and_new_lines():
    assert palette.line_dash("dotdash") == [2, 3, 6, 3] == palette.dash_array("dotdash", 1.0)
    for name in DASH_PATTERNS:
        assert palette.dash_name(name) == name
        if name != "solid":
            assert palette.dash_name(palette.line_dash(name)) == name
    assert palette.dash_name([6, 4]) == "dashed"
    for other in ([1, 1], [], None, "wavy", ["a"], 3):
        assert palette.dash_name(other) is None
