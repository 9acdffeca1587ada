"""MXNet's JSON graph format: writing, reading, and validating it.

Layout: ``{"nodes": [{"op", "name", "attrs", "inputs": [[node, index, version]],
"subgraphs": [graph, ...]}], "arg_nodes": [...], "node_row_ptr": [...], "heads": [[node,
index, version]], "attrs": {"mxnet_version": ["int", 10901]}}``.
"""
import json
import os
import tempfile

from ..ops import registry
from ..ops.registry import Params
from .symbol import Node, Symbol, topo_nodes

MXNET_VERSION = 10901


def to_dict(symbol):
    """The JSON object (a dict) of `symbol`."""
    nodes = topo_nodes(symbol.outputs)
    index = {id(n): i for i, n in enumerate(nodes)}
    out_nodes, row_ptr = [], [0]
    for n in nodes:
        d = {"op": "null" if n.op is None else n.op.name, "name": n.name}
        if n.attrs:
            d["attrs"] = dict(n.attrs)
        d["inputs"] = [[index[id(src)], i, 0] for src, i in n.inputs]
        if n.subgraphs:
            d["subgraphs"] = [to_dict(s) for s in n.subgraphs]
        out_nodes.append(d)
        row_ptr.append(row_ptr[-1] + n.num_outputs())
    return {"nodes": out_nodes,
            "arg_nodes": [i for i, n in enumerate(nodes) if n.op is None],
            "node_row_ptr": row_ptr,
            "heads": [[index[id(n)], i, 0] for n, i in symbol.outputs],
            "attrs": {"mxnet_version": ["int", MXNET_VERSION]}}


def to_json(symbol):
    """`symbol` as an MXNet JSON string (2-space indented, like MXNet's)."""
    return json.dumps(to_dict(symbol), indent=2)


def save(symbol, fname):
    """Write the JSON of `symbol` to `fname` atomically (a temp file renamed into place)."""
    text = to_json(symbol)
    d = os.path.dirname(os.path.abspath(fname))
    fd, tmp = tempfile.mkstemp(dir=d, prefix=".tmp-", suffix=".json")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, fname)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _bad(where, msg):
    return ValueError(f"{where}: malformed symbol JSON: {msg}")


def _entry(where, e, n_before, kind):
    if not isinstance(e, list) or len(e) not in (2, 3) or not all(isinstance(v, int) for v in e):
        raise _bad(where, f"{kind} {e!r} is not [node, index, version]")
    if not 0 <= e[0] < n_before:
        raise _bad(where, f"{kind} {e!r} refers to node {e[0]}, which does not come before it")
    return e


def from_dict(d, where="<json>"):
    """Rebuild a Symbol from a JSON object.

    Raises:
        ValueError: a missing key, a bad entry, an unknown operator (named), or attributes the
            operator does not accept; the message starts with `where`.
    """
    if not isinstance(d, dict) or "nodes" not in d or "heads" not in d:
        raise _bad(where, "expected an object with 'nodes' and 'heads'")
    if not isinstance(d["nodes"], list):
        raise _bad(where, "'nodes' must be a list")
    nodes = []
    for k, nd in enumerate(d["nodes"]):
        w = f"{where}: node {k}"
        if not isinstance(nd, dict) or "op" not in nd or "name" not in nd:
            raise _bad(w, "each node needs 'op' and 'name'")
        attrs = nd.get("attrs", nd.get("attr", nd.get("param", {}))) or {}
        if not isinstance(attrs, dict):
            raise _bad(w, "'attrs' must be an object")
        attrs = {str(a): str(v) for a, v in attrs.items()}
        inputs = [_entry(w, e, k, "input") for e in nd.get("inputs", [])]
        ins = [(nodes[e[0]], e[1]) for e in inputs]
        if nd["op"] == "null":
            nodes.append(Node(None, nd["name"], attrs))
            continue
        try:
            op = registry.get(nd["op"])
        except ValueError as e:
            raise ValueError(f"{where}: node {k} ({nd['name']!r}): {e}") from None
        try:
            params, strings = op.parse(attrs)
        except (TypeError, ValueError) as e:
            raise ValueError(f"{where}: node {k} ({nd['name']!r}): {e}") from None
        strings = {**attrs, **strings}
        subs = [from_dict(s, f"{where}: node {k} ({nd['name']!r}) subgraph {j}")
                for j, s in enumerate(nd.get("subgraphs", []))]
        if subs:
            params = Params(params)
            params["_subgraphs"] = subs
        node = Node(op, nd["name"], strings, params, ins)
        for src, i in ins:
            if i >= src.num_outputs():
                raise _bad(w, f"input ({src.name!r}, {i}) but that node has {src.num_outputs()} "
                              "outputs")
        nodes.append(node)
    heads = [_entry(f"{where}: heads", e, len(nodes), "head") for e in d["heads"]]
    if not heads:
        raise _bad(where, "'heads' is empty")
    return Symbol([(nodes[e[0]], e[1]) for e in heads])


def load_json(text, where="<json string>"):
    """A Symbol from an MXNet JSON string.

    Raises:
        ValueError: text that is not JSON or not a graph (the message says what is wrong).
    """
    try:
        d = json.loads(text)
    except (json.JSONDecodeError, TypeError) as e:
        raise ValueError(f"{where}: not valid JSON: {e}") from None
    return from_dict(d, where)


def load(fname):
    """A Symbol from an MXNet JSON file (e.g. ``model-symbol.json``).

    Raises:
        ValueError: the file is malformed (named in the message); OSError: it cannot be read.
    """
    with open(fname, "rb") as f:
        raw = f.read()
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(f"{fname}: not a symbol JSON file (not UTF-8 text)") from None
    return load_json(text, str(fname))
