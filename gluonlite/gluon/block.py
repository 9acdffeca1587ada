"""`Block` and `HybridBlock`: the building blocks of models, with MXNet 1.x naming,
parameter management, hybridization, export and parameter files.

Naming: a block's prefix is its class name lowercased plus a counter (``dense0_``), counted
per enclosing `name_scope`; its parameters are named ``prefix + name`` (``dense0_weight``).

Hybridizing: after ``hybridize()``, the first call traces `hybrid_forward` with symbols
(inputs ``data`` or ``data0, data1, ...``, parameters as variables named like the
parameters), and a `CachedOp` runs the graph; one graph is kept per input structure, and the
CachedOp compiles once per input shapes.
"""
import re
import threading
import warnings
from collections import OrderedDict

from .. import ndarray as nd_mod, symbol
from ..base import flatten, structure_str, unflatten
from ..ndarray.ndarray import NDArray
from .parameter import (Parameter, ParameterDict, DeferredInitializationError,
                        GluonUsageError, assign_loaded)
from .utils import HookHandle
from ..executor.cached_op import CachedOp
from ..executor.infer import infer_graph
from ..ndarray.serialization import load, save
from ..symbol.naming import Prefix, new_name
from ..symbol.symbol import Symbol, topo_nodes
from ..subgraph import list_subgraph_properties, partition_graph
from .block_formats import _flatten, _regroup  # noqa: F401  (MXNet's gluon.block has them)
from .block_formats import FormatAttributes
from .block_save import load_model, save_model
from .np_dialect import call_hybrid_forward, call_imperative, check_np_outputs
from .op_hook import report_ops
from ..util import is_np_array, np_array, np_shape

__all__ = ["Block", "HybridBlock"]


def _is_array(x):
    return isinstance(x, NDArray)


def _is_sym(x):
    return isinstance(x, Symbol)


def _is_np_sym(x):
    """Whether `x` is a symbol of MXNet's NumPy dialect (`mx.sym.np._Symbol`)."""
    return getattr(type(x), "num_outputs", None) is not None and _is_sym(x)


def _is_leaf(x):
    return _is_array(x) or _is_sym(x)


class _BlockScope:
    """The name scope of a Block: counts child prefixes and prefixes symbol node names."""

    _current = threading.local()

    def __init__(self, block):
        self._block = block
        self._counter = {}
        self._old_scope = None
        self._name_scope = None

    @staticmethod
    def create(prefix, params, hint):
        """(prefix, ParameterDict) for a new block created in the current scope."""
        current = getattr(_BlockScope._current, "value", None)
        if current is None:
            if prefix is None:
                prefix = new_name(None, hint) + "_"
            params = ParameterDict(prefix) if params is None else \
                ParameterDict(params.prefix, params)
            return prefix, params
        if prefix is None:
            count = current._counter.get(hint, 0)
            prefix = f"{hint}{count}_"
            current._counter[hint] = count + 1
        if params is None:
            parent = current._block.params
            params = ParameterDict(parent.prefix + prefix, parent._shared)
        else:
            params = ParameterDict(params.prefix, params)
        return current._block.prefix + prefix, params

    def __enter__(self):
        if self._block._empty_prefix:
            return self
        self._old_scope = getattr(_BlockScope._current, "value", None)
        _BlockScope._current.value = self
        self._name_scope = Prefix(self._block.prefix)
        self._name_scope.__enter__()
        return self

    def __exit__(self, *exc):
        if self._block._empty_prefix:
            return
        self._name_scope.__exit__(*exc)
        self._name_scope = None
        _BlockScope._current.value = self._old_scope


def _indent(s, n=2):
    lines = s.split("\n")
    return "\n".join([lines[0]] + [" " * n + line for line in lines[1:]])


