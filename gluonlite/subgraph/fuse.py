"""The ``'FUSE'`` backend: an inference backend on the subgraph API that fuses the work
around a matrix product into the product's output pass.

It selects chains that start at a Convolution, Deconvolution or FullyConnected node and
go on through the nodes that read only the previous one's output:

- a BatchNorm right after the product, folded into the product's weight and bias (in
  inference, BatchNorm is ``y * s + t`` per channel with the moving statistics, so
  ``conv(x, w) * s + t = conv(x, w * s) + t``); a ``contrib.BatchNormWithReLU`` likewise,
  its relu then applied as the chain's first activation;
- elementwise additions of another value (a residual branch) and activations
  (Activation, relu, sigmoid, tanh, clip, LeakyReLU but prelu/rrelu), in any order,

and replaces each chain by one ``_sg_fuse`` node holding the chain as its subgraph. Its
plain kernel runs the chain's own operators one after the other (the unfused meaning);
its fast path computes the product once with the folded weights and bias and applies the
additions and activations in place to each block of the output while that block is still
in the cache (`gluonlite.ops.conv_fast.forward`'s epilogue), writing into the plan's static
buffer. Results equal the unfused graph's to float32 rounding (the folding rounds the
weights once); the tests hold them to 1e-5 relative.

How it is selected, as MXNet selects its backends:

- ``block.hybridize(backend='FUSE')`` or ``block.optimize_for(x, backend='FUSE')``;
- ``symbol.optimize_for('FUSE')`` and ``GLUONLITE_SUBGRAPH_BACKEND=FUSE``;
- by default, for inference: every hybridized block's inference plans (not recording,
  no gradient wanted) run the fused graph, unless ``DEFAULT_ON`` is False or the
  environment variable ``GLUONLITE_INFERENCE_FUSION`` is ``0``. Exports
  (``HybridBlock.export``) always write the unfused graph, as MXNet would.

``'MKLDNN'``, the name of MXNet 1.9.1's CPU backend, names this backend too, so that MXNet
code selecting it runs unchanged.

Example::

    net = nn.HybridSequential(); net.add(nn.Dense(4, activation='relu')); net.initialize()
    net.hybridize(static_alloc=True)       # inference plans fused by default
    y = net(nd.ones((2, 3)))
    fused = sym.relu(sym.FullyConnected(sym.var('x'), num_hidden=4)).optimize_for('FUSE')
"""
import os
import warnings

import numpy as np

from ..executor.hooks import register_inference_pass
from ..ops import conv_fast, registry
from ..ops.bn_relu import BATCHNORM_WITH_RELU
from ..ops.conv import conv_geom
from ..ops.fast import Fast
from ..ops.registry import Operator, Params, Rules, Signature
from ..symbol.symbol import Node, topo_nodes
from .default_op import _infer, _plan, subgraph_meta
from .grouping import IndexedGraph
from .partition import partition_graph
from .property import SubgraphProperty
from .registry import register_subgraph_property
from .selector import SubgraphSelector

__all__ = ["FUSED_OP", "FuseProperty", "FuseSelector", "fuse_for_inference", "DEFAULT_ON",
           "ENV_VAR"]

OP_NAME = "_sg_fuse"
ENV_VAR = "GLUONLITE_INFERENCE_FUSION"
# Fuse every hybridized block's inference plans (read when a plan is compiled).
DEFAULT_ON = True

_PRODUCTS = frozenset(("Convolution", "FullyConnected", "Deconvolution"))
_UNARY = frozenset(("Activation", "relu", "sigmoid", "tanh", "clip", "LeakyReLU"))
# BatchNorm, and BatchNormWithReLU (gluon.nn.BatchNormReLU's operator), folded alike; the
# latter's relu joins the chain as Activation's relu
_BATCHNORMS = frozenset(("BatchNorm", BATCHNORM_WITH_RELU))
_ACT = registry.get("Activation")
_ACT_RELU = _ACT.parse({"act_type": "relu"})[0]
_CHANNELS_FIRST = (None, "NCW", "NCHW", "NCDHW")


