"""MXNet 1.9.1's module paths that re-export gluonlite's objects (``mxnet.error``,
``mxnet.kvstore.base``, ``mxnet.ndarray.gen_op``, ``mxnet.contrib.amp.loss_scaler``, ...):
each imports through the companion's `mxnet` alias with MXNet's public names, and each name is
the object gluonlite's namespaces give; the modules of optional packages (mxboard, pandas,
bokeh) import without them and name the package when used."""
import importlib
import json
import logging
import os
import subprocess
import sys
import textwrap
import types

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd
from gluonlite.ops import registry

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMPANION = os.path.join(ROOT, "mxnet-companion")

# MXNet 1.9.1's public names of each module (its __all__, else the names users import)
PATHS = {
    "error": ["MXNetError", "register", "register_error", "InternalError"],
    "kvstore": ["KVStore", "KVStoreBase", "KVStoreServer", "create", "base", "kvstore",
                "kvstore_server"],
    "kvstore.base": ["create", "KVStoreBase", "TestStore"],
    "kvstore.kvstore": ["KVStore", "KVStoreBase"],
    "kvstore.kvstore_server": ["KVStoreServer"],
    "io.utils": ["_init_data", "_has_instance", "_getdata_by_idx", "_slice_along_batch_axis"],
    "ndarray.utils": ["zeros", "empty", "array", "load", "load_frombuffer", "save"],
    "ndarray.op": ["CachedOp", "Convolution", "FullyConnected", "relu", "clip"],
    "symbol.op": ["Convolution", "FullyConnected", "relu", "clip"],
    "contrib.amp.loss_scaler": ["LossScaler"],
    "misc": ["LearningRateScheduler", "FactorScheduler"],
    "contrib.tensorboard": ["LogMetricsCallback"],
    "notebook": [],
    "notebook.callback": ["PandasLogger", "LiveBokehChart", "LiveTimeSeries",
                          "LiveLearningCurve", "args_wrapper"],
    "numpy.function_base": ["meshgrid", "broadcast_arrays"],
    "numpy.stride_tricks": ["broadcast_arrays"],
    "contrib.onnx.onnx2mx": ["import_model", "import_to_gluon"],
    "contrib.onnx.onnx2mx.import_model": ["import_model"],
    "contrib.onnx.onnx2mx.import_to_gluon": ["import_to_gluon"],
}
GEN = {"op": ("Convolution", "relu"), "contrib": ("box_nms", "ROIAlign"),
       "linalg": ("gemm2", "potrf"), "random": ("uniform", "pdf_normal"),
       "image": ("to_tensor", "normalize"), "sparse": ("dot", "retain"),
       "_internal": ("_plus_scalar", "_slice_assign")}
for _side in ("ndarray", "symbol"):
    for _m, _names in GEN.items():
        PATHS[f"{_side}.gen_{_m}"] = list(_names)


