"""Input files as the loaders see them: a path, ``-`` for standard input, gzip or not.

Private helpers of :mod:`llrlab.core.io`.  :func:`open_source` checks the name once and
tells what the content is (HDF5 by its signature, gzip by its magic bytes ``1f 8b``, text
otherwise); the readers then stream the content in blocks of whole lines
(:func:`iter_blocks`), so that the memory a text load takes is that of its result plus one
block, whatever the size of the file.  Standard input is read once into memory (it cannot be
read twice), within the byte limit of :class:`Limits`.

Every operating-system or decompression error becomes a
:class:`~llrlab.core.errors.FileFormatError` naming the file.
"""

from __future__ import annotations

import gzip
import io
import os
import sys
import zlib
from dataclasses import dataclass

from ..errors import DataError, FileFormatError

__all__ = [
    "HDF5_SIGNATURE",
    "STDIN",
    "Limits",
    "Source",
    "available_memory",
    "iter_blocks",
    "make_limits",
    "open_source",
    "path_name",
    "strip_gz",
]

#: The name that means standard input.
STDIN = "-"
#: How standard input is named in messages.
STDIN_NAME = "<stdin>"
HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
GZIP_MAGIC = b"\x1f\x8b"
#: Bytes read per block of a text file (whole lines are handed on).
BLOCK = 1 << 23


def path_name(path):
    """``os.fspath(path)``, or a DataError saying that a file name is needed."""
    try:
        name = os.fspath(path)
    except TypeError:
        raise DataError(f"a file name is needed, got {type(path).__name__}") from None
    if isinstance(name, bytes):
        name = os.fsdecode(name)
    return name


def strip_gz(name):
    """``name`` without a final ``.gz`` (any case): the name of the content."""
    return name[:-3] if name.lower().endswith(".gz") else name


def available_memory():
    """Bytes of memory available to this process now (``MemAvailable``, or the physical
    memory when that is unknown), capped by the address-space limit if one is set."""
    avail = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    avail = int(line.split()[1]) * 1024
                    break
    except (OSError, ValueError):
        pass
    if avail is None:
        try:
            avail = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (AttributeError, ValueError, OSError):  # pragma: no cover - not POSIX
            avail = 1 << 34
    try:
        import resource

        soft, _ = resource.getrlimit(resource.RLIMIT_AS)
        if soft != resource.RLIM_INFINITY:
            avail = min(avail, soft)
    except (ImportError, ValueError, OSError):  # pragma: no cover - not POSIX
        pass
    return int(avail)


def _size(n):
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{int(n)} bytes"


@dataclass(frozen=True)
class Limits:
    """How much a file may make a loader read and allocate (see :func:`make_limits`).

    Attributes
    ----------
    max_trials : int or None
        The most trials (data lines of a text file, trial cells of an HDF5 matrix) accepted;
        None: no fixed cap.
    max_bytes : int or None
        The most memory the loaded data may take, as the file declares it (HDF5 dataset
        shapes and types) or as it grows while a text file is read; None: no cap.
    memory : bool
        ``max_bytes`` is the memory available (not a cap set by the caller), for messages.

    Examples
    --------
    >>> try:
    ...     Limits(max_trials=10**6).check_trials("up.txt", 10**6 + 1)
    ... except FileFormatError as exc:
    ...     print(exc)
    up.txt: holds more than 1,000,000 trials, the limit set for this load
    """

    max_trials: int | None = None
    max_bytes: int | None = None
    memory: bool = False

    def check_trials(self, name, n):
        """Raise FileFormatError if ``n`` trials exceed ``max_trials``."""
        if self.max_trials is not None and n > self.max_trials:
            raise FileFormatError(name, f"holds more than {self.max_trials:,} trials, the "
                                        f"limit set for this load")

    def fits(self, n):
        """True if ``n`` bytes fit in ``max_bytes``."""
        return self.max_bytes is None or n <= self.max_bytes

    def budget(self):
        """``'the 18.3 GB of memory available'`` (or ``allowed for this load``)."""
        whose = "available" if self.memory else "allowed for this load"
        return f"the {_size(self.max_bytes)} of memory {whose}"

    def check_bytes(self, name, n, what):
        """Raise FileFormatError unless ``n`` bytes (needed for ``what``) fit in
        ``max_bytes``."""
        if not self.fits(n):
            raise FileFormatError(name, f"{what} would need {_size(n)}, more than "
                                        f"{self.budget()}; not enough memory to load it")


def make_limits(max_trials=None, max_bytes=None):
    """:class:`Limits` from the loaders' keyword arguments (checked).

    ``max_bytes=None`` means the memory available now (:func:`available_memory`).
    """
    if isinstance(max_trials, Limits):
        return max_trials
    for v, what in ((max_trials, "max_trials"), (max_bytes, "max_bytes")):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int | float)
                              or not v >= 0):
            raise DataError(f"{what} must be a non-negative number or None, got {v!r}")
    if max_bytes is None:
        return Limits(None if max_trials is None else int(max_trials), available_memory(),
                      memory=True)
    return Limits(None if max_trials is None else int(max_trials), int(max_bytes))


