"""The `Optimizer` base class, the registry of optimizers by name, and `Updater`.

An optimizer updates a weight NDArray in place from its gradient, keeping per-parameter
state (momentum, moments) created by `create_state`; the update rules live in the fused
update operators of `gluonlite.ops.optimizer_ops` (``sgd_mom_update``, ``adam_update``, ...),
so the numbers are MXNet's. The algorithms are in `gluonlite.optimizer.algorithms`.

Example::

    opt = mx.optimizer.Optimizer.create_optimizer('adam', learning_rate=0.01)
    type(opt).__name__   # 'Adam'
"""
import inspect
import json
import numbers
import warnings

import numpy as np

from .. import ndarray as nd
from ..ndarray.ndarray import NDArray
from ..context import current_context
from ..ndarray import serialization
from ..util import is_np_array

__all__ = ["Optimizer", "register", "create", "Updater", "get_updater"]


def _check_number(owner, name, value, optional=False):
    """TypeError naming `name` when `value` is not a real number (None allowed when
    `optional`): a string learning rate must fail where it is given, not at `step()`."""
    if value is None and optional:
        return value
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return value
    raise TypeError(f"{owner}: {name} must be a number{' or None' if optional else ''}, got "
                    f"{value!r} ({type(value).__name__})")


def _numeric_defaults(klass):
    """Names of `klass`'s constructor arguments (its own and its bases') whose default is a
    number: the hyperparameters a caller must give as numbers."""
    names = set()
    for k in klass.__mro__:
        init = k.__dict__.get("__init__")
        if init is None:
            continue
        for p in inspect.signature(init).parameters.values():
            if isinstance(p.default, numbers.Real) and not isinstance(p.default, bool):
                names.add(p.name)
    return names


