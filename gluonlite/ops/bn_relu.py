"""``_contrib_BatchNormWithReLU`` (``nd.contrib.BatchNormWithReLU``): BatchNorm and then
Activation's relu, as one operator.

MXNet 1.9.1 has it in its CPU builds (a oneDNN kernel with the relu fused into the
normalization) and ``gluon.nn.BatchNormReLU`` calls it. Its meaning here is its two parts'
own rules, one after the other: BatchNorm's (the same attributes, inputs, auxiliary moving
statistics and hidden outputs) and then Activation's relu (a float32 NaN gives 0); its
gradient is relu's rule on the output, then BatchNorm's gradient.

Its fast path on numpy float data (`bn_fast`) applies the relu to each block of the
normalized output while the block is still in the cache, and takes the gradient through the
relu a block at a time in the pass that sums it, instead of a separate pass over memory for
each. On the shapes of ResNet-50's BatchNorm layers at batch 32 that is 0.89 of the two
operators' time forward and 0.88 backward (0.90 and 0.80 at batch 1;
benchmarks/bn_passes.py --relu, 7 rounds).

Hybridized training plans run it in place of every BatchNorm whose output only an
Activation(relu) reads (`gluonlite.executor.bn_relu`); exports keep the two nodes.

``_bn_add_relu`` is the same for a residual connection, and has no MXNet name: the same pass
puts it in training plans only, so exports keep the three operators (ONNX export writes
them for a graph that holds it). ``relu(BatchNorm(data) + addend)`` has
BatchNorm's rule, then elemwise_add's, then Activation's relu; its fast path adds the addend
and takes the relu on each output block while the block is in the cache, and takes the relu's
gradient (which is also the addend's) in the pass that sums BatchNorm's.

Example::

    x = nd.array([[-2.0, 0.0], [2.0, 4.0]])
    c = x.shape[1]
    y = nd.contrib.BatchNormWithReLU(x, nd.ones(c), nd.zeros(c), nd.zeros(c), nd.ones(c),
                                     fix_gamma=False, use_global_stats=True)
    y.asnumpy()        # [[0., 0.], [2., 4.]] (to eps): the moving statistics are 0 and 1
"""
import numpy as np

from . import bn_fast
from .elementwise import act_relu
from .fast import Fast
from .nn import BN_INPUTS, BN_OUTPUTS, bn_uses_batch
from .registry import ShapeError, get, register

__all__ = ["BATCHNORM_WITH_RELU", "BATCHNORM_ADD_RELU"]

BATCHNORM_WITH_RELU = "_contrib_BatchNormWithReLU"
BATCHNORM_ADD_RELU = "_bn_add_relu"
_BN = get("BatchNorm")
_ACT = get("Activation")
_RELU = _ACT.parse({"act_type": "relu"})[0]
_ADD = get("elemwise_add")
_ADD_P = _ADD.parse({})[0]


def _batchnorm_with_relu(p, rc, x, gamma, beta, mmean, mvar):
    """BatchNormWithReLU(data, gamma, beta, moving_mean, moving_var, eps=1e-3, momentum=0.9,
    fix_gamma=True, use_global_stats=False, axis=1): ``relu(BatchNorm(...))`` with
    BatchNorm's attributes and moving statistics (updated in training as BatchNorm updates
    them) and Activation's relu (a float32 NaN gives 0)."""
    y, mean, inv = _BN.kernel(p, rc, x, gamma, beta, mmean, mvar)
    return act_relu(rc.xp, y, out=y), mean, inv


def _vjp(p, rc, xs, ys, gys, need):
    # Activation's relu gradient (its rule reads the output), then BatchNorm's
    gb = _ACT.vjp(_RELU, rc, [ys[0]], [ys[0]], [gys[0]], (True,))[0]
    return _BN.vjp(p, rc, xs, ys, [gb] + list(gys[1:]), need)


def _relu_of(rc):
    """Activation's relu in place on a block of the output (BatchNorm's fast paths call it
    on each block while it is in the cache)."""
    return lambda block, index: act_relu(rc.xp, block, out=block)


def _into(p, rc, outs, x, gamma, beta, mmean, mvar):
    _BN.fast.into(p, rc, outs, x, gamma, beta, mmean, mvar, then=_relu_of(rc))


def _kernel(p, rc, x, gamma, beta, mmean, mvar):
    return _BN.fast.kernel(p, rc, x, gamma, beta, mmean, mvar, then=_relu_of(rc))


