"""gluon.data.vision, mx.recordio and nd.image against MXNet 1.9.1 (fixtures in
tests/fixtures/data/, made by tests/fixtures/make_{vision,image_ops,recordio}.py), and the
datasets read from tiny files written here in MXNet's formats."""
import gzip
import hashlib
import os
import struct

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import gluon
from gluonlite.gluon.data.vision import transforms as T

FIX = os.path.join(os.path.dirname(__file__), "..", "fixtures", "data")


def test_transforms_match_mxnet():
    d = np.load(os.path.join(FIX, "mx_vision.npz"))
    x = mx.nd.array(d["img"])
    got = {"to_tensor": T.ToTensor()(x),
           "normalize": T.Normalize((0.1, 0.2, 0.3), (0.4, 0.5, 0.6))(T.ToTensor()(x)),
           "resize": T.Resize((8, 6))(x), "resize_keep": T.Resize(6, keep_ratio=True)(x),
           "center_crop": T.CenterCrop((10, 8))(x), "center_crop_up": T.CenterCrop(20)(x),
           "crop_resize": T.CropResize(2, 3, 8, 6, size=(4, 3), interpolation=1)(x),
           "cast": T.Cast("float16")(x),
           "compose": T.Compose([T.Resize(8), T.ToTensor(), T.Normalize(0.5, 0.25)])(x)}
    for name, value in got.items():
        assert value.dtype == d[name].dtype, name
        np.testing.assert_allclose(value.asnumpy(), d[name], rtol=1e-5, atol=2e-4,
                                   err_msg=name)


def test_image_operators_match_mxnet():
    d = np.load(os.path.join(FIX, "mx_image_ops.npz"))
    x, xf = mx.nd.array(d["img"], dtype="uint8"), mx.nd.array(d["imgf"])
    im = mx.nd.image
    t = im.to_tensor(xf)
    got = {"to_tensor": im.to_tensor(x), "to_tensor_batch": im.to_tensor(mx.nd.stack(x, x)),
           "normalize": im.normalize(t, mean=(0.1, 0.2, 0.3), std=(0.5, 0.6, 0.7)),
           "normalize_1": im.normalize(t, mean=0.5, std=0.25),
           "flip_left_right": im.flip_left_right(x), "flip_top_bottom": im.flip_top_bottom(x),
           "crop": im.crop(x, 1, 2, 4, 3)}
    for name, arr in (("u8", x), ("f32", xf)):
        got[f"resize_up_{name}"] = im.resize(arr, size=(11, 9))
        got[f"resize_down_{name}"] = im.resize(arr, size=(5, 4))
        got[f"resize_nearest_{name}"] = im.resize(arr, size=(5, 4), interp=0)
        got[f"resize_keep_{name}"] = im.resize(arr, size=4, keep_ratio=True)
        got[f"brightness_{name}"] = im.random_brightness(arr, 1.3, 1.3)
        got[f"contrast_{name}"] = im.random_contrast(arr, 0.6, 0.6)
        got[f"saturation_{name}"] = im.random_saturation(arr, 0.7, 0.7)
        got[f"hue_{name}"] = im.random_hue(arr, 0.2, 0.2)
        got[f"lighting_{name}"] = im.adjust_lighting(arr, alpha=(0.1, -0.2, 0.3))
    for name, value in got.items():
        want = d[name]
        assert value.dtype == want.dtype, name
        if want.dtype == np.uint8:
            # OpenCV's fixed-point bilinear and float rounding in the hue round trip differ
            # by at most one grey level
            tol = 1 if name.startswith(("resize_up", "resize_down", "resize_keep", "hue")) \
                else 0
            diff = np.abs(value.asnumpy().astype(int) - want.astype(int))
            assert diff.max() <= tol, name
        else:
            np.testing.assert_allclose(value.asnumpy(), want, rtol=1e-5, atol=2e-4,
                                       err_msg=name)


