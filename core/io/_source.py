"""Input files as the loaders see them: a path, ``-`` for standard input, gzip or not.

Private helpers of :mod:`llrlab.core.io`.  :func:`open_source` checks the name once and
tells what the content is (HDF5 by its signature, gzip by its magic bytes ``1f 8b``, text
otherwise); the readers then stream the content in blocks of whole lines
(:func:`iter_blocks`), so that the memory a text load takes is that of its result plus one
block, whatever the size of the file.

Hostile input is bounded by the :class:`Limits` of the load:

* standard input is read once into memory (it cannot be read twice), at most
  ``max_stdin_bytes`` of it (default 1 GB): ``yes 1.5 target | llrlab eval -`` stops there
  with one line, instead of filling the machine's memory;
* a gzip file may inflate to at most ``max_gunzip_bytes`` (default 4 GB) each time it is
  read: a 25 MB file that inflates to 10 GB is refused once it passes the budget, with a
  line naming the file, the budget and how to raise it;
* ``max_seconds`` (default: none; the dashboard sets it for uploads) bounds the wall time of
  a text load, checked at each block read.

Every operating-system or decompression error becomes a
:class:`~llrlab.core.errors.FileFormatError` naming the file.
"""

from __future__ import annotations

import contextlib
import contextvars
import gzip
import io
import os
import sys
import time
import zlib
from dataclasses import dataclass, field, replace

from ..errors import DataError, FileFormatError