def _fast_vjp(p, rc, xs, ys, gys, need):
    if bn_fast.usable(p, rc, *xs[:3]):
        return bn_fast.vjp(p, xs, ys, gys, bn_uses_batch(p, rc), relu_out=ys[0])
    return _vjp(p, rc, xs, ys, gys, need)


register(BATCHNORM_WITH_RELU, inputs=BN_INPUTS, **BN_OUTPUTS, attrs=dict(_BN.attrs),
         shape=_BN.rules.shape, dtype=_BN.rules.dtype, vjp=_vjp, same_dtype=(),
         fast=Fast(kernel=_kernel, into=_into, vjp=_fast_vjp))(_batchnorm_with_relu)


# ---- _bn_add_relu: relu(BatchNorm(data) + addend) ------------------------------------------
def _bn_add_relu(p, rc, x, gamma, beta, mmean, mvar, addend):
    """_bn_add_relu(data, gamma, beta, moving_mean, moving_var, addend, eps=1e-3,
    momentum=0.9, fix_gamma=True, use_global_stats=False, axis=1): ``relu(BatchNorm(...) +
    addend)`` with BatchNorm's attributes and moving statistics, elemwise_add's sum (addend of
    data's shape and dtype) and Activation's relu (a float32 NaN gives 0). A training plan's
    node for a residual connection (`gluonlite.executor.bn_relu`); it has no MXNet name."""
    y, mean, inv = _BN.kernel(p, rc, x, gamma, beta, mmean, mvar)
    z = _ADD.kernel(_ADD_P, rc, y, addend)
    return act_relu(rc.xp, z, out=z), mean, inv


def _add_vjp(p, rc, xs, ys, gys, need):
    # relu's gradient, which elemwise_add hands to both of its inputs unchanged; then
    # BatchNorm's gradient of its share
    gz = _ACT.vjp(_RELU, rc, [ys[0]], [ys[0]], [gys[0]], (True,))[0]
    return tuple(_BN.vjp(p, rc, xs[:5], ys, [gz] + list(gys[1:]), need[:5])) + (gz,)


def _add_relu_of(rc, addend):
    """The addend's block added, then Activation's relu, in place on a block of the output
    (`normalize_into`'s `then`; index Ellipsis: the whole output)."""
    # the blocks index the (N, C, P) view (data has at least the two axes BatchNorm needs)
    a3 = addend.reshape(addend.shape[:2] + (-1,))

    def step(block, index):
        rc.xp.add(block, addend if index is Ellipsis else a3[index], out=block)
        act_relu(rc.xp, block, out=block)
    return step


def _add_into(p, rc, outs, x, gamma, beta, mmean, mvar, addend):
    _BN.fast.into(p, rc, outs, x, gamma, beta, mmean, mvar, then=_add_relu_of(rc, addend))


def _add_kernel(p, rc, x, gamma, beta, mmean, mvar, addend):
    return _BN.fast.kernel(p, rc, x, gamma, beta, mmean, mvar,
                           then=_add_relu_of(rc, addend))


def _add_fast_vjp(p, rc, xs, ys, gys, need):
    if bn_fast.usable(p, rc, *xs[:3]):
        # the gradient through the relu is kept: it is the addend's
        gz = np.empty_like(xs[0])
        grads = bn_fast.vjp(p, xs, ys, gys, bn_uses_batch(p, rc), relu_out=ys[0], gy_into=gz)
        return tuple(grads) + (gz,)
    return _add_vjp(p, rc, xs, ys, gys, need)


def _add_shape(p, ins):
    ins = list(ins)
    bn_ins, outs = _BN.rules.shape(p, ins[:5])
    d, a = ins[0], ins[5]
    if d is not None and a is not None and tuple(a) != tuple(d):
        raise ShapeError(f"{BATCHNORM_ADD_RELU}: addend must have data's shape {tuple(d)}, "
                         f"got {tuple(a)}")
    return list(bn_ins) + [a if d is None else tuple(d)], outs


def _add_dtype(p, ins):
    bn_ins, outs = _BN.rules.dtype(p, list(ins[:5]))
    return list(bn_ins) + [ins[5] or bn_ins[0]], outs


register(BATCHNORM_ADD_RELU, inputs=BN_INPUTS + ("addend",), **BN_OUTPUTS,
         attrs=dict(_BN.attrs), shape=_add_shape, dtype=_add_dtype, vjp=_add_vjp,
         same_dtype=(),
         fast=Fast(kernel=_add_kernel, into=_add_into, vjp=_add_fast_vjp))(_bn_add_relu)
