#!/usr/bin/env python3
"""Print one of the README's two set-up commands: ``main`` (install and run the dashboard)
or ``test`` (install and run the tests).

The README marks each with an HTML comment, ``<!-- setup:main -->`` or ``<!-- setup:test -->``,
on the line before its fenced block; ``.ci/run`` runs the ``test`` command verbatim, so CI and
the README cannot drift apart.
"""
import re
import sys
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"


def setup_commands(text):
    """``{name: command}`` of the README's marked set-up blocks (one command line each)."""
    found = {}
    for name, body in re.findall(r"<!-- setup:(\w+) -->\s*```(?:bash|console|sh)?\n(.*?)```",
                                 text, flags=re.S):
        lines = [ln for ln in body.strip().splitlines() if ln.strip()]
        if len(lines) != 1:
            raise SystemExit(f"README.md: the setup:{name} block must hold one command line")
        found[name] = lines[0].strip()
    return found


if __name__ == "__main__":
    which = sys.argv[1] if len(sys.argv) > 1 else "test"
    cmds = setup_commands(README.read_text(encoding="utf-8"))
    if which not in cmds:
        raise SystemExit(f"README.md has no <!-- setup:{which} --> block")
    print(cmds[which])