__all__ = [
    "DEFAULT_GUNZIP_BYTES",
    "DEFAULT_STDIN_BYTES",
    "HDF5_SIGNATURE",
    "STDIN",
    "Limits",
    "Source",
    "available_memory",
    "default_limits",
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
#: The most bytes of standard input a load reads by default (they are held in memory).
DEFAULT_STDIN_BYTES = 1_000_000_000
#: The most bytes a gzip-compressed input may inflate to by default (each time it is read).
DEFAULT_GUNZIP_BYTES = 4_000_000_000
#: Inflated bytes after which a gzip file's total is projected from its compression ratio.
GUNZIP_PROJECT_AFTER = 16_000_000


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


#: How a limit is raised, named in the message of an input that passes it: the keyword of
#: :class:`Limits` (the command line and the server replace these with their options).
_RAISE_WITH = {"max_stdin_bytes": "raise the limit with Limits(max_stdin_bytes=...)",
               "max_gunzip_bytes": "raise it with Limits(max_gunzip_bytes=...)",
               "max_seconds": "raise the limit with Limits(max_seconds=...)"}


@dataclass(frozen=True)
class Limits:
    """How much a file may make a loader read, allocate and spend (see :func:`make_limits`).

    Attributes
    ----------
    max_trials : int or None
        The most trials (data lines of a text file, trial cells of an HDF5 matrix) accepted;
        None: no fixed cap.
    max_bytes : int or None
        The most memory the loaded data may take, as the file declares it (HDF5 dataset
        shapes and types) or as it grows while a text file is read; None: the memory
        available when the load starts.
    memory : bool
        ``max_bytes`` is the memory available (not a cap set by the caller), for messages.
    max_stdin_bytes : int or None
        The most bytes read from standard input (``-``), which is held in memory; default
        :data:`DEFAULT_STDIN_BYTES` (1 GB); None: no cap.
    max_gunzip_bytes : int or None
        The most bytes a gzip-compressed input may inflate to, each time it is read; default
        :data:`DEFAULT_GUNZIP_BYTES` (4 GB); None: no cap.
    max_seconds : float or None
        The most wall time a text load may take (checked at each block read); None: no cap.
    raise_with : tuple of (str, str)
        ``(limit, what to do)`` pairs that end the messages (e.g. ``("max_stdin_bytes",
        "raise the limit with --max-stdin-mb")`` on the command line); a limit not listed
        is named by its keyword.

    Examples
    --------
    >>> try:
    ...     Limits(max_trials=10**6).check_trials("up.txt", 10**6 + 1)
    ... except FileFormatError as exc:
    ...     print(exc)
    up.txt: holds more than 1,000,000 trials, the limit set for this load
    >>> try:
    ...     Limits(max_gunzip_bytes=10**6).check_gunzip("bomb.txt.gz", 10**6 + 1)
    ... except FileFormatError as exc:
    ...     print(exc)
    bomb.txt.gz: inflates to more than 1.0 MB, the budget for decompressed gzip input; if the
    file is genuine, raise it with Limits(max_gunzip_bytes=...)
    """

    max_trials: int | None = None
    max_bytes: int | None = None
    memory: bool = False
    max_stdin_bytes: int | None = DEFAULT_STDIN_BYTES
    max_gunzip_bytes: int | None = DEFAULT_GUNZIP_BYTES
    max_seconds: float | None = None
    raise_with: tuple = ()
    started: float = field(default=0.0, compare=False, repr=False)

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

    def how(self, limit):
        """What to do about ``limit`` (a field name), for messages."""
        return dict(self.raise_with).get(limit, _RAISE_WITH[limit])

    def check_stdin(self, n):
        """Raise FileFormatError if ``n`` bytes of standard input pass ``max_stdin_bytes``."""
        cap = self.max_stdin_bytes
        if cap is not None and n > cap:
            raise FileFormatError(STDIN_NAME, f"more than {_size(cap)} arrived, the most read "
                                              f"from standard input; give the data as a file, "
                                              f"or {self.how('max_stdin_bytes')}")

    def check_gunzip(self, name, n, consumed=None, size=None):
        """Raise FileFormatError if ``n`` inflated bytes pass ``max_gunzip_bytes``, or if
        the ``consumed`` compressed bytes (of ``size``) that gave them announce a total of
        more than twice the budget (a gzip bomb is then refused at once, not after minutes
        of parsing; the factor 2 leaves room for a file more compressible at its start)."""
        cap = self.max_gunzip_bytes
        if cap is None:
            return
        about = ""
        if n <= cap:
            if not (consumed and size and n >= GUNZIP_PROJECT_AFTER):
                return
            total = n / consumed * size
            if total <= 2 * cap:
                return
            about = (f" (its first {_size(n)} came from {_size(consumed)}: about "
                     f"{_size(total)} in all)")
        raise FileFormatError(name, f"inflates to more than {_size(cap)}, the budget for "
                                    f"decompressed gzip input{about}; if the file is genuine, "
                                    f"{self.how('max_gunzip_bytes')}")

    def check_time(self, name):
        """Raise FileFormatError when the load has taken longer than ``max_seconds``."""
        if self.max_seconds is not None and self.started and \
                time.monotonic() - self.started > self.max_seconds:
            raise FileFormatError(name, f"took longer than the {self.max_seconds:g} s allowed "
                                        f"for one load; {self.how('max_seconds')}")


_DEFAULT_LIMITS = contextvars.ContextVar("llrlab_io_limits", default=None)


@contextlib.contextmanager
def default_limits(limits):
    """Within the ``with`` block, loads given no ``limits`` use ``limits`` (the command line
    sets its ``--max-stdin-mb`` and ``--max-gunzip-mb`` this way, for every file it reads).

    Examples
    --------
    >>> with default_limits(Limits(max_stdin_bytes=10)):
    ...     make_limits().max_stdin_bytes
    10
    """
    token = _DEFAULT_LIMITS.set(limits)
    try:
        yield limits
    finally:
        _DEFAULT_LIMITS.reset(token)


def make_limits(max_trials=None, max_bytes=None, limits=None):
    """:class:`Limits` of one load, from the loaders' keyword arguments (checked).

    ``limits`` (or, without it, the :func:`default_limits` in force, or ``Limits()``) gives
    every limit; ``max_trials`` and ``max_bytes``, when given, replace its own.  A
    ``max_bytes`` of None means the memory available now (:func:`available_memory`).  The
    load's clock (``max_seconds``) starts here.
    """
    if isinstance(max_trials, Limits):
        return max_trials
    if limits is not None and not isinstance(limits, Limits):
        raise DataError(f"limits must be a Limits object, got {type(limits).__name__}")
    for v, what in ((max_trials, "max_trials"), (max_bytes, "max_bytes")):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int | float)
                              or not v >= 0):
            raise DataError(f"{what} must be a non-negative number or None, got {v!r}")
    base = limits if limits is not None else (_DEFAULT_LIMITS.get() or Limits())
    if max_trials is not None:
        base = replace(base, max_trials=int(max_trials))
    if max_bytes is not None:
        base = replace(base, max_bytes=int(max_bytes), memory=False)
    elif base.max_bytes is None:
        base = replace(base, max_bytes=available_memory(), memory=True)
    return replace(base, started=time.monotonic())


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
    limits : Limits or None
        The limits of the load: :meth:`open` counts what a gzip file inflates to against
        ``max_gunzip_bytes`` and checks ``max_seconds`` at each read.
    """

    def __init__(self, name, path, data, kind, size, limits=None):
        self.name, self.path, self.data, self.kind, self.size = name, path, data, kind, size
        self.limits = limits
        self.sniffed = None  # its Head (llrlab.core.io._formats), made on first use

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
            return _Checked(gzip.GzipFile(fileobj=f, mode="rb"), self.name, f, self.limits,
                            inflated=True, size=self.size)
        return _Checked(f, self.name, limits=self.limits)

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

    def __init__(self, f, name, inner=None, limits=None, *, inflated=False, size=None):
        super().__init__()
        self._f, self._name, self._inner = f, name, inner
        self._limits, self._inflated, self._total, self._size = limits, inflated, 0, size

    def read(self, n=-1):
        limits = self._limits
        if limits is not None:
            limits.check_time(self._name)
            if self._inflated and limits.max_gunzip_bytes is not None:
                # never inflate more than one byte past the budget
                room = limits.max_gunzip_bytes + 1 - self._total
                n = room if n is None or n < 0 else min(n, room)
        try:
            data = self._f.read(n)
        except (gzip.BadGzipFile, zlib.error, EOFError) as exc:
            why = str(exc) or "it is truncated"
            raise FileFormatError(self._name, f"is not a valid gzip file ({why})") from None
        except OSError as exc:
            raise _os_error(self._name, exc) from None
        if self._inflated and limits is not None:
            self._total += len(data)
            try:
                consumed = self._inner.tell()
            except (OSError, ValueError):  # pragma: no cover - a file object without tell
                consumed = None
            limits.check_gunzip(self._name, self._total, consumed, self._size)
        return data

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
            if limits is not None:
                limits.check_stdin(total)
                limits.check_time(STDIN_NAME)
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
        src = Source(STDIN_NAME, None, data, kind, len(data), limits)
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
    src = Source(name, name, None, kind, size, limits)
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
