"""Shared pieces of the issue-8 loop benchmarks (rnn_floor, rnn_scaling, rnn_alloc).

What is here: the environment header (BLAS kernel in use, thread settings), interleaved
timing, the gluonlite loop layers of one case with their parameters copied into the
numpy floor, the check that they agree, tracemalloc helpers and Markdown tables.
gluonlite is imported lazily (inside functions), so importing this module costs only
numpy.

Example:
    >>> from _common import env_header, interleaved             # doctest: +SKIP
    >>> print("\\n".join(env_header()))                          # doctest: +SKIP
    >>> interleaved({"a": f, "b": g}, rounds=5, warmup=1)       # doctest: +SKIP
    {'a': [..5 ms values..], 'b': [...]}
"""
import ctypes
import gc
import os
import platform
import statistics
import sys
import time
import tracemalloc

# One BLAS/OpenMP thread unless the caller set otherwise: on a shared 2-core box, threads
# of our BLAS, MXNet's OpenMP pool (inherited by its subprocess) and other jobs fight for
# cores and the medians swing by 3x. Set before numpy loads OpenBLAS; reported in the header.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

__all__ = ["THREAD_VARS", "blas_info", "env_header", "median", "interleaved",
           "LoopCase", "max_rel_error", "traced_growth", "fmt_bytes", "markdown_table",
           "flush_print", "print_header", "check_rounds_and_modes", "RowsWorker", "WorkerError"]

THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
               "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "MXNET_ENGINE_TYPE",
               "MXNET_CPU_WORKER_NTHREADS")


# ---- environment -------------------------------------------------------------------------
def _loaded_blas_libs():
    """Paths of the BLAS shared libraries this process has mapped (Linux only)."""
    try:
        with open("/proc/self/maps", encoding="utf-8") as f:
            paths = {line.split()[-1] for line in f if "/" in line}
    except OSError:
        return []
    keys = ("openblas", "libmkl_rt", "libblis", "libflexiblas")
    return sorted(p for p in paths if any(k in os.path.basename(p).lower() for k in keys))


def _openblas_query(path):
    """(corename, threads, config) of one OpenBLAS build, through its exported symbols."""
    lib = ctypes.CDLL(path)
    for prefix, suffix in (("scipy_openblas_", "64_"), ("scipy_openblas_", ""),
                           ("openblas_", "64_"), ("openblas_", "")):
        try:
            core = getattr(lib, f"{prefix}get_corename{suffix}")
            conf = getattr(lib, f"{prefix}get_config{suffix}")
            threads = getattr(lib, f"{prefix}get_num_threads{suffix}")
        except AttributeError:
            continue
        core.restype = conf.restype = ctypes.c_char_p
        return core().decode(), int(threads()), conf().decode().strip()
    return None


def blas_info():
    """One line per BLAS library in use: kernel (core) name, threads, version.

    Uses threadpoolctl when it imports; otherwise asks each OpenBLAS mapped into the
    process for its core name (`openblas_get_corename`), and falls back to the summary
    of `numpy.show_config` (the build configuration, not the runtime kernel).

    Returns:
        list of str.

    Example:
        >>> blas_info()                                          # doctest: +SKIP
        ['openblas 0.3.31 (numpy.libs/libscipy_openblas64_...so): kernel SkylakeX, 2 threads']
    """
    try:
        import threadpoolctl
    except ImportError:
        threadpoolctl = None
    if threadpoolctl is not None:
        return [f"{d.get('internal_api')} {d.get('version')} "
                f"({os.path.basename(d.get('filepath', ''))}): "
                f"kernel {d.get('architecture')}, {d.get('num_threads')} threads (threadpoolctl)"
                for d in threadpoolctl.threadpool_info() if d.get("user_api") == "blas"]
    lines = []
    for path in _loaded_blas_libs():
        got = _openblas_query(path) if "openblas" in path.lower() else None
        where = os.path.join(os.path.basename(os.path.dirname(path)), os.path.basename(path))
        if got:
            core, threads, conf = got
            lines.append(f"{conf.split()[1] if len(conf.split()) > 1 else '?'} OpenBLAS ({where}): "
                         f"kernel {core}, {threads} threads (openblas_get_corename)")
        else:
            lines.append(f"{where}: loaded (no runtime query)")
    if not lines:
        try:
            blas = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
            lines.append(f"{blas.get('name')} {blas.get('version')}: "
                         f"{blas.get('openblas configuration', '')} "
                         f"(numpy.show_config, build time)")
        except (TypeError, KeyError):  # numpy < 1.26 has no mode="dicts"
            lines.append("unknown (numpy.show_config has no summary)")
    return lines


