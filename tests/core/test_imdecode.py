"""nd.imdecode: (c, h, w) float32 in OpenCV's BGR order, clipped, mean-subtracted, written
into an `out` slice, as MXNet's decoder (src/ndarray/ndarray.cc Imdecode) defines it."""
import io

import numpy as np
import pytest
from PIL import Image

from gluonlite import nd


def _png(rgb):
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, format="PNG")
    return buf.getvalue()


RGB = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3) * 7  # h=2, w=3
PNG = _png(RGB)


def test_decodes_to_chw_float32_in_bgr_order():
    got = nd.imdecode(PNG)
    assert got.shape == (3, 2, 3) and got.dtype == np.float32
    np.testing.assert_array_equal(got.asnumpy(), RGB[:, :, ::-1].transpose(2, 0, 1))


def test_grey_clip_mean_and_out_slice():
    grey = nd.imdecode(PNG, channels=1)
    # OpenCV's PNG decoder has libpng make the grey: truncated 15-bit weights (MXNet's values
    # in tests/fixtures/data/image_mx.npz agree, see tests/image/test_image.py)
    r, g, b = (RGB[..., i].astype(np.int64) for i in range(3))
    want_grey = ((9797 * r + 19234 * g + 3737 * b) >> 15).astype(np.float32)
    np.testing.assert_array_equal(grey.asnumpy()[0], want_grey)
    clipped = nd.imdecode(PNG, clip_rect=(1, 0, 3, 2))
    np.testing.assert_array_equal(clipped.asnumpy(), RGB[:, 1:3, ::-1].transpose(2, 0, 1))
    mean = nd.ones((3, 2, 3)) * 5
    np.testing.assert_array_equal(nd.imdecode(PNG, mean=mean).asnumpy(),
                                  RGB[:, :, ::-1].transpose(2, 0, 1) - 5.0)
    out = nd.zeros((2, 3, 2, 3))
    assert nd.imdecode(PNG, out=out, index=1) is out
    assert not out.asnumpy()[0].any()
    np.testing.assert_array_equal(out.asnumpy()[1], RGB[:, :, ::-1].transpose(2, 0, 1))


@pytest.mark.parametrize("kwargs, match", [
    (dict(str_img=b"not an image"), "not an image Pillow can decode"),
    (dict(str_img=PNG, clip_rect=(0, 0, 4, 2)), r"clip_rect=\(0, 0, 4, 2\) is not inside"),
    (dict(str_img=PNG, channels=4), "channels=4 but the image has 3"),
    (dict(str_img=PNG, out=nd.zeros((3, 2, 2))), r"out has shape \(3, 2, 2\)"),
])
def test_bad_input_is_named(kwargs, match):
    with pytest.raises(ValueError, match=match):
        nd.imdecode(**kwargs)
