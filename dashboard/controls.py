"""Widgets of the dashboard, built from the parameters of the state's parts (``from_param`` /
``pn.Param``): each card's controls read and set the part it shows.

Calibration, operating point, conditions, uncertainty, display options and teaching mode.
The upload widgets are in :mod:`.uploads` (re-exported here).
"""

from __future__ import annotations

import io

import panel as pn

from llrlab.core import LlrlabError

from .state import PLO_LIMIT, DashboardState
from .uploads import DEFAULT_MAX_UPLOAD_MB, UploadPanel
from .views._lean import LeanFloatInput, LeanFloatSlider

__all__ = [
    "DEFAULT_MAX_UPLOAD_MB",
    "UploadPanel",
    "calibration_controls",
    "condition_controls",
    "display_controls",
    "operating_point_controls",
    "presenter_controls",
    "teaching_controls",
    "uncertainty_controls",
]


def operating_point_controls(state: DashboardState, point=None):
    """p_target, c_miss, c_fa, effective prior and prior log-odds, linked by the operating
    point part.

    ``point``, when given, is what the widgets show instead of ``state.point``: a served page
    passes a :class:`~.url.Debounced` copy that follows a drag once it pauses (the plots and
    tables follow every step; updating five widgets per step cost a third of the server's
    time of a drag step); what is typed into them is set at once.  (Their classes skip
    Panel's design on each new value: :mod:`.views._lean`.)"""
    point = (point or state.point).param
    return pn.Column(
        LeanFloatInput.from_param(point.p_target, format="0.[000000]", step=0.001,
                                  name="P(target)"),
        pn.Row(LeanFloatInput.from_param(point.c_miss, step=1.0, width=120),
               LeanFloatInput.from_param(point.c_fa, step=1.0, width=120)),
        LeanFloatInput.from_param(point.effective_prior, step=0.001, format="0.[000000]"),
        pn.Row(LeanFloatSlider.from_param(point.plo, start=-PLO_LIMIT, end=PLO_LIMIT,
                                          step=0.01, format="0.00", show_value=False,
                                          name="Prior log-odds", sizing_mode="stretch_width"),
               LeanFloatInput.from_param(point.plo, step=0.01, format="0.000", name="",
                                         width=90, align="end"),
               sizing_mode="stretch_width"),
        sizing_mode="stretch_width",
    )


def calibration_controls(state: DashboardState):
    cal = state.calibration.param
    return pn.Column(
        pn.widgets.RadioButtonGroup.from_param(cal.method, name="Calibration",
                                               button_type="primary",
                                               button_style="outline"),
        pn.widgets.FloatSlider.from_param(cal.train_prior, throttled=True),
        pn.widgets.Checkbox.from_param(cal.fusion),
        sizing_mode="stretch_width",
    )


def display_controls(state: DashboardState):
    display = state.display.param
    return pn.Column(
        pn.widgets.RangeSlider.from_param(display.nber_range, start=-15.0, end=15.0,
                                          step=0.5),
        pn.widgets.RadioButtonGroup.from_param(display.det_kind, button_type="primary",
                                               button_style="outline"),
        pn.widgets.Checkbox.from_param(display.show_contributions),
        pn.widgets.Checkbox.from_param(display.show_dev),
        pn.widgets.Checkbox.from_param(display.presentation),
        pn.widgets.Checkbox.from_param(display.svg),
        pn.pane.Markdown("LLR unit (Tippett plot, calibration map)", margin=(5, 10, 0, 10)),
        pn.widgets.RadioButtonGroup.from_param(display.llr_unit, button_type="primary",
                                               button_style="outline"),
        pn.pane.Markdown("Reliability diagram", margin=(5, 10, 0, 10)),
        pn.widgets.RadioButtonGroup.from_param(display.reliability, button_type="primary",
                                               button_style="outline"),
        pn.widgets.IntSlider.from_param(display.reliability_bins),
        sizing_mode="stretch_width",
    )


def condition_controls(state: DashboardState):
    """Condition weighting (van Leeuwen 2008): weighting, custom weights, selection, per-condition
    curves; disabled with a short explanation when the data carry no conditions."""
    fit = {"sizing_mode": "stretch_width"}
    cond, teaching = state.conditions, state.teaching
    weighting = pn.widgets.RadioButtonGroup.from_param(
        cond.param.weighting, button_type="primary", button_style="outline",
        orientation="vertical", name="weighting", **fit)
    custom = pn.widgets.TextInput.from_param(cond.param.custom_weights,
                                             placeholder="tel=2, mic=1", name="Custom weights",
                                             **fit)
    # a native multi-select shows the names as text (Bokeh's MultiChoice renders its labels
    # as HTML through Choices.js: a condition name could run a script)
    select = pn.widgets.MultiSelect.from_param(cond.param.selected,
                                               name="Pooled conditions", size=6, **fit)
    show = pn.widgets.Checkbox.from_param(cond.param.show_curves)
    note = pn.pane.Markdown("", margin=(0, 5), name="conditions_note",
                            styles={"color": "#555555", "font-size": "90%"})

    def update(*_):
        off = not cond.available or teaching.enabled
        for w in (weighting, select, show):
            w.disabled = off
        custom.disabled = off or cond.weighting != "custom"
        custom.visible = cond.weighting == "custom"
        note.object = cond.note(teaching.enabled)

    cond.param.watch(update, ["available", "others", "n_others", "weighting"])
    teaching.param.watch(update, ["enabled"])
    update()
    return pn.Column(weighting, custom, select, show, note, **fit)


