"""A hostile listener on localhost at --scheduler: it greets as a Dask scheduler does, then
says nothing, or garbage. The check is bounded whatever answers, and ends in one line."""
import socket
import struct
import threading
import time

import msgpack
import pytest

from gluonlite.bench.executors import DaskExecutor, ExecutorError
from gluonlite.bench.handshake import CONNECT_TIMEOUT_S, identify, read_greeting
from probe_cli import run_cli

# processes, files and text only: .ci/run's numpy 1.23 suite leaves it to the numpy 2 one
pytestmark = pytest.mark.numpy_agnostic


def _greeting():
    """The first message a Dask server sends: a frame header (total length, frame count,
    frame length) then the msgpack of its handshake."""
    body = msgpack.packb({"compression": None, "python": [3, 11, 7], "pickle-protocol": 5})
    return struct.pack("<QQQ", 16 + len(body), 1, len(body)) + body


def _listener(after):
    """A localhost server that greets each connection, then calls after(conn)."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(16)
    conns, stop = [], threading.Event()

    def serve():
        srv.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = srv.accept()
            except OSError:
                continue
            conns.append(conn)
            try:
                conn.sendall(_greeting())
                after(conn)
            except OSError:
                pass
    thread = threading.Thread(target=serve, daemon=True)
    thread.start()

    def close():
        stop.set()
        thread.join(5)
        srv.close()
        for c in conns:
            c.close()
    return f"tcp://127.0.0.1:{srv.getsockname()[1]}", close


def _silent(conn):
    pass


def _garbage(conn):
    time.sleep(0.1)
    conn.sendall(b"\xff" * 64)


@pytest.fixture(params=[_silent, _garbage], ids=["greets-then-silent", "greets-then-garbage"])
def hostile(request):
    address, close = _listener(request.param)
    yield address, request.param
    close()


def test_a_fake_greeting_passes_the_socket_check_but_not_identify(hostile):
    address, kind = hostile
    read_greeting(address, time.monotonic() + 2)  # it looks like Dask, byte for byte
    tick = time.monotonic()
    with pytest.raises(ExecutorError) as info:
        identify(address, timeout=1.0)
    assert time.monotonic() - tick < 3.0
    why = ("it greets as Dask does, then does not answer)" if kind is _silent else
           "it greets as Dask does, then does not answer as Dask does: ")
    assert str(info.value).startswith(f"no Dask scheduler answers at {address} within "
                                      f"{CONNECT_TIMEOUT_S} s (")
    assert why in str(info.value)


def test_the_executor_gives_up_within_its_deadline(hostile):
    address, _ = hostile
    tick = time.monotonic()
    with pytest.raises(ExecutorError, match="it greets as Dask does, then does not answer"):
        DaskExecutor(address)
    # the greeting's and the identity's deadlines, and distributed's import
    assert time.monotonic() - tick < 2 * CONNECT_TIMEOUT_S + 10


def test_the_cli_names_the_address_in_one_line_and_exits_2(hostile, tmp_path, tiny_recipe):
    address, _ = hostile
    status, _, err = run_cli("--recipe", tiny_recipe, "--scheduler", address, cwd=tmp_path,
                             timeout=120)
    assert status == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"gluonlite.bench: error: no Dask scheduler answers at {address}")
