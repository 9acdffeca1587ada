"""The rest of `mx.test_utils`: `from gluonlite.test_utils import *` brings what MXNet's
brings, consistency checks between bindings and between imperative and hybridized runs,
optimizer comparison, generated test matrices, environment helpers and the sparse test-data
helpers."""
import math
import operator
import sys

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym
from gluonlite import test_utils as tu


def test_star_import_brings_modules_and_every_public_name():
    ns = {}
    exec("from gluonlite.test_utils import *", ns)
    for n in ("sys", "os", "np", "mx", "time", "json", "npt", "rnd", "OrderedDict", "Context",
              "current_context", "Symbol", "array", "Features", "assert_almost_equal",
              "check_consistency", "rand_ndarray", "default_context", "environment", "use_np",
              "getenv"):
        assert n in ns, n
    assert ns["np"] is np and ns["mx"] is mx and ns["sys"] is sys
    assert tu.ss.norm.cdf(0) == 0.5


def test_check_consistency_across_dtypes_on_cpu():
    x = sym.var("x")
    y = sym.FullyConnected(sym.tanh(x), num_hidden=3, name="fc")
    ctx_list = [{"ctx": mx.cpu(), "x": (2, 4), "type_dict": {"x": np.float64}},
                {"ctx": mx.cpu(), "x": (2, 4), "type_dict": {"x": np.float32}}]
    gt = tu.check_consistency(y, ctx_list)
    assert sorted(gt) == ["fc_bias", "fc_output", "fc_weight", "x"]
    assert gt["fc_output"].dtype == np.float64


def test_check_consistency_reports_a_mismatch():
    x = sym.var("x")
    ctx_list = [{"ctx": mx.cpu(), "x": (3,), "type_dict": {"x": np.float64}},
                {"ctx": mx.cpu(), "x": (3,), "type_dict": {"x": np.float32}}]
    with pytest.raises(AssertionError):
        tu.check_consistency([sym.exp(x, name="y"), sym.sin(x, name="y")], ctx_list,
                             grad_req="null")
    with pytest.raises(ValueError, match="at least two bindings"):
        tu.check_consistency(sym.exp(x), ctx_list[:1])


def test_check_speed_returns_seconds_per_run():
    t = tu.check_speed(sym.relu(sym.var("x")), x=(4, 4), N=2, typ="forward")
    assert 0 <= t < 1
    with pytest.raises(ValueError, match="typ must be 'whole' or 'forward'"):
        tu.check_speed(sym.relu(sym.var("x")), x=(4, 4), typ="both")


def test_check_gluon_hybridize_consistency_with_a_numpy_reference():
    from gluonlite.gluon import nn

    def build(prefix):
        net = nn.HybridSequential(prefix=prefix)
        with net.name_scope():
            net.add(nn.Activation("tanh"))
        return net
    tu.check_gluon_hybridize_consistency(build, [nd.array([[0.5, -1.0]])], numpy_func=np.tanh)


def test_compare_optimizer_same_optimizers_agree():
    opt = mx.optimizer.create("sgd", learning_rate=0.1, momentum=0.9)
    tu.compare_optimizer(opt, mx.optimizer.create("sgd", learning_rate=0.1, momentum=0.9),
                         (3, 4), "float32")
    # sparse arrays go to the second optimizer, their dense copies to the first
    tu.compare_optimizer(mx.optimizer.create("sgd", learning_rate=0.1, momentum=0.9),
                         mx.optimizer.create("sgd", learning_rate=0.1, momentum=0.9),
                         (3, 4), "float32", w_stype="row_sparse", g_stype="row_sparse")


