"""`nd.linalg` / `sym.linalg` against MXNet 1.9.1: outputs and gradients on fixed inputs
(fixtures/make_linalg.py wrote MXNet's), shapes of single matrices, and the errors."""

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd, sym

from fixture_makers import maker, reference

make_linalg = maker("make_linalg")
_REF = reference("linalg_mxnet.npz")


@pytest.mark.parametrize("k", range(len(make_linalg.cases())))
def test_outputs_and_gradients_match_mxnet(k):
    name, ins, attrs = make_linalg.cases()[k]
    outs, grads = make_linalg.run(mx, name, ins, attrs)
    for i, o in enumerate(outs):
        np.testing.assert_allclose(o, _REF[f"{k}_out{i}"], rtol=1e-7, atol=1e-9,
                                   err_msg=f"{name}{attrs} output {i}")
    for i, g in enumerate(grads):
        np.testing.assert_allclose(g, _REF[f"{k}_grad{i}"], rtol=1e-7, atol=1e-9,
                                   err_msg=f"{name}{attrs} gradient of input {i}")


def test_names_in_every_namespace():
    a = nd.array([[2.0, 1.0], [1.0, 3.0]])
    for f in (nd.linalg.det, nd.linalg_det, nd._linalg_det):
        assert f(a).shape == (1,)
        assert abs(f(a).asscalar() - 5.0) < 1e-5
    s = sym.linalg.gemm2(sym.var("a"), sym.var("b"), transpose_b=True)
    _, out, _ = s.infer_shape(a=(4, 2, 3), b=(4, 5, 3))
    assert out == [(4, 2, 5)]
    assert '"transpose_b": "True"' in s.tojson()
    assert sorted(mx.nd.linalg.__all__) == sorted(
        "gemm gemm2 potrf potri trmm trsm syrk gelqf syevd inverse det slogdet sumlogdiag "
        "extractdiag makediag extracttrian maketrian".split())


def test_slogdet_and_syevd_give_two_outputs_in_graphs():
    x = sym.var("x")
    sign, logdet = sym.linalg.slogdet(x)
    ex = mx.sym.Group([sign, logdet]).bind(mx.cpu(), {"x": nd.array([[-2.0, 0], [0, 3.0]])})
    s, ld = ex.forward()
    assert s.asscalar() == -1.0
    assert abs(ld.asscalar() - np.log(6.0)) < 1e-6


def test_errors_name_the_operator_and_the_input():
    with pytest.raises(ValueError, match=r"_linalg_potrf: input A must hold square matrices, "
                                         r"got shape \(3, 4\)"):
        nd.linalg.potrf(nd.ones((3, 4)))
    with pytest.raises(ValueError, match="_linalg_potrf: input A is not symmetric positive "
                                         "definite"):
        nd.linalg.potrf(-nd.array(np.eye(3)))
    with pytest.raises(ValueError, match=r"_linalg_gemm2: op\(A\) is 2x3 and op\(B\) is 4x5"):
        nd.linalg.gemm2(nd.ones((2, 3)), nd.ones((4, 5)))
    with pytest.raises(ValueError, match="_linalg_gelqf: input A must have no more rows than "
                                         "columns"):
        nd.linalg.gelqf(nd.ones((3, 2)))
    with pytest.raises(ValueError, match="must be a triangular number"):
        nd.linalg.maketrian(nd.ones((4,)))


def test_upper_cholesky_factor_and_its_inverse_as_mxnet():
    # numbers from MXNet 1.9.1: potrf/potri with lower=False and their gradients
    a = nd.array([[4.0, 2.0], [2.0, 3.0]], dtype="float64")
    a.attach_grad()
    w = nd.array([[1, 2], [3, 4.0]], dtype="float64")
    with mx.autograd.record():
        u = nd.linalg.potrf(a, lower=False)
        (u * w).sum().backward()
    np.testing.assert_allclose(u.asnumpy(), [[2, 1], [0, np.sqrt(2)]], rtol=1e-12)
    np.testing.assert_allclose(a.grad.asnumpy(), [[0.35355339, -0.20710678],
                                                  [-0.20710678, 1.41421356]], rtol=1e-7)
    b = nd.array([[2.0, 1.0], [0.0, 3.0]], dtype="float64")
    b.attach_grad()
    with mx.autograd.record():
        p = nd.linalg.potri(b, lower=False)
        (p * w).sum().backward()
    np.testing.assert_allclose(p.asnumpy(), [[0.27777778, -0.05555556],
                                             [-0.05555556, 0.11111111]], rtol=1e-6)
    np.testing.assert_allclose(b.grad.asnumpy(), [[-0.13888889, -0.22222222],
                                                  [0, -0.12962963]], rtol=1e-6)
