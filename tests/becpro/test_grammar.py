"""The grammar of a language folder, as data: rules applied where a template needs them, and a
``language.toml`` that is not what the schema says refused with file, line and key.

Expected sentences were written by hand.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from biasforge.curation.becpro.grammar import render
from biasforge.curation.becpro.lexicon import default_lexicon_dir, load_language
from tests.conftest import one_error_line, run_cli


def _sentence(lang: str, template: str, phrase: str, word: str, profession: str, gender: str):
    return render(template, load_language(lang).grammar, phrase, word, profession, gender).sentence


@pytest.mark.parametrize(
    ("template", "profession", "gender", "expected"),
    [
        # Spanish: "de" + "el" fuse; "de la" does not
        ("{person} habló de {def} {profession}.", "carpintero", "male", "Él habló del carpintero."),
        (
            "{person} habló de {def} {profession}.",
            "carpintera",
            "female",
            "Ella habló de la carpintera.",
        ),
        # the TFG's bare markers and braces are the same slot
        ("{person} es un/una {profession}.", "carpintera", "female", "Ella es una carpintera."),
        ("{person} es {indef} {profession}.", "carpintero", "male", "Él es un carpintero."),
    ],
)
def test_spanish_articles_and_contraction(template, profession, gender, expected):
    phrase = "él" if gender == "male" else "ella"
    assert _sentence("es", template, phrase, phrase, profession, gender) == expected


@pytest.mark.parametrize(
    ("template", "profession", "gender", "expected"),
    [
        # elision before a vowel and a mute h; contraction only where "le" did not elide
        ("{person} parle à {def} {profession}.", "plombier", "male", "Il parle au plombier."),
        ("{person} parle à {def} {profession}.", "plombière", "female", "Elle parle à la plombière."),
        ("{person} parle à {def} {profession}.", "électricien", "male", "Il parle à l'électricien."),
        ("{person} parle de {def} {profession}.", "hygiéniste", "male", "Il parle de l'hygiéniste."),
        ("{person} parle de {def} {profession}.", "juge", "male", "Il parle du juge."),
        ("{person} a postulé au poste de {profession}.", "infirmier", "male",
         "Il a postulé au poste d'infirmier."),
        ("{person} a postulé au poste de {profession}.", "héros", "male",
         "Il a postulé au poste de héros."),  # an aspirated h: not listed, no elision
    ],
)  # fmt: skip
def test_french_elision_and_contraction(template, profession, gender, expected):
    phrase = "il" if gender == "male" else "elle"
    assert _sentence("fr", template, phrase, phrase, profession, gender) == expected


def test_spans_are_measured_after_the_rules():
    fr = load_language("fr").grammar
    done = render(
        "{person}, {def} {profession}, rit.", fr, "ma sœur", "sœur", "infirmière", "female"
    )
    assert done.sentence == "Ma sœur, l'infirmière, rit."
    assert done.sentence[done.person_span["start"] : done.person_span["end"]] == "sœur"
    span = done.profession_span
    assert done.sentence[span["start"] : span["end"]] == "infirmière"


def _language_toml(tmp_path, edit) -> tuple[str, str]:
    lexicon = shutil.copytree(default_lexicon_dir(), tmp_path / "lexicon")
    path = lexicon / "fr" / "language.toml"
    path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    return str(lexicon), str(path)


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda t: t.replace('profession_forms = "gendered"', 'profession_forms = "two"'),
            r"language.toml:\d+: profession_forms: Input should be 'one', 'gendered' or 'notation'",
        ),
        (
            lambda t: t.replace("[words.def]", "colour = 1\n\n[words.def]"),
            r"language.toml:\d+: colour: Extra inputs are not permitted",
        ),
        (
            lambda t: t.replace('male = "le"', 'male = "le'),
            r"language.toml:\d+: not valid TOML",
        ),
        (
            lambda t: t.replace("pattern = 'ier$'", "pattern = 'ier($'"),
            r"language.toml:\d+: feminine.0.pattern: Value error, not a regular expression",
        ),
        (
            lambda t: t.replace('code = "fr"\n', ""),
            r"language.toml: code: Field required",
        ),
    ],
)
def test_a_language_file_that_breaks_the_schema_is_one_line(tmp_path, edit, message):
    import re

    lexicon, path = _language_toml(tmp_path, edit)
    result = run_cli("curate", "becpro", "--lang", "fr", "--lexicon", lexicon, "--out",
                     tmp_path / "r", check=False)  # fmt: skip
    line = one_error_line(result)
    assert path in line and re.search(message, line), line
    assert not (tmp_path / "r").exists()


def test_the_error_names_the_line_of_the_broken_rule(tmp_path):
    """The fourth [[feminine]] rule is broken: the line is that rule's, not the first one's."""
    lexicon, path = _language_toml(
        tmp_path, lambda t: t.replace("pattern = 'eur$'", "pattern = 'eur($'", 1)
    )
    lines = Path(path).read_text(encoding="utf-8").splitlines()
    broken = next(n for n, line in enumerate(lines, 1) if "eur($" in line)
    result = run_cli("curate", "becpro", "--lang", "fr", "--lexicon", lexicon, "--out",
                     tmp_path / "r", check=False)  # fmt: skip
    assert f"language.toml:{broken}: feminine.3.pattern" in one_error_line(result)


def test_the_schema_is_published_as_json_schema():
    import json

    from biasforge.curation.becpro.language import json_schema

    schema = json.loads(json_schema())
    assert schema["properties"]["profession_forms"]["enum"] == ["one", "gendered", "notation"]
    assert schema["additionalProperties"] is False
    assert {"code", "name", "source", "profession_forms"} <= set(schema["required"])


def test_a_feminine_pattern_that_backtracks_without_end_is_one_error_not_a_hang():
    """Issue 47, item 12: ``^(a+)+$`` on 30 a's and a b takes 2^30 steps in Python's ``re``
    (it never returned); the rules run on the ``regex`` engine, which answers it at once, and
    a pattern that still backtracks there (``^(a|aa)+$``: Fibonacci many ways to split 40 a's)
    stops at the time limit with one error naming the pattern and the word."""
    import time

    from biasforge.curation.becpro.language import PATTERN_SECONDS, SuffixRule
    from biasforge.errors import BiasforgeError

    nested = SuffixRule(pattern="^(a+)+$", replace="x")
    started = time.monotonic()
    assert (nested.apply("aaa"), nested.apply("a" * 30 + "b")) == ("x", None)
    assert time.monotonic() - started < PATTERN_SECONDS
    split = SuffixRule(pattern="^(a|aa)+$", replace="x")
    started = time.monotonic()
    with pytest.raises(BiasforgeError) as refused:
        split.apply("a" * 40 + "!")
    assert time.monotonic() - started < PATTERN_SECONDS + 5
    assert str(refused.value).startswith(
        "language.toml: the feminine rule pattern '^(a|aa)+$' takes over 1 s on 'aaaaaaaaaaaaa"
    )
