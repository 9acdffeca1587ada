"""MXNet's JSON graph format: writing, reading, and validating it.

Layout: ``{"nodes": [{"op", "name", "attrs", "inputs": [[node, index, version]],
"subgraphs": [graph, ...]}], "arg_nodes": [...], "node_row_ptr": [...], "heads": [[node,
index, version]], "attrs": {"mxnet_version": ["int", 10901]}}``.
"""
import ast
import json

from ..base import write_atomically
from ..ops import registry
from ..ops.registry import Params
from .symbol import HIDDEN_KEYS, Node, Symbol, topo_nodes, _AUX_VAR_INIT
from ..util import is_np_shape

MXNET_VERSION = 10901
# Subgraphs inside subgraphs (a loop in a branch in a loop...): real models nest a few;
# the readers and the executor recurse once per level, so a file may not nest past this.
MAX_SUBGRAPH_DEPTH = 32


def to_dict(symbol, top=True):
    """The JSON object (a dict) of `symbol`, as MXNet writes it.

    Attribute keys are sorted (MXNet keeps them in a std::map); an input that an operator
    mutates (an auxiliary state such as BatchNorm's moving_mean) carries the variable's
    version count, as NNVM numbers it; subgraphs (``top=False``) have no ``attrs``.

    Example::

        from gluonlite.symbol.json_io import to_dict
        d = to_dict(sym.relu(sym.var('x'), name='r'))
        [n['name'] for n in d['nodes']], d['heads']   # (['x', 'r'], [[1, 0, 0]])
    """
    nodes = topo_nodes(symbol.outputs)
    index = {id(n): i for i, n in enumerate(nodes)}
    versions = {}
    out_nodes, row_ptr = [], [0]
    for n in nodes:
        d = {"op": "null" if n.op is None else n.op.name, "name": n.name}
        if n.attrs:
            d["attrs"] = {k: n.attrs[k] for k in sorted(n.attrs)}
        mutated = _mutated_inputs(n)
        inputs = []
        for j, (src, i) in enumerate(n.inputs):
            v = 0
            if j in mutated and src.op is None:
                v = versions[id(src)] = versions.get(id(src), 0) + 1
            inputs.append([index[id(src)], i, v])
        d["inputs"] = inputs
        if n.subgraphs:
            d["subgraphs"] = [to_dict(s, top=False) for s in n.subgraphs]
        out_nodes.append(d)
        row_ptr.append(row_ptr[-1] + n.num_outputs())
    d = {"nodes": out_nodes,
         "arg_nodes": [i for i, n in enumerate(nodes) if n.op is None],
         "node_row_ptr": row_ptr,
         "heads": [[index[id(n)], i, 0] for n, i in symbol.outputs]}
    if top:
        d["attrs"] = {"mxnet_version": ["int", MXNET_VERSION]}
        if _np_shape():  # written under NumPy shape semantics: 0 in a shape is a size
            d["attrs"]["is_np_shape"] = ["int", 1]
    return d


def _np_shape():
    return is_np_shape()


def _legacy_shapes_to_np(d):
    """MXNet's ConvertShapeAttrToNumPyCompatible: a graph read under NumPy shape semantics
    that was not written under them (no ``is_np_shape`` attribute) has its ``__shape__``
    attributes' 0s (unknown dimensions then) turned into -1 (unknown now)."""
    flag = (d.get("attrs") or {}).get("is_np_shape")
    if not _np_shape() or (isinstance(flag, list) and len(flag) == 2 and flag[1]):
        return

    def convert(nodes):
        for nd in nodes:
            if not isinstance(nd, dict):
                continue
            attrs = nd.get("attrs") or nd.get("attr") or nd.get("param")
            shape = attrs.get("__shape__") if isinstance(attrs, dict) else None
            if isinstance(shape, str):
                try:
                    dims = ast.literal_eval(shape)
                except (ValueError, SyntaxError):
                    dims = None
                if isinstance(dims, (tuple, list)):
                    dims = tuple(-1 if v == 0 else v for v in dims)
                    attrs["__shape__"] = str(dims)
            for sub in nd.get("subgraphs") or ():
                if isinstance(sub, dict):
                    convert(sub.get("nodes") or ())
    convert(d.get("nodes") or ())


