"""`DataParallelExecutorGroup`: one symbol bound on several contexts, each executor computing
its slice of every batch, as MXNet 1.x's `Module` does over a list of contexts.

The batch is cut along each input's batch axis by `split_input_slice` (proportional to the
work load of each context; MXNet's rule, kept in `gluonlite.executor_manager`); outputs and
input gradients are put back together along the outputs' batch axis. The parameters are one
copy per context; `Module.update` sums their gradients through the kvstore and keeps the copies
equal (see `Module.update`).

It is built as MXNet builds it (``DataParallelExecutorGroup(symbol, contexts, workload,
data_shapes, label_shapes, param_names, for_training, inputs_need_grad, shared_group=...)``,
binding one executor per context, the parameters shared with `shared_group`'s) and has
MXNet's methods (`forward` of a batch, `get_outputs`, `get_params`, `update_metric`, ...);
`Module` makes its own from executors it has bound (`from_executors`).
"""
import logging
from collections import OrderedDict

from .. import ndarray as nd
from ..context import Context
from ..executor_manager import _split_input_slice as split_input_slice
from ..io import DataDesc

__all__ = ["DataParallelExecutorGroup", "split_input_slice", "input_axes", "output_axes"]


def sliced_descs(descs, part):
    """`descs` (DataDescs of the whole batch) with the batch axis cut to slice `part`.

    Example::

        from gluonlite.module.executor_group import sliced_descs
        sliced_descs([mx.io.DataDesc('data', (4, 3))], slice(0, 2))
        # [DataDesc[data,(2, 3),<class 'numpy.float32'>,NCHW]]
    """
    out = []
    for d in descs:
        axis = DataDesc.get_batch_axis(d.layout)
        shape = list(d.shape)
        if axis >= 0:
            shape[axis] = part.stop - part.start
        out.append(DataDesc(d.name, tuple(shape), d.dtype, d.layout))
    return out


def input_axes(descs):
    """{input name: its batch axis (-1: none)} of DataDescs `descs`.

    Example::

        from gluonlite.module.executor_group import input_axes
        input_axes([mx.io.DataDesc('data', (4, 3)), mx.io.DataDesc('t', (4,), layout='')])
        # {'data': 0, 't': -1}
    """
    return {d.name: DataDesc.get_batch_axis(d.layout) for d in descs}


def output_axes(symbol):
    """The batch axis of each output of `symbol`, from its ``__layout__`` attribute (0 when
    it has none, as MXNet reads it).

    Example::

        from gluonlite.module.executor_group import output_axes
        output_axes(sym.tanh(sym.var('x')))   # [0]
    """
    return [DataDesc.get_batch_axis(symbol[i].attr("__layout__"))
            for i in range(len(symbol.list_outputs()))]


def _cut(array, axis, part, ctx):
    """The slice `part` of `array` along `axis` (all of it when `axis` < 0), on `ctx`."""
    if axis >= 0 and (part.start != 0 or part.stop != array.shape[axis]):
        array = nd.slice_axis(array, axis=axis, begin=part.start, end=part.stop)
    return array.as_in_context(ctx)


def _join(arrays, axis):
    """Arrays from every context as one, on the first one's context (`axis` < 0: the
    first)."""
    if axis < 0 or len(arrays) == 1 or arrays[0] is None:
        return arrays[0]
    ctx = arrays[0].context
    return nd.concat(*[a.as_in_context(ctx) for a in arrays], dim=axis)


