"""`Vocabulary`: indices for tokens (the unknown token first, then the reserved tokens, then
the counted tokens by falling frequency)."""
__all__ = ["Vocabulary"]


class Vocabulary:
    """Indices for the tokens of a counter.

    Index 0 is `unknown_token`, then come `reserved_tokens` in their order, then the counted
    tokens by falling count (ties in sorted token order), those counted at least `min_freq`
    times and at most `most_freq_count` of them; tokens already indexed are not repeated.

    Args:
        counter: a `collections.Counter` of tokens (any hashable), or None.
        most_freq_count: the most counted tokens to index (None: all).
        min_freq: the least count of an indexed token (> 0).
        unknown_token: the token that stands for every token not indexed.
        reserved_tokens: a list of distinct tokens indexed right after the unknown token.

    Example::

        from collections import Counter
        from gluonlite.contrib.text.vocab import Vocabulary
        v = Vocabulary(Counter(['a', 'b', 'b']), reserved_tokens=['<pad>'])
        v.idx_to_token      # ['<unk>', '<pad>', 'b', 'a']
        v.to_indices('x')   # 0
    """

    def __init__(self, counter=None, most_freq_count=None, min_freq=1, unknown_token="<unk>",
                 reserved_tokens=None):
        assert min_freq > 0, "`min_freq` must be set to a positive value."
        if reserved_tokens is not None:
            reserved = set(reserved_tokens)
            assert unknown_token not in reserved, \
                "`reserved_token` cannot contain `unknown_token`."
            assert len(reserved) == len(reserved_tokens), \
                "`reserved_tokens` cannot contain duplicate reserved tokens."
        self._unknown_token = unknown_token
        self._reserved_tokens = None if reserved_tokens is None else list(reserved_tokens)
        self._idx_to_token = [unknown_token] + list(reserved_tokens or [])
        self._token_to_idx = {t: i for i, t in enumerate(self._idx_to_token)}
        if counter is not None:
            self._index_counter(counter, most_freq_count, min_freq)

    def _index_counter(self, counter, most_freq_count, min_freq):
        ordered = sorted(counter.items(), key=lambda kv: kv[0])
        ordered.sort(key=lambda kv: kv[1], reverse=True)
        limit = len(ordered) if most_freq_count is None else most_freq_count
        added = 0
        for token, freq in ordered:
            if freq < min_freq or added >= limit:
                break
            if token in self._token_to_idx:
                continue
            self._token_to_idx[token] = len(self._idx_to_token)
            self._idx_to_token.append(token)
            added += 1

    def __len__(self):
        return len(self._idx_to_token)

    @property
    def token_to_idx(self):
        """dict: token -> index.

        Example::

            from collections import Counter
            from gluonlite.contrib.text.vocab import Vocabulary
            v = Vocabulary(Counter(['a', 'b', 'b']), reserved_tokens=['<pad>'])
            v.token_to_idx      # {'<unk>': 0, '<pad>': 1, 'b': 2, 'a': 3}
        """
        return self._token_to_idx

    @property
    def idx_to_token(self):
        """list: index -> token.

        Example::

            from collections import Counter
            from gluonlite.contrib.text.vocab import Vocabulary
            v = Vocabulary(Counter(['a', 'b', 'b']), reserved_tokens=['<pad>'])
            v.idx_to_token      # ['<unk>', '<pad>', 'b', 'a']
        """
        return self._idx_to_token

    @property
    def unknown_token(self):
        """The token of index 0.

        Example::

            from collections import Counter
            from gluonlite.contrib.text.vocab import Vocabulary
            v = Vocabulary(Counter(['a', 'b', 'b']), reserved_tokens=['<pad>'])
            v.unknown_token     # '<unk>'
        """
        return self._unknown_token

    @property
    def reserved_tokens(self):
        """The reserved tokens (a list) or None.

        Example::

            from collections import Counter
            from gluonlite.contrib.text.vocab import Vocabulary
            v = Vocabulary(Counter(['a', 'b', 'b']), reserved_tokens=['<pad>'])
            v.reserved_tokens   # ['<pad>']
        """
        return self._reserved_tokens

    def to_indices(self, tokens):
        """The index of a token, or the list of indices of a list of tokens (0 for a token not
        indexed).

        Args:
            tokens: a token (str) or a list of tokens.

        Example::

            from collections import Counter
            from gluonlite.contrib.text.vocab import Vocabulary
            v = Vocabulary(Counter(['a', 'b', 'b']), reserved_tokens=['<pad>'])
            v.to_indices(['b', 'zz'])   # [2, 0]
        """
        if isinstance(tokens, list):
            return [self._token_to_idx.get(t, 0) for t in tokens]
        return self._token_to_idx.get(tokens, 0)

    def to_tokens(self, indices):
        """The token of an index, or the list of tokens of a list of indices.

        Args:
            indices: an int or a list of ints.

        Raises:
            ValueError: an index outside [0, len(self)).

        Example::

            from collections import Counter
            from gluonlite.contrib.text.vocab import Vocabulary
            v = Vocabulary(Counter(['a', 'b', 'b']), reserved_tokens=['<pad>'])
            v.to_tokens([2, 0])         # ['b', '<unk>']
        """
        many = isinstance(indices, list)
        out = []
        for i in indices if many else [indices]:
            if not isinstance(i, int) or not 0 <= i < len(self._idx_to_token):
                raise ValueError(f"Token index {i} in the provided `indices` is invalid.")
            out.append(self._idx_to_token[i])
        return out if many else out[0]
