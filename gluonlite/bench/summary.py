"""The summary table: one row per case, as text, Markdown, CSV or HTML.

Every time is a median of the timed rounds, with its interquartile range (q1..q3);
every ratio is a ratio of medians:
- `speedup (>1 better)` = the imperative variant's median / this median (same
  benchmark, cell, ctx, sizes and mode, hybridize_cell and hybridize_layer both false);
- `x floor-step (<1 better)`, `x floor-fused (<1 better)` = this median / the median of
  the floor on the same ctx (the hand-written loop in numpy on a cpu, in CuPy on a gpu;
  1.0 means as fast), timed in the same rounds as the case (`interleaved` in its record),
  so a change of load moves both alike.
A ratio is marked `~` (CSV: named in the `noisy` column) when the spreads of its two
cases are wide enough to put it on either side of 1: taking each case anywhere in its
interquartile range, the ratio could be below 1 or above it.
A ratio of two cases timed apart (a speedup; a floor ratio from a file without interleaved
rounds) is marked `!` (CSV: the `unreliable` column) when it cannot be trusted: the floors
timed with each case moved between them (their interquartile ranges do not overlap: the
load changed), or, without those, its two spreads allow ratios more than UNRELIABLE_WIDTH
apart.

Example:
    >>> rows = [{'impl': 'gluonlite', 'benchmark': 'foreach', 'cell': 'RNNCell',
    ...          'ctx': 'cpu(0)', 'seq_len': 2, 'batch_size': 1, 'hidden_dim': 4,
    ...          'is_train': False, 'hybridize_cell': False, 'hybridize_layer': False,
    ...          'median': 2.0, 'q1': 1.9, 'q3': 2.2}]
    >>> print(summarize(rows, 'csv').splitlines()[1])
    gluonlite,foreach,RNNCell,cpu(0),2,1,4,infer,False,False,2.0000,1.9000,2.2000,1.000,,
"""
import csv
import html
import io
import re

from .matrix import FLOOR_IMPLS
from .results import spread

__all__ = ["summarize", "summarize_by_host", "table_rows", "ratio_rows", "legends", "FORMATS",
           "TITLE", "LEGEND", "UNRELIABLE_LEGEND", "NOISY", "UNRELIABLE", "UNRELIABLE_WIDTH"]

FORMATS = ("text", "markdown", "csv", "html")
NOISY = "~"
UNRELIABLE = "!"
# the spreads of two cases timed apart let their ratio range over more than this factor
UNRELIABLE_WIDTH = 1.5
TITLE = ("medians of the timed rounds (ms) with their interquartile range q1..q3; "
         "speedup = imperative median / median (>1 better); x floor-* = median / numpy "
         "floor median, timed in the same rounds (<1 better)")
LEGEND = (f"{NOISY} = within noise: over the two cases' interquartile ranges the ratio "
          "could fall on either side of 1")
UNRELIABLE_LEGEND = (f"{UNRELIABLE} = unreliable: the two cases were timed apart and the "
                     "floors timed with each moved between them (the load changed), or their "
                     f"spreads allow ratios more than {UNRELIABLE_WIDTH}x apart")
_SIZE = ("cell", "seq_len", "batch_size", "hidden_dim", "is_train")


def _mode(rec):
    return "train" if rec.get("is_train") else "infer"


def _fmt(value, digits):
    return "" if value is None else f"{value:.{digits}f}"


def _ratio(num, den):
    """(median ratio, could it flip across 1, low, high) of two records' spreads; None
    when either is missing or zero."""
    if num is None or den is None:
        return None
    (m1, lo1, hi1), (m2, lo2, hi2) = spread(num), spread(den)
    if not m1 or not m2 or not lo2 or not hi2:
        return None
    low, high = lo1 / hi2, hi1 / lo2
    return m1 / m2, low < 1.0 < high, low, high


def _cell(num, den, apart, drift=None):
    """One ratio cell: {'value', 'noisy', 'unreliable'} (value None when it cannot be
    computed). `apart`: the two were timed apart; `drift`: for those, whether the floors
    timed with each moved between them (None: no such floors)."""
    r = _ratio(num, den)
    if r is None:
        return {"value": None, "noisy": False, "unreliable": False}
    value, noisy, low, high = r
    unreliable = apart and (drift if drift is not None else
                            (low > 0 and high / low > UNRELIABLE_WIDTH))
    return {"value": value, "noisy": noisy and num is not den, "unreliable": bool(unreliable)}


def _drift(a, b):
    """Whether a floor timed with both records moved between them (IQRs apart), or None
    when they do not both carry one."""
    fa, fb = a.get("interleaved") or {}, b.get("interleaved") or {}
    common = [i for i in FLOOR_IMPLS if i in fa and i in fb]
    if not common:
        return None
    (_, lo_a, hi_a), (_, lo_b, hi_b) = spread(fa[common[0]]), spread(fb[common[0]])
    return hi_a < lo_b or hi_b < lo_a


