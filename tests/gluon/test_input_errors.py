"""Input mistakes reported as the input's problem (issue 28): a wrong feature size into an
RNN layer or a cell, a sequence into a cell, and nd.array of something not array-like."""
import pytest

from gluonlite import gluon, nd


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("hybridize", [False, True])
def test_layer_names_the_input_feature_size(kind, hybridize):
    layer = getattr(gluon.rnn, kind)(8, input_size=4)
    layer.initialize()
    if hybridize:
        layer.hybridize()
    with pytest.raises(ValueError) as info:
        layer(nd.zeros((5, 2, 3)))
    msg = str(info.value)
    assert f"{kind} input 'inputs' must have 4 features (axis 2 of layout TNC" in msg
    assert "got shape (5, 2, 3)" in msg and "parameters" not in msg


def test_layer_with_inferred_input_size_checks_later_calls():
    layer = gluon.rnn.LSTM(8, layout="NTC")
    layer.initialize()
    assert layer(nd.zeros((2, 5, 4))).shape == (2, 5, 8)
    with pytest.raises(ValueError, match=r"must have 4 features \(axis 2 of layout NTC"):
        layer(nd.zeros((2, 5, 6)))
    with pytest.raises(ValueError, match=r"must be 3-D in layout NTC, got shape \(2, 4\)"):
        layer(nd.zeros((2, 4)))


def test_cell_rejects_a_sequence_and_a_wrong_feature_size():
    cell = gluon.rnn.LSTMCell(8)
    cell.initialize()
    with pytest.raises(ValueError) as info:
        cell(nd.zeros((5, 2, 3)), cell.begin_state(2))
    assert "LSTMCell input 'inputs' must be 2-D (batch_size, input_size), got shape " \
           "(5, 2, 3)" in str(info.value)
    out, _ = cell(nd.zeros((2, 3)), cell.begin_state(2))
    assert out.shape == (2, 8)
    with pytest.raises(ValueError, match=r"must have 3 features \(axis 1, the cell's input "
                                         r"size\), got shape \(2, 5\)"):
        cell(nd.zeros((2, 5)), cell.begin_state(2))


@pytest.mark.parametrize("source", [None, "abc", {"a": 1}])
def test_nd_array_of_something_not_array_like_is_a_type_error(source):
    with pytest.raises(TypeError, match=f"array: source must be array-like .*, got "
                                        f"{type(source).__name__}"):
        nd.array(source)
