"""Widgets of the dashboard, built from the parameters of the state's parts (``from_param`` /
``pn.Param``): each card's controls read and set the part it shows.

Data loading (demo button, uploads), calibration, operating point, display options, exports
and teaching mode.  Uploads use Panel's ``FileDropper``: files travel in chunks of a few MB
(so no single websocket message exceeds the server's cap) and the browser refuses files larger
than the configured maximum with a visible "File is too large" message before sending
anything.  Uploaded bytes are written to a private temporary directory under their own name
and read with ``llrlab.core.io.load_trials``; errors name the file as the user knows it.
"""

from __future__ import annotations

import os
import shutil
import tempfile

import panel as pn

from .state import PLO_LIMIT, DashboardState

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

#: Largest file accepted by the upload widgets, in MB (``llrlab serve --max-upload-mb``).
DEFAULT_MAX_UPLOAD_MB = 500
_CHUNK = 4_000_000


def operating_point_controls(state: DashboardState):
    """p_target, c_miss, c_fa, effective prior and prior log-odds, linked by the operating
    point part."""
    point = state.point.param
    return pn.Column(
        pn.widgets.FloatInput.from_param(point.p_target, format="0.[000000]",
                                         step=0.001, name="P(target)"),
        pn.Row(pn.widgets.FloatInput.from_param(point.c_miss, step=1.0, width=120),
               pn.widgets.FloatInput.from_param(point.c_fa, step=1.0, width=120)),
        pn.widgets.FloatInput.from_param(point.effective_prior, step=0.001,
                                         format="0.[000000]"),
        pn.Row(pn.widgets.FloatSlider.from_param(point.plo, start=-PLO_LIMIT, end=PLO_LIMIT,
                                                 step=0.01, format="0.00", show_value=False,
                                                 name="Prior log-odds",
                                                 sizing_mode="stretch_width"),
               pn.widgets.FloatInput.from_param(point.plo, step=0.01, format="0.000", name="",
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
        sizing_mode="stretch_width",
    )


def condition_controls(state: DashboardState):
    """Condition weighting (seed 001): weighting, custom weights, selection, per-condition
    curves; disabled with a short explanation when the data carry no conditions."""
    fit = {"sizing_mode": "stretch_width"}
    cond, teaching = state.conditions, state.teaching
    weighting = pn.widgets.RadioButtonGroup.from_param(
        cond.param.weighting, button_type="primary", button_style="outline",
        orientation="vertical", name="weighting", **fit)
    custom = pn.widgets.TextInput.from_param(cond.param.custom_weights,
                                             placeholder="tel=2, mic=1", name="Custom weights",
                                             **fit)
    select = pn.widgets.MultiChoice.from_param(cond.param.selected,
                                               name="Pooled conditions", **fit)
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

    cond.param.watch(update, ["available", "weighting"])
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
        pn.widgets.Switch.from_param(teaching.param.enabled, name="Teaching mode"),
        pn.pane.Markdown(
            "Targets and non-targets are Gaussian; the system outputs "
            "`scale × true LLR + shift` (seed 000, figure 1). The green curve is the "
            "true LLR; calibrating on dev repairs the miscalibration.", margin=(0, 5)),
        pn.Param(teaching.param, parameters=["mu_tar", "sigma_tar", "mu_non", "sigma_non",
                                             "n_tar", "n_non", "seed", "scale", "shift",
                                             "references"],
                 widgets=widgets, show_name=False, sizing_mode="stretch_width"),
        sizing_mode="stretch_width",
    )


class UploadPanel:
    """Upload widgets: a scores (or labelled, or HDF5) file and an optional key file."""

    def __init__(self, state: DashboardState, *, max_upload_mb=DEFAULT_MAX_UPLOAD_MB):
        self.state = state
        self.max_bytes = int(max_upload_mb * 1_000_000)
        size = f"{int(max_upload_mb)}MB"
        self.scores = pn.widgets.FileDropper(name="Scores, labelled file or HDF5",
                                             max_file_size=size, chunk_size=_CHUNK,
                                             sizing_mode="stretch_width", layout="compact")
        self.key = pn.widgets.FileDropper(name="Key file (optional)", max_file_size=size,
                                          chunk_size=_CHUNK, sizing_mode="stretch_width",
                                          layout="compact")
        self.role = pn.widgets.RadioButtonGroup(name="Use as", options=["dev", "eval"],
                                                value="eval", button_type="primary",
                                                button_style="outline")
        self.system = pn.widgets.TextInput(name="System name", value="uploaded",
                                           sizing_mode="stretch_width")
        self.button = pn.widgets.Button(name="Load uploaded file", button_type="primary",
                                        sizing_mode="stretch_width")
        self.button.on_click(self._load)
        self.layout = pn.Column(
            self.scores, self.key, pn.Row(pn.pane.Markdown("Use as:", margin=(8, 5)),
                                          self.role),
            self.system, self.button, sizing_mode="stretch_width")

    def _load(self, _event=None):
        files = dict(self.scores.value or {})
        keys = dict(self.key.value or {})
        if not files:
            self.state.status.error = "choose a scores file to upload first"
            return
        (name, data), = list(files.items())[-1:]
        key_item = list(keys.items())[-1] if keys else None
        total = len(data) + (len(key_item[1]) if key_item else 0)
        if total > self.max_bytes:
            self.state.status.error = (f"{name}: the upload is larger than the "
                                f"{self.max_bytes // 1_000_000} MB limit of this server")
            return
        tmp = tempfile.mkdtemp(prefix="llrlab-upload-")
        display = {}
        try:
            scores_path = _write(tmp, "scores", name, data)
            display[scores_path] = name
            key_path = None
            if key_item is not None:
                key_path = _write(tmp, "key", *key_item)
                display[key_path] = key_item[0]
        except OSError as exc:
            shutil.rmtree(tmp, ignore_errors=True)
            self.state.status.error = f"{name}: could not store the upload ({exc.strerror})"
            return
        system = self.system.value.strip() or "uploaded"
        self.state.data.load_files([(system, self.role.value, scores_path, key_path)],
                                   display=display, cleanup=tmp)


def _write(tmp, sub, name, data):
    folder = os.path.join(tmp, sub)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, os.path.basename(name) or "upload")
    mode = "w" if isinstance(data, str) else "wb"
    kw = {"encoding": "utf-8", "newline": ""} if mode == "w" else {}
    with open(path, mode, **kw) as f:
        f.write(data)
    return path
