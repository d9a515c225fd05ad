"""The files the figures are written to: for every kind and format, a file of a sensible size
with vector content (PDF: path and text operators, TrueType fonts embedded, the labels
extractable; SVG: XML with paths and the labels as text), PNG of the asked size; the same
bytes for the same data."""

from __future__ import annotations

import io
import xml.etree.ElementTree as ET

import matplotlib
import pytest
from PIL import Image
from pypdf import PdfReader

from llrlab.core import gaussian_trials, plo_from_costs, plot

PLO = float(plo_from_costs(0.01))
#: (kind, what the x axis label says, what the y axis label says)
LABELS = {
    "det": ("false-alarm probability (%)", "miss probability (%)"),
    "nber": ("prior log-odds", "normalized DCF"),
    "ape": ("prior log-odds", "Bayes error rate"),
    "ece": ("prior log-odds", "empirical cross-entropy (bits)"),
    "epc": ("weight of false alarms on dev", "HTER on eval (%)"),
    "tippett": ("log10(LR)", "proportion of LRs"),
    "reliability": ("predicted posterior", "empirical posterior"),
    "hist": ("score", "density"),
}
FORMATS = ("pdf", "svg", "png")


def _draw(kind):
    a = gaussian_trials(500, 5000, seed=1, scale=1.2)
    b = gaussian_trials(500, 5000, seed=2, scale=0.8)
    if kind == "epc":
        return plot.epc({"A": (a, a), "B": (b, b)}, plo=PLO)
    if kind == "hist":
        return plot.hist(a, plo=PLO)
    if kind == "reliability":
        return plot.reliability({"A": a, "B": b})
    return plot.KINDS[kind]({"A": a, "B": b}, plo=PLO)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("figures")
    out = {}
    for kind in LABELS:
        ax = _draw(kind)
        for fmt in FORMATS:
            path = d / f"{kind}.{fmt}"
            plot.save(ax, path, dpi=150)
            out[kind, fmt] = (path, tuple(ax.figure.get_size_inches()))
        matplotlib.pyplot.close(ax.figure)
    return out


@pytest.mark.parametrize("kind", list(LABELS))
def test_pdf_is_vector_with_embedded_truetype_fonts_and_its_labels_as_text(files, kind):
    path, (w, h) = files[kind, "pdf"]
    data = path.read_bytes()
    assert data.startswith(b"%PDF-") and 5_000 < len(data) < 2_000_000
    assert b"/FontFile2" in data  # TrueType font programs, embedded
    assert b"/Type3" not in data and b"/FontFile3" not in data
    assert b"/Subtype /Image" not in data  # nothing rasterized
    reader = PdfReader(io.BytesIO(data))
    (page,) = reader.pages
    assert [float(v) for v in page.mediabox[2:]] == pytest.approx([72 * w, 72 * h])
    fonts = {str(f["/BaseFont"]) for f in page["/Resources"]["/Font"].values()
             if "/BaseFont" in f}
    assert fonts and all("DejaVuSans" in f for f in fonts)
    ops = page.get_contents().get_data()
    for op in (b" m\n", b" l\n", b"BT\n", b"Tj" if b"Tj" in ops else b"TJ"):
        assert op in ops
    text = page.extract_text()
    for label in LABELS[kind]:
        assert label in text.replace("\n", " ")


@pytest.mark.parametrize("kind", list(LABELS))
def test_svg_is_xml_with_paths_and_its_labels_as_text(files, kind):
    path, (w, h) = files[kind, "svg"]
    data = path.read_bytes()
    assert 5_000 < len(data) < 3_000_000
    root = ET.fromstring(data)
    ns = "{http://www.w3.org/2000/svg}"
    assert root.tag == f"{ns}svg"
    assert root.get("width") == f"{72 * w:g}pt" and root.get("height") == f"{72 * h:g}pt"
    assert len(root.findall(f".//{ns}path")) >= 20
    assert not root.findall(f".//{ns}image")
    texts = " ".join("".join(t.itertext()) for t in root.iter(f"{ns}text"))
    for label in LABELS[kind]:
        assert label in texts
    assert "DejaVu Sans" in data.decode()


@pytest.mark.parametrize("kind", list(LABELS))
def test_png_has_the_size_asked_for(files, kind):
    path, (w, h) = files[kind, "png"]
    with Image.open(path) as im:
        assert im.format == "PNG"
        assert im.size == (round(w * 150), round(h * 150))
        assert im.info["dpi"] == pytest.approx((150, 150), abs=0.05)  # (pixels per metre)
        # not blank: curves and text in many colours
        assert len(im.convert("RGB").getcolors(1 << 20)) > 50


def test_same_data_same_bytes(tmp_path):
    for fmt in FORMATS:
        blobs = []
        for i in range(2):
            ax = _draw("det")
            plot.save(ax, tmp_path / f"{i}.{fmt}")
            blobs.append((tmp_path / f"{i}.{fmt}").read_bytes())
        assert blobs[0] == blobs[1], fmt


def test_save_embeds_truetype_fonts_whatever_the_global_settings(tmp_path):
    ax = _draw("nber")
    with matplotlib.rc_context({"pdf.fonttype": 3, "svg.fonttype": "path"}):
        plot.save(ax, tmp_path / "f.pdf", title="NBER of A and B")
        plot.save(ax, tmp_path / "f.svg")
    data = (tmp_path / "f.pdf").read_bytes()
    assert b"/FontFile2" in data and b"/Type3" not in data
    assert PdfReader(tmp_path / "f.pdf").metadata.title == "NBER of A and B"
    assert "normalized DCF" in (tmp_path / "f.svg").read_text()


def test_the_size_presets_give_the_figure_sizes(tmp_path):
    a = gaussian_trials(300, 3000, seed=4)
    for size, det_wh, wh in (("column", (3.5, 3.3), (3.5, 2.6)),
                             ("double", (7.0, 4.6), (7.0, 3.6)),
                             ("slide", (8.0, 5.0), (8.0, 5.0)),
                             ("4x3", (4.0, 3.0), (4.0, 3.0))):
        assert tuple(plot.det(a, size=size).figure.get_size_inches()) == det_wh
        assert tuple(plot.nber(a, size=size).figure.get_size_inches()) == wh
    assert plot.style("slide")["font.size"] == 16.0
    # the slide's type is twice the column's, the legend beside the square DET plot
    ax = plot.det({"A": a, "B": gaussian_trials(300, 3000, seed=5)}, size="slide")
    assert ax.get_legend() is None and len(ax.figure.legends) == 1
    ax.figure.canvas.draw()
    r = ax.figure.canvas.get_renderer()
    fig_box = ax.figure.bbox
    for artist in (ax.yaxis.label, ax.xaxis.label, ax.figure.legends[0]):
        box = artist.get_window_extent(r)
        assert fig_box.x0 <= box.x0 and box.x1 <= fig_box.x1, artist
