"""The modules and names added at MXNet 1.9.1's paths for downstream libraries, by behaviour."""
import ctypes
import hashlib
import importlib
import multiprocessing
import multiprocessing.pool
import os
import pickle
import re
import warnings

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd
from gluonlite.gluon import nn


# --- mx.registry -------------------------------------------------------------------------

class _Base:
    def __init__(self, size=1):
        self.size = size


def test_registry_register_create_alias_and_copy():
    from gluonlite import registry

    class Base(_Base):
        pass

    register = registry.get_register_func(Base, "thing")
    alias = registry.get_alias_func(Base, "thing")
    create = registry.get_create_func(Base, "thing")

    @register
    class Small(Base):
        pass

    @alias("tiny", "wee")
    class Tiny(Base):
        pass

    assert create("small").size == 1 and isinstance(create("SMALL", 4), Small)
    assert create("small", size=5).size == 5
    assert create(thing="wee").__class__ is Tiny
    assert create('["tiny", {"size": 3}]').size == 3
    assert create('{"thing": "small", "size": 7}').size == 7
    assert create({"thing": "small", "size": 2}).size == 2
    inst = Tiny()
    assert create(inst) is inst
    table = registry.get_registry(Base)
    assert table == {"small": Small, "tiny": Tiny, "wee": Tiny}
    table.clear()                                        # a copy
    assert "small" in registry.get_registry(Base)
    with pytest.raises(ValueError, match=r"create thing: 'big' is not registered; registered: "
                                         r"\['small', 'tiny', 'wee'\]"):
        create("big")
    with pytest.raises(TypeError, match="not a subclass of Base"):
        register(int)
    with pytest.warns(UserWarning, match="overriding existing thing"):
        @register
        class small(Base):   # noqa: N801  (same name, another class)
            pass


# --- gluon.utils, gluon.model_zoo.model_store --------------------------------------------

def test_repo_urls_follow_mxnet_gluon_repo(monkeypatch):
    from gluonlite.gluon.utils import _get_repo_file_url, _get_repo_url
    monkeypatch.delenv("MXNET_GLUON_REPO", raising=False)
    assert _get_repo_url() == "https://apache-mxnet.s3-accelerate.dualstack.amazonaws.com/"
    monkeypatch.setenv("MXNET_GLUON_REPO", "https://mirror.example/x")
    assert _get_repo_url() == "https://mirror.example/x/"
    assert _get_repo_file_url("gluon/dataset/mnist", "t.gz") == \
        "https://mirror.example/x/gluon/dataset/mnist/t.gz"


def test_model_store_uses_registered_sha1(tmp_path, monkeypatch):
    from gluonlite.gluon.model_zoo import model_store
    data = b"parameters"
    sha1 = hashlib.sha1(data).hexdigest()
    monkeypatch.setitem(model_store._model_sha1, "tinynet", sha1)
    assert model_store.short_hash("tinynet") == sha1[:8]
    path = tmp_path / f"tinynet-{sha1[:8]}.params"
    path.write_bytes(data)
    assert model_store.get_model_file("tinynet", root=str(tmp_path)) == str(path)
    path.write_bytes(b"tampered")
    with pytest.raises(ValueError, match="does not match the SHA-1"):
        model_store.get_model_file("tinynet", root=str(tmp_path))
    with pytest.raises(ValueError, match="no SHA-1 registered for model 'other'"):
        model_store.short_hash("other")
    model_store.purge(str(tmp_path))
    assert not list(tmp_path.iterdir())


# --- gluon.loss._reshape_like, gluon.block._flatten/_regroup, gluon.tensor_types ------------

def test_reshape_like_in_nd_and_sym():
    from gluonlite.gluon.loss import _reshape_like
    x, y = nd.arange(6), nd.zeros((2, 3))
    out = _reshape_like(nd, x, y)
    assert out.shape == (2, 3) and np.array_equal(out.asnumpy(), np.arange(6.).reshape(2, 3))
    s = _reshape_like(mx.sym, mx.sym.var("x"), mx.sym.var("y"))
    assert s.infer_shape(x=(6,), y=(3, 2))[1] == [(3, 2)]


def test_flatten_and_regroup_use_mxnet_formats():
    from gluonlite.gluon.block import _flatten, _regroup
    a, b, c = nd.ones((1,)), nd.zeros((2,)), nd.ones((3,))
    flat, fmt = _flatten([a, (b, None), [[c]]], "input")
    assert fmt == [0, [0, -1], [[0]]]
    assert [x is y for x, y in zip(flat, [a, b, None, c])] == [True] * 4
    out = _regroup(flat, fmt)
    assert out[0] is a and out[1][0] is b and out[1][1] is None and out[2][0][0] is c
    group = mx.sym.Group([mx.sym.var("p"), mx.sym.var("q")])
    assert _flatten(group, "output")[1] == 2
    assert _flatten(mx.sym.var("p"), "output")[1] == 0
    with pytest.raises(ValueError, match="the input of a HybridBlock must be"):
        _flatten([a, 3], "input")
    with pytest.raises(ValueError, match="the format holds None here"):
        _regroup([a], -1)


