"""The limits of a load (issue 18): standard input, gzip inflation and wall time are bounded,
each with one line naming the input, the budget and what to do."""

from __future__ import annotations

import gzip
import io
import sys

import pytest

from llrlab.core import FileFormatError
from llrlab.core.io import Limits, default_limits, load_trials

LINES = b"1.5 target\n0.25 nontarget\n"


class _Stdin:
    def __init__(self, data):
        self.buffer = io.BytesIO(data)


def test_standard_input_beyond_its_cap(monkeypatch):
    monkeypatch.setattr(sys, "stdin", _Stdin(LINES * 1000))
    with pytest.raises(FileFormatError) as exc:
        load_trials("-", limits=Limits(max_stdin_bytes=5000))
    assert str(exc.value) == ("<stdin>: more than 5.0 kB arrived, the most read from standard "
                              "input; give the data as a file, or raise the limit with "
                              "Limits(max_stdin_bytes=...)")
    monkeypatch.setattr(sys, "stdin", _Stdin(LINES * 1000))
    assert len(load_trials("-", limits=Limits(max_stdin_bytes=None))) == 2000


def test_a_gzip_file_beyond_its_budget(tmp_path):
    p = tmp_path / "t.txt.gz"
    p.write_bytes(gzip.compress(LINES * 1000))
    with pytest.raises(FileFormatError, match=r"t\.txt\.gz: inflates to more than 20\.0 kB, "
                                              r"the budget for decompressed gzip input; if "
                                              r"the file is genuine, raise it with"):
        load_trials(p, limits=Limits(max_gunzip_bytes=20_000))
    assert len(load_trials(p, limits=Limits(max_gunzip_bytes=26_000))) == 2000  # 26,000 bytes


def test_a_gzip_bomb_is_refused_from_its_ratio(tmp_path, monkeypatch):
    from llrlab.core.io import _source

    monkeypatch.setattr(_source, "GUNZIP_PROJECT_AFTER", 100_000)
    monkeypatch.setattr(_source, "BLOCK", 1 << 16)
    p = tmp_path / "bomb.gz"
    p.write_bytes(gzip.compress(LINES * 400_000))  # 10.4 MB from ~30 kB
    with pytest.raises(FileFormatError, match=r"inflates to more than 1\.0 MB, the budget "
                                              r"for decompressed gzip input \(its first "):
        load_trials(p, limits=Limits(max_gunzip_bytes=1_000_000))


def test_the_wall_time_of_a_load(tmp_path):
    p = tmp_path / "t.txt"
    p.write_bytes(LINES * 10)
    with pytest.raises(FileFormatError, match=r"t\.txt: took longer than the 0 s allowed for "
                                              r"one load"):
        load_trials(p, limits=Limits(max_seconds=0))
    assert len(load_trials(p, limits=Limits(max_seconds=60))) == 20


def test_default_limits_apply_to_loads_given_none(tmp_path):
    p = tmp_path / "t.gz"
    p.write_bytes(gzip.compress(LINES * 1000))
    with default_limits(Limits(max_gunzip_bytes=100, raise_with=(
            ("max_gunzip_bytes", "raise it with --max-gunzip-mb"),))):
        with pytest.raises(FileFormatError, match=r"raise it with --max-gunzip-mb$"):
            load_trials(p)
        assert len(load_trials(p, limits=Limits())) == 2000  # given limits win
    assert len(load_trials(p)) == 2000


def test_the_upload_limits_bound_memory_gzip_and_time(tmp_path):
    from llrlab.dashboard.state.data import load_with_notes
    from llrlab.dashboard.uploads import (
        UPLOAD_GUNZIP_FACTOR,
        UPLOAD_SECONDS,
        upload_limits,
        upload_memory_limit,
    )

    lim = upload_limits(10_000)
    assert lim.max_bytes == upload_memory_limit(10_000)
    assert lim.max_gunzip_bytes == UPLOAD_GUNZIP_FACTOR * 10_000
    assert lim.max_seconds == UPLOAD_SECONDS <= 600
    p = tmp_path / "scores.gz"
    p.write_bytes(gzip.compress(LINES * 2000))
    with pytest.raises(FileFormatError) as exc:
        load_with_notes(str(p), None, None, limits=lim)
    assert str(exc.value).startswith(f"{p}: inflates to more than 40.0 kB")
    assert str(exc.value).endswith("upload it decompressed (this server's budget is 4 times "
                                   "its upload limit of 0.01 MB)")