class Source:
    """One input: where its bytes come from and what they are.

    Attributes
    ----------
    name : str
        The file as named in messages (``<stdin>`` for standard input).
    path : str or None
        The file name (None for standard input).
    data : bytes or None
        The content of standard input (read once).
    kind : {"hdf5", "gzip", "text"}
    size : int or None
        Bytes on disk (compressed bytes for gzip), for progress.
    """

    def __init__(self, name, path, data, kind, size):
        self.name, self.path, self.data, self.kind, self.size = name, path, data, kind, size

    def __str__(self):
        return self.name

    def __repr__(self):
        return f"Source({self.name!r}, kind={self.kind!r})"

    @property
    def is_hdf5(self):
        return self.kind == "hdf5"

    def raw(self):
        """A binary file object of the bytes as stored (not decompressed)."""
        if self.data is not None:
            return io.BytesIO(self.data)
        try:
            return open(self.path, "rb")
        except OSError as exc:
            raise _os_error(self.name, exc) from None

    def open(self):
        """A binary file object of the content (decompressed for gzip)."""
        f = self.raw()
        if self.kind == "gzip":
            return _Checked(gzip.GzipFile(fileobj=f, mode="rb"), self.name, f)
        return _Checked(f, self.name)

    def head(self, n=65536):
        """The first ``n`` bytes of the content (or fewer)."""
        with self.open() as f:
            return f.read(n)


class ReadOnlyRaw(io.RawIOBase):
    """A readable binary file object built on its own ``read(n)`` (subclasses give it and
    ``close``)."""

    def readable(self):
        return True

    def readinto(self, b):  # pragma: no cover - io.RawIOBase protocol, unused
        data = self.read(len(b))
        b[:len(data)] = data
        return len(data)


class _Checked(ReadOnlyRaw):
    """A file object whose read errors become FileFormatError naming the file."""

    def __init__(self, f, name, inner=None):
        super().__init__()
        self._f, self._name, self._inner = f, name, inner

    def read(self, n=-1):
        try:
            return self._f.read(n)
        except (gzip.BadGzipFile, zlib.error, EOFError) as exc:
            why = str(exc) or "it is truncated"
            raise FileFormatError(self._name, f"is not a valid gzip file ({why})") from None
        except OSError as exc:
            raise _os_error(self._name, exc) from None

    def close(self):
        try:
            self._f.close()
            if self._inner is not None:
                self._inner.close()
        finally:
            super().close()


def _os_error(name, exc):
    if isinstance(exc, FileNotFoundError):
        return FileFormatError(name, "file not found")
    if isinstance(exc, IsADirectoryError):
        return FileFormatError(name, "is a directory, not a file")
    if isinstance(exc, PermissionError):
        return FileFormatError(name, "permission denied")
    return FileFormatError(name, f"cannot be read ({exc.strerror or exc})")


def _read_stdin(limits):
    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise FileFormatError(STDIN_NAME, "cannot be read: there is no standard input")
    cap = None if limits is None else limits.max_bytes
    parts, total = [], 0
    try:
        while True:
            chunk = stream.read(BLOCK)
            if not chunk:
                break
            if isinstance(chunk, str):
                chunk = chunk.encode("utf-8")
            total += len(chunk)
            if cap is not None and total > cap:
                limits.check_bytes(STDIN_NAME, total, "its content")
            parts.append(chunk)
    except OSError as exc:
        raise _os_error(STDIN_NAME, exc) from None
    return b"".join(parts)


def hdf5_at(f, size):
    """True if the HDF5 signature is at offset 0 or a user-block offset (512, 1024, ...)."""
    offset = 0
    while offset + 8 <= size:
        f.seek(offset)
        if f.read(8) == HDF5_SIGNATURE:
            return True
        offset = 512 if offset == 0 else 2 * offset
    return False


def open_source(path, *, limits=None):
    """Check an input name and tell what it holds (see :class:`Source`).

    ``-`` means standard input (read once, within ``limits.max_bytes``).  A missing file, a
    directory, an unreadable file or an invalid name raise FileFormatError.
    """
    name = path_name(path)
    if name == STDIN:
        data = _read_stdin(limits)
        f = io.BytesIO(data)
        kind = ("hdf5" if hdf5_at(f, len(data)) else
                "gzip" if data[:2] == GZIP_MAGIC else "text")
        src = Source(STDIN_NAME, None, data, kind, len(data))
        _refuse_gzipped_hdf5(src)
        return src
    try:
        with open(name, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            if hdf5_at(f, size):
                kind = "hdf5"
            else:
                f.seek(0)
                kind = "gzip" if f.read(2) == GZIP_MAGIC else "text"
    except OSError as exc:
        raise _os_error(name, exc) from None
    except (TypeError, ValueError) as exc:  # e.g. an embedded NUL in the name
        raise FileFormatError(name, f"is not a valid file name ({exc})") from None
    src = Source(name, name, None, kind, size)
    _refuse_gzipped_hdf5(src)
    return src


def _refuse_gzipped_hdf5(src):
    if src.kind == "gzip" and src.head(8) == HDF5_SIGNATURE:
        raise FileFormatError(src.name, "is a gzip-compressed HDF5 file, which cannot be read "
                                        "compressed: decompress it first (gunzip)")


def iter_blocks(stream, block=None, *, count_until=None):
    """``(bytes, first_line)`` of whole lines read from ``stream``, block by block.

    ``first_line`` is the 1-based number of the first line in the block.  With
    ``count_until``, lines are counted only until a block starts after that line, and
    ``first_line`` is None for the blocks after it (counting costs a pass over the bytes).
    The last block may end without a newline.  A line longer than a block is read until its
    end.
    """
    block = BLOCK if block is None else block
    carry = b""
    line = 1
    while True:
        chunk = stream.read(block)
        if not chunk:
            if carry:
                yield carry, line
            return
        buf = carry + chunk if carry else chunk
        cut = buf.rfind(b"\n") + 1
        if cut == 0:
            carry = buf
            continue
        yield (buf if cut == len(buf) else buf[:cut]), line
        if line is not None:
            if count_until is not None and line > count_until:
                line = None
            else:
                line += buf.count(b"\n", 0, cut)
        carry = buf[cut:]
