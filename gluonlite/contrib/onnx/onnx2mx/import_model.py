"""`mx.contrib.onnx.onnx2mx.import_model`: MXNet 1.9.1's module of `import_model`, which is
`gluonlite.onnx.import_model`."""
from ....onnx import import_model

__all__ = ["import_model"]