class Block:
    """Base class of every layer and model.

    Subclasses create children and parameters in ``__init__`` (inside
    ``with self.name_scope():``) and define `forward`. Children assigned as attributes are
    registered automatically.

    Args:
        prefix: the name prefix (default: class name lowercased + counter + '_').
        params: a ParameterDict to share parameters with.

    Example::

        class Net(gluon.Block):
            def __init__(self, **kw):
                super().__init__(**kw)
                with self.name_scope():
                    self.dense = gluon.nn.Dense(4)
            def forward(self, x):
                return self.dense(x)
    """

    def __init__(self, prefix=None, params=None):
        self._empty_prefix = prefix == ""
        self._prefix, self._params = _BlockScope.create(prefix, params, self._alias())
        self._name = self._prefix[:-1] if self._prefix.endswith("_") else self._prefix
        self._scope = _BlockScope(self)
        self._children = OrderedDict()
        self._reg_params = OrderedDict()
        self._forward_hooks = OrderedDict()
        self._forward_pre_hooks = OrderedDict()

    def _alias(self):
        return self.__class__.__name__.lower()

    def __repr__(self):
        body = "\n".join(f"  ({k}): {_indent(repr(b))}" for k, b in self._children.items())
        return f"{self.__class__.__name__}(\n{body}\n)" if body else \
            f"{self.__class__.__name__}()"

    def __setattr__(self, name, value):
        existing = self.__dict__.get(name)
        if isinstance(existing, (Parameter, Block)) and not isinstance(value, type(existing)):
            raise TypeError(f"Changing attribute type for {name} from {type(existing)} to "
                            f"{type(value)} is not allowed")
        if isinstance(value, Block):
            self.register_child(value, name)
        elif isinstance(value, Parameter):
            self._reg_params[name] = value
        object.__setattr__(self, name, value)

    @property
    def prefix(self):
        """The name prefix (``dense0_``).

        Example::

            layer = nn.Dense(3, prefix='fc_')
            layer.prefix   # fc_
        """
        return self._prefix

    @property
    def name(self):
        """The prefix without its trailing underscore (``dense0``).

        Example::

            layer = nn.Dense(3, prefix='fc_')
            layer.name   # fc
        """
        return self._name

    @property
    def params(self):
        """This block's own ParameterDict (children's not included: see `collect_params`).

        Example::

            layer = nn.Dense(3, in_units=4, prefix='fc_')
            sorted(layer.params.keys())   # ['fc_bias', 'fc_weight']
        """
        return self._params

    def name_scope(self):
        """A context manager: children and parameters created inside get this block's prefix.

        Example::

            net = nn.Sequential(prefix='net_')
            with net.name_scope():
                net.add(nn.Dense(3))
            net[0].prefix   # net_dense0_
        """
        return self._scope

    def register_child(self, block, name=None):
        """Register `block` as a child (name defaults to its index).

        Args:
            block: the child Block.
            name: the key it is kept under among the children (default None: the number of
                children registered so far, as a string); a second child under the same
                name replaces the first.

        Example::

            net = gluon.Block()
            net.register_child(nn.Dense(3), 'head')
            len(net._children)   # 1
        """
        if name is None:
            name = str(len(self._children))
        self._children[name] = block

    def register_forward_hook(self, hook):
        """Call ``hook(block, inputs, outputs)`` after every forward (it should not change
        them).

        Returns:
            a `gluon.utils.HookHandle`; ``handle.detach()`` removes the hook.

        Example::

            net = nn.Dense(3); net.initialize()
            h = net.register_forward_hook(lambda block, x, y: print(y.shape))
            y = net(nd.ones((2, 4)))   # prints (2, 3)
            h.detach()
        """
        handle = HookHandle()
        handle.attach(self._forward_hooks, hook)
        return handle

    def register_forward_pre_hook(self, hook):
        """Call ``hook(block, inputs)`` before every forward (it should not change them).

        Returns:
            a `gluon.utils.HookHandle`; ``handle.detach()`` removes the hook.

        Example::

            net = nn.Dense(3); net.initialize()
            h = net.register_forward_pre_hook(lambda block, x: print(x[0].shape))
            y = net(nd.ones((2, 4)))   # prints (2, 4)
            h.detach()
        """
        handle = HookHandle()
        handle.attach(self._forward_pre_hooks, hook)
        return handle

    def optimize_for(self, x, *args, backend=None, backend_opts=None, clear=True,
                     static_alloc=False, static_shape=False, inline_limit=2, **kwargs):
        """Hybridize with subgraph `backend` and build the partitioned graph for inputs
        like `x`, `args` now (MXNet 1.9's ``HybridBlock.optimize_for``); later calls run it.

        Args:
            x: the first example input (the inputs' structure and shapes pick the graph).
            *args: further example inputs.
            backend: a registered subgraph backend (``'FUSE'``: the inference backend).
            backend_opts: options for the partitioner (``{'op_names': [...]}``).
            clear: drop the graphs compiled so far (default True), as `hybridize`'s.
            static_alloc: keep intermediate buffers between calls (default False), as
                `hybridize`'s.
            static_shape: promise fixed input shapes (default False), as `hybridize`'s.
            inline_limit: the largest graph shown inlined by `autograd.get_symbol`
                (default 2), as `hybridize`'s.
            **kwargs: further `hybridize` options.

        Raises:
            ValueError: an unknown backend.

        Example::

            net = nn.HybridSequential(); net.add(nn.Dense(3), nn.Activation('relu'))
            net.initialize()
            x = nd.ones((2, 4))
            net.optimize_for(x, backend='FUSE', static_alloc=True)
            net(x).shape   # (2, 3)
        """
        self.hybridize(True, backend=backend, clear=clear, static_alloc=static_alloc,
                       static_shape=static_shape, inline_limit=inline_limit,
                       backend_opts=backend_opts, **kwargs)
        flat, fmt = flatten([x, *args], _is_leaf)
        self._cached_ops[(_format_key(fmt), self._trace_key())] = self._build_cache(x, *args)

    def register_op_hook(self, callback, monitor_all=False):
        """Call ``callback(node_name, op_name, array)`` for every operator output of the
        hybridized children's graphs as they run (with `monitor_all`, for the inputs too).
        A plain Block only passes it to its children.

        Args:
            callback: a function of (str, str, NDArray).
            monitor_all: also report every operator's inputs.

        Example::

            names = []
            net = nn.Sequential(); net.add(nn.Dense(3), nn.Lambda(lambda x: x)); net.initialize()
            net.hybridize()
            net.register_op_hook(lambda node, op, arr: names.append(op))
            y = net(nd.ones((2, 4)))
            'FullyConnected' in names   # True
        """
        for child in self._children.values():
            child.register_op_hook(callback, monitor_all)

    def _check_container_with_block(self):
        # Blocks kept in a list or dict attribute are not registered as children: their
        # parameters are then missing from collect_params, a silent bug worth a warning.
        children = set(id(c) for c in self._children.values())

        def unregistered(data):
            if isinstance(data, (list, tuple)):
                return any(unregistered(e) for e in data)
            if isinstance(data, dict):
                return any(unregistered(e) for e in data.values())
            return isinstance(data, Block) and id(data) not in children

        for k, v in self.__dict__.items():
            if isinstance(v, (list, tuple, dict)) and not (k.startswith("__") or
                                                           k == "_children"):
                if unregistered(v):
                    warnings.warn(f'"{self.__class__.__name__}.{k}" is an unregistered container '
                                  "with Blocks. Blocks inside a list, tuple or dict are not "
                                  "registered automatically: register them with "
                                  "register_child() or use nn.Sequential/nn.HybridSequential",
                                  stacklevel=3)

    def collect_params(self, select=None):
        """A ParameterDict of this block's and all descendants' parameters.

        Args:
            select: a regex; only parameters whose names match it (from the start) are kept,
                e.g. ``'.*weight|.*bias'``.

        Example::

            net = nn.Sequential(); net.add(nn.Dense(3, in_units=4), nn.Dense(2, in_units=3))
            len(net.collect_params())   # 4
            len(net.collect_params('.*weight'))   # 2
        """
        self._check_container_with_block()
        ret = ParameterDict(self._params.prefix)
        rx = re.compile(select) if select else None
        ret.update({k: v for k, v in self.params.items() if rx is None or rx.match(k)})
        for child in self._children.values():
            ret.update(child.collect_params(select=select))
        return ret

    def _collect_params_with_prefix(self, prefix=""):
        if prefix:
            prefix += "."
        ret = {prefix + k: v for k, v in self._reg_params.items()}
        for name, child in self._children.items():
            ret.update(child._collect_params_with_prefix(prefix + name))
        return ret

    def share_parameters(self, shared):
        """Use the Parameters of `shared` in place of this block's own (MXNet 2's spelling of
        sharing; the 1.x way, ``params=other.collect_params()`` at construction, works too).

        Args:
            shared: a dict (or ParameterDict) whose keys are structural names as
                `save_parameters` writes them (``'0.weight'``, ``'dense.bias'``) or full
                parameter names (``'dense0_weight'``); parameters not named stay.

        Returns:
            this block.

        Raises:
            ValueError: a shared Parameter whose shape cannot be this one's (both named).

        Example::

            net1 = nn.Dense(3, in_units=4); net1.initialize()
            net2 = nn.Dense(3, in_units=4)
            net2.share_parameters(net1._collect_params_with_prefix())
            net2.weight.data() is net1.weight.data()   # True
        """
        if not hasattr(shared, "items"):
            raise TypeError(f"{self.name}.share_parameters: shared must be a dict of "
                            f"Parameters, got {type(shared).__name__}")
        # a plain dict: ParameterDict.get would create what it does not find
        self._share_parameters(dict(shared.items()), "")
        return self

    def _share_parameters(self, shared, prefix):
        for attr, p in list(self._reg_params.items()):
            new = shared.get(prefix + attr)
            if new is None:
                new = shared.get(p.name)
            if new is None or new is p:
                continue
            if p.shape is not None and new.shape is not None and (
                    len(p.shape) != len(new.shape) or
                    any(a not in (0, b) and b != 0 for a, b in zip(p.shape, new.shape))):
                raise ValueError(f"{self.name}.share_parameters: Parameter {p.name!r} has shape "
                                 f"{p.shape} but the shared {new.name!r} has {new.shape}")
            self._reg_params[attr] = new
            object.__setattr__(self, attr, new)
            own = self._params._params
            if own.get(p.name) is p:
                own.pop(p.name)
                own[new.name] = new
        if isinstance(self, HybridBlock):
            self._clear_cached_op()
        for name, child in self._children.items():
            child._share_parameters(shared, f"{prefix}{name}.")

    def initialize(self, init=None, ctx=None, verbose=False, force_reinit=False):
        """Initialize every parameter (deferred for those whose shape is not known yet).

        Args:
            init: the global initializer (default ``init.Uniform()``); a parameter's own
                init (e.g. 'zeros' for biases) takes precedence.
            ctx: a Context or list of Contexts (default None: the current context).
            verbose: turn on the initializer's logging of what it initializes (its
                ``set_verbosity``; default False).
            force_reinit: re-initialize already initialized parameters (default False: they
                are left as they are, with a warning).

        Example::

            net = nn.Dense(3)
            net.initialize(mx.init.Xavier())
            net(nd.ones((2, 4))).shape   # (2, 3)
        """
        self.collect_params().initialize(init, ctx, verbose, force_reinit)

    def hybridize(self, active=True, **kwargs):
        """Hybridize every HybridBlock descendant (a plain Block itself stays imperative).

        Args:
            active: True to hybridize, False to return the descendants to imperative
                execution.
            **kwargs: the `HybridBlock.hybridize` options (``static_alloc``,
                ``static_shape``, ``backend``, ...), passed to every child.

        Example::

            net = nn.Sequential(); net.add(nn.Dense(3), nn.Lambda(lambda x: x)); net.initialize()
            net.hybridize()   # the Dense child now runs as a cached graph
            net(nd.ones((2, 4))).shape   # (2, 3)
        """
        for child in self._children.values():
            child.hybridize(active, **kwargs)

    def cast(self, dtype):
        """Cast every parameter to `dtype`.

        Example::

            net = nn.Dense(3, in_units=4); net.initialize()
            net.cast('float16')
            net.weight.dtype   # <class 'numpy.float16'>
        """
        for child in self._children.values():
            child.cast(dtype)
        for p in self.params.values():
            p.cast(dtype)

    def apply(self, fn):
        """Call ``fn(block)`` on every descendant and then on this block; returns self.

        Example::

            net = nn.Sequential(); net.add(nn.Dense(3), nn.Dense(2))
            seen = []
            net.apply(lambda b: seen.append(b.name))
            len(seen)   # 3
        """
        for child in self._children.values():
            child.apply(fn)
        fn(self)
        return self

    def save_parameters(self, filename, deduplicate=False):
        """Save parameters to `filename` in MXNet's binary format, named by their path in the
        block tree (``0.weight``, ``dense.bias``), as MXNet 1.9 does.

        Args:
            deduplicate: save a parameter shared by several blocks once (under the last of
                its names, as MXNet); `load_parameters` accepts such files.

        Example::

            net = nn.Dense(3, in_units=4); net.initialize()
            net.save_parameters('net.params')
            net2 = nn.Dense(3, in_units=4); net2.load_parameters('net.params')
        """
        params = self._collect_params_with_prefix()
        if deduplicate:
            last_name = {id(v): k for k, v in params.items()}
            params = {k: v for k, v in params.items() if last_name[id(v)] == k}
        save(filename, {k: v._reduce() for k, v in params.items()})

    def load_parameters(self, filename, ctx=None, allow_missing=False, ignore_extra=False,
                        cast_dtype=False, dtype_source="current"):
        """Load parameters written by `save_parameters` (or, for files whose names have no
        '.', by `ParameterDict.save`, relative to this block's prefix).

        Args:
            filename: the path of the parameter file.
            ctx: the context(s) for parameters not initialized yet (default cpu).
            allow_missing: leave parameters the file lacks as they are.
            ignore_extra: ignore entries of the file the block lacks.
            cast_dtype: cast saved arrays whose dtype differs from the parameter's.
            dtype_source: with `cast_dtype`, 'current' keeps each parameter's dtype, 'saved'
                gives the parameter the file's dtype.

        Raises:
            ValueError: listing every missing, extra and mis-shaped entry (each with both
                shapes); a dtype mismatch without `cast_dtype`; a malformed file.

        Example::

            net = nn.Dense(3, in_units=4); net.initialize()
            net.save_parameters('net.params')
            net2 = nn.Dense(3, in_units=4); net2.load_parameters('net.params')
            (net2.weight.data() == net.weight.data()).min().asscalar()   # 1.0
        """
        try:
            loaded = load(filename)
        except ValueError as e:
            if not (is_np_array() and "not saved in NumPy shape semantics" in str(e)):
                raise
            # a legacy file read under NumPy semantics: read it outside them, as MXNet does
            # (NumPy's arrays cover every legacy array)
            with np_array(False), np_shape(False):
                loaded = load(filename)
        if isinstance(loaded, list):  # an empty file (a model without parameters) is no list
            if loaded:
                raise ValueError(f"{filename}: the file holds unnamed arrays; parameters need "
                                 "names")
            loaded = {}
        params = self._collect_params_with_prefix()
        if not loaded and not params:
            return
        if not any("." in k for k in loaded) and not any("." in k for k in params):
            self.collect_params().load_dict(loaded, ctx, allow_missing, ignore_extra,
                                            self.prefix, filename, cast_dtype=cast_dtype,
                                            dtype_source=dtype_source)
            return
        assign_loaded(params, loaded, filename, ctx, allow_missing, ignore_extra, cast_dtype,
                      dtype_source)

    def save(self, prefix):
        """Save the block tree and parameters as ``prefix-model.json`` and
        ``prefix-model.params``, MXNet 1.9.1's whole-model files (see `block_save`).

        Example::

            def create_net():
                net = nn.Sequential(); net.add(nn.Dense(3, in_units=4)); return net
            net = create_net(); net.initialize()
            net.save('MyModel')
            net2 = create_net(); net2.load('MyModel')
        """
        save_model(self, prefix)

    def load(self, prefix):
        """Load files written by `save` into a block tree built by the same code in the same
        order: blocks get their saved names back, then the parameters are loaded.

        Args:
            prefix: the path prefix `save` was given (reads ``prefix-model.json`` and
                ``prefix-model.params``).

        Raises:
            ValueError: the saved tree does not match this block's.

        Example::

            def create_net():
                net = nn.Sequential(); net.add(nn.Dense(3, in_units=4)); return net
            net = create_net(); net.initialize(); net.save('MyModel')
            net2 = create_net(); net2.load('MyModel')
            net2(nd.ones((1, 4))).shape   # (1, 3)
        """
        load_model(self, prefix)

    # MXNet 1.x names kept for old scripts
    def save_params(self, filename):
        """Deprecated (MXNet 1.x): ``collect_params().save(filename,
        strip_prefix=self.prefix)``, names relative to this block's prefix. Warns.

        Args:
            filename: the path of the file to write.

        Example::

            net = nn.Dense(3, in_units=4); net.initialize()
            net.save_params('net.params')   # warns: use save_parameters
        """
        warnings.warn("save_params is deprecated. Please use save_parameters (or export, to "
                      "load the model as a SymbolBlock later)", DeprecationWarning, stacklevel=2)
        self.collect_params().save(filename, strip_prefix=self.prefix)

    def load_params(self, filename, ctx=None, allow_missing=False, ignore_extra=False):
        """Deprecated (MXNet 1.x): `load_parameters`. Warns (DeprecationWarning).

        Args:
            filename: the path of the parameter file.
            ctx: the context(s) for parameters not initialized yet (default None: cpu).
            allow_missing: leave parameters the file lacks as they are (default False:
                raise).
            ignore_extra: ignore entries of the file the block lacks (default False: raise).

        Raises:
            ValueError: as `load_parameters`.

        Example::

            net = nn.Dense(3, in_units=4); net.initialize(); net.save_parameters('net.params')
            net.load_params('net.params')   # warns: use load_parameters
        """
        warnings.warn("load_params is deprecated. Please use load_parameters",
                      DeprecationWarning, stacklevel=2)
        self.load_parameters(filename, ctx, allow_missing, ignore_extra)

    def __call__(self, *args):
        for hook in self._forward_pre_hooks.values():
            hook(self, args)
        out = self.forward(*args)
        for hook in self._forward_hooks.values():
            hook(self, args, out)
        if is_np_array():
            check_np_outputs(self, out)
        return out

    def forward(self, *args):
        """The computation; override it.

        Example::

            class Twice(gluon.Block):
                def forward(self, x):
                    return 2 * x
            Twice()(nd.ones((2,))).asnumpy()   # [2. 2.]
        """
        raise NotImplementedError(f"{self.__class__.__name__} must define forward()")

    def summary(self, *inputs):
        """Run `inputs` through the block and print, for every block that ran (containers
        excepted), its output shape and parameter count, then the totals (shared parameters
        counted once in "Unique parameters"). The block must be initialized and not
        hybridized.

        Example::

            net = nn.HybridSequential(); net.add(nn.Dense(3)); net.initialize()
            net.summary(nd.zeros((2, 8)))   # prints a table of layers, shapes, parameter counts

        Raises:
            GluonUsageError (a ValueError): a hybridized block (MXNet asserts).
        """
        from .nn.basic_layers import Sequential, HybridSequential
        rows = [("Input", _shape_str(inputs), 0, 0, 0)]
        seen, handles = set(), []

        def hook(block, _, outputs):
            n = trainable = shared = 0
            for p in block.params.values():
                size = p.data().size
                n += size
                trainable += 0 if p.grad_req == "null" else size
                if id(p) in seen:
                    shared += size
                else:
                    seen.add(id(p))
            rows.append((f"{block.__class__.__name__}-{len(rows)}", _shape_str(outputs), n,
                         trainable, shared))

        def attach(block):
            if isinstance(block, HybridBlock) and block._active:
                raise GluonUsageError(f'"{block.name}" must not be hybridized to print summary')
            if not isinstance(block, (Sequential, HybridSequential)):
                handles.append(block.register_forward_hook(hook))
        try:
            self.apply(attach)
            self(*inputs)
        finally:
            for h in handles:
                h.detach()
        fmt = "{:>20}  {:>42} {:>15}"
        print("-" * 80)
        print(fmt.format("Layer (type)", "Output Shape", "Param #"))
        print("=" * 80)
        for name, shape, n, _, _ in rows:
            print(fmt.format(name, shape, n))
        total = sum(r[2] for r in rows)
        trainable = sum(r[3] for r in rows)
        shared = sum(r[4] for r in rows)
        print("=" * 80)
        print("Parameters in forward computation graph, duplicate included")
        print(f"   Total params: {total}")
        print(f"   Trainable params: {trainable}")
        print(f"   Non-trainable params: {total - trainable}")
        print(f"Shared params in forward computation graph: {shared}")
        print(f"Unique parameters in model: {total - shared}")
        print("-" * 80)


