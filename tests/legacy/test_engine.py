"""`mx.engine`: the bulk size is kept and returned as MXNet 1.9.1 returns it (starting at 0);
bulking changes no result."""
import pytest

import gluonlite as mx


def test_set_bulk_size_returns_the_previous_size():
    assert mx.engine.set_bulk_size(10) == 0
    assert mx.engine.set_bulk_size(3) == 10
    assert mx.engine.set_bulk_size(0) == 3


def test_bulk_scope_restores_and_results_are_unchanged():
    with mx.engine.bulk(10) as scope:
        assert scope is not None
        x = mx.nd.ones((10,))
        x *= 2
        x += 1
        for _ in range(100):
            x += 1
        assert mx.engine.set_bulk_size(10) == 10
    assert mx.engine.set_bulk_size(0) == 0
    assert (x.asnumpy() == 103).all()


@pytest.mark.parametrize("size, exc, msg", [(2.5, TypeError, "must be an integer, got float"),
                                            ("4", TypeError, "got str"),
                                            (-1, ValueError, "must be >= 0, got -1")])
def test_bad_size(size, exc, msg):
    with pytest.raises(exc, match=msg):
        mx.engine.set_bulk_size(size)
