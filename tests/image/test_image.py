"""mx.image (functions, augmenters, ImageIter, detection) against MXNet 1.9.1: the expected
values are tests/fixtures/data/image_mx.npz, made by tests/fixtures/make_image.py (the PNG
files and record files are written here from the same bytes)."""
import io
import json
import os
import random

import numpy as np
import pytest
from PIL import Image

import gluonlite as mx
from gluonlite import nd

FIX = os.path.join(os.path.dirname(__file__), "..", "fixtures", "data", "image_mx.npz")


@pytest.fixture(scope="module")
def d():
    return np.load(FIX)


@pytest.fixture(scope="module")
def dumps(d):
    return json.loads(str(d["dumps"]))


def _img(d, dtype="float32"):
    return nd.array(d["src"], dtype=dtype)


def _close(got, want, atol=1e-4):
    got = got.asnumpy() if isinstance(got, nd.NDArray) else got
    assert got.shape == want.shape, (got.shape, want.shape)
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), atol=atol,
                               rtol=1e-5)


def test_namespace_and_alias():
    assert mx.img is mx.image
    assert mx.image.image.imresize is mx.image.imresize
    assert mx.image.detection.ImageDetIter is mx.image.ImageDetIter


@pytest.mark.parametrize("dtype", ["uint8", "float32"])
@pytest.mark.parametrize("interp", range(5))
def test_imresize_matches_opencv(d, dtype, interp):
    # uint8 results are OpenCV's bit for bit (its fixed-point kernels, reproduced)
    atol = 1e-3 if dtype == "float32" else 0
    for w, h in [(7, 5), (30, 21), (9, 40), (17, 13)]:
        got = mx.image.imresize(_img(d, dtype), w, h, interp=interp)
        assert got.dtype == np.dtype(dtype)
        _close(got, d[f"imresize_{dtype}_{w}_{h}_{interp}"], atol=atol)
    out = nd.zeros((5, 7, 3), dtype=dtype)
    assert mx.image.imresize(_img(d, dtype), 7, 5, interp=interp, out=out) is out
    _close(out, d[f"imresize_{dtype}_7_5_{interp}"], atol=atol)


@pytest.mark.parametrize("case", range(8))
def test_imresize_uint8_bilinear_is_opencv_bit_for_bit(d, case):
    src = d[f"linear_u8_src_{case}"]
    want = d[f"linear_u8_{case}"]
    got = mx.image.imresize(nd.array(src, dtype="uint8"), want.shape[1], want.shape[0])
    np.testing.assert_array_equal(got.asnumpy(), want)


def test_imresize_auto_and_random_interp(d):
    img = _img(d)
    _close(mx.image.imresize(img, 30, 21, interp=9), d["imresize_float32_30_21_2"], 1e-3)
    _close(mx.image.imresize(img, 7, 5, interp=9), d["imresize_float32_7_5_3"], 1e-3)
    _close(mx.image.imresize(img, 9, 40, interp=9), d["imresize_float32_9_40_1"], 1e-3)
    random.seed(0)
    code = random.randint(0, 4)
    random.seed(0)
    _close(mx.image.imresize(img, 7, 5, interp=10), d[f"imresize_float32_7_5_{code}"], 1e-3)


@pytest.mark.parametrize("size", [6, 20])
@pytest.mark.parametrize("interp", [0, 1, 2, 3, 9])
def test_resize_short(d, size, interp):
    _close(mx.image.resize_short(_img(d), size, interp), d[f"resize_short_{size}_{interp}"],
           1e-3)


def test_resize_errors(d):
    with pytest.raises(mx.base.MXNetError, match="unknown interp method -1"):
        mx.image.imresize(_img(d), 4, 4, interp=-1)
    with pytest.raises(ValueError, match="unknown interp method 5"):
        mx.image.imresize(_img(d), 4, 4, interp=5)
    with pytest.raises(ValueError, match="w and h must be positive"):
        mx.image.imresize(_img(d), 0, 4)
    with pytest.raises(ValueError, match="HWC image"):
        mx.image.imresize(_img(d)[:, :, 0], 4, 4)
    with pytest.raises(ValueError, match="out has shape"):
        mx.image.imresize(_img(d), 4, 4, out=nd.zeros((3, 4, 3)))


