"""Where a run's tasks execute: here, one after another, or on a Dask distributed cluster.

Both executors take a list of `Task`s and yield one `Outcome` per task as it finishes;
the runner (cli.run_bench, sweep.run_sweep) is the only one that prints or writes files.
A task's function runs as `fn(*args, progress=None)` and must be a module-level function
(Dask pickles it by reference and imports it on the worker).

Dask rules: a timing task needs the worker resource `bench` (one unit per host, so two
timings never share a host) unless the executor was made with `share_host=True`; a gpu
task also needs `gpu` (as many units as the device index + 1, so a case on gpu(1) goes to
a worker with at least two GPUs); other tasks (training runs) go to any worker. An embedded
LocalCluster gives `bench=1` (and `gpu=N` when GPUs are present) to its first worker only,
and lets a task whose worker died run once more before it counts as failed.

Example:
    >>> def square(x, progress=None):
    ...     return x * x
    >>> [o.value for o in LocalExecutor().run([Task("a", square, (3,))])]
    [9]
"""
import contextlib
import copy
import logging
import os
import signal
import threading
import time
import warnings
from collections import deque
from dataclasses import dataclass

from .handshake import CONNECT_TIMEOUT_S, ExecutorError, identify, read_greeting
from . import runner

__all__ = ["Task", "Outcome", "ExecutorError", "LocalExecutor", "DaskExecutor",
           "make_executor", "CONNECT_TIMEOUT_S"]

START_TIMEOUT_S = 120
POLL_S = 0.1
EXTRA_HINT = "pip install 'gluonlite[dask]'"


@dataclass
class Task:
    """One unit of work.

    Attributes:
        key: what the caller uses to recognise the task (a case key, a run tag).
        fn: module-level callable run as fn(*args, progress=None).
        args: its positional arguments (picklable for Dask).
        timing: a timing case, which must have its host to itself.
        gpu: GPUs the worker must have (0: none; gpu(i) needs i + 1).
        label: a short name for messages and Dask's task key.

    Example::

        from gluonlite.bench.executors import Task
        def double(x, progress=None):
            return 2 * x
        task = Task(key='a', fn=double, args=(4,), label='double 4')
        print(task.fn(*task.args), task.timing, task.gpu)  # 8 False 0
    """

    key: object
    fn: object
    args: tuple
    timing: bool = False
    gpu: int = 0
    label: str = ""


@dataclass
class Outcome:
    """A finished task: its value, or the exception it ended with (error is None if fine).

    Args:
        task: the `Task` that ran.
        value: default None: what the task returned.
        error: default None: the exception it raised, or None.

    Example::

        from gluonlite.bench.executors import LocalExecutor, Task
        def fail(progress=None):
            raise ValueError('no')
        outcome = next(LocalExecutor().run([Task('f', fail, ())]))
        print(outcome.value, repr(outcome.error))  # None ValueError('no')
    """

    task: Task
    value: object = None
    error: BaseException = None


