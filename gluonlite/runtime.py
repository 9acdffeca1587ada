"""`mx.runtime`: which features this build has (MXNet's `Features`), with MXNet's feature names.

MXNet's list describes its compiled native library. gluonlite has none: it runs on numpy (and
CuPy for GPUs), so a feature is enabled when gluonlite can use it that way: ``CUDA`` when
CuPy sees a GPU, ``BLAS_OPEN``/``BLAS_MKL``/``BLAS_APPLE`` after numpy's BLAS, ``LAPACK``
(numpy.linalg), ``OPENCV`` when cv2 is installed, ``INT64_TENSOR_SIZE`` (numpy indexes
with 64 bits). Compiler flags of a native library (``CPU_SSE``, ``F16C``, ``JEMALLOC``...),
cuDNN, NCCL, TensorRT, MKL-DNN, TVM, the profiler and the distributed kvstore are disabled.

Example::

    features = mx.runtime.Features()
    features.is_enabled('CUDA')       # False without CuPy and a GPU
    print(features)                   # [✖ CUDA, ✖ CUDNN, ...]
"""
import collections
import importlib.util

from .util import check_call  # noqa: F401  (MXNet's runtime module exposes it)

__all__ = ["Feature", "Features", "feature_list", "check_call"]

_NAMES = ("CUDA", "CUDNN", "NCCL", "CUDA_RTC", "TENSORRT", "CPU_SSE", "CPU_SSE2", "CPU_SSE3",
          "CPU_SSE4_1", "CPU_SSE4_2", "CPU_SSE4A", "CPU_AVX", "CPU_AVX2", "OPENMP", "SSE",
          "F16C", "JEMALLOC", "BLAS_OPEN", "BLAS_ATLAS", "BLAS_MKL", "BLAS_APPLE", "LAPACK",
          "MKLDNN", "OPENCV", "CAFFE", "PROFILER", "DIST_KVSTORE", "CXX14", "INT64_TENSOR_SIZE",
          "SIGNAL_HANDLER", "DEBUG", "TVM_OP")


class Feature:
    """One feature: its `name` and whether it is `enabled`.

    Example: ``repr(Feature('CUDA', False)) == '✖ CUDA'``.
    """

    def __init__(self, name, enabled):
        self._name, self._enabled = name, bool(enabled)

    @property
    def name(self):
        """The feature's name ('CUDA')."""
        return self._name

    @property
    def enabled(self):
        """Whether this build has the feature."""
        return self._enabled

    def __repr__(self):
        return f"{'✔' if self._enabled else '✖'} {self._name}"


def _blas_name():
    import numpy as np
    try:
        cfg = np.show_config(mode="dicts")
        return str(cfg["Build Dependencies"]["blas"]["name"]).lower()
    except Exception:  # noqa: BLE001  (older numpy: no dict form; the BLAS stays unknown)
        return ""


def _enabled():
    from .context import num_gpus
    blas = _blas_name()
    return {
        "CUDA": num_gpus() > 0,
        "BLAS_OPEN": "openblas" in blas,
        "BLAS_MKL": "mkl" in blas,
        "BLAS_APPLE": "accelerate" in blas,
        "LAPACK": True,
        "OPENCV": importlib.util.find_spec("cv2") is not None,
        "INT64_TENSOR_SIZE": True,
    }


def feature_list():
    """Every feature of MXNet's list, each a `Feature` saying whether gluonlite has it."""
    on = _enabled()
    return [Feature(n, on.get(n, False)) for n in _NAMES]


class Features(collections.OrderedDict):
    """An ordered dict name -> `Feature` of this build (one shared instance).

    Example: ``mx.runtime.Features().is_enabled('LAPACK')`` is True.
    """

    instance = None

    def __new__(cls):
        if cls.instance is None:
            cls.instance = super().__new__(cls)
            collections.OrderedDict.__init__(cls.instance, [(f.name, f) for f in feature_list()])
        return cls.instance

    def __init__(self):
        pass  # filled once, in __new__

    def __repr__(self):
        return str(list(self.values()))

    def is_enabled(self, feature_name):
        """Whether the feature named `feature_name` (any case) is enabled.

        Raises:
            RuntimeError: an unknown feature name (the known ones are listed).
        """
        name = feature_name.upper()
        if name not in self:
            raise RuntimeError(f"Feature {name!r} is unknown, known features are: "
                               f"{list(self.keys())}")
        return self[name].enabled