@pytest.mark.parametrize("border", range(5))
def test_copyMakeBorder(d, border):
    _close(mx.image.copyMakeBorder(_img(d), 2, 3, 4, 1, type=border, values=(1, 2, 3)),
           d[f"border_{border}"])
    out = nd.zeros(d[f"border_{border}"].shape)
    mx.image.copyMakeBorder(_img(d), 2, 3, 4, 1, type=border, values=(1, 2, 3), out=out)
    _close(out, d[f"border_{border}"])


def test_copyMakeBorder_value_and_errors(d):
    _close(mx.image.copyMakeBorder(_img(d), 1, 1, 2, 2, value=9), d["border_value"])
    with pytest.raises(ValueError, match="type must be 0-4"):
        mx.image.copyMakeBorder(_img(d), 1, 1, 1, 1, type=5)
    with pytest.raises(ValueError, match="borders must be >= 0"):
        mx.image.copyMakeBorder(_img(d), -1, 1, 1, 1)


def test_scale_down():
    assert mx.image.scale_down((640, 480), (720, 120)) == (640, 106)
    assert mx.image.scale_down((360, 1000), (480, 500)) == (360, 375)
    assert mx.image.scale_down((300, 400), (0, 0)) == (0, 0)


def test_crops(d):
    out, box = mx.image.center_crop(_img(d), (8, 6))
    _close(out, d["center_crop"])
    assert box == tuple(d["center_crop_box"])
    out, box = mx.image.center_crop(_img(d), (30, 20))
    _close(out, d["center_crop_big"], 1e-3)
    assert box == tuple(d["center_crop_big_box"])
    _close(mx.image.fixed_crop(_img(d), 2, 3, 9, 7, size=(5, 4), interp=1), d["fixed_crop"],
           1e-3)
    random.seed(1)
    out, box = mx.image.random_crop(_img(d), (8, 6))
    _close(out, d["random_crop"], 1e-3)
    assert box == tuple(d["random_crop_box"])
    random.seed(2)
    out, box = mx.image.random_size_crop(_img(d), (8, 6), 0.3, (0.75, 1.33))
    _close(out, d["random_size_crop"], 1e-3)
    assert box == tuple(d["random_size_crop_box"])
    with pytest.raises(TypeError, match="unexpected keyword arguments"):
        mx.image.random_size_crop(_img(d), (8, 6), 0.3, (0.75, 1.33), bogus=1)


def test_color_normalize(d):
    mean, std = nd.array([100.0, 110.0, 120.0]), nd.array([50.0, 60.0, 70.0])
    _close(mx.image.color_normalize(_img(d), mean, std), d["color_normalize"])
    _close(mx.image.color_normalize(_img(d), mean), d["src"] - mean.asnumpy())


def test_imrotate(d):
    src = nd.array(d["rot_src"])
    _close(mx.image.imrotate(src[0], 30), d["rot_single"], 1e-4)
    _close(mx.image.imrotate(src, nd.array([20, -45]), zoom_in=True), d["rot_zoom_in"], 1e-4)
    _close(mx.image.imrotate(src, nd.array([20, -45]), zoom_out=True), d["rot_zoom_out"], 1e-4)
    np.random.seed(5)
    _close(mx.image.random_rotate(src, (-30, 30)), d["random_rotate"], 1e-4)
    with pytest.raises(ValueError, match="zoom_in and zoom_out cannot both be True"):
        mx.image.imrotate(src, 10, zoom_in=True, zoom_out=True)
    with pytest.raises(TypeError, match="only float32"):
        mx.image.imrotate(src.astype("float64"), 10)
    with pytest.raises(TypeError, match="scalar rotation_degrees"):
        mx.image.imrotate(src[0], nd.array([1, 2]))
    with pytest.raises(ValueError, match="2 images but 3 rotation angles"):
        mx.image.imrotate(src, nd.array([1, 2, 3]))


