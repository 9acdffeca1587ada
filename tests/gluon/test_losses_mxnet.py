"""The losses MXNet 1.9.1 added beyond L1/L2/CE/BCE, and CTC, against MXNet-made numbers
(tests/fixtures/loss_op_expectations.json, made by make_loss_op_expectations.py); CTC's
gradient against MXNet's and, through the registry walk, finite differences."""
import json
import os

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import autograd, gluon, nd

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "..", "fixtures", "loss_op_expectations.json")) as f:
    FX = json.load(f)

P, L, S = nd.array(FX["pred"]), nd.array(FX["label"]), nd.array(FX["sign"])
B, W, POS = nd.array(FX["binary"]), nd.array(FX["sample_weight"]), nd.array(FX["pos"])
loss = gluon.loss

CASES = {
    "HuberLoss": lambda: loss.HuberLoss(rho=0.7)(P, L, W),
    "HingeLoss": lambda: loss.HingeLoss(margin=0.5)(P, S),
    "SquaredHingeLoss": lambda: loss.SquaredHingeLoss()(P, S, W),
    "LogisticLoss_signed": lambda: loss.LogisticLoss()(P, S),
    "LogisticLoss_binary": lambda: loss.LogisticLoss(label_format="binary", weight=0.3)(P, B),
    "TripletLoss": lambda: loss.TripletLoss(margin=0.4)(P, L, POS),
    "PoissonNLLLoss": lambda: loss.PoissonNLLLoss()(P, POS),
    "PoissonNLLLoss_full": lambda: loss.PoissonNLLLoss(from_logits=False, compute_full=True)(
        POS, POS * 2),
    "CosineEmbeddingLoss": lambda: loss.CosineEmbeddingLoss(margin=0.1)(
        P, L, nd.array([1, -1, 1, -1])),
    "KLDivLoss": lambda: loss.KLDivLoss()(nd.array(FX["logp"]), nd.array(FX["prob"])),
    "KLDivLoss_logits": lambda: loss.KLDivLoss(from_logits=False, weight=2.0)(
        P, nd.array(FX["prob"]), W),
    "SDMLLoss": lambda: loss.SDMLLoss()(P, L),
    "L1Loss_batch_axis1": lambda: loss.L1Loss(batch_axis=1)(P, L),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_loss_matches_mxnet(name):
    got = CASES[name]().asnumpy()
    want = np.asarray(FX["losses"][name])
    assert got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["HuberLoss", "HingeLoss", "LogisticLoss_signed",
                                  "TripletLoss", "CosineEmbeddingLoss"])
def test_hybridized_loss_gives_the_same_numbers(name):
    blocks = {"HuberLoss": (loss.HuberLoss(rho=0.7), (P, L, W)),
              "HingeLoss": (loss.HingeLoss(margin=0.5), (P, S)),
              "LogisticLoss_signed": (loss.LogisticLoss(), (P, S)),
              "TripletLoss": (loss.TripletLoss(margin=0.4), (P, L, POS)),
              "CosineEmbeddingLoss": (loss.CosineEmbeddingLoss(margin=0.1),
                                      (P, L, nd.array([1, -1, 1, -1])))}
    block, args = blocks[name]
    block.hybridize()
    np.testing.assert_allclose(block(*args).asnumpy(), FX["losses"][name], rtol=1e-5,
                               atol=1e-6)


def test_ctc_loss_and_gradient_match_mxnet():
    c = FX["ctc"]
    d = nd.array(c["data"])
    d.attach_grad()
    with autograd.record():
        out = loss.CTCLoss(layout="TNC")(d, nd.array(c["label"]))
    out.backward()
    np.testing.assert_allclose(out.asnumpy(), c["loss"], rtol=1e-5)
    np.testing.assert_allclose(d.grad.asnumpy(), c["grad"], rtol=1e-4, atol=1e-6)
    d2 = nd.array(np.asarray(c["data"]).transpose(1, 0, 2))
    got = loss.CTCLoss()(d2, nd.array(c["label"]), nd.array([6, 4]), nd.array([2, 1]))
    np.testing.assert_allclose(got.asnumpy(), c["loss_lengths"], rtol=1e-5)


def test_ctc_loss_blank_first_single_frame_closed_form():
    # one frame, label [1]: the only path emits class 1, so loss = -log softmax(x)[1]
    x = np.array([[[0.3, 1.2, -0.4]]])
    got = nd.CTCLoss(nd.array(x), nd.array([[1]])).asnumpy()
    p = np.exp(x[0, 0]) / np.exp(x[0, 0]).sum()
    np.testing.assert_allclose(got, [-np.log(p[1])], rtol=1e-6)


def test_bad_loss_options_are_refused():
    with pytest.raises(ValueError, match="CTCLoss: layout must be 'NTC' or 'TNC'"):
        loss.CTCLoss(layout="NCT")
    with pytest.raises(ValueError, match="label_format must be 'signed' or 'binary'"):
        loss.LogisticLoss(label_format="pm1")
    with pytest.raises(ValueError, match="CTCLoss: labels must be class indices"):
        nd.CTCLoss(nd.ones((2, 1, 3)), nd.array([[5]]))


def test_sdml_refuses_to_hybridize():
    block = loss.SDMLLoss()
    block.hybridize()
    with pytest.raises(NotImplementedError, match="imperatively only"):
        block(P, L)
    assert mx.gluon.loss.SDMLLoss()(P, L).shape == (4,)
