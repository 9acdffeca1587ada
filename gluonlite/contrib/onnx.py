"""`mx.contrib.onnx`: MXNet 1.x's older path to ONNX export and import.

MXNet 1.9.1 keeps ``mx.contrib.onnx.export_model`` / ``import_model`` / ``import_to_gluon`` as
deprecated forwards to ``mx.onnx`` (InsightFace's export scripts still call them). They are
gluonlite.onnx's functions themselves; gluonlite prints no deprecation banner.

Example::

    from mxnet.contrib import onnx as onnx_mxnet
    onnx_mxnet.export_model(sym, params, [(1, 3, 112, 112)], onnx_file_path="r100.onnx")
"""
from ..onnx import export_model, import_model, import_to_gluon

__all__ = ["export_model", "import_model", "import_to_gluon"]