# ---- selection --------------------------------------------------------------------------
def _stage(node, prev):
    """What `node` is as the next link after chain node `prev`: 'bn', 'add', 'act', or
    None when it cannot join."""
    op, p = node.op, node.params
    if op is None:
        return None
    reads = [s for s, _ in node.inputs]
    if op.name in _BATCHNORMS:
        ok = (prev.op.name in _PRODUCTS and node.inputs[0] == (prev, 0)
              and prev not in reads[1:] and p.axis == 1 and not p.output_mean_var
              and (prev.op.name != "FullyConnected" or prev.params.flatten)
              and (prev.op.name != "Deconvolution" or prev.params.num_group == 1))
        return "bn" if ok else None
    if op.name == "elemwise_add":
        ok = len(reads) == 2 and (reads[0] is prev) != (reads[1] is prev)
        return "add" if ok else None
    if op.name in _UNARY and len(reads) == 1 and reads[0] is prev:
        if op.name == "LeakyReLU" and p.act_type in ("prelu", "rrelu"):
            return None
        return "act"
    return None


class FuseSelector(SubgraphSelector):
    """Grows one chain from a product (see the module docstring).

    Args:
        consumers: {id(node): how many entries read it, graph outputs included}: a chain
            goes on only through a node read once (its value is not needed elsewhere).

    Example::

        from gluonlite.subgraph.fuse import FuseProperty
        x, w, b = sym.var('x'), sym.var('w'), sym.var('b')
        y = sym.relu(sym.FullyConnected(x, w, b, num_hidden=4))
        from gluonlite.subgraph.grouping import IndexedGraph
        prop = FuseProperty(); prop.pre_partition(y); sel = prop.create_subgraph_selector()
        fc, relu = IndexedGraph(y).nodes[3:]
        sel.select(fc), sel.select_output(fc, relu)   # (True, True): one chain
    """

    def __init__(self, consumers):
        self.consumers = consumers
        self.tail = None

    def select(self, node):
        """Seed at a product with channels-first data (Convolution, Deconvolution) or any
        FullyConnected.

        Args:
            node: the graph node to consider as a seed; a selected node becomes the chain's tail.

        Returns:
            True when `node` is a FullyConnected, or a Convolution or Deconvolution with a
            channels-first layout.

        Example::

            from gluonlite.subgraph.fuse import FuseProperty
            x, w, b = sym.var('x'), sym.var('w'), sym.var('b')
            y = sym.relu(sym.FullyConnected(x, w, b, num_hidden=4))
            from gluonlite.subgraph.grouping import IndexedGraph
            prop = FuseProperty(); prop.pre_partition(y); sel = prop.create_subgraph_selector()
            fc, relu = IndexedGraph(y).nodes[3:]
            sel.select(fc)   # True
            sel.select(relu)   # False: chains start at a product
        """
        if node.op is None or node.op.name not in _PRODUCTS:
            return False
        ok = node.op.name == "FullyConnected" or node.params.layout in _CHANNELS_FIRST
        if ok:
            self.tail = node
        return ok

    def select_input(self, node, input_node):
        """Never: a chain starts at its product.

        Args:
            node: a graph node (a `gluonlite.symbol` Node) already in the subgraph.
            input_node: a node that feeds `node`.

        Returns:
            False, always.

        Example::

            from gluonlite.subgraph.fuse import FuseProperty
            x, w, b = sym.var('x'), sym.var('w'), sym.var('b')
            y = sym.relu(sym.FullyConnected(x, w, b, num_hidden=4))
            from gluonlite.subgraph.grouping import IndexedGraph
            prop = FuseProperty(); prop.pre_partition(y); sel = prop.create_subgraph_selector()
            fc, relu = IndexedGraph(y).nodes[3:]
            sel.select_input(fc, IndexedGraph(y).nodes[0])   # False
        """
        return False

    def select_output(self, node, output_node):
        """The next link of the chain, from its last node only.

        Args:
            node: a graph node (a `gluonlite.symbol` Node) already in the subgraph.
            output_node: a node that reads `node`; when accepted it becomes the chain's tail.

        Returns:
            True when `node` is the chain's tail with exactly one consumer and `output_node` is a
            stage that can follow it.

        Example::

            from gluonlite.subgraph.fuse import FuseProperty
            x, w, b = sym.var('x'), sym.var('w'), sym.var('b')
            y = sym.relu(sym.FullyConnected(x, w, b, num_hidden=4))
            from gluonlite.subgraph.grouping import IndexedGraph
            prop = FuseProperty(); prop.pre_partition(y); sel = prop.create_subgraph_selector()
            fc, relu = IndexedGraph(y).nodes[3:]
            sel.select(fc); sel.select_output(fc, relu)   # True: relu follows the product
        """
        if node is not self.tail or self.consumers.get(id(node), 0) != 1:
            return False
        if _stage(output_node, node) is None:
            return False
        self.tail = output_node
        return True

    def filter(self, candidates):
        """A product alone is left as it is.

        Args:
            candidates: the list of nodes the selector grew from its seed.

        Returns:
            The candidates as a list when there are at least two, else [].

        Example::

            from gluonlite.subgraph.fuse import FuseProperty
            x, w, b = sym.var('x'), sym.var('w'), sym.var('b')
            y = sym.relu(sym.FullyConnected(x, w, b, num_hidden=4))
            from gluonlite.subgraph.grouping import IndexedGraph
            prop = FuseProperty(); prop.pre_partition(y); sel = prop.create_subgraph_selector()
            fc, relu = IndexedGraph(y).nodes[3:]
            sel.filter([fc])   # []
            len(sel.filter([fc, relu]))   # 2
        """
        return list(candidates) if len(candidates) > 1 else []


