"""The style of the metrics table, shared by the dashboard and the offline HTML report."""

from __future__ import annotations

__all__ = ["METRICS_TABLE_CSS"]

#: Rows and cells of ``table.llrlab-metrics`` (the font size is set by each page); no ``%``
#: in it, so that it can be joined to a %-formatted style.
METRICS_TABLE_CSS = """\
table.llrlab-metrics th, table.llrlab-metrics td { padding: 3px 12px;
    border-bottom: 1px solid #e3e3e3; }
table.llrlab-metrics th { text-align: right; border-bottom: 2px solid #999; }
table.llrlab-metrics th:first-child, table.llrlab-metrics td:first-child { text-align: left;
    font-weight: bold; }
table.llrlab-metrics td { text-align: right; font-variant-numeric: tabular-nums; }
table.llrlab-metrics tr:nth-child(even) td { background: #f6f7f9; }
"""
