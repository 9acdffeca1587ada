"""Every test here runs under NumPy semantics (`npx.set_np()`), restored afterwards, unless it
asks for the legacy mode with the `legacy` fixture."""
import pytest

import gluonlite as mx


@pytest.fixture(autouse=True)
def np_semantics(request):
    if "legacy" in request.fixturenames:
        yield
        return
    mx.npx.set_np()
    try:
        yield
    finally:
        mx.npx.reset_np()


@pytest.fixture
def legacy():
    """Run the test outside NumPy semantics (the switches off)."""
    mx.npx.reset_np()
    yield