def _prepare_group2ctxs(group2ctxs, n, who="Module"):
    """`group2ctxs` as one {group: Context} dict (or None) per context, as MXNet reads it
    (`who` starts the error messages).

    Raises:
        ValueError: a list of another length than the `n` contexts, or a group's list of
            Contexts neither one long nor `n` long.
        TypeError: neither None, a dict nor a list.
    """
    if group2ctxs is None:
        return [None] * n
    if isinstance(group2ctxs, (list, tuple)):
        if len(group2ctxs) != n:
            raise ValueError(f"{who}: group2ctxs has {len(group2ctxs)} dicts for {n} "
                             "contexts; give one per context (or one dict)")
        return [dict(g) if g else None for g in group2ctxs]
    if not isinstance(group2ctxs, dict):
        raise TypeError(f"{who}: group2ctxs must be a dict or a list of dicts, got "
                        f"{type(group2ctxs).__name__}")
    out = [{} for _ in range(n)]
    for group, where in group2ctxs.items():
        where = [where] if isinstance(where, Context) else list(where)
        if len(where) == 1:
            where = where * n
        if len(where) != n:
            raise ValueError(f"{who}: group2ctxs[{group!r}] lists {len(where)} Contexts for "
                             f"{n} contexts; give one, or one per context")
        for k in range(n):
            out[k][group] = where[k]
    return out


def _grad_reqs(arg_names, param_names, fixed, data_names, grad_req, inputs_need_grad):
    """{argument: req} as MXNet's group reads `grad_req`: a str for the trainable parameters
    (and the data with `inputs_need_grad`), 'null' for the rest; a list, one per argument; a
    dict over those same defaults ('write')."""
    if isinstance(grad_req, (list, tuple)):
        if len(grad_req) != len(arg_names):
            raise ValueError(f"DataParallelExecutorGroup: grad_req has {len(grad_req)} "
                             f"entries; the symbol has {len(arg_names)} arguments {arg_names}")
        return dict(zip(arg_names, grad_req))
    if not isinstance(grad_req, (str, dict)):
        raise ValueError(f"DataParallelExecutorGroup: grad_req must be a str, list, tuple or "
                         f"dict, got {type(grad_req).__name__}")
    default = grad_req if isinstance(grad_req, str) else "write"
    reqs = {}
    for n in arg_names:
        if n in param_names:
            reqs[n] = "null" if n in fixed else default
        elif n in data_names:
            reqs[n] = default if inputs_need_grad else "null"
        else:
            reqs[n] = "null"
    if isinstance(grad_req, dict):
        reqs.update(grad_req)
    return reqs


def _batch_size(descs):
    """The batch size the inputs with a batch axis agree on (None when none has one)."""
    size = None
    for d in descs:
        axis = DataDesc.get_batch_axis(d.layout)
        if axis < 0:
            continue
        if size is None:
            size = d.shape[axis]
        elif d.shape[axis] != size:
            raise ValueError(f"DataParallelExecutorGroup: all inputs must have one batch size; "
                             f"{d.name!r} has shape {tuple(d.shape)}, the others {size}")
    return size


