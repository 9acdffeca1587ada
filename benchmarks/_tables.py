"""What a benchmark script prints: its Markdown header (command line, environment, case)
and Markdown tables, flushed as they go (progress lines interleave with a subprocess's
stderr).

Example:
    >>> from _tables import markdown_table                        # doctest: +SKIP
    >>> print(markdown_table(["case", "ms"], [["a", "1.0"]]))     # doctest: +SKIP
"""
import sys

from _env import env_header

__all__ = ["markdown_table", "flush_print", "print_header"]


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
