"""Checking that a Dask scheduler answers at an address, within one deadline whatever answers.

Dask's own `Client` waits much longer than its timeout on a listener that never answers,
reads an HTTP server's reply as a frame length (then tries to allocate exabytes), and on a
listener that greets as Dask does and then says nothing, or garbage, ends after 10 to 15 s
in an error (and a traceback from the half-made client's cleanup). So before a Client is
made, the address is checked in two steps, each within CONNECT_TIMEOUT_S:

1. `read_greeting`: a plain socket reads the greeting every Dask server sends first (a frame
   header of two little-endian uint64, the message length and the frame count, then msgpack),
   before `distributed` is even imported;
2. `identify`: Dask's own rpc asks the server who it is and expects a scheduler.

Example:
    >>> read_greeting("tcp://127.0.0.1:1", time.monotonic() + 1)     # doctest: +SKIP
    Traceback (most recent call last):
    ExecutorError: no Dask scheduler answers at tcp://127.0.0.1:1 within 5 s (connection refused)
"""
import asyncio
import socket
import struct
import threading
import time
from urllib.parse import urlsplit

__all__ = ["ExecutorError", "CONNECT_TIMEOUT_S", "read_greeting", "identify"]

CONNECT_TIMEOUT_S = 5
_HEADER = 16


class ExecutorError(RuntimeError):
    """The executor cannot start (missing extra, no scheduler, no suitable worker); the
    message is one line for the user.

    Example::

        from gluonlite.bench.handshake import ExecutorError
        print(issubclass(ExecutorError, RuntimeError))  # True
    """


def _fail(address, why):
    return ExecutorError(f"no Dask scheduler answers at {address} within {CONNECT_TIMEOUT_S} s "
                         f"({why})")


def _host_port(address):
    parts = urlsplit(address if "://" in address else f"tcp://{address}")
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        host, port = None, None
    if not host or not port:
        raise ExecutorError(f"expected a scheduler address tcp://HOST:PORT, got {address}")
    return host, port


def _recv_header(conn, deadline):
    """(the first bytes a server sends, up to the 16 of a frame header; whether it closed)."""
    data = b""
    while len(data) < _HEADER:
        left = deadline - time.monotonic()
        if left <= 0:
            return data, False
        conn.settimeout(left)
        try:
            chunk = conn.recv(_HEADER - len(data))
        except socket.timeout:
            return data, False
        if not chunk:
            return data, True
        data += chunk
    return data, False


def read_greeting(address, deadline):
    """Check with a plain socket that the server at a tcp `address` greets as Dask does.

    Args:
        address: tcp://HOST:PORT (or HOST:PORT).
        deadline: a `time.monotonic()` value to be done by.

    Raises:
        ExecutorError: one line saying what answered (nothing, or something else).

    Example::

        import socket, time
        from gluonlite.bench.handshake import ExecutorError, read_greeting
        s = socket.socket(); s.bind(('127.0.0.1', 0)); port = s.getsockname()[1]; s.close()
        try:
            read_greeting(f'tcp://127.0.0.1:{port}', time.monotonic() + 1)
        except ExecutorError as err:
            print(str(err).split(' within')[0])  # no Dask scheduler answers at tcp://127.0.0.1:PORT
    """
    host, port = _host_port(address)
    try:
        conn = socket.create_connection((host, port), timeout=max(0.05, deadline -
                                                                  time.monotonic()))
    except socket.timeout:
        raise _fail(address, "connecting timed out") from None
    except OSError as e:
        raise _fail(address, (e.strerror or type(e).__name__).lower()) from None
    try:
        data, closed = _recv_header(conn, deadline)
    except OSError as e:
        raise _fail(address, f"the connection failed: {e.strerror or type(e).__name__}") from None
    finally:
        conn.close()
    if len(data) < _HEADER:
        heard = f"it sent {data!r} and " if data else ""
        raise _fail(address, f"something listens there, but {heard}"
                    + ("closed the connection" if closed else "sent no Dask greeting"))
    length, frames = struct.unpack("<QQ", data)
    if not (0 < frames < 1 << 16 and 0 < length < 1 << 26):
        raise _fail(address, f"something answers there, but not as a Dask scheduler: it sent "
                             f"{data!r}")


def _identity(address, seconds):
    """The server's answer to Dask's `identity` request, within `seconds`."""
    from distributed.core import rpc  # the dask extra: checked by the caller first

    async def ask():
        async with rpc(address, timeout=seconds) as remote:
            return await remote.identity()
    return asyncio.run(asyncio.wait_for(ask(), seconds))


def _ask_identity(address, deadline):
    """Run `_identity` on a thread of its own (an event loop of its own, whatever the caller
    runs) and wait for it until `deadline` at most; a thread still waiting is left behind
    (a daemon: it cannot keep the process alive)."""
    box = {}

    def run():
        try:
            box["info"] = _identity(address, max(0.05, deadline - time.monotonic()))
        except BaseException as e:  # reported by the caller
            box["error"] = e
    thread = threading.Thread(target=run, name="gluonlite-dask-identity", daemon=True)
    thread.start()
    thread.join(max(0.05, deadline - time.monotonic()) + 0.5)
    if thread.is_alive() or isinstance(box.get("error"), (TimeoutError, asyncio.TimeoutError)):
        raise _fail(address, "it greets as Dask does, then does not answer")
    if "error" in box:
        e = box["error"]
        text = str(e).splitlines()[0] if str(e) else ""
        raise _fail(address, "it greets as Dask does, then does not answer as Dask does: "
                             + type(e).__name__ + (f": {text}" if text else ""))
    return box["info"]


def identify(address, timeout=CONNECT_TIMEOUT_S):
    """Ask the server at a tcp `address` who it is (Dask's `identity`), within `timeout`
    seconds whatever it answers; other schemes (tls, inproc, ucx) are left to Dask.

    Needs `distributed`.

    Raises:
        ExecutorError: it does not answer, answers garbage, or is not a scheduler (a worker).

    Example::

        from gluonlite.bench.handshake import identify
        print(identify('tls://scheduler:8786'))  # None: schemes other than tcp are left to Dask
    """
    if "://" in address and not address.startswith("tcp://"):
        return
    full = address if "://" in address else f"tcp://{address}"
    info = _ask_identity(full, time.monotonic() + timeout)
    kind = info.get("type") if isinstance(info, dict) else None
    if kind != "Scheduler":
        what = f"a Dask {kind}" if isinstance(kind, str) else f"{type(info).__name__} {info!r:.60}"
        raise _fail(address, f"it answers as {what}, not as a scheduler")
