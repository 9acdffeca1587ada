"""float32 exp and log give the C library's values, as MXNet's CPU kernels do (`ops/libm32.py`:
glibc's bit for bit; the correctly rounded value where no glibc is found), in plans too;
numpy's own float32 kernels are up to 1 ulp away for a third of all inputs."""
import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd
from gluonlite.ops import libm32


@pytest.mark.parametrize("name", ["exp", "log"])
def test_float32_exp_and_log_are_the_c_librarys(name):
    x = np.abs(np.random.RandomState(0).normal(size=4096)).astype(np.float32) + 0.01
    want = getattr(libm32, name + "f")(x)
    rounded = getattr(np, name)(x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_max_ulp(want, rounded, maxulp=1)
    assert (want == rounded).mean() > 0.99
    assert (np.asarray(getattr(np, name)(x)) != want).mean() > 0.05   # numpy's float32
    np.testing.assert_array_equal(getattr(nd, name)(nd.array(x)).asnumpy(), want)
    s = getattr(mx.sym, name)(mx.sym.var("x"))
    for static in (False, True):  # a plain plan, and one writing into its buffers
        block = mx.gluon.SymbolBlock(s, [mx.sym.var("x")])
        block.hybridize(static_alloc=static)
        np.testing.assert_array_equal(block(nd.array(x)).asnumpy(), want)


def test_exp_of_one_is_mxnets_value():
    assert nd.exp(nd.ones((1,))).asscalar() == np.float32(2.7182817)
