"""The installed ``llrlab`` console script as users run it: version, help, start-up imports."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from .._subprocess import loaded_by, python_prints
from .._time_scale import scaled

LLRLAB = Path(sys.executable).parent / "llrlab"


def _run(*args, **kw):
    return subprocess.run([str(LLRLAB), *args], capture_output=True, text=True, timeout=scaled(120),
                          **kw)


def test_version_on_the_command_line_and_in_python():
    import llrlab

    r = _run("--version")
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout == f"llrlab {llrlab.__version__}\n"
    assert llrlab.__version__ == llrlab.core.__version__
    from importlib.metadata import version

    assert llrlab.__version__ == version("llrlab")


def test_help_lists_every_subcommand():
    r = _run("-h")
    assert r.returncode == 0
    for cmd in ("eval", "calibrate", "fuse", "apply", "compare", "curves", "serve"):
        assert f"    {cmd}" in r.stdout


def test_help_imports_neither_numpy_nor_scipy_nor_panel():
    """``llrlab -h`` must start at once: the parser is built without the numeric stack
    (each subcommand imports what it needs when it runs; ``bench/bench_startup.py`` times
    it)."""
    code = "from llrlab.dashboard.cli import build_parser; build_parser()"
    assert loaded_by(code, ("numpy", "scipy", "h5py", "panel", "bokeh")) == []


def test_the_core_api_is_importable_lazily():
    code = ("import sys, llrlab.core as c; before = 'scipy' in sys.modules; "
            "from llrlab.core import analyze, Trials, z_test; "
            "print(before, callable(analyze), sorted(set(c.__all__) - set(dir(c))))")
    assert python_prints(code) == "False True []"


def test_functions_keep_their_names_beside_submodules_of_the_same_name():
    """``llrlab.core.cllr`` is the function even after the submodule ``cllr`` is imported
    (lazy imports must not change what ``from llrlab.core import cllr`` gives)."""
    code = ("import llrlab.core.cllr, llrlab.core.pav, llrlab.core.rocch, llrlab.core.epc; "
            "from llrlab.core import cllr, pav, rocch, epc; "
            "print(all(callable(f) for f in (cllr, pav, rocch, epc)))")
    assert python_prints(code) == "True"