AUGS = ["resize", "force_resize", "random_crop_aug", "random_sized_crop_aug", "center_crop_aug",
        "brightness", "contrast", "saturation", "hue", "color_jitter", "gray", "flip", "cast",
        "normalize", "lighting"]


def _make_aug(name):
    eigval = np.array([55.46, 4.794, 1.148])
    eigvec = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140],
                       [-0.5836, -0.6948, 0.4203]])
    mean, std = np.array([100.0, 110.0, 120.0]), np.array([50.0, 60.0, 70.0])
    im = mx.image
    return {"resize": lambda: im.ResizeAug(8, 1),
            "force_resize": lambda: im.ForceResizeAug((9, 7), 3),
            "random_crop_aug": lambda: im.RandomCropAug((8, 6), 1),
            "random_sized_crop_aug": lambda: im.RandomSizedCropAug((8, 6), 0.3, (0.75, 1.33), 1),
            "center_crop_aug": lambda: im.CenterCropAug((8, 6), 2),
            "brightness": lambda: im.BrightnessJitterAug(0.3),
            "contrast": lambda: im.ContrastJitterAug(0.3),
            "saturation": lambda: im.SaturationJitterAug(0.3),
            "hue": lambda: im.HueJitterAug(0.3),
            "color_jitter": lambda: im.ColorJitterAug(0.3, 0.3, 0.3),
            "gray": lambda: im.RandomGrayAug(1.0),
            "flip": lambda: im.HorizontalFlipAug(1.0),
            "cast": lambda: im.CastAug("float64"),
            "normalize": lambda: im.ColorNormalizeAug(mean, std),
            "lighting": lambda: im.LightingAug(0.1, eigval, eigvec)}[name]()


@pytest.mark.parametrize("name", AUGS)
def test_augmenter_matches_mxnet_with_the_same_seed(d, dumps, name):
    aug = _make_aug(name)
    random.seed(3)
    np.random.seed(3)
    _close(aug(_img(d)), d[f"aug_{name}"], 1e-3)
    assert aug.dumps() == dumps[name]


def test_create_augmenter(d, dumps):
    auglist = mx.image.CreateAugmenter((3, 6, 8), resize=10, rand_crop=True, rand_resize=True,
                                       rand_mirror=True, mean=True, std=True, brightness=0.1,
                                       contrast=0.1, saturation=0.1, hue=0.1, pca_noise=0.1,
                                       rand_gray=0.2, inter_method=1)
    assert [a.dumps() for a in auglist] == dumps["create_augmenter"]
    random.seed(4)
    np.random.seed(4)
    x = _img(d, "uint8")
    for a in auglist:
        x = a(x)
    _close(x, d["create_augmenter"], 1e-3)
    seq = mx.image.SequentialAug(auglist[:2])
    assert seq.dumps() == ["sequentialaug", [a.dumps() for a in auglist[:2]]]
    with pytest.raises(ValueError, match="rand_resize=True needs rand_crop=True"):
        mx.image.CreateAugmenter((3, 6, 8), rand_resize=True)
    with pytest.raises(ValueError, match="mean must be True, None"):
        mx.image.CreateAugmenter((3, 6, 8), mean=[1, 2, 3])
    with pytest.raises(NotImplementedError, match="must define __call__"):
        mx.image.Augmenter()(_img(d))


def _png(d, i):
    return d[f"png_{i}"].tobytes()


