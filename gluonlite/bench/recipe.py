"""Loading YAML recipes: safe_load only, `extends` chains, validation against a schema.

A recipe file may name a parent with `extends: PATH` (relative to the file that says
it); parents are deep-merged under their children (mappings merge key by key, lists
and scalars are replaced). Each file is checked against the schema of the recipe's
`kind` on its own, so an error names the file and YAML line where the mistake is;
the merged result is then checked again with defaults and required keys filled in.

Example:
    >>> r = load_recipe('recipes/quick.yaml')            # doctest: +SKIP
    >>> r.kind, r.data['matrix']['cell']                  # doctest: +SKIP
    ('bench', ['RNNCell', 'GRUCell', 'LSTMCell'])
"""
import copy
import os
from dataclasses import dataclass, field

import yaml

from .schema import (Bool, Enum, Int, Key, ListOf, Nullable, Number, OrAuto, RecipeError, Regex,
                     Str, Struct, Sweep)

__all__ = ["Recipe", "RecipeError", "load_recipe", "recipe_kind", "from_data", "deep_merge",
           "BENCH_SCHEMA", "TRAIN_SCHEMA", "CELLS", "MAX_RECIPE_BYTES", "MAX_RECIPE_VALUES",
           "MAX_RECIPE_DEPTH"]

CELLS = ("RNNCell", "GRUCell", "LSTMCell")
MAX_RECIPE_BYTES = 1 << 20
# A recipe is a few dozen values a few levels deep. YAML aliases can make a few hundred bytes
# stand for billions of values (each alias is the whole subtree again), and deep nesting
# overflows the parser's recursion: both are refused before anything walks the tree.
MAX_RECIPE_VALUES = 100_000
MAX_RECIPE_DEPTH = 32
_CTX = Regex(r"(cpu|gpu)(\(\d+\))?", "cpu, gpu, cpu(N) or gpu(N)")
_KIND = Key(Enum("bench", "train"), default="bench", doc="bench (default) or train")
_EXTENDS = Key(Nullable(Str()), doc="parent recipe, relative to this file")
_EXECUTOR = Key(Struct({
    "kind": Key(Enum("local", "dask"), default="local",
                doc="local: here, one after another; dask: on a Dask distributed cluster"),
    "address": Key(Nullable(Regex(r"[a-z0-9+]+://\S+|[^\s:/]+:\d+",
                                  "a scheduler address such as tcp://HOST:PORT")),
                   default=None, doc="a running scheduler; null starts a LocalCluster"),
    "workers": Key(Nullable(Int(min=1)), default=None,
                   doc="LocalCluster worker processes (default: the CPU count)"),
    "share_host": Key(Bool(), default=False,
                      doc="let timing cases run at once on one host (no bench resource)"),
}))

BENCH_SCHEMA = Struct({
    "kind": _KIND,
    "extends": _EXTENDS,
    "benchmark": Key(ListOf(Enum("foreach", "while_loop")), required=True,
                     doc="set it in the recipe or give --benchmark"),
    "matrix": Key(Struct({
        "cell": Key(ListOf(Enum(*CELLS)), default=list(CELLS)),
        "ctx": Key(ListOf(_CTX), default=["cpu", "gpu"], doc="gpu = every GPU present"),
        "seq_len": Key(ListOf(Int(min=1)), default=[100]),
        "batch_size": Key(ListOf(Int(min=1)), default=[1, 32]),
        "hidden_dim": Key(ListOf(Int(min=1)), default=[512]),
        "is_train": Key(ListOf(Bool()), default=[True, False]),
        "hybridize_cell": Key(ListOf(Bool()), default=[False, True]),
        "hybridize_layer": Key(ListOf(Bool()), default=[False, True]),
    })),
    "rounds": Key(Struct({
        "warmup": Key(Int(min=0), default=20),
        "test": Key(OrAuto(Int(min=1)), default=100,
                    doc="timed rounds, or auto: as many as fit in budget_s (at least 5)"),
        "budget_s": Key(Number(0, strict=True), default=1.0,
                        doc="with test: auto, the timed seconds per case"),
    })),
    "seed": Key(Int(min=0), default=0),
    "output": Key(Nullable(Str()), default=None, doc="JSON lines file, relative to the cwd"),
    "baseline": Key(Nullable(Enum("numpy")), default=None),
    "format": Key(Enum("text", "markdown", "csv", "html"), default="text"),
    "executor": _EXECUTOR,
})

