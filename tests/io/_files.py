"""Helpers shared by the io tests."""

from __future__ import annotations


def write(path, content):
    """Write text (UTF-8) or bytes to ``path`` and return it."""
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


def huge_declared_matrix(path, n=40_000):
    """A BOSARIS HDF5 score file of a few hundred kB that declares an ``n`` x ``n`` score
    matrix and mask (gzip-compressed chunks of a constant): a loader that trusts the declared
    shape would allocate ``n * n * 9`` bytes.  Returns ``path``."""
    import h5py
    import numpy as np

    with h5py.File(path, "w") as f:
        f.create_dataset("scores", shape=(n, n), dtype="f8", chunks=(1000, 1000),
                         compression="gzip")
        f.create_dataset("score_mask", shape=(n, n), dtype="u1", chunks=(1000, 1000),
                         compression="gzip", fillvalue=1)
        f["ID/row_ids"] = np.array([f"m{i}".encode() for i in range(n)])
        f["ID/column_ids"] = np.array([f"s{i}".encode() for i in range(n)])
    return path
