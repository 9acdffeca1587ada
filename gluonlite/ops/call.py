"""Binding a call's arguments to an operator's inputs and attributes, shared by `nd` and `sym`
so both namespaces accept the same spellings (``nd.FullyConnected(x, w, b, num_hidden=4)`` and
``sym.FullyConnected(data=x, num_hidden=4)``)."""


def bind_call(op, args, kwargs, is_input):
    """Split a call into (inputs, attrs).

    Args:
        op: the `Operator`.
        args: positional arguments; inputs in order (every one, for variadic operators).
        kwargs: keyword arguments; those named like an input are inputs, the rest attributes.
        is_input: predicate telling an array/symbol from an attribute value.

    Returns:
        (inputs, attrs): `inputs` is a dict name -> value (missing inputs absent) for fixed
        operators or a list for variadic ones; `attrs` the remaining keywords.

    Raises:
        TypeError: too many positional inputs, or an input given twice.
    """
    attrs = dict(kwargs)
    if op.variadic:
        inputs = list(args)
        for a in args:
            if not is_input(a):
                raise TypeError(f"{op.name}: every positional argument must be an array, got "
                                f"{type(a).__name__}")
        attrs.setdefault(op.variadic, len(inputs))
        return inputs, attrs
    p_guess = _params_for_names(op, attrs)
    names = op.input_names(p_guess)
    if len(args) > len(names):
        raise TypeError(f"{op.name}: takes at most {len(names)} array argument(s) "
                        f"({', '.join(names)}), got {len(args)}")
    inputs = {}
    for n, a in zip(names, args):
        inputs[n] = a
    for n in list(attrs):
        if n in names or (n not in op.attrs and is_input(attrs[n])):
            if n in inputs:
                raise TypeError(f"{op.name}: input {n!r} given twice")
            inputs[n] = attrs.pop(n)
    return inputs, attrs


def _params_for_names(op, attrs):
    """Params good enough to list input names (they may depend on e.g. no_bias)."""
    try:
        return op.parse({k: v for k, v in attrs.items() if k in op.attrs})[0]
    except TypeError:  # a required attribute is missing: names from the defaults we have
        from .registry import Params
        p = Params({k: s.default for k, s in op.attrs.items()})
        for k, v in attrs.items():
            if k in op.attrs:
                p[k] = op.attrs[k].parse(v)
        return p