def test_random_transforms_keep_shape_and_are_seeded():
    img = mx.nd.array(np.random.RandomState(0).randint(0, 256, (10, 12, 3)), dtype="uint8")
    t = T.Compose([T.RandomFlipLeftRight(), T.RandomFlipTopBottom(),
                   T.RandomColorJitter(0.3, 0.3, 0.3, 0.1), T.RandomLighting(0.1),
                   T.RandomBrightness(0.2), T.RandomContrast(0.2), T.RandomSaturation(0.2),
                   T.RandomHue(0.1)])
    mx.random.seed(3)
    a = t(img).asnumpy()
    mx.random.seed(3)
    b = t(img).asnumpy()
    assert a.shape == (10, 12, 3) and a.dtype == np.uint8
    np.testing.assert_array_equal(a, b)
    crop = T.RandomResizedCrop((6, 4))(img)
    assert crop.shape == (4, 6, 3)
    with pytest.raises(TypeError, match="transforms.Rotate: only float32"):
        T.Rotate(30)(img)
    with pytest.raises(TypeError, match="HybridCompose: every transform must be a HybridBlock"):
        T.HybridCompose([T.CenterCrop(3)])


def test_recordio_reads_and_writes_mxnet_files_byte_for_byte(tmp_path):
    magic = struct.pack("<I", 0xced7230a)
    payloads = [b"", b"a", b"abcd", b"abcde", magic, b"xy" + magic + b"z",
                b"abcd" + magic + b"efgh" + magic, magic + magic + b"q"]
    rec = mx.recordio.MXIndexedRecordIO(os.path.join(FIX, "mx_records.idx"),
                                        os.path.join(FIX, "mx_records.rec"), "r")
    for i, want in enumerate(payloads):
        header, payload = mx.recordio.unpack(rec.read_idx(i))
        assert payload == want and header.label == float(i) and header.id == i
    header, payload = mx.recordio.unpack(rec.read_idx(8))
    assert payload == b"arraylabel" and header.flag == 2 and header.id2 == 1
    np.testing.assert_array_equal(header.label, [1.5, 2.5])
    w = mx.recordio.MXIndexedRecordIO(str(tmp_path / "g.idx"), str(tmp_path / "g.rec"), "w")
    for i, p in enumerate(payloads):
        w.write_idx(i, mx.recordio.pack(mx.recordio.IRHeader(0, float(i), i, 0), p))
    w.write_idx(8, mx.recordio.pack(mx.recordio.IRHeader(0, [1.5, 2.5], 9, 1), b"arraylabel"))
    w.close()
    for ext in ("rec", "idx"):
        assert (tmp_path / f"g.{ext}").read_bytes() == \
            open(os.path.join(FIX, f"mx_records.{ext}"), "rb").read()
    seq = mx.recordio.MXRecordIO(str(tmp_path / "g.rec"), "r")
    assert [seq.read() is not None for _ in range(9)] == [True] * 9 and seq.read() is None
    with pytest.raises(ValueError, match="flag must be 'r' or 'w'"):
        mx.recordio.MXRecordIO(str(tmp_path / "g.rec"), "a")


def _write_image_rec(tmp_path, n=5):
    rng = np.random.RandomState(0)
    images = [rng.randint(0, 256, (4 + i, 6, 3)).astype(np.uint8) for i in range(n)]
    w = mx.recordio.MXIndexedRecordIO(str(tmp_path / "im.idx"), str(tmp_path / "im.rec"), "w")
    for i, img in enumerate(images):
        # pack_img takes OpenCV's BGR order, as MXNet's
        w.write_idx(i, mx.recordio.pack_img((0, float(i), i, 0), img[:, :, ::-1],
                                            img_fmt=".png"))
    w.close()
    return images


