"""The detection operators GluonCV and d2l call (`nd.contrib` / `sym.contrib`) against MXNet
1.9.1: outputs and gradients on fixed inputs made by fixtures/make_detection.py, selections
(kept boxes, matches, anchors) bit for bit; hybridized against imperative; box_nms on more
boxes than one block against a plain greedy loop; and the messages of bad input.
(Gradients against finite differences: the registry walk, tests/core/walk_specs/detection.py.)
"""

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd, sym

from fixture_makers import maker, reference

make_detection = maker("make_detection")
_REF = reference("detection_mxnet.npz")
_CASES = make_detection.cases()
# operators whose outputs are selections or exact rules: equal to MXNet's bit for bit
_EXACT = ("box_iou", "box_nms", "bipartite_matching", "MultiBoxPrior", "MultiBoxTarget",
          "MultiBoxDetection", "Proposal", "amp_")


@pytest.mark.parametrize("k", range(len(_CASES)), ids=[f"{c[0]}-{k}" for k, c in
                                                         enumerate(_CASES)])
def test_outputs_and_gradients_match_mxnet(k):
    case = _CASES[k]
    outs, grads = make_detection.run(mx, *case)
    exact = any(n in case[0] for n in _EXACT) and case[0] != "contrib.MultiProposal"
    tol = 1e-5 if case[4] == "float32" else 1e-12
    for tag, got in (("out", outs), ("grad", grads)):
        for i, o in enumerate(got):
            want = _REF[f"{k}_{tag}{i}"]
            assert o.shape == want.shape and o.dtype == want.dtype, \
                f"{case[0]}{case[2]} {tag} {i}: {o.shape} {o.dtype} vs MXNet's {want.shape} " \
                f"{want.dtype}"
            if exact and tag == "out":
                np.testing.assert_array_equal(o, want, err_msg=f"{case[0]}{case[2]} output {i}")
            else:
                scale = max(1.0, float(np.abs(want).max())) if want.size else 1.0
                np.testing.assert_allclose(o, want, rtol=0, atol=tol * scale,
                                           err_msg=f"{case[0]}{case[2]} {tag} {i}")


def test_deformable_layers_match_mxnets():
    for name, out in make_detection.deformable_layers(mx).items():
        np.testing.assert_allclose(out, _REF[f"layer_{name}"], rtol=1e-5, atol=1e-5,
                                   err_msg=name)


def test_amp_casts_pick_mxnets_dtypes():
    np.testing.assert_array_equal(make_detection.amp_dtypes(mx), _REF["amp_dtypes"])


def _greedy(boxes, thresh):
    """A plain reference: visit boxes best first, keep one unless a kept one overlaps it by
    more than thresh."""
    kept = []
    for i, b in enumerate(boxes):
        ok = True
        for j in kept:
            c = boxes[j]
            w = max(0.0, min(b[2], c[2]) - max(b[0], c[0]))
            h = max(0.0, min(b[3], c[3]) - max(b[1], c[1]))
            inter = w * h
            union = (b[2] - b[0]) * (b[3] - b[1]) + (c[2] - c[0]) * (c[3] - c[1]) - inter
            if inter / union > thresh:
                ok = False
                break
        if ok:
            kept.append(i)
    return kept


def test_box_nms_over_several_blocks_keeps_what_a_greedy_loop_keeps():
    r = np.random.RandomState(4)
    n = 700  # more than one block of candidates
    xy = r.uniform(0, 60, (n, 2))
    boxes = np.concatenate([xy, xy + r.uniform(2, 12, (n, 2))], 1)
    score = r.permutation(n) / n  # distinct scores: the order is unambiguous
    data = np.concatenate([score[:, None], boxes], 1)[None]
    out = nd.contrib.box_nms(nd.array(data, dtype="float64"), overlap_thresh=0.4,
                             coord_start=1, score_index=0).asnumpy()[0]
    order = np.argsort(-score)
    want = order[_greedy(boxes[order], 0.4)]
    assert 0 < len(want) < n
    np.testing.assert_array_equal(out[:len(want), 0], score[want])
    assert (out[len(want):] == -1).all()


class _Detect(gluon.HybridBlock):
    def hybrid_forward(self, F, feat, rois, loc, scores):
        anchors = F.contrib.MultiBoxPrior(feat, sizes=(0.3, 0.6), ratios=(1, 2))
        pooled = F.contrib.ROIAlign(feat, rois, pooled_size=(2, 2), spatial_scale=0.5,
                                    sample_ratio=2)
        boxes = F.contrib.box_decode(loc, anchors, format="corner")
        rows = F.concat(scores, boxes, dim=-1)
        kept = F.contrib.box_nms(rows, overlap_thresh=0.3, coord_start=1, score_index=0)
        return kept, F.contrib.box_iou(boxes, boxes), pooled


