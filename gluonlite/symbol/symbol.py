"""`Symbol`: a graph of operator nodes, built from the same registry as `nd`.

A `Node` is one operator application (or a variable when `op` is None); a `Symbol` is a list
of output entries ``(node, index)``. Loop and branch nodes keep their bodies as Symbols in
``node.subgraphs``.
"""
import threading
from contextlib import contextmanager

import numpy as np

from ..base import (NotImplementedForSymbol, normalize_dtype, DTYPE_CODES, MXNetTypeError,
                    MXNetValueError)
from ..c_api import SymbolHandle, take as take_handle
from ..ops import registry
from ..ops.fluent import reshape_shape, transpose_axes
from ..ops.missing_names import class_module_attribute
from ..ops.registry import Params
from .naming import new_name, scope_attrs, user_source
from ..ndarray.ndarray import _STORAGE_TYPE_STR_TO_ID, check_stype
from .storage import infer_storage_types

__all__ = ["Node", "Symbol", "var", "Variable", "Group", "record_new_nodes",
           "install_symbol_methods"]

# What Symbol's inference, binding and partitioning methods run, installed by the layers that
# import this one (`gluonlite.executor`: infer_shapes, infer_types, bind, simple_bind;
# `gluonlite.subgraph`: partition), so that this module never imports them.
_INSTALLED = {}


def install_symbol_methods(**functions):
    """Give `Symbol` the functions its compiled-path methods run (the executor and the
    partitioner register theirs when they load, as `register_graph_pass` does).

    Args:
        **functions: ``infer_shapes(symbol, known, partial)``, ``infer_types(symbol, known,
            partial)``, ``bind(symbol, ctx, args, args_grad, grad_req, aux_states)``,
            ``simple_bind(symbol, ctx, grad_req, type_dict, shapes, **shared)`` and
            ``partition(symbol, backend, **kwargs)``, any of them.

    Raises:
        ValueError: a name that no Symbol method runs.

    Example::

        from gluonlite.subgraph import partition_graph
        from gluonlite.symbol.symbol import install_symbol_methods
        install_symbol_methods(partition=partition_graph)   # what gluonlite.subgraph does
    """
    unknown = set(functions) - {"infer_shapes", "infer_types", "bind", "simple_bind",
                                "partition"}
    if unknown:
        raise ValueError(f"install_symbol_methods: unknown names {sorted(unknown)}; expected "
                         "infer_shapes, infer_types, bind, simple_bind or partition")
    _INSTALLED.update(functions)


def _installed(name, method):
    fn = _INSTALLED.get(name)
    if fn is None:
        raise RuntimeError(f"Symbol.{method}: the layer that runs it is not loaded "
                           "(import gluonlite, which loads gluonlite.executor and "
                           "gluonlite.subgraph)")
    return fn

# Per thread, the lists of the open `record_new_nodes` blocks (innermost last).
_RECORDERS = threading.local()


@contextmanager
def record_new_nodes():
    """Collect every `Node` created in this thread inside the block (yields a list, filled as
    nodes are created). Blocks nest: a node created inside an inner block is recorded by
    every enclosing block too. Tracing a loop body uses it to learn what the body built.

    Example::

        from gluonlite.symbol.symbol import record_new_nodes
        with record_new_nodes() as created:
            y = sym.relu(sym.var("x"))
        [n.name for n in created]   # ['x', 'relu0']
    """
    stack = _RECORDERS.__dict__.setdefault("stack", [])
    created = []
    stack.append(created)
    try:
        yield created
    finally:
        # by identity: two recorders holding the same nodes compare equal as lists
        for k in range(len(stack) - 1, -1, -1):
            if stack[k] is created:
                del stack[k]
                break


# Attributes MXNet stores as hidden ``__key__`` ones when given plainly (its kHiddenKeys).
HIDDEN_KEYS = ("ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage")


def hide_keys(attrs, owner):
    """`attrs` with each plain hidden key (``lr_mult``) renamed ``__lr_mult__``, as MXNet
    stores them.

    Args:
        attrs: {attribute name: string value} as the user gave them.
        owner: what the attributes belong to, named in an error (``"var 'x'"``).

    Returns:
        dict: a new dict, the hidden keys renamed, the others as given.

    Raises:
        ValueError: a key ``<input>_<hidden key>`` (``weight_lr_mult``), which MXNet refuses
            as deprecated: the message says to set it on the input's variable.

    Example::

        from gluonlite.symbol.symbol import hide_keys
        hide_keys({'lr_mult': '2', 'act_type': 'relu'}, 'fc')
        # {'__lr_mult__': '2', 'act_type': 'relu'}
    """
    out = {}
    for k, v in attrs.items():
        for h in HIDDEN_KEYS:
            if k == h:
                k = f"__{h}__"
                break
            if k.endswith("_" + h) and not k.startswith("__"):
                raise ValueError(f"{owner}: setting variable attributes with {k!r} is "
                                 f"deprecated; use w = sym.var(..., {h}={v!r}) and pass w as "
                                 f"the {k[:-len(h) - 1]!r} input")
        out[k] = v
    return out


def _listed(attrs):
    """Attributes as MXNet lists them: each hidden ``__key__`` also under ``key``."""
    out = {}
    for k, v in attrs.items():
        out[k] = v
        if k.startswith("__") and k.endswith("__") and k[2:-2] in HIDDEN_KEYS:
            out[k[2:-2]] = v
    return out