class FuseProperty(SubgraphProperty):
    """The ``'FUSE'`` backend (see the module docstring).

    Example::

        from gluonlite.subgraph.fuse import FuseProperty
        x, w, b = sym.var('x'), sym.var('w'), sym.var('b')
        y = sym.relu(sym.FullyConnected(x, w, b, num_hidden=4))
        fused = mx.subgraph.partition_graph(y, 'FUSE')
        '_sg_fuse' in fused.tojson()   # True: FullyConnected and relu are one node
    """

    # a fused node's gradient runs its chain again unfused: a graph that computes gradients
    # is faster left alone, as MXNet's MKLDNN backend leaves it
    inference_only = True

    def pre_partition(self, symbol):
        """Count each node's readers in `symbol` (a chain goes on through nodes read once).

        Example::

            from gluonlite.subgraph.fuse import FuseProperty
            x, w, b = sym.var('x'), sym.var('w'), sym.var('b')
            y = sym.relu(sym.FullyConnected(x, w, b, num_hidden=4))
            prop = FuseProperty(); prop.pre_partition(y)   # every node is read once
        """
        g = IndexedGraph(symbol)
        counts = {}
        for n in g.nodes:
            for s, _ in n.inputs:
                counts[id(s)] = counts.get(id(s), 0) + 1
        for n, _ in symbol.outputs:
            counts[id(n)] = counts.get(id(n), 0) + 1
        self._consumers = counts

    def create_subgraph_selector(self):
        """A `FuseSelector` over the counts of `pre_partition`.

        Example::

            from gluonlite.subgraph.fuse import FuseProperty
            x, w, b = sym.var('x'), sym.var('w'), sym.var('b')
            y = sym.relu(sym.FullyConnected(x, w, b, num_hidden=4))
            prop = FuseProperty(); prop.pre_partition(y)
            sel = prop.create_subgraph_selector()   # a FuseSelector
        """
        return FuseSelector(getattr(self, "_consumers", {}))

    def create_subgraph_node(self, symbol, subgraph_id):
        """A ``_sg_fuse`` node running the chain `symbol`.

        Args:
            symbol: the `Symbol` of the chain (a product and its following elementwise stages).
            subgraph_id: the subgraph's number, appended to the node name.

        Returns:
            A ``_sg_fuse`` Node without inputs.

        Example::

            from gluonlite.subgraph.fuse import FuseProperty
            x, w, b = sym.var('x'), sym.var('w'), sym.var('b')
            y = sym.relu(sym.FullyConnected(x, w, b, num_hidden=4))
            FuseProperty().create_subgraph_node(y, 0).name   # '_sg_fuse0'
        """
        return Node(registry.get(OP_NAME), f"{OP_NAME}{subgraph_id}", {},
                    Params({"_subgraphs": [symbol]}), [], "")


