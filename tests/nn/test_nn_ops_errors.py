"""Bad input to the convolution family, the norms, Pad and UpSampling fails before any
output is made, with an MXNetError (a ValueError) naming the operator, the attribute and the
shapes; the same message comes from the symbolic shape inference."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd

_CASES = [
    ("Convolution", [(1, 3, 4, 4), (2, 3, 5, 5)], dict(kernel=(5, 5), num_filter=2, no_bias=True),
     r"Convolution: kernel=\(5, 5\) \(dilated 5 on axis 0\) is larger than the padded input: "
     r"spatial shape \(4, 4\) padded by \(0, 0\) gives 4 on axis 0"),
    ("Convolution", [(1, 3, 6, 6), (2, 3, 3, 3)], dict(kernel=(3, 3), num_filter=2, dilate=(3, 3),
                                                         no_bias=True),
     r"Convolution: kernel=\(3, 3\) \(dilated 7 on axis 0\) is larger than the padded input"),
    ("Convolution", [(1, 3, 5, 5), (4, 1, 3, 3)], dict(kernel=(3, 3), num_filter=4, num_group=2,
                                                         no_bias=True),
     r"Convolution: num_group=2 must divide the input channels \(3, data \(1, 3, 5, 5\)\) and "
     r"num_filter \(4\)"),
    ("Convolution", [(1, 4, 5), (4, 4, 3)], dict(kernel=(3,), num_filter=4, layout="NCHW",
                                                  no_bias=True),
     r"Convolution: layout='NCHW' is not supported for data of 3 dimensions; expected one of "
     r"\['NCW', 'NWC'\]"),
    ("Convolution", [(1, 4, 5, 5), (4, 4, 3)], dict(kernel=(3,), num_filter=4, no_bias=True),
     r"Convolution: kernel=\(3,\) has 1 axes but the data has 2 spatial axes"),
    ("Convolution", [(1, 4, 5, 5), (4, 4, 3, 3)], dict(kernel=(3, 3), num_filter=4, no_bias=True,
                                                         stride=(0, 1)),
     r"Convolution: stride=\(0, 1\) must be positive on every axis"),
    ("Convolution", [(1, 4, 5, 5), (4, 4, 2, 2)], dict(kernel=(3, 3), num_filter=4, no_bias=True),
     r"Convolution: weight must have shape \(4, 4, 3, 3\), got \(4, 4, 2, 2\)"),
    ("Deconvolution", [(1, 4, 5, 5), (4, 2, 3, 3)], dict(kernel=(3, 3), num_filter=2,
                                                           layout="NHWC"),
     r"Deconvolution: layout='NHWC' is not supported for data of 4 dimensions; expected one of "
     r"\['NCHW'\]"),
    ("Deconvolution", [(1, 3, 5, 5), (3, 2, 3, 3)], dict(kernel=(3, 3), num_filter=4,
                                                           num_group=2),
     r"Deconvolution: num_group=2 must divide the input channels \(3, data \(1, 3, 5, 5\)\)"),
    ("Deconvolution", [(1, 2, 3, 3), (2, 2, 3, 3)], dict(kernel=(3, 3), num_filter=2,
                                                           stride=(2, 2), adj=(2, 0)),
     r"Deconvolution: adj=\(2, 0\) must be smaller than stride=\(2, 2\)"),
    ("Deconvolution", [(1, 2, 3, 3), (2, 2, 3, 3)], dict(kernel=(3, 3), num_filter=2,
                                                           target_shape=(9, 9)),
     r"Deconvolution: target_shape=\(9, 9\) is larger than the largest output 5 on axis 0"),
    ("Pooling", [(1, 2, 5, 5)], dict(kernel=(0, 2)),
     r"Pooling: kernel=\(0, 2\) must be positive on every axis \(a pooling window of 0 is "
     r"empty\)"),
    ("Pooling", [(1, 2, 3, 3)], dict(kernel=(4, 2)),
     r"Pooling: kernel=\(4, 2\) is larger than the padded input: spatial shape \(3, 3\) padded "
     r"by \(0, 0\) gives 3 on axis 0"),
    ("Pooling", [(1, 2, 5, 5)], dict(kernel=(2,)),
     r"Pooling: kernel=\(2,\) has 1 axes but the data has 2 spatial axes"),
    ("Pooling", [(1, 2, 5, 5)], dict(kernel=(2, 2), layout="NCW"),
     r"Pooling: layout='NCW' is not supported for data of 4 dimensions"),
    ("Pooling", [(1, 2, 5, 5)], dict(kernel=(2, 2), pool_type="lp"),
     r"Pooling: pool_type='lp' needs p_value 1, 2 or 3, got None"),
    ("Pooling", [(2, 5)], dict(kernel=(2,)),
     r"Pooling: data must have 3, 4 or 5 dimensions .*, got 2"),
    ("GroupNorm", [(2, 6, 3), (4,), (4,)], dict(num_groups=4),
     r"GroupNorm: num_groups=4 must divide the channels of data \(2, 6, 3\) \(6\)"),
    ("InstanceNorm", [(2, 3, 4), (4,), (4,)], dict(),
     r"InstanceNorm: gamma must have shape \(3,\) for data \(2, 3, 4\), got \(4,\)"),
    ("Pad", [(2, 3, 4, 5)], dict(mode="constant", pad_width=(1, 1, 0, 0, 1, 1, 1, 1)),
     r"Pad: pad_width=\(1, 1, 0, 0, 1, 1, 1, 1\) must not pad the batch or channel axes"),
    ("Pad", [(2, 3, 4, 5)], dict(mode="reflect", pad_width=(0, 0, 0, 0, 4, 1, 1, 1)),
     r"Pad: mode='reflect' needs each pad smaller than the axis it pads"),
    ("Pad", [(2, 3, 4)], dict(mode="edge", pad_width=(0, 0, 0, 0, 1, 1)),
     r"Pad: data must have 4 or 5 dimensions, got shape \(2, 3, 4\)"),
    ("UpSampling", [(1, 2, 3, 3), (1, 2, 4, 4)], dict(scale=2, sample_type="nearest"),
     r"UpSampling: input 1 of shape \(1, 2, 4, 4\) cannot be scaled to \(6, 6\)"),
]


@pytest.mark.parametrize("op,shapes,attrs,msg", _CASES, ids=[f"{c[0]}-{i}"
                                                            for i, c in enumerate(_CASES)])
def test_bad_input_names_operator_attribute_and_shapes(op, shapes, attrs, msg):
    with pytest.raises(mx.MXNetError, match=msg) as e:
        getattr(nd, op)(*[nd.ones(s) for s in shapes], **attrs)
    assert isinstance(e.value, ValueError)
    names = [f"x{i}" for i in range(len(shapes))]
    s = getattr(mx.sym, op)(*[mx.sym.var(n) for n in names], **attrs)
    with pytest.raises(mx.MXNetError, match=msg):
        s.infer_shape(**dict(zip(names, shapes)))


def test_unknown_pool_type_and_layout_parse_errors():
    with pytest.raises(mx.MXNetError, match=r"Pooling: argument pool_type='median'"):
        nd.Pooling(nd.ones((1, 1, 4, 4)), kernel=(2, 2), pool_type="median")
    with pytest.raises(mx.MXNetError, match=r"LeakyReLU: argument act_type='swish'"):
        nd.LeakyReLU(nd.ones((2, 2)), act_type="swish")


@pytest.mark.parametrize("name, shape, axis", [("depth_to_space", (1, 4, 0, 3), "H"),
                                               ("space_to_depth", (0, 1, 4, 4), "N"),
                                               ("space_to_depth", (1, 1, 4, 0), "W")])
def test_depth_space_moves_refuse_an_empty_axis_as_mxnet_does(name, shape, axis):
    # MXNet 1.9.1's shape check wants each of N, C, H, W non-zero (its test_depthtospace)
    with pytest.raises(mx.base.MXNetError, match=rf"{name}: axis {axis} of data is 0"):
        getattr(nd, name)(nd.array(np.zeros(shape, np.float32)), 2)
