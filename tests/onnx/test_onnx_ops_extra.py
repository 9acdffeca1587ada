"""Configurations of the later converters beyond their walk entries (test_onnx_ops): other
ranks, dilations, uncovered borders, integer images, infinities and NaNs; each exported,
checked, run in ONNX Runtime and compared with gluonlite (1e-5). Then every case and walk
entry of those operators round-trips: the ONNX file imported back (`import_to_gluon`) gives
gluonlite's values, imperative and hybridized."""
import os
import sys

import numpy as np
import pytest
from onnx_check import _eval, assert_close, export_and_run

import gluonlite as mx
from gluonlite.ops import registry
from gluonlite.symbol.symbol import apply_op

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "core"))
from walk_specs import SPECS, make  # noqa: E402

R = np.random.default_rng(1)
LATER = ["Crop", "_contrib_allclose", "_contrib_index_copy", "_image_adjust_lighting",
         "_image_crop", "_image_resize", "_linalg_extractdiag", "_linalg_extracttrian",
         "_linalg_makediag", "_linalg_maketrian", "_linalg_trmm", "_random_pdf_exponential",
         "_random_pdf_normal", "_random_pdf_uniform", "_scatter_set_nd", "col2im",
         "fill_element_0index", "im2col", "khatri_rao", "ravel_multi_index", "scatter_nd",
         "unravel_index"]


def _f(*shape):
    return R.standard_normal(shape).astype(np.float32)


def _u8(*shape):
    return R.integers(0, 256, shape).astype(np.uint8)