def uncertainty_controls(state: DashboardState):
    """Binomial intervals at the operating point, and bootstrap intervals on demand."""
    fit = {"sizing_mode": "stretch_width"}
    unc = state.uncertainty
    method = pn.widgets.RadioButtonGroup.from_param(unc.param.ci_method,
                                                    button_type="primary",
                                                    button_style="outline", **fit)
    level = pn.widgets.FloatInput.from_param(unc.param.ci_level, step=0.01,
                                             format="0.[000]", **fit)
    by = pn.widgets.RadioButtonGroup.from_param(unc.param.boot_by, button_type="primary",
                                                button_style="outline", **fit)
    n = pn.widgets.IntInput.from_param(unc.param.boot_n, step=50, **fit)
    button = pn.widgets.Button(name="Bootstrap intervals", button_type="primary",
                               **fit)
    button.on_click(lambda _e: unc.run_bootstrap(state.point.plo))

    def busy(*_):
        button.disabled = state.status.busy

    state.status.param.watch(busy, ["busy"])
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
               for p in ("mu_tar", "sigma_tar", "mu_non", "sigma_non", "scale", "shift")}
    widgets["n_tar"] = {"type": pn.widgets.IntInput, "step": 1000, **fit}
    widgets["n_non"] = {"type": pn.widgets.IntInput, "step": 10_000, **fit}
    widgets["seed"] = {"type": pn.widgets.IntInput, **fit}
    teaching = state.teaching
    return pn.Column(
        pn.widgets.Checkbox.from_param(teaching.param.enabled, name="Teaching mode"),
        pn.pane.Markdown(
            "Targets and non-targets are Gaussian; the system outputs "
            "`scale × true LLR + shift` (Brümmer & de Villiers 2011, fig. 1). The green curve "
            "is the true LLR; calibrating on dev repairs the miscalibration.", margin=(0, 5)),
        pn.Param(teaching.param, parameters=["mu_tar", "sigma_tar", "mu_non", "sigma_non",
                                             "n_tar", "n_non", "seed", "scale", "shift",
                                             "references"],
                 widgets=widgets, show_name=False, sizing_mode="stretch_width"),
        sizing_mode="stretch_width",
    )


def presenter_controls(state: DashboardState):
    """Guided lessons, presenter mode and saved views (snapshots of the dashboard)."""
    fit = {"sizing_mode": "stretch_width"}
    lessons = state.lesson
    options = {lesson.title: lid for lid, lesson in lessons.library.items()}
    pick = pn.widgets.Select(name="Lesson", options=options, **fit)
    if lessons.lesson in options.values():
        pick.value = lessons.lesson
    start = pn.widgets.Button(name="Start lesson", button_type="primary", **fit)
    start.on_click(lambda _e: lessons.open(pick.value, 1) if pick.value else None)
    start.disabled = not options

    # a checkbox, not Bokeh's Switch: a click on its label toggles it (the Switch reacts to
    # its knob only)
    present = pn.widgets.Checkbox.from_param(state.presenter.param.enabled,
                                             css_classes=["llrlab-presenter-switch"])
    # one under the other: five side by side overflowed the card at 1280 x 720
    panels = pn.widgets.CheckButtonGroup.from_param(
        state.presenter.param.panels, button_type="primary", button_style="outline",
        orientation="vertical", **fit)

    name = pn.widgets.TextInput(name="View name", placeholder="e.g. 'after affine calibration'",
                                max_length=120, **fit)
    save = pn.widgets.Button(name="Save view", button_type="primary", width=110)
    views = pn.widgets.Select(name="Saved views", options={}, **fit)
    # the three buttons share the card's width (fixed widths overflowed it at 1280 x 720)
    show = pn.widgets.Button(name="Show", button_type="light", min_width=60, **fit)
    delete = pn.widgets.Button(name="Delete", button_type="light", min_width=60, **fit)
    export = pn.widgets.FileDownload(callback=lambda: io.StringIO(state.views_file()),
                                     filename="llrlab_views.json", label="Export views",
                                     button_type="light", min_width=110, **fit)
    upload = pn.widgets.FileInput(accept=".json", multiple=False, name="Import views", **fit)

    def list_views(*_):
        opts = {f"{i + 1}. {v['name']}": i for i, v in enumerate(state.presenter.views)}
        views.options = opts
        if opts:
            cur = state.presenter.current
            views.value = cur if 0 <= cur < len(opts) else 0
        for w in (show, delete, export):
            w.disabled = not opts

    def on_save(_e):
        try:
            state.save_view(name.value)
        except LlrlabError as exc:
            state.status.error = str(exc)
        name.value = ""

    def on_import(event):
        data = event.new
        if not data:
            return
        try:
            n = state.import_views(data, source=upload.filename or "views file")
        except LlrlabError as exc:
            state.status.error = str(exc)
        else:
            state.status.notice = f"{n} saved views imported."

    save.on_click(on_save)
    show.on_click(lambda _e: state.show_view(views.value) if views.value is not None else None)
    delete.on_click(lambda _e: state.presenter.remove_view(views.value)
                    if views.value is not None else None)
    upload.param.watch(on_import, ["value"])
    state.presenter.param.watch(list_views, ["views", "current"])
    list_views()
    note = pn.pane.Markdown(
        "The arrow keys ← → step through the lesson, or the saved views in presenter mode. "
        "A lesson's step is part of the page's link.", margin=(0, 5),
        styles={"color": "#555555", "font-size": "90%"})
    return pn.Column(
        pick, start,
        present,
        pn.pane.Markdown("Shown in presenter mode", margin=(5, 5, 0, 5)), panels,
        pn.Row(name, save, **fit), views, pn.Row(show, delete, export, **fit),
        pn.pane.Markdown("Import views (a file from 'Export views')", margin=(5, 5, 0, 5)),
        upload, note, **fit)
