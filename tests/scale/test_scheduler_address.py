"""``--dask ADDRESS`` to something that is not a Dask scheduler: one line naming the address,
within the connection timeout, whatever the peer answers (a fake TCP server on 127.0.0.1)."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from llrlab.core.errors import DataError
from llrlab.core.scale._dask import connect

LLRLAB = Path(sys.executable).parent / "llrlab"
HTTP = b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 2\r\n\r\nok"


@contextlib.contextmanager
def peer(answer, *, close=False, seconds=600.0):
    """A TCP server on 127.0.0.1 that sends ``answer`` to every connection (then keeps it
    open, or closes it at once with ``close``); stopped on exit and after ``seconds``."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.1)
    stop = threading.Event()
    conns = []

    def serve():
        end = time.monotonic() + seconds
        while not stop.is_set() and time.monotonic() < end:
            try:
                c, _ = srv.accept()
            except TimeoutError:
                continue
            with contextlib.suppress(OSError):
                c.sendall(answer)
            if close:
                c.close()
            else:
                conns.append(c)

    th = threading.Thread(target=serve, daemon=True)
    th.start()
    try:
        yield f"tcp://127.0.0.1:{srv.getsockname()[1]}"
    finally:
        stop.set()
        th.join()
        for c in conns:
            c.close()
        srv.close()


RANDOM = np.random.default_rng(7).bytes(64)
# a plausible frame length (16 bytes) followed by bytes that are no msgpack message
SMALL_FRAME = (16).to_bytes(8, "little") + b"\xc1" * 16


@pytest.mark.parametrize("answer", [HTTP, RANDOM, SMALL_FRAME],
                         ids=["http", "random-bytes", "small-frame"])
def test_a_peer_that_answers_bytes_is_not_a_scheduler(answer):
    with peer(answer) as address:
        t = time.monotonic()
        with pytest.raises(DataError) as exc:
            connect(address, timeout=5)
        assert time.monotonic() - t < 8
    msg = str(exc.value)
    assert address in msg and "not a Dask scheduler" in msg and "\n" not in msg


def test_a_peer_that_closes_the_connection():
    with peer(b"", close=True) as address, pytest.raises(DataError) as exc:
        connect(address, timeout=5)
    assert address in str(exc.value) and "not a Dask scheduler" in str(exc.value)


def test_a_silent_peer_is_given_up_after_the_timeout():
    with peer(b"") as address:
        t = time.monotonic()
        with pytest.raises(DataError, match="did not answer as a Dask scheduler within 1 s"):
            connect(address, timeout=1)
        assert time.monotonic() - t < 5


def test_a_malformed_address():
    with pytest.raises(DataError, match="'foo://x:1' is not the address of a Dask scheduler"):
        connect("foo://x:1", timeout=1)


def test_a_worker_is_not_the_scheduler(cluster_client):
    worker = next(iter(cluster_client.scheduler_info()["workers"]))
    with pytest.raises(DataError, match=rf"{worker} is a Dask Worker, not a scheduler"):
        connect(worker, timeout=5)
    with connect(cluster_client.scheduler.address, timeout=5) as c:
        assert c.scheduler_info()["type"] == "Scheduler"


@pytest.fixture(scope="module")
def parquet(tmp_path_factory):
    import pyarrow as pa
    import pyarrow.parquet as pq

    p = tmp_path_factory.mktemp("addr") / "s.parquet"
    pq.write_table(pa.table({"score": [1.0, 2.0, 0.0], "label": [True, False, False]}), p)
    return p


@pytest.mark.parametrize("command", ["eval", "serve"])
def test_the_commands_refuse_it_in_one_line(parquet, command):
    with peer(HTTP) as address:
        args = [str(parquet), "--dask", address]
        if command == "serve":
            args += ["--port", "0"]
        r = subprocess.run([str(LLRLAB), command, *args], capture_output=True, text=True,
                           timeout=120)
    assert r.returncode == 2
    assert r.stderr == (f"llrlab {command}: error: {address} is not a Dask scheduler: it "
                        f"does not answer in Dask's protocol; give the address of a "
                        f"dask.distributed scheduler (tcp://HOST:PORT, port 8786 by "
                        f"default)\n")
    assert r.stdout == ""