def _mutated_inputs(node):
    """Indices of the inputs `node` mutates in place (its auxiliary states)."""
    if node.op is None or not node.op.has_aux:
        return ()
    return {j for j, is_aux in enumerate(node.op.aux_mask(node.params)) if is_aux}


def to_json(symbol):
    """`symbol` as an MXNet JSON string, laid out exactly as MXNet 1.9.1 writes it.

    Example::

        text = sym.var("x").tojson()
        assert sym.load_json(text).tojson() == text
    """
    return _write(to_dict(symbol), "")


def _write(v, indent):
    """dmlc's JSON layout: an object or array goes multi-line when it holds more than one
    key (objects), more than 10 items or any object (arrays); ``", "`` ends each line."""
    inner = indent + "  "
    if isinstance(v, dict):
        items = [f"{json.dumps(k, ensure_ascii=False)}: {_write(x, inner)}" for k, x in v.items()]
        if len(items) > 1:
            return "{\n" + inner + (", \n" + inner).join(items) + "\n" + indent + "}"
        return "{" + ", ".join(items) + "}"
    if isinstance(v, list):
        multi = len(v) > 10 or any(isinstance(x, dict) for x in v)
        if multi:
            items = [_write(x, inner) for x in v]
            return "[\n" + inner + (", \n" + inner).join(items) + "\n" + indent + "]"
        return "[" + ", ".join(_write(x, inner) for x in v) + "]"
    return json.dumps(v, ensure_ascii=False)


def save(symbol, fname):
    """Write the JSON of `symbol` to `fname` atomically (a temp file renamed into place).

    Example::

        from gluonlite.symbol.json_io import save
        save(sym.var('x') * 2, 'net-symbol.json')
        sym.load('net-symbol.json').list_arguments()   # ['x']
    """
    write_atomically(fname, to_json(symbol))


def _bad(where, msg):
    return ValueError(f"{where}: malformed symbol JSON: {msg}")


# Operators registered by layers above the symbol layer: importing the layer registers them,
# so a file holding loop or subgraph nodes loads without the caller importing it first.
_PROVIDERS = {"_foreach": "gluonlite.control_flow", "_while_loop": "gluonlite.control_flow",
              "_cond": "gluonlite.control_flow", "_default_subgraph_op": "gluonlite.subgraph"}


def _lookup_op(name):
    if not registry.exists(name) and name in _PROVIDERS:
        import importlib
        try:
            importlib.import_module(_PROVIDERS[name])
        except ImportError:
            pass
    return registry.get(name)


def _entry(where, e, n_before, kind):
    if not isinstance(e, list) or len(e) not in (2, 3) or \
            not all(isinstance(v, int) and not isinstance(v, bool) for v in e):
        raise _bad(where, f"{kind} {e!r} is not [node, index, version]")
    if not 0 <= e[0] < n_before:
        raise _bad(where, f"{kind} {e!r} refers to node {e[0]}, which does not come before it")
    if e[1] < 0:
        raise _bad(where, f"{kind} {e!r} has a negative output index")
    return e


def _int_list(where, d, key):
    v = d.get(key)
    if v is not None and (not isinstance(v, list) or
                          not all(isinstance(i, int) and not isinstance(i, bool) for i in v)):
        raise _bad(where, f"{key!r} must be a list of integers, got {v!r:.80}")
    return v


_V0_9_0 = 900


def _file_version(d):
    """The MXNet version that wrote graph dict `d` (as 10901 for 1.9.1); 800 (0.8.0) when the
    file does not say, as MXNet assumes."""
    v = (d.get("attrs") or {}).get("mxnet_version")
    if isinstance(v, list) and len(v) == 2 and isinstance(v[1], int):
        return v[1]
    return 800