def test_every_path_imports_through_the_mxnet_alias_with_mxnets_names():
    # a child interpreter: this process keeps no `mxnet` module (see test_companion.py); the
    # optional packages are made unimportable there, and nothing imports them
    code = f"""
        import importlib, json, sys
        for package in ("pandas", "bokeh", "mxboard"):
            sys.modules[package] = None
        sys.path[:0] = {[COMPANION, ROOT]!r}
        import mxnet
        out = {{"same": [], "missing": [], "extra": {{}}}}
        for path, names in {PATHS!r}.items():
            mod = importlib.import_module("mxnet." + path)
            if mod is not importlib.import_module("gluonlite." + path):
                out["same"].append(path)
            out["missing"] += [path + "." + n for n in names if not hasattr(mod, n)]
        from mxnet.ndarray.gen_op import Convolution
        from mxnet.symbol.gen_contrib import box_nms
        from mxnet.contrib.onnx.onnx2mx.import_model import import_model
        out["from_import"] = [Convolution is mxnet.nd.Convolution,
                              box_nms is mxnet.sym.contrib.box_nms,
                              import_model is mxnet.onnx.import_model]
        out["attrs"] = [mxnet.nd.op is mxnet.ndarray.op, mxnet.sym.gen_op is mxnet.symbol.gen_op,
                        mxnet.error.MXNetError is mxnet.MXNetError,
                        mxnet.contrib.tensorboard.LogMetricsCallback.__name__,
                        mxnet.notebook.callback.PandasLogger.__name__]
        try:
            import mxnet.contrib.onnx.onnx2mx.import_onnx
        except ImportError as e:
            out["still_missing"] = str(e)
        print(json.dumps(out))
    """
    r = subprocess.run([sys.executable, "-W", "error", "-c", textwrap.dedent(code)],
                       capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert got["same"] == [] and got["missing"] == []
    assert got["from_import"] == [True, True, True]
    assert got["attrs"] == [True, True, True, "LogMetricsCallback", "PandasLogger"]
    assert "MXNet 1.9.1 has it" in got["still_missing"]


# --- the names are gluonlite's objects -----------------------------------------------------

def test_error_module():
    from gluonlite import error
    assert error.MXNetError is mx.MXNetError and error.register is mx.base.register_error
    assert error.__all__ == ["MXNetError", "register"]
    assert mx.base.error_types["InternalError"] is error.InternalError
    err = error.InternalError("plan lost output 3")
    assert isinstance(err, mx.MXNetError)
    first, hint = str(err).splitlines()
    assert first == "plan lost output 3" and hint.startswith("gluonlite hint: ")
    assert str(error.InternalError("x\nother hint: y")) == "x\nother hint: y"


def test_kvstore_modules_split_as_mxnets():
    from gluonlite.kvstore import base, kvstore, kvstore_server
    assert base.KVStoreBase is mx.kv.KVStoreBase and base.create is mx.kv.create
    assert base.TestStore is mx.kv.TestStore and kvstore.KVStore is mx.kv.KVStore
    assert kvstore_server.KVStoreServer is mx.kv.KVStoreServer
    assert base.__all__ == ["create", "KVStoreBase"] and kvstore.__all__ == ["KVStore"]
    kv = base.create("device")
    assert type(kv) is kvstore.KVStore and kv.type == "device"
    assert type(base.create("teststore")) is base.TestStore
    with pytest.raises(ValueError, match="unknown kvstore type 'nope'; known: local, device"):
        base.create("nope")


def test_io_utils():
    from gluonlite.io import utils
    assert mx.io._init_data is utils._init_data
    data = utils._init_data([np.arange(4.0), np.arange(4.0) * 10], False, "data")
    assert [k for k, _ in data] == ["_0_data", "_1_data"]
    assert utils._has_instance(data, nd.NDArray)
    assert not utils._has_instance(data, nd.sparse.CSRNDArray)
    shuffled = utils._getdata_by_idx(data, np.array([3, 0, 2, 1]))
    assert shuffled[1][1].asnumpy().tolist() == [30.0, 0.0, 20.0, 10.0]
    csr = nd.sparse.csr_matrix(np.eye(3, dtype=np.float32))
    (name, rows), = utils._getdata_by_idx([("x", csr)], np.array([2, 0, 1]))
    assert rows.stype == "csr" and rows.asnumpy()[0].tolist() == [0.0, 0.0, 1.0]
    part = utils._slice_along_batch_axis(nd.arange(6).reshape((2, 3)), slice(1, 3), 1)
    assert part.asnumpy().tolist() == [[1.0, 2.0], [4.0, 5.0]]


def test_ndarray_utils_and_op():
    from gluonlite.ndarray import op, utils
    for name in utils.__all__:
        assert getattr(utils, name) is getattr(nd, name)
    assert op.CachedOp is nd.CachedOp
    assert op.__all__[0] == "CachedOp" and sorted(op.__all__[1:]) == nd.gen_op.__all__
    assert all(getattr(op, n) is getattr(nd.gen_op, n) for n in nd.gen_op.__all__)
    assert mx.sym.op.__all__ == mx.sym.gen_op.__all__


@pytest.mark.parametrize("side", ["ndarray", "symbol"])
@pytest.mark.parametrize("module", sorted(GEN))
def test_generated_module_holds_the_namespaces_functions(side, module):
    top = importlib.import_module(f"gluonlite.{side}")
    gen = importlib.import_module(f"gluonlite.{side}.gen_{module}")
    namespace = top if module == "op" else getattr(top, module)
    assert gen.__all__ and gen.__all__ == sorted(gen.__all__)
    for name in gen.__all__:
        f = getattr(gen, name)
        assert callable(f), name
        if getattr(namespace, name, None) is not None:
            assert f is getattr(namespace, name), f"{side}.gen_{module}.{name}"
    for name in GEN[module]:
        assert name in gen.__all__
    # MXNet's rule: the prefixed operators by their short names, the other underscore
    # names in gen__internal, the rest in gen_op; none of MXNet's NumPy operators
    prefix = {"op": "", "_internal": ""}.get(module, f"_{module}_")
    short = {n[len(prefix):] for n in registry.names() if n.startswith(prefix)
             and not n.startswith(("_np_", "_npi_", "_npx_"))
             and n[len(prefix):] in gen.__all__}
    if module == "op":
        assert set(gen.__all__) == {n for n in registry.names() if not n.startswith("_")}
    elif module != "_internal":
        assert short and short <= set(gen.__all__)
    assert not any(n.startswith(("_np_", "_npi_", "_npx_")) for n in gen.__all__)


def test_generated_modules_where_the_namespace_lacks_or_wraps_a_name():
    # nd.random.uniform is a front end (NDArray low/high too); pdf_normal is only an operator
    assert nd.gen_random.uniform is nd.random.uniform
    assert nd.gen_random.pdf_normal is nd._internal._random_pdf_normal
    assert mx.sym.gen_random.pdf_normal is mx.sym._internal._random_pdf_normal
    assert nd.gen_sparse.dot is nd.sparse.dot and nd.gen_sparse.retain is nd.sparse.retain
    assert nd.gen__internal._plus_scalar is nd._internal._plus_scalar
    x = nd.gen_op.Convolution(nd.ones((1, 1, 3, 3)), nd.ones((1, 1, 2, 2)), kernel=(2, 2),
                              num_filter=1, no_bias=True)
    assert x.asnumpy().ravel().tolist() == [4.0] * 4


def test_numpy_function_base_and_stride_tricks():
    from gluonlite.numpy import function_base, stride_tricks
    assert function_base.meshgrid is mx.np.meshgrid
    assert stride_tricks.broadcast_arrays is mx.np.broadcast_arrays
    assert function_base.__all__ == ["meshgrid"] and stride_tricks.__all__ == ["broadcast_arrays"]


def test_contrib_onnx_onnx2mx_reexports():
    from gluonlite.contrib.onnx import onnx2mx
    assert onnx2mx.import_model.import_model is mx.onnx.import_model
    assert onnx2mx.import_to_gluon.import_to_gluon is mx.onnx.import_to_gluon


# --- AMP's loss scaler (no lists) ------------------------------------------------------------

def test_amp_lists_stay_out():
    # gluonlite has no AMP, so not MXNet's lists of operators for it either
    with pytest.raises(ModuleNotFoundError, match="contrib.amp.lists"):
        importlib.import_module("gluonlite.contrib.amp.lists")


def test_loss_scaler_schedule():
    from gluonlite.contrib.amp.loss_scaler import LossScaler
    assert mx.contrib.amp.loss_scaler.LossScaler is LossScaler
    s = LossScaler()
    w = gluon.Parameter("w", shape=(2,))
    w.initialize()
    frozen = gluon.Parameter("f", shape=(2,), grad_req="null")
    frozen.initialize()
    assert s.loss_scale == 2.0 ** 16 and s.has_overflow([w, frozen]) is False
    w.grad()[:] = np.nan
    with autograd.record():          # the check is not recorded
        assert s.has_overflow([w]) is True
    assert s.loss_scale == 2.0 ** 16     # the scale of this step; the next one halves
    w.grad()[:] = 1.0
    assert s.has_overflow([w]) is False and s.loss_scale == 2.0 ** 15
    for _ in range(1999):
        s.has_overflow([])
    assert s.loss_scale == 2.0 ** 15
    s.has_overflow([])
    assert s.loss_scale == 2.0 ** 16     # doubled after 2000 steps without overflow
    s._loss_scale = s._next_loss_scale = 2.0 ** 24
    for _ in range(2001):
        s.has_overflow([])
    assert s.loss_scale == 2.0 ** 24     # the ceiling


# --- mx.misc ---------------------------------------------------------------------------------

def test_misc_factor_scheduler(caplog):
    from gluonlite import misc
    sched = misc.FactorScheduler(step=10, factor=0.5)
    assert isinstance(sched, misc.LearningRateScheduler) and sched.base_lr == 0.01
    sched.base_lr = 1.0                  # set after construction, as MXNet's users do
    with caplog.at_level(logging.INFO):
        assert [sched(i) for i in (0, 9, 10, 19, 35)] == [1.0, 1.0, 0.5, 0.5, 0.125]
    assert [r.getMessage() for r in caplog.records] == [
        "FactorScheduler: learning rate 0.50000 from iteration 10",
        "FactorScheduler: learning rate 0.12500 from iteration 35"]
    assert not isinstance(sched, mx.lr_scheduler.LRScheduler)
    with pytest.raises(ValueError, match="step must be at least 1 iteration, got 0"):
        misc.FactorScheduler(step=0)
    with pytest.raises(ValueError, match="factor must be below 1 for the rate to fall, got 1.0"):
        misc.FactorScheduler(step=1, factor=1.0)
    with pytest.raises(NotImplementedError, match="a subclass defines __call__"):
        misc.LearningRateScheduler()(0)


# --- optional packages: imported when used, named when missing ------------------------------

def _param(metric, epoch=2, nbatch=4):
    return mx.model.BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=metric, locals=None)


