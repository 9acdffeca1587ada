"""mx.contrib.text: token counting, Vocabulary indexing, embeddings from local files."""
from collections import Counter

import numpy as np
import pytest

import gluonlite as mx
from gluonlite import nd
from gluonlite.contrib import text


def test_count_tokens_splits_on_both_delimiters():
    cnt = text.utils.count_tokens_from_str("xAyBAxAy", token_delim="A", seq_delim="B")
    assert cnt == Counter({"x": 2, "y": 2})
    base = Counter({"x": 1})
    out = text.utils.count_tokens_from_str("X x", to_lower=True, counter_to_update=base)
    assert out is base and base == Counter({"x": 3})


def test_vocabulary_order_and_limits():
    counter = Counter(["a", "b", "b", "c", "c", "c", "d"])
    v = text.vocab.Vocabulary(counter, unknown_token="<unk>")
    assert v.idx_to_token == ["<unk>", "c", "b", "a", "d"]   # ties in sorted order
    v = text.vocab.Vocabulary(counter, most_freq_count=1, min_freq=2,
                              reserved_tokens=["<pad>", "b"])
    assert v.token_to_idx == {"<unk>": 0, "<pad>": 1, "b": 2, "c": 3}
    v = text.vocab.Vocabulary(counter, min_freq=2, unknown_token="b")
    assert v.idx_to_token == ["b", "c"]
    assert v.to_indices(["c", "zz"]) == [1, 0] and v.to_indices("c") == 1
    assert v.to_tokens([1, 0]) == ["c", "b"] and v.to_tokens(1) == "c"
    with pytest.raises(ValueError):
        v.to_tokens(5)
    for bad in ({"min_freq": 0}, {"reserved_tokens": ["x", "x"]},
                {"reserved_tokens": ["<unk>"]}):
        with pytest.raises(AssertionError):
            text.vocab.Vocabulary(counter, **bad)


def _write(path, lines):
    path.write_text("".join("\t".join(parts) + "\n" for parts in lines))
    return str(path)


def test_custom_embedding_lookup_and_update(tmp_path):
    f = _write(tmp_path / "e.txt", [["a", "1", "2"], ["b", "3", "4"], ["<u>", "9", "9"]])
    emb = text.embedding.CustomEmbedding(f, "\t", init_unknown_vec=nd.ones, unknown_token="<u>")
    assert len(emb) == 3 and emb.vec_len == 2 and emb.idx_to_token == ["<u>", "a", "b"]
    np.testing.assert_allclose(emb.idx_to_vec[0].asnumpy(), [9, 9])   # read from the file
    np.testing.assert_allclose(emb.get_vecs_by_tokens("A").asnumpy(), [9, 9])
    np.testing.assert_allclose(emb.get_vecs_by_tokens(["A"], lower_case_backup=True).asnumpy(),
                               [[1, 2]])
    emb.update_token_vectors("b", nd.array([[5, 6]]))
    np.testing.assert_allclose(emb.get_vecs_by_tokens("b").asnumpy(), [5, 6])
    with pytest.raises(ValueError):
        emb.update_token_vectors("zz", nd.array([0, 0]))
    with pytest.raises(AssertionError):
        emb.update_token_vectors("a", nd.array([0]))


def test_custom_embedding_rejects_bad_files(tmp_path):
    for lines in ([["a", "1"], ["b"]], [["a", "1", "2"], ["b", "1"]]):
        with pytest.raises(AssertionError):
            text.embedding.CustomEmbedding(_write(tmp_path / "bad.txt", lines), "\t")


def test_embeddings_indexed_by_a_vocabulary(tmp_path):
    f1 = _write(tmp_path / "1.txt", [["a", "1", "1"], ["c", "2", "2"]])
    f2 = _write(tmp_path / "2.txt", [["c", "5"]])
    e1 = text.embedding.CustomEmbedding(f1, "\t", init_unknown_vec=nd.ones)
    e2 = text.embedding.CustomEmbedding(f2, "\t")
    vocab = text.vocab.Vocabulary(Counter(["c", "c", "b"]), reserved_tokens=["<pad>"])
    ce = text.embedding.CompositeEmbedding(vocab, [e1, e2])
    assert ce.idx_to_token == ["<unk>", "<pad>", "c", "b"] and ce.reserved_tokens == ["<pad>"]
    np.testing.assert_allclose(ce.idx_to_vec.asnumpy(),
                               [[1, 1, 0], [1, 1, 0], [2, 2, 5], [1, 1, 0]])
    ev = text.embedding.CustomEmbedding(f1, "\t", vocabulary=vocab)
    np.testing.assert_allclose(ev.idx_to_vec.asnumpy(), [[0, 0], [0, 0], [2, 2], [0, 0]])


def test_embedding_registry():
    @text.embedding.register
    class LocalVecs(text.embedding._TokenEmbedding):
        pretrained_file_name_sha1 = {"v.vec": None}

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.made = True

    assert text.embedding.get_pretrained_file_names("localvecs") == ["v.vec"]
    assert text.embedding.get_pretrained_file_names()["localvecs"] == ["v.vec"]
    assert text.embedding.create("LocalVecs").made
    with pytest.raises(KeyError):
        text.embedding.get_pretrained_file_names("nope$")
    assert mx.contrib.text is text
