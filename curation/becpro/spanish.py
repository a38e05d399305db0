"""Spanish gender agreement for BEC-Pro: profession forms and article choice.

The TFG writes gendered professions in slash notation ("profesor/a de guardería",
"enfermero/a diplomado/a"): each marked word has a masculine form and a feminine one. Words
without a mark are invariant; the rules cannot tell an epicene noun ("electricista") from a
masculine form whose feminine the table does not give ("entrenador"), so such items are
returned with a reason for review instead of a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_MARKED = re.compile(r"^(?P<stem>\w+)/a$")
_ACCENTED_FINAL = str.maketrans("áéíóú", "aeiou")
ARTICLES = {"un/una": ("un", "una"), "el/la": ("el", "la")}
# Endings of nouns that Spanish usually uses for both genders (la electricista, la agente).
_EPICENE_ENDINGS = ("ista", "ante", "ente", "al", "ar", "il", "ble", "eda", "vidas", "ia", "ta")
# Endings that usually mark a masculine form with a distinct feminine (-o/-a, -or/-ora).
_MASCULINE_ENDINGS = ("o", "or", "ón", "és", "án", "ín")


@dataclass
class Inflection:
    """A profession's form for one gender, and anything a reviewer should look at."""

    text: str
    marked_words: list[int] = field(default_factory=list)  # indices of words that agree
    review: list[tuple[str, str]] = field(default_factory=list)  # (rule, detail)


def feminine(stem: str) -> str:
    """Feminine of a slash-marked word: -o becomes -a, otherwise -a is added.

    A stressed final vowel loses its accent when -a is added (campeón → campeona).
    """
    if stem.endswith("o"):
        return stem[:-1] + "a"
    if len(stem) >= 2 and stem[-2] in "áéíóú":
        stem = stem[:-2] + stem[-2].translate(_ACCENTED_FINAL) + stem[-1]
    return stem + "a"


def inflect(notation: str, gender: str) -> Inflection:
    """Resolve slash notation for ``gender`` and flag what the rules cannot decide."""
    words = notation.split()
    out: list[str] = []
    marked: list[int] = []
    for i, word in enumerate(words):
        match = _MARKED.match(word)
        if match:
            stem = match["stem"]
            out.append(stem if gender == "male" else feminine(stem))
            marked.append(i)
        else:
            out.append(word)
    result = Inflection(" ".join(out), marked)
    if not marked:
        head = words[0]
        if head.endswith(_MASCULINE_ENDINGS) and not head.endswith(_EPICENE_ENDINGS):
            if gender == "female":
                result.review.append(
                    (
                        "es_feminine_form_missing",
                        f"the table gives only {notation!r}, which looks masculine; the female item "
                        "uses it unchanged (a feminine form is not given)",
                    )
                )
        else:
            result.review.append(
                (
                    "es_invariant_noun",
                    f"{notation!r} has no gendered form in the table; assumed to serve both genders "
                    "(only the article, if any, shows the gender)",
                )
            )
    return result


def resolve_articles(template: str, gender: str) -> str:
    """Replace the TFG's "un/una" and "el/la" markers with the article agreeing with ``gender``."""
    for marker, (male, female) in ARTICLES.items():
        template = template.replace(marker, male if gender == "male" else female)
    return template