def _accuracy():
    m = mx.metric.Accuracy()
    m.update([nd.array([1, 0])], [nd.array([[0.1, 0.9], [0.2, 0.8]])])
    return m


def test_tensorboard_names_mxboard_when_missing(monkeypatch, tmp_path):
    from gluonlite.contrib import tensorboard
    monkeypatch.setitem(sys.modules, "mxboard", None)
    with pytest.raises(ImportError, match="LogMetricsCallback needs the mxboard package"):
        tensorboard.LogMetricsCallback(str(tmp_path))


def test_tensorboard_writes_each_metric(monkeypatch, tmp_path):
    from gluonlite.contrib import tensorboard
    written = []

    class SummaryWriter:
        def __init__(self, logdir):
            self.logdir = logdir

        def add_scalar(self, name, value, global_step):
            written.append((name, value, global_step))

    monkeypatch.setitem(sys.modules, "mxboard", types.SimpleNamespace(SummaryWriter=SummaryWriter))
    cb = tensorboard.LogMetricsCallback(str(tmp_path), prefix="train")
    assert cb.summary_writer.logdir == str(tmp_path)
    cb(_param(_accuracy(), epoch=3))
    cb(_param(None))
    assert written == [("train-accuracy", 0.5, 3)]


def test_notebook_names_pandas_and_bokeh_when_missing(monkeypatch):
    from gluonlite.notebook import callback
    monkeypatch.setitem(sys.modules, "pandas", None)
    monkeypatch.setitem(sys.modules, "bokeh", None)
    with pytest.raises(ImportError, match=r"PandasLogger needs the pandas package; pip install"):
        callback.PandasLogger(batch_size=8)
    for cls, args in ((callback.LiveLearningCurve, ("accuracy",)),
                      (callback.LiveTimeSeries, ()), (callback.LiveBokehChart, (None, None))):
        with pytest.raises(ImportError, match=rf"{cls.__name__} needs the bokeh package"):
            cls(*args)
    monkeypatch.setitem(sys.modules, "bokeh", types.ModuleType("bokeh"))
    with pytest.raises(NotImplementedError, match="does not draw MXNet's live bokeh charts"):
        callback.LiveLearningCurve("accuracy")