NAN, INF = np.nan, np.inf
CASES = [
    ("im2col", [_f(2, 3, 9)], dict(kernel=(3,), stride=(2,), dilate=(2,), pad=(1,))),
    ("im2col", [_f(1, 2, 4, 3, 5)], dict(kernel=(2, 2, 3), stride=(1, 2, 1), pad=(0, 1, 1))),
    ("im2col", [_f(1, 2, 7, 6)], dict(kernel=(3, 2), dilate=(2, 1))),
    # the last row/column of the image is in no window: col2im leaves it 0
    ("col2im", [_f(2, 8, 6)], dict(kernel=(2, 2), stride=(2, 2), output_size=(5, 7))),
    ("col2im", [_f(1, 6, 13)], dict(kernel=(3,), dilate=(2,), pad=(1,), output_size=(15,))),
    ("_image_resize", [_u8(5, 7, 3)], dict(size=(4, 3))),
    ("_image_resize", [_u8(2, 4, 6, 3)], dict(size=(9, 5))),
    ("_image_resize", [_f(2, 5, 4, 1)], dict(size=3, keep_ratio=True)),
    ("_image_resize", [_u8(6, 9, 3)], dict(size=(4, 4), interp=0)),
    ("_image_adjust_lighting", [_u8(2, 3, 4, 3)], dict(alpha=(0.5, -1.0, 2.0))),
    ("_image_adjust_lighting", [_f(3, 4, 1)], dict(alpha=(0.5, -1.0, 2.0))),
    ("_image_adjust_lighting", [_f(2, 2, 3).astype(np.float16)], dict(alpha=(0.5, -1.0, 2.0))),
    ("_image_resize", [_f(3, 5, 2).astype(np.float16)], dict(size=(4, 4))),
    ("_image_crop", [_u8(2, 5, 6, 3)], dict(x=2, y=1, width=4, height=3)),
    ("Crop", [_f(2, 3, 7, 8)], dict(h_w=(3, 4), center_crop=True)),
    ("_contrib_allclose", [np.array([INF, NAN, 1, -INF], np.float32),
                           np.array([INF, NAN, 1 + 1e-7, -INF], np.float32)], {}),
    ("_contrib_allclose", [np.array([INF, NAN, 1], np.float32),
                           np.array([INF, NAN, 1], np.float32)], dict(equal_nan=False)),
    ("_contrib_allclose", [np.array([1.0, 2.0], np.float32), np.array([1.0, INF], np.float32)],
     {}),
    ("_contrib_allclose", [np.array([1.0, 2.0], np.float32), np.array([1.1, 2.0], np.float32)],
     dict(rtol=0.2)),
    ("scatter_nd", [_f(2, 4), np.array([[2, 0]], np.float32)], dict(shape=(3, 4))),
    ("_scatter_set_nd", [_f(2, 2, 3), _f(2), np.array([[1, 0], [0, 1], [2, 0]], np.float32)],
     dict(shape=(2, 2, 3))),
    ("ravel_multi_index", [np.array([[1, 0], [2, 3], [0, 4]], np.float32)],
     dict(shape=(2, 4, 5))),
    ("unravel_index", [np.array([[0, 7], [39, 12]], np.float32)], dict(shape=(2, 4, 5))),
    ("_contrib_index_copy", [_f(5, 2, 3), np.array([4, 0], np.float32), _f(2, 2, 3)], {}),
    ("_linalg_trmm", [_f(2, 3, 3), _f(2, 3, 4)], dict(transpose=True, alpha=-0.5)),
    ("_linalg_extracttrian", [_f(2, 4, 4)], dict(offset=-1, lower=False)),
    ("_linalg_maketrian", [_f(2, 10)], dict(lower=False)),
    ("_linalg_makediag", [_f(2, 3, 2)], dict(offset=-2)),
    ("_random_pdf_normal", [_f(2, 3, 4), _f(2, 3), np.abs(_f(2, 3)) + 0.5], dict(is_log=True)),
    ("_random_pdf_exponential", [np.abs(_f(3, 5)), np.abs(_f(3)) + 0.1], {}),
    ("_random_pdf_uniform", [_f(2, 2), np.array([0, 1], np.float32),
                             np.array([2, 5], np.float32)], dict(is_log=True)),
    ("khatri_rao", [_f(3, 2), _f(2, 2), _f(4, 2)], {}),
    ("_contrib_box_iou", [np.abs(_f(2, 3, 4)), np.abs(_f(5, 4))], dict(format="center")),
    ("_contrib_box_iou", [np.array([[0, 0, 2, 2], [1, 1, 1, 1]], np.float32),
                          np.array([[1, 1, 3, 3], [5, 5, 6, 6], [1, 1, 1, 1]], np.float32)],
     {}),
    ("_contrib_box_decode", [_f(2, 3, 4), np.abs(_f(1, 3, 4)) + 0.5],
     dict(std0=0.1, std1=0.2, std2=0.3, std3=0.4)),
    ("_contrib_box_decode", [_f(2, 3, 4) * 3, np.abs(_f(1, 3, 4)) + 0.5],
     dict(format="corner", clip=1.0)),
    ("_contrib_box_encode", [np.array([[1, 0, 1, 1]], np.float32),
                             np.array([[1, 0, 5, -1]], np.float32),
                             np.abs(_f(1, 4, 4)) + np.array([0, 0, 1, 1], np.float32),
                             np.abs(_f(1, 2, 4)) + np.array([0, 0, 1, 1], np.float32),
                             np.array([0.1, 0, -0.1, 0], np.float32),
                             np.array([0.1, 0.1, 0.2, 0.2], np.float32)], {}),
    # grid points beyond the image on every side: their outside neighbours count as zero
    ("BilinearSampler", [_f(2, 3, 4, 5), R.uniform(-1.6, 1.6, (2, 2, 3, 6)).astype(np.float32)],
     {}),
    ("SpatialTransformer", [_f(1, 2, 5, 4), np.array([[1.3, 0.2, 0.4, -0.3, 0.9, -0.5]],
                                                     np.float32)],
     dict(target_shape=(6, 3), transform_type="affine", sampler_type="bilinear")),
    # ROIs on halves (rounding), past the image, smaller than the pooled grid (empty bins)
    ("ROIPooling", [_f(2, 3, 7, 8), np.array([[1, 0.5, 1.5, 6.5, 5.5], [0, -2, -1, 3, 2],
                                              [1, 4, 3, 12, 9], [0, 2.5, 2.5, 3.4, 3.4]],
                                             np.float32)],
     dict(pooled_size=(3, 2), spatial_scale=1.0)),
    ("ROIPooling", [_f(1, 2, 6, 6), np.array([[0, 1, 3, 9, 11], [0, 0, 0, 5, 5]], np.float32)],
     dict(pooled_size=(2, 3), spatial_scale=0.5)),
    # adaptive sampling (sample_ratio -1), two images, ROIs past the border
    ("_contrib_ROIAlign", [_f(2, 3, 7, 8), np.array([[1, 0.5, 1.5, 6.5, 5.5],
                                                     [0, -2, -1, 3, 2], [1, 4, 3, 12, 9]],
                                                    np.float32)],
     dict(pooled_size=(3, 2), spatial_scale=1.0)),
    ("_contrib_ROIAlign", [_f(1, 2, 6, 6), np.array([[0, 1, 3, 9, 11]], np.float32)],
     dict(pooled_size=(2, 2), spatial_scale=0.5, sample_ratio=3)),
    ("Correlation", [_f(2, 3, 7, 8), _f(2, 3, 7, 8)],
     dict(kernel_size=3, max_displacement=2, stride1=2, stride2=1, pad_size=2)),
    ("Correlation", [_f(1, 2, 6, 5), _f(1, 2, 6, 5)],
     dict(kernel_size=1, max_displacement=3, stride1=1, stride2=3, pad_size=3,
          is_multiply=False)),
]