# ---- the fused operator -------------------------------------------------------------------
class _Chain:
    """The chain of one ``_sg_fuse`` node: per link (operator, params, inputs), an input
    being the previous link's output (None) or the node's input at that position."""

    __slots__ = ("sub", "links", "bn", "rest", "geoms", "kept")

    def __init__(self, p):
        meta = subgraph_meta(p)
        self.sub = meta.sub
        self.geoms = {}  # the product's geometry per data shape
        self.kept = None  # `_folded`'s last inputs (their bytes) and result
        pos = {id(v): i for i, v in enumerate(meta.vars)}
        self.links = []
        for n in topo_nodes(meta.sub.outputs):
            if n.op is not None:
                refs = [pos.get(id(s)) if s.op is None else None for s, _ in n.inputs]
                self.links.append((n.op, n.params, refs))
        self.bn = self.links[1] if len(self.links) > 1 and \
            self.links[1][0].name in _BATCHNORMS else None
        self.rest = self.links[2 if self.bn else 1:]
        if self.bn is not None and self.bn[0].name == BATCHNORM_WITH_RELU:
            self.rest = [(_ACT, _ACT_RELU, [None])] + self.rest


def _chain(p):
    c = p.get("_chain")
    if c is None or c.sub is not p["_subgraphs"][0]:
        c = p["_chain"] = _Chain(p)
    return c


def _fused_plain(p, rc, *xs):
    """_sg_fuse(*inputs): the chain in params['_subgraphs'][0] (a product, then a BatchNorm,
    additions and activations), each operator run as it is, one after the other."""
    cur = None
    for op, q, refs in _chain(p).links:
        cur = op.forward(q, rc, [cur if r is None else xs[r] for r in refs])[0]
    return cur


def _bn_scale_shift(q, xs, refs, dtype):
    """(s, t) of an inference BatchNorm as ``y * s + t`` per channel, in float64."""
    gamma, beta, mean, var = (xs[r].astype(np.float64) for r in refs[1:])
    s = 1.0 / np.sqrt(var + q.eps)
    if not q.fix_gamma:
        s = s * gamma
    return s, beta - mean * s


def _per_channel(v, block):
    """Per-channel vector `v` shaped to broadcast over `block`: (F, cols) or (m, F, P)."""
    return v.reshape((-1, 1)) if block.ndim == 2 else v.reshape((1, -1) + (1,) * (block.ndim - 2))


def _epilogue(links, xs, rc, shape3, scale=None, shift=None):
    """f(block, index): ``block * scale + shift`` per channel (a BatchNorm and bias applied
    to the output, when given), then the additions and activations `links`, in place on a
    block of the output seen as `shape3` (what `conv_fast.forward` calls per block)."""
    if not links and scale is None:
        return None
    others = {r: xs[r].reshape(shape3) for _, _, refs in links for r in refs if r is not None}

    def apply(block, index):
        if scale is not None:
            # a block of some channels (a depthwise block: sample, channels) takes theirs
            ch = index[1] if len(index) > 1 else slice(None)
            np.multiply(block, _per_channel(scale[ch], block), out=block)
            np.add(block, _per_channel(shift[ch], block), out=block)
        for op, q, refs in links:
            if op.name == "elemwise_add":
                other = others[next(r for r in refs if r is not None)][index]
                np.add(block, other, out=block)
            elif op.fast.into is not None:
                op.fast.into(q, rc, [block], block)
            else:
                np.copyto(block, op.kernel(q, rc, block), casting="unsafe")
    return apply