class Node:
    """One graph node.

    Attributes:
        op: the `Operator`, or None for a variable.
        name: the node's name.
        attrs: attribute strings as MXNet's JSON stores them (hidden ``__x__`` ones included).
        params: the parsed attributes (`Params`); for loop nodes ``params['_subgraphs']``.
        inputs: list of entries ``(node, output_index)``.
        source: 'file:line' of the user code that created the node.

    Example::

        y = sym.relu(sym.var('x'), name='r')
        node = y.outputs[0][0]
        node.name, node.op.name, node.inputs[0][0].name   # ('r', 'relu', 'x')
    """

    __slots__ = ("op", "name", "attrs", "params", "inputs", "source", "__weakref__")

    def __init__(self, op, name, attrs=None, params=None, inputs=(), source=""):
        self.op, self.name = op, name
        self.attrs = dict(attrs or {})
        self.params = params if params is not None else Params()
        self.inputs = list(inputs)
        self.source = source
        recorders = getattr(_RECORDERS, "stack", None)
        if recorders:
            for created in recorders:
                created.append(self)

    @property
    def is_variable(self):
        """Whether the node is a variable (a graph input).

        Example::

            y = sym.relu(sym.var('x'))
            y.outputs[0][0].is_variable, y.outputs[0][0].inputs[0][0].is_variable   # (False, True)
        """
        return self.op is None

    @property
    def subgraphs(self):
        """Bodies held by a loop or branch node (a list of Symbols).

        Example::

            out, _ = sym.contrib.foreach(lambda x, s: (x * 2, s), sym.var('d'), [sym.var('s')])
            len(out.outputs[0][0].subgraphs)   # 1
        """
        return self.params.get("_subgraphs", [])

    def num_outputs(self):
        """Outputs of the node, hidden ones included (1 for a variable).

        Example::

            y = sym.BatchNorm(sym.var('x'), name='bn')
            y.outputs[0][0].num_outputs()   # 3
        """
        if self.op is None:
            return 1
        return self.op.num_outputs(self.params) - (1 if self.op.stateful else 0)

    def num_visible(self):
        """Outputs a user sees (hidden ones excluded).

        Example::

            y = sym.BatchNorm(sym.var('x'), name='bn')
            y.outputs[0][0].num_visible()   # 1
        """
        return 1 if self.op is None else self.op.num_visible(self.params)

    def output_name(self, index):
        """The name of visible output `index`: a variable's own name, else ``<node>_<output>``
        with the operator's name for that output (``output``, ``output0``, ``mean``, ...).
        `Symbol.list_outputs` gives these names, the executor's monitor reports values under
        them, and MXNet's graph passes (calibration) look entries up by them.

        Args:
            index: the output's index.

        Returns:
            str: the name.

        Example::

            y = sym.BatchNorm(sym.var('x'), output_mean_var=True, name='bn')
            y.outputs[0][0].output_name(1)   # 'bn_mean'
        """
        if self.op is None:
            return self.name
        name = self.op.output_names(self.params)[index]
        # a subgraph node names its outputs like the subgraph's own outputs
        return name if self.op.full_output_names or not self.name else f"{self.name}_{name}"

    def __repr__(self):
        return f"<Node {self.name} ({'var' if self.op is None else self.op.name})>"


def topo_nodes(entries, on_entry=None):
    """Nodes reachable from `entries` in MXNet's DFS post-order (inputs before users).

    Example::

        from gluonlite.symbol.symbol import topo_nodes
        y = sym.relu(sym.var('a') + sym.var('b'), name='r')
        [n.name for n in topo_nodes(y.outputs)]   # ['a', 'b', '_plus0', 'r']

    Args:
        on_entry: optional callback ``on_entry(node, index)``, called for each head entry and
            each input edge in the order the walk reaches them (the subgraph pass uses it to
            keep the inputs' order).
    """
    order, seen = [], set()
    for head, k in entries:
        if on_entry is not None:
            on_entry(head, k)
        stack = [(head, 0)]
        while stack:
            node, i = stack.pop()
            if i == 0:
                if id(node) in seen:
                    continue
                seen.add(id(node))
            if i < len(node.inputs):
                stack.append((node, i + 1))
                child, j = node.inputs[i]
                if on_entry is not None:
                    on_entry(child, j)
                if id(child) not in seen:
                    stack.append((child, 0))
            else:
                order.append(node)
    return order


