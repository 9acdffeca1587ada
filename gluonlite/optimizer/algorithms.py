"""Every optimizer MXNet 1.9.1 registers, each a thin caller of the fused update operators
(`gluonlite.ops.optimizer_ops`) or, where MXNet has none (AdaGrad, AdaDelta, Adamax, Nadam,
DCASGD, SGLD), of NDArray arithmetic, so the numbers are MXNet's."""
import math

import numpy as np

from .. import ndarray as nd
from ..ndarray.invoke import plan_for, run_update
from ..ops.registry import get as _op
from .optimizer import Optimizer, register

__all__ = ["SGD", "NAG", "Signum", "FTML", "LARS", "LBSGD", "LAMB", "DCASGD", "SGLD", "ccSGD",
           "Adam", "AdaGrad", "RMSProp", "AdaDelta", "Ftrl", "Adamax", "Nadam", "Test"]


def _zeros(weight, dtype=None, stype="default"):
    return nd.zeros(weight.shape, weight.context, dtype=dtype or weight.dtype, stype=stype)


def _lazy_stype(opt, weight):
    """The storage type of a state of `weight`: the weight's own with lazy updates (so that a
    row_sparse gradient updates only its rows of the state), else dense (MXNet's choice)."""
    return weight.stype if opt.lazy_update else "default"


def _clip(opt, grad):
    if opt.clip_gradient is not None:
        return nd.clip(grad, -opt.clip_gradient, opt.clip_gradient)
    return grad


class _MasterCopyFirst(Optimizer):
    """Optimizers whose multi-precision state is ``(state, weight32)`` and whose fused
    ``mp_`` operators update the master copy themselves (SGD, NAG, LARS)."""

    def create_state_multi_precision(self, index, weight):
        """``(state, weight32)`` for a float16 weight with multi_precision, else the state.

        Args:
            index (int or str): the parameter's key.
            weight (NDArray): the parameter (float16 gets a float32 master copy with
                multi_precision).

        Returns:
            The state described above, which `update_multi_precision` then receives.
        """
        if self.multi_precision and weight.dtype == np.float16:
            w32 = weight.astype(np.float32)
            return (self.create_state(index, w32), w32)
        return super().create_state_multi_precision(index, weight)

    def update(self, index, weight, grad, state):
        """One step on `weight` in place.

        Args:
            index (int or str): the parameter's key, selecting its learning rate, weight decay
                and update count.
            weight (NDArray): the parameter, updated in place.
            grad (NDArray): its gradient (multiplied by `rescale_grad`, then clipped to
                ``[-clip_gradient, clip_gradient]`` when that is set).
            state: what `create_state` returned for this parameter; updated in place.
        """
        self._update_impl(index, weight, grad, state, False)

    def update_multi_precision(self, index, weight, grad, state):
        """One step, through the float32 master copy for float16 weights.

        Args:
            index (int or str): the parameter's key.
            weight (NDArray): the parameter, updated in place.
            grad (NDArray): its gradient.
            state: what `create_state_multi_precision` returned for this parameter.
        """
        if isinstance(index, (list, tuple)):
            mp = self.multi_precision and weight[0].dtype == np.float16
        else:
            mp = self.multi_precision and weight.dtype == np.float16
        self._update_impl(index, weight, grad, state, mp)


