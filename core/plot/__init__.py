"""Figures for papers and slides, drawn with matplotlib (``pip install "llrlab[plot]"``).

One function per figure, each drawing on a matplotlib ``Axes`` (a new figure of ``size``
when ``ax`` is None) and returning it:

* :func:`det` -- DET plot on probit axes, ticks at 0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 40 %,
  steppy and/or ROCCH curves, EER, operating and minimum-DCF points, DR30 markers and the
  regions beyond them, more labelled points (:class:`Marker`);
* :func:`nber` -- normalized Bayes error rate (actual and minimum DCF) against prior
  log-odds, with the operating point and DR30;
* :func:`ape`, :func:`ece` -- Bayes error rates and empirical cross-entropies against prior
  log-odds, with the Cllr decomposition;
* :func:`epc` -- expected performance curves (thresholds chosen on dev);
* :func:`tippett`, :func:`reliability` -- the forensic views, LLRs in ln, log10 or bits;
* :func:`hist` -- score histograms of both classes with the Bayes threshold.

Each takes the data as the measures of :mod:`llrlab.core` do: ``(tar, non)`` scores, a
``Trials``, an ``Analysis``, or several systems as ``{name: data}`` (one colour and marker
glyph each, from :mod:`llrlab.core.palette`, and a legend).  Every number comes from
``llrlab.core``; nothing is computed here.

:func:`save` writes a figure as PDF (TrueType fonts embedded), SVG (text kept as text) or
PNG, with the same bytes for the same data; :func:`style` gives llrlab's rcParams for
figures of your own.  ``import llrlab.core`` does not import matplotlib, nor does this
package until a figure is drawn.  ``llrlab plot`` draws the same figures from score files
(docs/figures.md).

Examples
--------
>>> from llrlab.core import gaussian_trials, plo_from_costs
>>> from llrlab.core import plot
>>> t = gaussian_trials(1000, 10_000, seed=1)
>>> ax = plot.nber(t, plo=plo_from_costs(0.01))
>>> ax.get_ylabel()
'normalized DCF'
>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "nber.pdf")
>>> plot.save(ax, path)
>>> with open(path, "rb") as f:
...     f.read(5)
b'%PDF-'
"""

from __future__ import annotations

from ._curves import ape, ece, epc, nber
from ._det import Marker, det
from ._forensic import reliability, tippett
from ._hist import hist
from ._style import FORMATS, SIZES, FigureSize, figure_size, save, style

__all__ = ["FORMATS", "KINDS", "SIZES", "FigureSize", "Marker", "ape", "det", "ece", "epc",
           "figure_size", "hist", "nber", "reliability", "save", "style", "tippett"]

#: The figure functions by name (``llrlab plot KIND``).
KINDS = {"det": det, "nber": nber, "ape": ape, "ece": ece, "epc": epc, "tippett": tippett,
         "reliability": reliability, "hist": hist}