class Symbol:
    """A symbolic graph: one or more output entries of graph nodes (`Node`).

    Build with `sym.var` and the operator functions in `sym`; run with `bind`/`simple_bind`/
    `eval`; save with `tojson`/`save`.

    Args:
        outputs: the output entries, an iterable of ``(Node, output index)`` pairs (a list is
            kept); users build Symbols with the functions above, not this constructor. MXNet
            code passes a ``SymbolHandle`` that one of libmxnet's C functions returned
            (`gluonlite.c_api`): the Symbol it stands for.

    Raises:
        ValueError: a handle that stands for no Symbol.

    Example::

        x = sym.var("x")
        y = sym.FullyConnected(x, num_hidden=4, name="fc")
        y.list_arguments()     # ['x', 'fc_weight', 'fc_bias']
    """

    __slots__ = ("_outputs", "__weakref__")

    def __init__(self, outputs):
        if isinstance(outputs, SymbolHandle):
            held = take_handle(outputs)
            if not isinstance(held, Symbol):
                raise ValueError(f"Symbol(handle): the handle stands for a "
                                 f"{type(held).__name__}, not a Symbol")
            outputs = held._outputs
        self._outputs = list(outputs)

    # ---- structure ----------------------------------------------------------------------
    @property
    def outputs(self):
        """The output entries ``(node, index)``.

        Example::

            y = sym.FullyConnected(sym.var('x'), num_hidden=3, name='fc')
            len(y.outputs)           # 1
            y.outputs[0][0].name     # 'fc'
        """
        return self._outputs

    @property
    def name(self):
        """The name of the node of a single-output symbol (None for a group).

        Example::

            x = sym.var('x')
            sym.relu(x, name='act').name      # 'act'
            sym.Group([x, sym.relu(x)]).name   # None
        """
        return self._outputs[0][0].name if len(self._outputs) == 1 else None

    def _nodes(self):
        return topo_nodes(self._outputs)

    def _aux_ids(self):
        aux = set()
        for n in self._nodes():
            if n.op is not None and n.op.has_aux:
                for (src, _), is_aux in zip(n.inputs, n.op.aux_mask(n.params)):
                    if is_aux and src.op is None:
                        aux.add(id(src))
        return aux

    def list_inputs(self):
        """Names of every variable (arguments and auxiliary states), in graph order.

        Example::

            y = sym.BatchNorm(sym.var('x'), name='bn')
            y.list_inputs()   # ['x', 'bn_gamma', 'bn_beta', 'bn_moving_mean', 'bn_moving_var']
        """
        return [n.name for n in self._nodes() if n.op is None]

    def list_arguments(self):
        """Names of the variables that are not auxiliary states, in graph order.

        Example::

            y = sym.FullyConnected(sym.var('x'), num_hidden=3, name='fc')
            y.list_arguments()   # ['x', 'fc_weight', 'fc_bias']
        """
        aux = self._aux_ids()
        return [n.name for n in self._nodes() if n.op is None and id(n) not in aux]

    def list_auxiliary_states(self):
        """Names of auxiliary-state variables (e.g. BatchNorm's moving_mean), in graph order.

        Example::

            y = sym.BatchNorm(sym.var('x'), name='bn')
            y.list_auxiliary_states()   # ['bn_moving_mean', 'bn_moving_var']
        """
        aux = self._aux_ids()
        return [n.name for n in self._nodes() if n.op is None and id(n) in aux]

    def list_outputs(self):
        """Output names: ``node_output`` (``node_output0``... for several), a variable's name.

        Example::

            x = sym.var('x')
            sym.relu(x, name='act').list_outputs()   # ['act_output']
            x.list_outputs()                         # ['x']
        """
        return [node.output_name(i) for node, i in self._outputs]

    def _gen_atomic_symbol(self):
        """The operator of this symbol's (head) node alone: a nameless node with the same
        operator and attributes, no inputs, and all of the operator's visible outputs (what
        MXNet's graph passes use to ask an operator about itself).

        Raises:
            ValueError: the head node is a variable (no operator).

        Example::

            x = sym.var('x')
            fc = sym.FullyConnected(x, num_hidden=3)
            fc._gen_atomic_symbol().list_attr()   # {'num_hidden': '3'}
        """
        node = self._outputs[0][0]
        if node.op is None:
            raise ValueError(f"_gen_atomic_symbol: {node.name!r} is a variable, not an "
                             "operator node")
        attrs = {k: v for k, v in node.attrs.items()
                 if not (k.startswith("__") and k.endswith("__"))}
        atom = Node(node.op, "", attrs, node.params, (), node.source)
        return Symbol([(atom, i) for i in range(atom.num_visible())])

    def get_internals(self):
        """A group of every output of every node (variables included), in graph order.

        Example::

            y = sym.FullyConnected(sym.var('x'), num_hidden=3, name='fc')
            y.get_internals().list_outputs()   # ['x', 'fc_weight', 'fc_bias', 'fc_output']
            y.get_internals()['fc_weight'].name   # 'fc_weight'
        """
        ents = []
        for n in self._nodes():
            ents.extend((n, i) for i in range(n.num_visible()))
        return Symbol(ents)

    def get_children(self):
        """The inputs of this single-output symbol's node, as a group (None for a variable).

        Example::

            y = sym.FullyConnected(sym.var('x'), num_hidden=3, name='fc')
            y.get_children().list_outputs()   # ['x', 'fc_weight', 'fc_bias']
            sym.var('x').get_children()       # None
        """
        node = self._outputs[0][0]
        return Symbol(node.inputs) if node.inputs else None

    def __len__(self):
        return len(self._outputs)

    def __iter__(self):
        return (Symbol([e]) for e in self._outputs)

    def __getitem__(self, index):
        """Output `index` (an int, or an output name from `list_outputs`)."""
        if isinstance(index, str):
            names = self.list_outputs()
            if index not in names:
                raise ValueError(f"Symbol: no output named {index!r}; outputs are {names}")
            index = names.index(index)
        if isinstance(index, slice):
            return Symbol(self._outputs[index])
        if not -len(self._outputs) <= index < len(self._outputs):
            raise IndexError(f"Symbol: output index {index} out of range for "
                             f"{len(self._outputs)} outputs")
        return Symbol([self._outputs[index]])

    def attr(self, key):
        """The string attribute `key` of this symbol's node, or None (``attr('lr_mult')``
        finds the hidden ``__lr_mult__``, as in MXNet).

        Example::

            w = sym.var('w', lr_mult=2.0, attr={'tag': 'a'})
            w.attr('tag')       # 'a'
            w.attr('lr_mult')   # '2.0'
            w.attr('other')     # None
        """
        attrs = self._outputs[0][0].attrs
        if key in attrs:
            return attrs[key]
        return attrs.get(f"__{key}__") if key in HIDDEN_KEYS else None

    def list_attr(self, recursive=False):
        """The attributes of this symbol's node (strings); each hidden ``__lr_mult__``-style
        one is listed under its plain name too, as MXNet does.

        Raises:
            DeprecationWarning: `recursive` (MXNet removed it; use `attr_dict`).

        Example::

            w = sym.var('w', lr_mult=2.0)
            w.list_attr()   # {'__lr_mult__': '2.0', 'lr_mult': '2.0'}
        """
        if recursive:
            raise DeprecationWarning("Symbol.list_attr: recursive is deprecated; use "
                                     "attr_dict() for the attributes of every node")
        return _listed(self._outputs[0][0].attrs)

    def attr_dict(self):
        """{node name: attributes (as `list_attr` lists them)} for every node with
        attributes.

        Example::

            x = sym.var('x', attr={'tag': 'a'})
            y = sym.relu(x, name='act')
            y.attr_dict()   # {'x': {'tag': 'a'}}
        """
        return {n.name: _listed(n.attrs) for n in self._nodes() if n.attrs}

    def _set_attr(self, **kwargs):
        """Set string attributes of this symbol's node (hidden keys such as ``lr_mult`` are
        stored as ``__lr_mult__``).

        Raises:
            ValueError: a value that is not a string, or the deprecated ``<input>_lr_mult``
                form (set it on the input's variable instead).
        """
        for k, v in kwargs.items():
            if not isinstance(v, str):
                raise ValueError(f"Symbol._set_attr: the value of {k!r} must be a string, "
                                 f"got {type(v).__name__}")
        self._outputs[0][0].attrs.update(hide_keys(kwargs, "Symbol._set_attr"))

    def __repr__(self):
        if len(self._outputs) == 1:
            return f"<Symbol {self.name}>"
        return f"<Symbol group [{', '.join(self.list_outputs())}]>"

    def __copy__(self):
        return Symbol(self._outputs)

    def __deepcopy__(self, memo):
        from .json_io import load_json
        return load_json(self.tojson())

    # ---- inference ----------------------------------------------------------------------
    def infer_shape(self, *args, **kwargs):
        """Infer shapes from the given input shapes (positional: in `list_arguments` order).

        Returns:
            (arg_shapes, out_shapes, aux_shapes), or (None, None, None) when some stay unknown.

        Raises:
            ValueError: shapes that do not fit, naming the node and the shapes.

        Example::

            y = sym.FullyConnected(sym.var('x'), num_hidden=3, name='fc')
            y.infer_shape(x=(2, 5))   # ([(2, 5), (3, 5), (3,)], [(2, 3)], [])
        """
        return _installed("infer_shapes", "infer_shape")(self, self._named(args, kwargs),
                                                          partial=False)

    def infer_shape_partial(self, *args, **kwargs):
        """Like `infer_shape`, with () for what stays unknown.

        Example::

            y = sym.FullyConnected(sym.var('x'), num_hidden=3, name='fc')
            y.infer_shape_partial()   # ([(), (), (3,)], [()], [])
        """
        return _installed("infer_shapes", "infer_shape_partial")(
            self, self._named(args, kwargs), partial=True)

    def infer_type(self, *args, **kwargs):
        """Infer dtypes from the given input dtypes (positional: in `list_arguments` order).

        Returns:
            (arg_types, out_types, aux_types) as numpy types, or (None, None, None) when some
            stay unknown (as MXNet does).

        Raises:
            ValueError: dtypes that do not fit, naming the node.

        Example::

            y = sym.relu(sym.var('x'))
            y.infer_type(x='float16')   # ([<class 'numpy.float16'>], [<class 'numpy.float16'>], [])
        """
        return _installed("infer_types", "infer_type")(self, self._named(args, kwargs),
                                                       partial=False)

    def infer_storage_type(self, *args, **kwargs):
        """Infer storage types ('default', 'row_sparse', 'csr') from the given inputs'
        (positional: in `list_arguments` order; unnamed variables take their
        ``__storage_type__`` attribute, else 'default'), by MXNet 1.9.1's storage rules.

        Returns:
            (arg_stypes, out_stypes, aux_stypes), lists of strings.

        Raises:
            ValueError: an unknown storage type or input name, or storage types an operator
                refuses (naming the node).

        Example::

            x, w = sym.var('x'), sym.var('w')
            y = sym.dot(x, w, transpose_a=True)
            y.infer_storage_type(x='csr')   # (['csr', 'default'], ['row_sparse'], [])
        """
        return infer_storage_types(self, self._named(args, kwargs))

    def infer_type_partial(self, *args, **kwargs):
        """Like `infer_type`, with None for what stays unknown.

        Example::

            y = sym.relu(sym.var('x'))
            y.infer_type_partial()   # ([None], [None], [])
        """
        return _installed("infer_types", "infer_type_partial")(
            self, self._named(args, kwargs), partial=True)

    def _named(self, args, kwargs):
        known = dict(kwargs)
        if args:
            for n, s in zip(self.list_arguments(), args):
                if s is not None:
                    known[n] = s
        return known

    # ---- serialization ------------------------------------------------------------------
    def tojson(self):
        """The graph as MXNet JSON (nodes, arg_nodes, node_row_ptr, heads, attrs).

        Example::

            y = sym.relu(sym.var('x'), name='act')
            text = y.tojson()
            sym.load_json(text).list_outputs()   # ['act_output']
        """
        from .json_io import to_json
        return to_json(self)

    def save(self, fname):
        """Write `tojson()` to `fname` (atomically: no half-written file on failure).

        Example::

            y = sym.relu(sym.var('x'), name='act')
            y.save('act-symbol.json')
            sym.load('act-symbol.json').list_arguments()   # ['x']
        """
        from .json_io import save
        save(self, fname)

    def debug_str(self):
        """The graph as text, one node per line; loop bodies indented under their node.

        Example::

            y = sym.relu(sym.var('x'), name='act')
            print(y.debug_str())
        """
        from .printing import graph_str
        return graph_str(self)

    # ---- running ------------------------------------------------------------------------
    def bind(self, ctx=None, args=None, args_grad=None, grad_req="write", aux_states=None,
             group2ctx=None, shared_exec=None):
        """An `Executor` with the given argument arrays (list in `list_arguments` order, or
        dict by name). See `gluonlite.executor.Executor`.

        Args:
            ctx: the Context to run on (default None: the current context).
            args: the argument arrays: a list in `list_arguments` order or a dict by name;
                every argument needs one.
            args_grad: the gradient arrays, a list or dict like `args` (None entries, or
                names left out: no gradient; default None: none at all).
            grad_req: 'write', 'add' or 'null', or a list or dict of them per argument
                (default 'write'; an argument without a gradient array gets 'null').
            aux_states: the auxiliary state arrays, a list in `list_auxiliary_states` order
                or a dict by name (default None: for a graph without auxiliary states).
            group2ctx: not used by bind (MXNet's signature; `simple_bind` uses it).
            shared_exec: not used by bind (MXNet's signature).

        Returns:
            Executor: the bound executor (its outputs are zeros until `forward`).

        Raises:
            ValueError: a missing argument or auxiliary state, or an unknown name.
            TypeError: an array that is not an NDArray.

        Example::

            y = sym.var('x') * 2
            exe = y.bind(mx.cpu(), {'x': nd.array([1, 2])})
            exe.forward()[0]   # [2. 4.]
        """
        return _installed("bind", "bind")(self, ctx, args, args_grad, grad_req, aux_states)

    def simple_bind(self, ctx=None, grad_req="write", type_dict=None, stype_dict=None,
                    group2ctx=None, shared_arg_names=None, shared_exec=None,
                    shared_buffer=None, **shapes):
        """An `Executor` whose arrays are allocated (zeros) from the given input shapes.

        Args:
            ctx: the context (default: the current one).
            grad_req: 'write', 'add', 'null', or a list or dict of them per argument.
            type_dict: {input name: dtype} (float32 for the others, unless inferred).
            stype_dict: {input name: storage type}, in place of what the variables
                declare (``sym.var(stype=...)``). An argument declared csr is held as a
                csr array, so a batch is copied in as its compressed parts and the graph
                runs on sparse storage; the others are dense, arguments declared
                row_sparse included (their gradients are row_sparse where MXNet's are).
            group2ctx: {ctx_group name: Context}: an input whose ``ctx_group`` attribute
                (set with ``AttrScope(ctx_group=...)``) is listed gets its arrays (and
                gradient) on that context, as MXNet places them; cpu contexts only
                (NotImplementedError for another device).
            shared_arg_names: the names of the arguments whose arrays (and gradients) are
                taken from `shared_exec` where name, shape and dtype agree.
            shared_exec: the Executor to share with; its auxiliary states are shared too (a
                bucketing Module's parameters).
            shared_buffer: a dict; the other arguments take its array of the same name when
                it fits, and it receives the arrays allocated for them.
            **shapes: {input name: shape}; only tuple (or list) values are shapes, others
                (an int, str or bool) are ignored, as in MXNet.

        Raises:
            ValueError: unknown input names, or shapes that leave some array unknown.
            ValueError: an unknown storage type in `stype_dict`, or a name in it that is
                not an input.

        Example::

            net = sym.FullyConnected(sym.var('data'), num_hidden=3, name='fc')
            exe = net.simple_bind(mx.cpu(), data=(32, 100))
            exe.arg_dict['fc_weight'].shape   # (3, 100)
        """
        for n, st in (stype_dict or {}).items():
            check_stype(st, f"simple_bind: stype_dict[{n!r}]", sparse_ok=True)
        # as MXNet, only tuple (or list) values are shapes; other keywords (force_rebind=True,
        # axis=1, ...) are not shapes and are ignored
        shapes = {k: v for k, v in shapes.items() if isinstance(v, (tuple, list))}
        return _installed("simple_bind", "simple_bind")(
            self, ctx, grad_req, type_dict, shapes, shared_exec=shared_exec,
            shared_buffer=shared_buffer, shared_arg_names=shared_arg_names,
            group2ctx=group2ctx, stype_dict=stype_dict)

    def eval(self, ctx=None, **kwargs):
        """Bind to the given arrays, run forward, and return the outputs (a list).

        Args:
            ctx: the Context to run on (default None: the current context).
            **kwargs: {argument name: NDArray}, one for every argument.

        Returns:
            list of NDArray: the outputs.

        Raises:
            ValueError: a missing argument (see `bind`).

        Example::

            x = sym.var('x')
            (x + 1).eval(x=nd.array([1, 2]))[0]   # [2. 3.]
        """
        return self.bind(ctx, kwargs).forward()

    # ---- arithmetic ---------------------------------------------------------------------
    # Node names follow MXNet's Python operators: ``x + y`` -> _plus0, ``x + 1`` -> _plusscalar0.
    def _binary(self, other, name, scalar_name, hint, scalar_hint, reverse=False):
        """`name`(self, other) for a Symbol, `scalar_name`(self, scalar=other) for a number."""
        if isinstance(other, Symbol):
            a, b = (other, self) if reverse else (self, other)
            return apply_op(name, a, b, hint=hint)
        if isinstance(other, (int, float, np.number, bool, np.bool_)):
            if isinstance(other, (bool, np.bool_)):
                other = int(other)  # a bool scalar counts as 0/1, as in MXNet
            return apply_op(scalar_name, self, scalar=other, hint=scalar_hint)
        return NotImplemented

    def __neg__(self):
        return apply_op("_mul_scalar", self, scalar=-1.0, hint="_mulscalar")

    def __abs__(self):
        return apply_op("abs", self)

    def __hash__(self):
        return id(self)

    def __bool__(self):
        raise SymbolTruthValueError(Symbol.__bool__, "bool")

    def __getstate__(self):
        # pickled as its MXNet JSON (a graph holds operator functions, which do not pickle)
        return {"handle": self.tojson()}

    def __setstate__(self, state):
        from .json_io import load_json
        self._outputs = load_json(state["handle"], "Symbol pickle")._outputs

    def reshape(self, *shape, **kwargs):
        """Same as sym.reshape(self, shape=...).

        Example::

            y = sym.var('x').reshape((2, 3))
            y.infer_shape(x=(3, 2))[1]   # [(2, 3)]
        """
        from . import _fn
        return _fn("Reshape")(self, shape=reshape_shape(shape, kwargs), **kwargs)

    def transpose(self, *axes, **kwargs):
        """Same as sym.transpose(self, axes=...).

        Example::

            y = sym.var('x').transpose()
            y.infer_shape(x=(2, 3, 4))[1]   # [(4, 3, 2)]
        """
        from . import _fn
        return _fn("transpose")(self, axes=transpose_axes(axes, kwargs), **kwargs)

    def __call__(self, *args, **kwargs):
        """A copy of the graph with variables replaced: ``net(data=other)`` puts Symbol
        `other` where the variable ``data`` was (MXNet's composition). ``name=`` renames the
        copy's output node.

        Raises:
            MXNetTypeError: positional arguments (composition takes keywords), or a value
                that is not a Symbol.
            MXNetValueError: a name that is not a variable of the graph.

        Example::

            fc = sym.FullyConnected(sym.var('data'), num_hidden=3, name='fc')
            net = fc(data=sym.relu(sym.var('x')))
            net.list_arguments()   # ['x', 'fc_weight', 'fc_bias']
        """
        name = kwargs.pop("name", None)
        return self._composed(args, kwargs, name)

    def _compose(self, *args, **kwargs):
        """`__call__` in place: this Symbol becomes the composed graph (the nodes it shares
        with other Symbols are left as they are)."""
        name = kwargs.pop("name", None)
        self._outputs = self._composed(args, kwargs, name)._outputs

    def _composed(self, args, kwargs, name):
        if args:
            raise MXNetTypeError("Symbol composition takes keyword arguments only "
                                 "(net(data=x)); got positional arguments")
        nodes = self._nodes()
        variables = [n.name for n in nodes if n.op is None]
        for k, v in kwargs.items():
            if not isinstance(v, Symbol):
                raise MXNetTypeError(f"Symbol composition: the value for {k!r} must be a "
                                     f"Symbol, got {type(v).__name__}")
            if k not in variables:
                raise MXNetValueError(f"Symbol composition: {k!r} is not a variable of the "
                                      f"graph; its variables are {variables}")
        new = {}
        for n in nodes:
            if n.op is None and n.name in kwargs:
                new[id(n)] = single_entry("Symbol composition", f"the value for {n.name!r}",
                                          kwargs[n.name])
                continue
            ins = [new[id(src)] if src.op is None and src.name in kwargs
                   else (new[id(src)][0], i) for src, i in n.inputs]
            new[id(n)] = (Node(n.op, n.name, n.attrs, n.params, ins, n.source), 0)
        outs = [new[id(n)] if n.op is None and n.name in kwargs else (new[id(n)][0], i)
                for n, i in self._outputs]
        if name is not None and len(outs) == 1 and outs[0][0].op is not None:
            outs[0][0].name = name
        return Symbol(outs)

    def astype(self, dtype):
        """A Cast node to `dtype` (``sym.Cast(self, dtype=...)``).

        Example::

            y = sym.var('x').astype('int32')
            y.eval(x=nd.array([1.7, -2.5]))[0]   # [ 1 -2]
        """
        from . import _fn
        return _fn("Cast")(self, dtype=normalize_dtype(dtype).name)

    @property
    def handle(self):
        """The object standing for MXNet's C handle: the Symbol itself (gluonlite has no
        C library).

        Example::

            x = sym.var('x')
            x.handle is x   # True
        """
        return self

    def optimize_for(self, backend, args=None, aux=None, ctx=None, shape_dict=None,
                     type_dict=None, stype_dict=None, skip_infer=False, **kwargs):
        """The graph partitioned for subgraph `backend` (see `gluonlite.subgraph`).

        Args:
            backend: a backend registered with `gluonlite.subgraph`.
            args: not used (MXNet's signature: partitioning here does not look at bound
                arrays, shapes or types).
            aux: not used (as `args`).
            ctx: not used (as `args`).
            shape_dict: not used (as `args`).
            type_dict: not used (as `args`).
            stype_dict: not used (as `args`).
            skip_infer: not used (as `args`).
            **kwargs: passed to the partitioner (``op_names`` for the 'default' backend), but
                ``dedup_subgraph``: MXNet's option to give a subgraph one input per distinct
                entry it reads; gluonlite's partitioner always does, so True and False give
                the same graph.

        Raises:
            ValueError: an unknown backend (the partitioner's error).
            TypeError: an option the partitioner does not take, or a `dedup_subgraph` that is
                not a bool.

        Example::

            y = sym.tanh(sym.exp(sym.var('x')))
            p = y.optimize_for('default', op_names=['exp', 'tanh'])
            print(p.debug_str())   # one _default_subgraph_op node holding exp and tanh
        """
        dedup = kwargs.pop("dedup_subgraph", True)
        if not isinstance(dedup, bool):
            raise TypeError(f"optimize_for: dedup_subgraph must be a bool, got {dedup!r}")
        return _installed("partition", "optimize_for")(self, backend, **kwargs)

    def get_backend_symbol(self, backend):
        """The graph partitioned for subgraph `backend` (`optimize_for` without options).

        Example::

            y = sym.tanh(sym.exp(sym.var('x')))
            p = y.get_backend_symbol('default')
            p.list_arguments()   # ['x']
        """
        return self.optimize_for(backend)


