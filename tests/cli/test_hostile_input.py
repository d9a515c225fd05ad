"""Hostile input through the installed console script: endless standard input and gzip bombs
stop with one line (which input, the budget, the option that raises it) and exit code 2,
within a bounded time and memory (issue 18)."""

from __future__ import annotations

import gzip
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

LLRLAB = Path(sys.executable).parent / "llrlab"


def _one_error_line(stderr):
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("llrlab eval: error: "), stderr
    return lines[0]


def _yes_into_llrlab(*options, timeout):
    """``yes "1.5 target" | llrlab eval - OPTIONS``: (returncode, stderr, seconds, the peak
    resident memory in bytes of the largest child so far)."""
    t = time.monotonic()
    yes = subprocess.Popen(["yes", "1.5 target"], stdout=subprocess.PIPE)
    try:
        run = subprocess.run([str(LLRLAB), "eval", "-", *options], stdin=yes.stdout,
                             capture_output=True, text=True, timeout=timeout)
    finally:
        yes.stdout.close()
        yes.kill()
        yes.wait()
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    return run.returncode, run.stderr, time.monotonic() - t, peak


def test_endless_standard_input_stops_at_the_default_cap():
    code, err, seconds, peak = _yes_into_llrlab(timeout=300)
    line = _one_error_line(err)
    assert code == 2
    assert "<stdin>: more than 1.0 GB arrived, the most read from standard input" in line
    assert "--max-stdin-mb (now 1000)" in line
    assert seconds < 300
    assert peak < 1.6e9  # the 1 GB read, the interpreter and pandas; not the machine's memory


def test_the_stdin_cap_is_an_option():
    code, err, _, _ = _yes_into_llrlab("--max-stdin-mb", "20", timeout=120)
    line = _one_error_line(err)
    assert code == 2
    assert "more than 20.0 MB arrived" in line and "--max-stdin-mb (now 20)" in line
    r = subprocess.run([str(LLRLAB), "eval", "-", "--max-stdin-mb", "0"],
                       capture_output=True, text=True, input="", timeout=60)
    assert r.returncode == 2 and "expected a positive number of MB" in r.stderr


def test_standard_input_under_the_cap_is_read():
    text = "".join(f"{i * 0.01} {'target' if i % 3 == 0 else 'nontarget'}\n"
                   for i in range(300))
    r = subprocess.run([str(LLRLAB), "eval", "-", "--max-stdin-mb", "1", "--json"],
                       capture_output=True, text=True, input=text, timeout=120)
    assert r.returncode == 0, r.stderr
    assert '"n_tar": 100' in r.stdout


def _bomb(path, inflated_mb):
    """A gzip file of many identical members, each 1 MB of 'score label' lines: a few kB per
    MB that it inflates to (what a gzip bomb does, built in a moment)."""
    member = gzip.compress(b"1.5 target\n0.25 nontarget\n" * 40_000, compresslevel=9)
    with open(path, "wb") as f:
        for _ in range(inflated_mb):
            f.write(member)
    return path


def test_a_gzip_bomb_is_refused_at_once_within_the_default_budget(tmp_path):
    bomb = _bomb(tmp_path / "scores.txt.gz", 10_000)  # ~12 MB inflating to 10 GB
    assert bomb.stat().st_size < 40e6
    t = time.monotonic()
    r = subprocess.run([str(LLRLAB), "eval", str(bomb)], capture_output=True, text=True,
                       timeout=300)
    seconds = time.monotonic() - t
    line = _one_error_line(r.stderr)
    assert r.returncode == 2
    assert line.startswith(f"llrlab eval: error: {bomb}: inflates to more than 4.0 GB, the "
                           f"budget for decompressed gzip input")
    assert "--max-gunzip-mb (now 4000)" in line and "decompress the file first" in line
    assert seconds < 120  # refused from its compression ratio, not after parsing 4 GB


def test_the_gzip_budget_is_an_option(tmp_path):
    bomb = _bomb(tmp_path / "k.gz", 12)
    r = subprocess.run([str(LLRLAB), "eval", str(bomb), "--max-gunzip-mb", "5"],
                       capture_output=True, text=True, timeout=300)
    line = _one_error_line(r.stderr)
    assert r.returncode == 2
    assert f"{bomb}: inflates to more than 5.0 MB" in line
    assert "--max-gunzip-mb (now 5)" in line
    r = subprocess.run([str(LLRLAB), "eval", str(bomb), "--max-gunzip-mb", "13", "--json"],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("command", ["eval", "calibrate", "fuse", "apply", "compare", "curves"])
def test_every_subcommand_has_the_options(command):
    r = subprocess.run([str(LLRLAB), command, "-h"], capture_output=True, text=True,
                       timeout=60)
    assert "--max-stdin-mb" in r.stdout and "--max-gunzip-mb" in r.stdout
