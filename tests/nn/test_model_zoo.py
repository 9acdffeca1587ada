"""gluon.model_zoo.vision: every model has MXNet 1.9.1's parameter names and shapes (held
against tests/fixtures/mxnet/model_zoo_params.json, made by make_model_zoo_params.py), small
ones run forward, and pretrained weights load from a local folder or fail naming the file."""
import hashlib
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd
from gluonlite.gluon.model_zoo import vision

_FILE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "mxnet",
                     "model_zoo_params.json")
_WANT = json.load(open(_FILE))


def _lines(net):
    """As the fixture writes them: the model's own prefix (counted per process) as '*_'."""
    n = len(net.prefix)
    assert all(k.startswith(net.prefix) for k in net.collect_params().keys())
    return [f"*_{k[n:]} {tuple(p.shape)}" for k, p in net.collect_params().items()]


@pytest.mark.parametrize("name", sorted(_WANT))
def test_parameter_names_and_shapes_are_mxnets(name):
    net = vision.get_model(name)
    got = _lines(net)
    want = _WANT[name]
    assert net.prefix.rstrip("_0123456789") == want["prefix"]
    if "params" in want:
        assert got == want["params"]
    assert len(got) == want["count"]
    assert hashlib.sha1("\n".join(got).encode()).hexdigest() == want["sha1"]


def test_every_mxnet_model_name_is_known():
    assert set(_WANT) <= set(vision._MODELS)


@pytest.mark.parametrize("build,shape,classes", [
    (lambda: vision.resnet18_v1(classes=7, thumbnail=True), (2, 3, 16, 16), 7),
    (lambda: vision.resnet50_v2(classes=5, thumbnail=True), (1, 3, 8, 8), 5),
    (lambda: vision.mobilenet_v2_0_25(classes=6), (1, 3, 32, 32), 6),
    (lambda: vision.mobilenet0_25(classes=4), (1, 3, 32, 32), 4),
])
def test_small_models_run_forward_hybridized_as_imperative(build, shape, classes):
    mx.random.seed(0)
    net = build()
    net.initialize(mx.init.Xavier())
    x = nd.array(np.random.RandomState(0).uniform(-1, 1, shape))
    y = net(x)
    assert y.shape == (shape[0], classes)
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), y.asnumpy(), rtol=1e-4, atol=1e-5)


def test_pretrained_loads_the_file_from_root(tmp_path):
    net = vision.mobilenet0_25(classes=3)
    net.initialize(mx.init.Xavier())
    x = nd.array(np.random.RandomState(1).uniform(-1, 1, (1, 3, 32, 32)))
    y = net(x)
    net.save_parameters(str(tmp_path / "mobilenet0.25.params"))
    again = vision.get_model("mobilenet0.25", classes=3, pretrained=True, root=str(tmp_path))
    np.testing.assert_allclose(again(x).asnumpy(), y.asnumpy(), rtol=1e-6)


def test_pretrained_without_the_file_names_it_and_where_to_put_it(tmp_path):
    with pytest.raises(FileNotFoundError) as e:
        vision.resnet18_v1(pretrained=True, root=str(tmp_path))
    msg = str(e.value)
    assert str(tmp_path / "resnet18_v1.params") in msg and "does not download" in msg


def test_unknown_model_and_depth():
    with pytest.raises(ValueError, match="model 'resnet19_v1' is not supported"):
        vision.get_model("resnet19_v1")
    with pytest.raises(ValueError, match="num_layers=19 is not supported"):
        vision.get_resnet(1, 19)
    with pytest.raises(ValueError, match="version=3 is not supported"):
        vision.get_resnet(3, 18)