class SymbolTruthValueError(NotImplementedForSymbol, TypeError):
    """Raised by ``bool(symbol)``: MXNet raises `NotImplementedForSymbol` (an MXNetError);
    it is a TypeError too, as Python raises for a value without a truth value.

    Args:
        function: the function refused (its ``__name__`` is reported).
        alias: the operator name behind it, or None.
        *args: the arguments given (their types are reported).

    Example::

        from gluonlite.symbol.symbol import SymbolTruthValueError
        try:
            bool(sym.var('x'))
        except SymbolTruthValueError as e:
            print('no truth value')
    """

    def __str__(self):
        return (super().__str__() + " A Symbol has no truth value; use sym.contrib.cond for "
                "data-dependent branches.")


def _ndarray_only(name):
    def method(self, *args, **kwargs):
        raise NotImplementedForSymbol(method, None, *args)
    method.__name__ = name
    method.__doc__ = (f"NDArray's ``{name}`` has no Symbol form; raises "
                      "`NotImplementedForSymbol` (an MXNetError), as MXNet does.\n\n"
                      "Example::\n\n"
                      "    try:\n"
                      f"        sym.var('x').{name}()\n"
                      "    except mx.base.NotImplementedForSymbol as e:\n"
                      "        print(e)   # Function ... is not implemented for Symbol ...\n")
    return method


