"""Dask, imported only when the out-of-core path is used (``import llrlab.core`` never loads
it), the connection to a ``dask.distributed`` scheduler, and the choices that depend on the
scheduler."""

from __future__ import annotations

import asyncio
import threading

from ..errors import DataError, LlrlabError

__all__ = ["compute", "connect", "dask_modules", "scheduler_of", "shuffle_method"]

_INSTALL = "pip install 'llrlab[scale]'"


def dask_modules():
    """``(dask, dask.dataframe)``, or a clear error when the ``scale`` extra is missing."""
    try:
        import dask
        import dask.dataframe as dd
    except ImportError as exc:
        raise LlrlabError(f"the out-of-core path needs Dask ({exc.name} is missing): "
                          f"{_INSTALL}") from None
    return dask, dd


def compute(objs, scheduler):
    """``dask.compute(*objs)`` on ``scheduler`` ("threads" or a distributed Client), as a
    list."""
    dask, _ = dask_modules()
    if scheduler == "threads":
        return list(dask.compute(*objs, scheduler="threads"))
    return list(scheduler.compute(list(objs), sync=True))


def shuffle_method(scheduler):
    """Dask's disk-based shuffle on the local scheduler (out of core), its peer-to-peer
    shuffle on a distributed cluster (workers spill to disk)."""
    return "disk" if scheduler == "threads" else "p2p"


def scheduler_of(client):
    """``(scheduler, name)`` for ``dask.compute``: "threads" (the local scheduler, for
    ``None``, ``"local"`` or ``"threads"``) or a ``distributed.Client`` (given, or connected
    to the address ``client`` by :func:`connect`)."""
    if client is None or client in ("local", "threads"):
        return "threads", "local"
    if isinstance(client, str):
        client = connect(client)
    name = f"distributed ({getattr(client, 'scheduler', None) and client.scheduler.address})"
    return client, name


def connect(address, timeout=None):
    """A ``distributed.Client`` of the Dask scheduler at ``address``.

    The address is asked who it is first (Dask's handshake and its ``identity`` call, over a
    connection of its own, within ``timeout`` seconds), so that a peer that is not a Dask
    scheduler -- a web server, a worker, a silent port -- gets one line naming the address
    instead of whatever ``distributed`` makes of its bytes (it reads a length prefix, and
    an HTTP answer read as one asks for exbibytes).  ``timeout`` (seconds) defaults to
    Dask's ``distributed.comm.timeouts.connect`` (30 s unless configured, e.g. by the
    environment variable ``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT=10s``).

    Raises
    ------
    DataError
        The address is malformed, nothing answers there, or what answers is not a Dask
        scheduler.
    """
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - the scale extra installs it
        raise DataError(f"a scheduler address needs the 'distributed' package: "
                        f"{_INSTALL}") from None
    if timeout is None:
        import dask
        from dask.utils import parse_timedelta

        timeout = parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), "s")
    timeout = float(timeout)
    _identify(str(address), timeout)
    try:
        return Client(address, timeout=f"{timeout}s")
    except (OSError, ValueError) as exc:
        raise DataError(f"cannot connect to the Dask scheduler at {address}: {exc}") from None


def _identify(address, timeout):
    """Raise :class:`DataError` unless ``address`` answers as a Dask scheduler in time.

    Runs in a thread of its own with its own event loop (the caller may be inside one, as
    in Jupyter or the dashboard's server), and waits at most ``timeout`` seconds for it.
    """
    from distributed.comm import connect as open_comm
    from distributed.comm import parse_address
    from distributed.comm.core import CommClosedError
    from distributed.comm.registry import get_backend

    try:
        get_backend(parse_address(address)[0])
    except ValueError as exc:
        raise DataError(f"{address!r} is not the address of a Dask scheduler ({exc}); write "
                        f"it as tcp://HOST:PORT") from None

    async def ask():
        comm = await open_comm(address, timeout=timeout)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    done = {}

    def run():
        try:
            done["answer"] = asyncio.run(asyncio.wait_for(ask(), timeout + 1.0))
        except BaseException as exc:  # classified below
            done["error"] = exc

    th = threading.Thread(target=run, name="llrlab-dask-identify", daemon=True)
    th.start()
    th.join(timeout + 3.0)
    not_dask = (f"{address} is not a Dask scheduler: it does not answer in Dask's protocol; "
                f"give the address of a dask.distributed scheduler (tcp://HOST:PORT, "
                f"port 8786 by default)")
    err = done.get("error")
    if th.is_alive() or isinstance(err, (TimeoutError, asyncio.TimeoutError)):
        raise DataError(f"{address} did not answer as a Dask scheduler within {timeout:g} s; "
                        f"give the address of a running dask.distributed scheduler")
    if isinstance(err, CommClosedError):
        raise DataError(f"{address} closed the connection: it is not a Dask scheduler, or it "
                        f"refused this client ({err})")
    if isinstance(err, OSError):  # nothing listens there (distributed retried until timeout)
        cause = err.__cause__ or err.__context__
        raise DataError(f"cannot connect to the Dask scheduler at {address}: "
                        f"{cause or err}")
    if err is not None:  # bytes that are not Dask's frames: garbage lengths, bad msgpack
        raise DataError(not_dask)
    answer = done.get("answer")
    kind = answer.get("type") if isinstance(answer, dict) else None
    if not isinstance(kind, str):
        raise DataError(not_dask)
    if kind != "Scheduler":
        raise DataError(f"{address} is a Dask {kind[:40]}, not a scheduler; give the address "
                        f"of the dask.distributed scheduler (tcp://HOST:PORT, port 8786 by "
                        f"default)")
