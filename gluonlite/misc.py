"""`mx.misc`: the learning-rate schedulers of MXNet's oldest training scripts (MXNet 1.9.1's
``misc.py``), kept so that those scripts run.

They are not `mx.lr_scheduler`'s classes, whose schedulers optimizers call: a `misc`
scheduler is called with the iteration count and computes the rate from it alone,
``base_lr * factor ** int(iteration / step)`` for `FactorScheduler`, with no floor
(`stop_factor_lr`) and no warmup. New code uses `mx.lr_scheduler`.

Example::

    sched = mx.misc.FactorScheduler(step=100, factor=0.5)
    sched.base_lr = 0.1
    sched(250)   # 0.025
"""
import logging

__all__ = ["LearningRateScheduler", "FactorScheduler"]


class LearningRateScheduler:
    """Base class: ``scheduler(iteration) -> learning rate``, from `base_lr` (0.01 until the
    user sets it), which subclasses define.

    Example::

        class Halving(mx.misc.LearningRateScheduler):
            def __call__(self, iteration):
                return self.base_lr / 2 ** (iteration // 10)
        Halving()(25)   # 0.0025
    """

    def __init__(self):
        self.base_lr = 0.01

    def __call__(self, iteration):
        """The learning rate at `iteration`; a subclass defines it.

        Args:
            iteration (int): the count of iterations done.

        Raises:
            NotImplementedError: always, on the base class.

        Example::

            try:
                mx.misc.LearningRateScheduler()(0)
            except NotImplementedError as e:
                print(e)   # LearningRateScheduler: a subclass defines __call__(iteration)
        """
        raise NotImplementedError(f"{type(self).__name__}: a subclass defines "
                                  f"__call__(iteration)")


class FactorScheduler(LearningRateScheduler):
    """The rate ``base_lr * factor ** int(iteration / step)``: multiplied by `factor` every
    `step` iterations; each change is logged (logging.INFO).

    Args:
        step (int): iterations between two reductions, at least 1.
        factor (float): what the rate is multiplied by at each reduction, below 1.

    Raises:
        ValueError: `step` below 1 or `factor` not below 1.

    Example::

        sched = mx.misc.FactorScheduler(step=10, factor=0.1)
        sched.base_lr = 1.0
        [sched(i) for i in (0, 9, 10, 25)]   # [1.0, 1.0, 0.1, 0.01] (up to rounding)
    """

    def __init__(self, step, factor=0.1):
        super().__init__()
        if step < 1:
            raise ValueError(f"FactorScheduler: step must be at least 1 iteration, got {step}")
        if factor >= 1.0:
            raise ValueError(f"FactorScheduler: factor must be below 1 for the rate to fall, "
                             f"got {factor}")
        self.step = step
        self.factor = factor
        self.old_lr = self.base_lr
        self._started = False

    def __call__(self, iteration):
        """The learning rate at `iteration`, logged when it differs from the last one given.

        Args:
            iteration (int): the count of iterations done.

        Returns:
            float: ``base_lr * factor ** int(iteration / step)``.

        Example::

            sched = mx.misc.FactorScheduler(step=2, factor=0.5)
            sched(4)   # 0.0025: base_lr 0.01, halved twice
        """
        if not self._started:  # base_lr may have been set since construction
            self._started = True
            self.old_lr = self.base_lr
        lr = self.base_lr * self.factor ** int(iteration / self.step)
        if lr != self.old_lr:
            self.old_lr = lr
            logging.info("FactorScheduler: learning rate %.5f from iteration %d", lr, iteration)
        return lr
