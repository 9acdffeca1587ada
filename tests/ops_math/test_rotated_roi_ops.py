"""`contrib.RROIAlign` and `contrib.DeformablePSROIPooling` against MXNet 1.9.1: outputs on the
fixed inputs of fixtures/make_rotated_roi.py, and DeformablePSROIPooling's gradients of data
and trans under a seeded head gradient; its gradients against float64 finite differences;
graphs and hybridized blocks giving the imperative numbers; shape and dtype inference; blocks
of regions; and the messages of bad input.

Tolerances against MXNet, relative to the largest magnitude of the array compared: float32
1e-6 (a few units in the last place: the kernels add the samples in MXNet's order and
precision, and on x86-64 the outputs agree bit for bit; the gradients are summed in another
order), float64 1e-12, float16 1e-2 (MXNet rounds every step to half precision, gluonlite
computes in float32 and rounds once). The registry walk (tests/core/walk_specs/rotated_roi.py)
holds both operators against plain loops too.
"""

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd, sym
from gluonlite.ops import deformable_psroi, rotated_roi

from fixture_makers import maker, reference

make_rotated_roi = maker("make_rotated_roi")
_REF = reference("rotated_roi_mxnet.npz")
_CASES = make_rotated_roi.cases()
_TOL = {"float16": 1e-2, "float32": 1e-6, "float64": 1e-12}


def _close(got, want, dtype, what):
    assert got.shape == want.shape and got.dtype == want.dtype, \
        f"{what}: {got.shape} {got.dtype} vs MXNet's {want.shape} {want.dtype}"
    scale = max(1.0, float(np.abs(want).max()))
    np.testing.assert_allclose(got, want, rtol=0, atol=_TOL[dtype] * scale, err_msg=what)


@pytest.mark.parametrize("k", range(len(_CASES)),
                         ids=[f"{c[0]}-{c[4]}-{k}" for k, c in enumerate(_CASES)])
def test_outputs_and_gradients_match_mxnet(k):
    name, ins, attrs, grads, dtype = _CASES[k]
    out, gs = make_rotated_roi.run(mx, k, *_CASES[k])
    _close(out, _REF[f"{k}_out"], dtype, f"{name}{attrs} output")
    for i, g in enumerate(gs):
        _close(g, _REF[f"{k}_grad{i}"], dtype, f"{name}{attrs} gradient of input {grads[i]}")


@pytest.mark.parametrize("shape", [(40, 1), (40, 3), (40, 2, 5), (1, 4)])
def test_sequential_sum_adds_one_row_after_another(shape):
    # what lets float32 outputs round as MXNet's loops do; numpy would sum (40, 1) in pairs
    a = (np.random.RandomState(2).standard_cauchy(shape) * 1000).astype(np.float32)
    want = np.zeros(shape[1:], np.float32)
    for row in a:
        want = want + row
    np.testing.assert_array_equal(rotated_roi.sequential_sum(a), want)
    np.testing.assert_array_equal(rotated_roi.sequential_sum(np.asfortranarray(a)), want)


# ---- gradients against finite differences ------------------------------------------------------
def _numeric(loss, arrays, i, eps=1e-6):
    a = arrays[i]
    g = np.zeros_like(a)
    for j in np.ndindex(a.shape):
        old = a[j]
        a[j] = old + eps
        up = loss(arrays)
        a[j] = old - eps
        down = loss(arrays)
        a[j] = old
        g[j] = (up - down) / (2 * eps)
    return g


_DPS_SMALL = [
    ({"spatial_scale": 0.5, "output_dim": 4, "group_size": 2, "pooled_size": 2,
      "sample_per_part": 2, "trans_std": 0.2}, (1, 16, 5, 6), (3, 4, 2, 2)),
    ({"spatial_scale": 0.7, "output_dim": 2, "group_size": 2, "pooled_size": 3,
      "part_size": 2, "sample_per_part": 3, "trans_std": 0.5}, (2, 9, 4, 5), (3, 2, 2, 2)),
]


