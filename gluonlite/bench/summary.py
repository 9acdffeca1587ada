"""The summary table: one row per case, as text, Markdown, CSV or HTML.

Every time is a median of the timed rounds, with its interquartile range (q1..q3);
every ratio is a ratio of medians:
- `speedup (>1 better)` = the imperative variant's median / this median (same
  benchmark, cell, ctx, sizes and mode, hybridize_cell and hybridize_layer both false);
- `x floor-step (<1 better)`, `x floor-fused (<1 better)` = this median / the median of
  the floor on the same ctx (the hand-written loop in numpy on a cpu, in CuPy on a gpu;
  1.0 means as fast).
A ratio is marked `~` (CSV: named in the `noisy` column) when the spreads of its two
cases are wide enough to put it on either side of 1: taking each case anywhere in its
interquartile range, the ratio could be below 1 or above it.

Example:
    >>> rows = [{'impl': 'gluonlite', 'benchmark': 'foreach', 'cell': 'RNNCell',
    ...          'ctx': 'cpu(0)', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
    ...          'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False,
    ...          'median': 2.0, 'q1': 1.9, 'q3': 2.2}]
    >>> print(summarize(rows, 'csv').splitlines()[1])
    gluonlite,foreach,RNNCell,cpu(0),2,1,4,infer,False,False,2.0000,1.9000,2.2000,1.000,
"""
import csv
import html
import io

from .matrix import FLOOR_IMPLS
from .results import spread

__all__ = ["summarize", "summarize_by_host", "table_rows", "ratio_rows", "FORMATS", "TITLE",
           "LEGEND", "NOISY"]

FORMATS = ("text", "markdown", "csv", "html")
NOISY = "~"
TITLE = ("medians of the timed rounds (ms) with their interquartile range q1..q3; "
         "speedup = imperative median / median (>1 better); x floor-* = median / numpy "
         "floor median (<1 better)")
LEGEND = (f"{NOISY} = within noise: over the two cases' interquartile ranges the ratio "
          "could fall on either side of 1")
_SIZE = ("cell", "seq_len", "batch_size", "hidden_dim", "is_train")


def _mode(rec):
    return "train" if rec.get("is_train") else "infer"


def _fmt(value, digits):
    return "" if value is None else f"{value:.{digits}f}"


def _ratio(num, den):
    """(median ratio, could it flip across 1) of two records' spreads; (None, False) when
    either is missing or zero."""
    if num is None or den is None:
        return None, False
    (m1, lo1, hi1), (m2, lo2, hi2) = spread(num), spread(den)
    if not m1 or not m2 or not lo2 or not hi2:
        return None, False
    low, high = lo1 / hi2, hi1 / lo2
    return m1 / m2, low < 1.0 < high


def ratio_rows(records):
    """Per record, its ratios: a list of dicts with `record`, `speedup`, `speedup_noisy`
    and, per floor impl present, `x IMPL` and `x IMPL noisy`; plus the list of floor impls.

    Args:
        records: result dicts (from a run and/or a results file); failed ones are skipped.
    """
    records = [r for r in records if not r.get("failed")]
    floors, imperative = {}, {}
    for r in records:
        impl = r.get("impl", "gluonlite")
        if impl != "gluonlite":
            floors[(impl, r.get("ctx")) + tuple(r.get(k) for k in _SIZE)] = r
        elif not r.get("hybridize_cell") and not r.get("hybridize_layer"):
            imperative[(r.get("benchmark"), r.get("ctx"))
                       + tuple(r.get(k) for k in _SIZE)] = r
    impls = [i for i in FLOOR_IMPLS if any(k[0] == i for k in floors)]
    out = []
    for r in records:
        row = {"record": r, "speedup": None, "speedup_noisy": False}
        size = tuple(r.get(k) for k in _SIZE)
        for i in impls:
            row[f"x {i}"], row[f"x {i} noisy"] = None, False
        if r.get("impl", "gluonlite") == "gluonlite":
            base = imperative.get((r.get("benchmark"), r.get("ctx")) + size)
            row["speedup"], row["speedup_noisy"] = _ratio(base, r)
            row["speedup_noisy"] = row["speedup_noisy"] and base is not r  # 1.0 by definition
            for i in impls:
                row[f"x {i}"], row[f"x {i} noisy"] = _ratio(r, floors.get((i, r.get("ctx"))
                                                                          + size))
        out.append(row)
    return out, impls