def test_image_record_dataset_with_workers(tmp_path):
    images = _write_image_rec(tmp_path)
    header, bgr = mx.recordio.unpack_img(mx.recordio.MXIndexedRecordIO(
        str(tmp_path / "im.idx"), str(tmp_path / "im.rec"), "r").read_idx(2))
    np.testing.assert_array_equal(bgr[:, :, ::-1], images[2])
    ds = gluon.data.vision.ImageRecordDataset(str(tmp_path / "im.rec"))
    assert len(ds) == 5
    img, label = ds[3]
    np.testing.assert_array_equal(img.asnumpy(), images[3])
    assert label == 3.0 and img.dtype == np.uint8
    loader = gluon.data.DataLoader(ds.transform_first(T.ToTensor()), batch_size=1,
                                   num_workers=2)
    for i, (x, y) in enumerate(loader):
        assert x.shape == (1, 3, 4 + i, 6) and y.asscalar() == i
    gray = gluon.data.vision.ImageRecordDataset(str(tmp_path / "im.rec"), flag=0)[0][0]
    assert gray.shape == (4, 6, 1)


def test_image_folder_dataset(tmp_path):
    from PIL import Image
    for cls in ("cat", "dog"):
        (tmp_path / cls).mkdir()
        for i in range(2):
            Image.fromarray(np.full((3, 4, 3), i * 50, np.uint8)).save(tmp_path / cls / f"{i}.png")
    (tmp_path / "dog" / "notes.txt").write_text("x")
    with pytest.warns(UserWarning, match="ignoring .*notes.txt"):
        ds = gluon.data.vision.ImageFolderDataset(str(tmp_path))
    assert ds.synsets == ["cat", "dog"] and len(ds) == 4
    img, label = ds[3]
    assert label == 1 and img.shape == (3, 4, 3) and int(img.asnumpy()[0, 0, 0]) == 50


def _idx_gz(path, arr):
    head = struct.pack(">BBBB", 0, 0, 8, arr.ndim) + struct.pack(">" + "I" * arr.ndim,
                                                                  *arr.shape)
    with gzip.open(path, "wb") as f:
        f.write(head + arr.astype(np.uint8).tobytes())


def test_mnist_and_cifar_from_files(tmp_path):
    images = np.arange(3 * 28 * 28).reshape(3, 28, 28) % 256
    _idx_gz(tmp_path / "t10k-images-idx3-ubyte.gz", images)
    _idx_gz(tmp_path / "t10k-labels-idx1-ubyte.gz", np.array([7, 2, 1]))
    ds = gluon.data.vision.MNIST(root=str(tmp_path), train=False)
    img, label = ds[1]
    assert len(ds) == 3 and img.shape == (28, 28, 1) and label == 2
    np.testing.assert_array_equal(img.asnumpy()[:, :, 0], images[1])
    with pytest.raises(FileNotFoundError, match="train-images-idx3-ubyte.gz' not found; "
                                                "gluonlite does not download"):
        gluon.data.vision.FashionMNIST(root=str(tmp_path))
    folder = tmp_path / "cifar-100-binary"
    folder.mkdir()
    rows = np.zeros((2, 2 + 3072), np.uint8)
    rows[:, 0], rows[:, 1] = [3, 4], [30, 40]
    rows[1, 2:] = np.arange(3072) % 256
    rows.tofile(folder / "test.bin")
    coarse = gluon.data.vision.CIFAR100(root=str(tmp_path), train=False)
    fine = gluon.data.vision.CIFAR100(root=str(tmp_path), train=False, fine_label=True)
    assert coarse[1][1] == 4 and fine[1][1] == 40
    np.testing.assert_array_equal(fine[1][0].asnumpy(),
                                  (np.arange(3072) % 256).reshape(3, 32, 32).transpose(1, 2, 0))
    with pytest.raises(FileNotFoundError, match="data_batch_1.bin"):
        gluon.data.vision.CIFAR10(root=str(tmp_path))


def test_download_is_offline_and_check_sha1(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"fetch http://x.org/a.tar.gz by hand and "
                                                r"place it at .*a.tar.gz"):
        gluon.utils.download("http://x.org/a.tar.gz", path=str(tmp_path))
    (tmp_path / "a.tar.gz").write_bytes(b"abc")
    sha = hashlib.sha1(b"abc").hexdigest()
    assert gluon.utils.check_sha1(str(tmp_path / "a.tar.gz"), sha)
    assert gluon.utils.download("http://x.org/a.tar.gz", path=str(tmp_path),
                                sha1_hash=sha) == str(tmp_path / "a.tar.gz")
    with pytest.raises(ValueError, match="does not match the SHA-1"):
        gluon.utils.download("http://x.org/a.tar.gz", path=str(tmp_path), sha1_hash="0" * 40)