def _fold(w, b, s, t, out_size, dtype, channel_axis=0):
    """(w, b, scale, shift): the BatchNorm ``* s + t`` after a product with weight `w`
    (output channels on `channel_axis`) and bias `b`, folded into the weight when the
    weight is smaller than the output (scale None), else left to the output pass (the
    weight is then unchanged and the bias goes into the shift)."""
    shift = ((0.0 if b is None else b.astype(np.float64)) * s + t).astype(dtype)
    if w.size <= out_size:
        shape = [1] * w.ndim
        shape[channel_axis] = -1
        return (w * s.astype(dtype).reshape(shape)).astype(dtype, copy=False), shift, None, None
    return w, None, s.astype(dtype), shift


# The folded weight, bias, scale and shift of a chain are kept between calls, and reused
# while the BatchNorm's four vectors, the bias and (when it is folded) the weight hold
# exactly the bytes they were made from: no write to a parameter, in place or not, can go
# unseen. On small layers the folding's dozen numpy calls (and a depthwise layer's bands,
# which conv_fast then keeps too) cost more than the byte comparisons: 0.97-0.98 of
# MobileNet 0.25's and v2's inference at batch 1, no change at batch 32 or on ResNet-18
# (`benchmarks/lever_ab.py ... gluonlite.subgraph.fuse:KEEP_FOLDED`). A weight folded into
# is kept up to `_KEEP_MAX` entries; larger ones are folded on every call (their check would
# read as much as the folding, and their kept copies double their memory). A weight left
# unfolded, larger than the output, is never compared: only its BatchNorm's factors are kept.
KEEP_FOLDED = True
_KEEP_MAX = 1 << 16


def _snapshot(a):
    """What `_folded` compares an input by: its shape, dtype and bytes (comparing bytes is
    one memcmp, 10-20x cheaper than numpy's elementwise comparison on vectors this small)."""
    return a.shape, a.dtype.str, a.tobytes()


def _folded(c, xs, w, b, out_size, dtype, channel_axis):
    """`_fold` of chain `c`'s product and BatchNorm on the call's inputs `xs`, the one kept
    from an earlier call where those inputs are unchanged (`KEEP_FOLDED`, above)."""
    q, refs = c.bn[1], c.bn[2]
    into_weight = w.size <= out_size
    if not KEEP_FOLDED or (into_weight and w.size > _KEEP_MAX):
        s, t = _bn_scale_shift(q, xs, refs, dtype)
        return _fold(w, b, s, t, out_size, dtype, channel_axis)
    sources = [xs[r] for r in refs[1:]] + ([b] if b is not None else []) + \
        ([w] if into_weight else [])
    key = (np.dtype(dtype).str, into_weight, [_snapshot(a) for a in sources])
    if c.kept is not None and c.kept[0] == key:
        folded = c.kept[1]
    else:
        s, t = _bn_scale_shift(q, xs, refs, dtype)
        folded = _fold(w, b, s, t, out_size, dtype, channel_axis)
        for a in folded:
            # read-only, so that no later call can change what it reuses; conv_fast keeps
            # the bands of such a depthwise weight while the weight lives
            if a is not None and a is not w:
                a.flags.writeable = False
        c.kept = (key, folded)
    # a weight left unfolded is the call's own array
    return folded if into_weight else (w,) + tuple(folded[1:])