class Optimizer:
    """The base class of every optimizer.

    Args:
        rescale_grad: every gradient is multiplied by this first (Trainer sets
            ``1 / batch_size``).
        param_idx2name: index -> parameter name; names not ending in ``_weight`` or
            ``_gamma`` get no weight decay (wd_mult 0), as in MXNet.
        wd: L2 weight decay.
        clip_gradient: clip the rescaled gradient to ``[-c, c]`` when given.
        learning_rate: the step size (0.01 when neither it nor `lr_scheduler` is given).
        lr_scheduler: a callable ``num_update -> lr`` with a ``base_lr`` attribute.
        sym: a Symbol whose variables' ``__lr_mult__``/``__wd_mult__`` attributes set the
            per-name multipliers.
        begin_num_update: the update count to start from.
        multi_precision: keep a float32 master copy of float16 weights and update it.
        param_dict: index -> `gluon.Parameter`, whose ``lr_mult``/``wd_mult`` win.

    Example::

        opt = mx.optimizer.create('sgd', learning_rate=0.1, momentum=0.9)
        updater = mx.optimizer.get_updater(opt)
        weight, grad = nd.ones((2,)), nd.ones((2,))
        updater(0, grad, weight)       # weight changes in place
        weight.asnumpy()   # array([0.9, 0.9], dtype=float32)
    """

    opt_registry = {}

    def __init__(self, rescale_grad=1., param_idx2name=None, wd=0., clip_gradient=None,
                 learning_rate=None, lr_scheduler=None, sym=None, begin_num_update=0,
                 multi_precision=False, param_dict=None):
        owner = type(self).__name__
        _check_number(owner, "learning_rate", learning_rate, optional=True)
        for name, value in (("rescale_grad", rescale_grad), ("wd", wd)):
            _check_number(owner, name, value)
        _check_number(owner, "clip_gradient", clip_gradient, optional=True)
        self.rescale_grad = rescale_grad
        self.lr_scheduler = lr_scheduler
        if lr_scheduler is None and learning_rate is None:
            learning_rate = 0.01
        self.lr = learning_rate
        if lr_scheduler is not None and learning_rate is not None:
            if lr_scheduler.base_lr != learning_rate:
                # MXNet prints (does not raise) this warning and lets learning_rate win
                print(UserWarning("learning rate from ``lr_scheduler`` has been overwritten "
                                  "by ``learning_rate`` in optimizer."))
                lr_scheduler.base_lr = learning_rate
        self.wd = wd
        self.lr_mult = {}
        self.wd_mult = {}
        self.begin_num_update = begin_num_update
        self.num_update = begin_num_update
        self._all_index_update_counts = {0: {}}
        self._index_update_count = self._all_index_update_counts[0]
        self.clip_gradient = clip_gradient
        self.multi_precision = multi_precision
        self.aggregate_num = 0
        if param_idx2name is None:
            param_idx2name = {}
        if not isinstance(param_idx2name, dict):
            raise TypeError(f"{type(self).__name__}: param_idx2name must be a dict of "
                            f"parameter indices to names, got {type(param_idx2name).__name__}")
        self.idx2name = dict(param_idx2name)
        self.sym_info = (sym.attr_dict(), sym.list_arguments()) if sym is not None else ()
        self.param_dict = param_dict if param_dict else {}
        self.allow_np_array = is_np_array()  # MXNet records the mode the optimizer was made in
        self.set_lr_mult({})
        self.set_wd_mult({})

    # ---- the registry ------------------------------------------------------------------
    @staticmethod
    def register(klass):
        """Class decorator registering an optimizer under its lowercased class name (a
        later class of the same name replaces the earlier one, with a warning).

        Args:
            klass: the `Optimizer` subclass (a class) to register; `create` then finds it by
                ``klass.__name__.lower()``.

        Returns:
            `klass` itself, so the decorator leaves the class unchanged.

        Raises:
            TypeError: if `klass` is not a class.

        Example::

            @mx.optimizer.Optimizer.register
            class MyOptimizer(mx.optimizer.Optimizer):
                def update(self, index, weight, grad, state):
                    weight[:] -= self.learning_rate * grad
            type(mx.optimizer.create('myoptimizer')).__name__   # 'MyOptimizer'
            del mx.optimizer.Optimizer.opt_registry['myoptimizer']   # unregister again
        """
        if not isinstance(klass, type):
            raise TypeError(f"Optimizer.register: expected a class, got {type(klass).__name__}")
        name = klass.__name__.lower()
        old = Optimizer.opt_registry.get(name)
        if old is not None and old is not klass:
            warnings.warn(f"WARNING: New optimizer {klass.__module__}.{klass.__name__} is "
                          f"overriding existing optimizer {old.__module__}.{old.__name__}")
        Optimizer.opt_registry[name] = klass
        return klass

    @staticmethod
    def create_optimizer(name, **kwargs):
        """An instance of the optimizer registered as `name` (case-insensitive).

        Raises:
            ValueError: no optimizer of that name (the known names are listed).
            TypeError: a hyperparameter whose default is a number given as something else
                (named).

        Example::

            opt = mx.optimizer.Optimizer.create_optimizer('SGD', learning_rate=0.5)
            opt.learning_rate   # 0.5
        """
        klass = Optimizer.opt_registry.get(str(name).lower())
        if klass is None:
            raise ValueError(f"optimizer.create: unknown optimizer {name!r} (Cannot find "
                             f"optimizer {name}); known optimizers: "
                             f"{', '.join(sorted(Optimizer.opt_registry))}")
        numeric = _numeric_defaults(klass)
        for key, value in kwargs.items():
            if key in numeric:
                _check_number(f"optimizer {name!r}", key, value)
        return klass(**kwargs)

    # ---- learning rate and multipliers ---------------------------------------------------
    @property
    def learning_rate(self):
        """The current learning rate (the scheduler's at `num_update` when there is one).

        Example::

            sched = mx.lr_scheduler.FactorScheduler(step=1, factor=0.5, base_lr=1.0)
            opt = mx.optimizer.SGD(lr_scheduler=sched)
            opt.learning_rate   # 1.0
            opt.num_update = 2
            opt.learning_rate   # 0.5: the scheduler's rate at update 2
        """
        if self.lr_scheduler is not None:
            return self.lr_scheduler(self.num_update)
        return self.lr

    def set_learning_rate(self, lr):
        """Set the learning rate.

        Args:
            lr (float): the new learning rate, used from the next update on.

        Raises:
            TypeError: if `lr` is not a real number.
            UserWarning: an lr_scheduler is set (it owns the learning rate), as MXNet.

        Example::

            opt = mx.optimizer.SGD(learning_rate=0.1)
            opt.set_learning_rate(0.05)
            opt.learning_rate   # 0.05
        """
        if self.lr_scheduler is not None:
            raise UserWarning("LRScheduler of the optimizer has already been defined. Note "
                              "that set_learning_rate can mutate the value of the learning "
                              "rate of the optimizer only when the LRScheduler of the "
                              "optimizer is undefined.")
        self.lr = _check_number(type(self).__name__, "learning_rate", lr)

    def set_lr_scale(self, args_lrscale):
        """Deprecated in MXNet: use `set_lr_mult`.

        Args:
            args_lrscale (dict): ignored; the call always raises.

        Raises:
            DeprecationWarning: always.

        Example::

            opt = mx.optimizer.SGD()
            try:
                opt.set_lr_scale({0: 0.5})
            except DeprecationWarning:
                opt.set_lr_mult({0: 0.5})   # what to call instead
        """
        raise DeprecationWarning("set_lr_scale is deprecated; use set_lr_mult")

    def _sym_mults(self, key):
        out = {}
        if self.sym_info:
            attr, names = self.sym_info
            for n in names:
                if n in attr and key in attr[n]:
                    out[n] = float(attr[n][key])
        return out

    def set_lr_mult(self, args_lr_mult):
        """Set per-parameter learning-rate multipliers (name or index -> float); `sym`'s
        ``__lr_mult__`` attributes come first, `args_lr_mult` overrides them.

        Example::

            opt = mx.optimizer.SGD(learning_rate=0.1)
            opt.set_lr_mult({'fc_weight': 0.5})
            w = nd.ones((2,))
            opt.idx2name[0] = 'fc_weight'
            opt.update(0, w, nd.ones((2,)), None)
            w.asnumpy()   # array([0.95, 0.95], dtype=float32): a step of lr 0.1 * 0.5
        """
        self.lr_mult = self._sym_mults("__lr_mult__")
        self.lr_mult.update(args_lr_mult)

    def set_wd_mult(self, args_wd_mult):
        """Set per-parameter weight-decay multipliers: 0 for the names of `param_idx2name`
        that end neither in ``_weight`` nor ``_gamma``, then `sym`'s ``__wd_mult__``
        attributes, then `args_wd_mult`.

        Example::

            opt = mx.optimizer.SGD(wd=0.01, param_idx2name={0: 'fc_weight', 1: 'fc_bias'})
            opt.wd_mult   # {'fc_bias': 0.0}: biases get no weight decay
            opt.set_wd_mult({'fc_weight': 2.0})
            opt.wd_mult   # {'fc_bias': 0.0, 'fc_weight': 2.0}
        """
        self.wd_mult = {n: 0.0 for n in self.idx2name.values()
                        if not (n.endswith("_weight") or n.endswith("_gamma"))}
        self.wd_mult.update(self._sym_mults("__wd_mult__"))
        self.wd_mult.update(args_wd_mult)

    def _set_current_context(self, device_id):
        """Keep update counts per device (one optimizer serving several contexts)."""
        self._index_update_count = self._all_index_update_counts.setdefault(device_id, {})

    def _update_count(self, index):
        """Count one more update of `index` (an index or a list of them)."""
        for i in index if isinstance(index, (list, tuple)) else [index]:
            c = self._index_update_count.get(i, self.begin_num_update) + 1
            self._index_update_count[i] = c
            self.num_update = max(c, self.num_update)

    def _mult(self, index, which):
        p = self.param_dict.get(index)
        if p is not None:
            return getattr(p, which)
        table = self.lr_mult if which == "lr_mult" else self.wd_mult
        if index in table:
            return table[index]
        if index in self.idx2name:
            return table.get(self.idx2name[index], 1.0)
        return 1.0

    def _get_lrs(self, indices):
        """The learning rate of each index (scheduler or lr, times its multiplier)."""
        lr = self.lr_scheduler(self.num_update) if self.lr_scheduler is not None else self.lr
        return [lr * self._mult(i, "lr_mult") for i in indices]

    def _get_lr(self, index):
        return self._get_lrs([index])[0]

    def _get_wds(self, indices):
        """The weight decay of each index (wd times its multiplier)."""
        return [self.wd * self._mult(i, "wd_mult") for i in indices]

    def _get_wd(self, index):
        return self._get_wds([index])[0]

    def _op_kwargs(self, clip_name="clip_gradient"):
        """The attributes every update operator shares."""
        kw = {"rescale_grad": self.rescale_grad}
        if self.clip_gradient:
            kw[clip_name] = self.clip_gradient
        return kw

    # ---- states and updates ----------------------------------------------------------------
    def create_state(self, index, weight):
        """The state kept for `weight` (None by default).

        Subclasses return their auxiliary arrays (momentum, moment estimates), shaped and
        placed like `weight`, or a tuple of them.

        Args:
            index (int or str): the parameter's key (its index, or name for a KVStore).
            weight (NDArray): the parameter the state is made for.

        Returns:
            None, an NDArray or a tuple of NDArrays: the state `update` receives.

        Example::

            mx.optimizer.SGD().create_state(0, nd.ones((2,)))   # None: plain SGD keeps no state
            mx.optimizer.SGD(momentum=0.9).create_state(0, nd.ones((2,))).shape   # (2,)
        """
        return None

    def create_state_multi_precision(self, index, weight):
        """`create_state`, plus a float32 master copy for a float16 weight with
        multi_precision: ``(weight32, state)``.

        A float16 weight without multi_precision gets a plain state and a warning about
        float16 accumulation.

        Args:
            index (int or str): the parameter's key.
            weight (NDArray): the parameter the state is made for.

        Returns:
            ``(weight32, state)`` for a float16 weight with multi_precision, else what
            `create_state` returns.

        Example::

            opt = mx.optimizer.Adam(multi_precision=True)
            w32, (mean, var) = opt.create_state_multi_precision(0, nd.ones((2,), dtype='float16'))
            w32.dtype   # <class 'numpy.float32'>: the master copy of the float16 weight
        """
        if self.multi_precision and weight.dtype == np.float16:
            w32 = weight.astype(np.float32)
            return (w32, self.create_state(index, w32))
        if weight.dtype == np.float16 and not self.multi_precision:
            warnings.warn("Accumulating with float16 in optimizer can lead to poor accuracy or "
                          "slow convergence. Consider using multi_precision=True option of "
                          "the optimizer")
        return self.create_state(index, weight)

    def update(self, index, weight, grad, state):
        """Update NDArray `weight` in place from `grad` and `state`.

        Every optimizer applies its own rule here, with the rescaled and clipped gradient,
        the learning rate and weight decay of `index` (multipliers included), and counts
        the update (which drives `learning_rate`'s scheduler).

        Args:
            index (int or str): the parameter's key, selecting its multipliers and update
                count.
            weight (NDArray): the parameter, changed in place.
            grad (NDArray): its gradient, of the same shape.
            state: what `create_state` returned for this parameter, updated in place.

        Raises:
            NotImplementedError: on the base class, which has no update rule.

        Example::

            opt = mx.optimizer.Adam(learning_rate=0.1)
            w, g = nd.ones((2,)), nd.ones((2,))
            opt.update(0, w, g, opt.create_state(0, w))
            w.asnumpy()   # array([0.90000004, 0.90000004], dtype=float32)
        """
        raise NotImplementedError(f"{type(self).__name__}.update is not implemented")

    def update_multi_precision(self, index, weight, grad, state):
        """`update`, through the float32 master copy for float16 weights with
        multi_precision.

        Args:
            index (int, str or list): the parameter's key; a list updates each of the
                aligned `weight`, `grad` and `state` lists in turn.
            weight (NDArray or list): the parameter, changed in place (cast back from the
                float32 copy when there is one).
            grad (NDArray or list): its gradient.
            state: what `create_state_multi_precision` returned (``(weight32, state)``
                for a float16 weight with multi_precision).

        Example::

            opt = mx.optimizer.Adam(learning_rate=0.1, multi_precision=True)
            w = nd.ones((2,), dtype='float16')
            state = opt.create_state_multi_precision(0, w)
            opt.update_multi_precision(0, w, nd.ones((2,), dtype='float16'), state)
            w.asnumpy()   # array([0.9, 0.9], dtype=float16)
        """
        if isinstance(index, (list, tuple)):
            for i, w, g, s in zip(index, weight, grad, state):
                self.update_multi_precision(i, w, g, s)
            return
        if self.multi_precision and weight.dtype == np.float16:
            w32, st = state
            self.update(index, w32, grad.astype(np.float32), st)
            nd.cast(w32, dtype=weight.dtype, out=weight)
        else:
            self.update(index, weight, grad, state)

    def __getstate__(self):
        d = self.__dict__.copy()
        d.pop("param_dict", None)
        return d

    def __setstate__(self, state):
        self.__dict__ = state
        self.param_dict = {}