@register
class SGD(_MasterCopyFirst):
    """Stochastic gradient descent with momentum and weight decay (``sgd_mom_update``)::

        state = momentum * state - lr * (clip(rescale_grad * grad) + wd * weight)
        weight += state

    Args:
        momentum: the momentum (0: plain ``sgd_update``, no state).
        lazy_update: with a row_sparse gradient, update only its rows (weight and momentum);
            False: every row, as with the dense gradient (weight decay reaches every row).
        **kwargs: the base `Optimizer`'s arguments (`learning_rate`, `wd`, `rescale_grad`,
            `clip_gradient`, `lr_scheduler`, ...).

    Example::

        opt = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9)
        w, g = nd.ones((2,)), nd.ones((2,))
        opt.update(0, w, g, opt.create_state(0, w))
        w.asnumpy()   # array([0.9, 0.9], dtype=float32)
    """

    def __init__(self, momentum=0.0, lazy_update=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.lazy_update = lazy_update

    def create_state(self, index, weight):
        """The momentum buffer (None without momentum), row_sparse for a row_sparse weight
        with lazy updates.

        Args:
            index (int or str): the parameter's key.
            weight (NDArray): the parameter; the state arrays take its shape and context.

        Returns:
            The state described above, which `update` then receives as `state`.

        Example::

            opt = mx.optimizer.SGD(learning_rate=0.1, momentum=0.9)
            state = opt.create_state(0, nd.ones((2,)))
            state.shape   # (2,): zeros shaped like the weight
        """
        return _zeros(weight, stype=_lazy_stype(self, weight)) if self.momentum != 0.0 \
            else None

    def _update_impl(self, indices, weights, grads, states, mp):
        if not isinstance(indices, (list, tuple)):
            indices, weights, grads, states = [indices], [weights], [grads], [states]
        self._update_count(indices)
        kw = self._op_kwargs()
        if self.momentum > 0:
            kw["momentum"] = self.momentum
        for w, g, s, lr, wd in zip(weights, grads, states, self._get_lrs(indices),
                                   self._get_wds(indices)):
            self._step(w, g, s, lr, wd, kw, mp)

    def _step(self, w, g, s, lr, wd, kw, mp):
        if w.stype != "default" or g.stype != "default":
            kw = dict(kw, lazy_update=self.lazy_update)
        if not mp:
            # the new weight written over the weight itself (`run_update`): the same
            # operator as nd.sgd_mom_update(w, g, s, out=w), without a weight-sized copy
            if s is not None:
                run_update(plan_for(_op("sgd_mom_update"), dict(kw, lr=lr, wd=wd)),
                           [w, g, s], w)
            else:
                run_update(plan_for(_op("sgd_update"), dict(kw, lr=lr, wd=wd)), [w, g], w)
        elif s[0] is not None:
            nd.mp_sgd_mom_update(w, g, s[0], s[1], out=w, lr=lr, wd=wd, **kw)
        else:
            nd.mp_sgd_update(w, g, s[1], out=w, lr=lr, wd=wd, **kw)


@register
class ccSGD(SGD):  # noqa: N801  (MXNet's name)
    """A deprecated alias of `SGD` kept by MXNet.

    Args:
        momentum (float): the momentum, as `SGD`'s (default 0: no state).
        lazy_update (bool): with a row_sparse gradient, update only its rows, as `SGD`'s.
        **kwargs: the base `Optimizer`'s arguments.

    Example::

        opt = mx.optimizer.ccSGD(learning_rate=0.1)
        w, g = nd.ones((2,)), nd.ones((2,))
        opt.update(0, w, g, opt.create_state(0, w))
        w.asnumpy()   # array([0.9, 0.9], dtype=float32)
    """


@register
class NAG(_MasterCopyFirst):
    """Nesterov accelerated gradient (``nag_mom_update``)::

        state = momentum * state + grad + wd * weight
        weight -= lr * (grad + momentum * state)

    Args:
        momentum: the momentum (0: plain SGD).
        **kwargs: the base `Optimizer`'s arguments (`learning_rate`, `wd`, `rescale_grad`,
            `clip_gradient`, `lr_scheduler`, ...).

    Example::

        opt = mx.optimizer.NAG(learning_rate=0.1, momentum=0.9)
        w, g = nd.ones((2,)), nd.ones((2,))
        opt.update(0, w, g, opt.create_state(0, w))
        w.asnumpy()   # array([0.81, 0.81], dtype=float32)
    """

    def __init__(self, momentum=0.0, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum

    def create_state(self, index, weight):
        """The momentum buffer (None without momentum).

        Args:
            index (int or str): the parameter's key.
            weight (NDArray): the parameter; the state arrays take its shape and context.

        Returns:
            The state described above, which `update` then receives as `state`.

        Example::

            opt = mx.optimizer.NAG(learning_rate=0.1, momentum=0.9)
            state = opt.create_state(0, nd.ones((2,)))
            state.shape   # (2,): zeros shaped like the weight
        """
        return _zeros(weight) if self.momentum != 0.0 else None

    def _update_impl(self, index, weight, grad, state, mp):
        if isinstance(index, (list, tuple)):
            for i, w, g, s in zip(index, weight, grad, state):
                self._update_impl(i, w, g, s, mp)
            return
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        kw = self._op_kwargs()
        if self.momentum > 0:
            kw["momentum"] = self.momentum
        if not mp:  # in place, as SGD's (`run_update`)
            if state is not None:
                run_update(plan_for(_op("nag_mom_update"), dict(kw, lr=lr, wd=wd)),
                           [weight, grad, state], weight)
            else:
                run_update(plan_for(_op("sgd_update"), dict(kw, lr=lr, wd=wd)),
                           [weight, grad], weight)
        elif state[0] is not None:
            nd.mp_nag_mom_update(weight, grad, state[0], state[1], out=weight, lr=lr, wd=wd,
                                 **kw)
        else:
            nd.mp_sgd_update(weight, grad, state[1], out=weight, lr=lr, wd=wd, **kw)


@register
class Signum(Optimizer):
    """signSGD / Signum: steps by the sign of the gradient or of its momentum
    (``signsgd_update``, ``signum_update``).

    Args:
        learning_rate (float): the step size (default 0.01).
        momentum: the momentum (0: signSGD).
        wd_lh: decoupled weight decay.
        **kwargs: the base `Optimizer`'s arguments (`wd`, `rescale_grad`, `clip_gradient`,
            `lr_scheduler`, ...).

    Example::

        opt = mx.optimizer.Signum(learning_rate=0.1)
        w, g = nd.ones((2,)), nd.ones((2,))
        opt.update(0, w, g, opt.create_state(0, w))
        w.asnumpy()   # array([0.9, 0.9], dtype=float32)
    """

    def __init__(self, learning_rate=0.01, momentum=0.9, wd_lh=0.0, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.momentum = momentum
        self.wd_lh = wd_lh

    def create_state(self, index, weight):
        """The momentum buffer (None without momentum).

        Args:
            index (int or str): the parameter's key.
            weight (NDArray): the parameter; the state arrays take its shape and context.

        Returns:
            The state described above, which `update` then receives as `state`.

        Example::

            opt = mx.optimizer.Signum(learning_rate=0.1)
            state = opt.create_state(0, nd.ones((2,)))
            state.shape   # (2,): zeros shaped like the weight
        """
        return _zeros(weight) if self.momentum != 0.0 else None

    def update(self, index, weight, grad, state):
        """One Signum step on `weight` in place.

        Args:
            index (int or str): the parameter's key, selecting its learning rate, weight decay
                and update count.
            weight (NDArray): the parameter, updated in place.
            grad (NDArray): its gradient (multiplied by `rescale_grad`, then clipped to
                ``[-clip_gradient, clip_gradient]`` when that is set).
            state: what `create_state` returned for this parameter; updated in place.

        Example::

            opt = mx.optimizer.Signum(learning_rate=0.1)
            w, g = nd.ones((2,)), nd.ones((2,))
            opt.update(0, w, g, opt.create_state(0, w))
            w.asnumpy()   # array([0.9, 0.9], dtype=float32)
        """
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        kw = self._op_kwargs()
        if self.momentum > 0:
            kw["momentum"] = self.momentum
        if self.wd_lh:
            kw["wd_lh"] = self.wd_lh
        if state is not None:
            nd.signum_update(weight, grad, state, out=weight, lr=lr, wd=wd, **kw)
        else:
            kw.pop("wd_lh", None)
            nd.signsgd_update(weight, grad, out=weight, lr=lr, wd=wd, **kw)


@register
class FTML(Optimizer):
    """Follow The Moving Leader (``ftml_update``).

    Args:
        beta1 (float): the decay rate of the first moment (default 0.6).
        beta2 (float): the decay rate of the second moment (default 0.999).
        epsilon (float): added to the denominator (default 1e-8).
        **kwargs: the base `Optimizer`'s arguments (`wd`, `rescale_grad`, `clip_gradient`,
            `lr_scheduler`, ...).

    Example::

        opt = mx.optimizer.FTML(learning_rate=0.1)
        w, g = nd.ones((2,)), nd.ones((2,))
        opt.update(0, w, g, opt.create_state(0, w))
        w.asnumpy()   # array([0.9, 0.9], dtype=float32)
    """

    def __init__(self, beta1=0.6, beta2=0.999, epsilon=1e-8, **kwargs):
        super().__init__(**kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon

    def create_state(self, index, weight):
        """(d, v, z).

        Args:
            index (int or str): the parameter's key.
            weight (NDArray): the parameter; the state arrays take its shape and context.

        Returns:
            The state described above, which `update` then receives as `state`.

        Example::

            opt = mx.optimizer.FTML(learning_rate=0.1)
            state = opt.create_state(0, nd.ones((2,)))
            len(state)   # 3: a tuple of 3 arrays shaped like the weight
        """
        return (_zeros(weight), _zeros(weight), _zeros(weight))

    def update(self, index, weight, grad, state):
        """One FTML step on `weight` in place.

        Args:
            index (int or str): the parameter's key, selecting its learning rate, weight decay
                and update count.
            weight (NDArray): the parameter, updated in place.
            grad (NDArray): its gradient (multiplied by `rescale_grad`, then clipped to
                ``[-clip_gradient, clip_gradient]`` when that is set).
            state: what `create_state` returned for this parameter; updated in place.

        Example::

            opt = mx.optimizer.FTML(learning_rate=0.1)
            w, g = nd.ones((2,)), nd.ones((2,))
            opt.update(0, w, g, opt.create_state(0, w))
            w.asnumpy()   # array([0.9, 0.9], dtype=float32)
        """
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        kw = self._op_kwargs("clip_grad")
        d, v, z = state
        nd.ftml_update(weight, grad, d, v, z, out=weight, lr=lr, wd=wd, beta1=self.beta1,
                       beta2=self.beta2, epsilon=self.epsilon,
                       t=self._index_update_count[index], **kw)


def _is_unscaled(name):
    return name.endswith("gamma") or name.endswith("beta") or name.endswith("bias")


@register
class LARS(_MasterCopyFirst):
    """Layer-wise adaptive rate scaling (SGD whose learning rate per layer is scaled by
    ``eta * |w| / (|g| + wd * |w| + eps)``; biases, gammas and betas are not scaled).

    Args:
        momentum (float): the momentum (default 0: plain SGD steps).
        lazy_update (bool): with a row_sparse gradient, update only its rows (default
            True).
        eta (float): the trust coefficient (default 0.001).
        eps (float): added to the denominator of the trust ratio (default 0).
        momentum_correction: scale the momentum by lr / last lr when the lr changes.
        **kwargs: the base `Optimizer`'s arguments (`wd`, `rescale_grad`, `clip_gradient`,
            `lr_scheduler`, ...).

    Example::

        opt = mx.optimizer.LARS(learning_rate=0.1, momentum=0.9)
        w, g = nd.ones((2,)), nd.ones((2,))
        opt.update(0, w, g, opt.create_state(0, w))
        w.asnumpy()   # array([0.9999, 0.9999], dtype=float32)
    """

    def __init__(self, momentum=0.0, lazy_update=True, eta=0.001, eps=0,
                 momentum_correction=True, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.momentum_correction = momentum_correction
        self.lazy_update = lazy_update
        self.eta, self.eps = eta, eps
        self.skip = 0
        self.last_lr = None
        self.cur_lr = None

    def create_state(self, index, weight):
        """The momentum buffer (None without momentum).

        Args:
            index (int or str): the parameter's key.
            weight (NDArray): the parameter; the state arrays take its shape and context.

        Returns:
            The state described above, which `update` then receives as `state`.

        Example::

            opt = mx.optimizer.LARS(learning_rate=0.1, momentum=0.9)
            state = opt.create_state(0, nd.ones((2,)))
            state.shape   # (2,): zeros shaped like the weight
        """
        return _zeros(weight) if self.momentum != 0.0 else None

    def _get_lrs(self, indices):
        if self.cur_lr is not None:
            self.last_lr = self.cur_lr
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        if self.cur_lr is None:
            self.last_lr = lr
        self.cur_lr = lr
        return [lr * self._mult(i, "lr_mult") for i in indices]

    def set_wd_mult(self, args_wd_mult):
        """As `Optimizer.set_wd_mult`, but every named parameter keeps its weight decay
        unless `sym` or `args_wd_mult` say otherwise (MXNet's LARS).

        Example::

            opt = mx.optimizer.LARS(wd=0.1, param_idx2name={0: 'fc_bias'})
            opt.set_wd_mult({'fc_bias': 0.0})
            opt.wd_mult   # {'fc_bias': 0.0}: the bias now has no weight decay
        """
        self.wd_mult = self._sym_mults("__wd_mult__")
        self.wd_mult.update(args_wd_mult)

    def _lars(self, index, weight, grad, lr, wd):
        name = self.idx2name.get(index, str(index))
        if _is_unscaled(name):
            return lr
        w = float(nd.norm(weight.astype("float32")).asscalar())
        g = float(nd.norm(grad.astype("float32") * self.rescale_grad).asscalar())
        if w > 0.0 and g > 0.0:
            return lr * self.eta * w / (g + wd * w + self.eps)
        return lr

    def _update_impl(self, indices, weights, grads, states, mp):
        if not isinstance(indices, (list, tuple)):
            indices, weights, grads, states = [indices], [weights], [grads], [states]
        self._update_count(indices)
        kw = self._op_kwargs()
        if self.momentum > 0:
            corrected = self.momentum_correction and self.last_lr not in (None, 0)
            kw["momentum"] = self.momentum
        lrs, wds = self._get_lrs(indices), self._get_wds(indices)
        if self.momentum > 0 and corrected and self.last_lr:
            kw["momentum"] = self.momentum * (self.cur_lr / self.last_lr)
        for i, w, g, s, lr, wd in zip(indices, weights, grads, states, lrs, wds):
            lr = self._lars(i, w, g, lr, wd)
            SGD._step(self, w, g, s, lr, wd, kw, mp)


@register
class LBSGD(Optimizer):
    """Large-batch SGD: SGD with momentum whose learning rate warms up (``linear``,
    ``power2``, ``sqrt``) over `warmup_epochs`, or is scaled per layer (``lars``), and
    which accumulates `batch_scale` gradients before each step.

    Args:
        momentum (float): the momentum of the SGD step (default 0: none).
        multi_precision (bool): keep float32 master copies of float16 weights.
        warmup_strategy (str): ``'linear'``, ``'power2'`` or ``'sqrt'``: how the
            learning-rate multiplier grows from 1 to `batch_scale` over the warmup;
            ``'lars'``: a per-layer ``sqrt(|w|^2 / (|g|^2 + wd |w|^2))`` multiplier clamped
            to [0.01, 100]; any other name keeps the multiplier 1.
        warmup_epochs: the number of epochs of the warmup (default 5).
        batch_scale: how many gradients are accumulated (and averaged) per step; also
            the multiplier reached at the end of the warmup (default 1).
        updates_per_epoch (int): updates per epoch, to convert epochs to update counts
            (default 32).
        begin_epoch (int): the epoch training starts from, so the warmup resumes there
            (default 0).
        num_epochs (int): the total number of epochs (kept; default 60).
        **kwargs: the base `Optimizer`'s arguments (`wd`, `rescale_grad`, `clip_gradient`,
            `lr_scheduler`, ...).

    Example::

        opt = mx.optimizer.LBSGD(learning_rate=0.1, momentum=0.9)
        w, g = nd.ones((2,)), nd.ones((2,))
        opt.update(0, w, g, opt.create_state(0, w))
        w.asnumpy()   # array([0.9, 0.9], dtype=float32)
    """

    def __init__(self, momentum=0.0, multi_precision=False, warmup_strategy="linear",
                 warmup_epochs=5, batch_scale=1, updates_per_epoch=32, begin_epoch=0,
                 num_epochs=60, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.multi_precision = multi_precision
        self.warmup_strategy = warmup_strategy
        self.warmup_epochs = warmup_epochs
        self.batch_scale = batch_scale
        self.updates_per_epoch = updates_per_epoch
        self.init_updates = begin_epoch * updates_per_epoch
        self.num_epochs = num_epochs
        self.lbmult = 1
        self.cumgrads = {}
        self.adaptive = False
        self.admult = 1

    def create_state(self, index, weight):
        """The momentum (and float32 master copy for float16 with multi_precision).

        Args:
            index (int or str): the parameter's key.
            weight (NDArray): the parameter; the state arrays take its shape and context.

        Returns:
            The state described above, which `update` then receives as `state`.

        Example::

            opt = mx.optimizer.LBSGD(learning_rate=0.1, momentum=0.9)
            state = opt.create_state(0, nd.ones((2,)))
            state.shape   # (2,): zeros shaped like the weight
        """
        if self.multi_precision and weight.dtype == np.float16:
            mom = _zeros(weight, np.float32) if self.momentum != 0.0 else None
            return (mom, weight.astype(np.float32))
        return _zeros(weight) if self.momentum != 0.0 else None

    def create_state_multi_precision(self, index, weight):
        """The same as `create_state` (it handles float16 itself).

        Args:
            index (int or str): the parameter's key.
            weight (NDArray): the parameter (float16 gets a float32 master copy with
                multi_precision).

        Returns:
            The state described above, which `update_multi_precision` then receives.

        Example::

            opt = mx.optimizer.LBSGD(learning_rate=0.1, momentum=0.9, multi_precision=True)
            w16 = nd.ones((2,), dtype='float16')
            state = opt.create_state_multi_precision(0, w16)
            state[0].dtype   # <class 'numpy.float32'> (the float32 master copy)
        """
        return self.create_state(index, weight)

    def _get_lbmult(self, nup):
        nwup = self.warmup_epochs * self.updates_per_epoch
        maxmult = float(self.batch_scale)
        if nup >= nwup:
            return maxmult
        if nwup <= 1:
            return 1.0
        if self.warmup_strategy == "linear":
            return 1.0 + (maxmult - 1) * nup / nwup
        if self.warmup_strategy == "power2":
            return 1.0 + (maxmult - 1) * (nup * nup) / (nwup * nwup)
        if self.warmup_strategy == "sqrt":
            return 1.0 + (maxmult - 1) * math.sqrt(float(nup) / nwup)
        return 1.0

    def _get_lars(self, weight, g, wd):
        w2 = float((weight * weight).asnumpy().sum())
        g2 = float((g * g).asnumpy().sum())
        lars = math.sqrt(w2 / (g2 + wd * w2 + 1e-18))
        return min(max(lars, 0.01), 100)

    def update_multi_precision(self, index, weight, grad, state):
        """The same as `update` (float16 handled by the fused ``mp_`` operators).

        Args:
            index (int or str): the parameter's key.
            weight (NDArray): the parameter, updated in place.
            grad (NDArray): its gradient.
            state: what `create_state_multi_precision` returned for this parameter.

        Example::

            opt = mx.optimizer.LBSGD(learning_rate=0.1, momentum=0.9, multi_precision=True)
            w = nd.ones((2,), dtype='float16')
            state = opt.create_state_multi_precision(0, w)
            opt.update_multi_precision(0, w, nd.ones((2,), dtype='float16'), state)
            w.asnumpy()   # array([0.9, 0.9], dtype=float16)
        """
        self.update(index, weight, grad, state)

    def update(self, index, weight, grad, state):
        """Accumulate `grad`; every `batch_scale` calls, one SGD step on `weight` in place.

        Args:
            index (int or str): the parameter's key, selecting its learning rate, weight decay
                and update count.
            weight (NDArray): the parameter, updated in place.
            grad (NDArray): its gradient (multiplied by `rescale_grad`, then clipped to
                ``[-clip_gradient, clip_gradient]`` when that is set).
            state: what `create_state` returned for this parameter; updated in place.

        Example::

            opt = mx.optimizer.LBSGD(learning_rate=0.1, momentum=0.9)
            w, g = nd.ones((2,)), nd.ones((2,))
            opt.update(0, w, g, opt.create_state(0, w))
            w.asnumpy()   # array([0.9, 0.9], dtype=float32)
        """
        lr, wd = self._get_lr(index), self._get_wd(index)
        self._update_count(index)
        c = self.cumgrads.get(index)
        if c and c["num_cums"] > 0:
            c = {"cum_grad": c["cum_grad"] + grad, "num_cums": c["num_cums"] + 1}
        else:
            c = {"cum_grad": grad, "num_cums": self.init_updates + 1}
        self.cumgrads[index] = c
        if c["num_cums"] % self.batch_scale != 0:
            return
        grad = c["cum_grad"] / self.batch_scale
        if self.warmup_strategy == "lars":
            lbmult = self._get_lars(weight, grad, wd)
        else:
            lbmult = self._get_lbmult(c["num_cums"])
        lr = lr * lbmult
        kw = {"rescale_grad": self.rescale_grad}
        if self.momentum > 0:
            kw["momentum"] = self.momentum
        if self.clip_gradient is not None:
            kw["clip_gradient"] = self.clip_gradient
        mp = isinstance(state, (list, tuple))
        SGD._step(self, weight, grad, state, lr, wd, kw, mp)
        # the count goes on (it drives the warmup); only the accumulated gradient restarts
        self.cumgrads[index] = {"cum_grad": 0, "num_cums": c["num_cums"]}


@register
class LAMB(Optimizer):
    """LAMB: Adam directions scaled per layer by ``|w| / |direction|``
    (``lamb_update_phase1`` / ``phase2``, ``mp_`` for float16 with multi_precision).

    Args:
        learning_rate (float): the step size (default 0.001).
        beta1 (float): the decay rate of the mean estimate (default 0.9).
        beta2 (float): the decay rate of the variance estimate (default 0.999).
        epsilon (float): added to the denominator of the Adam direction (default 1e-6).
        lower_bound (float): the smallest ``|w|`` used in the trust ratio (default None:
            no lower clamp).
        upper_bound (float): the largest ``|w|`` used in the trust ratio (default None:
            no upper clamp).
        bias_correction: Adam's bias correction of the moments.
        **kwargs: the base `Optimizer`'s arguments (`wd`, `rescale_grad`, `clip_gradient`,
            `lr_scheduler`, ...).

    Example::

        opt = mx.optimizer.LAMB(learning_rate=0.1)
        w, g = nd.ones((2,)), nd.ones((2,))
        opt.update(0, w, g, opt.create_state(0, w))
        w.asnumpy()   # array([0.9, 0.9], dtype=float32)
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-6,
                 lower_bound=None, upper_bound=None, bias_correction=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.lower_bound, self.upper_bound = lower_bound, upper_bound
        self.bias_correction = bias_correction

    def create_state(self, index, weight):
        """(mean, var).

        Args:
            index (int or str): the parameter's key.
            weight (NDArray): the parameter; the state arrays take its shape and context.

        Returns:
            The state described above, which `update` then receives as `state`.

        Example::

            opt = mx.optimizer.LAMB(learning_rate=0.1)
            state = opt.create_state(0, nd.ones((2,)))
            len(state)   # 2: a tuple of 2 arrays shaped like the weight
        """
        return (_zeros(weight), _zeros(weight))

    def _bounds(self):
        kw = {}
        if self.lower_bound:
            kw["lower_bound"] = self.lower_bound
        if self.upper_bound:
            kw["upper_bound"] = self.upper_bound
        return kw

    def _update_impl(self, index, weight, grad, state, mp):
        if isinstance(index, (list, tuple)):
            for i, w, g, s in zip(index, weight, grad, state):
                self._update_impl(i, w, g, s, mp)
            return
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        kw = dict(self._op_kwargs(), beta1=self.beta1, beta2=self.beta2, epsilon=self.epsilon,
                  bias_correction=self.bias_correction, t=self._index_update_count[index])
        if mp:
            w32, (mean, var) = state
            g = nd.mp_lamb_update_phase1(weight, grad, mean, var, w32, wd=wd, **kw)
            nd.mp_lamb_update_phase2(weight, g, w32.norm(), g.norm(), w32, lr=lr,
                                     out=weight, **self._bounds())
        else:
            mean, var = state
            g = nd.lamb_update_phase1(weight, grad, mean, var, wd=wd, **kw)
            nd.lamb_update_phase2(weight, g, weight.norm(), g.norm(), lr=lr, out=weight,
                                  **self._bounds())

    def update(self, index, weight, grad, state):
        """One LAMB step on `weight` in place.

        Args:
            index (int or str): the parameter's key, selecting its learning rate, weight decay
                and update count.
            weight (NDArray): the parameter, updated in place.
            grad (NDArray): its gradient (multiplied by `rescale_grad`, then clipped to
                ``[-clip_gradient, clip_gradient]`` when that is set).
            state: what `create_state` returned for this parameter; updated in place.

        Example::

            opt = mx.optimizer.LAMB(learning_rate=0.1)
            w, g = nd.ones((2,)), nd.ones((2,))
            opt.update(0, w, g, opt.create_state(0, w))
            w.asnumpy()   # array([0.9, 0.9], dtype=float32)
        """
        self._update_impl(index, weight, grad, state, False)

    def update_multi_precision(self, index, weight, grad, state):
        """One step, with the float32 master copy for float16 weights (multi_precision).

        Args:
            index (int or str): the parameter's key.
            weight (NDArray): the parameter, updated in place.
            grad (NDArray): its gradient.
            state: what `create_state_multi_precision` returned for this parameter.

        Example::

            opt = mx.optimizer.LAMB(learning_rate=0.1, multi_precision=True)
            w = nd.ones((2,), dtype='float16')
            state = opt.create_state_multi_precision(0, w)
            opt.update_multi_precision(0, w, nd.ones((2,), dtype='float16'), state)
            w.asnumpy()   # array([0.9, 0.9], dtype=float16)
        """
        w0 = weight[0] if isinstance(index, (list, tuple)) else weight
        self._update_impl(index, weight, grad, state,
                          self.multi_precision and w0.dtype == np.float16)


@register
class DCASGD(Optimizer):
    """Delay-compensated asynchronous SGD: the gradient is corrected by
    ``lamda * grad * grad * (weight - previous_weight)``.

    Args:
        momentum (float): the momentum (default 0: no momentum buffer).
        lamda (float): the scale of the delay compensation term (default 0.04).
        **kwargs: the base `Optimizer`'s arguments (`wd`, `rescale_grad`, `clip_gradient`,
            `lr_scheduler`, ...).

    Example::

        opt = mx.optimizer.DCASGD(learning_rate=0.1, momentum=0.9)
        w, g = nd.ones((2,)), nd.ones((2,))
        opt.update(0, w, g, opt.create_state(0, w))
        w.asnumpy()   # array([0.9, 0.9], dtype=float32)
    """

    def __init__(self, momentum=0.0, lamda=0.04, **kwargs):
        super().__init__(**kwargs)
        self.momentum = momentum
        self.weight_previous = {}
        self.lamda = lamda

    def create_state(self, index, weight):
        """(momentum or None, previous weight).

        Args:
            index (int or str): the parameter's key.
            weight (NDArray): the parameter; the state arrays take its shape and context.

        Returns:
            The state described above, which `update` then receives as `state`.

        Example::

            opt = mx.optimizer.DCASGD(learning_rate=0.1, momentum=0.9)
            state = opt.create_state(0, nd.ones((2,)))
            len(state)   # 2: a tuple of 2 arrays shaped like the weight
        """
        return (_zeros(weight) if self.momentum != 0.0 else None, weight.copy())

    def update(self, index, weight, grad, state):
        """One DCASGD step on `weight` in place.

        Args:
            index (int or str): the parameter's key, selecting its learning rate, weight decay
                and update count.
            weight (NDArray): the parameter, updated in place.
            grad (NDArray): its gradient (multiplied by `rescale_grad`, then clipped to
                ``[-clip_gradient, clip_gradient]`` when that is set).
            state: what `create_state` returned for this parameter; updated in place.

        Example::

            opt = mx.optimizer.DCASGD(learning_rate=0.1, momentum=0.9)
            w, g = nd.ones((2,)), nd.ones((2,))
            opt.update(0, w, g, opt.create_state(0, w))
            w.asnumpy()   # array([0.9, 0.9], dtype=float32)
        """
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        grad = _clip(self, grad * self.rescale_grad)
        mom, prev = state
        step = -lr * (grad + wd * weight + self.lamda * grad * grad * (weight - prev))
        if mom is not None:
            mom[:] *= self.momentum
            mom[:] += step
            step = mom
        prev[:] = weight
        weight[:] += step


@register
class SGLD(Optimizer):
    """Stochastic gradient Langevin dynamics: a half SGD step plus Gaussian noise of
    variance lr.

    Args:
        rescale_grad: every gradient is multiplied by this first.
        param_idx2name: index -> parameter name (see `Optimizer`).
        wd: the L2 weight decay.
        clip_gradient: clip the rescaled gradient to ``[-c, c]`` when given.
        learning_rate: the step size, also the noise variance (0.01 by default).
        lr_scheduler: a callable ``num_update -> lr`` replacing `learning_rate`.
        sym: a Symbol whose variables' multiplier attributes apply (see `Optimizer`).
        begin_num_update: the update count to start from.
        multi_precision: keep a float32 master copy of float16 weights.
        param_dict: index -> `gluon.Parameter`, whose multipliers win.

    Example::

        opt = mx.optimizer.SGLD(learning_rate=0.1)
        w, g = nd.ones((2,)), nd.ones((2,))
        opt.update(0, w, g, opt.create_state(0, w))   # a step plus noise
        w.shape   # (2,)
    """

    def update(self, index, weight, grad, state):
        """One SGLD step on `weight` in place (draws from gluonlite's random state).

        Args:
            index (int or str): the parameter's key, selecting its learning rate, weight decay
                and update count.
            weight (NDArray): the parameter, updated in place.
            grad (NDArray): its gradient (multiplied by `rescale_grad`, then clipped to
                ``[-clip_gradient, clip_gradient]`` when that is set).
            state: what `create_state` returned for this parameter; updated in place.

        Example::

            opt = mx.optimizer.SGLD(learning_rate=0.1)
            w, g = nd.ones((2,)), nd.ones((2,))
            opt.update(0, w, g, None)   # half an SGD step plus Gaussian noise
        """
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        grad = _clip(self, grad * self.rescale_grad)
        weight[:] += -lr / 2 * (grad + wd * weight)
        weight[:] += nd.random.normal(0, math.sqrt(lr), shape=weight.shape,
                                      dtype=weight.dtype, ctx=weight.context)


@register
class Adam(Optimizer):
    """Adam (``adam_update``) with the bias correction folded into the learning rate:
    ``lr_t = lr * sqrt(1 - beta2**t) / (1 - beta1**t)``.

    Args:
        learning_rate (float): the step size before the bias correction (default 0.001).
        beta1 (float): the decay rate of the first-moment (mean) estimate (default 0.9).
        beta2 (float): the decay rate of the second-moment (variance) estimate
            (default 0.999).
        epsilon (float): added to the square root of the variance in the denominator
            (default 1e-8).
        lazy_update: with a row_sparse gradient, update only its rows (weight, mean and
            variance); False: every row, as with the dense gradient.
        **kwargs: the base `Optimizer`'s arguments (`wd`, `rescale_grad`, `clip_gradient`,
            `lr_scheduler`, ...).

    Example::

        opt = mx.optimizer.Adam(learning_rate=0.1)
        w, g = nd.ones((2,)), nd.ones((2,))
        opt.update(0, w, g, opt.create_state(0, w))
        w.asnumpy()   # array([0.90000004, 0.90000004], dtype=float32)
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 lazy_update=True, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.lazy_update = lazy_update

    def create_state(self, index, weight):
        """(mean, variance), row_sparse for a row_sparse weight with lazy updates.

        Args:
            index (int or str): the parameter's key.
            weight (NDArray): the parameter; the state arrays take its shape and context.

        Returns:
            The state described above, which `update` then receives as `state`.

        Example::

            opt = mx.optimizer.Adam(learning_rate=0.1)
            state = opt.create_state(0, nd.ones((2,)))
            len(state)   # 2: a tuple of 2 arrays shaped like the weight
        """
        stype = _lazy_stype(self, weight)
        return (_zeros(weight, stype=stype), _zeros(weight, stype=stype))

    def update(self, index, weight, grad, state):
        """One Adam step on `weight` in place.

        Args:
            index (int or str): the parameter's key, selecting its learning rate, weight decay
                and update count.
            weight (NDArray): the parameter, updated in place.
            grad (NDArray): its gradient (multiplied by `rescale_grad`, then clipped to
                ``[-clip_gradient, clip_gradient]`` when that is set).
            state: what `create_state` returned for this parameter; updated in place.

        Example::

            opt = mx.optimizer.Adam(learning_rate=0.1)
            w, g = nd.ones((2,)), nd.ones((2,))
            opt.update(0, w, g, opt.create_state(0, w))
            w.asnumpy()   # array([0.90000004, 0.90000004], dtype=float32)
        """
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        t = self._index_update_count[index]
        lr *= math.sqrt(1. - self.beta2 ** t) / (1. - self.beta1 ** t)
        mean, var = state
        nd.adam_update(weight, grad, mean, var, out=weight, lazy_update=self.lazy_update,
                       lr=lr, wd=wd, beta1=self.beta1, beta2=self.beta2,
                       epsilon=self.epsilon, **self._op_kwargs())


@register
class AdaGrad(Optimizer):
    """AdaGrad: ``history += g**2; weight -= lr * (g / sqrt(history + eps) + wd * weight)``.

    Args:
        eps (float): added inside the square root of the history (default 1e-7).
        **kwargs: the base `Optimizer`'s arguments (`wd`, `rescale_grad`, `clip_gradient`,
            `lr_scheduler`, ...).

    Example::

        opt = mx.optimizer.AdaGrad(learning_rate=0.1)
        w, g = nd.ones((2,)), nd.ones((2,))
        opt.update(0, w, g, opt.create_state(0, w))
        w.asnumpy()   # array([0.9, 0.9], dtype=float32)
    """

    def __init__(self, eps=1e-7, **kwargs):
        super().__init__(**kwargs)
        self.float_stable_eps = eps

    def create_state(self, index, weight):
        """The history of squared gradients (float32, as MXNet; the weight's storage type).

        Args:
            index (int or str): the parameter's key.
            weight (NDArray): the parameter; the state arrays take its shape and context.

        Returns:
            The state described above, which `update` then receives as `state`.

        Example::

            opt = mx.optimizer.AdaGrad(learning_rate=0.1)
            state = opt.create_state(0, nd.ones((2,)))
            state.shape   # (2,): zeros shaped like the weight
        """
        return nd.zeros(weight.shape, weight.context, stype=weight.stype)

    def update(self, index, weight, grad, state):
        """One AdaGrad step on `weight` in place; a row_sparse gradient updates only its rows
        (``nd.sparse.adagrad_update``, which takes no weight decay).

        Args:
            index (int or str): the parameter's key, selecting its learning rate, weight decay
                and update count.
            weight (NDArray): the parameter, updated in place.
            grad (NDArray): its gradient (multiplied by `rescale_grad`, then clipped to
                ``[-clip_gradient, clip_gradient]`` when that is set).
            state: what `create_state` returned for this parameter; updated in place.

        Example::

            opt = mx.optimizer.AdaGrad(learning_rate=0.1)
            w, g = nd.ones((2,)), nd.ones((2,))
            opt.update(0, w, g, opt.create_state(0, w))
            w.asnumpy()   # array([0.9, 0.9], dtype=float32)
        """
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        if grad.stype == "row_sparse":
            kw = {"epsilon": self.float_stable_eps, "rescale_grad": self.rescale_grad}
            if self.clip_gradient:
                kw["clip_gradient"] = self.clip_gradient
            nd.sparse.adagrad_update(weight, grad, state, out=weight, lr=lr, wd=wd, **kw)
            return
        grad = _clip(self, grad * self.rescale_grad)
        state[:] += nd.square(grad)
        div = grad / nd.sqrt(state + self.float_stable_eps)
        weight[:] += (div + weight * wd) * -lr


@register
class RMSProp(Optimizer):
    """RMSProp (Tieleman & Hinton, ``rmsprop_update``), or with ``centered=True`` Graves'
    version (``rmspropalex_update``).

    Args:
        learning_rate (float): the step size (default 0.001).
        gamma1 (float): the decay rate of the moving averages of the squared gradient
            (and, centered, of the gradient) (default 0.9).
        gamma2 (float): the momentum of the step, used by the centered version only
            (default 0.9).
        epsilon (float): added to the denominator (default 1e-8).
        centered (bool): False: Tieleman & Hinton's RMSProp; True: Graves' centered
            version, which also tracks the mean gradient.
        clip_weights (float): when given, clip the weights to ``[-clip_weights,
            clip_weights]`` after each step (default None: no clipping).
        **kwargs: the base `Optimizer`'s arguments (`wd`, `rescale_grad`, `clip_gradient`,
            `lr_scheduler`, ...).

    Example::

        opt = mx.optimizer.RMSProp(learning_rate=0.1)
        w, g = nd.ones((2,)), nd.ones((2,))
        opt.update(0, w, g, opt.create_state(0, w))
        w.asnumpy()   # array([0.6837722, 0.6837722], dtype=float32)
    """

    def __init__(self, learning_rate=0.001, gamma1=0.9, gamma2=0.9, epsilon=1e-8,
                 centered=False, clip_weights=None, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.gamma1, self.gamma2 = gamma1, gamma2
        self.centered = centered
        self.epsilon = epsilon
        self.clip_weights = clip_weights

    def create_state(self, index, weight):
        """(n,) or, centered, (n, g, delta) (float32, as MXNet).

        Args:
            index (int or str): the parameter's key.
            weight (NDArray): the parameter; the state arrays take its shape and context.

        Returns:
            The state described above, which `update` then receives as `state`.

        Example::

            opt = mx.optimizer.RMSProp(learning_rate=0.1)
            state = opt.create_state(0, nd.ones((2,)))
            len(state)   # 1: a tuple of 1 array shaped like the weight
        """
        if self.centered:
            return tuple(nd.zeros(weight.shape, weight.context) for _ in range(3))
        return (nd.zeros(weight.shape, weight.context),)

    def update(self, index, weight, grad, state):
        """One RMSProp step on `weight` in place.

        Args:
            index (int or str): the parameter's key, selecting its learning rate, weight decay
                and update count.
            weight (NDArray): the parameter, updated in place.
            grad (NDArray): its gradient (multiplied by `rescale_grad`, then clipped to
                ``[-clip_gradient, clip_gradient]`` when that is set).
            state: what `create_state` returned for this parameter; updated in place.

        Example::

            opt = mx.optimizer.RMSProp(learning_rate=0.1)
            w, g = nd.ones((2,)), nd.ones((2,))
            opt.update(0, w, g, opt.create_state(0, w))
            w.asnumpy()   # array([0.6837722, 0.6837722], dtype=float32)
        """
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        kw = dict(self._op_kwargs(), gamma1=self.gamma1, epsilon=self.epsilon)
        if self.clip_weights:
            kw["clip_weights"] = self.clip_weights
        if self.centered:
            n, g, delta = state
            nd.rmspropalex_update(weight, grad, n, g, delta, out=weight, lr=lr, wd=wd,
                                  gamma2=self.gamma2, **kw)
        else:
            n, = state
            nd.rmsprop_update(weight, grad, n, out=weight, lr=lr, wd=wd, **kw)


@register
class AdaDelta(Optimizer):
    """AdaDelta (Zeiler): step ``sqrt(acc_delta + eps) / sqrt(acc_grad + eps) * grad``.

    Args:
        rho (float): the decay rate of both running averages (default 0.9).
        epsilon (float): added inside the square roots (default 1e-5).
        **kwargs: the base `Optimizer`'s arguments (`wd`, `rescale_grad`, `clip_gradient`,
            `lr_scheduler`, ...).

    Example::

        opt = mx.optimizer.AdaDelta()
        w, g = nd.ones((2,)), nd.ones((2,))
        opt.update(0, w, g, opt.create_state(0, w))
        w.asnumpy()   # array([0.9900005, 0.9900005], dtype=float32)
    """

    def __init__(self, rho=0.90, epsilon=1e-5, **kwargs):
        super().__init__(**kwargs)
        self.rho = rho
        self.epsilon = epsilon

    def create_state(self, index, weight):
        """(accumulated squared gradients, accumulated squared deltas) (float32).

        Args:
            index (int or str): the parameter's key.
            weight (NDArray): the parameter; the state arrays take its shape and context.

        Returns:
            The state described above, which `update` then receives as `state`.

        Example::

            opt = mx.optimizer.AdaDelta()
            state = opt.create_state(0, nd.ones((2,)))
            len(state)   # 2: a tuple of 2 arrays shaped like the weight
        """
        return (nd.zeros(weight.shape, weight.context), nd.zeros(weight.shape, weight.context))

    def update(self, index, weight, grad, state):
        """One AdaDelta step on `weight` in place.

        Args:
            index (int or str): the parameter's key, selecting its learning rate, weight decay
                and update count.
            weight (NDArray): the parameter, updated in place.
            grad (NDArray): its gradient (multiplied by `rescale_grad`, then clipped to
                ``[-clip_gradient, clip_gradient]`` when that is set).
            state: what `create_state` returned for this parameter; updated in place.

        Example::

            opt = mx.optimizer.AdaDelta()
            w, g = nd.ones((2,)), nd.ones((2,))
            opt.update(0, w, g, opt.create_state(0, w))
            w.asnumpy()   # array([0.9900005, 0.9900005], dtype=float32)
        """
        wd = self._get_wd(index)
        self._update_count(index)
        grad = _clip(self, grad * self.rescale_grad)
        acc_g, acc_delta = state
        acc_g[:] *= self.rho
        acc_g[:] += (1. - self.rho) * grad * grad
        delta = nd.sqrt(acc_delta + self.epsilon) / nd.sqrt(acc_g + self.epsilon) * grad
        acc_delta[:] *= self.rho
        acc_delta[:] += (1. - self.rho) * delta * delta
        weight[:] -= delta + wd * weight


@register
class Ftrl(Optimizer):
    """FTRL-proximal (``ftrl_update``).

    Args:
        lamda1 (float): the L1 regularization strength (default 0.01).
        learning_rate (float): the step size, MXNet's alpha (default 0.1).
        beta (float): the per-coordinate learning-rate parameter added to
            ``sqrt(n)`` (default 1).
        **kwargs: the base `Optimizer`'s arguments (`wd`, `rescale_grad`, `clip_gradient`,
            `lr_scheduler`, ...).

    Example::

        opt = mx.optimizer.Ftrl(learning_rate=0.1)
        w, g = nd.ones((2,)), nd.ones((2,))
        opt.update(0, w, g, opt.create_state(0, w))
        w.asnumpy()   # array([0.4495, 0.4495], dtype=float32)
    """

    def __init__(self, lamda1=0.01, learning_rate=0.1, beta=1, **kwargs):
        super().__init__(**kwargs)
        self.lamda1 = lamda1
        self.beta = beta
        self.lr = learning_rate

    def create_state(self, index, weight):
        """(z, n) (float32, as MXNet; the weight's storage type).

        Args:
            index (int or str): the parameter's key.
            weight (NDArray): the parameter; the state arrays take its shape and context.

        Returns:
            The state described above, which `update` then receives as `state`.

        Example::

            opt = mx.optimizer.Ftrl(learning_rate=0.1)
            state = opt.create_state(0, nd.ones((2,)))
            len(state)   # 2: a tuple of 2 arrays shaped like the weight
        """
        return (nd.zeros(weight.shape, weight.context, stype=weight.stype),
                nd.zeros(weight.shape, weight.context, stype=weight.stype))

    def update(self, index, weight, grad, state):
        """One FTRL step on `weight` in place.

        Args:
            index (int or str): the parameter's key, selecting its learning rate, weight decay
                and update count.
            weight (NDArray): the parameter, updated in place.
            grad (NDArray): its gradient (multiplied by `rescale_grad`, then clipped to
                ``[-clip_gradient, clip_gradient]`` when that is set).
            state: what `create_state` returned for this parameter; updated in place.

        Example::

            opt = mx.optimizer.Ftrl(learning_rate=0.1)
            w, g = nd.ones((2,)), nd.ones((2,))
            opt.update(0, w, g, opt.create_state(0, w))
            w.asnumpy()   # array([0.4495, 0.4495], dtype=float32)
        """
        self._update_count(index)
        wd, lr = self._get_wd(index), self._get_lr(index)
        z, n = state
        nd.ftrl_update(weight, grad, z, n, out=weight, lr=lr, wd=wd, lamda1=self.lamda1,
                       beta=self.beta, **self._op_kwargs())


@register
class Adamax(Optimizer):
    """AdaMax (Adam with the infinity norm): ``u = max(beta2 * u, |g|)``,
    ``weight -= lr / (1 - beta1**t) * m / u``.

    Args:
        learning_rate (float): the step size before the bias correction (default 0.002).
        beta1 (float): the decay rate of the first moment (default 0.9).
        beta2 (float): the decay of the exponentially weighted infinity norm
            (default 0.999).
        **kwargs: the base `Optimizer`'s arguments (`wd`, `rescale_grad`, `clip_gradient`,
            `lr_scheduler`, ...).

    Example::

        opt = mx.optimizer.Adamax(learning_rate=0.1)
        w, g = nd.ones((2,)), nd.ones((2,))
        opt.update(0, w, g, opt.create_state(0, w))
        w.asnumpy()   # array([0.9, 0.9], dtype=float32)
    """

    def __init__(self, learning_rate=0.002, beta1=0.9, beta2=0.999, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2 = beta1, beta2

    def create_state(self, index, weight):
        """(m, u).

        Args:
            index (int or str): the parameter's key.
            weight (NDArray): the parameter; the state arrays take its shape and context.

        Returns:
            The state described above, which `update` then receives as `state`.

        Example::

            opt = mx.optimizer.Adamax(learning_rate=0.1)
            state = opt.create_state(0, nd.ones((2,)))
            len(state)   # 2: a tuple of 2 arrays shaped like the weight
        """
        return (_zeros(weight), _zeros(weight))

    def update(self, index, weight, grad, state):
        """One AdaMax step on `weight` in place.

        Args:
            index (int or str): the parameter's key, selecting its learning rate, weight decay
                and update count.
            weight (NDArray): the parameter, updated in place.
            grad (NDArray): its gradient (multiplied by `rescale_grad`, then clipped to
                ``[-clip_gradient, clip_gradient]`` when that is set).
            state: what `create_state` returned for this parameter; updated in place.

        Example::

            opt = mx.optimizer.Adamax(learning_rate=0.1)
            w, g = nd.ones((2,)), nd.ones((2,))
            opt.update(0, w, g, opt.create_state(0, w))
            w.asnumpy()   # array([0.9, 0.9], dtype=float32)
        """
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        t = self._index_update_count[index]
        lr /= (1. - self.beta1 ** t)
        grad = _clip(self, grad * self.rescale_grad + wd * weight)
        m, u = state
        m[:] *= self.beta1
        m[:] += (1. - self.beta1) * grad
        u[:] = nd.maximum(self.beta2 * u, nd.abs(grad))
        weight[:] -= lr * m / u


@register
class Nadam(Optimizer):
    """Nesterov Adam (Dozat), with the momentum schedule ``beta1 * (1 - 0.5 *
    0.96**(t * schedule_decay))``.

    Args:
        learning_rate (float): the step size (default 0.001).
        beta1 (float): the base decay rate of the first moment, scheduled as above
            (default 0.9).
        beta2 (float): the decay rate of the second moment (default 0.999).
        epsilon (float): added to the denominator (default 1e-8).
        schedule_decay (float): how fast the momentum schedule warms up (default 0.004).
        **kwargs: the base `Optimizer`'s arguments (`wd`, `rescale_grad`, `clip_gradient`,
            `lr_scheduler`, ...).

    Example::

        opt = mx.optimizer.Nadam(learning_rate=0.1)
        w, g = nd.ones((2,)), nd.ones((2,))
        opt.update(0, w, g, opt.create_state(0, w))
        w.asnumpy()   # array([0.8943548, 0.8943548], dtype=float32)
    """

    def __init__(self, learning_rate=0.001, beta1=0.9, beta2=0.999, epsilon=1e-8,
                 schedule_decay=0.004, **kwargs):
        super().__init__(learning_rate=learning_rate, **kwargs)
        self.beta1, self.beta2, self.epsilon = beta1, beta2, epsilon
        self.schedule_decay = schedule_decay
        self.m_schedule = 1.

    def create_state(self, index, weight):
        """(m, v).

        Args:
            index (int or str): the parameter's key.
            weight (NDArray): the parameter; the state arrays take its shape and context.

        Returns:
            The state described above, which `update` then receives as `state`.

        Example::

            opt = mx.optimizer.Nadam(learning_rate=0.1)
            state = opt.create_state(0, nd.ones((2,)))
            len(state)   # 2: a tuple of 2 arrays shaped like the weight
        """
        return (_zeros(weight), _zeros(weight))

    def update(self, index, weight, grad, state):
        """One Nadam step on `weight` in place.

        Args:
            index (int or str): the parameter's key, selecting its learning rate, weight decay
                and update count.
            weight (NDArray): the parameter, updated in place.
            grad (NDArray): its gradient (multiplied by `rescale_grad`, then clipped to
                ``[-clip_gradient, clip_gradient]`` when that is set).
            state: what `create_state` returned for this parameter; updated in place.

        Example::

            opt = mx.optimizer.Nadam(learning_rate=0.1)
            w, g = nd.ones((2,)), nd.ones((2,))
            opt.update(0, w, g, opt.create_state(0, w))
            w.asnumpy()   # array([0.8943548, 0.8943548], dtype=float32)
        """
        self._update_count(index)
        lr, wd = self._get_lr(index), self._get_wd(index)
        t = self._index_update_count[index]
        grad = _clip(self, grad * self.rescale_grad + wd * weight)
        mom_t = self.beta1 * (1. - 0.5 * (0.96 ** (t * self.schedule_decay)))
        mom_next = self.beta1 * (1. - 0.5 * (0.96 ** ((t + 1) * self.schedule_decay)))
        self.m_schedule = self.m_schedule * mom_t
        m_schedule_next = self.m_schedule * mom_next
        m, v = state
        m[:] *= self.beta1
        m[:] += (1. - self.beta1) * grad
        v[:] *= self.beta2
        v[:] += (1. - self.beta2) * grad * grad
        g_prime = grad / (1. - self.m_schedule)
        m_prime = m / (1. - m_schedule_next)
        v_prime = v / (1. - self.beta2 ** t)
        m_bar = (1. - mom_t) * g_prime + mom_next * m_prime
        weight[:] -= lr * m_bar / (nd.sqrt(v_prime) + self.epsilon)


@register
class Test(Optimizer):
    """MXNet's test optimizer: ``weight += rescale_grad * grad``; the state copies the
    weight.

    Args:
        rescale_grad: the gradient's scale in the step.
        param_idx2name: index -> parameter name (kept, unused by the step).
        wd: weight decay (accepted; the step ignores it).
        clip_gradient: accepted; the step ignores it.
        learning_rate: accepted; the step ignores it.
        lr_scheduler: accepted; the step ignores it.
        sym: a Symbol for per-name multipliers (unused by the step).
        begin_num_update: the update count to start from.
        multi_precision: keep a float32 master copy of float16 weights.
        param_dict: index -> `gluon.Parameter` (unused by the step).

    Example::

        opt = mx.optimizer.Test()
        w, g = nd.ones((2,)), nd.ones((2,))
        opt.update(0, w, g, opt.create_state(0, w))
        w.asnumpy()   # array([2., 2.], dtype=float32)
    """

    def create_state(self, index, weight):
        """A float32 buffer of the weight's shape.

        Args:
            index (int or str): the parameter's key.
            weight (NDArray): the parameter; the state arrays take its shape and context.

        Returns:
            The state described above, which `update` then receives as `state`.

        Example::

            opt = mx.optimizer.Test()
            state = opt.create_state(0, nd.ones((2,)))
            state.shape   # (2,): zeros shaped like the weight
        """
        return nd.zeros(weight.shape, weight.context)

    def update(self, index, weight, grad, state):
        """``weight += grad * rescale_grad``; ``state[:] = weight``.

        Args:
            index (int or str): the parameter's key (not used: no learning rate, no count).
            weight (NDArray): the parameter, updated in place.
            grad (NDArray): its gradient, multiplied by `rescale_grad` (not clipped).
            state (NDArray): the buffer from `create_state`; receives the new weight.

        Example::

            opt = mx.optimizer.Test()
            w, g = nd.ones((2,)), nd.ones((2,))
            opt.update(0, w, g, opt.create_state(0, w))
            w.asnumpy()   # array([2., 2.], dtype=float32)
        """
        weight[:] += grad * self.rescale_grad
        state[:] = weight