def env_header(extra=()):
    """Lines describing the run: CPU, versions, BLAS kernel, thread variables, load.

    Args:
        extra: more lines to append (e.g. MXNet's own description).

    Returns:
        list of str (Markdown-friendly bullet lines).
    """
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")),
                       cpu)
    except OSError:
        pass
    try:
        load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    except OSError:
        load = "?"
    try:
        import scipy
        scipy_v = scipy.__version__
    except ImportError:
        scipy_v = "absent"
    import gluonlite
    lines = [f"- machine: {cpu}, {os.cpu_count()} cores, load average {load}",
             f"- python {platform.python_version()}, numpy {np.__version__}, scipy {scipy_v}, "
             f"gluonlite {gluonlite.__version__}"]
    lines += [f"- BLAS: {b}" for b in blas_info()]
    env = ", ".join(f"{k}={os.environ[k]}" if k in os.environ else f"{k} unset"
                    for k in THREAD_VARS)
    lines.append(f"- thread/kernel env: {env}")
    return lines + list(extra)


# ---- timing ------------------------------------------------------------------------------
def median(values):
    """Median of a non-empty sequence of numbers."""
    return statistics.median(values)


def interleaved(variants, rounds, warmup=1, after_round=None, clock=None):
    """Time zero-arg callables round by round (A B C, B C A, C A B, ...), in ms.

    Args:
        variants: dict name -> callable; each call is one timed unit.
        rounds: timed rounds (>= 1).
        warmup: untimed rounds first.
        after_round: optional callable run after our variants in each round, returning
            {name: ms} measured elsewhere (MXNet's subprocess); merged into the result.
        clock: the timer (default `time.perf_counter`, wall time; `time.process_time`
            counts this process's CPU time only, steadier on a machine others load).

    Returns:
        dict name -> list of ms, one per timed round.

    Raises:
        ValueError: rounds < 1.
    """
    if rounds < 1:
        raise ValueError(f"interleaved: rounds must be >= 1, got {rounds}")
    clock = clock or time.perf_counter
    names = list(variants)
    out = {name: [] for name in names}
    for r in range(warmup + rounds):
        # As timeit does, the cyclic garbage collector is off while a call is timed and
        # runs between rounds: garbage one variant leaves (the imperative layers' tapes)
        # is not billed to whichever later call happens to trip the collector.
        gc.collect()
        # The first call after a collection runs slower than the same call later in the
        # round: each round starts with the next variant, so none pays that every round.
        k = r % len(names)
        for name in names[k:] + names[:k]:
            fn = variants[name]
            gc.disable()
            try:
                t0 = clock()
                fn()
                dt = (clock() - t0) * 1e3
            finally:
                gc.enable()
            if r >= warmup:
                out[name].append(dt)
        if after_round is not None:
            for name, ms in after_round().items():
                if r >= warmup:
                    out.setdefault(name, []).append(ms)
    return out


# ---- the case: gluonlite loop layers and the floor on the same parameters -----------------
def max_rel_error(got, ref):
    """max |got - ref| / max(1, max |ref|): a scale-aware float32 error."""
    got, ref = np.asarray(got, np.float64), np.asarray(ref, np.float64)
    if got.shape != ref.shape:
        return float("inf")
    return (float(np.max(np.abs(got - ref)) / max(1.0, float(np.max(np.abs(ref)))))
            if ref.size else 0.0)