register = Optimizer.register
create = Optimizer.create_optimizer


# ---- Updater ---------------------------------------------------------------------------------
_STATES_FORMAT = "gluonlite.updater_states"


def _flatten(state, arrays):
    """A JSON description of a state tree (None, NDArray, tuples/lists), its arrays appended
    to `arrays`."""
    if state is None:
        return None
    if isinstance(state, NDArray):
        arrays.append(state)
        return len(arrays) - 1
    if isinstance(state, (tuple, list)):
        return {"tuple" if isinstance(state, tuple) else "list":
                [_flatten(s, arrays) for s in state]}
    raise TypeError(f"Updater.get_states: a state must be None, an NDArray or a tuple/list of "
                    f"them, got {type(state).__name__}")


def _unflatten(spec, arrays, where):
    if spec is None:
        return None
    if isinstance(spec, int) and 0 <= spec < len(arrays):
        return arrays[spec]
    if isinstance(spec, dict) and len(spec) == 1:
        kind, items = next(iter(spec.items()))
        if kind in ("tuple", "list") and isinstance(items, list):
            vals = [_unflatten(s, arrays, where) for s in items]
            return tuple(vals) if kind == "tuple" else vals
    raise ValueError(f"Updater.set_states: malformed state description {spec!r} in {where}")