# Methods MXNet's Symbol has only to say that they belong to NDArray.
for _n in ("asnumpy", "asscalar", "as_in_context", "copy", "detach", "backward",
           "wait_to_read", "gradient"):
    setattr(Symbol, _n, _ndarray_only(_n))
del _n


# Python operator -> (operator with a Symbol, its name stem, operator with a scalar, its name
# stem, operands swapped), named as MXNet's Symbol names them.
_ARITHMETIC = {
    "__add__": ("elemwise_add", "_plus", "_plus_scalar", "_plusscalar", False),
    "__radd__": ("elemwise_add", "_plus", "_plus_scalar", "_plusscalar", True),
    "__sub__": ("elemwise_sub", "_minus", "_minus_scalar", "_minusscalar", False),
    "__rsub__": ("elemwise_sub", "_minus", "_rminus_scalar", "_rminusscalar", True),
    "__mul__": ("elemwise_mul", "_mul", "_mul_scalar", "_mulscalar", False),
    "__rmul__": ("elemwise_mul", "_mul", "_mul_scalar", "_mulscalar", True),
    "__truediv__": ("elemwise_div", "_div", "_div_scalar", "_divscalar", False),
    "__rtruediv__": ("elemwise_div", "_div", "_rdiv_scalar", "_rdivscalar", True),
    "__mod__": ("_mod", "_mod", "_mod_scalar", "_modscalar", False),
    "__rmod__": ("_mod", "_mod", "_rmod_scalar", "_rmodscalar", True),
    "__pow__": ("_power", "_power", "_power_scalar", "_powerscalar", False),
    "__rpow__": ("_power", "_power", "_rpower_scalar", "_rpower_scalar", True),
    "__lt__": ("_lesser", "_lesser", "_lesser_scalar", "_lesser_scalar", False),
    "__le__": ("_lesser_equal", "_lesser_equal", "_lesser_equal_scalar",
               "_lesser_equal_scalar", False),
    "__gt__": ("_greater", "_greater", "_greater_scalar", "_greater_scalar", False),
    "__ge__": ("_greater_equal", "_greater_equal", "_greater_equal_scalar",
               "_greater_equal_scalar", False),
    "__eq__": ("_equal", "_equal", "_equal_scalar", "_equal_scalar", False),
    "__ne__": ("_not_equal", "_not_equal", "_not_equal_scalar", "_not_equal_scalar", False),
}


