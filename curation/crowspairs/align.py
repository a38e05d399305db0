"""Keep a translated pair minimal: tag the differing words, read them back, uniformise.

Each sentence is sent with its differing run(s) wrapped in ``<a>`` (DeepL's XML tag handling
keeps a tag around the words it translates). Back from the engine, a sentence is a *frame*
(the text outside the tags) and its group words (the tags' contents). The pair is:

* ``identical`` — both frames are the same: the translations differ only in the group words;
* ``uniformised`` — the frames differ (the group words forced an agreement elsewhere, or the
  engine reworded one sentence): the less-stereotypical sentence is rebuilt on the
  more-stereotypical one's frame with its own group words, and reviewers are told what
  differed, since an agreement may not carry over;
* ``broken`` — a tag was lost or added, so the group words cannot be found: rejected.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from html import escape, unescape

from biasforge.families.crowspairs import differing_spans

_TAGGED = re.compile(r"<a>(.*?)</a>", re.S)
_ANY_TAG = re.compile(r"</?\s*[\w-]+\s*/?>")
HOLE = "\x00"


def tagged(sentence: str, spans: list[tuple[int, int]]) -> str:
    """``sentence`` XML-escaped with each span wrapped in ``<a>``."""
    out, at = [], 0
    for start, end in spans:
        out += [escape(sentence[at:start], quote=False), f"<a>{escape(sentence[start:end])}</a>"]
        at = end
    return "".join([*out, escape(sentence[at:], quote=False)])


def _space(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def read_tagged(translated: str) -> tuple[str, list[str]]:
    """(frame with a hole per tag, the tags' contents), text unescaped."""
    words = [_space(unescape(_ANY_TAG.sub("", w))) for w in _TAGGED.findall(translated)]
    frame = _space(unescape(_ANY_TAG.sub("", _TAGGED.sub(HOLE, translated))))
    return frame, words


def fill(frame: str, words: list[str]) -> str:
    parts = frame.split(HOLE)
    out = [parts[0]]
    for word, part in zip(words, parts[1:], strict=True):
        out += [word, part]
    return _space("".join(out))


@dataclass(frozen=True)
class Aligned:
    """A translated pair and how it came out (see the module docstring)."""

    sent_more: str
    sent_less: str
    status: str
    detail: str


def align_pair(more: str | None, less: str | None, n_more: int, n_less: int) -> Aligned:
    """The translated pair from the engine's tagged outputs (``n_*``: tags sent)."""
    if more is None or less is None:
        return Aligned(more or "", less or "", "broken", "not translated")
    frame_more, words_more = read_tagged(more)
    frame_less, words_less = read_tagged(less)
    plain_more, plain_less = fill(frame_more, words_more), fill(frame_less, words_less)
    if len(words_more) != n_more or len(words_less) != n_less:
        return Aligned(
            plain_more,
            plain_less,
            "broken",
            f"the engine kept {len(words_more)} of {n_more} and {len(words_less)} of {n_less} "
            "group-word tags: the differing words cannot be found",
        )
    if frame_more == frame_less:
        return Aligned(plain_more, plain_less, "identical", "the pair differs only in the tags")
    if n_more != n_less:
        return Aligned(
            plain_more, plain_less, "broken", "the frames differ and the tags do not correspond"
        )
    rebuilt = fill(frame_more, words_less)
    changed = differing_spans(plain_less, rebuilt)[0]
    outside = ", ".join(repr(plain_less[s:e]) for s, e in changed) or "spacing"
    return Aligned(
        plain_more,
        rebuilt,
        "uniformised",
        f"the translations also differed outside the group words ({outside}); the "
        "less-stereotypical sentence was rebuilt on the other's frame: check its agreement",
    )