class DataParallelExecutorGroup:
    """Executors of one symbol, one per context, each bound for its slice of the batch.

    `Module` makes one when it is given several contexts and uses it where it would use an
    `Executor`: `arg_dict`, `grad_dict` and `aux_dict` are the first context's arrays
    (`broadcast` copies them to the others), `forward` cuts the arrays it is fed, `outputs`
    are the joined outputs.

    Args:
        executors: one bound `Executor` per context, in context order.
        slices: the part of the batch each one computes (`split_input_slice`).
        input_axes: {input name: its batch axis} (-1: fed whole to every context).
        output_axes: the batch axis of each output (-1: the first context's is taken).
        param_names: the parameters' names (for MXNet's ``_exec_group.param_names``).

    Example::

        fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
        module = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'),
                               context=[mx.cpu(0), mx.cpu(1)])
        module.bind([('data', (4, 3))], [('softmax_label', (4,))]); module.init_params()
        group = module._exec        # a Module bound on [mx.cpu(0), mx.cpu(1)]
        x, y = nd.ones((4, 3)), nd.zeros(4)
        group.forward(is_train=True, data=x, softmax_label=y)
        y = group.outputs[0]        # the whole batch's output
    """

    def __init__(self, symbol, contexts, workload, data_shapes, label_shapes, param_names,
                 for_training, inputs_need_grad, shared_group=None, logger=logging,
                 fixed_param_names=None, grad_req="write", state_names=None, group2ctxs=None):
        """Bind `symbol` once per context of `contexts`, each for its slice of the batch.

        Args:
            symbol: the Symbol every executor runs.
            contexts: a list of Contexts.
            workload: one positive number per context (None: equal parts).
            data_shapes: (name, shape) pairs or DataDescs of the whole batch's data.
            label_shapes: the same for the labels, or None.
            param_names: the names of the parameters (shared with `shared_group`).
            for_training: bind with gradient buffers (else every grad_req is 'null').
            inputs_need_grad: the data inputs get gradients too.
            shared_group: a group of another symbol over the same parameters (a bucket of
                a bucketing model): its parameter arrays and gradients are these executors'
                too, and its `shared_data_arrays` give the other arrays where they fit.
            logger: accepted as in MXNet.
            fixed_param_names: parameters bound without a gradient.
            grad_req: 'write', 'add' or 'null' (for the parameters, and the data with
                `inputs_need_grad`), a list (one per argument) or a dict (by name).
            state_names: arguments that are states (`get_states`/`set_states`).
            group2ctxs: {ctx_group: Context}, or one such dict per context.

        Raises:
            ValueError: a grad_req of another type, or inputs whose batch sizes differ.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            net = sym.SoftmaxOutput(fc, name='softmax')
            group = mx.module.executor_group.DataParallelExecutorGroup(
                net, [mx.cpu(0), mx.cpu(1)], [1, 1], [('data', (4, 3))],
                [('softmax_label', (4,))], ['fc_weight', 'fc_bias'], True, False)
            [e.arg_dict['data'].shape for e in group.execs]   # [(2, 3), (2, 3)]
        """
        self.logger = logger
        data_shapes = [d if isinstance(d, DataDesc) else DataDesc(*d) for d in data_shapes]
        label_shapes = None if label_shapes is None else [
            d if isinstance(d, DataDesc) else DataDesc(*d) for d in label_shapes]
        self.symbol = symbol
        self.param_names = list(param_names)
        self.fixed_param_names = list(fixed_param_names or [])
        self.state_names = list(state_names or [])
        self.for_training, self.inputs_need_grad = bool(for_training), bool(inputs_need_grad)
        self.workload = list(workload) if workload is not None else [1] * len(contexts)
        self.grad_req = _grad_reqs(symbol.list_arguments(), self.param_names,
                                   self.fixed_param_names, [d.name for d in data_shapes],
                                   grad_req if for_training else "null", inputs_need_grad)
        self.shared_data_arrays = (shared_group.shared_data_arrays if shared_group is not None
                                   else [{} for _ in contexts])
        group2ctxs = _prepare_group2ctxs(group2ctxs, len(contexts), "DataParallelExecutorGroup")
        batch = _batch_size(data_shapes + (label_shapes or []))
        slices = split_input_slice(batch, self.workload) if batch else \
            [slice(i, i + 1) for i in range(len(contexts))]
        execs = []
        for i, (ctx, part) in enumerate(zip(contexts, slices)):
            descs = sliced_descs(data_shapes + (label_shapes or []), part)
            execs.append(symbol.simple_bind(
                ctx, grad_req=self.grad_req, type_dict={d.name: d.dtype for d in descs},
                shared_arg_names=self.param_names,
                shared_exec=None if shared_group is None else shared_group.execs[i],
                shared_buffer=self.shared_data_arrays[i], group2ctx=group2ctxs[i],
                **{d.name: d.shape for d in descs}))
        self._setup(execs, slices, input_axes(data_shapes + (label_shapes or [])),
                    output_axes(symbol), data_shapes, label_shapes)

    @classmethod
    def from_executors(cls, executors, slices, input_axes, output_axes, param_names=(),
                       data_shapes=(), label_shapes=None):
        """A group over executors already bound (one per context), as `Module` binds them.

        Args:
            executors: one bound `Executor` per context, in context order.
            slices: the part of the batch each one computes (`split_input_slice`).
            input_axes: {input name: its batch axis} (-1: fed whole to every context).
            output_axes: the batch axis of each output (-1: the first context's is taken).
            param_names: the parameters' names (for MXNet's ``_exec_group.param_names``).
            data_shapes: the whole batch's data DataDescs (what a batch's data feeds).
            label_shapes: the whole batch's label DataDescs, or None.

        Returns:
            DataParallelExecutorGroup.

        Example::

            from gluonlite.module.executor_group import DataParallelExecutorGroup
            exe = sym.tanh(sym.var('x')).simple_bind(mx.cpu(), x=(4, 3))
            group = DataParallelExecutorGroup.from_executors([exe], [slice(0, 4)], {'x': 0},
                                                             [0])
            group.execs[0] is exe   # True
        """
        self = cls.__new__(cls)
        self.logger = logging
        self.symbol = executors[0]._symbol
        self.param_names = list(param_names)
        self.fixed_param_names, self.state_names = [], []
        self.grad_req = dict(executors[0]._grad_req)
        self.for_training = any(r != "null" for r in self.grad_req.values())
        self.inputs_need_grad = any(self.grad_req.get(d.name, "null") != "null"
                                    for d in data_shapes)
        self.workload = [s.stop - s.start for s in slices]
        self.shared_data_arrays = [{n: a for n, a in e.arg_dict.items()
                                    if n not in self.param_names} for e in executors]
        self._setup(executors, slices, input_axes, output_axes, list(data_shapes),
                    None if label_shapes is None else list(label_shapes))
        return self

    def _setup(self, executors, slices, input_axes, output_axes, data_shapes, label_shapes):
        self.execs = list(executors)
        self.slices = list(slices)
        self.contexts = [e._ctx for e in self.execs]
        self.input_axes = dict(input_axes)
        self.output_axes = list(output_axes)
        self.data_shapes, self.label_shapes = data_shapes, label_shapes
        self.data_names = [d.name for d in data_shapes]
        self.label_names = [d.name for d in label_shapes or []]
        self.arg_names = self.symbol.list_arguments()
        self.aux_names = self.symbol.list_auxiliary_states()
        self.output_names = self.symbol.list_outputs()
        self.num_outputs = len(self.output_names)
        self.data_layouts = [self.input_axes.get(n, 0) for n in self.data_names]
        self.label_layouts = [self.input_axes.get(n, 0) for n in self.label_names]
        self.batch_size = self.slices[-1].stop if self.slices else None

    # ---- the first context's arrays, as an Executor's ---------------------------------------
    @property
    def arg_dict(self):
        """{argument name: the first context's array}.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'),
                                context=[mx.cpu(0), mx.cpu(1)])
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            group = mod._exec   # a DataParallelExecutorGroup of two executors
            group.arg_dict['fc_weight'].shape   # (2, 3)
        """
        return self.execs[0].arg_dict

    @property
    def grad_dict(self):
        """{argument name: the first context's gradient array}.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'),
                                context=[mx.cpu(0), mx.cpu(1)])
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            group = mod._exec   # a DataParallelExecutorGroup of two executors
            sorted(group.grad_dict)   # ['fc_bias', 'fc_weight']
        """
        return self.execs[0].grad_dict

    @property
    def aux_dict(self):
        """{auxiliary state name: the first context's array}.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'),
                                context=[mx.cpu(0), mx.cpu(1)])
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            group = mod._exec   # a DataParallelExecutorGroup of two executors
            group.aux_dict   # {}: no auxiliary states
        """
        return self.execs[0].aux_dict

    @property
    def _grad_req(self):
        return self.execs[0]._grad_req

    def arrays_of(self, name):
        """The copies of argument or auxiliary state `name`, one per context.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'),
                                context=[mx.cpu(0), mx.cpu(1)])
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            group = mod._exec   # a DataParallelExecutorGroup of two executors
            [a.shape for a in group.arrays_of('fc_weight')]   # [(2, 3), (2, 3)]
        """
        return [e.arg_dict[name] if name in e.arg_dict else e.aux_dict[name]
                for e in self.execs]

    @property
    def param_arrays(self):
        """Per parameter (`param_names` order), its array on each context: MXNet's attribute,
        which scripts read to pull a row_sparse weight's rows into it.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            group = mod._exec_group
            group.param_names, [a[0].shape for a in group.param_arrays]
            # (['fc_weight', 'fc_bias'], [(2, 3), (2,)])
        """
        return [self.arrays_of(name) for name in self.param_names]

    @property
    def grad_arrays(self):
        """Per parameter (`param_names` order), its gradient array on each context (None
        where it has none), as MXNet's attribute.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            [g[0].shape for g in mod._exec_group.grad_arrays]   # [(2, 3), (2,)]
        """
        return [self.grads_of(name) for name in self.param_names]

    def grads_of(self, name):
        """The gradient arrays of argument `name`, one per context (None where unbound).

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'),
                                context=[mx.cpu(0), mx.cpu(1)])
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            group = mod._exec   # a DataParallelExecutorGroup of two executors
            len(group.grads_of('fc_weight'))   # 2: one per context
        """
        return [e.grad_dict.get(name) for e in self.execs]

    def broadcast(self, names):
        """Copy the first context's values of `names` into every other context's arrays.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'),
                                context=[mx.cpu(0), mx.cpu(1)])
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            group = mod._exec   # a DataParallelExecutorGroup of two executors
            group.arg_dict['fc_weight'][:] = 1
            group.broadcast(['fc_weight'])   # both contexts hold ones
        """
        for name in names:
            first, *others = self.arrays_of(name)
            for dst in others:
                dst[:] = first.as_in_context(dst.context)

    def averaged(self, name):
        """The mean over contexts of argument or auxiliary state `name` (MXNet's
        `get_params`: copies that moved apart, such as BatchNorm's statistics, are
        averaged), on the first context.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'),
                                context=[mx.cpu(0), mx.cpu(1)])
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            group = mod._exec   # a DataParallelExecutorGroup of two executors
            group.averaged('fc_weight').shape   # (2, 3)
        """
        copies = self.arrays_of(name)
        if len(copies) == 1:
            return copies[0].copy()
        ctx = copies[0].context
        total = copies[0].copy()
        for c in copies[1:]:
            total += c.as_in_context(ctx)
        return total / len(copies)

    # ---- computing ------------------------------------------------------------------------
    def forward(self, data_batch=None, is_train=None, **feed):
        """Run every executor on its slice of a batch: `data_batch` (MXNet's form: a
        DataBatch, its data and, when it has them, labels) or the fed arrays (name ->
        whole-batch NDArray).

        Args:
            data_batch: a DataBatch (or None: `feed` gives the arrays).
            is_train (bool): run the executors in training mode, keeping what `backward`
                needs (default None: `for_training`).
            **feed: the whole-batch arrays by input name, cut into each executor's slice.

        Returns:
            The joined outputs.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'),
                                context=[mx.cpu(0), mx.cpu(1)])
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            group = mod._exec   # a DataParallelExecutorGroup of two executors
            outs = group.forward(is_train=True, data=nd.ones((4, 3)), softmax_label=nd.zeros(4))
            outs[0].shape   # (4, 2): both halves joined
        """
        if data_batch is not None:
            feed = dict(zip(self.data_names, data_batch.data), **feed)
            if self.label_names and getattr(data_batch, "label", None):
                feed.update(zip(self.label_names, data_batch.label))
        is_train = self.for_training if is_train is None else bool(is_train)
        for exe, part in zip(self.execs, self.slices):
            mine = {n: _cut(a, self.input_axes.get(n, 0), part, exe._ctx)
                    for n, a in feed.items()}
            exe.forward(is_train=is_train, **mine)
        return self.outputs

    def backward(self, out_grads=None):
        """Run every executor's backward on its slice of `out_grads` (whole-batch NDArrays,
        one per output; default ones).

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'),
                                context=[mx.cpu(0), mx.cpu(1)])
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            group = mod._exec   # a DataParallelExecutorGroup of two executors
            group.forward(is_train=True, data=nd.ones((4, 3)), softmax_label=nd.zeros(4))
            group.backward()
            group.grads_of('fc_weight')[1].shape   # (2, 3)
        """
        if isinstance(out_grads, nd.NDArray):
            out_grads = [out_grads]
        for exe, part in zip(self.execs, self.slices):
            mine = None
            if out_grads is not None:
                mine = [None if g is None else _cut(g, axis, part, exe._ctx)
                        for g, axis in zip(out_grads, self.output_axes)]
            exe.backward(mine)

    @property
    def outputs(self):
        """The outputs of the last forward, joined over the contexts.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'),
                                context=[mx.cpu(0), mx.cpu(1)])
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            group = mod._exec   # a DataParallelExecutorGroup of two executors
            group.forward(is_train=True, data=nd.ones((4, 3)), softmax_label=nd.zeros(4))
            group.outputs[0].shape   # (4, 2)
        """
        return [_join(arrays, axis)
                for arrays, axis in zip(self.outputs_per_context(), self.output_axes)]

    def outputs_per_context(self):
        """``[[output i of context 0, output i of context 1, ...] for each output i]``.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'),
                                context=[mx.cpu(0), mx.cpu(1)])
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            group = mod._exec   # a DataParallelExecutorGroup of two executors
            group.forward(is_train=True, data=nd.ones((4, 3)), softmax_label=nd.zeros(4))
            [a.shape for a in group.outputs_per_context()[0]]   # [(2, 2), (2, 2)]
        """
        return [list(group) for group in zip(*[e.outputs for e in self.execs])]

    def input_grads(self, names, merge=True):
        """The gradients of inputs `names`, joined over the contexts (`merge`) or as
        ``[[per context] for each name]``.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'),
                                context=[mx.cpu(0), mx.cpu(1)])
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            group = mod._exec   # a DataParallelExecutorGroup of two executors
            group.forward(is_train=True, data=nd.ones((4, 3)), softmax_label=nd.zeros(4))
            group.backward()
            group.input_grads(['fc_weight'])[0].shape   # (2, 3)
        """
        per = [self.grads_of(n) for n in names]
        if not merge:
            return per
        return [_join(g, self.input_axes.get(n, 0)) for n, g in zip(names, per)]

    # ---- MXNet's methods -----------------------------------------------------------------
    def get_outputs(self, merge_multi_context=True, begin=0, end=None):
        """Outputs `begin` to `end` of the last forward: joined over the contexts, or (not
        `merge_multi_context`) ``[[output on context 0, on context 1, ...], ...]``.

        Args:
            merge_multi_context: join each output over the contexts (default True).
            begin: the first output (default 0).
            end: one past the last output (default None: all).

        Returns:
            list of NDArray, or of lists of NDArray (one per context).

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'),
                                context=[mx.cpu(0), mx.cpu(1)])
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            group = mod._exec_group
            group.forward(mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)]))
            group.get_outputs()[0].shape   # (4, 2)
        """
        end = self.num_outputs if end is None else end
        per = self.outputs_per_context()[begin:end]
        if not merge_multi_context:
            return per
        return [_join(a, axis) for a, axis in zip(per, self.output_axes[begin:end])]

    def get_output_shapes(self):
        """[(output name, the whole batch's output shape)].

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'),
                                context=[mx.cpu(0), mx.cpu(1)])
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))])
            mod._exec_group.get_output_shapes()   # [('softmax_output', (4, 2))]
        """
        shapes = []
        for name, out, axis in zip(self.output_names, self.execs[0].outputs, self.output_axes):
            shape = list(out.shape)
            if axis >= 0 and self.batch_size is not None:
                shape[axis] = self.batch_size
            shapes.append((name, tuple(shape)))
        return shapes

    def get_input_grads(self, merge_multi_context=True):
        """The data inputs' gradients (bound with `inputs_need_grad`), joined over the
        contexts or per context.

        Args:
            merge_multi_context: join each gradient over the contexts (default True).

        Returns:
            list of NDArray, or of lists of NDArray (one per context).

        Raises:
            ValueError: the group was bound without `inputs_need_grad`.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))], inputs_need_grad=True)
            mod.init_params(); group = mod._exec_group
            group.forward(mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)])); group.backward()
            group.get_input_grads()[0].shape   # (4, 3)
        """
        if not self.inputs_need_grad:
            raise ValueError("DataParallelExecutorGroup.get_input_grads: bound without "
                             "inputs_need_grad=True, so the inputs have no gradients")
        return self.input_grads(self.data_names, merge_multi_context)

    def set_params(self, arg_params, aux_params, allow_extra=False):
        """Copy `arg_params` and `aux_params` ({name: NDArray}) into every executor.

        Args:
            arg_params: {argument name: NDArray}.
            aux_params: {auxiliary state name: NDArray}.
            allow_extra: ignore names the symbol does not have (else ValueError).

        Raises:
            ValueError: a name the symbol does not have (without `allow_extra`), or a value
                of another shape.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'),
                                context=[mx.cpu(0), mx.cpu(1)])
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))])
            mod._exec_group.set_params({'fc_weight': nd.ones((2, 3))}, {})
        """
        for e in self.execs:
            e.copy_params_from(arg_params, aux_params, allow_extra_params=allow_extra)

    def get_params(self, arg_params, aux_params):
        """Write each parameter's and auxiliary state's mean over the contexts into the
        arrays of `arg_params` and `aux_params` ({name: NDArray}, updated in place).

        Args:
            arg_params: {parameter name: NDArray} to write into (names it lacks are skipped).
            aux_params: {auxiliary state name: NDArray} to write into.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'),
                                context=[mx.cpu(0), mx.cpu(1)])
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            args = {'fc_weight': nd.zeros((2, 3)), 'fc_bias': nd.zeros(2)}
            mod._exec_group.get_params(args, {})   # args now hold the weights
        """
        for names, dest in ((self.param_names, arg_params), (self.aux_names, aux_params)):
            for name in names:
                if name in dest:
                    self.averaged(name).astype(dest[name].dtype).copyto(dest[name])

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Update `eval_metric` with each context's outputs against its slice of `labels`
        (or, `pre_sliced`, ``labels[i]`` for context i).

        Args:
            eval_metric: an `mx.metric.EvalMetric`.
            labels: the whole batch's label NDArrays (or, `pre_sliced`, one list per context).
            pre_sliced: whether `labels` are already cut per context (default False).

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'),
                                context=[mx.cpu(0), mx.cpu(1)])
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            group = mod._exec_group
            group.forward(mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)]))
            acc = mx.metric.Accuracy()
            group.update_metric(acc, [nd.zeros(4)], False); acc.get()
        """
        for i, (exe, part) in enumerate(zip(self.execs, self.slices)):
            if pre_sliced:
                mine = labels[i]
            else:
                mine = [_cut(a, axis, part, a.context)
                        for a, axis in zip(labels, self.label_layouts or [0] * len(labels))]
            eval_metric.update_dict(OrderedDict(zip(self.label_names, mine)),
                                    OrderedDict(zip(self.output_names, exe.outputs)))

    def reshape(self, data_shapes, label_shapes):
        """Rebind every executor for the whole batch's new `data_shapes` and `label_shapes`
        ((name, shape) pairs or DataDescs), sharing the arrays whose shapes stay.

        Args:
            data_shapes: the data's (name, shape) pairs or DataDescs.
            label_shapes: the labels', or None.

        Raises:
            ValueError: inputs whose batch sizes differ.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'),
                                context=[mx.cpu(0), mx.cpu(1)])
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))])
            group = mod._exec_group
            group.reshape([('data', (8, 3))], [('softmax_label', (8,))])
            group.execs[0].arg_dict['data'].shape   # (4, 3)
        """
        data_shapes = [d if isinstance(d, DataDesc) else DataDesc(*d) for d in data_shapes]
        label_shapes = None if label_shapes is None else [
            d if isinstance(d, DataDesc) else DataDesc(*d) for d in label_shapes]
        descs = data_shapes + (label_shapes or [])
        batch = _batch_size(descs)
        slices = split_input_slice(batch, self.workload) if batch else self.slices
        execs = [e.reshape(allow_up_sizing=True,
                           **{d.name: d.shape for d in sliced_descs(descs, part)})
                 for e, part in zip(self.execs, slices)]
        self._setup(execs, slices, input_axes(descs), self.output_axes, data_shapes,
                    label_shapes)

    def get_states(self, merge_multi_context=True):
        """The state arrays (`state_names`), ``[[per context] for each state]``.

        Args:
            merge_multi_context: must be False (default True raises, as MXNet asserts).

        Returns:
            list of lists of NDArray.

        Raises:
            ValueError: `merge_multi_context` (MXNet does not join states either).

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))])
            mod._exec_group.get_states(merge_multi_context=False)   # []: no states
        """
        if merge_multi_context:
            raise ValueError("DataParallelExecutorGroup.get_states: merge_multi_context=True "
                             "is not supported (as in MXNet); pass False")
        return self.state_arrays

    def set_states(self, states=None, value=None):
        """Set the state arrays from `states` (``[[per context] for each state]``) or to the
        number `value` (exactly one of the two).

        Args:
            states: per state, one NDArray per context (default None).
            value: a number for every state array (default None).

        Raises:
            ValueError: both or neither given.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))])
            mod._exec_group.set_states(value=0)   # no states: nothing to set
        """
        if (states is None) == (value is None):
            raise ValueError("DataParallelExecutorGroup.set_states: give exactly one of "
                             "states and value")
        for i, dsts in enumerate(self.state_arrays):
            for k, dst in enumerate(dsts):
                dst[:] = value if states is None else states[i][k].as_in_context(dst.context)

    def install_monitor(self, mon):
        """Install `mx.monitor.Monitor` `mon` on every executor.

        Args:
            mon: the Monitor.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))])
            mod._exec_group.install_monitor(mx.monitor.Monitor(1))
        """
        for e in self.execs:
            mon.install(e)

    @property
    def output_layouts(self):
        """The batch axis of each output (MXNet's name for `output_axes`).

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))])
            mod._exec_group.output_layouts   # [0]
        """
        return self.output_axes

    @property
    def data_arrays(self):
        """Per data input, ``[(slice, that context's array)]`` (MXNet's attribute).

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'),
                                context=[mx.cpu(0), mx.cpu(1)])
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))])
            mod._exec_group.data_arrays[0][1][0]   # slice(2, 4, None)
        """
        return [[(part, e.arg_dict[n]) for part, e in zip(self.slices, self.execs)]
                for n in self.data_names]

    @property
    def label_arrays(self):
        """Per label, ``[(slice, that context's array)]``; None without labels.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))])
            mod._exec_group.label_arrays[0][0][1].shape   # (4,)
        """
        if self.label_shapes is None:
            return None
        return [[(part, e.arg_dict[n]) for part, e in zip(self.slices, self.execs)]
                for n in self.label_names]

    @property
    def aux_arrays(self):
        """Per auxiliary state, its array on each context.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))])
            mod._exec_group.aux_arrays   # []
        """
        return [[e.aux_dict[n] for e in self.execs] for n in self.aux_names]

    @property
    def state_arrays(self):
        """Per state (`state_names`), its array on each context.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))])
            mod._exec_group.state_arrays   # []
        """
        return [[e.arg_dict[n] for e in self.execs] for n in self.state_names]

    @property
    def input_grad_arrays(self):
        """Per data input, its gradient on each context; None without `inputs_need_grad`.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'))
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))])
            mod._exec_group.input_grad_arrays   # None
        """
        if not self.inputs_need_grad:
            return None
        return [self.grads_of(n) for n in self.data_names if n in self.arg_names]

    def set_monitor_callback(self, callback, monitor_all=False):
        """Install ``callback(name, array)`` on every executor (see
        `Executor.set_monitor_callback`).

        Args:
            monitor_all (bool): also monitor the inputs of each operator, not only its outputs
                (default False).

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=2, name='fc')
            mod = mx.mod.Module(sym.SoftmaxOutput(fc, name='softmax'),
                                context=[mx.cpu(0), mx.cpu(1)])
            mod.bind([('data', (4, 3))], [('softmax_label', (4,))]); mod.init_params()
            group = mod._exec   # a DataParallelExecutorGroup of two executors
            group.set_monitor_callback(lambda name, array: print(name))
        """
        for e in self.execs:
            e.set_monitor_callback(callback, monitor_all)

    def __repr__(self):
        return (f"<DataParallelExecutorGroup on {[str(c) for c in self.contexts]}, slices "
                f"{[(s.start, s.stop) for s in self.slices]}>")
