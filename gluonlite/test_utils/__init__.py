"""Testing helpers with MXNet 1.x's names and behaviour: array comparison with tolerances by
dtype (`assert_almost_equal`), symbol checks against expected values and finite differences
(`check_symbolic_forward`, `check_symbolic_backward`, `check_numeric_gradient`), random test
data, checks of random generators, numpy references, and the test run's surroundings
(`default_context`, `environment`).

There is deliberately no ``__all__``: as with MXNet's module, ``from gluonlite.test_utils
import *`` brings every public name, ``mx`` (the gluonlite package) and ``np`` included, which
MXNet's own test files rely on.

Example::

    from gluonlite.test_utils import assert_almost_equal
    x = nd.array([1.0, 2.0]); x.attach_grad()
    with autograd.record():
        y = (x * x).sum()
    y.backward()
    assert_almost_equal(x.grad, 2 * x, names=("x.grad", "2x"))
"""
# MXNet's test_utils imports these at module level, and its test files use them through
# ``from mxnet.test_utils import *``.
import bz2  # noqa: F401
import errno  # noqa: F401
import gzip  # noqa: F401
import json  # noqa: F401
import logging  # noqa: F401
import numbers  # noqa: F401
import os  # noqa: F401
import platform  # noqa: F401
import struct  # noqa: F401
import sys  # noqa: F401
import time  # noqa: F401
import traceback  # noqa: F401
import zipfile  # noqa: F401
from collections import OrderedDict  # noqa: F401
from contextlib import contextmanager  # noqa: F401

import numpy as np
import numpy.random as rnd  # noqa: F401
import numpy.testing as npt  # noqa: F401

import gluonlite as mx
from ..context import Context, current_context  # noqa: F401
from ..ndarray import array  # noqa: F401
from ..ndarray.ndarray import _STORAGE_TYPE_STR_TO_ID  # noqa: F401
from ..runtime import Features  # noqa: F401
from ..symbol import Symbol  # noqa: F401
from ..numpy._symbol import _Symbol as np_symbol  # noqa: F401  (the numpy symbol class)

from .tolerances import (default_dtype, default_rtols, default_atols, default_numeric_eps,
                         effective_dtype, get_tolerance, get_tols, get_rtol, get_atol, get_etol)
from .comparison import (same, same_array, almost_equal, assert_almost_equal, assert_allclose,
                         assert_almost_equal_with_err, assert_almost_equal_ignore_nan,
                         assert_exception, checkShapes, compare_ndarray_tuple,
                         same_symbol_structure)
from .arrays import (random_arrays, random_uniform_arrays, random_sample, rand_ndarray,
                     rand_shape_2d, rand_shape_3d, rand_shape_nd, rand_coord_2d)
from .runtime import (default_context, set_default_context, list_gpus, environment,
                      discard_stderr, retry)
from .symbolic import (simple_forward, numeric_grad, finite_difference, check_numeric_gradient,
                       check_symbolic_forward, check_symbolic_backward)
from .references import np_reduce, collapse_sum_like
from .optimizers import compare_optimizer
from .distributions import (gen_buckets_probs_with_ppf, mean_check, var_check, chi_square_check,
                            verify_generator)
from ._generators import (assign_each, assign_each2, create_2d_tensor, create_vector,
                         get_identity_mat, get_identity_mat_batch,
                         new_matrix_with_real_eigvals_2d, new_matrix_with_real_eigvals_nd,
                         new_orthonormal_matrix_2d, new_sym_matrix_with_real_eigvals_2d,
                         new_sym_matrix_with_real_eigvals_nd)
from ._consistency import (check_consistency, check_speed, check_gluon_hybridize_consistency,
                          DummyIter, locationError)
from ._envinfo import (getenv, setenv, use_np, is_cd_run, is_aarch64_run, has_tvm_ops,
                          is_op_runnable, get_cuda_compute_capability, rand_sparse_ndarray,
                          create_sparse_array, create_sparse_array_zd,
                          shuffle_csr_column_indices)
from ._downloads import (download, download_model, get_mnist, get_mnist_pkl, get_mnist_ubyte,
                   get_cifar10, get_mnist_iterator, get_zip_data, get_bz2_data,
                   get_im2rec_path)

def __getattr__(name):
    # MXNet's module has scipy.stats as `ss`; imported on first use here, as it takes seconds
    # and `import gluonlite` imports this module.
    if name == "ss":
        import scipy.stats
        return scipy.stats
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
