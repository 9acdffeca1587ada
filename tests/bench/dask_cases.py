"""Stand-ins for runner.run_case that the Dask tests send to workers (imported there by
module name): one that ends its own worker process, one that never finishes."""
import os
import time

from gluonlite.bench import runner


def _marked(case):
    """The one case of a tiny matrix the stand-ins pick on."""
    return case["impl"] == "gluonlite" and case["cell"] == "LSTMCell" and case["is_train"] \
        and case["hybridize_layer"]


def crash_case(case, warmup, test, seed=0, progress=None):
    """Runs the case, except the marked one, whose worker process dies every time."""
    if _marked(case):
        os._exit(3)
    return runner.run_case(case, warmup, test, seed, progress)


def crash_once_case(case, warmup, test, seed=0, progress=None):
    """As crash_case, but the marked case kills its worker only the first time (a file
    in $GLUONLITE_TEST_MARKS remembers)."""
    mark = os.path.join(os.environ["GLUONLITE_TEST_MARKS"], "crashed")
    if _marked(case) and not os.path.exists(mark):
        open(mark, "w").close()
        os._exit(3)
    return runner.run_case(case, warmup, test, seed, progress)


def stuck_case(case, warmup, test, seed=0, progress=None):
    """Runs the case, except the marked one, which never ends (until cancelled)."""
    if _marked(case):
        time.sleep(3600)
    return runner.run_case(case, warmup, test, seed, progress)
