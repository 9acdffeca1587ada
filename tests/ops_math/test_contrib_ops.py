"""`nd.contrib` operators and the vision sampling operators against MXNet 1.9.1 (outputs and
gradients on fixed inputs, made by fixtures/make_contrib.py), plus what MXNet cannot run on
a CPU (fft/ifft, checked against numpy), the namespace and the errors."""

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym

from fixture_makers import maker, reference

make_contrib = maker("make_contrib")
_REF = reference("contrib_mxnet.npz")
_CASES = make_contrib.cases()


@pytest.mark.parametrize("k", range(len(_CASES)), ids=[f"{c[0]}-{k}" for k, c in
                                                         enumerate(_CASES)])
def test_outputs_and_gradients_match_mxnet(k):
    case = _CASES[k]
    outs, grads = make_contrib.run(mx, *case)
    tol = 1e-5 if len(case) > 4 else 1e-9
    for i, o in enumerate(outs):
        np.testing.assert_allclose(o, _REF[f"{k}_out{i}"], rtol=tol * 10, atol=tol,
                                   err_msg=f"{case[0]}{case[2]} output {i}")
    for i, g in enumerate(grads):
        np.testing.assert_allclose(g, _REF[f"{k}_grad{i}"], rtol=tol * 10, atol=tol,
                                   err_msg=f"{case[0]}{case[2]} gradient {i}")


def test_fft_and_ifft_follow_numpy_and_mxnets_unnormalized_inverse():
    x = np.random.RandomState(0).normal(size=(2, 3, 4))
    f = nd.contrib.fft(nd.array(x, dtype="float64")).asnumpy()
    c = np.fft.fft(x, axis=-1)
    np.testing.assert_allclose(f[..., 0::2], c.real, atol=1e-12)
    np.testing.assert_allclose(f[..., 1::2], c.imag, atol=1e-12)
    back = nd.contrib.ifft(nd.array(f, dtype="float64")).asnumpy()
    np.testing.assert_allclose(back, 4 * x, atol=1e-12)  # ifft(fft(x)) = d * x


def test_isinf_isfinite_isnan_and_allclose():
    x = nd.array([1.0, np.inf, -np.inf, np.nan])
    assert nd.contrib.isinf(x).asnumpy().tolist() == [0, 1, 1, 0]
    assert nd.contrib.isfinite(x).asnumpy().tolist() == [1, 0, 0, 0]
    assert nd.contrib.isnan(x).asnumpy().tolist() == [0, 0, 0, 1]
    same = nd.contrib.allclose(nd.array([1.0, 2.0]), nd.array([1.0, 2.0000001]))
    assert same.shape == () and same.dtype == np.uint8 and same.asscalar() == 1
    assert nd.contrib.allclose(nd.array([1.0]), nd.array([1.1])).asscalar() == 0


def test_rand_zipfian_draws_classes_and_expected_counts():
    mx.random.seed(1)
    s, count_true, count_sampled = nd.contrib.rand_zipfian(nd.array([0, 3]), 50, 10)
    assert s.shape == (50,) and s.dtype == np.int64
    assert s.asnumpy().min() >= 0 and s.asnumpy().max() < 10
    want = np.log((np.array([0, 3.0]) + 2) / (np.array([0, 3.0]) + 1)) / np.log(11) * 50
    np.testing.assert_allclose(count_true.asnumpy(), want)
    assert count_sampled.dtype == np.float64


def test_boolean_mask_gradient_and_dynamic_shape():
    x = nd.array(np.arange(12.0).reshape(4, 3))
    x.attach_grad()
    with mx.autograd.record():
        y = nd.contrib.boolean_mask(x, nd.array([1, 0, 0, 1]))
    y.backward()
    assert y.shape == (2, 3)
    np.testing.assert_array_equal(x.grad.asnumpy()[:, 0], [1, 0, 0, 1])
    with pytest.raises(NotImplementedError, match="only axis=0"):
        nd.contrib.boolean_mask(x, nd.array([1, 0, 1]), axis=1)


def test_sync_batch_norm_is_batch_norm_on_one_process():
    r = np.random.RandomState(2)
    ins = [nd.array(r.normal(size=s)) for s in [(4, 3, 2), (3,), (3,), (3,)]] + \
        [nd.array(r.uniform(0.5, 1.5, 3))]
    with mx.autograd.train_mode():
        a = nd.contrib.SyncBatchNorm(*ins, fix_gamma=False, key="k", ndev=1)
        b = nd.BatchNorm(*ins, fix_gamma=False)
    np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-6)
    s = sym.contrib.SyncBatchNorm(sym.var("data"), name="sbn", key="k")
    assert s.list_auxiliary_states() == ["sbn_moving_mean", "sbn_moving_var"]


