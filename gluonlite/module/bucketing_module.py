"""`BucketingModule`: one network whose graph depends on a bucket key (typically the sequence
length), bound once per key met, all buckets sharing the default bucket's parameter arrays,
gradients and optimizer.

Each bucket's `Module` keeps its executor and its compiled plan, so a batch of a bucket
seen before costs no compilation; the first batch of a new bucket binds and compiles it.
"""
import logging
import warnings

from ..initializer import Uniform
from .base_module import BaseModule, _check_input_names
from .module import Module
from .. import ndarray as nd, symbol as sym
from ..model import load_params
from ..name import NameManager

__all__ = ["BucketingModule"]


class BucketingModule(BaseModule):
    """A module whose symbol is made per bucket key by `sym_gen`.

    Args:
        sym_gen: ``sym_gen(bucket_key) -> (symbol, data_names, label_names)``.
        default_bucket_key: the key bound first (the largest bucket, whose parameter arrays
            the others share).
        logger, context, work_load_list, fixed_param_names: as `Module`'s.
        state_names, group2ctxs, compression_params: as `Module`'s.
        logger (logging.Logger): where progress is logged (default the `logging` module).
        context (Context or list of Context): the device(s) to run on (default None: the
            current context).
        work_load_list (list of float): each context's share of the batch (default None:
            equal shares).
        fixed_param_names (list of str): parameters not updated in training (default
            None).
        state_names (list of str): inputs fed like parameters but never initialized (default
            None).
        group2ctxs (dict or list of dict): model parallelism: ctx_group name -> Context(s),
            as `Module`'s (default None).
        compression_params (dict): MXNet's gradient compression settings; accepted and
            unused (gradient compression belongs to the distributed stores, not provided).

    Raises:
        ValueError: default_bucket_key None; the default symbol lacks a data name.

    Example::

        def sym_gen(seq_len):   # the network for sentences of seq_len words
            embed = sym.Embedding(sym.var('data'), input_dim=10, output_dim=4, name='embed')
            pred = sym.FullyConnected(embed, num_hidden=10, flatten=False, name='pred')
            return sym.SoftmaxOutput(pred, name='softmax', preserve_shape=True), \
                ("data",), ("softmax_label",)
        it = mx.rnn.BucketSentenceIter([[1, 2, 3], [4, 5, 6], [7, 8], [9, 1]], batch_size=2)
        mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=it.default_bucket_key)
        mod.fit(it, num_epoch=2, eval_metric=mx.metric.Perplexity(0))
    """

    def __init__(self, sym_gen, default_bucket_key=None, logger=logging, context=None,
                 work_load_list=None, fixed_param_names=None, state_names=None,
                 group2ctxs=None, compression_params=None):
        super().__init__(logger=logger)
        if default_bucket_key is None:
            raise ValueError("BucketingModule: default_bucket_key must be given")
        self._default_bucket_key = default_bucket_key
        self._sym_gen = sym_gen
        symbol, data_names, label_names = self._call_sym_gen(default_bucket_key)
        _check_input_names(symbol, list(data_names or []), "data", True)
        _check_input_names(symbol, list(label_names or []), "label", False)
        self._context = context
        self._work_load_list = work_load_list
        self._fixed_param_names = list(fixed_param_names or [])
        self._state_names = list(state_names or [])
        self._group2ctxs = group2ctxs
        self._compression_params = compression_params
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None
        self._params_dirty = False
        self._monitor = None
        self._grad_req = None
        self._sym_dict = {}       # bucket key -> a loaded symbol used instead of sym_gen's
        self._preload_params = None

    def _call_sym_gen(self, key):
        # a fresh NameManager per call, as MXNet: automatic names (embedding0_weight) are
        # the same in every bucket and whatever was built before
        with NameManager():
            return self._sym_gen(key)

    def _reset_bind(self):
        self.binded = False
        self._buckets = {}
        self._curr_module = None
        self._curr_bucket_key = None

    def _new_module(self, key):
        symbol, data_names, label_names = self._call_sym_gen(key)
        symbol = self._sym_dict.get(key, symbol)
        return Module(symbol, data_names, label_names, logger=self.logger,
                      context=self._context, work_load_list=self._work_load_list,
                      fixed_param_names=self._fixed_param_names,
                      state_names=self._state_names, group2ctxs=self._group2ctxs,
                      compression_params=self._compression_params)

    # ---- description ------------------------------------------------------------------------
    @property
    def data_names(self):
        """The current (else the default) bucket's data names.

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.data_names   # ['data']
        """
        if self.binded:
            return self._curr_module.data_names
        return list(self._call_sym_gen(self._default_bucket_key)[1])

    @property
    def output_names(self):
        """The current (else the default) bucket's output names.

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.output_names   # ['softmax_output']
        """
        if self.binded:
            return self._curr_module.output_names
        return self._call_sym_gen(self._default_bucket_key)[0].list_outputs()

    @property
    def data_shapes(self):
        """The current bucket's data shapes.

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.bind([('data', (4, 5))], [('softmax_label', (4,))]); mod.init_params()
            mod.data_shapes[0].shape   # (4, 5): the current bucket's
        """
        self._check_bound("data_shapes")
        return self._curr_module.data_shapes

    @property
    def label_shapes(self):
        """The current bucket's label shapes.

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.bind([('data', (4, 5))], [('softmax_label', (4,))]); mod.init_params()
            mod.label_shapes[0].shape   # (4,)
        """
        self._check_bound("label_shapes")
        return self._curr_module.label_shapes

    @property
    def output_shapes(self):
        """The current bucket's output shapes.

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.bind([('data', (4, 5))], [('softmax_label', (4,))]); mod.init_params()
            mod.output_shapes   # [('softmax_output', (4, 2))]
        """
        self._check_bound("output_shapes")
        return self._curr_module.output_shapes

    @property
    def symbol(self):
        """The current bucket's symbol.

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.bind([('data', (4, 5))], [('softmax_label', (4,))]); mod.init_params()
            mod.symbol.list_outputs()   # ['softmax_output']
        """
        self._check_bound("symbol")
        return self._curr_module.symbol

    def _check_bound(self, what):
        if not self.binded:
            raise ValueError(f"BucketingModule.{what}: call bind() first")

    # ---- parameters -------------------------------------------------------------------------
    def get_params(self):
        """``(arg_params, aux_params)`` (copies; every bucket shares them).

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.bind([('data', (4, 5))], [('softmax_label', (4,))]); mod.init_params()
            sorted(mod.get_params()[0])   # ['fc_bias', 'fc_weight']
        """
        if not self.binded and self._preload_params is not None:
            return tuple(dict(p) for p in self._preload_params)
        self._check_ready("get_params")
        self._params_dirty = False
        return self._curr_module.get_params()

    def init_params(self, initializer=None, arg_params=None, aux_params=None,
                    allow_missing=False, force_init=False, allow_extra=False):
        """Initialize the shared parameters (see `Module.init_params`).

        Args:
            initializer (Initializer): draws the parameters not copied from `arg_params` /
                `aux_params` (default None: ``init.Uniform(0.01)``).
            arg_params (dict of str to NDArray): parameter values to copy in (default None).
            aux_params (dict of str to NDArray): auxiliary state values (e.g. BatchNorm
                statistics) to copy in (default None).
            allow_missing (bool): parameters absent from `arg_params` / `aux_params` are drawn
                by the initializer (default False: a missing one raises).
            force_init (bool): initialize again when already initialized (default False: the
                call is ignored with a warning).
            allow_extra (bool): passed on to the bucket module's `init_params` (a `Module` ignores
                unused names either way; default False).

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.bind([('data', (4, 5))], [('softmax_label', (4,))])
            mod.init_params(mx.init.Xavier())
        """
        if self.params_initialized and not force_init:
            return
        self._check_bound("init_params")
        initializer = Uniform(0.01) if initializer is None else initializer
        self._curr_module.init_params(initializer=initializer, arg_params=arg_params,
                                      aux_params=aux_params, allow_missing=allow_missing,
                                      force_init=force_init, allow_extra=allow_extra)
        self._params_dirty = False
        self.params_initialized = True

    def set_params(self, arg_params, aux_params, allow_missing=False, force_init=True,
                   allow_extra=False):
        """Copy `arg_params` / `aux_params` into the shared parameters.

        Args:
            allow_missing (bool): tolerate parameters absent from `arg_params` / `aux_params`
                (default False: a missing one raises).
            force_init (bool): copy even when already initialized (default True).
            allow_extra (bool): tolerate names in `arg_params` / `aux_params` that the symbol
                does not use (default False).

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.bind([('data', (4, 5))], [('softmax_label', (4,))]); mod.init_params()
            mod.set_params(*mod.get_params())   # e.g. from another module
        """
        self._check_bound("set_params")
        self._curr_module.set_params(arg_params, aux_params, allow_missing=allow_missing,
                                     force_init=force_init, allow_extra=allow_extra)
        self._params_dirty = True
        self.params_initialized = True

    def get_states(self, merge_multi_context=True):
        """The current bucket's states.

        Args:
            merge_multi_context (bool): True (default): one NDArray per entry, the contexts'
                parts joined along the batch axis; False: per entry, the list of each context's
                array.

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.bind([('data', (4, 5))], [('softmax_label', (4,))]); mod.init_params()
            mod.get_states()   # []: the symbols take no states
        """
        return self._curr_module.get_states(merge_multi_context)

    def set_states(self, states=None, value=None):
        """Set the current bucket's states.

        Args:
            states (list of NDArray): the new state values, one per state name (default None:
                use `value`).
            value (float): fill every state with this scalar (default None: use `states`).

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.bind([('data', (4, 5))], [('softmax_label', (4,))]); mod.init_params()
            mod.set_states(value=0)   # no states to fill here
        """
        self._curr_module.set_states(states, value)

    # ---- binding ----------------------------------------------------------------------------
    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False,
             force_rebind=False, shared_module=None, grad_req="write"):
        """Bind the default bucket (see `Module.bind`); other buckets bind on first use.

        Args:
            data_shapes (list of DataDesc or pairs): the data inputs' ``(name, shape)``, in
                `data_names` order.
            label_shapes (list of DataDesc or pairs): the labels' shapes (default None:
                no labels, e.g. for prediction).
            for_training (bool): bind for training, so gradients are allocated (default True).
            inputs_need_grad (bool): also compute the gradients of the data inputs (default
                False).
            force_rebind (bool): bind again when already bound (default False: the call is
                ignored with a warning).
            shared_module: must be None (default): sharing is refused with
                ValueError.
            grad_req (str): 'write', 'add' or 'null': how the parameters' gradients are stored
                (default 'write').

        Raises:
            ValueError: a shared_module (not supported here).

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.bind([('data', (4, 5))], [('softmax_label', (4,))])
            mod.binded   # True: bucket 5 is bound
        """
        params = self.get_params() if self.params_initialized and self.binded else None
        if force_rebind:
            self._reset_bind()
        if self.binded:
            warnings.warn("BucketingModule.bind: already bound, ignoring bind()", stacklevel=2)
            return
        if shared_module is not None:
            raise ValueError("BucketingModule.bind: shared_module is not supported")
        self.for_training, self.inputs_need_grad = for_training, inputs_need_grad
        self._grad_req = grad_req
        module = self._new_module(self._default_bucket_key)
        if self._preload_params is not None:
            module._preload_params, self._preload_params = self._preload_params, None
            module.params_initialized = True
        module.bind(data_shapes, label_shapes, for_training, inputs_need_grad,
                    force_rebind=False, shared_module=None, grad_req=grad_req)
        self._curr_module = module
        self._curr_bucket_key = self._default_bucket_key
        self._buckets[self._default_bucket_key] = module
        self.binded = True
        if params is not None:
            self.set_params(*params)

    def switch_bucket(self, bucket_key, data_shapes, label_shapes=None):
        """Make `bucket_key` current, binding its module (sharing the default bucket's
        parameters) the first time.

        Args:
            data_shapes (list of DataDesc or pairs): the
                bucket's data shapes, used when it is bound the first time.
            label_shapes (list of DataDesc or pairs): its label shapes (default None).

        Raises:
            ValueError: not bound.

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.bind([('data', (4, 5))], [('softmax_label', (4,))]); mod.init_params()
            mod.switch_bucket(3, [('data', (4, 3))], [('softmax_label', (4,))])
            mod.data_shapes[0].shape   # (4, 3)
        """
        self._check_bound("switch_bucket")
        if bucket_key not in self._buckets:
            module = self._new_module(bucket_key)
            module.bind(data_shapes, label_shapes, self._curr_module.for_training,
                        self._curr_module.inputs_need_grad, force_rebind=False,
                        shared_module=self._buckets[self._default_bucket_key],
                        grad_req=self._grad_req)
            if self._monitor is not None:
                module.install_monitor(self._monitor)
            self._buckets[bucket_key] = module
        self._curr_module = self._buckets[bucket_key]
        self._curr_bucket_key = bucket_key

    def init_optimizer(self, kvstore="local", optimizer="sgd",
                       optimizer_params=(("learning_rate", 0.01),), force_init=False):
        """Make the optimizer (see `Module.init_optimizer`), shared by every bucket.

        Args:
            kvstore (str or KVStore): where gradients are aggregated (default 'local'), as
                `Module.init_optimizer`.
            optimizer (str or Optimizer): the optimizer, or a name `optimizer.create` takes
                (default 'sgd').
            optimizer_params (dict or tuple of pairs): the named optimizer's arguments (default
                learning rate 0.01).
            force_init (bool): initialize again when already initialized (default False: the
                call is ignored with a warning).

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.bind([('data', (4, 5))], [('softmax_label', (4,))]); mod.init_params()
            mod.init_optimizer(optimizer_params={'learning_rate': 0.1})
        """
        self._check_ready("init_optimizer")
        if self.optimizer_initialized and not force_init:
            warnings.warn("BucketingModule.init_optimizer: optimizer already initialized, "
                          "ignoring", stacklevel=2)
            return
        self._curr_module.init_optimizer(kvstore, optimizer, optimizer_params,
                                         force_init=force_init)
        for mod in self._buckets.values():
            if mod is not self._curr_module:
                mod.borrow_optimizer(self._curr_module)
        self.optimizer_initialized = True

    # ---- computing --------------------------------------------------------------------------
    def prepare(self, data_batch, sparse_row_id_fn=None):
        """Bind the batch's bucket ahead of its `forward` (the current bucket is kept).

        Args:
            data_batch (DataBatch): the next batch; its `bucket_key` and
                `provide_data` select and bind its bucket.
            sparse_row_id_fn (callable): handed to the bucket's `Module.prepare`, which pulls
                the rows of row_sparse parameters it names (default None).

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.bind([('data', (4, 5))], [('softmax_label', (4,))]); mod.init_params()
            b3 = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)], bucket_key=3,   # bucket 3
                                 provide_data=[('data', (4, 3))],
                                 provide_label=[('softmax_label', (4,))])
            mod.prepare(b3)   # binds bucket 3 now
        """
        self._check_ready("prepare")
        original = self._curr_bucket_key
        self.switch_bucket(data_batch.bucket_key, data_batch.provide_data,
                           data_batch.provide_label)
        self._curr_module.prepare(data_batch, sparse_row_id_fn=sparse_row_id_fn)
        self.switch_bucket(original, None, None)

    def forward(self, data_batch, is_train=None):
        """Switch to the batch's bucket (`bucket_key`) and run it forward.

        Args:
            data_batch (DataBatch): the batch; its `bucket_key` selects
                the bucket (default bucket when None), `provide_data` its shapes.
            is_train (bool): run in training mode (keep what `backward` needs, labels read);
                default None: the `for_training` given to `bind`.

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.bind([('data', (4, 5))], [('softmax_label', (4,))]); mod.init_params()
            b3 = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)], bucket_key=3,   # bucket 3
                                 provide_data=[('data', (4, 3))],
                                 provide_label=[('softmax_label', (4,))])
            mod.forward(b3); mod.get_outputs()[0].shape   # (4, 2)
        """
        self._check_ready("forward")
        key = data_batch.bucket_key
        if key is None:
            key = self._default_bucket_key
        self.switch_bucket(key, data_batch.provide_data, data_batch.provide_label)
        self._curr_module.forward(data_batch, is_train=is_train)

    def backward(self, out_grads=None):
        """The current bucket's `backward`.

        Args:
            out_grads (NDArray or list of NDArray): the gradients of the outputs, one per output;
                default None: none needed, as for loss outputs.

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.bind([('data', (4, 5))], [('softmax_label', (4,))]); mod.init_params()
            b3 = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)], bucket_key=3,   # bucket 3
                                 provide_data=[('data', (4, 3))],
                                 provide_label=[('softmax_label', (4,))])
            mod.forward(b3, is_train=True); mod.backward()
        """
        self._check_ready("backward")
        self._curr_module.backward(out_grads=out_grads)

    def update(self):
        """One optimizer step on the shared parameters.

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.bind([('data', (4, 5))], [('softmax_label', (4,))]); mod.init_params()
            b3 = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)], bucket_key=3,   # bucket 3
                                 provide_data=[('data', (4, 3))],
                                 provide_label=[('softmax_label', (4,))])
            mod.init_optimizer(optimizer_params={'learning_rate': 0.1})
            mod.forward(b3, is_train=True); mod.backward(); mod.update()
        """
        self._check_ready("update")
        self._params_dirty = True
        self._curr_module.update()

    def get_outputs(self, merge_multi_context=True):
        """The current bucket's outputs.

        Args:
            merge_multi_context (bool): True (default): one NDArray per entry, the contexts'
                parts joined along the batch axis; False: per entry, the list of each context's
                array.

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.bind([('data', (4, 5))], [('softmax_label', (4,))]); mod.init_params()
            b3 = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)], bucket_key=3,   # bucket 3
                                 provide_data=[('data', (4, 3))],
                                 provide_label=[('softmax_label', (4,))])
            mod.forward(b3); mod.get_outputs()[0].shape   # (4, 2)
        """
        self._check_ready("get_outputs")
        return self._curr_module.get_outputs(merge_multi_context)

    def get_input_grads(self, merge_multi_context=True):
        """The current bucket's input gradients.

        Args:
            merge_multi_context (bool): True (default): one NDArray per entry, the contexts'
                parts joined along the batch axis; False: per entry, the list of each context's
                array.

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.bind([('data', (4, 5))], [('softmax_label', (4,))], inputs_need_grad=True)
            mod.init_params(); mod.forward(mx.io.DataBatch([nd.ones((4, 5))], [nd.zeros(4)]))
            mod.backward(); mod.get_input_grads()[0].shape   # (4, 5)
        """
        self._check_ready("get_input_grads")
        return self._curr_module.get_input_grads(merge_multi_context)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """The current bucket's `update_metric`.

        Args:
            eval_metric (EvalMetric): the metric updated with the labels and the outputs.
            labels (list of NDArray): the batch's labels, in `label_names` order.
            pre_sliced (bool): `labels` is already one list per context (default False: the
                labels are cut along the batch axis per context).

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.bind([('data', (4, 5))], [('softmax_label', (4,))]); mod.init_params()
            b3 = mx.io.DataBatch([nd.ones((4, 3))], [nd.zeros(4)], bucket_key=3,   # bucket 3
                                 provide_data=[('data', (4, 3))],
                                 provide_label=[('softmax_label', (4,))])
            mod.forward(b3, is_train=False)
            metric = mx.metric.Accuracy(); mod.update_metric(metric, b3.label)
        """
        self._check_ready("update_metric")
        self._curr_module.update_metric(eval_metric, labels, pre_sliced)

    def install_monitor(self, mon):
        """Install `mon` on every bucket's module (and those bound later).

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.bind([('data', (4, 5))], [('softmax_label', (4,))]); mod.init_params()
            mod.install_monitor(mx.monitor.Monitor(interval=1))
        """
        self._check_bound("install_monitor")
        self._monitor = mon
        for mod in self._buckets.values():
            mod.install_monitor(mon)

    def save_checkpoint(self, prefix, epoch, remove_amp_cast=False):
        """Write ``prefix-EPOCH.params``, each bound bucket's symbol as
        ``prefix-KEY-symbol.json`` and the keys as ``prefix.buckets`` (what `load` reads).

        Args:
            epoch (int): the epoch number in the file names (``prefix-EPOCH.params``).
            remove_amp_cast (bool): accepted for MXNet's signature; the symbols are saved as
                they are.

        Raises:
            ValueError: no bucket bound yet.

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.bind([('data', (4, 5))], [('softmax_label', (4,))]); mod.init_params()
            mod.save_checkpoint('lm', 1)
            # lm-0001.params, lm-5-symbol.json and lm.buckets
        """
        if not self._buckets:
            raise ValueError("BucketingModule.save_checkpoint: no bucket is bound; an empty "
                             "BucketingModule cannot be saved")
        self.save_params("%s-%04d.params" % (prefix, epoch))
        for key in self._buckets:
            self._call_sym_gen(key)[0].save("%s-%s-symbol.json" % (prefix, key))
        nd.save("%s.buckets" % prefix, nd.array(list(self._buckets), dtype="int32"))

    @staticmethod
    def load(prefix, epoch, sym_gen=None, default_bucket_key=None, **kwargs):
        """A BucketingModule from `save_checkpoint`'s files: the saved buckets' symbols and
        the parameters (copied in at `bind`).

        Args:
            kwargs: for `BucketingModule` (context, fixed_param_names ...).
            prefix (str): the path prefix of the checkpoint's files.
            epoch (int): the epoch number in the file names (``prefix-EPOCH.params``).
            sym_gen (callable): the `sym_gen` the module was made with;
                required.
            default_bucket_key: the default bucket's key; required.

        Raises:
            ValueError: sym_gen or default_bucket_key missing.

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.bind([('data', (4, 5))], [('softmax_label', (4,))]); mod.init_params()
            mod.save_checkpoint('lm', 1)
            mod = mx.mod.BucketingModule.load('lm', 1, gen, 5)
        """
        if sym_gen is None or default_bucket_key is None:
            raise ValueError("BucketingModule.load: sym_gen and default_bucket_key are "
                             "required")
        keys = [int(k) for k in nd.load("%s.buckets" % prefix)[0].asnumpy()]
        sym_dict = {k: sym.load("%s-%s-symbol.json" % (prefix, k)) for k in keys}
        args, auxs = load_params(prefix, epoch)
        return BucketingModule.load_dict(sym_dict, sym_gen, default_bucket_key, args, auxs,
                                         **kwargs)

    @staticmethod
    def load_dict(sym_dict=None, sym_gen=None, default_bucket_key=None, arg_params=None,
                  aux_params=None, **kwargs):
        """A BucketingModule using the symbols of `sym_dict` (bucket key -> Symbol) for
        those keys and holding `arg_params` / `aux_params` (copied in at `bind`).

        Args:
            sym_gen (callable): makes the symbols of keys not in
                `sym_dict`; required.
            default_bucket_key: the default bucket's key; required.

        Raises:
            ValueError: a required argument missing.

        Example::

            def gen(key):   # the network for sequences of length `key`; its weights are shared
                x = sym.mean(sym.var('data'), axis=1, keepdims=True)
                fc = sym.FullyConnected(x, num_hidden=2, name='fc')
                return sym.SoftmaxOutput(fc, name='softmax'), ('data',), ('softmax_label',)
            mod = mx.mod.BucketingModule(gen, default_bucket_key=5)
            mod.bind([('data', (4, 5))], [('softmax_label', (4,))]); mod.init_params()
            args, auxs = mod.get_params()
            mod = mx.mod.BucketingModule.load_dict({5: gen(5)[0]}, gen, 5, args, auxs)
        """
        for what, value in (("sym_dict", sym_dict), ("arg_params", arg_params),
                            ("aux_params", aux_params),
                            ("default_bucket_key", default_bucket_key)):
            if value is None:
                raise ValueError(f"BucketingModule.load_dict: {what} is required")
        mod = BucketingModule(sym_gen, default_bucket_key, **kwargs)
        mod._sym_dict = dict(sym_dict)
        mod._preload_params = (dict(arg_params), dict(aux_params))
        mod.params_initialized = True
        return mod
