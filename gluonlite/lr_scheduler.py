"""`mx.lr_scheduler`: learning-rate schedules, called by optimizers as
``scheduler(num_update) -> lr``.

Each schedule may start with a warmup of `warmup_steps` updates, rising linearly from
`warmup_begin_lr` to `base_lr` ('linear') or holding `warmup_begin_lr` ('constant').
An optimizer given ``lr_scheduler=`` sets the scheduler's ``base_lr`` to its learning rate.

Example::

    sched = mx.lr_scheduler.FactorScheduler(step=100, factor=0.5, base_lr=0.1)
    sched(250)   # 0.025
"""
import logging
from math import cos, pi

__all__ = ["LRScheduler", "FactorScheduler", "MultiFactorScheduler", "PolyScheduler",
           "CosineScheduler"]


class LRScheduler:
    """Base class of schedules.

    Args:
        base_lr: the learning rate after warmup.
        warmup_steps: updates of warmup (an int >= 0).
        warmup_begin_lr: the learning rate at update 0 of warmup (<= base_lr).
        warmup_mode: 'linear' or 'constant'.

    Raises:
        TypeError: warmup_steps is not an int.
        ValueError: warmup_begin_lr > base_lr, warmup_steps < 0 or an unknown warmup_mode.

    Example::

        class Halving(mx.lr_scheduler.LRScheduler):
            def __call__(self, num_update):
                return self.base_lr / 2 ** (num_update // 10)
        Halving(base_lr=1.0)(25)   # 0.25
    """

    def __init__(self, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0, warmup_mode="linear"):
        if not isinstance(warmup_steps, int):
            raise TypeError(f"{type(self).__name__}: warmup_steps must be an int, got "
                            f"{type(warmup_steps).__name__}")
        self.base_lr = base_lr
        self.warmup_steps = warmup_steps
        self.warmup_final_lr = base_lr
        self.warmup_begin_lr = warmup_begin_lr
        if self.warmup_begin_lr > self.warmup_final_lr:
            raise ValueError(f"{type(self).__name__}: base_lr ({base_lr}) must be >= "
                             f"warmup_begin_lr ({warmup_begin_lr})")
        if self.warmup_steps < 0:
            raise ValueError(f"{type(self).__name__}: warmup_steps must be >= 0, got "
                             f"{warmup_steps}")
        if warmup_mode not in ("linear", "constant"):
            raise ValueError(f"{type(self).__name__}: warmup_mode must be 'linear' or "
                             f"'constant', got {warmup_mode!r}")
        self.warmup_mode = warmup_mode

    def get_warmup_lr(self, num_update):
        """The learning rate at update `num_update` (< warmup_steps) of warmup.

        Raises:
            ValueError: num_update is past the warmup.

        Example::

            sched = mx.lr_scheduler.FactorScheduler(step=10, base_lr=1.0, warmup_steps=4)
            sched.get_warmup_lr(2)   # 0.5
        """
        if num_update >= self.warmup_steps:
            raise ValueError(f"{type(self).__name__}.get_warmup_lr: num_update {num_update} "
                             f"is past warmup_steps {self.warmup_steps}")
        if self.warmup_mode == "linear":
            rise = (self.warmup_final_lr - self.warmup_begin_lr) * \
                float(num_update) / float(self.warmup_steps)
            return self.warmup_begin_lr + rise
        return self.warmup_begin_lr

    def __call__(self, num_update):
        raise NotImplementedError(f"{type(self).__name__} must define __call__(num_update)")


