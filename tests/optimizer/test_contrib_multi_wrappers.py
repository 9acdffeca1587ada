"""nd.contrib's multi-tensor wrappers pass each tensor's arrays to the fused operator in
MXNet's interleaved order: one call over two tensors equals one call per tensor."""
import numpy as np

from gluonlite import nd

RNG = np.random.RandomState(3)


def _arrays(shapes, positive=False):
    draw = (lambda s: RNG.uniform(0.1, 1.0, s)) if positive else (lambda s: RNG.randn(*s))
    return [draw(s).astype(np.float32) for s in shapes]


def _nd(arrays):
    return [nd.array(a) for a in arrays]


SHAPES = [(3, 2), (4,)]


def test_multi_adamw_equals_one_adamw_per_tensor():
    w, g, m, v = (_arrays(SHAPES, positive=k == 3) for k in range(4))
    lrs, wds, etas = [0.1, 0.05], [0.01, 0.0], [1.0, 0.5]
    ws, ms, vs = _nd(w), _nd(m), _nd(v)
    nd.contrib.multi_adamw_update(ws, _nd(g), ms, vs, 0.5, lrs=lrs, wds=wds, etas=etas, out=ws)
    for i in range(2):
        wi, mi, vi = nd.array(w[i]), nd.array(m[i]), nd.array(v[i])
        nd.contrib.adamw_update(wi, nd.array(g[i]), mi, vi, nd.array([0.5]), lr=lrs[i],
                                wd=wds[i], eta=etas[i], out=wi)
        np.testing.assert_allclose(ws[i].asnumpy(), wi.asnumpy(), rtol=1e-6)
        np.testing.assert_allclose(ms[i].asnumpy(), mi.asnumpy(), rtol=1e-6)
        np.testing.assert_allclose(vs[i].asnumpy(), vi.asnumpy(), rtol=1e-6)
        assert not np.allclose(ws[i].asnumpy(), w[i])


def test_multi_lamb_over_two_tensors_equals_one_call_each():
    w, g, m, v = (_arrays(SHAPES, positive=k == 3) for k in range(4))
    kw = dict(lrs=[0.1, 0.05], wds=[0.01, 0.0], step_count=[1, 3])
    ws, ms, vs = _nd(w), _nd(m), _nd(v)
    nd.contrib.multi_lamb_update(ws, _nd(g), ms, vs, out=ws, **kw)
    for i in range(2):
        wi, mi, vi = nd.array(w[i]), nd.array(m[i]), nd.array(v[i])
        nd.contrib.multi_lamb_update([wi], [nd.array(g[i])], [mi], [vi], out=[wi],
                                     **{k: [val[i]] for k, val in kw.items()})
        np.testing.assert_allclose(ws[i].asnumpy(), wi.asnumpy(), rtol=1e-6)
        np.testing.assert_allclose(vs[i].asnumpy(), vi.asnumpy(), rtol=1e-6)
        assert not np.allclose(ws[i].asnumpy(), w[i])