def test_small_gluon_utils(tmp_path):
    assert gluon.utils.shape_is_known((2, 3)) and not gluon.utils.shape_is_known((2, 0))
    assert not gluon.utils.shape_is_known(None) and not gluon.utils.shape_is_known(())
    assert gluon.utils.is_np_array() is False and gluon.utils.is_np_shape() is False
    (tmp_path / "a").write_text("new")
    (tmp_path / "b").write_text("old")
    gluon.utils.replace_file(str(tmp_path / "a"), str(tmp_path / "b"))
    assert (tmp_path / "b").read_text() == "new" and not (tmp_path / "a").exists()


def test_vision_loads_on_first_attribute_access():
    import subprocess
    import sys
    code = "import gluonlite as mx; print(mx.gluon.data.vision.MNIST.__name__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)), timeout=60)
    assert out.stdout.strip() == "MNIST", out.stderr[-2000:]


def test_image_operators_in_a_symbol_graph():
    x = mx.sym.var("x")
    y = mx.sym.image.normalize(mx.sym.image.to_tensor(x), mean=(0.1, 0.2, 0.3), std=0.5)
    y = mx.sym.load_json(y.tojson())
    img = np.random.RandomState(0).uniform(0, 255, (4, 5, 3)).astype(np.float32)
    out = y.eval(x=mx.nd.array(img))[0].asnumpy()
    want = (img.transpose(2, 0, 1) / 255.0 - np.array([0.1, 0.2, 0.3])[:, None, None]) / 0.5
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)
    net = T.HybridCompose([T.ToTensor(), T.Normalize((0.1, 0.2, 0.3), 0.5)])
    net.hybridize()
    np.testing.assert_allclose(net(mx.nd.array(img)).asnumpy(), want, rtol=1e-5, atol=1e-6)


def test_record_file_dataset_in_worker_processes_reads_its_own_file(tmp_path):
    # forked workers share the parent's file offset unless each reopens the file
    payloads = [bytes([i]) * (1000 + 37 * i) for i in range(40)]
    w = mx.recordio.MXIndexedRecordIO(str(tmp_path / "r.idx"), str(tmp_path / "r.rec"), "w")
    for i, p in enumerate(payloads):
        w.write_idx(i, p)
    w.close()
    ds = gluon.data.RecordFileDataset(str(tmp_path / "r.rec"))
    assert ds[5] == payloads[5]  # the parent has read (and positioned) the file first
    loader = gluon.data.DataLoader(ds, batch_size=4, num_workers=3,
                                   batchify_fn=lambda records: records)
    assert [r for batch in loader for r in batch] == payloads
    writer = mx.recordio.MXRecordIO(str(tmp_path / "w.rec"), "w")
    pid = os.fork()
    if pid == 0:  # the child must not write through the parent's writer
        try:
            writer.write(b"x")
        except RuntimeError:
            os._exit(0)
        os._exit(1)
    assert os.waitpid(pid, 0)[1] == 0


def test_record_file_dataset_on_worker_threads(tmp_path):
    payloads = [bytes([i]) * (500 + 61 * i) for i in range(60)]
    w = mx.recordio.MXIndexedRecordIO(str(tmp_path / "t.idx"), str(tmp_path / "t.rec"), "w")
    for i, p in enumerate(payloads):
        w.write_idx(i, p)
    w.close()
    ds = gluon.data.RecordFileDataset(str(tmp_path / "t.rec"))
    loader = gluon.data.DataLoader(ds, batch_size=1, num_workers=4, thread_pool=True,
                                   batchify_fn=lambda records: records)
    for _ in range(3):
        assert [r for batch in loader for r in batch] == payloads