def test_imdecode_and_imread(d, tmp_path):
    buf = _png(d, 0)
    got = mx.image.imdecode(buf)
    assert got.dtype == np.uint8
    _close(got, d["decode_rgb"], 0)
    _close(mx.image.imdecode(bytearray(buf), to_rgb=0), d["decode_bgr"], 0)
    _close(mx.image.imdecode(np.frombuffer(buf, np.uint8)), d["decode_rgb"], 0)
    _close(mx.image.imdecode(buf, 0), d["decode_gray"], 0)  # libpng's truncated weights
    # Pillow-written JPEG, palette, grey+alpha, RGBA, 16-bit grey PNGs and BMP: OpenCV's
    # values, grey included (libjpeg's own grey for a JPEG)
    for name in ("jpeg", "palette", "grey_alpha", "rgba", "grey16", "bmp"):
        encoded = d[name].tobytes()
        _close(mx.image.imdecode(encoded), d[name + "_rgb"], 0)
        _close(mx.image.imdecode(encoded, 0), d[name + "_gray"], 0)
    path = tmp_path / "a.png"
    path.write_bytes(buf)
    _close(mx.img.image.imread(str(path)), d["decode_rgb"], 0)
    _close(mx.image.imread(str(path), to_rgb=0), d["decode_bgr"], 0)


def test_imdecode_errors():
    with pytest.raises(mx.base.MXNetError, match="buf is empty"):
        mx.image.imdecode(b"", to_rgb=0)
    with pytest.raises(mx.base.MXNetError, match="not a valid image"):
        mx.image.imdecode(b"clearly not image content")
    with pytest.raises(ValueError, match="encode a str to bytes first"):
        mx.image.imdecode("abc")
    with pytest.raises(mx.base.MXNetError, match="flag must be 0"):
        mx.image.imdecode(b"x", flag=-1)
    with pytest.raises(mx.base.MXNetError, match="cannot open"):
        mx.image.imread("/139810923jadjsajlskd.___adskj/blah.jpg")


def _write_images(d, tmp_path):
    lines = []
    for i in range(6):
        (tmp_path / f"{i}.png").write_bytes(_png(d, i))
        lines.append(f"{i}\t{i % 3}\t{i}.png\n")
    (tmp_path / "list.lst").write_text("".join(lines))


def test_image_iter_over_a_list_file_matches_mxnet(d, tmp_path):
    _write_images(d, tmp_path)
    random.seed(6)
    it = mx.image.ImageIter(4, (3, 5, 6), path_imglist=str(tmp_path / "list.lst"),
                            path_root=str(tmp_path), shuffle=True, rand_crop=True,
                            rand_mirror=True)
    assert it.provide_data == [("data", (4, 3, 5, 6))]
    assert it.provide_label == [("softmax_label", (4,))]
    batches = list(it)
    _close(np.stack([b.data[0].asnumpy() for b in batches]), d["iter_lst_data"], 1e-3)
    _close(np.stack([b.label[0].asnumpy() for b in batches]), d["iter_lst_label"], 0)
    assert [b.pad for b in batches] == list(d["iter_lst_pad"])


def test_image_iter_over_a_record_file_rolls_over(d, tmp_path):
    rec = mx.recordio.MXIndexedRecordIO(str(tmp_path / "r.idx"), str(tmp_path / "r.rec"), "w")
    for i in range(6):
        rec.write_idx(i, mx.recordio.pack(mx.recordio.IRHeader(0, float(i), i, 0), _png(d, i)))
    rec.close()
    it = mx.image.ImageIter(4, (3, 9, 10), path_imgrec=str(tmp_path / "r.rec"),
                            last_batch_handle="roll_over",
                            aug_list=[mx.image.CastAug(), mx.image.ForceResizeAug((10, 9), 1)])
    batches = list(it)
    it.reset()
    batches.append(it.next())
    _close(np.stack([b.data[0].asnumpy() for b in batches]), d["iter_rec_data"], 1e-3)
    _close(np.stack([b.label[0].asnumpy() for b in batches]), d["iter_rec_label"], 0)
    assert [b.pad for b in batches] == list(d["iter_rec_pad"])
    # with the index: random access, shuffling and parts
    it = mx.image.ImageIter(2, (3, 9, 10), path_imgrec=str(tmp_path / "r.rec"),
                            path_imgidx=str(tmp_path / "r.idx"), num_parts=2, part_index=1,
                            aug_list=[mx.image.CastAug(), mx.image.ForceResizeAug((10, 9), 1)],
                            data_name="img", label_name="y")
    assert it.provide_data == [("img", (2, 3, 9, 10))]
    labels = np.concatenate([b.label[0].asnumpy() for b in it])
    assert labels.tolist() == [3.0, 4.0, 5.0, 3.0]