def _arith_method(dunder, op, hint, scalar_op, scalar_hint, reverse):
    def m(self, other):
        return self._binary(other, op, scalar_op, hint, scalar_hint, reverse)
    m.__name__ = dunder
    m.__doc__ = (f"``{dunder}``: {op} with a Symbol (node {hint}N), {scalar_op} with a scalar "
                 f"(node {scalar_hint}N).")
    return m


for _d, _spec in _ARITHMETIC.items():
    setattr(Symbol, _d, _arith_method(_d, *_spec))
del _d, _spec


def var(name, attr=None, shape=None, lr_mult=None, wd_mult=None, dtype=None, init=None,
        stype=None, **kwargs):
    """A variable (graph input) named `name`.

    Args:
        name: the variable's name (not prefixed).
        attr: extra string attributes, merged over those of the active `AttrScope`.
        shape: its shape if known (0 entries are unknown dims).
        lr_mult: the learning-rate multiplier of the variable, stored as ``__lr_mult__``
            (default None: none stored, 1 for optimizers).
        wd_mult: the weight-decay multiplier, stored as ``__wd_mult__`` (default None).
        dtype: its dtype if known.
        init: an initializer (its string form is stored as ``__init__``).
        stype: the storage type ('default', 'row_sparse' or 'csr'), kept as MXNet keeps it,
            the attribute ``__storage_type__`` (its code: 0, 1, 2). Graphs compute on dense
            values whatever the storage type.
        **kwargs: more attributes, stored as ``__key__`` (a key already in that form as
            is).

    Returns:
        Symbol: the variable, with one output.

    Raises:
        TypeError: a name that is not a string.
        ValueError: an unknown `stype`.

    Example::

        x = sym.var('x', shape=(2, 3), lr_mult=2)
        x.attr('__shape__'), x.attr('__lr_mult__')   # ('(2, 3)', '2')
    """
    if not isinstance(name, str):
        raise TypeError(f"var: name must be a string, got {type(name).__name__}")
    attrs = hide_keys(scope_attrs(attr), f"var {name!r}")
    if stype is not None:
        attrs["__storage_type__"] = str(_STORAGE_TYPE_STR_TO_ID[
            check_stype(stype, f"var {name!r}", sparse_ok=True)])
    if shape is not None:
        # an int is a 1-d shape, kept as MXNet writes it ('5')
        attrs["__shape__"] = str(int(shape)) if hasattr(shape, "__index__") else \
            str(tuple(shape))
    if dtype is not None:
        attrs["__dtype__"] = str(DTYPE_CODES[normalize_dtype(dtype, f"var {name!r} dtype")])
    if lr_mult is not None:
        attrs["__lr_mult__"] = str(lr_mult)
    if wd_mult is not None:
        attrs["__wd_mult__"] = str(wd_mult)
    if init is not None:
        attrs["__init__"] = init if isinstance(init, str) else init.dumps()
    for k, v in kwargs.items():
        attrs[f"__{k}__" if not k.startswith("__") else k] = str(v)
    return Symbol([(Node(None, name, attrs, source=user_source()), 0)])


