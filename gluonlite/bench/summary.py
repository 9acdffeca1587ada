"""The end-of-run summary table: one row per case, as text, Markdown or CSV.

Columns: the case keys, mean and std (ms), `speedup` = the imperative variant's
mean / this mean (same benchmark, cell, ctx, sizes and mode, hybridize_cell and
hybridize_layer both false), and, when the run has numpy floor records,
`x floor-step` / `x floor-fused` = this mean / the mean of the floor on the same ctx
(the hand-written loop in numpy on a cpu, in CuPy on a gpu; 1.0 means as fast).

Example:
    >>> rows = [{'impl': 'gluonlite', 'benchmark': 'foreach', 'cell': 'RNNCell',
    ...          'ctx': 'cpu(0)', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
    ...          'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False,
    ...          'mean': 2.0, 'std': 0.1}]
    >>> print(summarize(rows, 'csv').splitlines()[1])
    gluonlite,foreach,RNNCell,cpu(0),2,1,4,infer,False,False,2.0000,0.1000,1.000
"""
import csv
import io

from .matrix import FLOOR_IMPLS

__all__ = ["summarize", "summarize_by_host", "table_rows", "FORMATS"]

FORMATS = ("text", "markdown", "csv")
_SIZE = ("cell", "seq_len", "batch_size", "hidden_dim", "is_train")


def _mode(rec):
    return "train" if rec.get("is_train") else "infer"


def _fmt(value, digits):
    return "" if value is None else f"{value:.{digits}f}"


def table_rows(records):
    """(header, rows) of the summary; rows are lists of strings, in record order.

    Args:
        records: result dicts (from the run and/or a results file).
    """
    floors = {}
    imperative = {}
    for r in records:
        impl = r.get("impl", "gluonlite")
        if impl != "gluonlite":
            floors[(impl, r.get("ctx")) + tuple(r.get(k) for k in _SIZE)] = r["mean"]
        elif not r.get("hybridize_cell") and not r.get("hybridize_layer"):
            imperative[(r.get("benchmark"), r.get("ctx"))
                       + tuple(r.get(k) for k in _SIZE)] = r["mean"]
    impls = [i for i in FLOOR_IMPLS if any(k[0] == i for k in floors)]
    header = ["impl", "benchmark", "cell", "ctx", "seq_len", "batch", "hidden", "mode",
              "hyb_cell", "hyb_layer", "mean_ms", "std_ms", "speedup"] + [f"x {i}" for i in impls]
    rows = []
    for r in records:
        impl = r.get("impl", "gluonlite")
        size = tuple(r.get(k) for k in _SIZE)
        speedup, ratios = None, [None] * len(impls)
        if impl == "gluonlite":
            base = imperative.get((r.get("benchmark"), r.get("ctx")) + size)
            speedup = base / r["mean"] if base and r["mean"] else None
            ratios = [r["mean"] / floors[key] if floors.get(key) else None
                      for key in ((i, r.get("ctx")) + size for i in impls)]
        rows.append([impl, r.get("benchmark") or "", r.get("cell"), r.get("ctx"),
                     str(r.get("seq_len")), str(r.get("batch_size")), str(r.get("hidden_dim")),
                     _mode(r), "" if r.get("hybridize_cell") is None else str(r["hybridize_cell"]),
                     "" if r.get("hybridize_layer") is None else str(r["hybridize_layer"]),
                     _fmt(r["mean"], 4), _fmt(r.get("std"), 4), _fmt(speedup, 3)]
                    + [_fmt(x, 3) for x in ratios])
    return header, rows


def summarize(records, fmt="text"):
    """Render the summary table.

    Args:
        records: result dicts.
        fmt: 'text' (aligned columns), 'markdown' (a pipe table) or 'csv'.

    Returns:
        str without a trailing newline ('' when there are no records).

    Raises:
        ValueError: an unknown format.
    """
    if fmt not in FORMATS:
        raise ValueError(f"summarize: fmt must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if not records:
        return ""
    header, rows = table_rows(records)
    if fmt == "csv":
        buf = io.StringIO()
        w = csv.writer(buf, lineterminator="\n")
        w.writerow(header)
        w.writerows(rows)
        return buf.getvalue().rstrip("\n")
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join(lines)
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda cells: "  ".join(str(c).rjust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return "\n".join([line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in rows])


def summarize_by_host(records, fmt="text"):
    """`summarize`, one table per host (the `env.host` of the records) when the records
    come from more than one; speedups and floor ratios are then within a host.

    Returns:
        str: one table, or per host a line `host NAME (CPU):` then its table
        (CSV: one table with a leading host column).

    Example:
        >>> summarize_by_host([], 'text')
        ''
    """
    hosts = {}
    for r in records:
        hosts.setdefault((r.get("env") or {}).get("host"), []).append(r)
    if len(hosts) <= 1:
        return summarize(records, fmt)
    if fmt == "csv":
        parts = [summarize(rs, fmt).splitlines() for rs in hosts.values()]
        lines = ["host," + parts[0][0]]
        lines += [f"{host},{line}" for host, part in zip(hosts, parts) for line in part[1:]]
        return "\n".join(lines)
    return "\n\n".join(f"host {host} ({(rs[0].get('env') or {}).get('cpu')}):\n"
                       + summarize(rs, fmt) for host, rs in hosts.items())