@pytest.mark.parametrize("attrs, dshape, tshape", _DPS_SMALL)
def test_deformable_psroi_gradients_match_finite_differences(attrs, dshape, tshape):
    r = np.random.RandomState(3)
    data = r.normal(size=dshape)
    rois = np.array([[0, 1.0, 2.0, 9.0, 7.0], [dshape[0] - 1, -3.0, 0.0, 6.0, 11.0],
                     [0, 4.0, 4.0, 5.0, 4.0]])
    trans = r.normal(0, 1, tshape)  # moves some samples off the map
    out_shape = (3, attrs["output_dim"], attrs["pooled_size"], attrs["pooled_size"])
    head = r.normal(size=out_shape)

    def loss(arrays):
        y = nd.contrib.DeformablePSROIPooling(*[nd.array(a, dtype="float64") for a in arrays],
                                              **attrs)
        return float((y.asnumpy() * head).sum())
    xs = [nd.array(a, dtype="float64") for a in (data, rois, trans)]
    for x in xs:
        x.attach_grad()
    with autograd.record():
        y = nd.contrib.DeformablePSROIPooling(*xs, **attrs)
    y.backward(nd.array(head, dtype="float64"))
    arrays = [data, rois, trans]
    for i, name in ((0, "data"), (2, "trans")):
        np.testing.assert_allclose(xs[i].grad.asnumpy(), _numeric(loss, arrays, i),
                                   rtol=1e-6, atol=1e-8, err_msg=f"gradient of {name}")
    assert not xs[1].grad.asnumpy().any()  # rois take no gradient, as in MXNet
    assert np.abs(xs[2].grad.asnumpy()).max() > 0.1


def test_rroi_align_passes_no_gradient():
    # MXNet registers none (its backward raises); no gradient flows back here
    x = nd.array(np.random.RandomState(0).normal(size=(1, 2, 5, 5)))
    x.attach_grad()
    with autograd.record():
        y = nd.contrib.RROIAlign(x, nd.array([[0, 2, 2, 3, 2, 30]]), pooled_size=(2, 2),
                                 spatial_scale=1)
    y.backward()
    assert y.asnumpy().any() and not x.grad.asnumpy().any()
    assert not mx.ops.get("_contrib_RROIAlign").differentiable(0, mx.ops.get(
        "_contrib_RROIAlign").parse({"pooled_size": (2, 2), "spatial_scale": 1})[0])


# ---- graphs -------------------------------------------------------------------------------------
class _Pool(gluon.HybridBlock):
    def hybrid_forward(self, F, feat, rrois, ps, rois, trans):
        a = F.contrib.RROIAlign(feat, rrois, pooled_size=(2, 3), spatial_scale=0.5)
        b = F.contrib.DeformablePSROIPooling(ps, rois, trans, spatial_scale=0.5, output_dim=2,
                                             group_size=2, pooled_size=2, sample_per_part=2,
                                             trans_std=0.1)
        c = F.contrib.DeformablePSROIPooling(ps * 2, rois, spatial_scale=0.5, output_dim=2,
                                             group_size=2, pooled_size=2, no_trans=True)
        return a * 2, b + c


def _graph_inputs():
    r = np.random.RandomState(8)
    return [nd.array(r.normal(size=(2, 3, 6, 7))),
            nd.array([[0, 5.0, 4.0, 6.0, 3.0, 25.0], [1, 8.0, 9.0, 4.0, 7.0, -110.0]]),
            nd.array(r.normal(size=(2, 8, 6, 7))),
            nd.array([[0, 1.0, 2.0, 11.0, 9.0], [1, 0.0, 0.0, 7.0, 12.0]]),
            nd.array(r.normal(size=(2, 2, 2, 2)))]


def _grads(net, args):
    for a in args:
        a.attach_grad()
    with autograd.record():
        outs = net(*args)
        loss = (outs[0] * outs[0]).sum() + (outs[1] * outs[1]).sum()
    loss.backward()
    return [o.asnumpy() for o in outs], [a.grad.asnumpy() for a in args]


def test_hybridized_block_gives_the_imperative_numbers():
    args = _graph_inputs()
    net = _Pool()
    want_out, want_grad = _grads(net, args)
    net.hybridize(static_alloc=True)
    for _ in range(2):
        outs, grads = _grads(net, args)
        for g, w in zip(outs + grads, want_out + want_grad):
            np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)
    assert np.abs(want_grad[4]).max() > 0 and np.abs(want_grad[2]).max() > 0