def table_rows(records, marks=True):
    """(header, rows) of the summary; rows are lists of strings, in record order.

    Args:
        records: result dicts (from the run and/or a results file).
        marks: append NOISY to ratios within noise (False: a `noisy` column names them).
    """
    rows_in, impls = ratio_rows(records)
    ratio_cols = ["speedup"] + [f"x {i}" for i in impls]
    header = (["impl", "benchmark", "cell", "ctx", "seq_len", "batch", "hidden", "mode",
               "hyb_cell", "hyb_layer", "median_ms", "q1_ms", "q3_ms", "speedup (>1 better)"]
              + [f"x {i} (<1 better)" for i in impls] + ([] if marks else ["noisy"]))
    rows = []
    for row in rows_in:
        r = row["record"]
        med, q1, q3 = spread(r)
        cells = []
        for col in ratio_cols:
            noisy = row[f"{col}_noisy" if col == "speedup" else f"{col} noisy"]
            cells.append(_fmt(row[col], 3) + (NOISY if marks and noisy else ""))
        noisy_cols = [c for c in ratio_cols
                      if row[f"{c}_noisy" if c == "speedup" else f"{c} noisy"]]
        rows.append([r.get("impl", "gluonlite"), r.get("benchmark") or "", r.get("cell"),
                     r.get("ctx"), str(r.get("seq_len")), str(r.get("batch_size")),
                     str(r.get("hidden_dim")), _mode(r),
                     "" if r.get("hybridize_cell") is None else str(r["hybridize_cell"]),
                     "" if r.get("hybridize_layer") is None else str(r["hybridize_layer"]),
                     _fmt(med, 4), _fmt(q1, 4), _fmt(q3, 4)] + cells
                    + ([] if marks else [";".join(noisy_cols)]))
    return header, rows


def render_table(header, rows, fmt):
    """`header` and `rows` (lists of cells) as one table in `fmt` (one of `FORMATS`; anything
    else gives the aligned text table).

    Returns:
        str without a trailing newline.

    Example: ``render_table(["a", "b"], [["1", "2"]], "markdown")``.
    """
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
    if fmt == "html":
        esc = html.escape
        lines = ["<table>", "<tr>" + "".join(f"<th>{esc(h)}</th>" for h in header) + "</tr>"]
        lines += ["<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in rows]
        return "\n".join(lines + ["</table>"])
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    line = lambda cells: "  ".join(str(c).rjust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return "\n".join([line(header), "  ".join("-" * w for w in widths)] + [line(r) for r in rows])


def summarize(records, fmt="text"):
    """Render the summary table.

    Args:
        records: result dicts.
        fmt: 'text' (aligned columns), 'markdown' (a pipe table), 'csv' (a header and one
            line per case, numbers only in the ratio columns) or 'html' (a <table>).

    Returns:
        str without a trailing newline ('' when there are no records).

    Raises:
        ValueError: an unknown format.
    """
    if fmt not in FORMATS:
        raise ValueError(f"summarize: fmt must be one of {', '.join(FORMATS)}, got {fmt!r}")
    if not [r for r in records if not r.get("failed")]:
        return ""
    header, rows = table_rows(records, marks=fmt != "csv")
    return render_table(header, rows, fmt)


def summarize_by_host(records, fmt="text"):
    """`summarize`, one table per host (the `env.host` of the records) when the records
    come from more than one; speedups and floor ratios are then within a host.

    Returns:
        str: one table, or per host a line `host NAME (CPU):` then its table
        (CSV: one table with a leading host column; HTML: a heading per host).

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
        parts = [(h, p) for h, p in zip(hosts, parts) if p]
        lines = ["host," + parts[0][1][0]]
        lines += [f"{host},{line}" for host, part in parts for line in part[1:]]
        return "\n".join(lines)
    if fmt == "html":
        return "\n".join(f"<h3>host {html.escape(str(host))}</h3>\n" + summarize(rs, fmt)
                         for host, rs in hosts.items())
    return "\n\n".join(f"host {host} ({(rs[0].get('env') or {}).get('cpu')}):\n"
                       + summarize(rs, fmt) for host, rs in hosts.items())