_SWEEP = Sweep(fixed=("kind", "extends", "executor", "sweep", "output", "params_file"))

TRAIN_SCHEMA = Struct({
    "kind": Key(Enum("train"), required=True),
    "extends": _EXTENDS,
    "task": Key(Enum("adding", "charlm"), required=True),
    "model": Key(Struct({
        "cell": Key(Enum(*CELLS), default="LSTMCell"),
        "loop": Key(Enum("foreach", "while_loop", "unrolled"), default="foreach"),
        "hidden_size": Key(Int(min=1), default=64),
        "num_layers": Key(Int(min=1), default=1),
        "embed_size": Key(Int(min=1), default=32, doc="charlm only"),
        "hybridize_cell": Key(Bool(), default=False),
        "hybridize_layer": Key(Bool(), default=True),
    })),
    "adding": Key(Struct({
        "seq_len": Key(Int(min=2), default=50),
        "train_size": Key(Int(min=1), default=2000),
        "valid_size": Key(Int(min=1), default=500),
    })),
    "charlm": Key(Struct({
        "seq_len": Key(Int(min=2), default=64),
        "max_bytes": Key(Int(min=1000), default=300_000),
        "valid_fraction": Key(Number(0, strict=True, max=1), default=0.1),
        "max_batches": Key(Nullable(Int(min=1)), default=None, doc="cap per epoch"),
    })),
    "optimizer": Key(Struct({
        "name": Key(Enum("sgd", "adam"), default="adam"),
        "lr": Key(Number(0, strict=True), default=0.001),
        "momentum": Key(Number(0, max=1), default=0.0, doc="sgd only"),
        "wd": Key(Number(0), default=0.0),
        "clip_norm": Key(Nullable(Number(0, strict=True)), default=None),
    })),
    "epochs": Key(Int(min=1), default=10),
    "batch_size": Key(Int(min=1), default=32),
    "seed": Key(Int(min=0), default=0),
    "ctx": Key(_CTX, default="cpu"),
    "output": Key(Nullable(Str()), default=None, doc="metrics JSON lines file"),
    "params_file": Key(Nullable(Str()), default=None, doc="default: output with .params"),
    "target": Key(Nullable(Number()), default=None, doc="pass if the judged metric <= target"),
    "executor": _EXECUTOR,
    "sweep": Key(Nullable(_SWEEP), default=None,
                 doc="key path -> list of values; one run per combination"),
})
_SWEEP.struct = TRAIN_SCHEMA  # its paths lead into the schema that holds it

SCHEMAS = {"bench": BENCH_SCHEMA, "train": TRAIN_SCHEMA}


@dataclass
class Recipe:
    """A validated recipe.

    Attributes:
        file: path of the recipe file given (None for a recipe built from flags only).
        name: file stem ('quick' for recipes/quick.yaml), or 'cli'.
        kind: 'bench' or 'train'.
        data: the merged, validated dict with every default filled in.
        chain: the files read, child first.

    Example::

        from gluonlite.bench.recipe import from_data
        r = from_data({'benchmark': 'foreach', 'matrix': {'seq_len': 2}})
        print(r.kind, r.name, r.data['matrix']['seq_len'])  # bench cli [2]
    """

    file: str
    name: str
    kind: str
    data: dict
    chain: list = field(default_factory=list)


def deep_merge(base, over):
    """Merge `over` into a copy of `base`: dicts key by key, everything else replaced.

    Example:
        >>> deep_merge({'a': {'x': 1, 'y': 2}}, {'a': {'y': 3}})
        {'a': {'x': 1, 'y': 3}}
    """
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(out.get(k), dict) and isinstance(v, dict):
            out[k] = deep_merge(out[k], v)
        else:
            out[k] = copy.deepcopy(v)
    return out