def _fused_into(p, rc, outs, *xs):
    """The chain computed as one product, its BatchNorm folded into the weight and bias (or
    into one scale and shift of each output block, whichever touches less memory), the
    additions and activations applied to each output block in place."""
    c = _chain(p)
    op, q, refs = c.links[0]
    x, w = xs[refs[0]], xs[refs[1]]
    b = xs[refs[2]] if len(refs) > 2 else None
    out = outs[0]
    batch_stats = c.bn is not None and rc.is_train and not c.bn[1].use_global_stats
    if rc.xp is not np or batch_stats or not conv_fast.usable(np, x, w, b) or \
            not out.flags.c_contiguous:
        np.copyto(out, _fused_plain(p, rc, *xs), casting="unsafe")
        return
    scale = shift = None
    if c.bn is not None:
        w, b, scale, shift = _folded(c, xs, w, b, out.size, x.dtype,
                                     1 if op.name == "Deconvolution" else 0)
    if op.name == "Convolution":
        g = c.geoms.get(x.shape)
        if g is None:
            g = c.geoms[x.shape] = conv_geom("Convolution", q, x.shape[2:])
        n, f = x.shape[0], w.shape[0]
        ep = _epilogue(c.rest, xs, rc, (n, f, -1), scale, shift)
        conv_fast.forward(x, w, q.num_group, g, bias=b, out=out, epilogue=ep)
        return
    if op.name == "Deconvolution":
        if b is not None and q.no_bias:
            q = Params(dict(q, no_bias=False))
        y = op.forward(q, rc, [x, w] + ([b] if b is not None else []))[0]
        np.copyto(out, y)
        shape3 = (out.shape[0], out.shape[1], -1)
    else:  # FullyConnected
        x2 = x.reshape(x.shape[0], -1) if q.flatten else x.reshape(-1, x.shape[-1])
        out2 = out.reshape(x2.shape[0], -1)
        np.matmul(x2, w.T, out=out2)
        if b is not None:
            out2 += b
        shape3 = out2.shape + (1,)  # channels on axis 1, as a convolution's output
    ep = _epilogue(c.rest, xs, rc, shape3, scale, shift)
    if ep is not None:
        ep(out.reshape(shape3), (slice(None),))


def _fused_vjp(p, rc, xs, ys, gys, need):
    """The chain's gradient through its unfused nested plan, run again on the inputs (with
    copies of the auxiliary states, so that a training BatchNorm's statistics move once)."""
    meta = subgraph_meta(p)
    xs = [x.copy() if aux else x for x, aux in zip(xs, meta.aux_mask)]
    plan = _plan(p, rc, xs, rc.is_train, True)
    _, saved = plan.forward(list(xs))
    grads = plan.backward(saved, list(gys[:1]))
    return [g if want else None for g, want in zip(grads, need)]


FUSED_OP = Operator(
    OP_NAME,
    # its outputs are named as the chain's last node's (see default_op.DEFAULT_SUBGRAPH_OP)
    Signature(inputs=lambda p: subgraph_meta(p).input_names, outputs=1,
              output_names=lambda p: subgraph_meta(p).output_names,
              aux=lambda p: subgraph_meta(p).aux_mask, call_order=(),
              full_output_names=True),
    Rules(_fused_plain, _fused_vjp, shape=lambda p, ins: _infer(p, ins, "shape"),
          dtype=lambda p, ins: _infer(p, ins, "dtype")),
    fast=Fast(into=_fused_into), doc=_fused_plain.__doc__)
if not registry.exists(OP_NAME):
    registry.add(FUSED_OP)

register_subgraph_property("FUSE", FuseProperty)
register_subgraph_property("MKLDNN", FuseProperty)


def fuse_for_inference(symbol):
    """`symbol` with the ``'FUSE'`` backend applied, when inference fusion is on
    (`DEFAULT_ON`, and ``GLUONLITE_INFERENCE_FUSION`` is not ``0``); else `symbol`. The
    compiler calls it for the graphs of inference plans (`register_inference_pass`).

    Example::

        from gluonlite.subgraph.fuse import FuseProperty
        x, w, b = sym.var('x'), sym.var('w'), sym.var('b')
        y = sym.relu(sym.FullyConnected(x, w, b, num_hidden=4))
        fused = mx.subgraph.fuse.fuse_for_inference(y)   # one _sg_fuse node
    """
    if not DEFAULT_ON or os.environ.get(ENV_VAR, "").strip() == "0":
        return symbol
    try:
        return partition_graph(symbol, "FUSE")
    except (ValueError, TypeError, RuntimeError) as e:
        # an optimization the user did not ask for never stops a model from running
        warnings.warn(f"inference fusion skipped for this graph ({type(e).__name__}: {e}); "
                      f"it runs unfused (set {ENV_VAR}=0 to silence this)", stacklevel=2)
        return symbol


register_inference_pass(fuse_for_inference)