def fused_layer(cell, hidden_size, input_size):
    """The one-layer `gluon.rnn` layer (fused RNN operator) computing what `cell` loops do:
    `RNN` with tanh for RNNCell, `GRU`, `LSTM`."""
    from gluonlite.gluon import rnn
    if cell == "RNNCell":
        return rnn.RNN(hidden_size, activation="tanh", input_size=input_size)
    return {"GRUCell": rnn.GRU, "LSTMCell": rnn.LSTM}[cell](hidden_size, input_size=input_size)


def _first_output(layer):
    return lambda x, states: layer(x, states)[0]


class LoopCase:
    """The gluonlite layers and floors of one (cell, batch) case, on shared parameters.

    Builds the requested layers (`imperative`/`hybrid` x `foreach`/`while_loop`/`fused`),
    all with the parameters of the first one (hybrid layers use
    hybridize(static_alloc=True)), random normal inputs and states as the seed benchmark,
    and FloorRNN objects (step/fused x infer/train) holding a copy of the same parameters.
    `fused` is the one-layer `gluon.rnn` layer of the cell's kind (`RNN` with tanh,
    `GRU`, `LSTM`) on the fused RNN operator; its states are the cell states as
    (1, N, H) arrays.

    Args:
        cell: 'RNNCell', 'GRUCell' or 'LSTMCell'.
        batch, seq_len, input_size, hidden_size: N, T, I, H.
        layers: iterable of (kind, loop) with kind in {'imperative', 'hybrid'} and loop
            in {'foreach', 'while_loop', 'fused'}.
        seed: seed of the inputs and states.

    Raises:
        ValueError: an unknown layer kind or loop.

    Example:
        >>> case = LoopCase('LSTMCell', 1, 10, 8, 8, [('hybrid', 'foreach')])  # doctest: +SKIP
        >>> case.check()                                                       # doctest: +SKIP
    """

    def __init__(self, cell, batch, seq_len, input_size, hidden_size, layers, seed=0):
        from gluonlite import nd
        from gluonlite.bench import floor
        from gluonlite.bench.models import ForeachRNN, WhileRNN, make_cell
        self.cell, self.shape = cell, (seq_len, batch, input_size, hidden_size)
        T, N, I, H = self.shape
        loops = {"foreach": ForeachRNN, "while_loop": WhileRNN}
        self.layers = {}
        for kind, loop in layers:
            if kind not in ("imperative", "hybrid") or loop not in (*loops, "fused"):
                raise ValueError(f"LoopCase: layer must be "
                                 f"(imperative|hybrid, foreach|while_loop|fused), "
                                 f"got {(kind, loop)!r}")
            layer = fused_layer(cell, H, I) if loop == "fused" else \
                loops[loop](make_cell(cell, H, input_size=I), T)
            layer.initialize()
            self.layers[(kind, loop)] = layer
        first = next(iter(self.layers.values()))
        self.params = floor.params_from_named(first.collect_params())
        for layer in self.layers.values():
            for name, p in layer.collect_params().items():
                key = next(k for k in floor.PARAM_NAMES if name.endswith(k))
                p.set_data(nd.array(self.params[key]))
        for (kind, _), layer in self.layers.items():
            if kind == "hybrid":
                layer.hybridize(static_alloc=True)
        rng = np.random.default_rng(seed)
        self.x_np = rng.standard_normal((T, N, I)).astype("float32")
        self.states_np = [rng.standard_normal((N, H)).astype("float32")
                          for _ in range(floor.num_states(cell))]
        self.x = nd.array(self.x_np)
        self.x.attach_grad()
        self.states = [nd.array(s) for s in self.states_np]
        self.fused_states = [nd.array(s[None]) for s in self.states_np]
        for s in self.states + self.fused_states:
            s.attach_grad()
        self.floors = {(fused, train): floor.FloorRNN(cell, T, N, I, H, fused=fused, train=train)
                       for fused in (False, True) for train in (False, True)}
        # Each floor reads its own copy of the weights, as each layer does: a floor timed
        # right after the other must not find them already in cache.
        self.floor_params = {fused: {k: v.copy() for k, v in self.params.items()}
                             for fused in (False, True)}

    def layer_states(self, loop):
        """The states argument of a layer: the cell states, after a (1,) counter for
        while_loop; (1, N, H) arrays for the fused layer."""
        from gluonlite import nd
        if loop == "fused":
            return self.fused_states
        return ([nd.zeros((1,))] if loop == "while_loop" else []) + self.states

    def layer_call(self, key, train):
        """A zero-arg callable running one layer call (train: record + backward of the sum)."""
        from gluonlite import autograd, nd
        layer, states = self.layers[key], self.layer_states(key[1])
        x = self.x
        if key[1] == "fused":  # the fused layer returns (output, new states)
            layer = _first_output(layer)
        if not train:
            def call():
                out = layer(x, states)
                nd.waitall()
                return out
            return call

        def call_train():
            with autograd.record():
                out = layer(x, states)
            out.backward()
            nd.waitall()
            return out
        return call_train

    def floor_call(self, fused, train):
        """A zero-arg callable running one floor forward (and backward when train)."""
        f, x, s = self.floors[(fused, train)], self.x_np, self.states_np
        p = self.floor_params[fused]
        if not train:
            return lambda: f.forward(x, s, p)

        def call():
            out = f.forward(x, s, p)
            f.backward()
            return out
        return call

    def layer_grads(self, key):
        """Gradients after a train call of `key`: dict like FloorRNN.backward's."""
        from gluonlite.bench import floor
        states = self.fused_states if key[1] == "fused" else self.states
        g = {"data": self.x.grad.asnumpy(),
             "states": [s.grad.asnumpy().reshape(self.shape[1:2] + self.shape[3:])
                        for s in states]}
        named = {n: p.grad() for n, p in self.layers[key].collect_params().items()}
        g.update(floor.params_from_named(named))
        return g

    def floor_refs(self):
        """{fused: (infer outputs, train outputs, gradients)} of the two floors on this case
        (gradients as FloorRNN.backward's dict, copied)."""
        refs = {}
        for fused in (False, True):
            out_i = self.floor_call(fused, False)().copy()
            f = self.floors[(fused, True)]
            out_t = f.forward(self.x_np, self.states_np, self.params).copy()
            g = f.backward()
            refs[fused] = (out_i, out_t, {k: ([a.copy() for a in v] if k == "states" else v.copy())
                                          for k, v in g.items()})
        return refs

    @staticmethod
    def compare(label, got_i, got_t, grads, refs, tol):
        """Compare one implementation's outputs and gradients with both floors' `refs`.

        Returns:
            ({'infer': worst error, 'train': worst error}, [messages of those above tol]).
        """
        errors, bad = {}, []
        for fused, (out_i, out_t, ref_g) in refs.items():
            pairs = [("infer outputs", got_i, out_i), ("train outputs", got_t, out_t)]
            pairs += [(f"grad {k}", grads[k], ref_g[k]) for k in ref_g if k != "states"]
            pairs += [(f"grad states[{i}]", a, b)
                      for i, (a, b) in enumerate(zip(grads["states"], ref_g["states"]))]
            for name, got, ref in pairs:
                err = max_rel_error(got, ref)
                mode = "infer" if name.startswith("infer") else "train"
                errors[mode] = max(errors.get(mode, 0.0), err)
                if not err <= tol:
                    bad.append(f"{label} vs floor-{'fused' if fused else 'step'}: "
                               f"{name} rel. error {err:.3g}")
        return errors, bad

    def _raise_if(self, bad, who, tol):
        if bad:
            raise RuntimeError(f"{self.cell} batch {self.shape[1]}: {who} and the numpy floor "
                               f"disagree (tolerance {tol}): " + "; ".join(bad))

    def check(self, tol=1e-3, refs=None):
        """Run every layer once infer and once train; compare with both floors (`refs`:
        `floor_refs()`'s result, computed here when not given).

        Returns:
            dict (layer key, 'infer'|'train') -> worst relative error (see max_rel_error).

        Raises:
            RuntimeError: a layer's outputs or gradients differ from a floor's by more
                than `tol`; the message names the cell, layer, floor, array and error.
        """
        refs, errors, bad = refs or self.floor_refs(), {}, []
        for key in self.layers:
            got_i = self.layer_call(key, False)().asnumpy()
            got_t = self.layer_call(key, True)().asnumpy()
            errs, msgs = self.compare(" ".join(key), got_i, got_t, self.layer_grads(key),
                                      refs, tol)
            errors.update({(key, mode): e for mode, e in errs.items()})
            bad += msgs
        self._raise_if(bad, "gluonlite", tol)
        return errors

    def write_inputs(self, path):
        """Save the case for another framework's worker: an .npz of x, state0[, state1] and
        the cell parameters (PARAM_NAMES), as the floors and layers use them."""
        arrays = {"x": self.x_np, **{f"state{i}": s for i, s in enumerate(self.states_np)},
                  **self.params}
        np.savez(path, **arrays)

    def check_result(self, label, path, tol=1e-3, refs=None):
        """Compare a worker's result .npz (out_infer, out_train, grad_data,
        grad_state<i>, grad_<param>) with both floors (`refs` as in `check`).

        Returns:
            {'infer': worst error, 'train': worst error}.

        Raises:
            RuntimeError: a difference above `tol` (names the array and the error).
        """
        with np.load(path) as r:
            grads = {"data": r["grad_data"],
                     "states": [r[f"grad_state{i}"] for i in range(len(self.states_np))]}
            grads.update({k: r[f"grad_{k}"] for k in self.params})
            errors, bad = self.compare(label, r["out_infer"], r["out_train"], grads,
                                       refs or self.floor_refs(), tol)
        self._raise_if(bad, label, tol)
        return errors