def _read_yaml(path):
    """Parse one file; return (data dict, {key path: line}). Raises RecipeError."""
    try:
        if os.path.getsize(path) > MAX_RECIPE_BYTES:
            raise RecipeError(f"file is larger than {MAX_RECIPE_BYTES} bytes; "
                              "expected a small YAML recipe", None, path)
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise RecipeError(f"cannot read recipe: {e.strerror or e}", None, path) from None
    except UnicodeDecodeError as e:
        raise RecipeError(f"expected UTF-8 text, got a byte 0x{e.object[e.start]:02x} "
                          f"at offset {e.start}", None, path) from None
    try:  # the reader refuses control characters as soon as it is made
        loader = yaml.SafeLoader(text)
    except yaml.YAMLError as e:
        at = getattr(e, "position", None)
        raise RecipeError(f"invalid YAML: {str(e).splitlines()[0]}"
                          + (f" (character {at})" if at is not None else ""), None,
                          path) from None
    try:
        try:
            node = loader.get_single_node()
        except RecursionError:
            raise RecipeError(f"nested too deeply for a recipe: expected at most "
                              f"{MAX_RECIPE_DEPTH} levels of mappings and lists", None, path,
                              loader.get_mark().line + 1) from None
        lines = {}
        if node is not None:
            _check_size(node)
            _walk(node, (), lines, loader)
        data = loader.construct_document(node) if node is not None else None
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None) or getattr(e, "context_mark", None)
        problem = getattr(e, "problem", None) or str(e).splitlines()[0]
        raise RecipeError(f"invalid YAML: {problem}", None, path,
                          mark.line + 1 if mark else None) from None
    except RecipeError as e:
        e.file = path
        raise
    finally:
        loader.dispose()
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise RecipeError(f"expected a mapping of recipe keys, got {type(data).__name__}",
                          (), path, 1)
    return data, lines


def _check_size(root):
    """RecipeError when the node tree, with every alias expanded, is deeper than
    MAX_RECIPE_DEPTH or holds more than MAX_RECIPE_VALUES values. Each distinct node is
    visited once (an alias reuses its node), so a bomb costs its size in bytes, not its
    expansion."""
    order, seen, stack = [], set(), [(root, 1)]
    while stack:  # iterative: the depth is what is being checked
        node, depth = stack.pop()
        if depth > MAX_RECIPE_DEPTH:
            raise RecipeError(f"nested too deeply for a recipe: expected at most "
                              f"{MAX_RECIPE_DEPTH} levels of mappings and lists",
                              line=node.start_mark.line + 1)
        if id(node) in seen:
            continue
        seen.add(id(node))
        order.append(node)
        stack.extend((c, depth + 1) for c in _children(node))
    size = {}
    for node in reversed(order):  # children before parents
        size[id(node)] = 1 + sum(size.get(id(c), 1) for c in _children(node))
        if size[id(node)] > MAX_RECIPE_VALUES:
            raise RecipeError(f"expands to more than {MAX_RECIPE_VALUES} values through YAML "
                              "aliases (&name / *name): expected a small recipe",
                              line=node.start_mark.line + 1)


def _children(node):
    if isinstance(node, yaml.MappingNode):
        return [n for pair in node.value for n in pair]
    if isinstance(node, yaml.SequenceNode):
        return node.value
    return []


def _walk(node, path, lines, loader):
    """Record the line of every key path; reject duplicate keys (YAML keeps the last)."""
    if isinstance(node, yaml.MappingNode):
        seen = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                if key in seen:
                    raise RecipeError(f"duplicate key (first at line {seen[key]}); "
                                      "expected each key once", path + (key,), line=line)
                seen[key] = line
            except TypeError:  # unhashable key: the constructor reports it
                continue
            lines[path + (key,)] = line
            _walk(value_node, path + (key,), lines, loader)
    elif isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            lines[path + (i,)] = item.start_mark.line + 1
            _walk(item, path + (i,), lines, loader)


def _line_of(lines, path):
    """The line of `path` or of its nearest ancestor that has one."""
    path = tuple(path or ())
    while path:
        if path in lines:
            return lines[path]
        path = path[:-1]
    return None


def _located(err, file, lines):
    err.file = err.file or file
    if err.line is None:
        err.line = _line_of(lines, err.path)
    return err