def test_namespaces_and_json_names():
    boxes = nd.array([[[0.9, 0, 0, 2, 2], [0.8, 0, 0, 2, 2.1]]])
    np.testing.assert_allclose(
        nd.contrib.box_non_maximum_suppression(boxes, coord_start=1, score_index=0).asnumpy(),
        [[[0.9, 0, 0, 2, 2], [-1, -1, -1, -1, -1]]], rtol=1e-7)
    s = sym.contrib.box_iou(sym.var("a"), sym.var("b"), format="center")
    assert s.name.startswith("box_iou")
    assert '"op": "_contrib_box_iou"' in s.tojson() and '"format": "center"' in s.tojson()
    _, out, _ = s.infer_shape(a=(5, 4), b=(2, 3, 4))
    assert out == [(5, 2, 3)]
    # control flow still lives in the same namespaces
    assert callable(nd.contrib.foreach) and callable(sym.contrib.while_loop)
    q = sym.contrib.interleaved_matmul_selfatt_qk(sym.var("qkv"), heads=4)
    assert q.infer_shape(qkv=(7, 2, 96))[1] == [(8, 7, 7)]


def test_errors_name_the_operator_and_what_was_expected():
    with pytest.raises(ValueError, match=r"_contrib_interleaved_matmul_selfatt_qk: the last "
                                         r"dimension \(10\) must be divisible by 3 \* heads"):
        nd.contrib.interleaved_matmul_selfatt_qk(nd.ones((2, 1, 10)), heads=2)
    with pytest.raises(ValueError, match=r"_contrib_ROIAlign: rois must have shape "
                                         r"\(num_rois, 5\)"):
        nd.contrib.ROIAlign(nd.ones((1, 1, 4, 4)), nd.ones((2, 4)), pooled_size=(2, 2),
                            spatial_scale=1.0)
    with pytest.raises(ValueError, match=r"_contrib_box_iou: input rhs must .*end with 4 box"):
        nd.contrib.box_iou(nd.ones((2, 4)), nd.ones((2, 5)))
    with pytest.raises(ValueError, match="Correlation: the images .* are too small"):
        nd.Correlation(nd.ones((1, 1, 2, 2)), nd.ones((1, 1, 2, 2)), max_displacement=2)
    with pytest.raises(ValueError, match="khatri_rao: every input must have the same number "
                                         "of columns"):
        nd.khatri_rao(nd.ones((2, 3)), nd.ones((2, 2)))
    with pytest.raises(ValueError, match="mode"):
        nd.contrib.BilinearResize2D(nd.ones((1, 1, 2, 2)), mode="nearest")


def test_symbolic_rand_zipfian_matches_the_imperative_one():
    s, ct, cs = sym.contrib.rand_zipfian(sym.var("label"), 6, 10)
    mx.random.seed(4)
    outs = mx.sym.Group([s, ct, cs]).eval(label=nd.array([1, 4]))
    mx.random.seed(4)
    want = nd.contrib.rand_zipfian(nd.array([1, 4]), 6, 10)
    for o, w in zip(outs, want):
        assert o.dtype == w.dtype
        np.testing.assert_allclose(o.asnumpy(), w.asnumpy())


def test_count_sketch_projects_each_dimension_with_its_sign():
    x = nd.array([[1.0, 2.0, 3.0, 4.0]])
    out = nd.contrib.count_sketch(x, nd.array([[2, 0, 2, 1]]), nd.array([[1, -1, -1, 1]]),
                                  out_dim=3)
    np.testing.assert_allclose(out.asnumpy(), [[-2.0, 4.0, -2.0]])


def test_box_nms_drops_the_background_class():
    boxes = nd.array([[0, 0.5, 0.1, 0.1, 0.2, 0.2], [0, 0.4, 0.1, 0.1, 0.2, 0.2],
                      [1, 0.3, 0.1, 0.1, 0.14, 0.14], [-1, 0.6, 0.5, 0.5, 0.7, 0.8]])
    # MXNet 1.9.1's test_box_nms_op, case 9: class -1 is the background by default
    out = nd.contrib.box_nms(boxes, id_index=0, force_suppress=True).asnumpy()
    np.testing.assert_allclose(out, [[0, 0.5, 0.1, 0.1, 0.2, 0.2], [1, 0.3, 0.1, 0.1, 0.14, 0.14],
                                     [-1] * 6, [-1] * 6], rtol=1e-6)
    out = nd.contrib.box_nms(boxes, id_index=0, force_suppress=True, background_id=0)
    np.testing.assert_allclose(out.asnumpy()[:2], [[-1, 0.6, 0.5, 0.5, 0.7, 0.8],
                                                   [1, 0.3, 0.1, 0.1, 0.14, 0.14]], rtol=1e-6)
