"""`nd.contrib`: imperative control flow (defined in gluonlite.control_flow)."""


def __getattr__(name):
    # The control-flow layer sits above the compiler; import it on first use.
    from ..control_flow import imperative
    try:
        return getattr(imperative, name)
    except AttributeError:
        pass
    # MXNet's contrib operators are registered as ``_contrib_<name>``
    from .. import ndarray
    f = getattr(ndarray, f"_contrib_{name}", None)
    if f is None:
        raise AttributeError(f"nd.contrib has no attribute {name!r}")
    return f
