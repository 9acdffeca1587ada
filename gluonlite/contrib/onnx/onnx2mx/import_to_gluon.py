"""`mx.contrib.onnx.onnx2mx.import_to_gluon`: MXNet 1.9.1's module of `import_to_gluon`, which
is `gluonlite.onnx.import_to_gluon`."""
from ....onnx import import_to_gluon

__all__ = ["import_to_gluon"]