def ratio_rows(records):
    """Per record, its ratio cells: a list of dicts with `record`, `speedup` and, per floor
    impl present, `x IMPL`, each a dict {'value', 'noisy', 'unreliable'}; plus the list of
    floor impls.

    Args:
        records: result dicts (from a run and/or a results file); failed ones are skipped.

    Example::

        from gluonlite.bench.summary import ratio_rows
        rec = dict(impl='gluonlite', benchmark='foreach', cell='RNNCell', ctx='cpu(0)', seq_len=2,
                   batch_size=1, hidden_dim=4, is_train=False, hybridize_cell=False,
                   hybridize_layer=False, median=2.0, q1=1.9, q3=2.2)
        rows, impls = ratio_rows([rec, dict(rec, hybridize_cell=True, median=1.0, q1=0.9, q3=1.1)])
        print(rows[1]['speedup']['value'], impls)  # 2.0 []
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
    impls = [i for i in FLOOR_IMPLS
             if any(k[0] == i for k in floors) or any(i in (r.get("interleaved") or {})
                                                      for r in records)]
    return [_row(r, floors, imperative, impls) for r in records], impls


def _row(r, floors, imperative, impls):
    empty = {"value": None, "noisy": False, "unreliable": False}
    row = {"record": r, "speedup": empty}
    row.update({f"x {i}": empty for i in impls})
    if r.get("impl", "gluonlite") != "gluonlite":
        return row
    size = (r.get("ctx"),) + tuple(r.get(k) for k in _SIZE)
    base = imperative.get((r.get("benchmark"),) + size)
    if base is not None:
        row["speedup"] = _cell(base, r, base is not r, _drift(base, r))
    for i in impls:
        together = (r.get("interleaved") or {}).get(i)
        row[f"x {i}"] = (_cell(r, together, False) if together is not None
                         else _cell(r, floors.get((i,) + size), True))
    return row


def table_rows(records, marks=True):
    """(header, rows) of the summary; rows are lists of strings, in record order.

    Args:
        records: result dicts (from the run and/or a results file).
        marks: append NOISY / UNRELIABLE to the ratios they apply to (False: the `noisy`
            and `unreliable` columns name them).

    Example::

        from gluonlite.bench.summary import table_rows
        rec = dict(impl='gluonlite', benchmark='foreach', cell='RNNCell', ctx='cpu(0)', seq_len=2,
                   batch_size=1, hidden_dim=4, is_train=True, hybridize_cell=False,
                   hybridize_layer=False, median=2.0, q1=1.9, q3=2.2)
        header, rows = table_rows([rec])
        print(header[10], rows[0][7], rows[0][10])  # median_ms train 2.0000
    """
    rows_in, impls = ratio_rows(records)
    ratio_cols = ["speedup"] + [f"x {i}" for i in impls]
    header = (["impl", "benchmark", "cell", "ctx", "seq_len", "batch", "hidden", "mode",
               "hyb_cell", "hyb_layer", "median_ms", "q1_ms", "q3_ms", "speedup (>1 better)"]
              + [f"x {i} (<1 better)" for i in impls]
              + ([] if marks else ["noisy", "unreliable"]))
    rows = []
    for row in rows_in:
        r = row["record"]
        med, q1, q3 = spread(r)
        cells = [_fmt(row[c]["value"], 3) + (NOISY if marks and row[c]["noisy"] else "")
                 + (UNRELIABLE if marks and row[c]["unreliable"] else "") for c in ratio_cols]
        flags = [] if marks else [";".join(c for c in ratio_cols if row[c][kind])
                                  for kind in ("noisy", "unreliable")]
        rows.append([r.get("impl", "gluonlite"), r.get("benchmark") or "", r.get("cell"),
                     r.get("ctx"), str(r.get("seq_len")), str(r.get("batch_size")),
                     str(r.get("hidden_dim")), _mode(r),
                     "" if r.get("hybridize_cell") is None else str(r["hybridize_cell"]),
                     "" if r.get("hybridize_layer") is None else str(r["hybridize_layer"]),
                     _fmt(med, 4), _fmt(q1, 4), _fmt(q3, 4)] + cells + flags)
    return header, rows


def legends(text, fmt):
    """The legend lines a rendered summary needs: NOISY's and UNRELIABLE's, when it uses
    them (CSV: when their columns name something).

    Args:
        text: the rendered summary.
        fmt: its format: 'text', 'markdown', 'csv' or 'html'.

    Returns:
        A list of str (empty when no marker is used).

    Example::

        from gluonlite.bench.summary import legends
        print(legends('1.000~', 'text')[0][:20])  # ~ = within noise: ov
        print(legends('1.000', 'text'))  # []
    """
    if fmt == "csv":
        rows = list(csv.reader(io.StringIO(text)))
        cols = {name: k for k, name in enumerate(rows[0])} if rows else {}
        used = {kind: any(len(r) > cols[kind] and r[cols[kind]] for r in rows[1:])
                for kind in ("noisy", "unreliable") if kind in cols}
        noisy, unreliable = used.get("noisy", False), used.get("unreliable", False)
    else:
        noisy = re.search(r"\d" + re.escape(NOISY), text) is not None
        unreliable = re.search(r"[\d" + re.escape(NOISY) + "]" + re.escape(UNRELIABLE),
                               text) is not None
    return [line for line, used in ((LEGEND, noisy), (UNRELIABLE_LEGEND, unreliable)) if used]


def render_table(header, rows, fmt):
    """`header` and `rows` (lists of cells) as one table in `fmt` (one of `FORMATS`; anything
    else gives the aligned text table).

    Returns:
        str without a trailing newline.

    Example::

        from gluonlite.bench.summary import render_table
        print(render_table(["a", "b"], [["1", "2"]], "markdown"))
        # | a | b |
        # |---|---|
        # | 1 | 2 |
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

    Example::

        from gluonlite.bench.summary import summarize
        rec = dict(impl='gluonlite', benchmark='foreach', cell='RNNCell', ctx='cpu(0)', seq_len=2,
                   batch_size=1, hidden_dim=4, is_train=False, hybridize_cell=False,
                   hybridize_layer=False, median=2.0, q1=1.9, q3=2.2)
        print(summarize([rec], 'markdown').splitlines()[2])
        # | gluonlite | foreach | RNNCell | cpu(0) | 2 | 1 | 4 | infer | False | False | 2.0000 |
        # 1.9000 | 2.2000 | 1.000 |
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

    Args:
        records: the result records (dicts, as read from a results file).
        fmt: default 'text': 'text', 'markdown', 'csv' or 'html'.

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
