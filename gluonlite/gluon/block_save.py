"""`Block.save(prefix)` / `Block.load(prefix)`: MXNet 1.9.1's whole-model files.

`save` writes ``<prefix>-model.json``, the block tree (each block's name when saved, the
names its parent knew its children by, and for a hybridized HybridBlock its input/output
formats and graph as JSON), and ``<prefix>-model.params`` (`save_parameters`). `load`, on a
block tree built by the same code in the same order, gives each block back its saved name and
child names (so the parameter file's structural names match) and loads the parameters; a block
that was hybridized is active again. The files are MXNet's: each side reads the other's.

The tree's JSON keys are those MXNet writes: a block is ``<class name lowercased><n>``, n
counting blocks in depth-first order, stored beside its parent's ``children`` map.

gluonlite does not reuse the saved graph: a hybridized block traces `hybrid_forward` again
on its first call, which gives the graph the block's code defines (the saved one, for an
unchanged model).
"""
import json


def _mx_format(spec):
    """gluonlite's `base.flatten` spec as MXNet's format: 0 an array, -1 None, a list for a list."""
    if spec is None:
        return -1
    if spec == 0:
        return 0
    return [_mx_format(c) for c in spec[1]]


def _graph_entry(blk):
    """(inputs, output, in_format, out_format) of the last hybridized call, or None."""
    cached = getattr(blk, "_cached_graph", ())
    if not cached:
        return None
    inputs, out = cached
    for key, hit in blk._graphs.items():
        if hit[1] is out:
            return inputs, out, _mx_format(key[0]), _mx_format(hit[2])
    n_out = len(out.list_outputs())
    return inputs, out, [0] * len(inputs), 0 if n_out == 1 else [0] * n_out


def save_model(block, prefix):
    """Write ``prefix-model.json`` and ``prefix-model.params`` for `block` (see module doc).

    Example::

        from gluonlite.gluon.block_save import save_model
        net = nn.HybridSequential(); net.add(nn.Dense(3, in_units=4)); net.initialize()
        save_model(net, 'net')   # as net.save('net'): net-model.json, net-model.params
    """
    from .block import HybridBlock

    def visit(blk, index, structure):
        mdl = {"orig_name": blk.name}
        structure[type(blk).__name__.lower() + str(index[0])] = mdl
        if isinstance(blk, HybridBlock):
            entry = _graph_entry(blk)
            if entry is not None:
                inputs, out, in_fmt, out_fmt = entry
                mdl["in_format"] = in_fmt
                mdl["out_format"] = out_fmt
                mdl["inputs"] = [s.tojson() for s in inputs]
                mdl["symbol"] = out.tojson()
                mdl["hybridized"] = True
            else:
                mdl["hybridized"] = False
        children = {}
        mdl["children"] = children
        for ch_name, child in blk._children.items():
            index[0] += 1
            children[child.name] = ch_name
            visit(child, index, mdl)

    model = {}
    visit(block, [0], model)
    with open(prefix + "-model.json", "w") as fp:
        json.dump(model, fp)
    block.save_parameters(prefix + "-model.params")


def load_model(block, prefix):
    """Rename `block`'s tree as saved in ``prefix-model.json`` and load its parameters.

    Example::

        from gluonlite.gluon.block_save import load_model, save_model
        def build():
            net = nn.HybridSequential(); net.add(nn.Dense(3, in_units=4)); return net
        net = build(); net.initialize(); save_model(net, 'net')
        net2 = build(); load_model(net2, 'net')   # as net2.load('net')
    """
    from .block import HybridBlock
    fname = prefix + "-model.json"
    with open(fname) as fp:
        try:
            model = json.load(fp)
        except json.JSONDecodeError as e:
            raise ValueError(f"Block.load: {fname} is not valid JSON ({e})") from None

    # Check the whole tree first and rename after, so that a mismatch changes nothing.
    plan = []

    def check(blk, index, structure):
        key = type(blk).__name__.lower() + str(index[0])
        mdl = structure.get(key)
        if not isinstance(mdl, dict) or "orig_name" not in mdl:
            raise ValueError(f"Block.load: {fname} has no entry {key!r} for block "
                             f"{blk.name!r}; the model must be built by the same code, in the "
                             "same order, as the saved one")
        plan.append((blk, mdl))
        saved_children = mdl.get("children", {})
        for child in blk._children.values():
            index[0] += 1
            child_mdl = check(child, index, mdl)
            if child_mdl["orig_name"] not in saved_children:
                raise ValueError(f"Block.load: {fname} lists no child "
                                 f"{child_mdl['orig_name']!r} of block {mdl['orig_name']!r}")
        return mdl

    check(block, [0], model)
    for blk, mdl in plan:
        old_prefix = blk.params._prefix
        blk._name = mdl["orig_name"]
        if isinstance(blk, HybridBlock):
            blk._clear_cached_op()  # a graph traced before holds the old names
            if mdl.get("hybridized"):
                blk._active = True
        params = blk.params._params
        for p in list(params):
            params[blk.name + "_" + p[len(old_prefix):]] = params.pop(p)
    for blk, mdl in plan:
        saved_children = mdl.get("children", {})
        children = list(blk._children.values())
        blk._children.clear()
        for child in children:
            blk._children[saved_children[child.name]] = child
    block.load_parameters(prefix + "-model.params")


__all__ = ["save_model", "load_model"]
