"""The "Compare systems" tab: controls, the comparison table and the overlaid plots.

:class:`CompareView` draws the :class:`~llrlab.dashboard.state.CompareState` of a
``DashboardState`` (its ``compare`` part).  :meth:`CompareView.follow_tab` makes the
comparison lazy: heavy results are computed only while its tab is shown.  While the operating
point moves, the table's
measures follow at once (look-ups); the significance tests (a pass over every trial) run once
the operating point has stayed put for :data:`TEST_DELAY_MS`, in the background.

The table is an HTML pane regenerated whole (see ``views/metrics.py`` on Bokeh's DataTable);
:func:`table_html` formats ``CompareState.table_rows()``.
"""

from __future__ import annotations

import io
import logging

import panel as pn
import param
from panel.io.state import set_curdoc

from llrlab.core import opposite_verdicts, p_value_text

from ..safe import MAX_SHOWN, html_text, md_text
from ..state import DashboardState, user_message
from .compare_plots import (
    CllrBarsView,
    CompareAPEView,
    CompareDETView,
    CompareECEView,
    CompareEPCView,
    CompareNBERView,
)

__all__ = ["TEST_DELAY_MS", "CompareView", "table_html"]

log = logging.getLogger(__name__)

#: The significance tests start once the operating point has rested this long.
TEST_DELAY_MS = 350

_CSS = """
<style>
div.llrlab-scroll { max-width: 100%%; overflow-x: auto; }
table.llrlab-compare .why { color: #6a1b4d; }
table.llrlab-compare { border-collapse: collapse; font-size: %(size)s; width: 100%%; }
table.llrlab-compare th, table.llrlab-compare td { padding: 4px 7px;
    border-bottom: 1px solid #e3e3e3; vertical-align: top; }
table.llrlab-compare th { text-align: right; border-bottom: 2px solid #999; vertical-align: bottom;
    white-space: normal; min-width: 4.2em; }
table.llrlab-compare td { text-align: right; font-variant-numeric: tabular-nums;
    white-space: nowrap; }
table.llrlab-compare th.l, table.llrlab-compare td.l { text-align: left; }
table.llrlab-compare td.verdict { white-space: normal; color: #555; font-size: 0.9em;
    padding-top: 0; }
table.llrlab-compare tr[data-system] + tr.v td { border-top: none; }
table.llrlab-compare tr[data-system]:has(+ tr.v) td { border-bottom: none; }
table.llrlab-compare .sw { display: inline-block; width: 12px; height: 12px;
    border-radius: 2px; margin-right: 7px; vertical-align: -1px; }
table.llrlab-compare .sig { font-weight: bold; color: #1b5e20; }
table.llrlab-compare .muted { color: #888; font-style: italic; }
</style>
"""

#: The plots of the tab wrap (two per row from a main area of about 2 x 460 px).
_ROW_CSS = """
:host { flex-wrap: wrap; min-width: 0 !important; }
.llrlab-cmp-plot { flex: 1 1 460px !important; min-width: 0 !important; }
"""

_COLUMNS = ("system", "targets", "non-targets", "Cllr", "min Cllr", "cal. loss", "EER (%)",
            "act DCF", "min DCF", "z-test p", "McNemar p")


def _sentence(text):
    return text[:1].upper() + text[1:] + "."


def _p(p):
    return p_value_text(p)  # "< 1e-300" when the p-value underflows, as the CLI writes it


def table_html(rows, *, presentation=False, pending=False):
    """HTML of the comparison table (``rows`` from ``CompareState.table_rows()``)."""
    out = [_CSS % {"size": "18px" if presentation else "13.5px"},
           '<div class="llrlab-scroll"><table class="llrlab-compare"><thead><tr>']
    out += [f'<th class="{"l" if c == "system" else ""}">{c}</th>' for c in _COLUMNS]
    out.append("</tr></thead><tbody>")
    for r in rows:
        name = html_text(r["system"], MAX_SHOWN)
        cells = [f'<td class="l" data-key="system"><span class="sw" '
                 f'style="background:{r["color"]}"></span><b>{name}</b></td>',
                 f"<td>{r['n_tar']:,}</td>", f"<td>{r['n_non']:,}</td>",
                 f'<td data-key="cllr">{r["cllr"]:.4f}</td>',
                 f"<td>{r['min_cllr']:.4f}</td>", f"<td>{r['calibration_loss']:.4f}</td>",
                 f"<td>{100 * r['eer']:.3f}</td>",
                 f'<td data-key="act_dcf"><b>{r["act_dcf"]:.4f}</b></td>',
                 f'<td data-key="min_dcf"><b>{r["min_dcf"]:.4f}</b></td>']
        sig = r["significance"]
        verdict = ""
        if r["is_reference"]:
            cells += ['<td class="muted" data-key="z_p">reference</td>',
                      '<td class="muted" data-key="mcnemar_p">reference</td>']
        elif sig is None:
            text = "testing…" if pending else "—"
            cells += [f'<td class="muted" data-key="z_p">{text}</td>',
                      f'<td class="muted" data-key="mcnemar_p">{text}</td>']
        elif sig.z is None:
            cells += ['<td data-key="z_p">—</td>', '<td data-key="mcnemar_p">—</td>']
            verdict = html_text(sig.error)
        else:
            z, m = sig.z, sig.mcnemar
            cells += [f'<td data-key="z_p" class="{"sig" if z.significant else ""}">'
                      f"{_p(z.p_value)}</td>",
                      f'<td data-key="mcnemar_p" class="{"sig" if m.significant else ""}">'
                      f"{_p(m.p_value)}</td>"]
            verdict = f"{html_text(_sentence(z.verdict))} {html_text(_sentence(m.verdict))}"
            why = opposite_verdicts(m, z)
            if why:
                verdict += f' <span class="why">{html_text(_sentence(why))}</span>'
        out.append(f'<tr data-system="{name}">' + "".join(cells) + "</tr>")
        if verdict:
            out.append(f'<tr class="v"><td></td><td class="l verdict" colspan="'
                       f'{len(_COLUMNS) - 1}" data-system="{name}">{verdict}</td></tr>')
    out.append("</tbody></table></div>")
    return "".join(out)