def _upgrade_hidden_keys(attrs, op, ins):
    """MXNet's upgrade of pre-1.9.1 attributes: a hidden key given plainly (``lr_mult``)
    becomes ``__lr_mult__``; on an operator node, ``<input>_<key>`` (``weight_lr_mult``)
    moves to that input's variable as ``__<key>__``."""
    def hidden_of(key):
        return next((h for h in HIDDEN_KEYS if key == h or key.endswith("_" + h)), None)

    out = {}
    names = None
    for key, value in attrs.items():
        hidden = hidden_of(key)
        if hidden is None:
            out[key] = value
        elif key == hidden:
            out[f"__{hidden}__"] = value
        else:
            if op is not None and names is None:
                try:
                    names = op.input_names(op.parse({k: v for k, v in attrs.items()
                                                     if hidden_of(k) is None})[0])
                except (TypeError, ValueError, KeyError):
                    names = []
            target = key[:-len(hidden) - 1]
            if op is not None and target in (names or []) and \
                    names.index(target) < len(ins) and ins[names.index(target)][0].op is None:
                ins[names.index(target)][0].attrs[f"__{hidden}__"] = value
            else:
                out[key] = value
    return out


def _node(where, k, nd, nodes, version=10901, depth=0):
    """One node of the 'nodes' list (`nodes`: the ones before it), upgraded as MXNet does
    when the file is older (`version`, as 10901 for 1.9.1)."""
    w = f"{where}: node {k}"
    if not isinstance(nd, dict) or "op" not in nd or "name" not in nd:
        raise _bad(w, "each node needs 'op' and 'name'")
    if not isinstance(nd["op"], str) or not isinstance(nd["name"], str):
        raise _bad(w, "'op' and 'name' must be strings")
    w = f"{where}: node {k} ({nd['name']!r})"
    # MXNet before 1.0 wrote the operator's parameters as "param" and the other attributes
    # as "attr"; later versions write one "attrs".
    attrs = {}
    for key in ("param", "attr", "attrs"):
        part = nd.get(key) or {}
        if not isinstance(part, dict):
            raise _bad(w, f"{key!r} must be an object")
        attrs.update({str(a): str(v) for a, v in part.items()})
    raw_inputs = nd.get("inputs", [])
    if not isinstance(raw_inputs, list):
        raise _bad(w, "'inputs' must be a list of [node, index, version]")
    ins = [(nodes[e[0]], e[1]) for e in (_entry(w, e, k, "input") for e in raw_inputs)]
    for src, i in ins:
        if i >= src.num_outputs():
            raise _bad(w, f"input [{nodes.index(src)}, {i}] but node {src.name!r} has "
                          f"{src.num_outputs()} output(s)")
    if nd["op"] == "null":
        if ins:
            raise _bad(w, "a variable ('op': 'null') cannot have inputs")
        if version < 10901:
            attrs = _upgrade_hidden_keys(attrs, None, ins)
        return Node(None, nd["name"], attrs)
    try:
        op = _lookup_op(nd["op"])
    except ValueError as e:
        raise ValueError(f"{w}: {e}") from None
    if version < 10901:
        attrs = _upgrade_hidden_keys(attrs, op, ins)
    given = dict(attrs)
    if op.variadic and op.variadic not in given:
        given[op.variadic] = str(len(ins))
    try:
        params, _ = op.parse(given)
    except (TypeError, ValueError) as e:
        raise ValueError(f"{w}: {e}") from None
    try:
        want = len(op.input_names(params))
    except (TypeError, ValueError, KeyError):
        want = None
    if want is not None and want > len(ins) and version < _V0_9_0:
        # Before 0.9 MXNet did not store auxiliary-state variables (BatchNorm's moving
        # statistics): add them as MXNet's upgrade does, named `<node>_<input>`.
        for name in op.input_names(params)[len(ins):]:
            va = {a: v for a, v in attrs.items() if a != "__init__"}
            if name in _AUX_VAR_INIT:
                va["__init__"] = _AUX_VAR_INIT[name]
            ins.append((Node(None, f"{nd['name']}_{name}", va), 0))
    if want is not None and want != len(ins):
        raise _bad(w, f"operator {op.name} with these attributes takes {want} input(s), the "
                      f"node lists {len(ins)}")
    subs = nd.get("subgraphs", [])
    if not isinstance(subs, list):
        raise _bad(w, "'subgraphs' must be a list of graphs")
    if subs and depth >= MAX_SUBGRAPH_DEPTH:
        raise _bad(w, f"subgraphs nest more than {MAX_SUBGRAPH_DEPTH} levels deep; expected "
                      "at most that many loops or branches inside each other")
    # past two levels the full path of nodes would outgrow a line: name the file and level
    prefix = w if depth < 2 else (f"{where.split(': ')[0]}: (subgraph level {depth}) node "
                                  f"{k} ({nd['name']!r})")
    subs = [from_dict(s, f"{prefix} subgraph {j}", _depth=depth + 1) for j, s in enumerate(subs)]
    if subs:
        params = Params(params)
        params["_subgraphs"] = subs
    # Keep the file's own strings so that writing the graph back gives the same text.
    return Node(op, nd["name"], attrs, params, ins)