def test_symbol_bound_and_evaluated_gives_the_imperative_numbers():
    feat, rrois, ps, rois, trans = _graph_inputs()
    a = sym.contrib.RROIAlign(sym.var("feat"), sym.var("rrois"), pooled_size=(3, 2),
                              spatial_scale=0.5, sampling_ratio=2)
    b = sym.contrib.DeformablePSROIPooling(sym.var("ps"), sym.var("rois"), sym.var("trans"),
                                           spatial_scale=0.5, output_dim=2, group_size=2,
                                           pooled_size=2, sample_per_part=3, trans_std=0.3)
    got_a = a.eval(feat=feat, rrois=rrois)[0].asnumpy()
    got_b = b.eval(ps=ps, rois=rois, trans=trans)[0].asnumpy()
    np.testing.assert_array_equal(got_a, nd.contrib.RROIAlign(
        feat, rrois, pooled_size=(3, 2), spatial_scale=0.5, sampling_ratio=2).asnumpy())
    np.testing.assert_array_equal(got_b, nd.contrib.DeformablePSROIPooling(
        ps, rois, trans, spatial_scale=0.5, output_dim=2, group_size=2, pooled_size=2,
        sample_per_part=3, trans_std=0.3).asnumpy())


# ---- shapes, dtypes, the hidden output ---------------------------------------------------------
def test_symbols_list_mxnets_arguments_and_infer_shapes():
    d = sym.contrib.DeformablePSROIPooling(sym.var("data"), sym.var("rois"), sym.var("trans"),
                                           spatial_scale=0.5, output_dim=3, group_size=2,
                                           pooled_size=4, part_size=2, name="dp")
    assert d.list_arguments() == ["data", "rois", "trans"]
    assert d.list_outputs() == ["dp_output"]  # top_count is hidden, as in MXNet
    args, outs, _ = d.infer_shape(data=(2, 12, 8, 8), rois=(5, 5), trans=(5, 6, 2, 2))
    assert outs == [(5, 3, 4, 4)]
    # the regions' count comes from trans when rois are not known yet
    assert d.infer_shape_partial(trans=(5, 2, 2, 2))[1] == [(5, 3, 4, 4)]
    n = sym.contrib.DeformablePSROIPooling(sym.var("data"), sym.var("rois"), spatial_scale=1,
                                           output_dim=1, group_size=1, pooled_size=3,
                                           no_trans=True, name="n")
    assert n.list_arguments() == ["data", "rois"]
    assert n.infer_shape(data=(1, 1, 4, 4), rois=(7, 5))[1] == [(7, 1, 3, 3)]
    r = sym.contrib.RROIAlign(sym.var("data"), sym.var("rois"), pooled_size=(2, 5),
                              spatial_scale=0.25, name="r")
    assert r.list_arguments() == ["data", "rois"] and r.list_outputs() == ["r_output"]
    assert r.infer_shape(data=(2, 3, 8, 8), rois=(4, 6))[1] == [(4, 3, 2, 5)]
    assert r.infer_type(data="float64")[0] == [np.float64, np.float64]
    assert r.infer_type(data="float16")[1] == [np.float16]


def test_the_hidden_count_holds_each_bins_samples_inside_the_map():
    op = mx.ops.get("_contrib_DeformablePSROIPooling")
    p, _ = op.parse({"spatial_scale": 1, "output_dim": 1, "group_size": 1, "pooled_size": 2,
                     "sample_per_part": 2, "no_trans": True})
    data = np.ones((1, 1, 4, 4), np.float32)
    # a region inside the map, one past its right edge, one wholly off it
    rois = np.array([[0, 0, 0, 3, 3], [0, 2, 0, 9, 3], [0, 20, 20, 23, 23]], np.float32)
    out, count = op.forward(p, mx.ops.RunCtx(False, np), [data, rois])
    np.testing.assert_array_equal(count[:, 0], [[[4, 4], [4, 4]], [[4, 0], [4, 0]],
                                                [[0, 0], [0, 0]]])
    np.testing.assert_array_equal(out[:, 0], [[[1, 1], [1, 1]], [[1, 0], [1, 0]],
                                              [[0, 0], [0, 0]]])
    assert count.dtype == np.float32


def test_a_negative_batch_index_pools_to_zeros():
    x = nd.array(np.random.RandomState(1).normal(size=(1, 4, 5, 5)))
    a = nd.contrib.RROIAlign(x, nd.array([[-1, 2, 2, 3, 3, 10], [0, 2, 2, 3, 3, 10]]),
                             pooled_size=(2, 2), spatial_scale=1).asnumpy()
    assert not a[0].any() and a[1].all()
    x.attach_grad()
    t = nd.array(np.full((2, 2, 2, 2), 0.5))
    t.attach_grad()
    with autograd.record():
        b = nd.contrib.DeformablePSROIPooling(x, nd.array([[-1, 0, 0, 3, 3], [-1, 1, 1, 4, 4]]),
                                              t, spatial_scale=1, output_dim=1, group_size=2,
                                              pooled_size=2, trans_std=0.1)
    b.backward()
    assert not b.asnumpy().any() and not x.grad.asnumpy().any() and not t.grad.asnumpy().any()