def test_image_iter_last_batch_handles(d, tmp_path):
    _write_images(d, tmp_path)
    imglist = [[i % 3, f"{i}.png"] for i in range(6)]
    kw = dict(imglist=imglist, path_root=str(tmp_path), aug_list=[
        mx.image.ForceResizeAug((4, 4)), mx.image.CastAug()], dtype="int32")
    assert [b.pad for b in mx.image.ImageIter(4, (3, 4, 4), **kw)] == [0, 2]
    assert len(list(mx.image.ImageIter(4, (3, 4, 4), last_batch_handle="discard", **kw))) == 1
    padded = list(mx.image.ImageIter(4, (3, 4, 4), **kw))[1]
    first = list(mx.image.ImageIter(4, (3, 4, 4), **kw))[0]
    np.testing.assert_array_equal(padded.data[0].asnumpy()[2:], first.data[0].asnumpy()[:2])
    assert padded.label[0].dtype == np.float32  # the batch's labels are float32, as MXNet's
    with pytest.raises(ValueError, match="last_batch_handle must be one of"):
        mx.image.ImageIter(4, (3, 4, 4), last_batch_handle="keep", **kw)
    with pytest.raises(ValueError, match="expects 3 channels"):
        mx.image.ImageIter(4, (1, 4, 4), **kw)
    with pytest.raises(ValueError, match="give path_imgrec, path_imglist or imglist"):
        mx.image.ImageIter(4, (3, 4, 4))
    with pytest.raises(ValueError, match="dtype must be"):
        mx.image.ImageIter(4, (3, 4, 4), imglist=imglist, dtype="uint8")


@pytest.mark.parametrize("name", ["det_flip", "det_crop", "det_pad"])
def test_det_augmenters_match_mxnet(d, dumps, name):
    label = np.array([[1, 0.1, 0.2, 0.5, 0.6], [2, 0.4, 0.3, 0.9, 0.95]])
    aug = {"det_flip": lambda: mx.image.DetHorizontalFlipAug(1.0),
           "det_crop": lambda: mx.image.DetRandomCropAug(min_object_covered=0.3),
           "det_pad": lambda: mx.image.DetRandomPadAug(area_range=(1.0, 2.0),
                                                       pad_val=(1, 2, 3))}[name]()
    random.seed(7)
    img, lab = aug(_img(d), label.copy())
    _close(img, d[name], 1e-4)
    _close(lab, d[name + "_label"], 1e-6)
    assert aug.dumps() == dumps[name]


