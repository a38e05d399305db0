"""Keep the attribute aligned through machine translation, and the triplet's structure intact.

An intrasentence test is one context with a ``BLANK`` slot and three fillers (the
attributes). Translating the three full sentences independently breaks the structure in about
half of the cases (Adam-Cuvillier et al. 2024, §2.1): articles, agreement or word order change
outside the slot. So:

1. each sentence is sent with its filler wrapped in an XML tag (``<a>filler</a>``, DeepL
   ``tag_handling=xml``); the translated filler is read back from the tag, and the rest of the
   sentence, with the tag replaced by ``BLANK``, is that sentence's *frame*;
2. the context is sent once with the slot as an untranslatable tag (``<x>BLANK</x>``, DeepL
   ``ignore_tags``), giving one translated frame;
3. if the three sentence frames are identical, the triplet is kept as translated; otherwise it
   is *uniformised*: the one context frame filled with each translated filler. What cannot be
   uniformised (a tag lost by the engine) is flagged for annotators with the reason.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from dataclasses import dataclass
from xml.sax.saxutils import escape, unescape

from biasforge.curation.language_pack import Token

SLOT = "BLANK"
_ATTR = re.compile(r"<a>(.*?)</a>", re.S)
_SLOT_TAG = re.compile(r"<x>\s*BLANK\s*</x>")
_ANY_TAG = re.compile(r"</?\s*[\w-]+\s*/?>")
#: a language pack's tokenizer (:meth:`LanguagePack.tokens`)
Tokenize = Callable[[str], list[Token]]


def split_frame(context: str) -> tuple[str, str] | None:
    """``(prefix, suffix)`` around the single ``BLANK`` of a context, or None."""
    if context.count(SLOT) != 1:
        return None
    prefix, suffix = context.split(SLOT)
    return prefix, suffix


def source_attribute(context: str, sentence: str) -> str | None:
    """The words a sentence puts in the context's slot (case-insensitive), or None.

    The flattened StereoSet lower-cases sentences ("The crimean people i met…") while the
    context keeps its capitals; matching ignores case and the attribute is taken as written.
    """
    frame = split_frame(context)
    if frame is None:
        return None
    prefix, suffix = frame
    low, pre, suf = sentence.lower(), prefix.lower(), suffix.lower()
    if len(sentence) < len(prefix) + len(suffix) or not (low.startswith(pre) and low.endswith(suf)):
        return None
    attribute = sentence[len(prefix) : len(sentence) - len(suffix)].strip()
    return attribute or None


def fill(context: str, attribute: str) -> str:
    """The sentence of a frame with its slot filled."""
    return context.replace(SLOT, attribute, 1)


def tagged_sentence(context: str, attribute: str) -> str:
    """The sentence to translate, filler wrapped in ``<a>``; text XML-escaped."""
    prefix, suffix = split_frame(context) or (context, "")
    return f"{escape(prefix)}<a>{escape(attribute)}</a>{escape(suffix)}"


def tagged_context(context: str) -> str:
    """The context to translate once, the slot kept as an untranslatable tag."""
    prefix, suffix = split_frame(context) or (context, "")
    return f"{escape(prefix)}<x>{SLOT}</x>{escape(suffix)}"


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", unescape(_ANY_TAG.sub("", text))).strip()


def untag(text: str) -> str:
    """A translated text without its XML tags (for showing a broken item to reviewers)."""
    return _clean(text)


def read_tagged_sentence(translated: str) -> tuple[str, str] | None:
    """``(frame, attribute)`` from a translated tagged sentence, or None if the tag was lost."""
    found = _ATTR.findall(translated)
    if len(found) != 1:
        return None
    marked = _ATTR.sub("\x00", translated, count=1)
    frame = _clean(marked).replace("\x00", SLOT)
    attribute = _clean(found[0])
    if not attribute:
        return None
    return frame, attribute


def read_tagged_context(translated: str) -> str | None:
    """The translated context with ``BLANK`` back in its slot, or None if the slot was lost."""
    if len(_SLOT_TAG.findall(translated)) != 1:
        return None
    return _clean(_SLOT_TAG.sub("\x00", translated)).replace("\x00", SLOT)


def word_differences(frames: list[str], tokens: Tokenize) -> list[str]:
    """The tokens that differ between frames ("un/une", "个/位"), for reviewers: position by
    position when the frames have as many tokens, else each run of tokens that differs
    (``difflib`` on the token sequences, read as written in each frame)."""
    split = [tokens(f) for f in frames]
    if len({len(s) for s in split}) == 1:
        return [
            "/".join(dict.fromkeys(t.text for t in column))
            for column in zip(*split, strict=True)
            if len({t.text for t in column}) > 1
        ]
    first, diffs = split[0], []
    for frame, other in zip(frames[1:], split[1:], strict=True):
        matcher = difflib.SequenceMatcher(None, [t.text for t in first], [t.text for t in other])
        for op, i1, i2, j1, j2 in matcher.get_opcodes():
            if op != "equal":
                diffs.append(f"{_run(frames[0], first[i1:i2])}/{_run(frame, other[j1:j2])}")
    return list(dict.fromkeys(diffs))


def _run(text: str, run: list[Token]) -> str:
    """A run of tokens as written in ``text`` (spaces kept), or ∅ for none."""
    return text[run[0].start : run[-1].end] if run else "∅"


def words_next_to_slot(frame: str, tokens: Tokenize) -> tuple[str, str]:
    """The token just before and just after the slot, lower-cased without quotes and
    punctuation (empty strings at the edges, or where punctuation stands next to it)."""
    halves = split_frame(frame)
    if halves is None:
        return "", ""
    start = len(halves[0])
    end = start + len(SLOT)
    split = tokens(frame)  # the whole frame: a tokenizer reads "l'BLANK" as "l'" + the slot
    before = [t.text for t in split if t.end <= start][-1:]
    after = [t.text for t in split if t.start >= end][:1]
    return _bare(before[0] if before else ""), _bare(after[0] if after else "")


def _bare(token: str) -> str:
    return token.strip(".,;:!?«»\"'").lower()


@dataclass(frozen=True)
class Structure:
    """How an intrasentence triplet came out of translation."""

    status: str  # identical | uniformised | broken
    context: str  # the translated context, with BLANK
    attributes: tuple[str | None, ...]
    sentences: tuple[str | None, ...]
    detail: str


def align_triplet(
    context_translation: str | None, sentence_translations: list[str | None], tokens: Tokenize
) -> Structure:
    """Decide a translated triplet's structure and build its sentences (see module doc);
    ``tokens`` splits a frame to name where frames differ."""
    read = [read_tagged_sentence(t) if t is not None else None for t in sentence_translations]
    attributes = tuple(r[1] if r else None for r in read)
    frames = [r[0] for r in read if r]
    context = read_tagged_context(context_translation) if context_translation else None
    if len(frames) == len(read) and len(set(frames)) == 1:
        frame = frames[0]
        return Structure(
            "identical",
            frame,
            attributes,
            tuple(fill(frame, a) for a in attributes),  # type: ignore[arg-type]
            "the three translated sentences differ only in the attribute",
        )
    problems = []
    lost = [i for i, r in enumerate(read) if r is None]
    if lost:
        problems.append(f"attribute tag lost in sentence(s) {', '.join(str(i + 1) for i in lost)}")
    if len(set(frames)) > 1:
        problems.append("frames differ: " + "; ".join(word_differences(frames, tokens)))
    if context is None:
        return Structure(
            "broken",
            frames[0] if frames else "",
            attributes,
            tuple(None for _ in attributes),
            "; ".join([*problems, "slot lost when translating the context"]),
        )
    if lost:
        return Structure(
            "broken", context, attributes, tuple(None for _ in attributes), "; ".join(problems)
        )
    return Structure(
        "uniformised",
        context,
        attributes,
        tuple(fill(context, a) for a in attributes),  # type: ignore[arg-type]
        "uniformised on the translated context (" + "; ".join(problems) + ")",
    )