def _shape_str(args):
    """Shapes of the arrays in nested `args` as MXNet's summary prints them."""
    def shapes(a):
        if isinstance(a, (list, tuple)):
            return [shapes(e) for e in a]
        return a.shape if _is_array(a) else a
    out = shapes(args)
    return str(out)[1:-1] if isinstance(out, list) else str(out)


class HybridBlock(FormatAttributes, Block):
    """A Block whose computation, `hybrid_forward(F, x, *args, **params)`, works with both
    ``F = nd`` (imperative) and ``F = sym`` (traced into a graph after `hybridize()`).

    Parameters registered as attributes are passed to `hybrid_forward` as keyword arguments
    named like the attributes (``weight``, ``bias``).

    Args:
        prefix: the name prefix (default None: class name lowercased + counter + '_').
        params: a ParameterDict to share parameters with (default None: a new one).

    Inputs:
        - **x**: the first input (an NDArray, or a Symbol when traced); further positional
          arguments are passed on to `hybrid_forward` after it.

    Outputs:
        - **out**: what `hybrid_forward` returns (an array or a nested list of arrays).

    Example::

        class Scale(gluon.HybridBlock):
            def __init__(self, **kw):
                super().__init__(**kw)
                with self.name_scope():
                    self.s = self.params.get('s', shape=(1,), init='ones')
            def hybrid_forward(self, F, x, s):
                return F.broadcast_mul(x, s)
    """

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._active = False
        self._flags = {}
        self._op_hook = None
        self._clear_cached_op()

    def _clear_cached_op(self):
        object.__setattr__(self, "_graphs", {})      # structure key -> (inputs, out, fmt)
        object.__setattr__(self, "_cached_ops", {})  # structure key -> (CachedOp, slots)
        object.__setattr__(self, "_cached_graph", ())

    def __setattr__(self, name, value):
        super().__setattr__(name, value)
        if isinstance(value, HybridBlock):
            self._clear_cached_op()

    def register_child(self, block, name=None):
        """Register a child; it must be a HybridBlock. Drops the compiled graphs.

        Args:
            block: the child HybridBlock.
            name: the key it is kept under (default None: its index, as a string).

        Raises:
            ValueError: the child is not a HybridBlock.

        Example::

            net = nn.HybridSequential()
            net.register_child(nn.Dense(3))   # a plain gluon.Block raises ValueError
        """
        if not isinstance(block, HybridBlock):
            raise ValueError(f"Children of HybridBlock must also be HybridBlock, but {block!r} "
                             f"has type {type(block).__name__}. If you are using Sequential, "
                             "please try HybridSequential instead.")
        super().register_child(block, name)
        self._clear_cached_op()

    def hybridize(self, active=True, backend=None, clear=True, static_alloc=False,
                  static_shape=False, inline_limit=2, forward_bulk_size=None,
                  backward_bulk_size=None, **kwargs):
        """Run this block (and every child) as a cached compiled graph from the next call.

        Args:
            active: False turns hybridization off again.
            backend: a subgraph backend (`gluonlite.subgraph`) to partition the graph with
                for every call, training included (``'FUSE'``: the inference backend;
                ``backend_opts`` in `kwargs` go to the partitioner, e.g. ``{'op_names':
                [...]}`` for ``'default'``). None: the graph as traced, its inference
                plans fused by default (`gluonlite.subgraph.fuse`). Exports write the
                traced graph either way.
            clear: drop the graphs compiled so far (always done here: a graph is cheap to
                trace again).
            static_alloc: keep every intermediate buffer between calls.
            static_shape: promise that the inputs keep their shapes and dtypes: the last
                call's plan is tried first, before the lookup among the compiled plans
                (inputs and outputs are not bound to fixed buffers, unlike MXNet's).
            inline_limit: a graph of at most this many operators (without `static_alloc`)
                shows in `autograd.get_symbol` as its operators, a larger one as one
                ``_CachedOp`` node holding the graph, as in MXNet (it changes nothing else).
            forward_bulk_size: accepted for MXNet compatibility and ignored: a child's graph
                is always part of its parent's here, and the compiled plan runs as one step.
            backward_bulk_size: accepted for MXNet compatibility and ignored, as
                `forward_bulk_size`.

        Raises:
            ValueError: an unknown `backend` (the registered ones are listed).

        Example::

            net = nn.Dense(3); net.initialize()
            net.hybridize(static_alloc=True)
            net(nd.ones((2, 4))).shape   # (2, 3)
        """
        backend_opts = kwargs.pop("backend_opts", None) or {}
        if backend is not None:
            if backend not in list_subgraph_properties():
                raise ValueError(f"{self.name}.hybridize: unknown backend {backend!r}; "
                                 f"registered backends: {', '.join(list_subgraph_properties())}")
        self._active = bool(active)
        self._flags = {"static_alloc": bool(static_alloc), "static_shape": bool(static_shape),
                       "inline_limit": inline_limit, "backend": backend,
                       "backend_opts": dict(backend_opts)}
        self._clear_cached_op()
        if active and (self._forward_hooks or self._forward_pre_hooks):
            warnings.warn(f'"{self.name}" is being hybridized while still having forward '
                          "hook/pre-hook. If it is a child of a HybridBlock, the hooks will not "
                          "take effect", stacklevel=2)
        super().hybridize(active, static_alloc=static_alloc, static_shape=static_shape,
                          inline_limit=inline_limit, forward_bulk_size=forward_bulk_size,
                          backward_bulk_size=backward_bulk_size, **kwargs)

    def register_op_hook(self, callback, monitor_all=False):
        """Call ``callback(node_name, op_name, array)`` for every operator output of this
        block's graph as it runs hybridized (with `monitor_all`, for every operator input
        too, named ``<node>_<input name>``); outputs are named ``<node>_output``.

        Args:
            callback: a function of (str, str, NDArray).
            monitor_all: also report the inputs of every operator.

        Example::

            seen = []
            net = nn.Dense(3, prefix='fc_'); net.initialize(); net.hybridize()
            net.register_op_hook(lambda node, op, arr: seen.append(node))
            y = net(nd.ones((2, 4)))
            seen   # ['fc_fwd_output']
        """
        object.__setattr__(self, "_op_hook", (callback, bool(monitor_all)))
        for child in self._children.values():
            child.register_op_hook(callback, monitor_all)

    def cast(self, dtype):
        """Cast every parameter to `dtype` and drop the cached graphs.

        Example::

            net = nn.Dense(3, in_units=4); net.initialize()
            net.cast('float64')
            net(nd.ones((2, 4), dtype='float64')).dtype   # <class 'numpy.float64'>
        """
        self._clear_cached_op()
        super().cast(dtype)

    def hybrid_forward(self, F, x, *args, **kwargs):
        """The computation, written once for F = nd and F = sym; override it.

        Example::

            class AddOne(gluon.HybridBlock):
                def hybrid_forward(self, F, x):
                    return F.relu(x) + 1
            AddOne()(nd.array([-1, 2])).asnumpy()   # [1. 3.]
        """
        raise NotImplementedError(f"{self.__class__.__name__} must define hybrid_forward()")

    def _trace_key(self):
        """Extra state that changes what `hybrid_forward` traces (subclasses may add some)."""
        return ()

    # ---- tracing --------------------------------------------------------------------------
    def _get_graph(self, *args):
        """(input symbols, output group, output format) for inputs of this structure."""
        flat, fmt = flatten(list(args), _is_leaf)
        key = (_format_key(fmt), self._trace_key())
        hit = self._graphs.get(key)
        if hit is None:
            sym = symbol
            if not flat:
                raise ValueError(f"{self.name}: hybridized blocks need at least one array input")
            names = ["data"] if len(flat) == 1 else [f"data{i}" for i in range(len(flat))]
            # an mx.np array input is traced as a numpy symbol (F.np's functions take it)
            inputs = [sym.var(n).as_np_ndarray() if getattr(a, "_np_array", False)
                      else sym.var(n) for n, a in zip(names, flat)]
            grouped = unflatten(inputs, fmt)
            params = {k: v.var() for k, v in self._reg_params.items()}
            with self.name_scope():
                out = call_hybrid_forward(self, sym, grouped, params)
            if _is_sym(out) and len(out.list_outputs()) > 1:
                # one Symbol of several outputs (LayerNorm's with output_mean_var, a split)
                # comes back as the list of them, as the imperative call and MXNet give it;
                # by index, since a numpy-dialect symbol has no len() and iterates otherwise
                out = [out[i] for i in range(len(out.list_outputs()))]
            outs, out_fmt = self._flatten_output(out, _is_sym, "Symbol")
            group = sym.Group(outs)
            kinds = {_is_np_sym(o) for o in outs}
            if len(kinds) > 1:
                raise TypeError(f"{self.name}: hybrid_forward returns both numpy symbols and "
                                "legacy symbols; they must all be of one kind (convert with "
                                "as_np_ndarray() or as_nd_ndarray())")
            if True in kinds:
                group = group.as_np_ndarray()  # outputs come back as mx.np arrays
            hit = (inputs, group, out_fmt)
            self._graphs[key] = hit
        object.__setattr__(self, "_cached_graph", hit[:2])
        return hit

    def _flatten_output(self, out, is_leaf, kind):
        try:
            leaves, fmt = flatten(out, is_leaf)
        except TypeError:
            leaves = None
        if not leaves:
            raise TypeError(f"{self.__class__.__name__}.hybrid_forward must return an array or "
                            f"a (nested) list of arrays ({kind}s here), got "
                            f"{_describe(out)}")
        return leaves, fmt

    def infer_shape(self, *args):
        """Infer the shapes of parameters with unknown dimensions from input NDArrays.

        Example::

            net = nn.Dense(3); net.initialize()
            net.infer_shape(nd.ones((2, 4)))
            net.weight.shape   # (3, 4)
        """
        self._infer_attrs(*args)

    def _infer_attrs(self, *args):
        inputs, out, _ = self._get_graph(*args)
        flat, _ = flatten(list(args), _is_leaf)
        known = {s.name: tuple(a.shape) for s, a in zip(inputs, flat)}
        dtypes = {s.name: a._data.dtype for s, a in zip(inputs, flat)}
        shapes, _ = infer_graph(out, known, dtypes)
        var_nodes = {n.name: n for n in topo_nodes(out.outputs) if n.op is None}
        unknown = []
        for name, p in self.collect_params().items():
            node = var_nodes.get(name)
            if node is None:
                continue
            s = shapes.get((id(node), 0))
            if s is None:
                if p._shape is None or 0 in p._shape:
                    unknown.append(name)
                continue
            p.shape = s
        if unknown:
            in_shapes = ", ".join(f"{k}={v}" for k, v in known.items())
            raise ValueError(f"{self.name}: cannot infer the shape of parameter(s) "
                             f"{', '.join(unknown)} from inputs {in_shapes}; give the layer "
                             "its input size (in_units, input_size, in_channels)")

    def _deferred_infer_shape(self, *args, first=()):
        self._infer_attrs(*args)
        # `first` (a hybridized call's parameters, in its graph's input order) before the
        # rest: MXNet initializes a cached graph's parameters in that order, so that after a
        # seed they draw MXNet's numbers
        done = {id(p) for p in first}
        for p in [*first, *(p for p in self.collect_params().values() if id(p) not in done)]:
            p._finish_deferred_init()

    # ---- running --------------------------------------------------------------------------
    def forward(self, x, *args):
        """Run `hybrid_forward` imperatively, through the cached graph (when hybridized),
        or symbolically (when called with Symbols). Imperatively, arguments may also be None
        or plain Python values; hybridized, only (nested lists of) arrays and None.

        Raises:
            ValueError: Symbols mixed with NDArrays; neither among the inputs; hybridized, a
                non-array input, inputs on several contexts, or None where the cached graph
                had an array (or the reverse).

        Example::

            net = nn.Dense(3); net.initialize()
            net.forward(nd.ones((2, 4))).shape   # (2, 3)
            y = net(sym.var('data'))   # a Symbol when called with Symbols
        """
        arrays, n_sym, others = _gather([x, *args])
        if arrays and n_sym:
            raise ValueError(f"{self.name}: inputs mix NDArrays and Symbols; a HybridBlock "
                             "takes one kind at a time")
        if not arrays and not n_sym:
            raise ValueError(f"{self.name}: there must be at least one NDArray or Symbol among "
                             "the inputs (all are None or plain values)")
        if n_sym:
            sym = symbol
            params = {k: v.var() for k, v in self._reg_params.items()}
            with self.name_scope():
                return call_hybrid_forward(self, sym, (x,) + args, params)
        ctx = arrays[0].context
        if self._active:
            if others:
                raise ValueError(f"{self.name}: when hybridized, the inputs must be NDArrays or "
                                 f"(nested) lists of them (None allowed), got {others[0]!r} of "
                                 f"type {type(others[0]).__name__}")
            ctxs = {a.context for a in arrays}
            if len(ctxs) > 1:
                raise ValueError(f"{self.name}: when hybridized, all inputs must be on one "
                                 f"context, got {sorted(map(str, ctxs))}")
            return self._call_cached_op(x, *args)
        try:
            params = {k: v.data(ctx) for k, v in self._reg_params.items()}
        except DeferredInitializationError:
            self._deferred_infer_shape(x, *args)
            params = {k: v.data(ctx) for k, v in self._reg_params.items()}
        # what hybrid_forward returns, unchecked, as MXNet's imperative call gives it (GluonTS's
        # self-attention returns its output with a dict of cached keys and values); only a
        # hybridized call, whose graph must hold every output, needs arrays
        return call_imperative(self, nd_mod, (x,) + args, arrays, params)

    def _build_cache(self, *args):
        inputs, out, out_fmt = self._get_graph(*args)
        data_idx = {s.name: i for i, s in enumerate(inputs)}
        params = {p.name: p for p in self.collect_params().values()}
        slots = []
        for name in out.list_inputs():
            if name in data_idx:
                slots.append((True, data_idx[name]))
            elif name in params:
                slots.append((False, params[name]))
            else:
                raise ValueError(f"{self.name}: the traced graph uses an unknown input {name!r} "
                                 "(neither an input of the block nor one of its parameters)")
        used = set(out.list_inputs())
        for s in inputs:
            if s.name not in used:
                warnings.warn(f"The {s.name} input to HybridBlock {self.name} is not used by "
                              "any computation. Is this intended?", stacklevel=4)
        run = out
        if self._flags.get("backend"):
            run = partition_graph(out, self._flags["backend"], **self._flags["backend_opts"])
        op = CachedOp(run, static_alloc=self._flags.get("static_alloc", False),
                      static_shape=self._flags.get("static_shape", False),
                      inline_limit=self._flags.get("inline_limit", 2))
        return op, slots, out_fmt, (inputs, out), flatten(list(args), _is_leaf)[1]

    @property
    def cached_ops(self):
        """The `gluonlite.executor.CachedOp` made for each argument structure this block was
        called with hybridized (its compiled plans and, on a GPU, their CUDA graphs:
        ``op.graphs``), for inspection; empty before the first hybridized call.

        Example::

            net = nn.Dense(3); net.initialize(); net.hybridize()
            y = net(nd.ones((2, 4)))
            len(net.cached_ops)   # 1
        """
        return tuple(entry[0] for entry in self._cached_ops.values())

    def _call_cached_op(self, *args):
        flat, fmt = flatten(list(args), _is_leaf)
        key = (_format_key(fmt), self._trace_key())
        entry = self._cached_ops.get(key)
        if entry is None:
            for other in self._cached_ops.values():
                if _none_conflict(other[4], fmt):
                    raise ValueError(
                        f"{self.name}: the argument structure {structure_str(fmt)} does not "
                        f"match the cached one {structure_str(other[4])}: an input that was "
                        "None when the block was first called hybridized must stay None (and "
                        "an array must stay an array); call hybridize() again to reset")
            entry = self._cached_ops[key] = self._build_cache(*args)
        op, slots, out_fmt, graph, _ = entry
        object.__setattr__(self, "_cached_graph", graph)
        # the structures of this call, read as MXNet's _in_format/_out_format
        object.__setattr__(self, "_in_spec", fmt)
        object.__setattr__(self, "_out_spec", out_fmt)
        ctx = flat[0].context
        try:
            cargs = [flat[i] if is_data else i.data(ctx) for is_data, i in slots]
        except DeferredInitializationError:
            self._deferred_infer_shape(*args, first=[i for is_data, i in slots if not is_data])
            cargs = [flat[i] if is_data else i.data(ctx) for is_data, i in slots]
        outs = op(*cargs)
        if not isinstance(outs, (list, tuple)):
            outs = [outs]
        if _is_np_sym(graph[1]):  # a graph of the NumPy dialect gives mx.np arrays
            outs = [o.as_np_ndarray() for o in outs]
        if self._op_hook is not None:
            report_ops(graph[1], op.input_names, cargs, *self._op_hook)
        return unflatten(outs, out_fmt)

    def export(self, path, epoch=0, remove_amp_cast=True):
        """Write ``path-symbol.json`` (the graph of the last hybridized call) and
        ``path-%04d.params`` (``arg:``/``aux:`` prefixed parameters), as MXNet does.

        Args:
            path: the path prefix of both files.
            epoch: the number in the params file's name (default 0: ``path-0000.params``).
            remove_amp_cast: accepted for MXNet compatibility; the graph is written as traced.

        Returns:
            (symbol file name, params file name).

        Raises:
            ValueError: the block was not hybridized and called yet.

        Example::

            net = nn.Dense(3); net.initialize(); net.hybridize()
            y = net(nd.ones((2, 4)))
            net.export('model')   # ('model-symbol.json', 'model-0000.params')
        """
        if not self._cached_graph:
            raise ValueError(f"{self.name}: call hybridize() and run forward at least once "
                             "before export()")
        out = self._cached_graph[1]
        sym_file = f"{path}-symbol.json"
        params_file = f"{path}-{epoch:04d}.params"
        arg_names = set(out.list_arguments())
        aux_names = set(out.list_auxiliary_states())
        arg = {}
        for name, p in self.collect_params().items():
            if name in arg_names:
                arg[f"arg:{name}"] = p._reduce()
            elif name in aux_names:
                arg[f"aux:{name}"] = p._reduce()
        out.save(sym_file)
        save(params_file, arg)
        return sym_file, params_file


