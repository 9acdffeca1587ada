"""Token embeddings: `CustomEmbedding` (vectors read from a local text file),
`CompositeEmbedding` (several embeddings side by side, indexed by a `Vocabulary`), and the
registry of named embeddings (`register`, `create`, `get_pretrained_file_names`).

An embedding is a `Vocabulary` with one vector per index (`idx_to_vec`, an NDArray of shape
(len, vec_len)); row 0 is the unknown token's vector.

gluonlite does not download: no pretrained embedding (GloVe, fastText) is registered; a
subclass of `_TokenEmbedding` that finds its file under `embedding_root` can be registered.
"""
import io
import logging
import os

import numpy as np

from ... import ndarray as nd
from .vocab import Vocabulary

__all__ = ["register", "create", "get_pretrained_file_names", "CustomEmbedding",
           "CompositeEmbedding"]

_REGISTRY = {}


def register(embedding_cls):
    """Register a `_TokenEmbedding` subclass under its lower-cased class name (a decorator).

    Args:
        embedding_cls: the subclass; `create` and `get_pretrained_file_names` then find it
            by ``embedding_cls.__name__.lower()``.

    Returns:
        `embedding_cls` itself.

    Example::

        from gluonlite.contrib import text
        @text.embedding.register
        class MyEmbed(text.embedding._TokenEmbedding):
            pretrained_file_name_sha1 = {'my.vec': None}
        text.embedding.get_pretrained_file_names('myembed')   # ['my.vec']
    """
    _REGISTRY[embedding_cls.__name__.lower()] = embedding_cls
    return embedding_cls


def create(embedding_name, **kwargs):
    """An instance of the registered embedding `embedding_name` (case-insensitive).

    Raises:
        KeyError: no embedding of that name is registered.

    Example::

        from gluonlite.contrib import text
        @text.embedding.register
        class Empty(text.embedding._TokenEmbedding):
            pass
        len(text.embedding.create('empty'))   # 1: the unknown token
    """
    name = embedding_name.lower()
    if name not in _REGISTRY:
        raise KeyError(f"Cannot find `embedding_name` {embedding_name}. Valid names: "
                       f"{', '.join(sorted(_REGISTRY))}")
    return _REGISTRY[name](**kwargs)


def get_pretrained_file_names(embedding_name=None):
    """The pretrained file names of a registered embedding (a list), or of all of them (a dict
    name -> list) when `embedding_name` is None.

    Raises:
        KeyError: no embedding of that name is registered.

    Example::

        from gluonlite.contrib import text
        sorted(text.embedding.get_pretrained_file_names())   # registered names, no downloads
    """
    if embedding_name is None:
        return {name: list(cls.pretrained_file_name_sha1) for name, cls in _REGISTRY.items()}
    name = embedding_name.lower()
    if name not in _REGISTRY:
        raise KeyError(f"Cannot find `embedding_name` {embedding_name}. Valid names: "
                       f"{', '.join(sorted(_REGISTRY))}")
    return list(_REGISTRY[name].pretrained_file_name_sha1)


