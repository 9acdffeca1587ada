"""`DataParallelExecutorGroup`: one symbol bound on several contexts, each executor computing
its slice of every batch, as MXNet 1.x's `Module` does over a list of contexts.

The batch is cut along each input's batch axis by `split_input_slice` (proportional to the
work load of each context; MXNet's rule, kept in `gluonlite.executor_manager`); outputs and
input gradients are put back together along the outputs' batch axis. The parameters are one
copy per context; `Module.update` sums their gradients through the kvstore and keeps the copies
equal (see `Module.update`).
"""
from .. import ndarray as nd
from ..executor_manager import _split_input_slice as split_input_slice
from ..io import DataDesc

__all__ = ["DataParallelExecutorGroup", "split_input_slice"]


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

    def __init__(self, executors, slices, input_axes, output_axes, param_names=()):
        self.execs = list(executors)
        self.slices = list(slices)
        self.contexts = [e._ctx for e in self.execs]
        self.input_axes = dict(input_axes)
        self.output_axes = list(output_axes)
        self.param_names = list(param_names)

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
    def forward(self, is_train=False, **feed):
        """Run every executor on its slice of the fed arrays (name -> whole-batch NDArray).

        Args:
            is_train (bool): run the executors in training mode, keeping what `backward`
                needs (default False).
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
