"""What a benchmark script prints: its Markdown header (command line, environment, case)
and Markdown tables, flushed as they go (progress lines interleave with a subprocess's
stderr).

Example:
    >>> from _tables import markdown_table                        # doctest: +SKIP
    >>> print(markdown_table(["case", "ms"], [["a", "1.0"]]))     # doctest: +SKIP
"""
import statistics
import sys

from _env import env_header

__all__ = ["markdown_table", "flush_print", "print_header", "ab_cells"]


def markdown_table(header, rows):
    """A Markdown table: header is a list of column titles, rows lists of cells.

    Columns after the first are right-aligned.
    """
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def ab_cells(new, old):
    """The cells of an A/B row from the two variants' per-round times (any unit, in the same
    rounds): old's median, new's median, new / old of the medians, and the range of the
    per-round new / old.

    Example:
        >>> ab_cells([1.0, 2.0], [2.0, 2.0])                       # doctest: +SKIP
        ['2.0', '1.5', '0.75', '0.50-1.00']
    """
    ratios = [a / b for a, b in zip(new, old)]
    mn, mo = statistics.median(new), statistics.median(old)
    return [f"{mo:.1f}", f"{mn:.1f}", f"{mn / mo:.2f}", f"{min(ratios):.2f}-{max(ratios):.2f}"]


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