def _fake_pandas():
    pd = types.ModuleType("pandas")
    pd.DataFrame = lambda rows: [dict(r) for r in rows]
    return pd


def test_pandas_logger_records_rows(monkeypatch):
    from gluonlite.notebook import callback
    monkeypatch.setitem(sys.modules, "pandas", _fake_pandas())
    logger = callback.PandasLogger(batch_size=8, frequent=2)
    metric = _accuracy()
    logger.train_cb(_param(metric, nbatch=1))            # not a multiple of frequent
    logger.train_cb(_param(metric, nbatch=2))
    logger.eval_cb(_param(None, nbatch=5))
    logger.epoch_cb(2, None, {}, {})                     # Module.fit's epoch-end arguments
    train, = logger.train_df
    assert train["accuracy"] == 0.5 and train["minibatch_count"] == 2 and train["epoch"] == 2
    assert train["records_per_sec"] == pytest.approx(train["batches_per_sec"] * 8)
    assert metric.get()[1] != metric.get()[1]           # reset after the row: nan
    assert set(logger.eval_df[0]) == {"batches_per_sec", "records_per_sec", "elapsed",
                                      "minibatch_count", "epoch"}
    assert set(logger.epoch_df[0]) == {"elapsed", "epoch_time"}
    assert sorted(logger.all_dataframes) == ["epoch", "eval", "train"]
    with pytest.raises(ValueError, match=r"df_name must be one of \['epoch', 'eval', 'train'\]"):
        logger.append_metrics({}, "test")
    args = logger.callback_args()
    assert args == {"batch_end_callback": logger.train_cb, "eval_end_callback": logger.eval_cb,
                    "epoch_end_callback": logger.epoch_cb}
    assert callback.args_wrapper(logger, logger) == {k: [v, v] for k, v in args.items()}


def test_pandas_logger_with_pandas():
    pd = pytest.importorskip("pandas")
    from gluonlite.notebook import callback
    logger = callback.PandasLogger(batch_size=4, frequent=1)
    logger.append_metrics({"accuracy": 0.5}, "eval")
    logger.append_metrics({"accuracy": 0.75, "loss": 0.1}, "eval")
    df = logger.eval_df
    assert isinstance(df, pd.DataFrame) and list(df.columns) == ["accuracy", "loss"]
    assert df["accuracy"].tolist() == [0.5, 0.75] and np.isnan(df["loss"][0])
