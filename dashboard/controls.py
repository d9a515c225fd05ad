"""Widgets of the dashboard, built from the state's parameters (``from_param`` / ``pn.Param``).

Calibration, operating point, conditions, uncertainty, display options and teaching mode.
The upload widgets are in :mod:`.uploads` (re-exported here).
"""

from __future__ import annotations

import panel as pn

from .state import DashboardState
from .uploads import DEFAULT_MAX_UPLOAD_MB, UploadPanel

__all__ = [
    "DEFAULT_MAX_UPLOAD_MB",
    "UploadPanel",
    "calibration_controls",
    "condition_controls",
    "display_controls",
    "operating_point_controls",
    "teaching_controls",
    "uncertainty_controls",
]


def operating_point_controls(state: DashboardState):
    """p_target, c_miss, c_fa, effective prior and prior log-odds, linked through the state."""
    return pn.Column(
        pn.widgets.FloatInput.from_param(state.param.p_target, format="0.[000000]",
                                         step=0.001, name="P(target)"),
        pn.Row(pn.widgets.FloatInput.from_param(state.param.c_miss, step=1.0, width=120),
               pn.widgets.FloatInput.from_param(state.param.c_fa, step=1.0, width=120)),
        pn.widgets.FloatInput.from_param(state.param.effective_prior, step=0.001,
                                         format="0.[000000]"),
        pn.widgets.EditableFloatSlider.from_param(state.param.plo, start=-10.0, end=10.0,
                                                  fixed_start=-20.0, fixed_end=20.0,
                                                  step=0.01, format="0.000",
                                                  name="Prior log-odds"),
        sizing_mode="stretch_width",
    )


def calibration_controls(state: DashboardState):
    return pn.Column(
        pn.widgets.RadioButtonGroup.from_param(state.param.calibration, name="Calibration",
                                               button_type="primary",
                                               button_style="outline"),
        pn.widgets.FloatSlider.from_param(state.param.train_prior, throttled=True),
        pn.widgets.Checkbox.from_param(state.param.fusion),
        sizing_mode="stretch_width",
    )


def display_controls(state: DashboardState):
    return pn.Column(
        pn.widgets.RangeSlider.from_param(state.param.nber_range, start=-15.0, end=15.0,
                                          step=0.5),
        pn.widgets.RadioButtonGroup.from_param(state.param.det_kind, button_type="primary",
                                               button_style="outline"),
        pn.widgets.Checkbox.from_param(state.param.show_contributions),
        pn.widgets.Checkbox.from_param(state.param.show_dev),
        pn.widgets.Checkbox.from_param(state.param.presentation),
        pn.widgets.Checkbox.from_param(state.param.svg),
        sizing_mode="stretch_width",
    )


def condition_controls(state: DashboardState):
    """Condition weighting (seed 001): weighting, custom weights, selection, per-condition
    curves; disabled with a short explanation when the data carry no conditions."""
    fit = {"sizing_mode": "stretch_width"}
    weighting = pn.widgets.RadioButtonGroup.from_param(
        state.param.weighting, button_type="primary", button_style="outline",
        orientation="vertical", name="weighting", **fit)
    custom = pn.widgets.TextInput.from_param(state.param.custom_weights,
                                             placeholder="tel=2, mic=1", name="Custom weights",
                                             **fit)
    # a native multi-select shows the names as text (Bokeh's MultiChoice renders its labels
    # as HTML through Choices.js: a condition name could run a script)
    select = pn.widgets.MultiSelect.from_param(state.param.conditions_selected,
                                               name="Pooled conditions", size=6, **fit)
    show = pn.widgets.Checkbox.from_param(state.param.show_conditions)
    note = pn.pane.Markdown("", margin=(0, 5), name="conditions_note",
                            styles={"color": "#555555", "font-size": "90%"})

    def update(*_):
        off = not state.conditions_available or state.teaching
        for w in (weighting, select, show):
            w.disabled = off
        custom.disabled = off or state.weighting != "custom"
        custom.visible = state.weighting == "custom"
        note.object = state.conditions_note()

    state.param.watch(update, ["conditions_available", "teaching", "weighting"])
    update()
    return pn.Column(weighting, custom, select, show, note, **fit)


def uncertainty_controls(state: DashboardState):
    """Binomial intervals at the operating point, and bootstrap intervals on demand."""
    fit = {"sizing_mode": "stretch_width"}
    method = pn.widgets.RadioButtonGroup.from_param(state.param.ci_method,
                                                    button_type="primary",
                                                    button_style="outline", **fit)
    level = pn.widgets.FloatInput.from_param(state.param.ci_level, step=0.01,
                                             format="0.[000]", **fit)
    by = pn.widgets.RadioButtonGroup.from_param(state.param.boot_by, button_type="primary",
                                                button_style="outline", **fit)
    n = pn.widgets.IntInput.from_param(state.param.boot_n, step=50, **fit)
    button = pn.widgets.Button(name="Bootstrap intervals", button_type="primary",
                               **fit)
    button.on_click(lambda _e: state.run_bootstrap())

    def busy(*_):
        button.disabled = state.busy

    state.param.watch(busy, ["busy"])
    return pn.Column(
        method, level,
        pn.pane.Markdown("Bootstrap of Cllr, min DCF and EER (in the background; min DCF "
                         "is for the operating point at the time):", margin=(5, 5, 0, 5),
                         styles={"color": "#555555", "font-size": "90%"}),
        pn.Row(pn.pane.Markdown("by", margin=(8, 5)), by, **fit), n, button, **fit)


def teaching_controls(state: DashboardState):
    """Sliders of the synthetic Gaussian data (update on release)."""
    fit = {"sizing_mode": "stretch_width", "margin": (5, 10)}
    widgets = {p: {"type": pn.widgets.FloatSlider, "throttled": True, **fit}
               for p in ("t_mu_tar", "t_sigma_tar", "t_mu_non", "t_sigma_non", "t_scale",
                         "t_shift")}
    widgets["t_n_tar"] = {"type": pn.widgets.IntInput, "step": 1000, **fit}
    widgets["t_n_non"] = {"type": pn.widgets.IntInput, "step": 10_000, **fit}
    widgets["t_seed"] = {"type": pn.widgets.IntInput, **fit}
    return pn.Column(
        pn.widgets.Switch.from_param(state.param.teaching, name="Teaching mode"),
        pn.pane.Markdown(
            "Targets and non-targets are Gaussian; the system outputs "
            "`scale × true LLR + shift` (seed 000, figure 1). The green curve is the "
            "true LLR; calibrating on dev repairs the miscalibration.", margin=(0, 5)),
        pn.Param(state.param, parameters=["t_mu_tar", "t_sigma_tar", "t_mu_non",
                                          "t_sigma_non", "t_n_tar", "t_n_non", "t_seed",
                                          "t_scale", "t_shift", "t_references"],
                 widgets=widgets, show_name=False, sizing_mode="stretch_width"),
        sizing_mode="stretch_width",
    )