def _scalars(optimizer):
    out = {}
    for k, v in vars(optimizer).items():
        if isinstance(v, np.generic):
            v = v.item()
        if isinstance(v, (bool, int, float, str)) or v is None:
            out[k] = v
    return out


def _keyed(d):
    return [[k, v] for k, v in d.items() if isinstance(k, (int, str))]


def _as_ndarray(a):
    """A loaded state array as an NDArray (a sparse one, a lazy optimizer's row_sparse
    state, keeps its storage type)."""
    if hasattr(a, "build"):
        return a.build(current_context())
    return nd.array(a, dtype=a.dtype)


def _classic(a):
    """`a` as a legacy NDArray sharing its memory (an `mx.np.ndarray`'s view)."""
    return a.as_nd_ndarray() if getattr(a, "_np_array", False) else a


class Updater:
    """Applies an optimizer to ``(index, grad, weight)``, creating each index's state on
    first use (what a KVStore and `gluon.Trainer` call).

    Args:
        optimizer (Optimizer): the optimizer whose `update_multi_precision` each call
            applies.

    Example::

        updater = mx.optimizer.get_updater(mx.optimizer.Adam())
        weight, grad = nd.ones((2,)), nd.ones((2,))
        updater(0, grad, weight)
        blob = updater.get_states(); updater.set_states(blob)
        sorted(updater.states)   # [0]
    """

    def __init__(self, optimizer):
        self.optimizer = optimizer
        self.states = {}
        self.states_synced = {}
        self.aggregate_updates = False

    def __call__(self, index, grad, weight):
        """Update `weight` (an NDArray, or a list aligned with index/grad lists) in place."""
        if isinstance(index, (list, tuple)):
            for i, g, w in zip(index, grad, weight):
                self(i, g, w)
            return
        # mx.np arrays are updated through their legacy views (the same memory), which the
        # update operators take, as MXNet's updater converts them
        weight, grad = _classic(weight), _classic(grad)
        if index not in self.states:
            self.states[index] = self.optimizer.create_state_multi_precision(index, weight)
            self.states_synced[index] = True
        elif not self.states_synced.get(index, True):
            self.states[index] = self.sync_state_context(self.states[index], weight.context)
            self.states_synced[index] = True
        self.optimizer.update_multi_precision(index, weight, grad, self.states[index])

    def sync_state_context(self, state, context):
        """`state` (a tree of NDArrays) on `context`.

        Example::

            updater = mx.optimizer.get_updater(mx.optimizer.Adam())
            mean, var = updater.sync_state_context((nd.zeros((2,)), nd.zeros((2,))), mx.cpu())
            mean.context   # cpu(0)
        """
        if isinstance(state, NDArray):
            return state.as_in_context(context)
        if isinstance(state, (tuple, list)):
            synced = [self.sync_state_context(s, context) for s in state]
            return tuple(synced) if isinstance(state, tuple) else synced
        return state

    def get_states(self, dump_optimizer=False):
        """The states (and, with `dump_optimizer`, the optimizer's settings and update
        counts) as bytes: MXNet's NDArray-list format with a JSON record, no pickle, so
        `set_states` never runs code from them.

        Example::

            updater = mx.optimizer.get_updater(mx.optimizer.Adam())
            updater(0, nd.ones((2,)), nd.ones((2,)))
            blob = updater.get_states(dump_optimizer=True)
            type(blob).__name__   # 'bytes'
        """
        arrays, entries = [], []
        for k, st in self.states.items():
            entries.append([k, _flatten(st, arrays)])
        record = {"format": _STATES_FORMAT, "states": entries}
        if dump_optimizer:
            o = self.optimizer
            record["optimizer"] = {
                "name": type(o).__name__.lower(), "scalars": _scalars(o),
                "counts": {str(dev): _keyed(c) for dev, c in o._all_index_update_counts.items()},
                "lr_mult": _keyed(o.lr_mult), "wd_mult": _keyed(o.wd_mult),
                "idx2name": _keyed(o.idx2name)}
        raw = np.frombuffer(json.dumps(record).encode("utf-8"), dtype=np.uint8).copy()
        named = {f"s{i}": a for i, a in enumerate(arrays)}
        named["__updater__"] = nd.array(raw, dtype=np.uint8)
        return serialization.dumps(named)

    def set_states(self, states):
        """Restore what `get_states` returned (states, and the optimizer when dumped).

        Args:
            states (bytes): a blob written by `get_states`; the states are moved to each
                weight's context on its next update.

        Raises:
            ValueError: bytes that are not such a record, or a dumped optimizer whose name
                is not registered.

        Example::

            updater = mx.optimizer.get_updater(mx.optimizer.Adam())
            updater(0, nd.ones((2,)), nd.ones((2,)))
            fresh = mx.optimizer.get_updater(mx.optimizer.Adam())
            fresh.set_states(updater.get_states(dump_optimizer=True))
            fresh.states[0][0].asnumpy()   # array([0.1, 0.1], dtype=float32): Adam's mean
        """
        arrays, names = serialization.loads(bytes(states), "Updater.set_states")
        named = dict(zip(names, arrays))
        raw = named.pop("__updater__", None)
        try:
            record = json.loads(raw.tobytes().decode("utf-8"))
        except (AttributeError, UnicodeDecodeError, ValueError):
            record = None
        if not isinstance(record, dict) or record.get("format") != _STATES_FORMAT:
            raise ValueError("Updater.set_states: not a states record written by "
                             "Updater.get_states")
        flat = [_as_ndarray(named[f"s{i}"]) for i in range(len(named))]
        self.states = {k: _unflatten(spec, flat, "Updater.set_states")
                       for k, spec in record["states"]}
        self.states_synced = dict.fromkeys(self.states, False)
        if "optimizer" in record:
            self._restore_optimizer(record["optimizer"])

    def _restore_optimizer(self, rec):
        o = self.optimizer
        if type(o).__name__.lower() != rec["name"]:
            klass = Optimizer.opt_registry.get(rec["name"])
            if klass is None:
                raise ValueError(f"Updater.set_states: the states were dumped with optimizer "
                                 f"{rec['name']!r}, which is not registered")
            o = klass()
            self.optimizer = o
        for k, v in rec["scalars"].items():
            setattr(o, k, v)
        o._all_index_update_counts = {int(dev) if dev.lstrip("-").isdigit() else dev:
                                      {k: v for k, v in c} for dev, c in rec["counts"].items()}
        o._index_update_count = o._all_index_update_counts.setdefault(0, {})
        o.lr_mult = {k: v for k, v in rec["lr_mult"]}
        o.wd_mult = {k: v for k, v in rec["wd_mult"]}
        o.idx2name = {k: v for k, v in rec["idx2name"]}


def get_updater(optimizer):
    """An `Updater` applying `optimizer` (what a KVStore calls).

    Example::

        updater = mx.optimizer.get_updater(mx.optimizer.SGD(learning_rate=0.5))
        weight = nd.ones((2,))
        updater(0, nd.ones((2,)), weight)
        weight.asnumpy()   # array([0.5, 0.5], dtype=float32)
    """
    return Updater(optimizer)


def __getattr__(name):
    # MXNet's ``mx.optimizer.optimizer`` module also holds every algorithm (``.SGD``, ...)
    from . import algorithms
    try:
        return getattr(algorithms, name)
    except AttributeError:
        raise AttributeError(f"module 'gluonlite.optimizer.optimizer' has no attribute "
                             f"{name!r}") from None