# ---- memory ------------------------------------------------------------------------------
def _own_filtered(snapshot):
    """A snapshot without the allocations of tracemalloc itself and of this module."""
    return snapshot.filter_traces([tracemalloc.Filter(False, tracemalloc.__file__),
                                   tracemalloc.Filter(False, __file__)])


def traced_growth(fn, calls):
    """Run `fn` `calls` times under tracemalloc; measure what stays and the per-call peak.

    Only the last call's return value is kept alive (as a caller that overwrites its
    variable would), so growth beyond that value means the calls accumulate memory.

    Args:
        fn: zero-arg callable (warmed up already: its first-call compile is not counted).
        calls: number of calls.

    Returns:
        dict: growth (bytes traced after the calls minus before, last output included),
        peak_per_call (median over calls of the peak bytes during one call above the
        bytes at its start), peak_max, top (the 3 allocation sites that grew most, as
        'file:line +bytes' strings).
    """
    gc.collect()
    started = not tracemalloc.is_tracing()
    if started:
        tracemalloc.start(8)
    try:
        out = fn()  # one call under tracing, so lazily made caches are in `before`
        del out
        gc.collect()
        snap0 = _own_filtered(tracemalloc.take_snapshot())
        before = tracemalloc.get_traced_memory()[0]
        peaks, out = [], None
        for _ in range(calls):
            out = None  # drop the previous result first, as `out = fn()` in a loop does
            base = tracemalloc.get_traced_memory()[0]
            tracemalloc.reset_peak()
            out = fn()
            peaks.append(tracemalloc.get_traced_memory()[1] - base)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
        snap1 = _own_filtered(tracemalloc.take_snapshot())
        top = [f"{s.traceback[0].filename.rsplit('/', 2)[-1]}:{s.traceback[0].lineno} "
               f"+{s.size_diff}" for s in snap1.compare_to(snap0, "lineno")[:3] if s.size_diff > 0]
        return {"growth": after - before, "peak_per_call": int(median(peaks)),
                "peak_max": int(max(peaks)), "top": top, "last": out}
    finally:
        if started:
            tracemalloc.stop()