@pytest.mark.parametrize("k", range(len(CASES)),
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_converter_case(k, tmp_path):
    name, arrays, attrs = CASES[k]
    xs = [mx.sym.var(f"x{j}") for j in range(len(arrays))]
    if name == "khatri_rao":
        attrs = dict(attrs, num_args=len(arrays))
    sym = apply_op(name, *xs, **attrs)
    data = {f"x{j}": a for j, a in enumerate(arrays)}
    got, want, _ = export_and_run(sym, {}, data, tmp_path / "op.onnx")
    assert got[0].dtype == want[0].dtype, (got[0].dtype, want[0].dtype)
    assert_close(got, want, 1e-5, f"{name}{attrs}")


def test_allclose_cases_are_not_all_true():
    # the four cases above mean something only if gluonlite tells them apart
    got = [int(mx.nd.contrib.allclose(mx.nd.array(a), mx.nd.array(b), **kw).asnumpy())
           for name, (a, b), kw in [c for c in CASES if c[0] == "_contrib_allclose"]]
    assert got == [1, 0, 0, 1]


# operators converted before whose ONNX forms the importer now reads back too (ArgMax, Tile,
# PRelu, Selu, ReduceL1/L2, GatherElements, GatherND, OneHot, TopK, DepthToSpace, CumSum,
# Size, LRN, Det, Conv with weights as graph inputs, strided Slice, N-D MatMul, Resize,
# ReverseSequence)
IMPORTED_TOO = ["argmax", "argmin", "argmax_channel", "tile", "repeat", "hard_sigmoid",
                "LeakyReLU", "norm", "pick", "batch_take", "SequenceLast", "gather_nd",
                "one_hot", "_onehot_encode", "sort", "argsort", "topk", "depth_to_space",
                "space_to_depth", "_np_cumsum", "size_array", "LRN", "_linalg_det",
                "Convolution", "Deconvolution", "slice", "FullyConnected", "UpSampling",
                "_contrib_BilinearResize2D", "SequenceReverse", "_contrib_box_iou",
                "_contrib_box_decode", "_contrib_box_encode", "GridGenerator",
                "BilinearSampler", "SpatialTransformer", "ROIPooling",
                "_contrib_ROIAlign", "Correlation",
                # graphs whose outputs read no input (folded at import to parameters)
                "_arange", "_eye", "_full", "_linspace", "_ones", "_zeros", "ones_like",
                "zeros_like", "shape_array", "_contrib_arange_like", "_contrib_index_array"]
# walk entries the exporter refuses (test_onnx_ops checks the refusal)
REFUSED = {("UpSampling", 1), ("UpSampling", 2), ("_contrib_ROIAlign", 1),
           ("_image_resize", 3), ("_image_resize", 4), ("_image_resize", 5), ("_image_resize", 6)}


def _walk_cases():
    out = []
    for name in LATER + IMPORTED_TOO:
        checks = SPECS[name] if isinstance(SPECS[name], list) else [SPECS[name]]
        rng = np.random.default_rng(0)
        for i, c in enumerate(checks):
            if (name, i) not in REFUSED:
                out.append((name, [make(sh, rng).astype(np.float32) for sh in c["inputs"]],
                            dict(c["attrs"])))
    return out


ROUND_TRIP = _walk_cases() + CASES


@pytest.mark.parametrize("k", range(len(ROUND_TRIP)),
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(ROUND_TRIP)])
def test_round_trip(k, tmp_path):
    name, arrays, attrs = ROUND_TRIP[k]
    op = registry.get(name)
    if op.variadic:
        attrs = dict(attrs)
        attrs.setdefault(op.variadic, len(arrays))
    xs = [mx.sym.var(f"x{j}") for j in range(len(arrays))]
    sym = apply_op(name, *xs, **attrs)
    if not isinstance(sym, mx.sym.Symbol):
        sym = mx.sym.Group(list(sym))
    n_vis = op.num_visible(op.parse(attrs)[0])
    if len(sym.list_outputs()) > n_vis:
        sym = mx.sym.Group([sym[j] for j in range(n_vis)])
    order = sym.list_inputs()
    data = {f"x{j}": a for j, a in enumerate(arrays)}
    path = str(tmp_path / "op.onnx")
    mx.onnx.export_model(sym, {}, [data[nm].shape for nm in order],
                         [data[nm].dtype for nm in order], path)
    feeds = [mx.nd.array(data[nm], dtype=data[nm].dtype) for nm in order]
    want = _eval(sym, {nm: mx.nd.array(v, dtype=v.dtype) for nm, v in data.items()})
    net = mx.onnx.import_to_gluon(path)
    for hybrid in (False, True):
        if hybrid:
            net.hybridize()
        got = net(*feeds)
        got = [g.asnumpy() for g in (got if isinstance(got, (list, tuple)) else [got])]
        for g, w in zip(got, want):
            assert g.dtype == w.dtype, (g.dtype, w.dtype)
        # MXNet 1.x graphs hold one value as shape (1,)
        want1 = [w.reshape(1) if w.shape == () else w for w in want]
        assert_close(got, want1, 1e-5, f"{name}{attrs} imported (hybridized={hybrid})")


def test_roi_align_aligned_needs_opset_16(tmp_path):
    data = _f(1, 2, 6, 7)
    rois = np.array([[0, 0.5, 1.0, 5.0, 4.5], [0, 2.0, 0.0, 6.5, 5.5]], np.float32)
    sym = apply_op("_contrib_ROIAlign", mx.sym.var("x0"), mx.sym.var("x1"), pooled_size=(2, 3),
                   spatial_scale=1.0, aligned=True)
    with pytest.raises(mx.onnx.ExportError, match="opset 16"):
        export_and_run(sym, {}, {"x0": data, "x1": rois}, tmp_path / "a13.onnx")
    got, want, _ = export_and_run(sym, {}, {"x0": data, "x1": rois}, tmp_path / "a16.onnx",
                                  opset=16)
    assert_close(got, want, 1e-5, "aligned ROIAlign")
    net = mx.onnx.import_to_gluon(str(tmp_path / "a16.onnx"))
    net.hybridize()
    back = net(mx.nd.array(data), mx.nd.array(rois)).asnumpy()
    assert_close([back], want, 1e-5, "aligned ROIAlign imported")