def test_create_det_augmenter_and_errors(d, dumps):
    dets = mx.image.CreateDetAugmenter((3, 6, 8), resize=10, rand_crop=0.5, rand_pad=0.5,
                                       rand_gray=0.1, rand_mirror=True, mean=True, std=True,
                                       brightness=0.1, hue=0.1, pca_noise=0.1)
    assert [a.dumps() for a in dets] == dumps["create_det_augmenter"]
    label = np.array([[1, 0.1, 0.2, 0.5, 0.6], [2, 0.4, 0.3, 0.9, 0.95]])
    for seed in range(4):
        random.seed(10 + seed)
        np.random.seed(10 + seed)
        x, lab = nd.array(d["src"], dtype="uint8"), label.copy()
        for a in dets:
            x, lab = a(x, lab)
        _close(x, d[f"det_pipeline_{seed}"], 1e-3)
        _close(lab, d[f"det_pipeline_{seed}_label"], 1e-6)
    with pytest.raises(TypeError, match="must be an image.Augmenter"):
        mx.image.DetBorrowAug(mx.image.DetHorizontalFlipAug(0.5))
    with pytest.raises(ValueError, match="must hold DetAugmenters"):
        mx.image.DetRandomSelectAug([mx.image.CastAug()])
    with pytest.raises(ValueError, match="the same length"):
        mx.image.CreateMultiRandCropAugmenter(min_object_covered=[0.1, 0.3],
                                              max_attempts=[1, 2, 3])


def test_image_det_iter_matches_mxnet(d, tmp_path):
    _write_images(d, tmp_path)
    imglist = [[2, 5, i % 3, 0.1, 0.1, 0.6, 0.7] + ([1, 0.5, 0.4, 0.9, 0.8] if i % 2 else [])
               + [f"{i}.png"] for i in range(6)]
    it = mx.image.ImageDetIter(4, (3, 6, 8), imglist=imglist, path_root=str(tmp_path))
    assert it.label_shape == (2, 5)
    assert it.provide_label == [("label", (4, 2, 5))]
    batches = list(it)
    _close(np.stack([b.data[0].asnumpy() for b in batches]), d["det_iter_data"], 1e-3)
    _close(np.stack([b.label[0].asnumpy() for b in batches]), d["det_iter_label"], 1e-6)
    other = mx.image.ImageDetIter(4, (3, 6, 8), imglist=imglist[:1], path_root=str(tmp_path))
    assert other.label_shape == (1, 5)
    it.sync_label_shape(other)
    assert other.label_shape == (2, 5) and other.provide_label == [("label", (4, 2, 5))]
    with pytest.raises(ValueError, match="cannot reduce the label count from 2 to 1"):
        it.reshape(label_shape=(1, 5))
    with pytest.raises(TypeError, match="must be an ImageDetIter"):
        it.sync_label_shape(mx.image.ImageIter(4, (3, 6, 8), imglist=[[0, "0.png"]],
                                               path_root=str(tmp_path)))


def test_missing_pillow_names_the_extra(d, monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "PIL", None)
    with pytest.raises(ImportError, match=r"gluonlite\[image\]"):
        mx.image.imdecode(_png(d, 0))


def test_det_alias():
    assert mx.image.det is mx.image.detection


def test_draw_next_says_why_it_is_missing(d, tmp_path):
    _write_images(d, tmp_path)
    it = mx.image.ImageDetIter(1, (3, 6, 8), imglist=[[2, 5, 0, 0.1, 0.1, 0.6, 0.7, "0.png"]],
                               path_root=str(tmp_path))
    with pytest.raises(NotImplementedError, match="draw_next: drawing boxes needs OpenCV"):
        it.draw_next()


def test_image_iter_label_width_and_list_over_records(d, tmp_path):
    rec = mx.recordio.MXIndexedRecordIO(str(tmp_path / "r.idx"), str(tmp_path / "r.rec"), "w")
    for i in range(3):
        rec.write_idx(i, mx.recordio.pack(mx.recordio.IRHeader(0, [i, 10 + i], i, 0),
                                          _png(d, i)))
    rec.close()
    augs = [mx.image.ForceResizeAug((4, 4)), mx.image.CastAug()]
    it = mx.image.ImageIter(3, (3, 4, 4), label_width=2, path_imgrec=str(tmp_path / "r.rec"),
                            path_imgidx=str(tmp_path / "r.idx"), aug_list=augs)
    assert it.provide_label == [("softmax_label", (3, 2))]
    np.testing.assert_array_equal(it.next().label[0].asnumpy(), [[0, 10], [1, 11], [2, 12]])
    # labels from a list file, images from the records (keyed by the list's indices)
    (tmp_path / "l.lst").write_text("".join(f"{i}\t{5 * i}\t{7 * i}\tignored\n"
                                            for i in (2, 0, 1)))
    it = mx.image.ImageIter(3, (3, 4, 4), label_width=2, path_imgrec=str(tmp_path / "r.rec"),
                            path_imgidx=str(tmp_path / "r.idx"), path_imglist=str(
                                tmp_path / "l.lst"), aug_list=augs)
    batch = it.next()
    np.testing.assert_array_equal(batch.label[0].asnumpy(), [[0, 0], [5, 7], [10, 14]])
    want = mx.image.imresize(mx.image.imdecode(_png(d, 2)), 4, 4, interp=2)
    np.testing.assert_array_equal(batch.data[0][2].asnumpy(),
                                  want.asnumpy().transpose(2, 0, 1).astype(np.float32))