def test_hybridized_detection_graph_matches_imperative():
    r = np.random.RandomState(2)
    feat = nd.array(r.normal(size=(1, 3, 4, 5)))
    rois = nd.array([[0, 0, 0, 6, 5], [0, 2, 1, 9, 7]])
    loc = nd.array(r.normal(0, 0.5, (1, 60, 4)))
    scores = nd.array(r.uniform(size=(1, 60, 1)))
    net = _Detect()
    want = [o.asnumpy() for o in net(feat, rois, loc, scores)]
    net.hybridize(static_alloc=True)
    for _ in range(2):
        got = [o.asnumpy() for o in net(feat, rois, loc, scores)]
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


class _More(gluon.HybridBlock):
    def hybrid_forward(self, F, anchor, label, logits, loc, feat, rois, ious, off, w):
        loc_t, mask, cls_t = F.contrib.MultiBoxTarget(anchor, label, logits,
                                                      negative_mining_ratio=1)
        det = F.contrib.MultiBoxDetection(F.softmax(logits, axis=1), loc, anchor)
        ps = F.contrib.PSROIPooling(feat, rois, spatial_scale=0.5, output_dim=2,
                                    pooled_size=2)
        rows, cols = F.contrib.bipartite_matching(ious, threshold=0.1)
        a, b = F.amp_multicast(loc, F.amp_cast(loc, dtype="float16"), num_outputs=2)
        dcn = F.contrib.DeformableConvolution(feat, off, w, kernel=(3, 3), pad=(1, 1),
                                              num_filter=2, no_bias=True)
        prop = F.contrib.Proposal(F.sigmoid(feat.slice_axis(axis=1, begin=0, end=6)),
                                  F.concat(feat, feat, feat, dim=1).slice_axis(
                                      axis=1, begin=0, end=12) * 0.1,
                                  F.ones((1, 3)) * 70, scales=(2, 4, 8), ratios=(1,),
                                  rpn_post_nms_top_n=5, rpn_min_size=2)
        return loc_t, mask, cls_t, det, ps, rows, cols, a - b, dcn, prop


def test_hybridized_ssd_and_region_operators_match_imperative():
    r = np.random.RandomState(3)
    a = r.uniform(0, 0.7, (1, 12, 2))
    args = [nd.array(np.concatenate([a, a + 0.2], -1)),
            nd.array([[[1, 0.1, 0.1, 0.4, 0.5], [-1, -1, -1, -1, -1]]]),
            nd.array(r.normal(size=(1, 3, 12))), nd.array(r.normal(size=(1, 48))),
            nd.array(r.normal(size=(1, 8, 5, 6))), nd.array([[0, 1, 1, 8, 9], [0, 0, 2, 5, 7]]),
            nd.array(r.uniform(size=(4, 3))), nd.array(r.uniform(-1, 1, (1, 18, 5, 6))),
            nd.array(r.normal(size=(2, 8, 3, 3)))]
    net = _More()
    want = [o.asnumpy() for o in net(*args)]
    net.hybridize(static_alloc=True)
    for _ in range(2):
        for g, w in zip(net(*args), want):
            np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-6, atol=1e-6)


def test_box_nms_gradient_flows_to_kept_rows_when_hybridized():
    data = nd.array([[[0.9, 0, 0, 2, 2], [0.8, 0, 0, 2, 1.9], [0.7, 5, 5, 6, 6]]])
    grads = []
    for hybrid in (False, True):
        net = gluon.nn.HybridLambda(lambda F, x: F.contrib.box_nms(x, coord_start=1,
                                                                   score_index=0) * 2)
        if hybrid:
            net.hybridize()
        x = data.copy()
        x.attach_grad()
        with autograd.record():
            y = net(x)
        y.backward()
        grads.append(x.grad.asnumpy())
    np.testing.assert_array_equal(grads[0], grads[1])
    np.testing.assert_array_equal(grads[0][0, :, 0], [2, 0, 2])  # the suppressed row gets 0


def test_symbols_list_mxnets_arguments_and_outputs():
    s = sym.contrib.MultiBoxTarget(sym.var("anchor"), sym.var("label"), sym.var("cls_pred"),
                                   name="mbt")
    assert s.list_outputs() == ["mbt_loc_target", "mbt_loc_mask", "mbt_cls_target"]
    p = sym.contrib.Proposal(sym.var("cls"), sym.var("bbox"), sym.var("info"),
                             rpn_post_nms_top_n=50, output_score=True)
    assert len(p.list_outputs()) == 2
    assert p.infer_shape(cls=(1, 24, 5, 6))[1] == [(50, 5), (50, 1)]
    d = sym.contrib.DeformableConvolution(sym.var("data"), sym.var("offset"), kernel=(3, 3),
                                          num_filter=8, pad=(1, 1), name="dcn")
    assert d.list_arguments() == ["data", "offset", "dcn_weight", "dcn_bias"]
    args, outs, _ = d.infer_shape(data=(2, 4, 6, 5))
    assert args[1] == (2, 18, 6, 5) and outs == [(2, 8, 6, 5)]
    m = sym.amp_multicast(sym.var("a"), sym.var("b"), num_outputs=2)
    assert m.infer_type(a="float16", b="float32")[1] == [np.float32, np.float32]