class _TokenEmbedding(Vocabulary):
    """The base of token embeddings: a `Vocabulary` with `idx_to_vec`.

    Subclasses read vectors with `_load_embedding(path, elem_delim, init_unknown_vec)`; a
    file holds one token per line followed by its vector's elements, all separated by
    `elem_delim`.
    """

    pretrained_file_name_sha1 = {}

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._idx_to_vec = None

    @classmethod
    def _check_pretrained_file_names(cls, pretrained_file_name):
        if pretrained_file_name not in cls.pretrained_file_name_sha1:
            raise KeyError(f"Cannot find pretrained file {pretrained_file_name} for token "
                           f"embedding {cls.__name__.lower()}. Valid pretrained files: "
                           f"{', '.join(cls.pretrained_file_name_sha1)}")

    @classmethod
    def _get_pretrained_file(cls, embedding_root, pretrained_file_name):
        path = os.path.join(os.path.expanduser(embedding_root), cls.__name__.lower(),
                            pretrained_file_name)
        if not os.path.exists(path):
            raise FileNotFoundError(f"{path!r} not found; gluonlite does not download "
                                    "pretrained embeddings: place the file at that path")
        return path

    def _load_embedding(self, pretrained_file_path, elem_delim, init_unknown_vec,
                        encoding="utf8"):
        """Index the tokens of the file after those already indexed; the unknown token's
        vector is the file's when the file has that token, else ``init_unknown_vec``."""
        path = os.path.expanduser(pretrained_file_path)
        if not os.path.isfile(path):
            raise ValueError(f"`pretrained_file_path` must be a valid path to the pre-trained "
                             f"token embedding file, got {pretrained_file_path!r}")
        vec_len = None
        rows = []
        unknown_row = None
        with io.open(path, "r", encoding=encoding) as f:
            for line_num, line in enumerate(f, 1):
                elems = line.rstrip("\r\n").split(elem_delim)
                assert len(elems) > 1, (f"At line {line_num} of the pre-trained text embedding "
                                        f"file: the data format is unexpected.")
                token, vec = elems[0], [float(e) for e in elems[1:]]
                if vec_len is None:
                    vec_len = len(vec)
                assert len(vec) == vec_len, (
                    f"At line {line_num} of the pre-trained token embedding file: the dimension "
                    f"of token {token} is {len(vec)} but the dimension of previous tokens is "
                    f"{vec_len}. Dimensions of all the tokens must be the same.")
                if token == self.unknown_token:
                    unknown_row = vec
                elif token in self._token_to_idx:
                    logging.warning("At line %d of the pre-trained token embedding file: the "
                                    "embedding vector for token %s has been loaded and a "
                                    "duplicate embedding for the same token is seen and "
                                    "skipped.", line_num, token)
                else:
                    self._token_to_idx[token] = len(self._idx_to_token)
                    self._idx_to_token.append(token)
                    rows.append(vec)
        vec_len = vec_len or 0
        table = np.zeros((len(self._idx_to_token), vec_len), dtype=np.float32)
        if rows:
            table[len(self._idx_to_token) - len(rows):] = np.asarray(rows, dtype=np.float32)
        if unknown_row is not None:
            table[0] = unknown_row
        else:
            table[0] = init_unknown_vec(shape=vec_len).asnumpy()
        self._idx_to_vec = nd.array(table)

    def _set_from_embeddings(self, vocabulary, embeddings):
        """Take `vocabulary`'s index and, for each of its tokens, the concatenated vectors of
        `embeddings` (row 0: each embedding's unknown vector)."""
        self._unknown_token = vocabulary.unknown_token
        self._reserved_tokens = (None if vocabulary.reserved_tokens is None
                                 else list(vocabulary.reserved_tokens))
        self._idx_to_token = list(vocabulary.idx_to_token)
        self._token_to_idx = dict(vocabulary.token_to_idx)
        parts = []
        for emb in embeddings:
            block = np.empty((len(self._idx_to_token), emb.vec_len), dtype=np.float32)
            block[0] = emb.idx_to_vec[0].asnumpy()
            if len(self._idx_to_token) > 1:
                block[1:] = emb.get_vecs_by_tokens(self._idx_to_token[1:]).asnumpy()
            parts.append(block)
        self._idx_to_vec = nd.array(np.concatenate(parts, axis=1))

    @property
    def vec_len(self):
        """int: the length of each vector."""
        return self._idx_to_vec.shape[1]

    @property
    def idx_to_vec(self):
        """NDArray (len, vec_len): the vector of each index."""
        return self._idx_to_vec

    def get_vecs_by_tokens(self, tokens, lower_case_backup=False):
        """The vector of a token (1-D) or the vectors of a list of tokens (2-D); a token not
        indexed gets the unknown token's vector.

        Args:
            tokens: a token or a list of tokens.
            lower_case_backup: look a token not indexed up again in lower case.
        """
        single = not isinstance(tokens, list)
        toks = [tokens] if single else tokens
        idx = []
        for t in toks:
            if t not in self._token_to_idx and lower_case_backup and isinstance(t, str):
                t = t.lower()
            idx.append(self._token_to_idx.get(t, 0))
        vecs = nd.array(self._idx_to_vec.asnumpy()[np.asarray(idx, dtype=np.int64)])
        return vecs[0] if single else vecs

    def update_token_vectors(self, tokens, new_vectors):
        """Replace the vectors of indexed tokens.

        Args:
            tokens: a token or a list of tokens.
            new_vectors: an NDArray (len(tokens), vec_len), or (vec_len,) for one token.

        Raises:
            AssertionError: the shape of new_vectors does not fit.
            ValueError: a token is not indexed (the unknown token itself may be updated).
        """
        assert self._idx_to_vec is not None, "The property `idx_to_vec` has not been properly set."
        toks = tokens if isinstance(tokens, list) else [tokens]
        vecs = new_vectors.asnumpy()
        if vecs.ndim == 1:
            vecs = vecs.reshape(1, -1)
        assert vecs.ndim == 2 and vecs.shape == (len(toks), self.vec_len), \
            "The shape of `new_vectors` must be (len(tokens), vec_len)."
        idx = []
        for t in toks:
            if t not in self._token_to_idx:
                raise ValueError(f"Token {t} is unknown. To update the embedding vector for an "
                                 f"unknown token, please specify it explicitly as the "
                                 f"`unknown_token` {self.unknown_token} in `tokens`. This is to "
                                 "avoid unintended updates.")
            idx.append(self._token_to_idx[t])
        table = self._idx_to_vec.asnumpy().copy()
        table[np.asarray(idx, dtype=np.int64)] = vecs
        self._idx_to_vec = nd.array(table)


