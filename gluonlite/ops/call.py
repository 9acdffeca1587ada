"""Binding a call's arguments to an operator's inputs and attributes, shared by `nd` and `sym`
so both namespaces accept the same spellings as MXNet's generated functions::

    nd.FullyConnected(x, w, b, num_hidden=4)      # inputs by position, attributes by name
    nd.FullyConnected(x, w, b, 4)                 # past the inputs, positions bind attributes
    sym.FullyConnected(data=x, num_hidden=4)      # inputs by name
    nd.clip(x, 0, 1); x.sum(0)                    # clip(data, a_min, a_max); sum(data, axis)
"""
import inspect

from . import arg_docs, examples, registry

__all__ = ["bind_call", "split_positional", "name_generated", "populate"]


def split_positional(op, args, is_input):
    """Split positional arguments of a fixed-input operator into (inputs, attrs).

    MXNet's signature is every possible input (``op.signature``) followed by the attributes in
    declaration order, so ``args[:len(signature)]`` are inputs (None meaning "not given") and
    the rest bind attributes in order.

    Args:
        op: the registry entry called.
        args: the positional arguments.
        is_input: ``is_input(value)`` -> whether a value is an array of the front end (an
            NDArray for nd, a Symbol for sym).

    Returns:
        ``(inputs, attrs)``: {input name: array} and {attribute name: value}.

    Raises:
        TypeError: an array where an attribute is expected, a non-array in an input slot, or
            more positional arguments than the signature has.

    Example::

        from gluonlite.ops.call import split_positional
        x = nd.ones((2,))
        split_positional(mx.ops.get("clip"), (x, 0, 1), lambda a: isinstance(a, nd.NDArray))
        # ({'data': x}, {'a_min': 0, 'a_max': 1})
    """
    sig = op.signature
    inputs, attrs = {}, {}
    for n, a in zip(sig, args):
        if a is None:
            continue
        if not is_input(a):
            raise TypeError(f"{op.name}: input {n!r} must be an array, got {type(a).__name__} "
                            f"(inputs are {', '.join(sig) or 'none'})")
        inputs[n] = a
    rest = args[len(sig):]
    if rest:
        names = list(op.attrs)
        if len(rest) > len(names):
            raise TypeError(f"{op.name}: takes at most {len(sig) + len(names)} positional "
                            f"argument(s) ({', '.join((*sig, *names))}), got {len(args)}")
        for n, a in zip(names, rest):
            if is_input(a):
                raise TypeError(f"{op.name}: positional argument {len(sig) + names.index(n)} "
                                f"binds attribute {n!r} but is an array; inputs are "
                                f"{', '.join(sig) or 'none'}")
            attrs[n] = a
    return inputs, attrs


def bind_call(op, args, kwargs, is_input):
    """Split a call into (inputs, attrs).

    Args:
        op: the `Operator`.
        args: positional arguments: inputs in `op.signature` order, then attributes in
            declaration order (every positional argument is an input for variadic operators).
        kwargs: keyword arguments; those named like an input are inputs, the rest attributes.
        is_input: predicate telling an array/symbol from an attribute value.

    Returns:
        (inputs, attrs): `inputs` is a dict name -> value (missing inputs absent) for fixed
        operators or a list for variadic ones; `attrs` the remaining keywords.

    Raises:
        TypeError: too many positional arguments, a non-array input, or an argument given
            both by position and by name.

    Example::

        from gluonlite.ops.call import bind_call
        x = nd.ones((2,))
        is_nd = lambda a: isinstance(a, nd.NDArray)
        bind_call(mx.ops.get("clip"), (x, 0, 1), {}, is_nd)
        # ({'data': x}, {'a_min': 0, 'a_max': 1})
    """
    if op.variadic:
        for i, a in enumerate(args):
            if not is_input(a):
                raise TypeError(f"{op.name}: every positional argument must be an array, got "
                                f"{type(a).__name__} at position {i}")
        attrs = dict(kwargs)
        attrs.setdefault(op.variadic, len(args))
        return list(args), attrs
    inputs, attrs = split_positional(op, args, is_input)
    sig = op.signature
    for k, v in kwargs.items():
        if k in sig or (k not in op.attrs and is_input(v)):
            if v is None:
                continue
            if k in inputs:
                raise TypeError(f"{op.name}: input {k!r} given twice")
            inputs[k] = v
        else:
            if k in attrs:
                raise TypeError(f"{op.name}: argument {k!r} given twice (by position and by name)")
            attrs[k] = v
    return inputs, attrs


def name_generated(f, op, public_name, front):
    """Give a generated `front` ('nd' or 'sym') function `f` the name `public_name`, the
    signature of `op`'s arguments (`gluonlite.ops.arg_docs.signature`) and `op`'s
    docstring with its ``Args:``/``Returns:``/``Raises:`` sections
    (`gluonlite.ops.arg_docs.sections`), followed by the operator's ``Example::`` section
    when `gluonlite.ops.examples` has one; returns `f`.

    Args:
        f: the generated function.
        op: its registry entry (a `gluonlite.ops.registry.Operator`).
        public_name: the name it is called by (``Convolution``, ``box_nms``).
        front: 'nd' or 'sym'.

    Returns:
        `f`, named and documented.

    Example::

        from gluonlite.ops import registry
        from gluonlite.ops.call import name_generated
        f = name_generated(lambda *a, **k: None, registry.get("clip"), "clip", "nd")
        f.__name__, "Args:" in f.__doc__         # ('clip', True)
    """
    f.__name__ = public_name
    f.__qualname__ = public_name
    doc = inspect.cleandoc(op.__doc__ or "")
    args = arg_docs.sections(op, front, public_name)
    raises = doc.find("\nRaises:")
    if raises >= 0:  # the operator's own Raises section goes after Args and Returns
        doc = doc[:raises].rstrip() + "\n\n" + args + "\n" + doc[raises:]
    else:
        doc = doc + "\n\n" + args
    section = examples.example(public_name, front, op.name)
    if section:
        doc += "\n\n" + section
    f.__doc__ = doc
    f.__signature__ = arg_docs.signature(op, front)
    return f


def populate(namespace, cache, make_function):
    """Add ``make_function(op, name)`` for every registered operator name to `namespace` (a
    module dict), keeping names it already has; generated functions are kept in `cache`
    (name -> function) and reused.

    Example::

        from gluonlite.ops.call import populate
        ns, cache = {}, {}
        populate(ns, cache, lambda op, name: f"function for {op.name}")
        ns["exp"]           # 'function for exp'
    """
    for n in registry.names():
        f = cache.get(n) or make_function(registry.get(n), n)
        cache[n] = f
        namespace.setdefault(n, f)

