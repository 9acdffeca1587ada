"""`mx.registry`: per-base-class registries of named subclasses, as MXNet 1.x keeps them.

A library registers its classes under a nickname and creates them by name later; GluonNLP's
datasets, token embeddings and subword functions use it::

    class Embedding: ...
    register = registry.get_register_func(Embedding, "embedding")
    create = registry.get_create_func(Embedding, "embedding")

    @register
    class GloVe(Embedding):
        def __init__(self, dim=50): self.dim = dim

    create("glove", dim=100).dim       # 100 (names are case-insensitive)

Each base class has its own table; ``get_registry(base)`` returns a copy of it.
"""
import json
import warnings

from .base import string_types

__all__ = ["get_registry", "get_register_func", "get_alias_func", "get_create_func"]

# base class -> {lower-case name: class}
_REGISTRIES = {}


def _table(base_class):
    return _REGISTRIES.setdefault(base_class, {})


def get_registry(base_class):
    """A copy of the name -> class table registered for `base_class`.

    Args:
        base_class: the class whose subclasses were registered.

    Returns:
        dict: lower-case registered names to classes (empty when nothing was registered).

    Example::

        class Base:
            pass
        register = mx.registry.get_register_func(Base, 'base')
        @register
        class Foo(Base):
            pass
        list(mx.registry.get_registry(Base))   # ['foo']
    """
    return dict(_table(base_class))


def get_register_func(base_class, nickname):
    """A decorator that registers subclasses of `base_class` by name.

    Args:
        base_class: the base class of the registry.
        nickname (str): what the registry holds, for messages ('optimizer').

    Returns:
        ``register(klass, name=None)``: records ``klass`` under ``name`` (default its class
        name), lower-cased, and returns ``klass``. Registering a different class under a name
        already taken warns and replaces it.

    Raises:
        TypeError: (from ``register``) ``klass`` is not a subclass of `base_class`.

    Example::

        from gluonlite.registry import get_register_func, get_registry
        class Shape:
            pass
        register = get_register_func(Shape, "shape")
        class Square(Shape):
            pass
        register(Square)                  # or @register above the class
        sorted(get_registry(Shape))       # ['square']
    """
    table = _table(base_class)

    def register(klass, name=None):
        if not (isinstance(klass, type) and issubclass(klass, base_class)):
            raise TypeError(f"register {nickname}: {klass!r} is not a subclass of "
                            f"{base_class.__name__}; only its subclasses can be registered")
        key = (klass.__name__ if name is None else name).lower()
        if key in table and table[key] is not klass:
            warnings.warn(f"new {nickname} {klass.__module__}.{klass.__name__} registered "
                          f"with name {key!r} is overriding existing {nickname} "
                          f"{table[key].__module__}.{table[key].__name__}", UserWarning,
                          stacklevel=2)
        table[key] = klass
        return klass

    register.__doc__ = f"Register a {nickname} class under a name (default: its class name)."
    return register


def get_alias_func(base_class, nickname):
    """A decorator factory that registers a subclass of `base_class` under extra names.

    Args:
        base_class: the base class of the registry.
        nickname (str): what the registry holds, for messages.

    Returns:
        ``alias(*names)``: a class decorator registering the class under every name.

    Example::

        from gluonlite.registry import get_alias_func, get_register_func, get_registry
        class Fill:
            pass
        alias = get_alias_func(Fill, "fill")
        @alias("nothing")
        class Zero(Fill):
            pass
        get_register_func(Fill, "fill")(Zero)
        sorted(get_registry(Fill))        # ['nothing', 'zero']
    """
    register = get_register_func(base_class, nickname)

    def alias(*aliases):
        def reg(klass):
            for name in aliases:
                register(klass, name)
            return klass
        return reg

    return alias


def get_create_func(base_class, nickname):
    """A function that makes an instance of a registered subclass from its name.

    Args:
        base_class: the base class of the registry.
        nickname (str): what the registry holds; also the keyword the created function takes
            for the name (``create(optimizer='sgd')``).

    Returns:
        ``create(*args, **kwargs)``: the first argument (or the `nickname` keyword) is an
        instance of `base_class` (returned as is), a registered name (case-insensitive), a
        JSON string ``'["name", {kwargs}]'`` or ``'{"name": ..., ...}'``, or a dict; the other
        arguments go to the class's constructor.

    Raises:
        ValueError: (from ``create``) the name is not registered; the message lists the
            registered names.
        TypeError: (from ``create``) no name was given.

    Example::

        from gluonlite.registry import get_create_func, get_register_func
        class Step:
            def __init__(self, size=1.0):
                self.size = size
        @get_register_func(Step, "step")
        class Half(Step):
            pass
        create = get_create_func(Step, "step")
        create("half", size=0.5).size      # 0.5
    """
    table = _table(base_class)

    def create(*args, **kwargs):
        if args:
            name, args = args[0], args[1:]
        elif nickname in kwargs:
            name = kwargs.pop(nickname)
        else:
            raise TypeError(f"create {nickname}: give the {nickname}'s name as the first "
                            f"argument or as {nickname}=...")
        if isinstance(name, base_class):
            if args or kwargs:
                raise TypeError(f"create {nickname}: {name!r} is already an instance; "
                                "it takes no more arguments")
            return name
        if isinstance(name, dict):
            return create(**name)
        if not isinstance(name, string_types):
            raise TypeError(f"create {nickname}: expected a name (str), a dict or a "
                            f"{base_class.__name__}, got {type(name).__name__}")
        if name.startswith("["):
            if args or kwargs:
                raise TypeError(f"create {nickname}: a JSON spec {name!r} takes no more "
                                "arguments")
            name, kwargs = json.loads(name)
            return create(name, **kwargs)
        if name.startswith("{"):
            if args or kwargs:
                raise TypeError(f"create {nickname}: a JSON spec {name!r} takes no more "
                                "arguments")
            return create(**json.loads(name))
        key = name.lower()
        if key not in table:
            raise ValueError(f"create {nickname}: {name!r} is not registered; registered: "
                             f"{sorted(table)}")
        return table[key](*args, **kwargs)

    create.__doc__ = f"Create a {nickname} instance from its name and constructor arguments."
    return create