def test_tensor_types():
    assert isinstance(nd.ones((1,)), mx.gluon.tensor_types)
    assert isinstance(mx.sym.var("x"), mx.gluon.tensor_types)
    assert not isinstance(np.ones(1), mx.gluon.tensor_types)


# --- gluon.nn.activations.Activation -----------------------------------------------------

def test_activation_lives_in_activations():
    from gluonlite.gluon.nn.activations import Activation
    assert Activation is nn.Activation
    act = Activation("relu")
    assert np.array_equal(act(nd.array([-1.0, 2.0])).asnumpy(), [0.0, 2.0])
    assert repr(act) == "Activation(relu)"


# --- gluon.data.dataloader: MXNet's worker protocol ---------------------------------------

def _samples():
    return [nd.array([i, 10 * i]) for i in range(10)]


def _stack(batch):
    return nd.stack(*batch)


def test_multi_worker_iter_on_a_thread_pool():
    from gluonlite.gluon.data import BatchSampler, SequentialSampler
    from gluonlite.gluon.data.dataloader import _MultiWorkerIter, _thread_worker_fn
    pool = multiprocessing.pool.ThreadPool(2)
    try:
        it = _MultiWorkerIter(pool, _stack, BatchSampler(SequentialSampler(10), 4, "keep"),
                              worker_fn=_thread_worker_fn, prefetch=2, dataset=_samples(),
                              pin_memory=True)
        assert len(it) == 3
        batches = list(it)
    finally:
        pool.terminate()
    assert [b.shape for b in batches] == [(4, 2), (4, 2), (2, 2)]
    assert np.array_equal(batches[2].asnumpy(), [[8, 80], [9, 90]])
    assert batches[0].context == mx.cpu_pinned(0)


def test_multi_worker_iter_subclass_on_a_process_pool():
    # GluonCV's RandomTransformDataLoader: a subclass overriding _push_next, worker processes
    # holding the dataset through _worker_initializer, batches pickled by _worker_fn
    from gluonlite.gluon.data import BatchSampler, SequentialSampler
    from gluonlite.gluon.data.dataloader import (_MultiWorkerIter, _worker_fn,
                                                 _worker_initializer)

    class Counting(_MultiWorkerIter):
        pushed = 0

        def _push_next(self):
            r = next(self._iter, None)
            if r is None:
                return
            Counting.pushed += 1
            self._data_buffer[self._sent_idx] = self._worker_pool.apply_async(
                self._worker_fn, (r, self._batchify_fn, None))
            self._sent_idx += 1

    ctx = multiprocessing.get_context("fork")
    pool = ctx.Pool(2, initializer=_worker_initializer, initargs=[_samples()])
    try:
        batches = list(Counting(pool, _stack, BatchSampler(SequentialSampler(10), 5, "keep"),
                                worker_fn=_worker_fn))
    finally:
        pool.terminate()
    assert Counting.pushed == 2
    assert np.array_equal(batches[1].asnumpy()[:, 0], [5, 6, 7, 8, 9])


def test_forking_pickler_round_trips_an_ndarray():
    import io
    from gluonlite.gluon.data.dataloader import ForkingPickler
    buf = io.BytesIO()
    ForkingPickler(buf, pickle.HIGHEST_PROTOCOL).dump([nd.array([1.5, 2.5])])
    back = pickle.loads(buf.getvalue())
    assert np.array_equal(back[0].asnumpy(), [1.5, 2.5])


# --- small names ---------------------------------------------------------------------------

def test_small_names_at_mxnet_paths():
    from gluonlite.base import NDArrayHandle
    from gluonlite.contrib.amp import amp
    assert NDArrayHandle is ctypes.c_void_p
    assert amp._amp_initialized is False
    assert mx.metric.ndarray is mx.ndarray
    assert float(mx.metric.ndarray.sum(nd.array([1, 2])).asscalar()) == 3.0
    assert mx.cpu_pinned(1) == mx.context.cpu_pinned(1)
    assert mx.module.module.load_checkpoint is mx.model.load_checkpoint