class CustomEmbedding(_TokenEmbedding):
    """Token vectors read from a local text file: one token per line followed by its vector's
    elements, all separated by `elem_delim`.

    Args:
        pretrained_file_path: the file.
        elem_delim: the separator within a line.
        encoding: the file's encoding.
        init_unknown_vec: called as ``init_unknown_vec(shape=vec_len)`` for the unknown
            token's vector when the file does not hold that token (default `nd.zeros`).
        vocabulary: a `Vocabulary` to index by instead of the file's tokens (tokens of the
            vocabulary not in the file get the unknown vector).
        **kwargs: `unknown_token`, `reserved_tokens` (as `Vocabulary`).

    Raises:
        AssertionError: a line without a vector, or vectors of different lengths.

    Example::

        from gluonlite.contrib import text
        with open('vecs.txt', 'w') as f:
            print('hello 0.1 0.2', file=f)
            print('world 0.3 0.4', file=f)
        emb = text.embedding.CustomEmbedding('vecs.txt', ' ')
        emb.get_vecs_by_tokens(['hello', 'world'])   # NDArray (2, vec_len)
    """

    def __init__(self, pretrained_file_path, elem_delim=" ", encoding="utf8",
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        super().__init__(**kwargs)
        self._load_embedding(pretrained_file_path, elem_delim, init_unknown_vec, encoding)
        if vocabulary is not None:
            loaded = _TokenEmbedding.__new__(_TokenEmbedding)
            loaded.__dict__.update(self.__dict__)
            self._set_from_embeddings(vocabulary, [loaded])


class CompositeEmbedding(_TokenEmbedding):
    """Several embeddings side by side, indexed by `vocabulary`: a token's vector is the
    concatenation of its vector in each embedding (row 0: each one's unknown vector).

    Args:
        vocabulary: the `Vocabulary`.
        token_embeddings: one embedding or a list of them.

    Example::

        from collections import Counter
        from gluonlite.contrib import text
        with open('vecs.txt', 'w') as f:
            print('a 1 2', file=f)
        emb = text.embedding.CustomEmbedding('vecs.txt', ' ')
        vocab = text.vocab.Vocabulary(Counter(['a', 'b']))
        text.embedding.CompositeEmbedding(vocab, [emb, emb]).idx_to_vec.shape   # (3, 4)
    """

    def __init__(self, vocabulary, token_embeddings):
        if not isinstance(token_embeddings, list):
            token_embeddings = [token_embeddings]
        for emb in token_embeddings:
            assert isinstance(emb, _TokenEmbedding), \
                "The parameter `token_embeddings` must be a token embedding or a list of them."
        assert isinstance(vocabulary, Vocabulary), \
            "The argument `vocabulary` must be an instance of Vocabulary."
        super().__init__()
        self._set_from_embeddings(vocabulary, token_embeddings)
