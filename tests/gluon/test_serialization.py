"""MXNet's binary NDArray-list format: fixtures, round trips, malformed files."""
import os
import glob
import struct

import numpy as np
import pytest

from gluonlite import nd
from gluonlite.ndarray import serialization

save = getattr(nd, "save", serialization.save)
load = getattr(nd, "load", serialization.load)
FIXTURES = sorted(glob.glob(os.path.join(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "mxnet"),
    "*.params")))


@pytest.mark.parametrize("path", FIXTURES)
def test_fixture_loads_and_rewrites_identically(path, tmp_path):
    d = load(path)
    assert all(k.startswith(("arg:", "aux:")) for k in d)
    out = str(tmp_path / "copy.params")
    save(out, d)
    assert open(out, "rb").read() == open(path, "rb").read()


def test_roundtrip_dtypes_list_and_dict(tmp_path):
    f = str(tmp_path / "x.params")
    arrays = {"a": nd.array(np.arange(6).reshape(2, 3)), "b": nd.array([1, 2], dtype="int64"),
              "c": nd.array(np.ones((2, 1, 2)), dtype="float64")}
    save(f, arrays)
    back = load(f)
    for k, v in arrays.items():
        assert back[k].dtype == v.dtype
        np.testing.assert_array_equal(back[k].asnumpy(), v.asnumpy())
    save(f, [nd.ones((3,)), nd.zeros((1, 2))])
    lst = load(f)
    assert isinstance(lst, list) and [a.shape for a in lst] == [(3,), (1, 2)]


def _header(count):
    return struct.pack("<QQQ", 0x112, 0, count)


@pytest.mark.parametrize("cut", [4, 20, 30, 60, 100, -3])
def test_truncated_file_names_file(tmp_path, cut):
    src = open(FIXTURES[0], "rb").read()
    f = tmp_path / "trunc.params"
    f.write_bytes(src[:cut])
    with pytest.raises(ValueError, match="trunc.params"):
        load(str(f))


def test_malformed_headers_rejected_before_allocating(tmp_path):
    f = tmp_path / "bad.params"
    f.write_bytes(_header(10 ** 15))
    with pytest.raises(ValueError, match="claims"):
        load(str(f))
    huge = _header(1) + struct.pack("<IiI", 0xF993FAC9, 0, 2) + struct.pack("<2q", 10 ** 9,
                                                                           10 ** 9)
    f.write_bytes(huge + struct.pack("<iii", 1, 0, 0) + b"\0" * 16)
    with pytest.raises(ValueError, match="truncated"):
        load(str(f))
    f.write_bytes(struct.pack("<QQQ", 0x113, 0, 0))
    with pytest.raises(ValueError, match="magic"):
        load(str(f))
    f.write_bytes(_header(0) + struct.pack("<Q", 0) + b"junk")
    with pytest.raises(ValueError, match="trailing"):
        load(str(f))


def test_save_rejects_bad_input(tmp_path):
    with pytest.raises(TypeError):
        save(str(tmp_path / "x"), {"a": np.ones(2)})