def fmt_bytes(n):
    """Human-readable bytes: 1536 -> '1.5 KiB'."""
    n = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if abs(n) < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"  # pragma: no cover


def markdown_table(header, rows):
    """A Markdown table: header is a list of column titles, rows lists of cells.

    Columns after the first are right-aligned.
    """
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def flush_print(*args):
    """print + flush (progress lines interleaved with a subprocess's stderr)."""
    print(*args)
    sys.stdout.flush()


def print_header(script, argv, details, extra=()):
    """The Markdown header every script prints: its command line, the environment, and a
    line of `details` about the case."""
    flush_print(f"## {script}: " + " ".join([f"python benchmarks/{script}.py"] +
                                            (argv or sys.argv[1:])))
    flush_print("")
    flush_print("\n".join(env_header(extra)))
    flush_print(details)
    flush_print("")


def check_rounds_and_modes(ap, a):
    """Apply --quick (3 rounds after 1 warmup) and check --modes (infer and/or train)."""
    if a.quick:
        a.rounds, a.warmup = 3, 1
    bad = [m for m in a.modes if m not in ("infer", "train")]
    if bad:
        ap.error(f"--modes: expected infer and/or train, got {bad}")


# ---- another framework's rows from a subprocess -----------------------------------------
class WorkerError(RuntimeError):
    """A rows worker could not start, answered an error or died (the message says which,
    with the environment variable that named its interpreter)."""