Variable = var


def Group(symbols):
    """One symbol whose outputs are those of `symbols`, in order.

    Example::

        x = sym.var('x')
        g = sym.Group([x * 2, x + 1])
        [a.asnumpy().tolist() for a in g.eval(x=nd.array([1, 2]))]   # [[2.0, 4.0], [2.0, 3.0]]

    Raises:
        TypeError: an element is not a Symbol.
    """
    ents = []
    for i, s in enumerate(symbols):
        if not isinstance(s, Symbol):
            raise TypeError(f"Group: symbols[{i}] is a {type(s).__name__}, not a Symbol")
        ents.extend(s._outputs)
    return Symbol(ents)


# Initial values MXNet records on the auxiliary-state variables it creates (so a Module or
# SymbolBlock initializes them right without being told).
_AUX_VAR_INIT = {"moving_mean": '["zero", {}]', "moving_var": '["one", {}]'}
# Inputs whose automatic variable MXNet gives its own initializer (FSetInputVarAttrOnCompose).
_INPUT_VAR_INIT = {("LeakyReLU", "gamma"): '["Constant", {"value": 0.25}]'}
# Keyword arguments MXNet stores as hidden node attributes (``lr_mult`` -> ``__lr_mult__``),
# which automatic variables inherit.
_HIDDEN_KEYS = ("ctx_group", "lr_mult", "wd_mult", "force_mirroring", "mirror_stage",
                "profiler_scope")