def test_nan_coordinates_read_nan():
    a = nd.contrib.RROIAlign(nd.ones((1, 1, 4, 4)), nd.array([[0, np.nan, 2, 2, 2, 0]]),
                             pooled_size=(1, 1), spatial_scale=1).asnumpy()
    t = np.zeros((1, 2, 2, 2))
    t[0, 0, 0, 0] = np.nan
    b = nd.contrib.DeformablePSROIPooling(nd.ones((1, 4, 4, 4)), nd.array([[0, 0, 0, 3, 3]]),
                                          nd.array(t), spatial_scale=1, output_dim=1,
                                          group_size=2, pooled_size=2, trans_std=0.1).asnumpy()
    assert np.isnan(a).all()
    np.testing.assert_array_equal(np.isnan(b[0, 0]), [[True, False], [False, False]])


def test_blocks_of_regions_and_channels_give_the_same_numbers(monkeypatch):
    r = np.random.RandomState(5)
    x = nd.array(r.normal(size=(2, 5, 9, 8)))
    rrois = nd.array(np.concatenate([r.randint(0, 2, (7, 1)), r.uniform(0, 9, (7, 2)),
                                     r.uniform(0.5, 20, (7, 2)), r.uniform(-90, 90, (7, 1))], 1))
    ps, rois = nd.array(r.normal(size=(2, 8, 9, 8))), nd.array([[0, 1, 1, 6, 7]] * 5)
    trans = nd.array(r.normal(size=(5, 2, 2, 2)))

    def run():
        a = nd.contrib.RROIAlign(x, rrois, pooled_size=(2, 3), spatial_scale=1)
        ps.attach_grad()
        trans.attach_grad()
        with autograd.record():
            b = nd.contrib.DeformablePSROIPooling(ps, rois, trans, spatial_scale=1,
                                                  output_dim=2, group_size=2, pooled_size=2,
                                                  sample_per_part=2, trans_std=0.1)
        b.backward(b * 3)
        return [a.asnumpy(), b.asnumpy(), ps.grad.asnumpy(), trans.grad.asnumpy()]
    whole = run()
    # blocks smaller than one region's samples: every region alone, channels in slices
    monkeypatch.setattr(rotated_roi, "_BLOCK", 40)
    monkeypatch.setattr(deformable_psroi, "_BLOCK", 40)
    for got, want in zip(run(), whole):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


# ---- bad input ----------------------------------------------------------------------------------
def _dps(data=(1, 8, 5, 5), rois=(1, 5), trans=(1, 2, 2, 2), **attrs):
    kw = dict(spatial_scale=1.0, output_dim=2, group_size=2, pooled_size=2)
    kw.update(attrs)
    ins = [nd.zeros(data), nd.zeros(rois)] + ([] if trans is None else [nd.zeros(trans)])
    return lambda: nd.contrib.DeformablePSROIPooling(*ins, **kw)


def _rroi(data=(1, 2, 5, 5), rois=None, **attrs):
    kw = dict(pooled_size=(2, 2), spatial_scale=1.0)
    kw.update(attrs)
    r = nd.array([[0, 2, 2, 2, 2, 0]]) if rois is None else rois
    return lambda: nd.contrib.RROIAlign(nd.zeros(data), r, **kw)