class RowsWorker:
    """A long-lived worker script (`mxnet_rnn_rows.py`, `torch_rnn_rows.py`) run under
    another framework's interpreter and fed JSON lines (protocol: `_rows_worker.py`).

    Args:
        script: the worker's file name in benchmarks/ (or a path).
        python: path of the interpreter to run it with.
        env_var: the environment variable that named `python` (for messages).
        label: the framework's name in messages ("MXNet", "PyTorch").
        timeout: seconds to wait for any one reply.

    Raises:
        WorkerError: the worker cannot start, answers an error, or dies; the message
            carries the tail of its stderr.

    Example:
        >>> w = RowsWorker('mxnet_rnn_rows.py', '/work/mxvenv/bin/python',
        ...                'GLUONLITE_MXNET_PYTHON', 'MXNet')       # doctest: +SKIP
        >>> w.request(op='hello')['mxnet']                          # doctest: +SKIP
        '1.9.1'
    """

    def __init__(self, script, python, env_var, label, timeout=1800):
        import subprocess
        import tempfile
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), script)
        self.label, self.env_var = label, env_var
        self.err = tempfile.TemporaryFile(mode="w+")
        self.timeout = timeout
        try:
            self.proc = subprocess.Popen([python, path], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=self.err, text=True,
                                         bufsize=1)
        except OSError as exc:
            self.err.close()
            raise WorkerError(f"{env_var}={python!r}: cannot start it: {exc}") from exc

    def _stderr_tail(self, n=800):
        self.err.seek(0)
        return self.err.read()[-n:]

    def request(self, **msg):
        """Send one request; return the reply dict (ok is True)."""
        import json
        import select
        who = f"{self.label} worker ({self.env_var})"
        try:
            self.proc.stdin.write(json.dumps(msg) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise WorkerError(f"{who} died: {exc}; stderr: {self._stderr_tail()}") from exc
        ready, _, _ = select.select([self.proc.stdout], [], [], self.timeout)
        line = self.proc.stdout.readline() if ready else ""
        if not line:
            raise WorkerError(f"{who} gave no answer to {msg.get('op')!r} "
                              f"(exit code {self.proc.poll()}); stderr: {self._stderr_tail()}")
        reply = json.loads(line)
        if not reply.get("ok"):
            raise WorkerError(f"{who} failed on {msg}: {reply.get('error')}")
        return reply

    def close(self):
        """Ask the worker to quit and wait for it."""
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write('{"op": "quit"}\n')
                self.proc.stdin.close()
            except OSError:
                pass
            try:
                self.proc.wait(timeout=30)
            except Exception:  # noqa: BLE001 - subprocess.TimeoutExpired: end our own child
                self.proc.kill()
        self.err.close()
