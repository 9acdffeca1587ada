"""SGD's and NAG's update operators on numpy arrays, a cache-sized block at a time.

The rules in `gluonlite.ops.optimizer_ops` write each step of ``sgd_mom_update`` as a whole
array expression: every step makes a temporary the size of the weight, so a ResNet-18 step
(11 M weights) sweeps memory about ten times and allocates each temporary afresh. Here the
same operations, in the same order on each element (so the same float results, bit for
bit), run on one block of 128 KiB of each array at a time, with one small scratch block:
memory is read once (weight, gradient, momentum) and written once (momentum, new weight),
and the new weight may be written over the weight itself (``out=weight``, what every
optimizer step does).

`usable` says where these apply (numpy, float32/float64, C-contiguous, one dtype); the
rules remain the definition everywhere else.

Example::

    from gluonlite.ops import optimizer_fast
    from gluonlite.ops.registry import Params
    w, g, m = np.ones(3, np.float32), np.ones(3, np.float32), np.zeros(3, np.float32)
    p = Params(dict(lr=0.1, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0, momentum=0.9))
    optimizer_fast.sgd_mom_into(p, w, w, g, m)      # w is now 0.9, m is -0.1
"""
import numpy as np

__all__ = ["usable", "sgd_into", "sgd_mom_into", "nag_mom_into", "kernel_scalars", "decays",
           "BLOCK_BYTES"]

# One block of each array (weight, gradient, momentum, output, scratch) fits in L2 together
# (640 KiB). A block costs six ufunc calls: ResNet-18's momentum step took 0.85 of its
# time with 128 KiB blocks against 64 KiB (1 << 18 no faster).
BLOCK_BYTES = 1 << 17
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def usable(xp, *arrays):
    """Whether the blocked kernels apply: numpy arrays of one float32/float64 dtype, all
    C-contiguous and of one size.

    Args:
        xp: the array module of the call.
        *arrays: the weight, gradient, states and output.

    Returns:
        bool.

    Example::

        from gluonlite.ops import optimizer_fast
        optimizer_fast.usable(np, np.ones(2, np.float32), np.ones(2, np.float32))  # True
    """
    if xp is not np:
        return False
    a0 = arrays[0]
    if type(a0) is not np.ndarray or a0.dtype not in _FLOATS:
        return False
    for a in arrays:
        if type(a) is not np.ndarray or a.dtype != a0.dtype or a.size != a0.size or \
                not a.flags.c_contiguous:
            return False
    return True


