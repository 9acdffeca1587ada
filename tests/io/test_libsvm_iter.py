"""LibSVMIter (csr batches read from libsvm text), NDArrayIter over csr arrays and the C++
iterators' one-array getdata, against MXNet 1.9.1 (expectations made by
tests/fixtures/make_libsvm_iter.py from tests/fixtures/libsvm_cases.py)."""
import json
import os
import sys

import numpy as np
import pytest
import scipy.sparse as spsp

import gluonlite as mx
from gluonlite.base import MXNetError

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fixtures"))
from libsvm_cases import (CONFIGS, CSR, csr_ndarray_iter, libsvm_batches,  # noqa: E402
                          libsvm_parts, write_files)

with open(os.path.join(HERE, "..", "fixtures", "libsvm_iter_mxnet.json")) as f:
    EXPECTED = json.load(f)


def _close(got, want):
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w)
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=1e-6)
    else:
        assert got == want


@pytest.mark.parametrize("config", sorted(CONFIGS))
def test_libsvm_batches_match_mxnet(tmp_path, config):
    write_files(str(tmp_path))
    _close(libsvm_batches(mx, str(tmp_path), config), EXPECTED["batches"][config])


def test_libsvm_parts_match_mxnet(tmp_path):
    write_files(str(tmp_path))
    _close(libsvm_parts(mx, str(tmp_path)), EXPECTED["parts"])


def test_libsvm_getdata_is_one_csr_array(tmp_path):
    write_files(str(tmp_path))
    it = mx.io.LibSVMIter(data_libsvm=str(tmp_path / "data.t"), data_shape=(4,), batch_size=2)
    it.next()
    data = it.getdata()
    data.check_format(True)
    assert data.stype == "csr" and data.shape == (2, 4)
    assert it.getlabel().asnumpy().tolist() == [1.0, -2.0]


@pytest.mark.parametrize("line, match", [("-3.0 -1:0.6 1:2.4\n", "column index -1"),
                                         ("-3.0 4:0.6\n", "column index 4"),
                                         ("-3.0 x:0.6\n", "'x:0.6'")])
def test_libsvm_bad_lines_raise_mxneterror(tmp_path, line, match):
    path = tmp_path / "bad.t"
    path.write_text("1.0 0:0.5\n" + line)
    with pytest.raises(MXNetError, match=match):
        mx.io.LibSVMIter(data_libsvm=str(path), data_shape=(4,), batch_size=1)


@pytest.mark.parametrize("kwargs, match", [
    (dict(data_shape=(2, 2)), "data_shape must be 1-D"),
    (dict(data_shape=(4,), round_batch=False), "round_batch=False"),
    (dict(data_shape=(4,), label_shape=(3,)), "without label_libsvm"),
    (dict(data_shape=(4,), num_parts=2, part_index=2), "part_index"),
])
def test_libsvm_bad_arguments_raise(tmp_path, kwargs, match):
    write_files(str(tmp_path))
    with pytest.raises(ValueError, match=match):
        mx.io.LibSVMIter(data_libsvm=str(tmp_path / "data.t"), **kwargs)


def test_ndarray_iter_over_csr_matches_mxnet():
    _close(csr_ndarray_iter(mx), EXPECTED["ndarray_iter_csr"])


@pytest.mark.parametrize("data", [lambda: mx.nd.sparse.csr_matrix(CSR),
                                  lambda: spsp.csr_matrix(CSR)])
def test_ndarray_iter_csr_needs_discard(data):
    with pytest.raises(NotImplementedError, match="last_batch_handle='discard'"):
        mx.io.NDArrayIter({"data": data()}, CSR[:, 0], 2)


def test_ndarray_iter_shuffles_csr_rows_with_their_labels():
    np.random.seed(3)
    it = mx.io.NDArrayIter({"data": spsp.csr_matrix(CSR)}, np.arange(5, dtype=np.float32), 2,
                           shuffle=True, last_batch_handle="discard")
    rows = 0
    for batch in it:
        for row, lab in zip(batch.data[0].asnumpy(), batch.label[0].asnumpy()):
            np.testing.assert_array_equal(row, CSR[int(lab)])
            rows += 1
    assert rows == 4


def test_csv_iter_getdata_is_one_array(tmp_path):
    (tmp_path / "x.csv").write_text("1,2\n3,4\n5,6\n")
    it = mx.io.CSVIter(data_csv=str(tmp_path / "x.csv"), data_shape=(2,), batch_size=2)
    batch = it.next()
    assert it.getdata().asnumpy().tolist() == [[1, 2], [3, 4]]
    assert it.getlabel().asnumpy().tolist() == [0, 0]
    assert len(batch.data) == 1 and batch.data[0].asnumpy().tolist() == [[1, 2], [3, 4]]


def test_reset_before_the_first_batch_reads_each_row_once(tmp_path):
    # Module.score resets a fresh iterator first; MXNet 1.9.1's LibSVMIter then starts
    # inside the file and reads part of it twice (docs/guide/differences.md)
    path = tmp_path / "ten.t"
    path.write_text("".join(f"{i} {i % 4}:1\n" for i in range(10)))

    def labels(reset_first):
        it = mx.io.LibSVMIter(data_libsvm=str(path), data_shape=(4,), batch_size=4)
        if reset_first:
            it.reset()
        return [(b.label[0].asnumpy().tolist(), b.pad) for b in it]

    want = [([0, 1, 2, 3], 0), ([4, 5, 6, 7], 0), ([8, 9, 0, 1], 2)]
    assert labels(False) == want
    assert labels(True) == want
