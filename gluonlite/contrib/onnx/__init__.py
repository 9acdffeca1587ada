"""`mx.contrib.onnx`: MXNet 1.x's older path to ONNX export and import.

MXNet 1.9.1 keeps ``mx.contrib.onnx.export_model`` / ``import_model`` / ``import_to_gluon`` as
deprecated forwards to ``mx.onnx`` (InsightFace's export scripts still call them). They are
gluonlite.onnx's functions themselves; gluonlite prints no deprecation banner. `onnx2mx` keeps
MXNet's module paths of the importer (``onnx2mx.import_model.import_model``).

Example::

    from gluonlite.contrib import onnx as onnx_mxnet
    net = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
    params = {'fc_weight': nd.ones((2, 3)), 'fc_bias': nd.zeros((2,))}
    onnx_mxnet.export_model(net, params, [(1, 3)], onnx_file_path='fc.onnx')   # 'fc.onnx'
"""
from ...onnx import export_model, import_model, import_to_gluon
from . import onnx2mx  # noqa: F401

__all__ = ["export_model", "import_model", "import_to_gluon"]
