"""`Module`: MXNet 1.x's symbolic training front end: bind a Symbol to input shapes,
initialize its parameters, run forward and backward on batches, step an optimizer, and (from
`BaseModule`) `fit` / `score` / `predict`.

It is a thin layer over `Symbol.simple_bind` and `Executor`: the inputs named in
`data_names` and `label_names` are fed from each `DataBatch`; every other argument of the
symbol is a parameter, initialized by `init_params`. The executor keeps its compiled plan,
so a module bound once runs every batch of those shapes without compiling again.
"""
import logging
import warnings
from collections import OrderedDict

from .. import initializer as init_mod, ndarray as nd, optimizer as opt, kvstore as kvs
from ..base import MXNetError
from ..context import Context, current_context
from ..io import DataDesc
from ..model import load_checkpoint  # noqa: F401  (MXNet's module.module has it at module level)
from .base_module import BaseModule
from .executor_group import (DataParallelExecutorGroup, _prepare_group2ctxs, input_axes,
                             output_axes, sliced_descs, split_input_slice)
from ..ndarray.ndarray import _STORAGE_TYPE_ID_TO_STR

__all__ = ["Module"]


def _names(names):
    """`names` (None, one name, or a sequence of names) as a list."""
    if names is None:
        return []
    if isinstance(names, str):
        return [names]
    return list(names)


def _parse_shapes(what, names, shapes):
    """[DataDesc] for `shapes` ((name, shape) pairs or DataDesc), one per name in `names`,
    in any order (as MXNet, the batch's arrays then come in the order of `shapes`).

    Labels may be left out altogether (None), as for inference.

    Raises:
        ValueError: the names differ from `names` (the message lists both).
    """
    if what == "label" and shapes is None:
        return []
    descs = [s if isinstance(s, DataDesc) else DataDesc(*s) for s in (shapes or [])]
    given = [d.name for d in descs]
    if sorted(given) != sorted(names):
        raise ValueError(f"Module.bind: {what}_shapes name(s) {given} do not match the "
                         f"module's {what}_names {list(names)}")
    return descs


