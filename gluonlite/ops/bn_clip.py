"""``_bn_clip``: BatchNorm and then clip, as one operator (relu6 after a BatchNorm).

MobileNet v2 (``gluon.model_zoo.vision.mobilenet_v2_*``, GluonCV's MobileNetV2) follows
most of its BatchNorms with relu6, written ``F.clip(x, 0, 6)``. In a training step that clip
is a pass over the normalized output forward and several backward (its gradient mask is two
comparisons and a product).

``_bn_clip(data, gamma, beta, moving_mean, moving_var, a_min, a_max, ...)`` has BatchNorm's
rule (its attributes, inputs, moving statistics and hidden outputs) and then clip's
(``a_min``/``a_max``); its gradient is clip's rule, then BatchNorm's. It has no MXNet name:
hybridized training plans put it in place of a BatchNorm read only by a clip
(`gluonlite.executor.bn_relu`), so exports keep the two operators (ONNX export writes both
for a graph that holds it).

Its fast path on numpy float data (`bn_fast`) clips each block of the normalized output
while the block is in the cache, and takes clip's gradient in the pass that sums
BatchNorm's. clip's gradient reads its input, which the clipped output does not give back
on the bounds, so that pass computes the normalized block again from x and the saved
statistics, in the cache, by the forward's own arithmetic: the same mask, bit for bit.

Example::

    x = nd.array([[-2.0, 0.5], [3.0, 9.0]])
    c = x.shape[1]
    y = nd._bn_clip(x, nd.ones(c), nd.zeros(c), nd.zeros(c), nd.ones(c), a_min=0, a_max=6,
                    use_global_stats=True)
    y.asnumpy()        # [[0., 0.5], [3., 6.]] (to eps): the moving statistics are 0 and 1
"""
from . import attrs as A
from . import bn_fast
from .fast import Fast
from .nn import BN_INPUTS, BN_OUTPUTS, bn_normalize, bn_uses_batch
from .registry import get, register

__all__ = ["BATCHNORM_CLIP"]

BATCHNORM_CLIP = "_bn_clip"
_BN = get("BatchNorm")
_CLIP = get("clip")


def _bn_clip(p, rc, x, gamma, beta, mmean, mvar):
    """_bn_clip(data, gamma, beta, moving_mean, moving_var, a_min, a_max, eps=1e-3,
    momentum=0.9, fix_gamma=True, use_global_stats=False, axis=1): ``clip(BatchNorm(...),
    a_min, a_max)`` with BatchNorm's attributes and moving statistics (updated in training as
    BatchNorm updates them) and clip's bounds. A training plan's node (relu6 is ``a_min=0,
    a_max=6``); it has no MXNet name."""
    y, mean, inv = _BN.kernel(p, rc, x, gamma, beta, mmean, mvar)
    return _CLIP.kernel(p, rc, y), mean, inv


def _vjp(p, rc, xs, ys, gys, need):
    # clip's rule reads its input: BatchNorm's output, computed again from the saved
    # statistics by BatchNorm's own formula; then BatchNorm's gradient
    y = bn_normalize(p, rc, xs[0], xs[1], xs[2], ys[1], ys[2])
    gy = _CLIP.vjp(p, rc, [y], [ys[0]], [gys[0]], (True,))[0]
    return _BN.vjp(p, rc, xs, ys, [gy] + list(gys[1:]), need)


def _clip_of(p, rc):
    """clip in place on a block of the output (`bn_fast.normalize_into`'s `then`)."""
    def step(block, index):
        t = block.dtype.type
        rc.xp.clip(block, t(p.a_min), t(p.a_max), out=block)
    return step


def _into(p, rc, outs, x, gamma, beta, mmean, mvar):
    _BN.fast.into(p, rc, outs, x, gamma, beta, mmean, mvar, then=_clip_of(p, rc))


def _kernel(p, rc, x, gamma, beta, mmean, mvar):
    return _BN.fast.kernel(p, rc, x, gamma, beta, mmean, mvar, then=_clip_of(p, rc))


def _fast_vjp(p, rc, xs, ys, gys, need):
    if bn_fast.usable(p, rc, *xs[:3]):
        return bn_fast.vjp(p, xs, ys, gys, bn_uses_batch(p, rc), clip=(p.a_min, p.a_max))
    return _vjp(p, rc, xs, ys, gys, need)


register(BATCHNORM_CLIP, inputs=BN_INPUTS, **BN_OUTPUTS,
         attrs={**_BN.attrs, "a_min": A.Float(), "a_max": A.Float()},
         shape=_BN.rules.shape, dtype=_BN.rules.dtype, vjp=_vjp, same_dtype=(),
         fast=Fast(kernel=_kernel, into=_into, vjp=_fast_vjp))(_bn_clip)