class FactorScheduler(LRScheduler):
    """Multiply the rate by `factor` every `step` updates, never below `stop_factor_lr`.

    Args:
        step: updates between reductions (>= 1).
        factor: the multiplier (<= 1).
        stop_factor_lr: the lowest rate.
        base_lr (float): the learning rate after warmup (default 0.01).
        warmup_steps (int): the number of warmup updates (default 0: none).
        warmup_begin_lr (float): the rate at update 0 of the warmup (default 0).
        warmup_mode (str): 'linear' (default: from warmup_begin_lr up to base_lr) or
            'constant' (warmup_begin_lr throughout the warmup).

    Raises:
        ValueError: step < 1 or factor > 1.

    Example::

        sched = mx.lr_scheduler.FactorScheduler(step=100, factor=0.5, base_lr=0.1)
        sched(250)   # 0.025
    """

    def __init__(self, step, factor=1, stop_factor_lr=1e-8, base_lr=0.01, warmup_steps=0,
                 warmup_begin_lr=0, warmup_mode="linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if step < 1:
            raise ValueError(f"FactorScheduler: step must be >= 1, got {step}")
        if factor > 1.0:
            raise ValueError(f"FactorScheduler: factor must be <= 1 to reduce the rate, got "
                             f"{factor}")
        self.step = step
        self.factor = factor
        self.stop_factor_lr = stop_factor_lr
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        # the state advances, so the schedule expects non-decreasing num_update
        while num_update > self.count + self.step:
            self.count += self.step
            self.base_lr *= self.factor
            if self.base_lr < self.stop_factor_lr:
                self.base_lr = self.stop_factor_lr
                logging.info("Update[%d]: now learning rate arrived at %0.5e, will not "
                             "change in the future", num_update, self.base_lr)
            else:
                logging.info("Update[%d]: Change learning rate to %0.5e", num_update,
                             self.base_lr)
        return self.base_lr


class MultiFactorScheduler(LRScheduler):
    """Multiply the rate by `factor` once past each update count in `step`.

    Args:
        step: an increasing list of update counts (each >= 1).
        factor: the multiplier (<= 1).
        base_lr (float): the learning rate after warmup (default 0.01).
        warmup_steps (int): the number of warmup updates (default 0: none).
        warmup_begin_lr (float): the rate at update 0 of the warmup (default 0).
        warmup_mode (str): 'linear' (default: from warmup_begin_lr up to base_lr) or
            'constant' (warmup_begin_lr throughout the warmup).

    Raises:
        ValueError: step is not a non-empty increasing list of ints >= 1, or factor > 1.

    Example::

        sched = mx.lr_scheduler.MultiFactorScheduler([10, 20], factor=0.1, base_lr=1.0)
        sched(15)   # 0.1
    """

    def __init__(self, step, factor=1, base_lr=0.01, warmup_steps=0, warmup_begin_lr=0,
                 warmup_mode="linear"):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if not isinstance(step, list) or not step:
            raise ValueError(f"MultiFactorScheduler: step must be a non-empty list, got "
                             f"{step!r}")
        for i, s in enumerate(step):
            if i and s <= step[i - 1]:
                raise ValueError(f"MultiFactorScheduler: step must be increasing, got {step}")
            if s < 1:
                raise ValueError(f"MultiFactorScheduler: every step must be >= 1, got {step}")
        if factor > 1.0:
            raise ValueError(f"MultiFactorScheduler: factor must be <= 1 to reduce the rate, "
                             f"got {factor}")
        self.step = step
        self.cur_step_ind = 0
        self.factor = factor
        self.count = 0

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        while self.cur_step_ind < len(self.step) and num_update > self.step[self.cur_step_ind]:
            self.count = self.step[self.cur_step_ind]
            self.cur_step_ind += 1
            self.base_lr *= self.factor
            logging.info("Update[%d]: Change learning rate to %0.5e", num_update, self.base_lr)
        return self.base_lr


class _DecayToFinal(LRScheduler):
    """From base_lr (after warmup) down to final_lr at max_update, then constant."""

    def __init__(self, max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr,
                 warmup_mode):
        super().__init__(base_lr, warmup_steps, warmup_begin_lr, warmup_mode)
        if not isinstance(max_update, int):
            raise TypeError(f"{type(self).__name__}: max_update must be an int, got "
                            f"{type(max_update).__name__}")
        if max_update < 1:
            raise ValueError(f"{type(self).__name__}: max_update must be >= 1, got "
                             f"{max_update}")
        self.base_lr_orig = self.base_lr
        self.max_update = max_update
        self.final_lr = final_lr
        self.max_steps = self.max_update - self.warmup_steps

    def _shape(self, progress):
        raise NotImplementedError

    def __call__(self, num_update):
        if num_update < self.warmup_steps:
            return self.get_warmup_lr(num_update)
        if num_update <= self.max_update:
            self.base_lr = self.final_lr + (self.base_lr_orig - self.final_lr) * self._shape(
                num_update - self.warmup_steps)
        return self.base_lr


class PolyScheduler(_DecayToFinal):
    """Polynomial decay: ``final + (base - final) * (1 - t / T) ** pwr`` for t = updates
    after warmup, T = max_update - warmup_steps.

    Args:
        max_update: the update at which final_lr is reached (an int >= 1).
        pwr: the power (default 2).
        base_lr (float): the learning rate after warmup (default 0.01).
        warmup_steps (int): the number of warmup updates (default 0: none).
        warmup_begin_lr (float): the rate at update 0 of the warmup (default 0).
        warmup_mode (str): 'linear' (default: from warmup_begin_lr up to base_lr) or
            'constant' (warmup_begin_lr throughout the warmup).
        final_lr (float): the rate reached at `max_update` and kept after (default 0).

    Example::

        sched = mx.lr_scheduler.PolyScheduler(max_update=10, base_lr=1.0, pwr=1)
        sched(5)   # 0.5
    """

    def __init__(self, max_update, base_lr=0.01, pwr=2, final_lr=0, warmup_steps=0,
                 warmup_begin_lr=0, warmup_mode="linear"):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr,
                         warmup_mode)
        self.power = pwr

    def _shape(self, t):
        return pow(1 - float(t) / float(self.max_steps), self.power)


class CosineScheduler(_DecayToFinal):
    """Cosine decay: ``final + (base - final) * (1 + cos(pi * t / T)) / 2``.

    Args:
        max_update: the update at which final_lr is reached (an int >= 1).
        base_lr (float): the learning rate after warmup (default 0.01).
        warmup_steps (int): the number of warmup updates (default 0: none).
        warmup_begin_lr (float): the rate at update 0 of the warmup (default 0).
        warmup_mode (str): 'linear' (default: from warmup_begin_lr up to base_lr) or
            'constant' (warmup_begin_lr throughout the warmup).
        final_lr (float): the rate reached at `max_update` and kept after (default 0).

    Example::

        sched = mx.lr_scheduler.CosineScheduler(max_update=10, base_lr=1.0)
        sched(5)   # 0.5
    """

    def __init__(self, max_update, base_lr=0.01, final_lr=0, warmup_steps=0,
                 warmup_begin_lr=0, warmup_mode="linear"):
        super().__init__(max_update, base_lr, final_lr, warmup_steps, warmup_begin_lr,
                         warmup_mode)

    def _shape(self, t):
        return (1 + cos(pi * t / self.max_steps)) / 2