def test_the_class_modules_hold_their_packages_functions_as_mxnets_do():
    # MXNet 1.9.1's ndarray/ndarray.py and symbol/symbol.py define functions beside their
    # classes; GluonTS's quantile-loss test passes nd.ndarray itself as a loss's F
    from gluonlite.ndarray.ndarray import maximum
    from gluonlite.ops.mxnet_layout import MXNET_1_9_1_CLASS_MODULES
    assert maximum is nd.maximum
    np.testing.assert_array_equal(nd.ndarray.maximum(nd.array([1.0, 5.0]), 3).asnumpy(),
                                  [3.0, 5.0])
    assert mx.sym.symbol.zeros is mx.sym.zeros and mx.sym.symbol.load_json is mx.sym.load_json
    for module, names in ((nd.ndarray, MXNET_1_9_1_CLASS_MODULES["ndarray.ndarray"]),
                          (mx.sym.symbol, MXNET_1_9_1_CLASS_MODULES["symbol.symbol"])):
        public = {n for n in names if not n.startswith("_")}
        assert public and all(hasattr(module, n) for n in public), module
    with pytest.raises(AttributeError, match=r"^mx\.nd\.ndarray\._new_empty_handle: MXNet 1\.9\.1 "
                                             r"has it; gluonlite .* does not implement it$"):
        nd.ndarray._new_empty_handle
    with pytest.raises(AttributeError, match="is not in MXNet 1.9.1 either"):
        nd.ndarray.surely_no_such_function


def test_split_input_slice_in_executor_manager():
    # MXNet 1.9.1: _split_input_slice(10, [1, 2, 2]) == [0:2, 2:6, 6:10]
    from gluonlite.executor_manager import _split_input_slice
    assert _split_input_slice(10, [1, 2, 2]) == [slice(0, 2), slice(2, 6), slice(6, 10)]
    with pytest.raises(ValueError, match="leaves a context no sample"):
        _split_input_slice(1, [1, 1])


def test_library_load_refuses_with_the_file_named(tmp_path):
    from gluonlite.base import MXNetError
    with pytest.raises(MXNetError, match="does not exist"):
        mx.library.load(str(tmp_path / "nothing.so"))
    lib = tmp_path / "libintgemm.so"
    lib.write_bytes(b"")
    with pytest.raises(NotImplementedError, match=r"libintgemm\.so.*MXNet 1\.9\.1 can"):
        mx.library.load(str(lib))


def test_contrib_onnx_symbol_and_ndarray_modules():
    from gluonlite import onnx
    from gluonlite.contrib import onnx as contrib_onnx
    assert contrib_onnx.export_model is onnx.export_model
    assert contrib_onnx.import_model is onnx.import_model
    assert importlib.import_module("gluonlite.contrib.symbol") is mx.sym.contrib
    assert importlib.import_module("gluonlite.contrib.ndarray") is mx.nd.contrib


# --- gluon.contrib.cnn -----------------------------------------------------------------------

def test_deformable_convolution_parameters_match_mxnet():
    # MXNet 1.9.1 (compat/README.md): DeformableConvolution(8, 3, padding=1, in_channels=4)
    # has offset_weight (18, 4, 3, 3), offset_bias (18,), deformable_conv_weight (8, 0, 3, 3)
    # until shape inference, deformable_conv_bias (8,); the modulated one (27 offset
    # channels) lists its main weight first.
    from gluonlite.gluon.contrib.cnn import (DeformableConvolution,
                                            ModulatedDeformableConvolution)
    # a fresh name manager: the counters start at 0 whatever other tests made before
    with mx.name.NameManager():
        d = DeformableConvolution(8, kernel_size=3, padding=1, in_channels=4)
        m = ModulatedDeformableConvolution(8, kernel_size=3, padding=1, in_channels=4,
                                           use_bias=False)
    assert {k: v.shape for k, v in d.collect_params().items()} == {
        "deformable_conv0_offset_weight": (18, 4, 3, 3),
        "deformable_conv0_offset_bias": (18,),
        "deformable_conv0_deformable_conv_weight": (8, 4, 3, 3),
        "deformable_conv0_deformable_conv_bias": (8,)}
    assert [(k, v.shape) for k, v in m.collect_params().items()] == [
        ("modulated_deformable_conv0_deformable_conv_weight", (8, 4, 3, 3)),
        ("modulated_deformable_conv0_offset_weight", (27, 4, 3, 3)),
        ("modulated_deformable_conv0_offset_bias", (27,))]
    assert repr(d) == ("DeformableConvolution(4 -> 8, kernel_size=(3, 3), stride=(1, 1), "
                       "padding=(1, 1))")
    with pytest.raises(ValueError, match="layout='NCW' is not supported"):
        DeformableConvolution(8, layout="NCW")


# --- operators MXNet has and gluonlite lacks ----------------------------------------------------

@pytest.mark.parametrize("namespace, spelled", [
    # MXNet's internal backward operators are left out on purpose (api_exclusions.txt)
    (nd.contrib, "mx.nd.contrib"),
    (mx.sym.contrib, "mx.sym.contrib")])