def test_on_a_gpu_context_results_stay_there(d, fake_gpu):
    img = nd.array(d["src"], dtype="uint8", ctx=mx.gpu(0))
    resized = mx.image.imresize(img, 7, 5, interp=2)
    assert resized.context == mx.gpu(0)
    np.testing.assert_array_equal(resized.asnumpy(), d["imresize_uint8_7_5_2"])
    border = mx.image.copyMakeBorder(img.astype("float32"), 2, 3, 4, 1, type=2)
    assert border.context == mx.gpu(0)
    _close(border, d["border_2"])
    random.seed(3)
    np.random.seed(3)
    out = _make_aug("color_jitter")(img.astype("float32"))
    assert out.context == mx.gpu(0)
    _close(out, d["aug_color_jitter"], 1e-3)
    rot = mx.image.imrotate(nd.array(d["rot_src"], ctx=mx.gpu(0))[0], 30)
    assert rot.context == mx.gpu(0)
    _close(rot, d["rot_single"])


def test_cv_operators_in_nd_and_sym(d):
    img = _img(d, "uint8")
    got = nd._internal._cvimresize(img, w=30, h=21, interp=4)
    np.testing.assert_array_equal(got.asnumpy(), d["imresize_uint8_30_21_4"])
    _close(nd._internal._cvcopyMakeBorder(_img(d), top=2, bot=3, left=4, right=1, type=0,
                                          values=(1, 2, 3)), d["border_0"])
    s = mx.sym._internal._cvimresize(mx.sym.var("x"), w=30, h=21)
    assert s.infer_shape(x=(13, 17, 3))[1] == [(21, 30, 3)]
    s = mx.sym._internal._cvcopyMakeBorder(mx.sym.var("x"), top=2, bot=3, left=4, right=1)
    assert s.infer_shape(x=(13, 17, 3))[1] == [(18, 22, 3)]
    with pytest.raises(ValueError, match="_cvimresize: interp must be one of 0-4"):
        nd._internal._cvimresize(img, w=3, h=3, interp=9)
    with pytest.raises(mx.base.MXNetError, match="_cvimresize: src must be an HWC image"):
        nd._internal._cvimresize(img[:, :, 0], w=3, h=3)


def _sixteen(tmp_path):
    rng = np.random.RandomState(0)
    names = []
    for i in range(16):
        arr = (rng.rand(5 + i % 3, 6, 3) * 255).astype(np.uint8)
        buf = io.BytesIO()
        Image.fromarray(arr).save(buf, format="PNG")
        (tmp_path / f"{i}.png").write_bytes(buf.getvalue())
        names.append(str(tmp_path / f"{i}.png"))
    return names