def _load_chain(path):
    """[(file, data, lines)] from the given file up its extends chain (child first)."""
    chain, seen = [], []
    file = path
    while True:
        real = os.path.realpath(file)
        if real in seen:
            cycle = " -> ".join(seen[seen.index(real):] + [real])
            raise RecipeError(f"expected a chain of recipes without a cycle, got {cycle}",
                              ("extends",), chain[-1][0], _line_of(chain[-1][2], ("extends",)))
        seen.append(real)
        data, lines = _read_yaml(file)
        chain.append((file, data, lines))
        parent = data.get("extends")
        if parent is None:
            return chain
        try:
            Str().check(parent, ("extends",))
        except RecipeError as e:
            raise _located(e, file, lines) from None
        resolved = os.path.join(os.path.dirname(file), os.path.expanduser(parent))
        if not os.path.isfile(resolved):
            raise RecipeError(f"expected an existing recipe file, got {parent!r} "
                              f"(no file at {os.path.normpath(resolved)})",
                              ("extends",), file, _line_of(lines, ("extends",)))
        file = os.path.normpath(resolved)


def _kind_of(chain):
    for file, data, lines in chain:
        if "kind" in data:
            try:
                return Enum("bench", "train").check(data["kind"], ("kind",))
            except RecipeError as e:
                raise _located(e, file, lines) from None
    return "bench"


def recipe_kind(path):
    r"""The kind ('bench' or 'train') of a recipe file, following `extends`.

    Args:
        path: the recipe file (YAML).

    Returns:
        'bench' or 'train'.

    Raises:
        RecipeError: as `load_recipe`, for problems found on the way.

    Example::

        from gluonlite.bench.recipe import recipe_kind
        with open('base.yaml', 'w') as f:
            f.write('kind: train\n')
        with open('child.yaml', 'w') as f:
            f.write('extends: base.yaml\n')
        print(recipe_kind('child.yaml'))  # train
    """
    return _kind_of(_load_chain(path))


def load_recipe(path, overrides=None):
    r"""Load, merge and validate a recipe file.

    Args:
        path: the recipe file.
        overrides: dict deep-merged over the file (e.g. from command-line flags),
            validated with it.

    Returns:
        Recipe.

    Raises:
        RecipeError: unreadable file, YAML syntax error, unknown key, wrong type or
            value, missing or cyclic `extends`; its str() is one line naming the
            file, line, key path and what was expected.

    Example::

        from gluonlite.bench import load_recipe
        with open('tiny.yaml', 'w') as f:
            f.write('benchmark: foreach\nmatrix: {cell: RNNCell, seq_len: 2}\n')
        r = load_recipe('tiny.yaml', overrides={'matrix': {'batch_size': 1}})
        m = r.data['matrix']
        print(r.name, m['cell'], m['batch_size'])  # tiny ['RNNCell'] [1]
    """
    chain = _load_chain(path)
    kind = _kind_of(chain)
    schema = SCHEMAS[kind]
    merged = {}
    for file, data, lines in reversed(chain):
        try:
            schema.check(data, (), partial=True)
        except RecipeError as e:
            raise _located(e, file, lines) from None
        merged = deep_merge(merged, data)
    merged["extends"] = None  # resolved; the chain is kept on the Recipe
    if kind == "train":
        merged["kind"] = "train"
    name = os.path.splitext(os.path.basename(path))[0]
    recipe = from_data(merged, overrides, file=path, name=name, lines=chain[0][2])
    recipe.chain = [c[0] for c in chain]
    return recipe


def from_data(data, overrides=None, *, file=None, name="cli", lines=None):
    """Validate a recipe given as a dict (no file); fills defaults.

    Args:
        data: recipe dict (without `extends`).
        overrides: dict deep-merged over `data` first.
        file: default None: the file name reported in errors and kept on the Recipe.
        name: default 'cli': the recipe's name, kept on the Recipe (it names the default
            output files).
        lines: optional {key path: line} for error messages.

    Returns:
        Recipe.

    Raises:
        RecipeError: as `load_recipe`.

    Example:
        >>> from_data({'benchmark': 'foreach'}).data['rounds']
        {'warmup': 20, 'test': 100, 'budget_s': 1.0}
    """
    merged = deep_merge(data, overrides or {})
    kind = merged.get("kind", "bench")
    try:
        kind = Enum("bench", "train").check(kind, ("kind",))
        checked = SCHEMAS[kind].check(merged, ())
    except RecipeError as e:
        raise _located(e, file or "<command line>", lines or {}) from None
    return Recipe(file=file, name=name, kind=kind, data=checked, chain=[file] if file else [])
