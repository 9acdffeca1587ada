"""Bad values a user types or a small file holds: each named where it is given."""
import numpy as np
import pytest

import gluonlite as mx


@pytest.mark.parametrize("line, got", [
    ("1\t0.5", "'1\\t0.5'"),                      # no path
    ("one\t0.5\ta.jpg", "'one\\t0.5\\ta.jpg'"),    # index not an integer
    ("2\tcat\ta.jpg", "'2\\tcat\\ta.jpg'"),        # label not a number
])
def test_image_iter_names_the_list_file_and_line(tmp_path, line, got):
    lst = tmp_path / "train.lst"
    lst.write_text(f"0\t1.0\timg0.jpg\n\n{line}\n")
    with pytest.raises(ValueError) as e:
        mx.image.ImageIter(2, (3, 8, 8), path_imglist=str(lst), path_root=str(tmp_path))
    assert str(e.value).startswith(f"ImageIter: {lst}, line 3: expected 'INDEX<TAB>LABEL")
    assert got in str(e.value)


def test_image_iter_reads_a_good_list(tmp_path):
    lst = tmp_path / "train.lst"
    lst.write_text("0\t1.0\t2.0\ta.jpg\n5\t3\tb.jpg\n")
    it = mx.image.ImageIter(1, (3, 8, 8), path_imglist=str(lst), label_width=2,
                            path_root=str(tmp_path))
    assert it.seq == [0, 5]
    assert it.imglist[0][0].asnumpy().tolist() == [1.0, 2.0] and it.imglist[5][1] == "b.jpg"


def test_an_index_file_with_a_bad_offset_names_the_line(tmp_path):
    rec, idx = tmp_path / "x.rec", tmp_path / "x.idx"
    w = mx.recordio.MXIndexedRecordIO(str(idx), str(rec), "w")
    w.write_idx(0, b"hello")
    w.close()
    idx.write_text(idx.read_text() + "1\tnot-an-offset\n")
    with pytest.raises(ValueError, match=rf"{idx}, line 2: expected 'KEY<TAB>OFFSET'"):
        mx.recordio.MXIndexedRecordIO(str(idx), str(rec), "r")


@pytest.mark.parametrize("name, params, match", [
    ("sgd", {"learning_rate": "x"}, r"learning_rate must be a number or None, got 'x' \(str\)"),
    ("sgd", {"momentum": "0.9"}, r"momentum must be a number, got '0.9' \(str\)"),
    ("adam", {"beta1": [0.9]}, r"beta1 must be a number"),
    ("adam", {"wd": None}, r"wd must be a number, got None"),
])
def test_trainer_refuses_a_hyperparameter_that_is_not_a_number(name, params, match):
    net = mx.gluon.nn.Dense(2, in_units=3)
    net.initialize()
    with pytest.raises(TypeError, match=match):
        mx.gluon.Trainer(net.collect_params(), name, params)


def test_trainer_learning_rate_changes_are_checked_and_numbers_still_work():
    net = mx.gluon.nn.Dense(1, in_units=1, use_bias=False)
    net.initialize(mx.init.One())
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": np.float32(0.5)})
    with pytest.raises(TypeError, match="learning_rate must be a number, got 'fast'"):
        trainer.set_learning_rate("fast")
    with mx.autograd.record():
        y = net(mx.nd.ones((1, 1)))
    y.backward()
    trainer.step(1)
    assert net.weight.data().asscalar() == pytest.approx(0.5)


def test_image_iter_refuses_an_index_given_twice(tmp_path):
    # found by the fuzzer: the second line replaced the first one's label in silence
    lst = tmp_path / "train.lst"
    lst.write_text("0\t1.0\ta.jpg\n0\t2.0\tb.jpg\n")
    with pytest.raises(ValueError, match=rf"ImageIter: {lst}, line 2: index 0 again \(first "
                                         r"at line 1\)"):
        mx.image.ImageIter(1, (3, 8, 8), path_imglist=str(lst), path_root=str(tmp_path))


def test_a_params_file_claiming_a_shape_too_large_for_any_array_names_it(tmp_path):
    # found by the fuzzer: an empty array of shape (0, 2**62) passed the byte count and
    # failed in numpy's reshape without naming the file
    import struct
    path = tmp_path / "x.params"
    head = struct.pack("<QQQ", 0x112, 0, 1) + struct.pack("<Ii", 0xF993FAC9, 0)
    path.write_bytes(head + struct.pack("<i3q", 3, 0, 1 << 31, 1 << 31)
                     + struct.pack("<iii", 1, 0, 0) + struct.pack("<Q", 0))
    with pytest.raises(ValueError, match=rf"{path}: not a valid MXNet NDArray file: array 0 "
                                         r"shape \(0, 2147483648, 2147483648\) is larger than "
                                         r"any array"):
        mx.nd.load(str(path))


def test_an_onnx_node_missing_an_input_is_named_not_an_index_error(tmp_path):
    # found by the fuzzer: a MatMul with one input raised IndexError inside the importer
    import onnx
    from onnx import TensorProto, helper
    g = helper.make_graph([helper.make_node("MatMul", ["x"], ["y"], name="mm")], "g",
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    path = tmp_path / "m.onnx"
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    with pytest.raises(mx.onnx.ONNXImportError, match=r"'MatMul', node 'mm': malformed node "
                                                      r"\(1 input\(s\), attributes \[\]\): "
                                                      r"IndexError"):
        mx.onnx.import_model(str(path))