def test_image_iter_batch_counts_over_epochs(tmp_path):
    # MXNet's test_imageiter scenario: 16 images, batches of 3
    imglist = [[i % 5, name] for i, name in enumerate(_sixteen(tmp_path))]

    def make(**kw):
        return mx.image.ImageIter(3, (3, 4, 4), imglist=imglist, path_root="",
                                  aug_list=[mx.image.ForceResizeAug((4, 4)),
                                            mx.image.CastAug()], **kw)
    assert len(list(make(last_batch_handle="discard"))) == 5
    batches = list(make(last_batch_handle="pad"))
    assert len(batches) == 6 and batches[-1].pad == 2
    np.testing.assert_array_equal(batches[0].data[0][:2].asnumpy(),
                                  batches[5].data[0][1:].asnumpy())
    it = make(last_batch_handle="roll_over")
    first = list(it)
    assert len(first) == 5
    it.reset()
    b = it.next()  # the 16th image, then the first two of the new epoch
    assert b.pad == 2
    np.testing.assert_array_equal(b.data[0][1].asnumpy(), first[0].data[0][0].asnumpy())
    assert 1 + len(list(it)) == 5
    it.reset()
    b = it.next()  # two images rolled over this time
    assert b.pad == 1
    np.testing.assert_array_equal(b.data[0][2].asnumpy(), first[0].data[0][0].asnumpy())
    assert 1 + len(list(it)) == 6


def test_image_det_iter_over_records(d, tmp_path):
    rec = mx.recordio.MXIndexedRecordIO(str(tmp_path / "r.idx"), str(tmp_path / "r.rec"), "w")
    labels = [[2, 5, 1, 0.1, 0.2, 0.5, 0.6], [2, 5, 0, 0.2, 0.1, 0.9, 0.7, 3, 0.3, 0.3, 0.4, 0.5]]
    for i, lab in enumerate(labels):
        rec.write_idx(i, mx.recordio.pack(mx.recordio.IRHeader(0, lab, i, 0), _png(d, i)))
    rec.close()
    it = mx.image.ImageDetIter(2, (3, 6, 8), path_imgrec=str(tmp_path / "r.rec"),
                               path_imgidx=str(tmp_path / "r.idx"))
    assert it.label_shape == (2, 5)
    label = it.next().label[0].asnumpy()
    np.testing.assert_allclose(label[0], [[1, 0.1, 0.2, 0.5, 0.6], [-1] * 5], rtol=1e-6)
    np.testing.assert_allclose(label[1], np.reshape(labels[1][2:], (2, 5)), rtol=1e-6)


def test_recordio_grey_is_opencvs(d):
    record = mx.recordio.pack(mx.recordio.IRHeader(0, 1.0, 0, 0), d["jpeg"].tobytes())
    np.testing.assert_array_equal(mx.recordio.unpack_img(record, 0)[1], d["jpeg_gray"][..., 0])
    record = mx.recordio.pack(mx.recordio.IRHeader(0, 1.0, 0, 0), _png(d, 0))
    np.testing.assert_array_equal(mx.recordio.unpack_img(record, 0)[1], d["decode_gray"][..., 0])


def test_imdecode_imresize_give_np_arrays_under_np_semantics():
    # made by real MXNet 1.9.1: tests/fixtures/make_d2l_gaps.py
    with open(os.path.join(os.path.dirname(__file__), "..", "fixtures",
                           "d2l_gaps_mxnet.json")) as f:
        ref = json.load(f)
    pix = (np.arange(6 * 5 * 3).reshape(6, 5, 3) * 5 % 256).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(pix).save(buf, "PNG")
    mx.npx.set_np()
    try:
        dec = mx.image.imdecode(buf.getvalue())
        small = mx.image.imresize(dec, 3, 4)
    finally:
        mx.npx.reset_np()
    assert [f"mxnet.numpy.{type(a).__name__}" for a in (dec, small)] == ref["np_image_types"]
    assert all(type(a) is mx.np.ndarray for a in (dec, small))
    assert dec.asnumpy().tolist() == ref["np_image_decoded"]
    assert small.asnumpy().tolist() == ref["np_image_resized"]
    assert type(mx.image.imdecode(buf.getvalue())) is nd.NDArray   # legacy mode unchanged