def test_missing_operator_names_mxnet(namespace, spelled):
    with pytest.raises(AttributeError, match=rf"^{spelled}\.backward_hawkesll: MXNet 1\.9\.1 has "
                                             r"it; gluonlite .* does not implement it$"):
        namespace.backward_hawkesll
    with pytest.raises(AttributeError, match=r"is not in MXNet 1\.9\.1 either"):
        getattr(namespace, "surely_no_such_operator")
    assert getattr(namespace, "surely_no_such_operator", None) is None


def test_missing_module_of_a_namespace_is_named_as_mxnet_has_it():
    # every module MXNet has directly under nd and sym is here now (gen_op was the last);
    # MXNet's nd.numpy._op (its generated NumPy operators) is not
    from gluonlite.ops.missing_names import missing_attribute
    err = missing_attribute("ndarray.numpy", "_op")
    assert re.match(r"^mx\.nd\.numpy\._op: MXNet 1\.9\.1 has this module; gluonlite .* does "
                    r"not implement it$", str(err))
    assert nd.gen_op.Convolution is nd.Convolution and mx.sym.gen_op.relu is mx.sym.relu


def test_no_warning_on_import_of_added_modules():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for name in ("registry", "library", "executor_manager", "contrib.onnx",
                     "gluon.contrib.cnn", "gluon.data.worker_iter", "gluon.block_formats"):
            importlib.import_module(f"gluonlite.{name}")
    assert os.path.basename(mx.registry.__file__) == "registry.py"


def test_rnd_log_and_libinfo(tmp_path):
    import logging
    assert mx.rnd is mx.random
    log_file = tmp_path / "train.log"
    logger = mx.log.get_logger("compat_test_logger", filename=str(log_file), level=logging.INFO)
    logger.info("epoch %d", 3)
    logger.debug("not shown")
    line = log_file.read_text().strip()
    assert line.startswith("I") and line.endswith("] epoch 3")
    assert "test_rnd_log_and_libinfo" in line
    assert "not shown" not in log_file.read_text()
    with pytest.warns(DeprecationWarning, match="getLogger is deprecated"):
        assert mx.log.getLogger("compat_test_logger") is logger
    assert mx.libinfo.__version__ == "1.9.1"
    with pytest.raises(RuntimeError, match="no libmxnet library"):
        mx.libinfo.find_lib_path()


def test_parameter_ctx_list_and_map_follow_the_data():
    # GluonNLP's WeightDropParameter copies _data, _grad, _ctx_list and _ctx_map across
    p = mx.gluon.Parameter("w", shape=(2,))
    assert p._ctx_list is None and p._ctx_map == []
    p.initialize(ctx=[mx.cpu(0), mx.cpu(1)])
    assert p._ctx_list == [mx.cpu(0), mx.cpu(1)]
    assert p._ctx_map == [[], [0, 1]]          # device_typeid 1 (cpu): ids 0 and 1
    q = mx.gluon.Parameter("w", shape=(2,))
    q._data, q._grad = p._data, p._grad
    q._ctx_list, q._ctx_map = p._ctx_list, p._ctx_map
    assert q.list_ctx() == [mx.cpu(0), mx.cpu(1)]
    assert np.array_equal(q.data(mx.cpu(1)).asnumpy(), p.data(mx.cpu(1)).asnumpy())
    with pytest.raises(ValueError, match="_ctx_list follows the data's contexts"):
        q._ctx_list = [mx.cpu(3)]
    d = mx.gluon.Parameter("d", shape=(0, 3), allow_deferred_init=True)
    d.initialize(ctx=mx.cpu(0))
    assert d._ctx_list == [mx.cpu(0)]


class _TwoOut(mx.gluon.HybridBlock):
    def hybrid_forward(self, F, x, y):
        return x + 1, [x * y, y]


def test_in_and_out_format_as_mxnet_writes_them(tmp_path):
    # MXNet 1.9.1 gives [0, 0] and [0, [0, 0]] for this block (GluonTS saves them beside an
    # exported model and sets them on the SymbolBlock it imports)
    b = _TwoOut()
    b.initialize()
    b.hybridize()
    x, y = nd.array([1.0, 2.0]), nd.array([3.0, 4.0])
    b(x, y)
    assert b._in_format == [0, 0] and b._out_format == [0, [0, 0]]
    b.export(str(tmp_path / "two"))
    # no parameters: GluonTS passes no parameter file then
    sb = mx.gluon.SymbolBlock.imports(str(tmp_path / "two-symbol.json"), ["data0", "data1"])
    sb._in_format, sb._out_format = [0, 0], [0, [0, 0]]
    a, (p, q) = sb(x, y)
    assert np.array_equal(p.asnumpy(), [3.0, 8.0]) and np.array_equal(q.asnumpy(), [3.0, 4.0])
    sb2 = mx.gluon.SymbolBlock.imports(str(tmp_path / "two-symbol.json"), ["data0", "data1"])
    assert len(sb2(x, y)) == 3        # flat without the saved format, as on MXNet