class Module(BaseModule):
    """A Symbol bound for computation, with its parameters (and optimizer).

    Args:
        symbol: the network's output Symbol.
        data_names: the symbol's data inputs (default ``('data',)``).
        label_names: its label inputs (default ``('softmax_label',)``; None for none).
        context: the Context, or a list of them: the batch is then split across them
            (data parallelism; see `DataParallelExecutorGroup`), each computing its part
            with its own copy of the parameters, and `update` sums their gradients through
            the kvstore, so the numbers are those of one context on the whole batch.
        work_load_list: with several contexts, the share of the batch each one gets
            (default equal shares).
        logger: where `fit` logs.
        fixed_param_names: parameters that get no gradient.
        state_names: inputs fed like parameters but never initialized (kept as given).
        group2ctxs: MXNet's model parallelism: {ctx_group name: Context, or a list of one
            Context per context of `context`} (or a list of such dicts, one per context).
            The arguments of variables made under ``mx.AttrScope(ctx_group=name)`` (and
            their gradients) live on that group's Context; the executor still computes
            every operator on its own context (CPU contexts share the host; a GPU group
            beside a CPU module is refused by bind).
        compression_params (dict): MXNet's gradient compression settings; accepted and
            unused (gradient compression belongs to the distributed stores, not provided).

    Raises:
        ValueError: a data, label or state name that is not an argument of `symbol`
            (label names that are not are dropped with a warning, as in MXNet); a
            work_load_list whose length is not the number of contexts; a group2ctxs
            whose lists do not have one Context (or one per context).

    Example::

        out = sym.FullyConnected(sym.var('data'), num_hidden=3, flatten=False)
        mod = mx.mod.Module(out, data_names=('data',), label_names=None)
        mod.bind(data_shapes=[('data', (4, 10, 2))])
        mod.init_params()
        mod.forward(mx.io.DataBatch([nd.ones((4, 10, 2))]))
        y = mod.get_outputs()[0]
    """

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",),
                 logger=logging, context=None, work_load_list=None, fixed_param_names=None,
                 state_names=None, group2ctxs=None, compression_params=None):
        super().__init__(logger=logger)
        contexts = list(context) if isinstance(context, (list, tuple)) else [context]
        if not contexts:
            raise ValueError("Module: context is an empty list; give at least one Context")
        self._contexts = [Context(c) if c is not None else current_context() for c in contexts]
        self._context = self._contexts[0]
        if work_load_list is None:
            work_load_list = [1] * len(self._contexts)
        if len(work_load_list) != len(self._contexts):
            raise ValueError(f"Module: work_load_list has {len(work_load_list)} entries for "
                             f"{len(self._contexts)} contexts; give one per context")
        self._work_load_list = list(work_load_list)
        self._group2ctxs = _prepare_group2ctxs(group2ctxs, len(self._contexts))
        self._symbol = symbol
        # the storage type each variable declares (``stype=`` of `sym.var`)
        self._declared_stypes = {
            n: _STORAGE_TYPE_ID_TO_STR.get(int(a["__storage_type__"]))
            for n, a in symbol.attr_dict().items() if "__storage_type__" in a}
        args = symbol.list_arguments()
        self._data_names = _names(data_names)
        self._state_names = _names(state_names)
        self._fixed_param_names = _names(fixed_param_names)
        for what, names in (("data", self._data_names), ("state", self._state_names)):
            missing = [n for n in names if n not in args]
            if missing:
                raise ValueError(f"Module: {what}_names {missing} are not arguments of the "
                                 f"symbol; its arguments are {args}")
        labels = _names(label_names)
        dropped = [n for n in labels if n not in args]
        if dropped:
            warnings.warn(f"Module: label_names {dropped} are not arguments of the symbol and "
                          "are ignored", stacklevel=2)
        self._label_names = [n for n in labels if n in args]
        inputs = set(self._data_names + self._label_names + self._state_names)
        self._param_names = [n for n in args if n not in inputs]
        self._aux_names = symbol.list_auxiliary_states()
        self._exec = None
        self._data_shapes = self._label_shapes = None
        self._grad_req = "write"
        self._optimizer = self._updater = self._kvstore = None
        self._update_on_kvstore = False
        self._preload_params = None
        self._preload_opt_states = None
        self._exec_cache = {}

    # ---- description ----------------------------------------------------------------------
    @property
    def symbol(self):
        """The bound Symbol.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            mod.symbol.list_outputs()   # ['softmax_output']
        """
        return self._symbol

    @property
    def data_names(self):
        """The data input names.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.data_names   # ['data']
        """
        return list(self._data_names)

    @property
    def label_names(self):
        """The label input names.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.label_names   # ['softmax_label']
        """
        return list(self._label_names)

    @property
    def output_names(self):
        """The symbol's output names.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.output_names   # ['softmax_output']
        """
        return self._symbol.list_outputs()

    @property
    def data_shapes(self):
        """[DataDesc] of the data inputs (after `bind`).

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            mod.data_shapes   # [DataDesc[data,(4, 3),<class 'numpy.float32'>,NCHW]]
        """
        return list(self._data_shapes or [])

    @property
    def label_shapes(self):
        """[DataDesc] of the label inputs (after `bind`).

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            mod.label_shapes[0].shape   # (4,)
        """
        return list(self._label_shapes or [])

    @property
    def output_shapes(self):
        """[(name, shape)] of the outputs (after `bind`).

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            mod.output_shapes   # [('softmax_output', (4, 2))]
        """
        self._check_bound("output_shapes")
        shapes = {d.name: d.shape for d in self._data_shapes + self._label_shapes}
        _, outs, _ = self._symbol.infer_shape(**shapes)
        return list(zip(self.output_names, outs))

    def _check_bound(self, what):
        if not self.binded:
            raise ValueError(f"Module.{what}: call bind() first")

    def _check_ready(self, what):
        self._check_bound(what)
        if not self.params_initialized:
            raise ValueError(f"Module.{what}: call init_params() (or set_params()) first")

    # ---- binding and parameters -----------------------------------------------------------
    def _exec_key(self, descs, ldescs):
        return (tuple(d.shape for d in descs), tuple(d.shape for d in ldescs),
                self.for_training, self.inputs_need_grad, repr(self._grad_req))

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write", _keep_cache=False):
        """Allocate every array from the input shapes.

        Args:
            data_shapes: ``[(name, shape)]`` or [DataDesc], in `data_names` order.
            label_shapes: the same for the labels (None when there are none).
            for_training: allocate gradients for the parameters.
            inputs_need_grad: allocate gradients for the data inputs too.
            force_rebind: bind again when already bound (parameters are kept).
            shared_module: a bound Module whose parameter arrays (and gradients, and
                optimizer once it has one) this one uses where names and shapes agree,
                as `BucketingModule` binds its buckets.
            grad_req: 'write', 'add' or 'null' for the parameters (and the data inputs
                when inputs_need_grad), a list of one per argument, or a dict by name
                (arguments it does not name: 'write' as above).
            _keep_cache (bool): internal: keep the executors bound for other
                shapes (what `reshape` and `forward` pass; default False).

        Raises:
            ValueError: shapes named differently from the module's inputs; inputs_need_grad
                without for_training; a shared_module that is not bound.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))])
            mod.binded   # True
        """
        if self.binded and not force_rebind:
            warnings.warn("Module.bind: already bound, ignoring bind()", stacklevel=2)
            return
        if shared_module is not None and not (shared_module.binded
                                              and shared_module.params_initialized):
            raise ValueError("Module.bind: shared_module must be bound and initialized")
        if inputs_need_grad and not for_training:
            raise ValueError("Module.bind: inputs_need_grad=True needs for_training=True")
        self._data_shapes = _parse_shapes("data", self._data_names, data_shapes)
        self._label_shapes = _parse_shapes("label", self._label_names, label_shapes)
        self.for_training, self.inputs_need_grad = bool(for_training), bool(inputs_need_grad)
        self._grad_req = grad_req
        old = self._exec
        # a rebind keeps the parameter arrays themselves (other buckets may share them)
        share = shared_module._exec if shared_module is not None else (
            old if self.params_initialized else None)
        exe = self._bind_group(share)
        if share is old and old is not None:
            changed = [n for n in self._param_names + self._aux_names
                       if exe.arg_dict.get(n, exe.aux_dict.get(n)) is not
                       old.arg_dict.get(n, old.aux_dict.get(n))]
            if changed:
                raise ValueError(f"Module.bind: the new input shapes change the shapes of "
                                 f"parameters {changed}; make a new Module instead")
        self._exec = exe
        self.binded = True
        if not _keep_cache:
            self._exec_cache = {}
        self._exec_cache[self._exec_key(self._data_shapes, self._label_shapes)] = (
            exe, self._data_shapes, self._label_shapes)
        if shared_module is not None:
            self.params_initialized = True
            if shared_module.optimizer_initialized:
                self.borrow_optimizer(shared_module)
        elif self._preload_params is not None:
            self._copy_params(*self._preload_params)
            self._preload_params = None

    def _bind_group(self, shared=None):
        """An Executor (one context) or a `DataParallelExecutorGroup` sharing `shared`'s
        parameter arrays where names and shapes agree."""
        if len(self._contexts) == 1:
            if isinstance(shared, DataParallelExecutorGroup):
                shared = shared.execs[0]
            return self._bind_executor(self._context, self._data_shapes, self._label_shapes,
                                       shared, self._group2ctxs[0])
        first = self._data_shapes[0]
        axis = DataDesc.get_batch_axis(first.layout)
        slices = split_input_slice(first.shape[axis if axis >= 0 else 0], self._work_load_list)
        execs = []
        for i, (ctx, part) in enumerate(zip(self._contexts, slices)):
            mine = (shared.execs[i] if isinstance(shared, DataParallelExecutorGroup)
                    else shared)
            execs.append(self._bind_executor(ctx, sliced_descs(self._data_shapes, part),
                                             sliced_descs(self._label_shapes, part), mine,
                                             self._group2ctxs[i]))
        return DataParallelExecutorGroup.from_executors(
            execs, slices, input_axes(self._data_shapes + self._label_shapes),
            output_axes(self._symbol), self._param_names, self._data_shapes,
            self._label_shapes or None)

    def _argument_grad_reqs(self):
        """``{argument: req}`` from bind's grad_req: a str applies to the trainable
        parameters and (with inputs_need_grad) the data inputs; a list gives one req per
        argument in `list_arguments` order; a dict overrides the defaults ('write' for those
        same arguments) by name. Not training: every req is 'null'."""
        args = self._symbol.list_arguments()
        req = self._grad_req if self.for_training else "null"
        if isinstance(req, (list, tuple)):
            if len(req) != len(args):
                raise ValueError(f"Module.bind: grad_req has {len(req)} entries; the symbol "
                                 f"has {len(args)} arguments {args}")
            return dict(zip(args, req))
        if not isinstance(req, (str, dict)):
            raise ValueError(f"Module.bind: grad_req must be a str, list or dict, got "
                             f"{type(req).__name__}")
        default = "write" if isinstance(req, dict) else req
        reqs = {}
        for n in args:
            if n in self._param_names and n not in self._fixed_param_names:
                reqs[n] = default
            elif n in self._data_names and self.inputs_need_grad:
                reqs[n] = default
            else:
                reqs[n] = "null"
        if isinstance(req, dict):
            reqs.update(req)
        return reqs

    def _bind_executor(self, context, data_shapes, label_shapes, shared_exec=None,
                       group2ctx=None):
        reqs = self._argument_grad_reqs()
        shapes = {d.name: d.shape for d in data_shapes + label_shapes}
        types = {d.name: d.dtype for d in data_shapes + label_shapes}
        exe = self._symbol.simple_bind(context, grad_req=reqs, type_dict=types, **shapes)
        if shared_exec is None and not group2ctx:
            return exe
        args, grads, aux = dict(exe.arg_dict), dict(exe.grad_dict), dict(exe.aux_dict)
        if group2ctx:
            # each ctx_group's variables (and their gradients) on the group's Context
            attrs = self._symbol.attr_dict()
            for mine in (args, grads, aux):
                for n, a in mine.items():
                    where = group2ctx.get(attrs.get(n, {}).get("__ctx_group__"))
                    if where is not None and a.context != where:
                        mine[n] = a.as_in_context(where)
        if shared_exec is not None:
            # the same NDArrays as the shared module's, so an update there is seen here
            theirs = shared_exec
            for mine, other in ((args, theirs.arg_dict), (grads, theirs.grad_dict),
                                (aux, theirs.aux_dict)):
                for n in list(mine):
                    if (n in self._param_names or n in self._aux_names) and n in other \
                            and tuple(other[n].shape) == tuple(mine[n].shape):
                        mine[n] = other[n]
        return self._symbol.bind(context, args, grads, reqs, aux)

    def _copy_params(self, arg_params, aux_params, allow_missing=True, allow_extra=True):
        """Copy the given parameters in (after checking them all, so a bad one changes
        nothing); returns the names of those not given."""
        todo, left = [], []
        for what, names, dest, src in (("arg_params", self._param_names, self._exec.arg_dict,
                                        arg_params),
                                       ("aux_params", self._aux_names, self._exec.aux_dict,
                                        aux_params)):
            src = src or {}
            missing = [n for n in names if n not in src]
            if missing and not allow_missing:
                # MXNet's tests expect its RuntimeError here
                raise MXNetError(f"Module: {what} lacks {missing} (pass allow_missing=True to "
                                 "initialize them instead)")
            extra = [n for n in src if n not in names]
            if extra and not allow_extra:
                raise ValueError(f"Module: {what} has {extra}, which the symbol does not use "
                                 "(pass allow_extra=True to ignore them)")
            for n in names:
                if n not in src:
                    left.append(n)
                elif tuple(src[n].shape) != tuple(dest[n].shape):
                    raise ValueError(f"Module: {what}[{n!r}] has shape {tuple(src[n].shape)}, "
                                     f"the symbol wants {tuple(dest[n].shape)}")
                else:
                    todo.append((dest[n], src[n]))
        for dest, value in todo:
            dest[:] = value
        self._broadcast_params()
        return left

    def _broadcast_params(self):
        # the other contexts' copies take the first context's values
        if isinstance(self._exec, DataParallelExecutorGroup):
            self._exec.broadcast(self._param_names + self._aux_names)

    def init_params(self, initializer=None, arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        """Initialize the parameters and auxiliary states: copied from `arg_params` /
        `aux_params` where given, else drawn by `initializer` (default
        ``init.Uniform(0.01)``), which honours each variable's own ``__init__`` attribute
        (e.g. an `init.LSTMBias` given to a cell's bias).

        Args:
            initializer (Initializer): draws the parameters not copied in (default None:
                ``init.Uniform(0.01)``).
            arg_params (dict of str to NDArray): parameter values to copy in (default None).
            aux_params (dict of str to NDArray): auxiliary state values to copy in (default
                None).
            allow_missing (bool): parameters absent from `arg_params` / `aux_params` are drawn
                by the initializer (default False: a missing one raises when any values are
                given).
            force_init (bool): initialize again when already initialized (default False: the
                call is ignored with a warning).
            allow_extra (bool): accepted for MXNet's signature: names the symbol does not use
                are ignored either way.

        Raises:
            ValueError: not bound; a shape mismatch.
            MXNetError: a parameter missing from `arg_params` (unless allow_missing).

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))])
            mod.init_params(mx.init.Xavier())
            sorted(mod.get_params()[0])   # ['fc_bias', 'fc_weight']
        """
        if self.params_initialized and not force_init:
            warnings.warn("Module.init_params: parameters already initialized and "
                          "force_init=False; call ignored", stacklevel=2)
            return
        self._check_bound("init_params")
        initializer = init_mod.Uniform(0.01) if initializer is None else initializer
        given = arg_params is not None or aux_params is not None
        # as MXNet, only the module's own names are looked up: extra entries are ignored
        # (allow_extra matters to executors, whose copy_params_from takes any dict)
        todo = self._copy_params(arg_params, aux_params, allow_missing or not given, True)
        attrs = self._symbol.attr_dict()
        arrays = {**self._exec.arg_dict, **self._exec.aux_dict}
        for name in sorted(todo):
            initializer(init_mod.InitDesc(name, attrs.get(name)), arrays[name])
        self._broadcast_params()
        self.params_initialized = True

    def set_params(self, arg_params, aux_params=None, allow_missing=False, force_init=True,
                   allow_extra=False):
        """Copy `arg_params` and `aux_params` (name -> NDArray) into the module.

        As MXNet: without `allow_missing` this is `init_params` from the given values (names
        the symbol does not use are ignored); with it, only the given parameters are copied
        (the others keep their values) and names the symbol does not use are refused unless
        `allow_extra`.

        Args:
            force_init (bool): copy even when already initialized (default
                True; False ignores the call with a warning).

        Raises:
            ValueError: as `init_params`; with allow_missing, an unused name (unless
                allow_extra).
            MXNetError: a parameter missing (unless allow_missing).

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            mod.set_params({'fc_weight': nd.zeros((2, 3)), 'fc_bias': nd.zeros(2)}, {})
            mod.get_params()[0]['fc_weight'].sum()   # [0.]
        """
        if not allow_missing:
            self.init_params(None, arg_params or {}, aux_params or {}, allow_missing,
                             force_init, allow_extra)
            return
        if self.params_initialized and not force_init:
            warnings.warn("Module.set_params: parameters already initialized and "
                          "force_init=False; call ignored", stacklevel=2)
            return
        self._check_bound("set_params")
        self._copy_params(arg_params, aux_params, True, allow_extra)
        self.params_initialized = True

    def get_params(self):
        """``(arg_params, aux_params)``: copies of the parameters, name -> NDArray.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            args, auxs = mod.get_params()   # {'fc_bias': ..., 'fc_weight': ...}, {}
        """
        if not self.binded and self._preload_params is not None:
            return tuple(dict(p) for p in self._preload_params)
        self._check_ready("get_params")
        if isinstance(self._exec, DataParallelExecutorGroup):
            # as MXNet, the mean of the copies (auxiliary states move apart per context)
            return ({n: self._exec.averaged(n) for n in self._param_names},
                    {n: self._exec.averaged(n) for n in self._aux_names})
        return ({n: self._exec.arg_dict[n].copy() for n in self._param_names},
                {n: self._exec.aux_dict[n].copy() for n in self._aux_names})

    # ---- computing ------------------------------------------------------------------------
    def forward(self, data_batch, is_train=None):
        """Run the network on `data_batch` (a `DataBatch`); a batch of other shapes rebinds
        the module to them first.

        Args:
            is_train: the mode (default: `for_training`).

        Raises:
            ValueError: not bound or initialized; a batch with the wrong number of arrays.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            batch = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)])
            mod.forward(batch, is_train=False)
            mod.get_outputs()[0].shape   # (4, 2)
        """
        self._check_ready("forward")
        data = list(data_batch.data or [])
        # bound without label shapes (inference), a batch's labels are not read (as MXNet)
        label = list(data_batch.label or []) if self._label_shapes else []
        # a batch without labels (a test set given to predict) leaves the label arrays as
        # they are, as MXNet's executor group does
        keep_labels = not label and bool(self._label_shapes)
        if len(data) != len(self._data_names) or (
                not keep_labels and len(label) != len(self._label_shapes)):
            raise ValueError(f"Module.forward: the batch has {len(data)} data and "
                             f"{len(label)} label arrays; the module takes data "
                             f"{self._data_names} and labels {self._label_names}")
        # the batch's arrays come in the order the shapes were bound in
        data_names = [d.name for d in self._data_shapes]
        label_names = [d.name for d in self._label_shapes] or self._label_names
        descs = [DataDesc(n, a.shape, self._data_shapes[i].dtype, self._data_shapes[i].layout)
                 for i, (n, a) in enumerate(zip(data_names, data))]
        ldescs = [DataDesc(n, a.shape) for n, a in zip(label_names, label)]
        if keep_labels:  # the bound label shapes, at this batch's size
            ldescs = [DataDesc(d.name, (data[0].shape[0],) + tuple(d.shape[1:]))
                      for d in self._label_shapes]
        if ([d.shape for d in descs] != [d.shape for d in self._data_shapes]
                or [d.shape for d in ldescs] != [d.shape for d in self._label_shapes]):
            # an executor made for these shapes before shares the parameter and gradient
            # arrays, so it can be taken back as it is (no compile)
            key = self._exec_key(descs, ldescs)
            monitors = [e._monitor for e in self._executors()]
            if key in self._exec_cache:
                self._exec, self._data_shapes, self._label_shapes = self._exec_cache[key]
            else:
                self.bind(descs, ldescs or None, self.for_training, self.inputs_need_grad,
                          force_rebind=True, grad_req=self._grad_req, _keep_cache=True)
            # a monitor callback installed on the executors stays on, as MXNet's reshaped
            # executors keep theirs
            for e, m in zip(self._executors(), monitors):
                e._monitor = m
        feed = dict(zip(data_names + (label_names if label else []), data + label))
        train = self.for_training if is_train is None else bool(is_train)
        self._exec.forward(is_train=train, **feed)

    def backward(self, out_grads=None):
        """Gradients of the outputs (`out_grads`, default ones) into the parameters' (and,
        with inputs_need_grad, the data's) gradient arrays.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            batch = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)])
            mod.forward(batch, is_train=True); mod.backward()
            mod.get_param_grads()['fc_weight'].shape   # (2, 3)
        """
        self._check_ready("backward")
        if all(r == "null" for r in self._exec._grad_req.values()):
            return  # nothing bound for gradients (no parameters, no input grads): as MXNet
        self._exec.backward(out_grads)

    def get_outputs(self, merge_multi_context=True):
        """The outputs of the last `forward`.

        Args:
            merge_multi_context: True: one NDArray per output (the contexts' parts joined
                along the batch axis); False: per output, the list of each context's part.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            batch = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)])
            mod.forward(batch)
            mod.get_outputs()[0].shape   # (4, 2): softmax probabilities
        """
        self._check_ready("get_outputs")
        if isinstance(self._exec, DataParallelExecutorGroup):
            if merge_multi_context:
                return self._exec.outputs
            return self._exec.outputs_per_context()
        outs = list(self._exec.outputs)
        return outs if merge_multi_context else [[o] for o in outs]

    def get_input_grads(self, merge_multi_context=True):
        """The gradients of the data inputs after `backward` (needs inputs_need_grad), in
        `data_names` order; `merge_multi_context` as in `get_outputs`.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))], inputs_need_grad=True)
            mod.init_params()
            batch = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)])
            mod.forward_backward(batch)
            mod.get_input_grads()[0].shape   # (4, 3)
        """
        self._check_ready("get_input_grads")
        if not self.inputs_need_grad:
            raise ValueError("Module.get_input_grads: bind with inputs_need_grad=True")
        if isinstance(self._exec, DataParallelExecutorGroup):
            return self._exec.input_grads(self._data_names, merge_multi_context)
        grads = [self._exec.grad_dict.get(n) for n in self._data_names]
        return grads if merge_multi_context else [[g] for g in grads]

    def _executors(self):
        return (self._exec.execs if isinstance(self._exec, DataParallelExecutorGroup)
                else [self._exec])

    @property
    def _exec_group(self):
        """The executors as MXNet's `DataParallelExecutorGroup` (one per context; MXNet's
        tests read ``_exec_group.execs`` and ``_exec_group.param_names``)."""
        self._check_bound("_exec_group")
        if isinstance(self._exec, DataParallelExecutorGroup):
            return self._exec
        axes = input_axes(self._data_shapes + (self._label_shapes or []))
        first = self._data_shapes[0]
        axis = max(axes[first.name], 0)
        batch = first.shape[axis] if first.shape else 1
        return DataParallelExecutorGroup.from_executors(
            [self._exec], [slice(0, batch)], axes, output_axes(self._symbol),
            self._param_names, self._data_shapes, self._label_shapes or None)

    @property
    def _arg_params(self):
        """MXNet's host copies of the parameters, which its tests and scripts read: here a
        fresh copy per read (`get_params`), each in its variable's storage type (a
        ``stype='row_sparse'`` weight reads as a RowSparseNDArray). Writing into it does not
        reach the module: use `set_params`."""
        return self._stype_params(self.get_params()[0])

    @property
    def _aux_params(self):
        """The auxiliary states as `_arg_params` gives the parameters."""
        return self._stype_params(self.get_params()[1])

    def _stype_params(self, params):
        out = {}
        for n, a in params.items():
            stype = self._declared_stypes.get(n)
            out[n] = a.tostype(stype) if stype not in (None, "default") else a
        return out

    def get_states(self, merge_multi_context=True):
        """The arrays of the `state_names` inputs: per state one NDArray (the contexts'
        parts joined along axis 0), or with ``merge_multi_context=False`` the list of each
        context's array (MXNet 1.9.1 only has the latter).

        Example::

            out = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc') + sym.var('h')
            mod = mx.mod.Module(out, label_names=None, state_names=['h'])
            mod.bind([('data', (4, 3))]); mod.init_params()
            mod.set_states(value=1.0)
            mod.get_states()[0].shape   # (4, 2), all ones
        """
        self._check_ready("get_states")
        per = [[e.arg_dict[n] for e in self._executors()] for n in self._state_names]
        if not merge_multi_context:
            return per
        return [p[0] if len(p) == 1 else nd.concat(*[a.as_in_context(p[0].context) for a in p],
                                                   dim=0) for p in per]

    def set_states(self, states=None, value=None):
        """Set the `state_names` inputs from `states` (per state, the list of each context's
        array as `get_states(merge_multi_context=False)` gives; or one whole-batch NDArray,
        cut across the contexts) or fill them all with the scalar `value`.

        Raises:
            ValueError: neither or both of `states` and `value`; a wrong number of states.

        Example::

            out = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc') + sym.var('h')
            mod = mx.mod.Module(out, label_names=None, state_names=['h'])
            mod.bind([('data', (4, 3))]); mod.init_params()
            mod.set_states(value=0.5)   # every state filled with 0.5
            mod.set_states(states=[[nd.zeros((4, 2))]])   # or given arrays
        """
        self._check_ready("set_states")
        if (states is None) == (value is None):
            raise ValueError("Module.set_states: give exactly one of states and value")
        execs = self._executors()
        if value is not None:
            for n in self._state_names:
                for e in execs:
                    e.arg_dict[n][:] = value
            return
        if len(states) != len(self._state_names):
            raise ValueError(f"Module.set_states: got {len(states)} states for state_names "
                             f"{self._state_names}")
        slices = (self._exec.slices if isinstance(self._exec, DataParallelExecutorGroup)
                  else [None])
        for n, src in zip(self._state_names, states):
            for k, (e, part) in enumerate(zip(execs, slices)):
                if isinstance(src, (list, tuple)):
                    value_k = src[k]
                elif part is None:
                    value_k = src
                else:
                    value_k = src.slice_axis(axis=0, begin=part.start, end=part.stop)
                e.arg_dict[n][:] = value_k.as_in_context(e.arg_dict[n].context)

    def get_param_grads(self):
        """{parameter name: its gradient array} after `backward`.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            batch = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)])
            mod.forward_backward(batch)
            sorted(mod.get_param_grads())   # ['fc_bias', 'fc_weight']
        """
        self._check_ready("get_param_grads")
        return {n: self._exec.grad_dict[n] for n in self._param_names
                if n in self._exec.grad_dict}

    # ---- optimizer ---------------------------------------------------------------------------
    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        """Make the optimizer that `update` applies.

        Args:
            kvstore: 'local', 'device', None or a KVStore. As in MXNet: a name with one
                context means no store (updates are made here); with several contexts (or a
                KVStore given) the contexts' gradients are summed in the store, which also
                runs the optimizer (update on kvstore) unless MXNET_UPDATE_ON_KVSTORE=0 or,
                for 'local', a parameter has more than 16M elements ('dist_*' stores are not
                provided).
            optimizer: an Optimizer, or a name for `mx.optimizer.create` given
                `optimizer_params` (rescale_grad defaults to 1 / batch size).
            optimizer_params: dict or pairs of the optimizer's arguments.
            force_init: make it again when there is one.

        Raises:
            ValueError: not bound or not initialized.
            NotImplementedError: a distributed kvstore.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            mod.init_optimizer(optimizer='adam', optimizer_params={'learning_rate': 1e-3})
        """
        self._check_ready("init_optimizer")
        if self.optimizer_initialized and not force_init:
            warnings.warn("Module.init_optimizer: optimizer already initialized, ignoring",
                          stacklevel=2)
            return
        kv_type = kvstore if isinstance(kvstore, str) else getattr(kvstore, "type", None)
        if kv_type is not None and "dist" in kv_type:
            raise NotImplementedError(f"Module.init_optimizer: kvstore {kv_type!r}: "
                                      "distributed training is not provided")
        desc = self._data_shapes[0]
        axis = DataDesc.get_batch_axis(desc.layout)
        batch_size = desc.shape[axis if axis >= 0 else 0]
        rescale_grad = 1.0 / batch_size
        kv, update_on_kv = self._create_kvstore(kvstore)
        n_dev = len(self._contexts)
        if update_on_kv:
            idx2name = dict(enumerate(self._param_names))
        else:  # one optimizer state per parameter and context, as MXNet's indices
            idx2name = {i * n_dev + k: n for i, n in enumerate(self._param_names)
                        for k in range(n_dev)}
        if isinstance(optimizer, str):
            params = dict(optimizer_params)
            params.setdefault("rescale_grad", rescale_grad)
            optimizer = opt.create(optimizer, sym=self._symbol, param_idx2name=idx2name,
                                   **params)
        else:
            if optimizer.rescale_grad != rescale_grad:
                warnings.warn(f"Module.init_optimizer: optimizer.rescale_grad is "
                              f"{optimizer.rescale_grad}, not 1/batch_size = {rescale_grad}; "
                              "is that intended?", stacklevel=2)
            if not optimizer.idx2name:
                optimizer.idx2name = dict(idx2name)
        self._optimizer = optimizer
        self._kvstore, self._update_on_kvstore = kv, update_on_kv
        # the key of each parameter in the store and the optimizer (modules borrowing this
        # optimizer, as BucketingModule's buckets, use the same ones)
        self._param_index = {n: i for i, n in enumerate(self._param_names)}
        if kv is not None:
            if update_on_kv:
                kv.set_optimizer(optimizer)
            for name, i in self._param_index.items():
                kv.init(i, self._exec.arg_dict[name])
                if update_on_kv:
                    kv.pull(i, self._copies(name))
        # with update on kvstore, the store's updater holds the states (saved from there)
        self._updater = kv._updater if update_on_kv else opt.get_updater(optimizer)
        self.optimizer_initialized = True
        if self._preload_opt_states is not None:
            self.load_optimizer_states(self._preload_opt_states)
            self._preload_opt_states = None

    def _create_kvstore(self, kvstore):
        """(store, update on it) as MXNet's `model._create_kvstore` chooses them."""
        import os
        import numpy as np
        update_on_kv = bool(int(os.getenv("MXNET_UPDATE_ON_KVSTORE", "1")))
        if kvstore is None:
            return None, False
        if isinstance(kvstore, str):
            if len(self._contexts) == 1:
                return None, False
            kv = kvs.create(kvstore)
            sizes = [int(np.prod(self._exec.arg_dict[n].shape)) for n in self._param_names]
            if kvstore == "local" and max(sizes, default=0) > 1024 * 1024 * 16:
                update_on_kv = False
        elif isinstance(kvstore, kvs.KVStoreBase):
            kv = kvstore
        else:
            raise TypeError(f"Module.init_optimizer: kvstore must be a KVStore, a str or None, "
                            f"got {type(kvstore).__name__}")
        return kv, update_on_kv and kv.is_capable(kvs.KVStoreBase.OPTIMIZER)

    def _copies(self, name):
        """The arrays of parameter `name`, one per context."""
        if isinstance(self._exec, DataParallelExecutorGroup):
            return self._exec.arrays_of(name)
        return [self._exec.arg_dict[name]]

    def _grad_copies(self, name):
        if isinstance(self._exec, DataParallelExecutorGroup):
            return self._exec.grads_of(name)
        return [self._exec.grad_dict.get(name)]

    def borrow_optimizer(self, shared_module):
        """Use `shared_module`'s optimizer and its states (as bucket modules do).

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            mod.init_optimizer(optimizer='sgd')
            other = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            other.bind([('data', (2, 3))], [('softmax_label', (2,))])
            other.init_params(); other.borrow_optimizer(mod)   # one optimizer
        """
        if not shared_module.optimizer_initialized:
            raise ValueError("Module.borrow_optimizer: the shared module has no optimizer")
        self._optimizer = shared_module._optimizer
        self._kvstore = shared_module._kvstore
        self._update_on_kvstore = shared_module._update_on_kvstore
        self._updater = shared_module._updater
        self._param_index = shared_module._param_index
        self.optimizer_initialized = True

    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Get ready for `data_batch`, as MXNet's Module: with a KVStore that updates the
        parameters, ask `sparse_row_id_fn` which rows of each row_sparse parameter the batch
        reads. MXNet pulls those rows from the store here; this executor holds a row_sparse
        parameter dense, every row kept current by `update`, so there is nothing to pull.

        Args:
            data_batch (DataBatch): the next batch.
            sparse_row_id_fn (callable): ``fn(data_batch) -> {parameter name: row ids
                (NDArray)}`` (default None). Without such a store (one device, or
                ``update_on_kvstore`` off) it is not called and a warning says so; a
                parameter it names that is not declared row_sparse gets MXNet's warning.

        Raises:
            ValueError: the module is not bound, or `sparse_row_id_fn` returns no dict or
                names a parameter the module does not have.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            batch = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)])
            mod.prepare(batch)   # dense parameters: nothing to pull
        """
        if not self.binded:
            raise ValueError("Module.prepare: call bind() first")
        if sparse_row_id_fn is None:
            return
        if not self._kvstore or not self._update_on_kvstore:
            warnings.warn("Module.prepare: the parameters are not updated in a KVStore, so "
                          "sparse_row_id_fn is not called (nothing to pull)", UserWarning,
                          stacklevel=2)
            return
        row_ids = sparse_row_id_fn(data_batch)
        if not isinstance(row_ids, dict):
            raise ValueError(f"Module.prepare: sparse_row_id_fn must return a dict of "
                             f"{{parameter name: row ids}}, got {type(row_ids).__name__}")
        for name in row_ids:
            if name not in self._param_index:
                raise ValueError(f"Module.prepare: sparse_row_id_fn names {name!r}, which is "
                                 f"not a parameter of the module ({self._param_names})")
            if self._declared_stypes.get(name) != "row_sparse":
                warnings.warn(f"Module.prepare: {name}.stype is not 'row_sparse'; no rows "
                              "to pull", UserWarning, stacklevel=2)


    def update(self):
        """One optimizer step on every parameter that has a gradient (after `backward`).

        Raises:
            ValueError: no optimizer (call `init_optimizer`).

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            batch = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)])
            mod.init_optimizer(optimizer_params={'learning_rate': 0.1})
            mod.forward_backward(batch); mod.update()   # one SGD step
        """
        self._check_ready("update")
        if not self.optimizer_initialized:
            raise ValueError("Module.update: call init_optimizer() first")
        n_dev = len(self._contexts)
        per_dev = [([], [], []) for _ in range(n_dev)]
        for name in self._param_names:
            grads = self._grad_copies(name)
            if grads[0] is None or self._exec._grad_req.get(name, "null") == "null":
                continue
            i = self._param_index.get(name)
            if i is None:
                raise ValueError(f"Module.update: parameter {name!r} is not one the optimizer "
                                 "was made for (init_optimizer on a module that has it)")
            weights = self._copies(name)
            if self._update_on_kvstore:
                # the store sums the contexts' gradients, steps its copy, and hands it back
                self._kvstore.pushpull(i, grads, out=weights)
                continue
            if self._kvstore is not None:
                self._kvstore.pushpull(i, grads)  # every context's gradient is now the sum
            for k, (g, w) in enumerate(zip(grads, weights)):
                index, gs, ws = per_dev[k]
                index.append(i * n_dev + k)
                gs.append(g)
                ws.append(w)
        for index, grads, weights in per_dev:
            if index:
                self._updater(index, grads, weights)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update `eval_metric` with `labels` and the last outputs (matched by name, as
        ``eval_metric.update_dict``).

        Args:
            pre_sliced (bool): `labels` is already one list per context (default False: the
                labels are cut along the batch axis per context).

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            batch = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)])
            mod.forward(batch, is_train=False)
            metric = mx.metric.Accuracy()
            mod.update_metric(metric, batch.label); metric.get()   # ('accuracy', ...)
        """
        self._check_ready("update_metric")
        names = [d.name for d in self._label_shapes or []] or self._label_names
        if not isinstance(self._exec, DataParallelExecutorGroup):
            label_dict = OrderedDict(zip(names, labels or []))
            preds = OrderedDict(zip(self.output_names, self.get_outputs()))
            eval_metric.update_dict(label_dict, preds)
            return
        # as MXNet, once per context with its part of the labels (pre_sliced: labels is
        # already one list per context)
        self._exec.update_metric(eval_metric, labels or [], pre_sliced)

    def save_optimizer_states(self, fname):
        """Write the optimizer's states (the updater's serialized form) to `fname`.

        Raises:
            ValueError: no optimizer.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            mod.init_optimizer()
            mod.save_optimizer_states('net.states')
        """
        if not self.optimizer_initialized:
            raise ValueError("Module.save_optimizer_states: call init_optimizer() first")
        with open(fname, "wb") as fout:
            fout.write(self._updater.get_states())

    def load_optimizer_states(self, fname):
        """Read optimizer states written by `save_optimizer_states`.

        Args:
            fname (str): the file's path.

        Raises:
            ValueError: no optimizer.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            mod.init_optimizer(); mod.save_optimizer_states('net.states')
            mod.load_optimizer_states('net.states')
        """
        if not self.optimizer_initialized:
            raise ValueError("Module.load_optimizer_states: call init_optimizer() first")
        with open(fname, "rb") as fin:
            self._updater.set_states(fin.read())

    # ---- checkpoints and shapes --------------------------------------------------------------
    def save_checkpoint(self, prefix, epoch, save_optimizer_states=False,
                        remove_amp_cast=True):
        """Write ``prefix-symbol.json``, ``prefix-EPOCH.params`` (and, when asked,
        ``prefix-EPOCH.states``).

        Args:
            epoch (int): the epoch number in the file names (``prefix-EPOCH.params``).
            save_optimizer_states (bool): also write ``prefix-EPOCH.states`` (default False).
            remove_amp_cast (bool): accepted for MXNet's signature; the symbols are saved as
                they are.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            mod.save_checkpoint('net', 3)   # net-symbol.json, net-0003.params
        """
        self._symbol.save(f"{prefix}-symbol.json")
        param_name = "%s-%04d.params" % (prefix, epoch)
        self.save_params(param_name)
        self.logger.info('Saved checkpoint to "%s"', param_name)
        if save_optimizer_states:
            state_name = "%s-%04d.states" % (prefix, epoch)
            self.save_optimizer_states(state_name)
            self.logger.info('Saved optimizer state to "%s"', state_name)

    @staticmethod
    def load(prefix, epoch, load_optimizer_states=False, **kwargs):
        """A Module of the checkpoint's symbol holding its parameters (copied in at `bind`;
        optimizer states at `init_optimizer` when asked).

        Args:
            prefix (str): the path prefix given to `save_checkpoint`.
            epoch (int): the epoch number in the file names (``prefix-EPOCH.params``).
            load_optimizer_states: also read ``prefix-EPOCH.states``.
            kwargs: for `Module` (data_names, label_names, context ...).

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            saved = mx.mod.Module(fc, label_names=None)
            saved.bind([('data', (1, 10))]); saved.init_params(); saved.save_checkpoint('net', 3)
            mod = mx.mod.Module.load("net", 3, data_names=("data",), label_names=None)
            mod.bind(data_shapes=[("data", (1, 10))], for_training=False)
        """
        symbol, args, auxs = load_checkpoint(prefix, epoch)
        mod = Module(symbol=symbol, **kwargs)
        mod._preload_params = (args, auxs)
        mod.params_initialized = True
        if load_optimizer_states:
            mod._preload_opt_states = "%s-%04d.states" % (prefix, epoch)
        return mod

    def reshape(self, data_shapes, label_shapes=None):
        """Bind again for other input shapes, keeping the parameters.

        Args:
            data_shapes (list of DataDesc or pairs): the data inputs' ``(name, shape)``, in
                `data_names` order.
            label_shapes (list of DataDesc or pairs): the new label shapes
                (default None: no labels).

        Raises:
            ValueError: not bound, or shapes named differently from the inputs.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            mod.reshape([('data', (2, 3))], [('softmax_label', (2,))])
            mod.data_shapes[0].shape   # (2, 3)
        """
        self._check_bound("reshape")
        self.bind(data_shapes, label_shapes, self.for_training, self.inputs_need_grad,
                  force_rebind=True, grad_req=self._grad_req)

    def install_monitor(self, mon):
        """Install a `mx.monitor.Monitor` on the executor (``mon.install(executor)``; on
        each context's executor with several contexts).

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            mod.install_monitor(mx.monitor.Monitor(interval=1))
        """
        self._check_bound("install_monitor")
        execs = (self._exec.execs if isinstance(self._exec, DataParallelExecutorGroup)
                 else [self._exec])
        for exe in execs:
            mon.install(exe)
