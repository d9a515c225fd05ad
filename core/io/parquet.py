"""A labelled Parquet table read in memory (without ``--dask``).

The columns are those of a labelled text file with a header (see
:mod:`llrlab.core.io.labelled`): ``score`` (float or integer) and ``label`` (boolean, 0/1
or label words such as ``target``/``nontarget``), optionally ``model`` and ``segment``
(together), ``condition`` and ``weight``; other columns are ignored.  The file is told by
Parquet's magic bytes ``PAR1`` (not its name).  Reading needs pyarrow (the ``scale``
extra: ``pip install 'llrlab[scale]'``), imported only when such a file is read.  A table
larger than memory is read out of core with ``llrlab eval --dask`` (see
:mod:`llrlab.core.scale.readers`).
"""

from __future__ import annotations

import numpy as np

from ..errors import FileFormatError
from ..trials import IdCodes
from ._text import LABEL_HELP, label_value, show

__all__ = ["read_parquet_trials"]

_ROLES = ("score", "label", "model", "segment", "condition", "weight")


def _pyarrow(name):
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise FileFormatError(name, "is a Parquet file; reading it needs pyarrow: pip "
                                    "install 'llrlab[scale]'") from None
    return pa, pq


def _labels(name, column):
    """A label column as booleans: booleans, 0/1 numbers or label words."""
    import pyarrow as pa

    typ = column.type
    if pa.types.is_boolean(typ):
        return column.to_numpy(zero_copy_only=False).astype(bool)
    if pa.types.is_integer(typ) or pa.types.is_floating(typ):
        x = column.to_numpy(zero_copy_only=False).astype(np.float64)
        bad = ~np.isin(x, (0.0, 1.0, -1.0))
        if bad.any():
            i = int(np.argmax(bad))
            raise FileFormatError(name, f"row {i + 1}: the label {x[i]!r} is not 1, 0 or -1")
        return x == 1.0
    words, codes = np.unique(np.asarray(column.to_pylist(), dtype=object).astype(str),
                             return_inverse=True)
    lut = [label_value(w) for w in words]
    if any(v is None for v in lut):
        w = next(w for w, v in zip(words, lut, strict=True) if v is None)
        raise FileFormatError(name, f"unknown label {show(w)}; expected {LABEL_HELP}")
    return np.array(lut, dtype=bool)[codes]


def _numbers(name, column, what):
    import pyarrow as pa

    if not (pa.types.is_integer(column.type) or pa.types.is_floating(column.type)):
        raise FileFormatError(name, f"the {what} column holds {column.type} values; write "
                                    f"the {what}s as numbers (float or integer columns)")
    if column.null_count:
        raise FileFormatError(name, f"the {what} column has {column.null_count} missing "
                                    f"values")
    x = column.to_numpy(zero_copy_only=False).astype(np.float64)
    bad = ~np.isfinite(x)
    if bad.any():
        i = int(np.argmax(bad))
        raise FileFormatError(name, f"row {i + 1}: the {what} {x[i]!r} is not finite; "
                                    f"{what}s must be finite numbers")
    return x


def read_parquet_trials(src, *, progress=None, require_both=True, limits=None):
    """``(trials, n_duplicates)`` from a labelled Parquet file (see the module docstring)."""
    from .labelled import COLUMN_NAMES, mapped_columns, trials_from_columns

    pa, pq = _pyarrow(src.name)
    if progress:
        progress(0.0, f"reading {src.name}")
    try:
        with src.raw() as f:
            pf = pq.ParquetFile(f)
            names = pf.schema_arrow.names
            if limits is not None:
                limits.check_trials(src.name, pf.metadata.num_rows)
            roles = {}
            mapped = mapped_columns() or {}
            known = {**{k: v for k, v in COLUMN_NAMES.items()
                        if v not in mapped.values()}, **mapped}
            for nm in names:
                role = known.get(nm.lower())
                if role is not None and role not in roles:
                    roles[role] = nm
            missing = [r for r in ("score", "label") if r not in roles]
            if missing:
                raise FileFormatError(src.name, f"has no {' and no '.join(missing)} column; "
                                                f"its columns are {', '.join(names[:20])}")
            if ("model" in roles) != ("segment" in roles):
                raise FileFormatError(src.name, "has a model or a segment column but not "
                                                "both")
            table = pf.read(columns=list(roles.values()))
    except FileFormatError:
        raise
    except (OSError, ValueError, pa.ArrowException) as exc:
        raise FileFormatError(src.name, f"cannot be read as Parquet ({type(exc).__name__}: "
                                        f"{str(exc)[:200]})") from None
    if table.num_rows == 0:
        raise FileFormatError(src.name, "is empty: it contains no trials")
    col = {}
    for role, nm in roles.items():
        c = table.column(nm).combine_chunks()
        if role == "label":
            col[role] = _labels(src.name, c)
        elif role in ("score", "weight"):
            col[role] = _numbers(src.name, c, role)
        else:
            if c.null_count:
                raise FileFormatError(src.name, f"the {role} column has {c.null_count} "
                                                f"missing values")
            col[role] = IdCodes.encode(np.asarray(c.to_pylist(), dtype=object).astype(str)
                                       .astype(object))
    return trials_from_columns(src.name, col, None, progress=progress,
                               require_both=require_both)