@pytest.mark.parametrize("call, message", [
    (_rroi(rois=nd.zeros((1, 5))),
     r"_contrib_RROIAlign: rois must have shape \(num_rois, 6\) \(batch index, center x, "
     r"center y, width, height, angle in degrees\), got \(1, 5\)"),
    (_rroi(pooled_size=2),
     r"_contrib_RROIAlign: pooled_size must be \(height, width\), two positive integers, got "
     r"\(2,\); for square bins give pooled_size=\(2, 2\)"),
    (_rroi(pooled_size=(0, 3)), r"_contrib_RROIAlign: pooled_size must be \(height, width\)"),
    (_rroi(spatial_scale=1.5),
     r"_contrib_RROIAlign: spatial_scale must be in \[0, 1\] \(feature map size over image "
     r"size\), got 1.5"),
    (_rroi(data=(2, 5, 5)),
     r"_contrib_RROIAlign: data must have shape \(batch, channels, height, width\), got "
     r"\(2, 5, 5\)"),
    (_rroi(rois=nd.array([[3, 2, 2, 2, 2, 0]])),
     r"_contrib_RROIAlign: rois\[0\] has batch index 3.0 but data has a batch of 1"),
    (_rroi(rois=nd.array([[0, 2, 2, 2, 2, 0]], dtype="float64")),
     r"_contrib_RROIAlign: input 'data' has dtype float32 but input 'rois' has dtype float64"),
    (lambda: nd.contrib.RROIAlign(nd.zeros((1, 1, 3, 3), dtype="int32"),
                                  nd.zeros((1, 6), dtype="int32"), pooled_size=(1, 1),
                                  spatial_scale=1),
     r"_contrib_RROIAlign: data must be floating point \(float16, float32 or float64\), got "
     r"int32"),
    (_dps(data=(1, 8, 5, 5), group_size=3),
     r"_contrib_DeformablePSROIPooling: data needs output_dim \* group_size\*\*2 = "
     r"2 \* 3\*\*2 = 18 channels, got 8; pass the output_dim and group_size"),
    (_dps(rois=(1, 4)),
     r"_contrib_DeformablePSROIPooling: rois must have shape \(num_rois, 5\) \(batch index, "
     r"x1, y1, x2, y2\), got \(1, 4\)"),
    (_dps(trans=(1, 2, 3, 3)),
     r"_contrib_DeformablePSROIPooling: trans must have shape \(1, 2 \* num_classes, "
     r"part_size, part_size\) with part_size=2, got \(1, 2, 3, 3\)"),
    (_dps(trans=(2, 2, 2, 2)),
     r"_contrib_DeformablePSROIPooling: trans must have shape \(1, 2 \* num_classes"),
    (_dps(trans=(1, 3, 2, 2)),
     r"_contrib_DeformablePSROIPooling: trans must have shape \(1, 2 \* num_classes"),
    (_dps(trans=(1, 6, 2, 2)),
     r"_contrib_DeformablePSROIPooling: trans holds offsets for 3 classes, which must divide "
     r"output_dim=2"),
    (_dps(group_size=0),
     r"_contrib_DeformablePSROIPooling: group_size must be a positive integer, got 0"),
    (_dps(pooled_size=-1),
     r"_contrib_DeformablePSROIPooling: pooled_size must be a positive integer, got -1"),
    (_dps(sample_per_part=0),
     r"_contrib_DeformablePSROIPooling: sample_per_part must be a positive integer, got 0"),
    (_dps(part_size=-2),
     r"_contrib_DeformablePSROIPooling: part_size must be positive \(or 0 for pooled_size\), "
     r"got -2"),
    (_dps(trans_std=2.0),
     r"_contrib_DeformablePSROIPooling: trans_std must be in \[0, 1\] \(the scale of trans\), "
     r"got 2.0"),
    (_dps(spatial_scale=-0.5),
     r"_contrib_DeformablePSROIPooling: spatial_scale must be in \[0, 1\]"),
    (_dps(trans=None), r"_contrib_DeformablePSROIPooling: missing input\(s\) 'trans'"),
    (lambda: nd.contrib.DeformablePSROIPooling(nd.zeros((1, 4, 3, 3)), nd.array([[0, 0, 0, 1, 1]]),
                                               nd.zeros((1, 2, 1, 1)), spatial_scale=1,
                                               output_dim=1, group_size=2, pooled_size=1,
                                               no_trans=True),
     r"_contrib_DeformablePSROIPooling: unknown input\(s\) trans"),
    (lambda: nd.contrib.DeformablePSROIPooling(nd.zeros((1, 4, 3, 3)), nd.array([[2, 0, 0, 1, 1]]),
                                               spatial_scale=1, output_dim=1, group_size=2,
                                               pooled_size=1, no_trans=True),
     r"_contrib_DeformablePSROIPooling: rois\[0\] has batch index 2.0 but data has a batch "
     r"of 1"),
    (lambda: nd.contrib.DeformablePSROIPooling(nd.zeros((1, 4, 3, 3)), nd.zeros((1, 5)),
                                               spatial_scale=1, output_dim=1, pooled_size=1,
                                               no_trans=True),
     r"_contrib_DeformablePSROIPooling: missing required argument 'group_size'"),
])
def test_bad_input_names_the_operator_and_the_argument(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()
