"""`mx.contrib.text`: token counting (`utils`), vocabularies (`vocab.Vocabulary`) and token
embeddings loaded from local files (`embedding.CustomEmbedding`, `CompositeEmbedding`).

gluonlite does not download: the pretrained GloVe and fastText files are not registered.

Example::

    from gluonlite.contrib import text
    counter = text.utils.count_tokens_from_str('a b b\\nc c c')
    vocab = text.vocab.Vocabulary(counter)
    vocab.to_indices(['c', 'zzz'])     # [1, 0]: the unknown token has index 0
"""
from . import utils, vocab, embedding  # noqa: F401

__all__ = ["utils", "vocab", "embedding"]
