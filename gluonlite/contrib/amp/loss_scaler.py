"""`mx.contrib.amp.loss_scaler`: `LossScaler`, the dynamic loss scale of MXNet's AMP (MXNet
1.9.1's ``contrib/amp/loss_scaler.py``).

AMP itself is not supported (`gluonlite.contrib.amp.amp`), but the scale schedule is plain
arithmetic on the gradients and works on its own, for a loop that scales its float16 loss by
hand.
"""
import logging

from ... import autograd
from ...ndarray import multi_all_finite

__all__ = ["LossScaler"]


class LossScaler:
    """A dynamic loss scale: `loss_scale` starts at 2**16, halves after a step whose gradients
    hold an inf or a NaN, and doubles (up to 2**24) after 2000 steps in a row without one.

    The training loop multiplies the loss by `loss_scale` before `backward`, calls
    `has_overflow` on the parameters, and skips the update when it returns True (otherwise it
    divides the gradients by the scale, e.g. through the trainer's ``rescale_grad``).

    Example::

        scaler = mx.contrib.amp.loss_scaler.LossScaler()
        w = gluon.Parameter('w', shape=(2,))
        w.initialize()
        w.grad()[:] = np.inf       # as a float16 backward that overflowed leaves it
        scaler.has_overflow([w])   # True: the next step uses half the scale
        scaler.has_overflow([w])   # True again; scaler.loss_scale is now 32768.0
    """

    def __init__(self):
        self._loss_scale = 2.0 ** 16
        self._next_loss_scale = self._loss_scale
        self._max_loss_scale = 2.0 ** 24
        self._scale_seq_len = 2000
        self._unskipped = 0

    @property
    def loss_scale(self):
        """The scale of the current step (a float).

        Example::

            mx.contrib.amp.loss_scaler.LossScaler().loss_scale   # 65536.0
        """
        return self._loss_scale

    def has_overflow(self, params):
        """Whether a gradient of `params` holds an inf or a NaN; moves the scale schedule one
        step on (the answer decides the scale of the next step).

        Args:
            params (list of gluon.Parameter): the parameters whose gradients are checked (the
                first context's copy of each; those without a gradient are skipped).

        Returns:
            bool: True when a gradient is not finite (skip this update).

        Example::

            scaler = mx.contrib.amp.loss_scaler.LossScaler()
            w = gluon.Parameter('w', shape=(2,))
            w.initialize()                   # gradient zeros: finite
            scaler.has_overflow([w])         # False
        """
        grads = [p._grad[0] for p in params if p._grad is not None]
        overflow = False
        if grads:
            with autograd.pause():
                finite = multi_all_finite(*grads, num_arrays=len(grads))
            overflow = not bool(finite.asscalar())
        self._loss_scale = self._next_loss_scale
        if overflow:
            self._next_loss_scale = self._loss_scale / 2.0
            self._unskipped = 0
            logging.info("LossScaler: gradient overflow; loss scale %g from the next step",
                         self._next_loss_scale)
            return True
        self._unskipped += 1
        if self._unskipped == self._scale_seq_len:
            self._unskipped = 0
            self._next_loss_scale = min(self._max_loss_scale, self._loss_scale * 2.0)
            logging.info("LossScaler: %d steps without overflow; loss scale %g from the next "
                         "step", self._scale_seq_len, self._next_loss_scale)
        return False
