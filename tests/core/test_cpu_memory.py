"""gluonlite.cpu_memory: after `import gluonlite` a freed large array's memory is reused
without page faults (glibc's malloc keeps it), and GLUONLITE_KEEP_FREED_MEMORY=0 leaves
malloc as it was."""
import json
import os
import subprocess
import sys

import pytest

from gluonlite import cpu_memory

pytestmark = [
    pytest.mark.numpy_agnostic,
    pytest.mark.skipif(not cpu_memory._glibc(), reason="the settings are glibc's malloc's"),
]

# 64 MiB arrays: over glibc's largest adaptive mmap threshold (32 MiB), so by default each
# one is a fresh mapping whose pages fault on first touch (4 KiB or 2 MiB pages: >= 32).
_SCRIPT = """
import json, resource, numpy as np
import gluonlite
from gluonlite import cpu_memory
faults = []
for _ in range(4):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    a = np.ones(16 << 20, np.float32)
    faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    del a
print(json.dumps({"kept": cpu_memory.kept(), "again": cpu_memory.keep_freed_memory(),
                  "faults": faults}))
"""


def _run(env_value):
    env = dict(os.environ)
    env.pop("GLUONLITE_KEEP_FREED_MEMORY", None)
    if env_value is not None:
        env["GLUONLITE_KEEP_FREED_MEMORY"] = env_value
    out = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True,
                         text=True, timeout=120, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def test_freed_arrays_are_reused_without_page_faults_by_default():
    r = _run(None)
    assert r["kept"] is True and r["again"] is True
    # the first array faults its pages in; the next ones reuse them
    assert r["faults"][0] >= 32
    assert max(r["faults"][1:]) < 8, r


def test_env_var_zero_leaves_malloc_alone():
    r = _run("0")
    assert r["kept"] is False
    # every 64 MiB array is a new mapping, faulted in again
    assert min(r["faults"][1:]) >= 32, r
    # asked explicitly, the settings still apply
    assert r["again"] is True


# Three 768 MiB arrays (each under the 1 GiB mmap threshold, so from the heap): freed, they
# leave 2.25 GiB free at the top of the heap, more than any positive trim threshold mallopt
# takes (2 GiB), which glibc would give back to the kernel.
_SCRIPT_BIG = """
import json, resource, numpy as np
import gluonlite
faults = []
for _ in range(2):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    arrays = [np.ones(192 << 20, np.float32) for _ in range(3)]
    faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
    del arrays
print(json.dumps({"faults": faults}))
"""


def test_more_than_two_gib_freed_is_kept():
    env = dict(os.environ)
    env.pop("GLUONLITE_KEEP_FREED_MEMORY", None)
    out = subprocess.run([sys.executable, "-c", _SCRIPT_BIG], env=env, capture_output=True,
                         text=True, timeout=300, check=True).stdout
    faults = json.loads(out.strip().splitlines()[-1])["faults"]
    assert faults[0] >= 32 * 3
    # the second round reuses the first's pages (a trimmed heap would fault them all again)
    assert faults[1] < faults[0] // 20, faults
