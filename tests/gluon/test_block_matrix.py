"""Every block: imperative vs hybridized vs hybridized(static_alloc), values and gradients."""
import numpy as np
import pytest

from gluonlite import gluon
from gluonlite.gluon import nn, rnn
from helpers import check_block

R = np.random.RandomState(0)


def _x(*shape):
    return R.uniform(-1, 1, shape).astype(np.float32)


def _seq():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(5, activation="relu"), nn.Dropout(0.0), nn.Dense(3, flatten=False))
    return net


class _Cell(gluon.HybridBlock):
    """Runs a cell one step and returns output and states."""

    def __init__(self, cell, **kw):
        super().__init__(**kw)
        self.cell = cell

    def hybrid_forward(self, F, x, states):
        return self.cell(x, states)


CASES = {
    "dense": (lambda: nn.Dense(4, in_units=0), [_x(3, 2, 3)]),
    "dense_nobias": (lambda: nn.Dense(4, use_bias=False, flatten=False), [_x(3, 2, 3)]),
    "activation": (lambda: nn.Activation("tanh"), [_x(3, 4)]),
    "dropout_zero": (lambda: nn.Dropout(0.0), [_x(3, 4)]),
    "flatten": (lambda: nn.Flatten(), [_x(2, 3, 4)]),
    "batchnorm": (lambda: nn.BatchNorm(), [_x(4, 3, 2)]),
    "layernorm": (lambda: nn.LayerNorm(), [_x(4, 5)]),
    "sequential": (_seq, [_x(3, 6)]),
    "hybridlambda": (lambda: nn.HybridLambda(lambda F, x: F.relu(x) * 2), [_x(3, 4)]),
    "hybridlambda_name": (lambda: nn.HybridLambda("tanh"), [_x(3, 4)]),
    "l2loss": (lambda: gluon.loss.L2Loss(), [_x(3, 4), _x(3, 4)]),
    "l1loss": (lambda: gluon.loss.L1Loss(), [_x(3, 4), _x(3, 4)]),
    "sigmoid_bce": (lambda: gluon.loss.SigmoidBinaryCrossEntropyLoss(), [_x(3, 4), _x(3, 4)]),
    "rnn_cell": (lambda: _Cell(rnn.RNNCell(4)), [_x(2, 3), [_x(2, 4)]]),
    "lstm_cell": (lambda: _Cell(rnn.LSTMCell(4)), [_x(2, 3), [_x(2, 4), _x(2, 4)]]),
    "gru_cell": (lambda: _Cell(rnn.GRUCell(4)), [_x(2, 3), [_x(2, 4)]]),
    "lstm_layer": (lambda: rnn.LSTM(4, num_layers=2, bidirectional=True), [_x(5, 2, 3)]),
    "gru_layer_ntc": (lambda: rnn.GRU(4, layout="NTC"), [_x(2, 5, 3)]),
    "rnn_layer": (lambda: rnn.RNN(4, num_layers=2), [_x(5, 2, 3)]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_block_modes_agree(name, on_ctx):
    make, inputs = CASES[name]
    if any(isinstance(x, list) for x in inputs):
        x, states = inputs

        class Wrap(gluon.HybridBlock):
            def __init__(self, **kw):
                super().__init__(**kw)
                self.inner = make()

            def hybrid_forward(self, F, x, *states):
                return self.inner(x, list(states))
        check_block(Wrap, [x, *states])
    else:
        check_block(make, inputs)


def test_embedding_modes_agree():
    idx = np.array([[0, 2], [3, 1]], dtype=np.float32)
    check_block(lambda: nn.Embedding(5, 3), [idx], grad_inputs=False)


def test_softmax_ce_modes_agree():
    check_block(lambda: gluon.loss.SoftmaxCrossEntropyLoss(),
                [_x(4, 5), np.array([0, 3, 1, 4], dtype=np.float32)],
                grad_inputs=[True, False])


def test_batchnorm_predict_mode_agrees():
    check_block(lambda: nn.BatchNorm(in_channels=3), [_x(4, 3, 2)], train=False)