def test_gluoncv_probes_find_the_box_coders_in_the_namespace_dicts():
    # GluonCV picks its box coders with `'box_encode' in F.contrib.__dict__`
    for ns in (nd.contrib, sym.contrib):
        for name in ("box_encode", "box_decode", "box_nms", "bipartite_matching",
                     "MultiBoxPrior", "Proposal", "PSROIPooling", "DeformableConvolution"):
            assert name in ns.__dict__, name
    assert "amp_multicast" in nd.__dict__ and "amp_cast" in sym.__dict__


@pytest.mark.parametrize("call, message", [
    (lambda: nd.contrib.box_nms(nd.ones((2, 5)), coord_start=2),
     r"_contrib_box_nms: coord_start=2 leaves no room for 4 coordinates \(boxes of width 5\)"),
    (lambda: nd.contrib.box_nms(nd.ones((3, 6)), id_index=3),
     r"_contrib_box_nms: id_index=3 falls on the coordinates or the score"),
    (lambda: nd.contrib.bipartite_matching(nd.ones((3, 2))),
     r"_contrib_bipartite_matching: missing required argument 'threshold'"),
    (lambda: nd.contrib.MultiBoxPrior(nd.ones((1, 2, 3, 3)), offsets=(0.5, 1.5)),
     r"_contrib_MultiBoxPrior: offsets must be \(offset_y, offset_x\), each in \[0, 1\]"),
    (lambda: nd.contrib.MultiBoxTarget(nd.ones((1, 4, 4)), nd.array([[[-1, 0, 0, 1, 1]]]),
                                       nd.ones((1, 2, 3))),
     r"_contrib_MultiBoxTarget: cls_pred has 3 anchors but anchor has 4"),
    (lambda: nd.contrib.MultiBoxTarget(nd.ones((1, 2, 4)), nd.array([[[-1, 0, 0, 1, 1]]]),
                                       nd.ones((1, 2, 2))),
     r"_contrib_MultiBoxTarget: label row 0 of batch 0 has class -1 \(padding\)"),
    (lambda: nd.contrib.MultiBoxDetection(nd.ones((1, 3, 4)), nd.ones((1, 12)),
                                          nd.ones((1, 4, 4))),
     r"_contrib_MultiBoxDetection: loc_pred must hold 4 offsets per anchor \(16\), got 12"),
    (lambda: nd.contrib.Proposal(nd.ones((2, 24, 3, 3)), nd.ones((2, 48, 3, 3)),
                                 nd.ones((2, 3))),
     r"_contrib_Proposal: takes one image \(batch 1\).*use MultiProposal"),
    (lambda: nd.contrib.Proposal(nd.ones((1, 10, 3, 3)), nd.ones((1, 20, 3, 3)),
                                 nd.ones((1, 3))),
     r"_contrib_Proposal: cls_prob has 10 channels but 3 ratios x 4 scales make 12 anchors"),
    (lambda: nd.contrib.PSROIPooling(nd.ones((1, 8, 4, 4)), nd.ones((1, 5)),
                                     spatial_scale=1.0, output_dim=2, pooled_size=3),
     r"_contrib_PSROIPooling: data needs output_dim \* group_size\*\*2 = 18 channels, got 8"),
    (lambda: nd.contrib.ROIAlign(nd.ones((1, 1, 4, 4)), nd.array([[0, 2, 2, 1, 3]]),
                                 pooled_size=(2, 2), spatial_scale=1.0, aligned=True),
     r"_contrib_ROIAlign: with aligned=True every region needs a positive width"),
    (lambda: nd.contrib.DeformableConvolution(nd.ones((1, 3, 5, 5)), nd.ones((1, 18, 5, 5)),
                                              nd.ones((4, 3, 3, 3)), kernel=(3, 3),
                                              num_filter=4, pad=(1, 1), no_bias=True,
                                              num_deformable_group=2),
     r"_contrib_DeformableConvolution: num_deformable_group=2 must divide the input channels"),
    (lambda: nd.contrib.ModulatedDeformableConvolution(
        nd.ones((1, 2, 5, 5)), nd.ones((1, 18, 5, 5)), nd.ones((1, 8, 5, 5)),
        nd.ones((4, 2, 3, 3)), kernel=(3, 3), num_filter=4, pad=(1, 1), no_bias=True),
     r"_contrib_ModulatedDeformableConvolution: mask must have shape \(1, 9, 5, 5\)"),
    (lambda: nd.amp_cast(nd.ones(2), dtype="float17"), r"amp_cast: argument dtype"),
])
def test_bad_input_names_the_operator_and_the_argument(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()
