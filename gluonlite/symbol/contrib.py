"""`sym.contrib`: symbolic control flow (defined in gluonlite.control_flow)."""


def __getattr__(name):
    # The control-flow layer sits above the compiler; import it on first use.
    from ..control_flow import symbolic
    try:
        return getattr(symbolic, name)
    except AttributeError:
        raise AttributeError(f"sym.contrib has no attribute {name!r}") from None