def _gather(args):
    """(NDArrays, number of Symbols, other non-None values) inside nested lists/tuples."""
    arrays, others, n_sym = [], [], 0
    stack = [args]
    while stack:
        a = stack.pop()
        if isinstance(a, (list, tuple)):
            stack.extend(reversed(a))
        elif _is_array(a):
            arrays.append(a)
        elif _is_sym(a):
            n_sym += 1
        elif a is not None:
            others.append(a)
    return arrays, n_sym, others


def _format_key(fmt):
    """The cache key of an argument structure: trailing None arguments dropped, so that
    ``f(x)`` and ``f(x, None)`` (a default left out or given) share one graph."""
    if isinstance(fmt, tuple) and fmt and fmt[0] is list:
        children = list(fmt[1])
        while children and children[-1] is None:
            children.pop()
        return (list, tuple(children))
    return fmt


def _none_conflict(a, b, top=True):
    """Whether argument structures `a` and `b` have None in one where the other has an array
    (MXNet refuses such a call once the graph is cached). Missing trailing arguments count as
    None. A None against a list of arrays is not a conflict (an RNN layer called with and
    without states keeps one graph per form)."""
    if a is None or b is None:
        return (a is None and b == 0) or (b is None and a == 0)
    if a == 0 or b == 0:
        return False
    ca, cb = list(a[1]), list(b[1])
    if top:
        n = max(len(ca), len(cb))
        ca, cb = ca + [None] * (n - len(ca)), cb + [None] * (n - len(cb))
    elif len(ca) != len(cb):
        return False
    return any(_none_conflict(x, y, False) for x, y in zip(ca, cb))


def _describe(x):
    if isinstance(x, (list, tuple)):
        return f"a {type(x).__name__} containing " + ", ".join(
            sorted({type(e).__name__ for e in x})) if x else f"an empty {type(x).__name__}"
    return f"a {type(x).__name__}"
