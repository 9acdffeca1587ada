"""The numpy floor the benchmarks time next to the library: the hand-written RNN/GRU/LSTM
loops of `gluonlite.test_utils.rnn_floor` (the tests' oracle, defined there once), under the
name the bench CLI, its runner and `benchmarks/` use.

Example::

    from gluonlite.bench import floor
    f = floor.FloorRNN("lstm", 10, 4, 8, 16, train=True)
"""
from ..test_utils.rnn_floor import (PARAM_NAMES, FloorRNN, check_against_reference,
                                    cell_kind, gru_gates, init_params, lstm_gates, num_gates,
                                    num_states, params_from_named, reference_loss)

__all__ = ["FloorRNN", "PARAM_NAMES", "cell_kind", "init_params", "num_gates", "num_states",
           "params_from_named", "lstm_gates", "gru_gates",
           "check_against_reference", "reference_loss"]
