"""`compare_optimizer`: one step of two optimizers on the same random data, states and
weights compared (MXNet's helper for its optimizer tests)."""
import copy

from .comparison import assert_almost_equal, compare_ndarray_tuple
from .runtime import default_context

__all__ = ["compare_optimizer"]


def _draw(shape, dtype, stype):
    import gluonlite as mx
    from ..ndarray.ndarray import check_stype
    check_stype(stype, "compare_optimizer")
    return mx.random.uniform(shape=shape, ctx=default_context(), dtype=dtype)


def compare_optimizer(opt1, opt2, shape, dtype, w_stype="default", g_stype="default",
                      rtol=1e-4, atol=1e-5, compare_states=True, ntensors=1):
    """Run one update of `opt1` and `opt2` from equal weights and gradients (uniform in
    [0, 1) of `shape`, or of each shape in a list: then `opt2` updates all tensors in one
    multi-tensor call) and assert their states and weights agree.

    Raises:
        NotImplementedError: a sparse `w_stype`/`g_stype`.
        AssertionError: the optimizers disagree (the message lists where).
    """
    if not isinstance(shape, list):
        w2 = _draw(shape, dtype, w_stype)
        w1 = w2.copyto(default_context())
        g2 = _draw(shape, dtype, g_stype)
        g1 = g2.copyto(default_context())
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
    w1 = tuple(_draw(s, dtype, w_stype) for s in shape)
    g1 = tuple(_draw(s, dtype, g_stype) for s in shape)
    w2, g2 = copy.deepcopy(w1), copy.deepcopy(g1)
    s2 = [opt2.create_state_multi_precision(0, w2[i]) for i in range(ntensors)]
    opt2.update_multi_precision(list(range(ntensors)), w2, g2, s2)
    for i in range(ntensors):
        s1 = opt1.create_state_multi_precision(i, w1[i])
        opt1.update_multi_precision(i, w1[i], g1[i], s1)
        if compare_states:
            compare_ndarray_tuple(s1, s2[i], rtol, atol)
        compare_ndarray_tuple(w1[i], w2[i], rtol, atol)