def _mxnet_string(value, parsed_string):
    """An attribute's string as MXNet's Python front end writes it: ``str(value)`` of the value
    the user gave (``1`` stays "1", ``[1, 0]`` stays "[1, 0]"), numpy scalars unwrapped."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (bool, int, float)):
        return str(value)
    if isinstance(value, (list, tuple)) and all(
            isinstance(e, (bool, int, float)) for e in value):
        return str(value)
    return parsed_string


def create_node(op, inputs, attrs, name=None, hint=None, attr=None):
    """Create a node applying `op` to input Symbols; returns the Symbol of its visible outputs.

    Missing inputs become variables named ``{node}_{input}`` (``fc1_weight``), as in MXNet;
    like MXNet they carry the node's attributes (and BatchNorm's moving statistics their
    ``__init__``).

    Args:
        op: the `Operator`.
        inputs: a dict input name -> Symbol (fixed operators) or a list (variadic ones).
        attrs: the operator's attributes (Python values or strings).
        name: the node's name (prefixed by the current `Prefix`); default ``hint`` + counter.
        hint: the stem of the automatic name (default the operator's name).
        attr: extra string attributes for the node (``{'__lr_mult__': '2'}``), merged over
            those of the active `AttrScope`.

    Example::

        from gluonlite.ops import registry
        from gluonlite.symbol.symbol import create_node
        fc = create_node(registry.get('FullyConnected'), {'data': sym.var('x')},
                         {'num_hidden': 2}, name='fc1')
        fc.list_arguments()   # ['x', 'fc1_weight', 'fc1_bias']

    Raises:
        TypeError: an input is not a single-output Symbol; bad attributes.
    """
    if any(k in _HIDDEN_KEYS for k in attrs):
        attrs = {(f"__{k}__" if k in _HIDDEN_KEYS else k): v for k, v in attrs.items()}
    params, strings = op.parse(attrs)
    for k, v in attrs.items():
        if k in strings and k in op.attrs and op.attrs[k].kind != "dtype":
            strings[k] = _mxnet_string(v, strings[k])
    strings.update(hide_keys({k: str(v) for k, v in scope_attrs(attr).items()}, op.name))
    node_name = new_name(name, hint or op.name)
    if isinstance(inputs, dict):
        names = op.input_names(params)
        unknown = set(inputs) - set(names)
        if unknown:
            raise TypeError(f"{op.name}: unknown input(s) {', '.join(sorted(unknown))}; inputs "
                            f"are {', '.join(names)}")
        var_attrs = {k: v for k, v in strings.items()
                     if k not in ("__shape__", "__dtype__", "__init__")}
        ents = []
        for n in names:
            s = inputs.get(n)
            if s is None:
                va = dict(var_attrs)
                if n in op.aux and n in _AUX_VAR_INIT:
                    va["__init__"] = _AUX_VAR_INIT[n]
                elif (op.name, n) in _INPUT_VAR_INIT:
                    va["__init__"] = _INPUT_VAR_INIT[(op.name, n)]
                s = Symbol([(Node(None, f"{node_name}_{n}", va, source=user_source()), 0)])
            ents.append(_single(op, n, s))
    else:
        ents = [_single(op, f"arg{i}", s) for i, s in enumerate(inputs)]
    node = Node(op, node_name, strings, params, ents, user_source())
    return Symbol([(node, i) for i in range(node.num_visible())])


def apply_op(op_name, *inputs, hint=None, **attrs):
    """Apply registered operator `op_name` to Symbols `inputs` (positional, in the operator's
    input order) with the automatic name stem `hint` (as ``x + y`` names its node ``_plus0``).

    Example::

        from gluonlite.symbol.symbol import apply_op
        z = apply_op('_plus_scalar', sym.var('x'), scalar=1, hint='_plusscalar')
        z.name                                 # '_plusscalar0'
        z.eval(x=nd.array([1, 2]))[0].asnumpy()   # [2. 3.]
    """
    op = registry.get(op_name)
    ins = list(inputs) if op.variadic else dict(zip(op.input_names(op.parse(attrs)[0]), inputs))
    if op.variadic:
        attrs.setdefault(op.variadic, len(ins))
    return create_node(op, ins, attrs, hint=hint)


def single_entry(owner, what, s):
    """The one output entry of Symbol `s`.

    Example::

        from gluonlite.symbol.symbol import single_entry
        node, index = single_entry('myop', 'data', sym.var('x'))
        node.name, index   # ('x', 0)

    Raises:
        TypeError: `s` is not a Symbol or is a group; the message starts with `owner` (an
            operator or function name) and names `what` was passed.
    """
    if not isinstance(s, Symbol):
        raise TypeError(f"{owner}: {what} must be a Symbol, got {type(s).__name__}")
    if len(s._outputs) != 1:
        raise TypeError(f"{owner}: {what} is a group of {len(s._outputs)} outputs; pass one "
                        "output (index the group)")
    return s._outputs[0]


def _single(op, what, s):
    return single_entry(op.name, f"input {what!r}", s)


def __getattr__(name):
    # MXNet's module of this class also holds its package's functions (maximum, zeros, ...)
    if name.startswith("__"):
        raise AttributeError(name)
    return class_module_attribute("symbol.symbol", name)