def from_dict(d, where="<json>", _depth=0):
    """Rebuild a Symbol from a JSON object.

    Args:
        d: the parsed JSON object of a graph (a dict with 'nodes' and 'heads', as `to_dict`
            or MXNet's ``tojson`` writes).
        where: what the object is, starting every error message (default '<json>').
        _depth: how deep in subgraphs `d` is (0 for the top graph; the recursion counts it).

    Returns:
        Symbol: the graph's heads.

    Raises:
        ValueError: a missing key, a bad entry, an unknown operator (named), attributes the
            operator does not accept, or subgraphs nested past MAX_SUBGRAPH_DEPTH; the
            message starts with `where`.

    Example::

        from gluonlite.symbol.json_io import from_dict, to_dict
        from_dict(to_dict(sym.relu(sym.var('x')))).list_arguments()   # ['x']
    """
    if not isinstance(d, dict) or "nodes" not in d or "heads" not in d:
        raise _bad(where, "expected an object with 'nodes' and 'heads'")
    if not isinstance(d["nodes"], list) or not d["nodes"]:
        raise _bad(where, "'nodes' must be a non-empty list")
    if not isinstance(d["heads"], list) or not d["heads"]:
        raise _bad(where, "'heads' must be a non-empty list of [node, index, version]")
    nodes = []
    version = _file_version(d)
    for k, nd in enumerate(d["nodes"]):
        nodes.append(_node(where, k, nd, nodes, version, _depth))
    arg_nodes = _int_list(where, d, "arg_nodes")
    if arg_nodes is not None:
        expect = [i for i, n in enumerate(nodes) if n.op is None]
        if sorted(arg_nodes) != expect:
            raise _bad(where, f"'arg_nodes' {arg_nodes} does not list the variable nodes "
                              f"{expect}")
    _int_list(where, d, "node_row_ptr")
    heads = [_entry(f"{where}: heads", e, len(nodes), "head") for e in d["heads"]]
    for e in heads:
        if e[1] >= nodes[e[0]].num_outputs():
            raise _bad(f"{where}: heads", f"head {e!r} but node {nodes[e[0]].name!r} has "
                                          f"{nodes[e[0]].num_outputs()} output(s)")
    return Symbol([(nodes[e[0]], e[1]) for e in heads])


def load_json(text, where="<json string>"):
    """A Symbol from an MXNet JSON string.

    Args:
        text: the JSON text (a str or bytes), of any MXNet version's layout.
        where: what the text is, starting every error message (default '<json string>').

    Returns:
        Symbol: the graph's heads.

    Raises:
        ValueError: text that is not JSON or not a graph (the message says what is wrong).

    Example::

        z = sym.load_json((sym.var('a') + sym.var('b')).tojson())
        z.list_arguments()   # ['a', 'b']
    """
    try:
        d = json.loads(text)
    except (json.JSONDecodeError, TypeError) as e:
        raise ValueError(f"{where}: not valid JSON: {e}") from None
    except RecursionError:  # json's own parser recurses once per [ or {
        raise ValueError(f"{where}: not a symbol JSON file: its arrays and objects nest too "
                         "deeply to read (a graph nests a few levels)") from None
    if isinstance(d, dict):
        _legacy_shapes_to_np(d)
    return from_dict(d, where)


def load(fname):
    """A Symbol from an MXNet JSON file (e.g. ``model-symbol.json``).

    Args:
        fname: the file's path (a str or path-like).

    Returns:
        Symbol: the graph's heads.

    Raises:
        ValueError: the file is malformed or not UTF-8 (named in the message).
        OSError: it cannot be read.

    Example::

        sym.var('x').exp().save('model-symbol.json')
        sym.load('model-symbol.json').list_arguments()   # ['x']
    """
    with open(fname, "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{fname}: not a symbol JSON file (not UTF-8 text)") from None
    return load_json(text, str(fname))
