"""The README's shell examples: parsed, run, and compared with the output the README shows.

A ```` ```console ```` block holds commands (``$ `` lines, continued with a trailing ``\\``)
each followed by its expected output (stdout and stderr as a terminal shows them).  In the
expected output, a line ``...`` stands for any number of lines and a line ending in ``...``
for any rest of that line.  The blocks run in order in one working directory that has the
repository's ``assets/`` (so later commands can read what earlier ones wrote), with the
installed ``llrlab`` first on PATH.  ``llrlab serve`` commands start the server, check that it
answers with the dashboard page, and stop it.

``python tests/readme_examples.py --update`` runs the examples and writes their actual
output into README.md (for commands whose expected output has no ``...``).
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

try:
    from ._time_scale import scaled
except ImportError:  # run as a script: python tests/readme_examples.py --update
    from _time_scale import scaled

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
BIN = Path(sys.executable).parent
BLOCK = re.compile(r"^```console\n(.*?)^```", re.S | re.M)


@dataclass
class Example:
    command: str  # as bash runs it (continuations joined)
    shown: str  # as the README shows it (for messages)
    expected: list
    start: int  # character offsets of the expected output in README.md
    end: int


def examples(text=None):
    """The README's console examples, in order."""
    text = README.read_text(encoding="utf-8") if text is None else text
    out = []
    for block in BLOCK.finditer(text):
        body, base = block.group(1), block.start(1)
        lines = body.splitlines(keepends=True)
        pos, i = base, 0
        while i < len(lines):
            if not lines[i].startswith("$ "):
                raise ValueError(f"README.md: console block text before a command: "
                                 f"{lines[i]!r}")
            cmd = [lines[i][2:].rstrip("\n")]
            pos += len(lines[i])
            i += 1
            while cmd[-1].endswith("\\") and i < len(lines):
                cmd[-1] = cmd[-1][:-1]
                cmd.append(lines[i].strip())
                pos += len(lines[i])
                i += 1
            start = pos
            expected = []
            while i < len(lines) and not lines[i].startswith("$ "):
                expected.append(lines[i].rstrip("\n"))
                pos += len(lines[i])
                i += 1
            out.append(Example(" ".join(c.strip() for c in cmd), "\n".join(cmd), expected,
                               start, pos))
    return out


#: A number with a fraction or an exponent (integers must match exactly).
_NUM = r"[-+]?(?:\d+\.\d*|\.\d+|\d+(?=[eE]))(?:[eE][-+]?\d+)?"
#: (Not parts of addresses or versions such as ``127.0.0.1``: those compare literally.)
NUMBER = re.compile(r"(?<![\w.])" + _NUM + r"(?![\w.])")
#: Relative tolerance for such numbers: full-precision outputs (``--json``, with 17 digits)
#: may differ in their last digit between CPUs and BLAS builds.  Text for people prints model
#: parameters with 10 significant digits and other numbers with 6, which are stable.
RTOL = 1e-9


def _numbers_agree(a, b):
    fa, fb = float(a), float(b)
    return fa == fb or abs(fa - fb) <= RTOL * max(abs(fa), abs(fb))


def _line_pattern(line):
    """A regex for one expected line; its numbers are captured to be compared with RTOL."""
    out, pos = [], 0
    for m in NUMBER.finditer(line):
        out.append(re.escape(line[pos:m.start()]))
        out.append(f"({_NUM})")
        pos = m.end()
    out.append(re.escape(line[pos:]))
    return "".join(out), NUMBER.findall(line)


def matches(expected, actual):
    """Whether ``actual`` lines fit ``expected`` (with its ``...`` wildcards); numbers with a
    fraction or an exponent agree to ``RTOL``."""
    parts, numbers = [], []
    for line in expected:
        if line.strip() == "...":
            parts.append(r"(?:[^\n]*\n)*?")
        elif line.rstrip().endswith("...") and line.strip() != "...":
            pattern, nums = _line_pattern(line.rstrip()[:-3])
            parts.append(pattern + r"[^\n]*\n")
            numbers += nums
        else:
            pattern, nums = _line_pattern(line.rstrip())
            parts.append(pattern + r"\n")
            numbers += nums
    text = "".join(a.rstrip() + "\n" for a in actual)
    m = re.fullmatch("".join(parts), text)
    return m is not None and all(_numbers_agree(e, a)
                                 for e, a in zip(numbers, m.groups(), strict=True))


def workspace(path):
    """A working directory with the repository's assets and lessons, as in a clone."""
    path = Path(path)
    path.mkdir(parents=True, exist_ok=True)
    for part in ("assets", "dashboard/lessons"):
        link = path / part
        if not link.exists():
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(ROOT / part)
    return path


def _env():
    return dict(os.environ, PATH=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
                PYTHONUNBUFFERED="1", COLUMNS="100")


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(example, cwd, timeout=600):
    """Run one example; return its output lines (for ``llrlab serve``: the server's first
    line, once the page was served, with the port written as 5006).  ``timeout``: seconds
    on an idle machine (scaled by ``LLRLAB_TEST_TIME_SCALE``, see tests/_time_scale.py)."""
    timeout = scaled(timeout)
    if example.command.startswith("llrlab serve"):
        return _run_serve(example.command, cwd, timeout)
    r = subprocess.run(["bash", "-c", example.command], cwd=cwd, env=_env(), text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout)
    return r.stdout.splitlines()


def _run_serve(command, cwd, timeout):
    port = _free_port()
    proc = subprocess.Popen(["bash", "-c", f"exec {command} --no-show --port {port}"],
                            cwd=cwd, env=_env(), text=True, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    try:
        first = proc.stdout.readline().rstrip("\n")
        deadline = time.monotonic() + timeout
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/",
                                            timeout=scaled(60)) as r:
                    page = r.read().decode("utf-8", "replace")
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    rest = proc.stdout.read()
                    return [first, *rest.splitlines(), "(the server did not answer)"]
                time.sleep(0.3)
        lines = [first.replace(f":{port}/", ":5006/")]
        if "Bokeh" not in page and "bokeh" not in page:
            lines.append("(the page is not the dashboard)")
        return lines
    finally:
        with contextlib.suppress(ProcessLookupError):  # (it may have exited already)
            os.killpg(proc.pid, signal.SIGINT)
        try:
            proc.wait(timeout=scaled(30))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        proc.stdout.close()


def update(cwd):
    """Run every example and write the actual outputs into README.md."""
    text = README.read_text(encoding="utf-8")
    exs = examples(text)
    for ex in reversed([(ex, run(ex, cwd)) for ex in exs]):
        example, actual = ex
        if any(line.strip().endswith("...") for line in example.expected):
            if not matches(example.expected, actual):
                print(f"kept (has ...), but does not match: {example.shown}")
            continue
        new = "".join(a.rstrip() + "\n" for a in actual)
        text = text[:example.start] + new + text[example.end:]
    README.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    import tempfile

    if sys.argv[1:] != ["--update"]:
        raise SystemExit("usage: python tests/readme_examples.py --update")
    with tempfile.TemporaryDirectory() as d:
        update(workspace(d))
