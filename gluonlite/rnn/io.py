"""Text to batches for the symbolic RNNs (`mx.rnn.io`): `encode_sentences` turns words into
integer codes, `BucketSentenceIter` groups the coded sentences by length into buckets and
yields batches whose `bucket_key` is the bucket's length (for `mx.mod.BucketingModule`).
"""
import bisect
import logging
import random

import numpy as np

from .. import ndarray
from ..io import DataBatch, DataDesc, DataIter

__all__ = ["encode_sentences", "BucketSentenceIter"]


def encode_sentences(sentences, vocab=None, invalid_label=-1, invalid_key="\n",
                     start_label=0, unknown_token=None):
    """Code each word of each sentence as an int.

    Args:
        sentences: a list of sentences, each a list of words (strings).
        vocab: word -> code to start from; None makes a new one (holding ``invalid_key``
            -> ``invalid_label``) that grows as words are met.
        invalid_label: the code no word gets (skipped when numbering).
        invalid_key: the word mapped to `invalid_label` in a new vocabulary.
        start_label: the first code given.
        unknown_token: with a given `vocab`, the word that a word outside it becomes (it is
            given the next code each time, as MXNet does).

    Returns:
        ``(coded_sentences, vocab)``.

    Raises:
        ValueError: a word outside a given `vocab` and no `unknown_token`.

    Example::

        coded, vocab = mx.rnn.encode_sentences([["a", "b"], ["b", "c"]], start_label=1)
        # coded == [[1, 2], [2, 3]]
    """
    idx = start_label
    new_vocab = vocab is None
    if new_vocab:
        vocab = {invalid_key: invalid_label}
    res = []
    for sent in sentences:
        coded = []
        for word in sent:
            if word not in vocab:
                if not (new_vocab or unknown_token):
                    raise ValueError(f"encode_sentences: word {word!r} is not in vocab and "
                                     "no unknown_token is given")
                if idx == invalid_label:
                    idx += 1
                if unknown_token:
                    word = unknown_token
                vocab[word] = idx
                idx += 1
            coded.append(vocab[word])
        res.append(coded)
    return res, vocab


class BucketSentenceIter(DataIter):
    """Batches of coded sentences, grouped by length: each sentence goes to the smallest
    bucket at least as long, padded with `invalid_label`; the label is the sentence shifted
    one word left (next-word prediction). Each epoch shuffles the batches and the sentences
    within buckets (Python's `random` and NumPy's global generators).

    Args:
        sentences: coded sentences (lists of ints).
        batch_size: sentences per batch.
        buckets: the bucket lengths; None: every length that has at least `batch_size`
            sentences.
        invalid_label: the padding code.
        data_name (str): the data's name in `provide_data` (default ``'data'``).
        label_name (str): the label's name in `provide_label` (default
            ``'softmax_label'``).
        dtype: the arrays' dtype.
        layout: 'NT' (batch major) or 'TN' (time major).

    Raises:
        ValueError: a layout other than 'NT' or 'TN'; no bucket.

    Example::

        coded = [[1, 2, 3], [4, 5], [6, 7, 8, 9], [1, 2]]
        it = mx.rnn.BucketSentenceIter(coded, batch_size=2, buckets=[2, 4])
        for batch in it:
            batch.bucket_key, batch.data[0].shape     # (2, (2, 2)) and (4, (2, 4))
    """

    def __init__(self, sentences, batch_size, buckets=None, invalid_label=-1,
                 data_name="data", label_name="softmax_label", dtype="float32",
                 layout="NT"):
        super().__init__(batch_size)
        if layout not in ("NT", "TN"):
            raise ValueError(f"BucketSentenceIter: layout must be 'NT' (batch major) or 'TN' "
                             f"(time major), got {layout!r}")
        if not buckets:
            counts = np.bincount([len(s) for s in sentences])
            buckets = [i for i, n in enumerate(counts) if n >= batch_size]
        buckets = sorted(buckets)
        if not buckets:
            raise ValueError(f"BucketSentenceIter: no bucket: no sentence length occurs "
                             f"batch_size={batch_size} times; pass buckets")
        ndiscard = 0
        data = [[] for _ in buckets]
        for sent in sentences:
            k = bisect.bisect_left(buckets, len(sent))
            if k == len(buckets):
                ndiscard += 1
                continue
            buff = np.full((buckets[k],), invalid_label, dtype=dtype)
            buff[:len(sent)] = sent
            data[k].append(buff)
        self.data = [np.asarray(d, dtype=dtype).reshape((len(d), b))
                     for d, b in zip(data, buckets)]
        if ndiscard:
            logging.warning("BucketSentenceIter: discarded %d sentences longer than the "
                            "largest bucket.", ndiscard)
        self.buckets = buckets
        self.data_name, self.label_name = data_name, label_name
        self.dtype, self.invalid_label = dtype, invalid_label
        self.nddata, self.ndlabel = [], []
        self.layout = layout
        self.major_axis = layout.find("N")
        self.default_bucket_key = max(buckets)
        shape = ((batch_size, self.default_bucket_key) if self.major_axis == 0
                 else (self.default_bucket_key, batch_size))
        self.provide_data = [DataDesc(data_name, shape, layout=layout)]
        self.provide_label = [DataDesc(label_name, shape, layout=layout)]
        self.idx = []
        for i, buck in enumerate(self.data):
            self.idx.extend((i, j) for j in range(0, len(buck) - batch_size + 1, batch_size))
        self.curr_idx = 0
        self.reset()

    def reset(self):
        """Start a new epoch: shuffle the batch order and each bucket's sentences.

        Example::

            it = mx.rnn.BucketSentenceIter([[1, 2], [3, 4]], batch_size=2)
            len(list(it)); it.reset(); len(list(it))   # 1 batch each time
        """
        self.curr_idx = 0
        random.shuffle(self.idx)
        for buck in self.data:
            np.random.shuffle(buck)
        self.nddata, self.ndlabel = [], []
        for buck in self.data:
            label = np.empty_like(buck)
            label[:, :-1] = buck[:, 1:]
            label[:, -1] = self.invalid_label
            self.nddata.append(ndarray.array(buck, dtype=self.dtype))
            self.ndlabel.append(ndarray.array(label, dtype=self.dtype))

    def next(self):
        """The next batch (`bucket_key` = its bucket's length).

        Raises:
            StopIteration: the epoch is over.

        Example::

            it = mx.rnn.BucketSentenceIter([[1, 2, 3], [4, 5, 6]], batch_size=2)
            batch = it.next()
            batch.bucket_key, batch.label[0].shape   # (3, (2, 3))
        """

        if self.curr_idx == len(self.idx):
            raise StopIteration
        i, j = self.idx[self.curr_idx]
        self.curr_idx += 1
        data = self.nddata[i][j:j + self.batch_size]
        label = self.ndlabel[i][j:j + self.batch_size]
        if self.major_axis == 1:
            data, label = data.T, label.T
        return DataBatch([data], [label], pad=0, bucket_key=self.buckets[i],
                         provide_data=[DataDesc(self.data_name, data.shape,
                                                layout=self.layout)],
                         provide_label=[DataDesc(self.label_name, label.shape,
                                                 layout=self.layout)])
