"""Checks shared by the command-line tests."""

from __future__ import annotations


def one_line_error(code, err, *needles):
    """A mistake's answer: exit code 2 and one line on stderr, no traceback, with each of
    ``needles`` in it; returns the line."""
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]
