"""Helpers shared by the io tests."""

from __future__ import annotations


def write(path, content):
    """Write text (UTF-8) or bytes to ``path`` and return it."""
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path