class CompareView(pn.viewable.Viewer):
    """The comparison tab of a :class:`DashboardState`."""

    state = param.ClassSelector(class_=DashboardState)

    def __init__(self, **params):
        super().__init__(**params)
        cs = self.cstate = self.state.compare
        self._timeout = None
        cs.defer = self._defer
        self.nber, self.det = CompareNBERView(cstate=cs), CompareDETView(cstate=cs)
        self.ape, self.ece = CompareAPEView(cstate=cs), CompareECEView(cstate=cs)
        self.epc, self.cllr = CompareEPCView(cstate=cs), CllrBarsView(cstate=cs)

        role = pn.widgets.RadioButtonGroup.from_param(cs.param.role,
                                                      width=140, margin=(22, 10, 5, 10))
        ref = pn.widgets.Select.from_param(cs.param.reference, width=200)
        run = pn.widgets.Button(name="Run tests now", button_type="light", width=130,
                                margin=(22, 10, 5, 10))
        run.on_click(lambda _e: cs.request_tests())
        self.download = pn.widgets.FileDownload(
            callback=self._csv, filename="llrlab_comparison.csv", label="Table (CSV)",
            button_type="light", width=140, margin=(22, 10, 5, 10))
        self.header = pn.pane.Markdown("", margin=(0, 10), name="compare_summary")
        self.table = pn.pane.HTML("", name="compare_table", margin=(0, 10),
                                  sizing_mode="stretch_width")
        self.notice = pn.pane.Alert("", alert_type="info", visible=False, margin=(5, 10),
                                    sizing_mode="stretch_width")
        self.status = pn.pane.Markdown("", margin=(0, 10))

        def row(*views):  # side by side when both fit, else one under the other
            return pn.Row(*[pn.Column(v, sizing_mode="stretch_width",
                                      css_classes=["llrlab-cmp-plot"]) for v in views],
                          sizing_mode="stretch_width", stylesheets=[_ROW_CSS])

        self._layout = pn.Column(
            pn.Row(role, ref, run, self.download, self.status),
            self.header, self.table, self.notice,
            row(self.nber, self.det), row(self.ape, self.ece), row(self.epc, self.cllr),
            sizing_mode="stretch_width", name="compare")
        cs.param.watch(self._on_table, ["op", "tests", "tests_pending", "comparison",
                                         "role", "reference"])
        cs.param.watch(self._on_notice, ["notice"])
        cs.param.watch(self._on_status, ["busy", "tests_pending"])
        self.state.display.param.watch(self._on_table, ["presentation"])
        self.state.conditions.param.watch(self._on_table, ["weighting"])
        self._on_table()

    def __panel__(self):
        return self._layout

    def follow_tab(self, tabs, index):
        """Compute the comparison only while tab ``index`` of ``tabs`` is shown."""
        def update(*_):
            self.cstate.active = tabs.active == index
        tabs.param.watch(update, ["active"])
        update()
        return tabs

    # ---------------------------------------------------------------- callbacks

    def _defer(self, fn):
        """Run ``fn`` once the operating point has rested (a timeout on the session's
        event loop, restarted by every move); at once without a served session."""
        doc = pn.state.curdoc
        if doc is None or doc.session_context is None:
            fn()
            return
        if self._timeout is not None:
            try:
                doc.remove_timeout_callback(self._timeout)
            except ValueError:  # already run
                pass

        def cb():
            self._timeout = None
            with set_curdoc(doc):
                try:
                    fn()
                except Exception as exc:  # never let a callback kill the session
                    log.error("deferred comparison callback failed", exc_info=exc)
                    self.state.status.error = f"the comparison failed: {user_message(exc)}"

        self._timeout = doc.add_timeout_callback(cb, TEST_DELAY_MS)

    def _csv(self):
        return io.StringIO(self.cstate.table_csv())

    def _on_table(self, *_):
        cs, st = self.cstate, self.state
        self.table.object = table_html(cs.table_rows(), presentation=st.display.presentation,
                                       pending=cs.tests_pending)
        ref = cs.reference or "—"
        pt = st.point
        self.header.object = (
            f"**{cs.role}** sets at effective prior {pt.effective_prior:.4g} (prior log-odds "
            f"**{pt.plo:.3f}**) · each system tested against **{md_text(ref, MAX_SHOWN)}** "
            f"at the {100 * cs.significance_level:g}% level: z-test of the DCF difference "
            f"(Bengio & Mariéthoz 2004) and McNemar (1947) on the paired decisions"
            + ("" if st.conditions.spec().weights == "pooled" else
               " (the tests count every trial once: condition weights are not used)"))

    def _on_notice(self, *_):
        self.notice.object = md_text(self.cstate.notice)
        self.notice.visible = bool(self.cstate.notice)

    def _on_status(self, *_):
        cs = self.cstate
        self.status.object = ("*computing the comparison…*" if cs.busy else
                              "*testing significance…*" if cs.tests_pending else "")
