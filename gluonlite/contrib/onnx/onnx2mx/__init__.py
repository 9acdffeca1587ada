"""`mx.contrib.onnx.onnx2mx`: MXNet 1.9.1's package of its ONNX importer, kept for the import
paths ``onnx2mx.import_model.import_model`` and ``onnx2mx.import_to_gluon.import_to_gluon``:
gluonlite.onnx's functions. MXNet's converter classes (``import_onnx.GraphProto``) are not
provided."""
from . import import_model, import_to_gluon  # noqa: F401
