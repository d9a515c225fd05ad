"""What the git repository holds: source and documentation, data only where data belongs, and
no generated outputs (profiles, benchmark results), which its ignore rules keep out.

Skipped outside a git checkout (an unpacked sdist, a wheel install) or without git.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path, PurePosixPath

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Folders where binary data files may be committed.
DATA_FOLDERS = ("assets", "tests/data", "docs")
#: Endings of the binary data files those folders may hold.
DATA_ENDINGS = {".h5", ".hdf5", ".parquet", ".npz", ".npy", ".gz", ".png", ".jpg", ".jpeg",
                ".gif", ".ico", ".pdf", ".woff", ".woff2"}
#: Outputs of profilers and benchmarks that must never be committed: each must be ignored.
GENERATED = ["p.out", "profile.out", "core/cli/calls.prof", "bench/run.pstats",
             "profile.txt", "profile_cli.txt", "bench/results/table.csv"]


def _git(*args):
    return subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, timeout=60)


@pytest.fixture(scope="module")
def checkout():
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    top = _git("rev-parse", "--show-toplevel")
    if top.returncode != 0 or Path(top.stdout.decode().strip()).resolve() != ROOT:
        pytest.skip("not a git checkout of llrlab")
    return ROOT


def binary_files(eol_listing):
    """The paths that git's ``ls-files -z --eol`` output marks as binary in the index
    (``i/-text``: git found a NUL byte or other non-text content)."""
    out = []
    for entry in eol_listing.split(b"\0"):
        if not entry:
            continue
        info, _, path = entry.partition(b"\t")
        if info.split()[0] == b"i/-text":
            out.append(path.decode("utf-8", "surrogateescape"))
    return out


def misplaced(paths):
    """The binary ``paths`` that are not data files in a data folder."""
    def allowed(p):
        p = PurePosixPath(p)
        return (any(p.is_relative_to(folder) for folder in DATA_FOLDERS)
                and p.suffix.lower() in DATA_ENDINGS)
    return [p for p in paths if not allowed(p)]


def test_no_binary_file_outside_the_data_folders(checkout):
    listing = _git("ls-files", "-z", "--eol")
    assert listing.returncode == 0, listing.stderr
    binaries = binary_files(listing.stdout)
    assert binaries, "git marks no file as binary: the demo data in assets/ are"
    assert misplaced(binaries) == [], (
        "binary files committed outside the data folders (a profile dump, a generated "
        "output?); remove them with git rm --cached")


def test_the_checks_see_a_profile_dump():
    """The two helpers above flag what issue 18 found (``p.out`` at the top)."""
    listing = (b"i/lf    w/lf    attr/                 \tcore/cllr.py\0"
               b"i/-text w/-text attr/                 \tp.out\0"
               b"i/-text w/-text attr/                 \tassets/demo_eval_key.h5\0"
               b"i/-text w/-text attr/                 \tA_eval.h5\0"
               b"i/-text w/-text attr/                 \tassets/run.prof\0"
               b"i/none  w/none  attr/                 \tcore/__init__.py\0")
    binaries = binary_files(listing)
    assert binaries == ["p.out", "assets/demo_eval_key.h5", "A_eval.h5", "assets/run.prof"]
    assert misplaced(binaries) == ["p.out", "A_eval.h5", "assets/run.prof"]


def test_profile_and_benchmark_outputs_are_ignored(checkout):
    r = subprocess.run(["git", "-C", str(ROOT), "check-ignore", "--no-index", "-z",
                        "--non-matching", "--verbose", "--stdin"],
                       input=b"\0".join(p.encode() for p in [*GENERATED, "core/new_module.py"]),
                       capture_output=True, timeout=60)
    # --verbose -z: source, line, pattern, path, NUL-separated; an empty source: not ignored
    fields = r.stdout.split(b"\0")
    verdict = {fields[i + 3].decode(): bool(fields[i]) for i in range(0, len(fields) - 3, 4)}
    assert verdict["core/new_module.py"] is False  # the rules do not hide source files
    assert [p for p in GENERATED if not verdict[p]] == [], ".gitignore misses these outputs"
