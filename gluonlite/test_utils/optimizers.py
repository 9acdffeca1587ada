"""`compare_optimizer`: one step of two optimizers on the same random data, states and
weights compared (MXNet's helper for its optimizer tests)."""
import copy

from .comparison import assert_almost_equal, compare_ndarray_tuple
from .runtime import default_context
from ..ndarray.ndarray import check_stype
from .arrays import rand_ndarray

__all__ = ["compare_optimizer"]


def _draw(shape, dtype, stype, density=None):
    """(array for the optimizer under test, dense copy for the reference) as MXNet draws them:
    uniform [0, 1) dense, or sparse with `density` (random when None) of stored values."""
    import gluonlite as mx
    if check_stype(stype, "compare_optimizer", sparse_ok=True) == "default":
        a = mx.random.uniform(shape=shape, ctx=default_context(), dtype=dtype)
        return a, a.copyto(default_context())
    a = rand_ndarray(shape, stype, density=density, dtype=dtype)
    return a, a.copyto(default_context()).tostype("default")


def compare_optimizer(opt1, opt2, shape, dtype, w_stype="default", g_stype="default",
                      rtol=1e-4, atol=1e-5, compare_states=True, ntensors=1):
    """Run one update of `opt1` and `opt2` from equal weights and gradients (uniform in
    [0, 1) of `shape`, or of each shape in a list: then `opt2` updates all tensors in one
    multi-tensor call) and assert their states and weights agree.

    With a sparse `w_stype`/`g_stype` ('row_sparse' or 'csr'), `opt2` gets the sparse array
    (a weight with every entry stored, a gradient of random density) and `opt1` its dense
    copy, as MXNet's helper does.

    Args:
        opt1: the reference optimizer.
        opt2: the optimizer checked.
        shape: a shape, or a list of shapes for a multi-tensor update.
        dtype: the dtype of the weights and gradients.
        w_stype: default 'default': the weight's storage type.
        g_stype: default 'default': the gradient's storage type.
        rtol: default 1e-4: the relative tolerance.
        atol: default 1e-5: the absolute tolerance.
        compare_states: default True: also compare the optimizer states.
        ntensors: default 1: how many of the shapes' tensors are updated (multi-tensor only).

    Raises:
        AssertionError: the optimizers disagree (the message lists where).

    Example::

        opt1 = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9)
        opt2 = mx.optimizer.create('sgd', learning_rate=0.1, momentum=0.9)
        mx.test_utils.compare_optimizer(opt1, opt2, (3, 4), np.float32)   # passes: same update
    """
    if not isinstance(shape, list):
        w2, w1 = _draw(shape, dtype, w_stype, density=1)
        g2, g1 = _draw(shape, dtype, g_stype)
        s1 = opt1.create_state_multi_precision(0, w1)
        s2 = opt2.create_state_multi_precision(0, w2)
        if compare_states:
            compare_ndarray_tuple(s1, s2)
        opt1.update_multi_precision(0, w1, g1, s1)
        opt2.update_multi_precision(0, w2, g2, s2)
        if compare_states:
            compare_ndarray_tuple(s1, s2, rtol=rtol, atol=atol)
        assert_almost_equal(w1, w2, rtol=rtol, atol=atol)
        return
    w1 = tuple(_draw(s, dtype, "default")[0] for s in shape)
    g1 = tuple(_draw(s, dtype, "default")[0] for s in shape)
    w2, g2 = copy.deepcopy(w1), copy.deepcopy(g1)
    s2 = [opt2.create_state_multi_precision(0, w2[i]) for i in range(ntensors)]
    opt2.update_multi_precision(list(range(ntensors)), w2, g2, s2)
    for i in range(ntensors):
        s1 = opt1.create_state_multi_precision(i, w1[i])
        opt1.update_multi_precision(i, w1[i], g1[i], s1)
        if compare_states:
            compare_ndarray_tuple(s1, s2[i], rtol, atol)
        compare_ndarray_tuple(w1[i], w2[i], rtol, atol)