def test_assign_each_and_generated_matrices():
    np.testing.assert_array_equal(tu.assign_each(np.array([1.0, 4.0]), math.sqrt), [1, 2])
    np.testing.assert_array_equal(tu.assign_each2(np.ones(2), np.ones(2), operator.add), [2, 2])
    with pytest.raises(ValueError, match="the inputs must have one shape"):
        tu.assign_each2(np.ones(2), np.ones(3), operator.add)
    np.testing.assert_array_equal(tu.create_2d_tensor(2, 3).asnumpy(), [[0] * 3, [1] * 3])
    assert tu.create_vector(4).dtype == np.int64
    assert tu.get_identity_mat_batch(3).shape == (2, 3, 3)
    q = tu.new_orthonormal_matrix_2d(4)
    np.testing.assert_allclose(q @ q.T, np.eye(4), atol=1e-10)
    m = tu.new_sym_matrix_with_real_eigvals_nd((2, 3, 3))
    np.testing.assert_allclose(m, np.swapaxes(m, -1, -2), atol=1e-10)
    e = np.linalg.eigvals(tu.new_matrix_with_real_eigvals_2d(3))
    assert np.allclose(e.imag, 0) and np.all(np.abs(e.real) <= 10 + 1e-6)


def test_environment_helpers(monkeypatch):
    tu.setenv("GLUONLITE_T", "1")
    assert tu.getenv("GLUONLITE_T") == "1"
    tu.setenv("GLUONLITE_T", None)
    assert tu.getenv("GLUONLITE_T") is None
    monkeypatch.setenv("CD_JOB", "1")
    assert tu.is_cd_run()
    assert tu.has_tvm_ops() is False and tu.is_op_runnable() is True
    with pytest.raises(ValueError, match="expected a gpu context"):
        tu.get_cuda_compute_capability(mx.cpu())


def test_sparse_helpers_make_sparse_arrays_and_mx_np_refuses():
    arr, (data, indptr, indices) = tu.rand_sparse_ndarray((3, 4), "csr", density=0.5)
    dense = np.zeros((3, 4), np.float32)
    for r in range(3):
        dense[r, indices[indptr[r]:indptr[r + 1]]] = data[indptr[r]:indptr[r + 1]]
    np.testing.assert_array_equal(arr.asnumpy(), dense)
    r = tu.create_sparse_array((5, 2), "row_sparse", rsp_indices=[4, 1], data_init=2.0)
    np.testing.assert_array_equal(r.indices.asnumpy(), [1, 4])
    assert (r.asnumpy()[[1, 4]] == 2).all() and (r.asnumpy()[[0, 2, 3]] == 0).all()

    @tu.use_np
    def uses_numpy_interface():
        return 1
    with pytest.raises(NotImplementedError, match="mx.np"):
        uses_numpy_interface()


def test_location_error_and_dummy_iter():
    a, b = np.array([1.0, 2.0]), np.array([1.0, 3.0])
    assert tu.locationError(a, b, (1,), ("a", "b")) == \
        "Location of error: (1,), a=2.00000000, b=3.00000000"
    it = tu.DummyIter(iter([1, 2]))
    assert next(it) == 1 and it.next() == 1


def test_shuffle_csr_column_indices_permutes_each_rows_indices_in_place():
    from gluonlite.test_utils import shuffle_csr_column_indices
    dense = np.arange(1, 25, dtype=np.float32).reshape(4, 6)
    dense[1] = 0                                    # an empty row stays empty
    csr = mx.nd.array(dense).tostype("csr")
    indptr = csr.indptr.asnumpy()
    before = csr.indices.asnumpy()
    np.random.seed(3)
    shuffle_csr_column_indices(csr)
    after = csr.indices.asnumpy()
    assert (csr.indptr.asnumpy() == indptr).all()
    assert (csr.data.asnumpy() == dense[dense != 0]).all()     # the values stay in place
    assert not (after == before).all()
    for r in range(4):
        row = slice(indptr[r], indptr[r + 1])
        assert sorted(after[row]) == sorted(before[row])
        # each value now sits at its shuffled column, as MXNet's helper leaves it
        expected = np.zeros(6, np.float32)
        expected[after[row]] = dense[r][before[row]]
        assert (csr.asnumpy()[r] == expected).all()
    with pytest.raises(TypeError, match="csr must be a CSRNDArray"):
        shuffle_csr_column_indices(mx.nd.array(dense))
