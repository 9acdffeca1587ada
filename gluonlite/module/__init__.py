"""`gluonlite.module` (also `mx.mod`): MXNet 1.x's symbolic modules: `Module` (one bound
Symbol), `BucketingModule` (one Module per bucket key, parameters shared),
`SequentialModule` (modules chained), `PythonModule` / `PythonLossModule` (computation in
Python), all trained by `BaseModule.fit`."""
from .base_module import BaseModule
from .bucketing_module import BucketingModule
from .module import Module
from .python_module import PythonLossModule, PythonModule
from .sequential_module import SequentialModule

__all__ = ["BaseModule", "Module", "BucketingModule", "SequentialModule", "PythonModule",
           "PythonLossModule"]
