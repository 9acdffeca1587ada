"""`Trainer`: applies an optimizer to a set of Parameters after `backward`."""
from .. import optimizer as opt
from . import trainer_states
from .parameter import Parameter, ParameterDict

__all__ = ["Trainer"]


class Trainer:
    """Update parameters from their gradients with an optimizer.

    Args:
        params: a ParameterDict, dict or list of Parameters (``net.collect_params()``).
        optimizer: a name ('sgd', 'adam') or an Optimizer.
        optimizer_params: keyword arguments of the optimizer, e.g.
            ``{'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-4}``.

    Example::

        trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(x.shape[0])

    Raises:
        ValueError: `params` is not a collection of Parameters.
    """

    def __init__(self, params, optimizer, optimizer_params=None, kvstore="device",
                 compression_params=None, update_on_kvstore=None):
        if isinstance(params, (dict, ParameterDict)):
            params = list(params.values())
        if not isinstance(params, (list, tuple)):
            raise ValueError(f"Trainer: first argument must be a list or dict of Parameters, "
                             f"got {type(params).__name__}")
        self._params = []
        for i, p in enumerate(params):
            if not isinstance(p, Parameter):
                raise ValueError(f"Trainer: params[{i}] is a {type(p).__name__}, not a "
                                 "Parameter")
            self._params.append(p)
        optimizer_params = dict(optimizer_params or {})
        self._scale = float(optimizer_params.get("rescale_grad", 1.0))
        param_dict = dict(enumerate(self._params))
        if isinstance(optimizer, opt.Optimizer):
            if optimizer_params:
                raise ValueError("Trainer: optimizer_params must be empty when optimizer is an "
                                 "Optimizer instance")
            self._optimizer = optimizer
            optimizer.param_dict = param_dict
        else:
            self._optimizer = opt.create(optimizer, param_dict=param_dict, **optimizer_params)
        self._updater = opt.get_updater(self._optimizer)

    @property
    def optimizer(self):
        """The Optimizer."""
        return self._optimizer

    @property
    def learning_rate(self):
        """The optimizer's learning rate."""
        return self._optimizer.learning_rate

    def set_learning_rate(self, lr):
        """Change the learning rate."""
        self._optimizer.set_learning_rate(lr)

    def step(self, batch_size, ignore_stale_grad=False):
        """One update with gradients rescaled by ``1 / batch_size`` (the loss was summed over
        the batch by `backward`)."""
        self._optimizer.rescale_grad = self._scale / batch_size
        self.update(batch_size, ignore_stale_grad, _rescaled=True)

    def allreduce_grads(self):
        """Sum gradients across contexts (a no-op with one context)."""
        for p in self._params:
            if p.grad_req == "null" or p._grad is None:
                continue
            grads = p.list_grad()
            if len(grads) > 1:
                total = sum(g.asnumpy() for g in grads)
                for g in grads:
                    g[:] = total

    def update(self, batch_size, ignore_stale_grad=False, _rescaled=False):
        """Apply the optimizer (after `allreduce_grads`) without reducing again."""
        if not _rescaled:
            self._optimizer.rescale_grad = self._scale / batch_size
        self.allreduce_grads()
        for i, p in enumerate(self._params):
            if p.grad_req == "null":
                continue
            if p._data is None:
                if ignore_stale_grad:
                    continue
                p.data()  # raises the parameter's own not-initialized error
            for data, grad in zip(p.list_data(), p.list_grad()):
                self._updater(i, grad, data)

    def save_states(self, fname):
        """Save the optimizer's states (momenta, Adam moments), step counts and scalar
        hyperparameters to `fname`, atomically, in MXNet's NDArray-list format (no pickle;
        see `gluonlite.gluon.trainer_states`). Save the parameters separately
        (`save_parameters`).

        Example::

            net.save_parameters("net.params"); trainer.save_states("net.states")
            ...
            net.load_parameters("net.params"); trainer.load_states("net.states")
        """
        trainer_states.save_states(fname, self._optimizer, self._updater.states, self._params)

    def load_states(self, fname):
        """Restore what `save_states` wrote: training then continues exactly as if it had
        not stopped. The learning rate and other hyperparameters saved are restored too (as
        MXNet restores its pickled optimizer).

        Raises:
            ValueError: a malformed or truncated file, states saved for another optimizer, or
                a state whose shape does not match its parameter (the message names the
                file); nothing is changed then.
            OSError: the file cannot be read.
        """
        states, counts, scalars = trainer_states.load_states(fname, self._optimizer,
                                                             self._params)
        o = self._optimizer
        for k, v in scalars.items():
            if hasattr(o, k):
                setattr(o, k, v)
        o._index_update_count = counts
        self._updater.states = states

