"""Counting the tokens of a string (`count_tokens_from_str`)."""
import collections
import re

__all__ = ["count_tokens_from_str"]


def count_tokens_from_str(source_str, token_delim=" ", seq_delim="\n", to_lower=False,
                          counter_to_update=None):
    """Count the tokens of `source_str`, split on both delimiters (empty pieces are dropped).

    Args:
        source_str: the text.
        token_delim: the string between tokens.
        seq_delim: the string between sequences (also ends a token).
        to_lower: count lower-cased tokens.
        counter_to_update: a `collections.Counter` to add the counts to (updated in place and
            returned); a new one when None.

    Returns:
        collections.Counter: token -> count.

    Example::

        from gluonlite.contrib.text.utils import count_tokens_from_str
        count_tokens_from_str('Life is\\nlife', to_lower=True)   # Counter({'life': 2, 'is': 1})
    """
    pattern = "|".join(re.escape(d) for d in (token_delim, seq_delim) if d)
    pieces = re.split(pattern, source_str) if pattern else [source_str]
    tokens = [t.lower() if to_lower else t for t in pieces if t]
    counter = collections.Counter() if counter_to_update is None else counter_to_update
    counter.update(tokens)
    return counter
