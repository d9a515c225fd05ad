"""Widgets of the dashboard, built from the state's parameters (``from_param`` / ``pn.Param``).

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

from .state import DashboardState

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
        pn.pane.Markdown("LLR unit (Tippett plot, calibration map)", margin=(5, 10, 0, 10)),
        pn.widgets.RadioButtonGroup.from_param(state.param.llr_unit, button_type="primary",
                                               button_style="outline"),
        pn.pane.Markdown("Reliability diagram", margin=(5, 10, 0, 10)),
        pn.widgets.RadioButtonGroup.from_param(state.param.reliability, button_type="primary",
                                               button_style="outline"),
        pn.widgets.IntSlider.from_param(state.param.reliability_bins),
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
    select = pn.widgets.MultiChoice.from_param(state.param.conditions_selected,
                                               name="Pooled conditions", **fit)
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
            self.state.error = "choose a scores file to upload first"
            return
        (name, data), = list(files.items())[-1:]
        key_item = list(keys.items())[-1] if keys else None
        total = len(data) + (len(key_item[1]) if key_item else 0)
        if total > self.max_bytes:
            self.state.error = (f"{name}: the upload is larger than the "
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
            self.state.error = f"{name}: could not store the upload ({exc.strerror})"
            return
        system = self.system.value.strip() or "uploaded"
        self.state.load_files([(system, self.role.value, scores_path, key_path)],
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
