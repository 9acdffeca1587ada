"""`nd.contrib`: imperative control flow (defined in gluonlite.control_flow)."""


def __getattr__(name):
    # The control-flow layer sits above the compiler; import it on first use.
    from ..control_flow import imperative
    try:
        return getattr(imperative, name)
    except AttributeError:
        raise AttributeError(f"nd.contrib has no attribute {name!r}") from None