class _Executor:
    """What every executor shares: a context manager that calls `close`.

    Attributes:
        workers: workers that can run a task.
        records_failures: whether a failed case is also written to the results file
            (where a worker may die, so that --resume runs it again).
        runs_here: whether tasks run on this machine (its memory bounds them).
    """

    workers = 1
    records_failures = False
    runs_here = True

    def busy(self):
        """Workers running a task now: None (the local bar shows no count)."""
        return None

    def close(self):
        """Nothing to release."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class LocalExecutor(_Executor):
    """Runs tasks in this process, in order. `started(task)` is called before each one and
    may return a progress callable, passed to the task as `progress=`.

    Example::

        from gluonlite.bench.executors import LocalExecutor, Task
        def square(x, progress=None):
            return x * x
        with LocalExecutor() as ex:
            print([o.value for o in ex.run([Task(i, square, (i,)) for i in range(3)])])  # [0, 1, 4]
    """

    def gpus(self):
        """(count, reason) of GPUs usable here (reason None when count > 0).

        Example::

            from gluonlite.bench.executors import LocalExecutor
            count, reason = LocalExecutor().gpus()
            print(count >= 0, (reason is None) == (count > 0))  # True True
        """
        return runner.detect_gpus()

    def run(self, tasks, started=None):
        """Yield an Outcome per task, in the order given.

        Args:
            tasks: the `Task` list to run, one after the other in this process.
            started: default None: ``started(task)`` called as each task starts; what it returns is
                passed to the task as its `progress`.

        Returns:
            A generator of `Outcome`; a task that raised gives an Outcome with its error.

        Example::

            from gluonlite.bench.executors import LocalExecutor, Task
            def add(a, b, progress=None):
                return a + b
            started = lambda task: print('start', task.key)
            for o in LocalExecutor().run([Task('x', add, (1, 2))], started):  # start x
                print(o.task.key, o.value)  # x 3
        """
        for task in tasks:
            progress = started(task) if started else None
            try:
                value = task.fn(*task.args, progress=progress)
            except Exception as e:  # the caller reports it and goes on with the others
                yield Outcome(task, error=e)
            else:
                yield Outcome(task, value)


def _probe(address, timeout=CONNECT_TIMEOUT_S - 1):
    """Check with a plain socket, within `timeout` seconds, that a Dask server greets at a
    tcp address (see handshake.py); other schemes are left to Dask.

    Raises:
        ExecutorError: one line saying what answered (nothing, or something else).
    """
    if "://" in address and not address.startswith("tcp://"):
        return  # tls, inproc, ucx...: left to Dask
    read_greeting(address, time.monotonic() + timeout)


def _import_distributed():
    try:  # the dask extra: optional, so imported when a Dask executor is asked for
        import distributed
    except ImportError as e:
        raise ExecutorError(f"--executor dask needs the dask extra ({EXTRA_HINT}); "
                            f"distributed does not import: {e}") from None
    return distributed


class DaskExecutor(_Executor):
    """Sends tasks to a Dask distributed cluster and yields them as they complete.

    Args:
        address: a running scheduler (tcp://HOST:PORT); None starts a LocalCluster.
        workers: LocalCluster worker processes, one thread each (default: CPU count).
        share_host: let timing tasks run side by side (no `bench` resource needed).

    Raises:
        ExecutorError: distributed is not installed; no scheduler answers at `address`
            within CONNECT_TIMEOUT_S seconds.

    Example::

        import socket
        from gluonlite.bench.executors import DaskExecutor, ExecutorError
        s = socket.socket(); s.bind(('127.0.0.1', 0)); port = s.getsockname()[1]; s.close()
        try:
            DaskExecutor(f'tcp://127.0.0.1:{port}')  # nothing listens there
        except ExecutorError as err:
            print(str(err).startswith('no Dask scheduler answers'))  # True
    """

    records_failures = True  # a lost worker leaves a trace in the file; --resume retries

    def __init__(self, address=None, workers=None, share_host=False):
        if address:  # before importing distributed (a second or more): the 5 s are the user's
            _probe(address)
        distributed = _import_distributed()
        if address:  # the server greeted: is it a scheduler that answers?
            identify(address)
        self.share_host, self.cluster, self.client, self._futures = share_host, None, None, {}
        try:
            if address:
                try:
                    self.client = distributed.Client(address, timeout=f"{CONNECT_TIMEOUT_S}s",
                                                     set_as_default=False)
                except (OSError, TimeoutError, ValueError, MemoryError) as e:
                    reason = f"{type(e).__name__}: {str(e).splitlines()[0]}" if str(e) else (
                        type(e).__name__)
                    raise ExecutorError(f"no Dask scheduler answers at {address} within "
                                        f"{CONNECT_TIMEOUT_S} s ({reason})") from None
            else:
                self.cluster = _local_cluster(distributed, workers)
                self.client = distributed.Client(self.cluster, set_as_default=False)
        except BaseException:
            self.close()
            raise
        self.address = address or self.cluster.scheduler_address

    @property
    def runs_here(self):
        """Whether the workers are this machine's (an embedded LocalCluster).

        Example::

            # not run: starts a Dask LocalCluster (worker processes)
            from gluonlite.bench.executors import DaskExecutor
            with DaskExecutor(workers=2) as ex:
                print(ex.runs_here)  # True: an embedded LocalCluster
        """
        return self.cluster is not None

    @property
    def workers(self):
        """Number of workers connected now.

        Example::

            # not run: starts a Dask LocalCluster (worker processes)
            from gluonlite.bench.executors import DaskExecutor
            with DaskExecutor(workers=2) as ex:
                print(ex.workers)  # 2
        """
        return len(self._resources())

    def _resources(self):
        return {w: info.get("resources", {})
                for w, info in self.client.scheduler_info()["workers"].items()}

    def gpus(self):
        """(count, reason): the most GPUs one worker advertises (its `gpu` resource).

        Example::

            # not run: needs a Dask scheduler
            from gluonlite.bench.executors import DaskExecutor
            with DaskExecutor('tcp://scheduler:8786') as ex:
                print(ex.gpus())  # (2, None) when one worker advertises gpu=2
        """
        count = max((int(r.get("gpu", 0)) for r in self._resources().values()), default=0)
        if count or self.cluster is None:
            return (count, None) if count else (
                0, f"no worker at {self.address} advertises a gpu resource")
        return LocalExecutor().gpus()  # the embedded cluster has this machine's GPUs

    def _slots(self, timing):
        """How many tasks may run at once: one per `bench` unit for timing tasks, else
        one per worker thread."""
        info = self.client.scheduler_info()["workers"].values()
        if timing and not self.share_host:
            return sum(int(w.get("resources", {}).get("bench", 0)) for w in info)
        return sum(int(w.get("nthreads", 1)) for w in info)

    def run(self, tasks, started=None):
        """Yield Outcomes in completion order. `started` is not called: a remote task's
        progress is its completion.

        No more tasks are submitted than can run at once (see `_slots`): a task waiting
        on a worker counts, for Dask, as running there, so a worker that died would take
        the waiting tasks' one retry with it.

        Args:
            tasks: the `Task` list to run.
            started: default None: accepted for the executor interface, never called.

        Raises:
            ExecutorError: there are timing tasks but no worker has the bench resource.

        Example::

            # not run: starts a Dask LocalCluster (worker processes)
            from gluonlite.bench.executors import DaskExecutor, Task
            from mytasks import square  # square(x, progress=None), module-level: Dask pickles
            with DaskExecutor(workers=2) as ex:  # fn by reference
                tasks = [Task(i, square, (i,)) for i in range(3)]
                print(sorted(o.value for o in ex.run(tasks)))  # [0, 1, 4]
        """
        from distributed import as_completed  # the dask extra, present once a client is
        timing = any(t.timing for t in tasks)
        slots = self._slots(timing)
        if not slots:
            raise ExecutorError(
                f"no worker at {self.address} advertises the bench resource: start one "
                "worker per host with --resources \"bench=1\" (or set executor.share_host: "
                "true to let timings share hosts)")
        queue = deque(enumerate(tasks))
        # results come with their futures, so a worker dying later cannot lose them
        pending = as_completed(loop=self.client.loop, with_results=True, raise_errors=False)

        def submit():
            i, task = queue.popleft()
            resources = {"bench": 1} if task.timing and not self.share_host else {}
            if task.gpu:
                resources["gpu"] = task.gpu
            future = self.client.submit(task.fn, *task.args, key=f"{task.label or 'task'}-{i}",
                                        resources=resources or None, pure=False)
            self._futures[future] = task
            pending.add(future)

        while queue and len(self._futures) < slots:
            submit()
        while not pending.is_empty():
            # poll: a blocking wait would not wake when Ctrl-C lands on another thread
            done = pending.next_batch(block=False)
            if not done:
                time.sleep(POLL_S)
            for future, value in done:
                task = self._futures.pop(future, None)
                if task is None:  # recomputed after its worker died: already yielded
                    continue
                if future.status == "error":  # value is (type, exception, traceback)
                    outcome = Outcome(task, error=value[1].with_traceback(value[2]))
                elif future.cancelled():
                    outcome = Outcome(task, error=value)
                else:  # finished, or lost with its worker after its result came back
                    outcome = Outcome(task, value)
                future.release()
                if queue:
                    submit()
                yield outcome

    def busy(self):
        """Tasks of ours submitted and not yet back (at most one per free slot).

        Example::

            # not run: starts a Dask LocalCluster (worker processes)
            from gluonlite.bench.executors import DaskExecutor
            with DaskExecutor(workers=2) as ex:
                print(ex.busy())  # 0: no task running
        """
        return len(self._futures)

    def close(self):
        """Cancel what is pending, disconnect, and close the LocalCluster if we started it.

        Example::

            # not run: starts a Dask LocalCluster (worker processes)
            from gluonlite.bench.executors import DaskExecutor
            ex = DaskExecutor(workers=1)
            ex.close()  # the client, then the cluster it started
        """
        if self.client is not None:
            if self._futures:
                self.client.cancel(list(self._futures))
                self._futures.clear()
            self.client.close()
            self.client = None
        if self.cluster is not None:
            self.cluster.close()
            self.cluster = None


@contextlib.contextmanager
def _children_ignore_sigint():
    """Processes started inside ignore SIGINT (a disposition kept across exec, and Python
    keeps an ignored SIGINT ignored): a terminal's Ctrl-C reaches the whole process group,
    and the driver alone must handle it (cancel, close the cluster it started, exit 130),
    not every worker printing its own KeyboardInterrupt traceback."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def _local_cluster(distributed, workers):
    """A LocalCluster of `workers` single-threaded processes, started; only the first has
    `bench` (and `gpu`), and a task whose worker dies is run once more before it fails.

    Workers start without Dask's MALLOC_TRIM_THRESHOLD_: setting it turns off glibc's
    adaptive mmap threshold, so every large numpy buffer is mapped and unmapped anew
    (training epochs ran about 1.5x slower), and timings would no longer match a local run.
    """
    import dask  # the dask extra: imported only where a cluster is made
    n = workers or os.cpu_count() or 1
    gpus = runner.detect_gpus()[0]
    environ = {k: v for k, v in dask.config.get("distributed.nanny.pre-spawn-environ").items()
               if k != "MALLOC_TRIM_THRESHOLD_"}
    # both are read when the scheduler and the nannies are made, so restarts keep them
    with dask.config.set({"distributed.scheduler.allowed-failures": 1,
                          "distributed.nanny.pre-spawn-environ": environ}), \
            _children_ignore_sigint():
        with warnings.catch_warnings():
            # without a dashboard the scheduler's HTTP server still tries port 8787 first:
            # another cluster on this host would put a warning on the user's terminal
            warnings.filterwarnings("ignore", "Port .* is already in use", UserWarning)
            cluster = distributed.LocalCluster(n_workers=0, threads_per_worker=1,
                                               processes=True, dashboard_address=None,
                                               silence_logs=logging.CRITICAL)
        try:
            for i in range(n):
                (name, spec), = cluster.new_worker_spec().items()
                spec = copy.deepcopy(spec)
                if i == 0:
                    spec["options"]["resources"] = dict({"bench": 1},
                                                        **({"gpu": gpus} if gpus else {}))
                cluster.worker_spec[name] = spec
            cluster.scale(n)
            cluster.wait_for_workers(n, timeout=START_TIMEOUT_S)
        except TimeoutError:
            cluster.close()
            raise ExecutorError(f"the LocalCluster's {n} workers did not start within "
                                f"{START_TIMEOUT_S} s") from None
        except BaseException:
            cluster.close()
            raise
    return cluster


def make_executor(cfg):
    """The executor a recipe's `executor` mapping asks for.

    Args:
        cfg: {'kind': 'local'|'dask', 'address', 'workers', 'share_host'}.

    Raises:
        ExecutorError: as DaskExecutor.

    Example::

        from gluonlite.bench.executors import LocalExecutor, make_executor
        ex = make_executor({'kind': 'local', 'address': None, 'workers': None, 'share_host': False})
        print(isinstance(ex, LocalExecutor))  # True
    """
    if cfg["kind"] == "local":
        return LocalExecutor()
    return DaskExecutor(cfg["address"], cfg["workers"], cfg["share_host"])
