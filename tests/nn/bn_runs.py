"""A BatchNorm-like layer run once for the tests: forward under autograd, backward, and what
it left in its moving statistics."""
from gluonlite import autograd, gluon, nd


def run_norm(build, arrays, gy, train, hybrid, dtype):
    """[y, dx, dgamma, dbeta, moving mean, moving var, gradients of the further inputs] of
    ``build(F, x, gamma, beta, mean, var, *more)`` on `arrays` (x, gamma, beta, moving mean,
    moving var, then any further inputs), the head gradient `gy`, recorded in training mode
    or not, hybridized with static_alloc or not, in `dtype`."""
    net = gluon.nn.HybridLambda(build)
    if hybrid:
        net.hybridize(static_alloc=True)
    arrs = [nd.array(a, dtype=dtype) for a in arrays]
    learned = arrs[:3] + arrs[5:]
    for a in learned:
        a.attach_grad()
    with autograd.record(train_mode=train):
        y = net(*arrs)
    y.backward(nd.array(gy, dtype=dtype))
    return [y.asnumpy()] + [a.grad.asnumpy() for a in arrs[:3]] + \
        [arrs[3].asnumpy(), arrs[4].asnumpy()] + [a.grad.asnumpy() for a in arrs[5:]]
