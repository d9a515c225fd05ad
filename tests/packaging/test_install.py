"""The installed layout: core/ and dashboard/ become llrlab.core and llrlab.dashboard."""

from __future__ import annotations

import subprocess
import sys
import zipfile

import pytest

from .._subprocess import loaded_by, python_prints
from .._time_scale import scaled


@pytest.mark.slow
def test_wheel_maps_top_level_folders_into_the_llrlab_namespace(tmp_path):
    root = __import__("pathlib").Path(__file__).resolve().parents[2]
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
         "-w", str(tmp_path), str(root)],
        check=True, capture_output=True, timeout=scaled(300),
    )
    (wheel,) = tmp_path.glob("llrlab-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "llrlab/__init__.py" in names  # llrlab.__version__ (from core/_toplevel/)
    assert "llrlab/core/__init__.py" in names
    assert "llrlab/core/io/__init__.py" in names
    assert "llrlab/core/calibration/__init__.py" in names
    assert "llrlab/core/scale/__init__.py" in names
    assert "llrlab/dashboard/__init__.py" in names
    # subpackages are listed one by one in pyproject.toml: every folder of core/ and
    # dashboard/ with an __init__.py, and the lessons' text files, must be in the wheel
    for top in ("core", "dashboard"):
        for init in (root / top).rglob("__init__.py"):
            rel = init.relative_to(root / top).as_posix()
            if "_toplevel" not in rel:
                assert f"llrlab/{top}/{rel}" in names, f"{top}/{rel} not packaged"
    for lesson in (root / "dashboard" / "lessons").glob("*.md"):
        assert f"llrlab/dashboard/lessons/{lesson.name}" in names, "lesson not packaged"
    assert "llrlab/assets/__init__.py" in names
    assert any(n.startswith("llrlab/assets/demo") for n in names), "demo data not packaged"
    # no generic top-level packages leak into site-packages
    tops = {n.split("/")[0] for n in names}
    assert tops <= {"llrlab"} | {t for t in tops if t.endswith(".dist-info")}
    entry = next(n for n in names if n.endswith("entry_points.txt"))
    assert "llrlab = llrlab.dashboard.cli:main" in zipfile.ZipFile(wheel).read(entry).decode()
    # installed from the wheel (not the editable source), the package imports and knows its
    # version
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target",
                    str(target), str(wheel)], check=True, capture_output=True,
                   timeout=scaled(300))
    code = ("import llrlab, llrlab.core, llrlab.dashboard.app as a, llrlab.dashboard.lessons as l; "
            "print(llrlab.__version__, llrlab.core.__file__, len(a.demo_specs()), "
            "len(l.builtin_lessons()))")
    out = python_prints(code, env={"PYTHONPATH": str(target)}).split()
    assert out[0] == __import__("llrlab").__version__
    assert out[1].startswith(str(target)) and out[2] == "4" and int(out[3]) >= 1


def test_core_does_not_import_panel_or_bokeh():
    code = "import llrlab.core, llrlab.core.cli, llrlab.core.io, llrlab.core.calibration"
    assert loaded_by(code, ("panel", "bokeh")) == []