def _blocks(n, itemsize):
    step = max(1, BLOCK_BYTES // itemsize)
    for s in range(0, n, step):
        yield s, min(s + step, n)


def _scaled_into(p, g, t):
    """t = clip(rescale_grad * g) (the rules' `_scaled`), in place in scratch `t`."""
    np.multiply(g, p.rescale_grad, out=t)
    if p.clip_gradient >= 0:
        np.clip(t, -p.clip_gradient, p.clip_gradient, out=t)


def kernel_scalars(w, *values):
    """Attributes `values` in the weight's precision as MXNet's kernels take them: its
    parameter structs hold them as float32, cast to the weight's type. SGD's rules and
    their blocked forms read their attributes through this.

    Args:
        w: the weight (its dtype is the precision).
        *values: Python or numpy scalars, or entries of an array on the weight's device
            (the preloaded_multi_* operators' lrs and wds), which stay there.

    Returns:
        list: one scalar (or 0-d array) per value.

    Example::

        from gluonlite.ops import optimizer_fast
        optimizer_fast.kernel_scalars(np.ones(1), 0.1)    # [0.10000000149011612]
    """
    return [w.dtype.type(np.float32(v)) if isinstance(v, (int, float, np.generic))
            else v.astype(np.float32).astype(w.dtype) for v in values]


def decays(p):
    """Whether SGD's update (with momentum) has its weight-decay term: not when wd is 0.
    MXNet subtracts ``0 * w`` there, which differs only where a weight is infinite (its
    momentum becomes NaN). A wd held on a device is always applied.

    Args:
        p: the operator's attributes (``wd``).

    Returns:
        bool.

    Example::

        from gluonlite.ops import optimizer_fast
        from gluonlite.ops.registry import Params
        optimizer_fast.decays(Params(dict(wd=0.0)))       # False
    """
    return not (isinstance(p.wd, (int, float, np.generic)) and p.wd == 0)


def _step_into(p, g, t, lr):
    """t = the gradient's term of SGD's update (the rules' `_sgd_grad_term`), in scratch `t`."""
    rescale, clip = kernel_scalars(g, p.rescale_grad, p.clip_gradient)
    if p.clip_gradient >= 0:
        np.multiply(g, rescale, out=t)
        np.clip(t, -clip, clip, out=t)
        np.multiply(t, lr, out=t)
    else:
        np.multiply(g, lr * rescale, out=t)


def sgd_into(p, out, w, g):
    """``out = (1 - lr*wd) * w - lr * clip(rescale_grad * g)``, blockwise; `out` may be `w`.

    Args:
        p: the operator's attributes (lr, wd, rescale_grad, clip_gradient).
        out: the array to write the new weight into (`w` itself allowed).
        w: the weight.
        g: its gradient.

    Returns:
        `out`.

    Example::

        from gluonlite.ops import optimizer_fast
        from gluonlite.ops.registry import Params
        w = np.ones(2, np.float32)
        p = Params(dict(lr=0.5, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0))
        optimizer_fast.sgd_into(p, w, w, np.ones(2, np.float32))     # [0.5, 0.5]
    """
    wf, gf, of = w.reshape(-1), g.reshape(-1), out.reshape(-1)
    lr, wd = kernel_scalars(wf, p.lr, p.wd)
    decay = wf.dtype.type(1) - lr * wd
    t = np.empty(min(wf.size, max(1, BLOCK_BYTES // wf.itemsize)), wf.dtype)
    for s, e in _blocks(wf.size, wf.itemsize):
        tb, ob = t[:e - s], of[s:e]
        _step_into(p, gf[s:e], tb, lr)
        np.multiply(wf[s:e], decay, out=ob)
        np.subtract(ob, tb, out=ob)
    return out


def sgd_mom_into(p, out, w, g, mom):
    """``mom = momentum*mom - lr*wd*w - lr*clip(rescale_grad*g)``; ``out = w + mom``,
    blockwise; `mom` changes in place, `out` may be `w`.

    Args:
        p: the operator's attributes (lr, wd, rescale_grad, clip_gradient, momentum).
        out: the array to write the new weight into (`w` itself allowed).
        w: the weight.
        g: its gradient.
        mom: the momentum, updated in place.

    Returns:
        `out`.

    Example::

        from gluonlite.ops import optimizer_fast
        from gluonlite.ops.registry import Params
        w, m = np.ones(2, np.float32), np.zeros(2, np.float32)
        p = Params(dict(lr=0.5, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0, momentum=0.9))
        optimizer_fast.sgd_mom_into(p, w, w, np.ones(2, np.float32), m)   # [0.5, 0.5]
    """
    wf, gf, mf, of = w.reshape(-1), g.reshape(-1), mom.reshape(-1), out.reshape(-1)
    lr, wd, momentum = kernel_scalars(wf, p.lr, p.wd, p.momentum)
    lrwd, decay = lr * wd, decays(p)
    t = np.empty(min(wf.size, max(1, BLOCK_BYTES // wf.itemsize)), wf.dtype)
    for s, e in _blocks(wf.size, wf.itemsize):
        tb, mb, wb = t[:e - s], mf[s:e], wf[s:e]
        np.multiply(mb, momentum, out=mb)
        if decay:
            np.multiply(wb, lrwd, out=tb)
            np.subtract(mb, tb, out=mb)
        _step_into(p, gf[s:e], tb, lr)
        np.subtract(mb, tb, out=mb)
        np.add(wb, mb, out=of[s:e])
    return out


def nag_mom_into(p, out, w, g, mom):
    """Nesterov's step of the rules' ``_nag_mom``, blockwise: ``mom *= momentum``;
    ``out = w - mom + (momentum+1) * (mom - lr*(g' + wd*w))``; then
    ``mom -= lr*(g' + wd*out)`` (g' the rescaled, clipped gradient); `out` may be `w`.

    Args:
        p: the operator's attributes (lr, wd, rescale_grad, clip_gradient, momentum).
        out: the array to write the new weight into (`w` itself allowed).
        w: the weight.
        g: its gradient.
        mom: the momentum, updated in place.

    Returns:
        `out`.

    Example::

        from gluonlite.ops import optimizer_fast
        from gluonlite.ops.registry import Params
        w, m = np.ones(2, np.float32), np.zeros(2, np.float32)
        p = Params(dict(lr=0.5, wd=0.0, rescale_grad=1.0, clip_gradient=-1.0, momentum=0.9))
        optimizer_fast.nag_mom_into(p, w, w, np.ones(2, np.float32), m)   # [0.05, 0.05]
    """
    wf, gf, mf, of = w.reshape(-1), g.reshape(-1), mom.reshape(-1), out.reshape(-1)
    lr, wd, momentum, ahead = p.lr, p.wd, p.momentum, p.momentum + 1
    size = min(wf.size, max(1, BLOCK_BYTES // wf.itemsize))
    t, u = np.empty(size, wf.dtype), np.empty(size, wf.dtype)
    for s, e in _blocks(wf.size, wf.itemsize):
        tb, ub, mb, ob = t[:e - s], u[:e - s], mf[s:e], of[s:e]
        _scaled_into(p, gf[s:e], tb)
        np.multiply(mb, momentum, out=mb)
        np.multiply(wf[s:e], wd, out=ub)
        np.add(tb, ub, out=ub)
        np.multiply(ub, lr, out=ub)
        np.subtract(mb, ub, out=ub)
        np.multiply(ub, ahead, out=ub)
        np.subtract(wf[s:e], mb, out=ob)
        np.add(ob, ub, out=ob)
        np.multiply(ob, wd, out=ub)
        np.add(tb, ub, out=ub)
        np.multiply(ub, lr, out=ub)
        np.subtract(mb, ub, out=mb)
    return out
