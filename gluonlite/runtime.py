"""MXNet's `mxnet.runtime`: which features this build has.

MXNet asks its compiled library; gluonlite answers for itself. The feature names are
MXNet's (so ``Features().is_enabled('MKLDNN')`` in existing code keeps working, and says
False), plus gluonlite's own backends: ``NUMPY`` (always), ``CUPY`` (CuPy imports and sees a
device) and ``SCIPY`` (scipy imports). ``CUDA`` is enabled exactly when ``CUPY`` is; the
compiled back ends MXNet lists (cuDNN, NCCL, TensorRT, MKLDNN, OpenCV, TVM, the CPU
instruction sets, ...) are never enabled here: gluonlite has no compiled code of its own.

Example::

    import gluonlite as mx
    mx.runtime.Features().is_enabled("NUMPY")    # True
    mx.runtime.Features().is_enabled("MKLDNN")   # False
    print(mx.runtime.Features())                 # [✖ CUDA, ✖ CUDNN, ..., ✔ NUMPY, ...]
"""
import collections
import importlib.util
from .context import num_gpus

__all__ = ["Feature", "Features", "feature_list"]

# MXNet 1.9.1's feature names, in its order; none of them is a property of a numpy core
# except the ones answered in `_enabled`.
_MXNET_FEATURES = (
    "CUDA", "CUDNN", "NCCL", "CUDA_RTC", "TENSORRT", "CPU_SSE", "CPU_SSE2", "CPU_SSE3",
    "CPU_SSE4_1", "CPU_SSE4_2", "CPU_SSE4A", "CPU_AVX", "CPU_AVX2", "OPENMP", "SSE", "F16C",
    "JEMALLOC", "BLAS_OPEN", "BLAS_ATLAS", "BLAS_MKL", "BLAS_APPLE", "LAPACK", "MKLDNN",
    "OPENCV", "CAFFE", "PROFILER", "DIST_KVSTORE", "CXX14", "INT64_TENSOR_SIZE",
    "SIGNAL_HANDLER", "DEBUG", "TVM_OP")
_OWN_FEATURES = ("NUMPY", "CUPY", "SCIPY")


class Feature:
    """One feature: its `name` and whether this build has it (`enabled`).

    Its repr is MXNet's: ``✔ NUMPY`` or ``✖ CUDA``.

    Example::

        f = mx.runtime.Features()["NUMPY"]
        f.name, f.enabled       # ('NUMPY', True)
        f                       # ✔ NUMPY
    """

    __slots__ = ("name", "enabled")

    def __init__(self, name, enabled):
        self.name = name
        self.enabled = bool(enabled)

    def __repr__(self):
        return ("✔ " if self.enabled else "✖ ") + self.name


def _enabled():
    gpus = num_gpus() > 0
    # numpy.linalg ships LAPACK routines, which `nd.linalg` uses.
    return {"CUDA": gpus, "CUPY": gpus, "NUMPY": True, "LAPACK": True,
            "SCIPY": importlib.util.find_spec("scipy") is not None}


def feature_list():
    """Every feature this build knows, enabled or not.

    Returns:
        A list of `Feature`, MXNet's names first (in MXNet's order), then gluonlite's own.

    Example::

        names = [f.name for f in mx.runtime.feature_list() if f.enabled]
        "NUMPY" in names        # True
    """
    on = _enabled()
    return [Feature(n, on.get(n, False)) for n in _MXNET_FEATURES + _OWN_FEATURES]


class Features(collections.OrderedDict):
    """The features of this build, by name (an ordered dict ``name -> Feature``).

    Like MXNet's, it is made once per process: every ``Features()`` is the same object.

    Example::

        features = mx.runtime.Features()
        features.is_enabled("cuda")      # names are case-insensitive
        features["NUMPY"].enabled        # True
    """

    instance = None

    def __new__(cls):
        if cls.instance is None:
            inst = super().__new__(cls)
            collections.OrderedDict.__init__(inst, [(f.name, f) for f in feature_list()])
            cls.instance = inst
        return cls.instance

    def __init__(self):
        # The contents are filled once in __new__; OrderedDict.__init__ would be a no-op here.
        pass

    def __repr__(self):
        return str(list(self.values()))

    def is_enabled(self, feature_name):
        """Whether feature `feature_name` (any case) is enabled.

        Raises:
            RuntimeError: an unknown feature name (as MXNet), listing the known ones.

        Example::

            mx.runtime.Features().is_enabled('numpy')   # True: names are case-insensitive
        """
        name = str(feature_name).upper()
        if name not in self:
            raise RuntimeError(f"Features.is_enabled: feature {name!r} is unknown; known "
                               f"features are: {list(self.keys())}")
        return self[name].enabled
