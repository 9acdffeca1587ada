"""Shared helpers for the control-flow tests."""
import struct

import numpy as np
import pytest

import gluonlite.control_flow  # noqa: F401  (registers _foreach/_while_loop/_cond for sym.load)

_DTYPES = {0: np.float32, 1: np.float64, 2: np.float16, 3: np.uint8, 4: np.int32, 5: np.int8,
           6: np.int64}


def read_mxnet_params(fname):
    """A tiny reader of MXNet's binary NDArray-list file: {name: numpy array}.

    Layout (little-endian): uint64 magic 0x112, uint64 reserved, uint64 count; per array
    uint32 0xF993FAC9, int32 stype, uint32 ndim, int64 dims[ndim], int32 dev_type,
    int32 dev_id, int32 type_flag, raw data; then uint64 count of names, each uint64 length
    and the bytes.
    """
    raw = open(fname, "rb").read()
    pos = 0

    def take(fmt):
        nonlocal pos
        vals = struct.unpack_from("<" + fmt, raw, pos)
        pos += struct.calcsize("<" + fmt)
        return vals

    magic, _, count = take("QQQ")
    assert magic == 0x112, hex(magic)
    arrays = []
    for _ in range(count):
        amagic, stype, ndim = take("IiI")
        assert amagic == 0xF993FAC9 and stype == 0
        dims = take(f"{ndim}q")
        _, _, flag = take("iii")
        dt = np.dtype(_DTYPES[flag])
        n = int(np.prod(dims)) * dt.itemsize
        arrays.append(np.frombuffer(raw[pos:pos + n], dtype=dt).reshape(dims).copy())
        pos += n
    (n_names,) = take("Q")
    names = []
    for _ in range(n_names):
        (ln,) = take("Q")
        names.append(raw[pos:pos + ln].decode())
        pos += ln
    assert pos == len(raw) and len(names) == len(arrays)
    return dict(zip(names, arrays))


@pytest.fixture(autouse=True)
def _seed():
    np.random.seed(0)
