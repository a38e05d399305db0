"""A user's own language: a folder of data written here (Italian, three professions, two
templates) curates, releases and scores without any change to biasforge's code; a language
that needs code registers a module by name.

Expected sentences were written by hand (Italian grammar).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from biasforge.curation.becpro import Options, curate, modules
from biasforge.curation.becpro.grammar import TEXT, WORD, Piece
from tests.becpro.conftest import candidates
from tests.conftest import one_error_line, run_cli

LANGUAGE = """\
code = "it"
name = "Italian"
source = "an Italian folder written by tests/becpro/test_your_language.py"
profession_forms = "gendered"

[words.def]
male = "il"
female = "la"

[agreement]
male = ["lui", "mio"]
female = ["lei", "mia"]

[[elision]]
words = { il = "l'", la = "l'" }
before_letters = "aeiou"

[[feminine]]
pattern = '[eo]$'
replace = 'a'
"""
PERSONS = """\
gender\tphrase\tword\ten_equivalent
male\tlui\tlui\the
male\tmio fratello\tfratello\tmy brother
female\tlei\tlei\tshe
female\tmia sorella\tsorella\tmy sister
"""
PROFESSIONS = """\
en\tmale\tfemale\tnote
registered nurse\tinfermiere\tinfermiera\t
electrician\telettricista\telettricista\t
photographer\tfotografo\tfotografa\t
"""
TEMPLATES = """\
variant\ttemplate\tsource_template
default\t{person} è {profession}.\t0
default\t{person}, {def} {profession}, ha avuto una buona giornata al lavoro.\t3
"""


def write_folder(folder: Path, language: str = LANGUAGE, professions: str = PROFESSIONS) -> Path:
    folder.mkdir(parents=True)
    for name, text in {
        "language.toml": language,
        "persons.tsv": PERSONS,
        "professions.tsv": professions,
        "templates.tsv": TEMPLATES,
    }.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def italian(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("italian")
    folder = write_folder(root / "it")
    run_cli("curate", "becpro", "--lang", folder, "--out", root / "run")
    return root


def test_the_folder_curates(italian):
    items = candidates(italian / "run")
    assert len(items) == 2 * 3 * 4 and set(items.language) == {"it"}
    assert set(items.variant) == {"default"}
    sentences = set(items.sentence)
    for sentence in [
        "Lei è infermiera.",
        "Mio fratello è infermiere.",
        "Lei, l'infermiera, ha avuto una buona giornata al lavoro.",
        "Lui, l'elettricista, ha avuto una buona giornata al lavoro.",
        "Mia sorella, la fotografa, ha avuto una buona giornata al lavoro.",
        "Mio fratello, il fotografo, ha avuto una buona giornata al lavoro.",
    ]:
        assert sentence in sentences, sentence
    nurse = items[items.sentence == "Lei, l'infermiera, ha avuto una buona giornata al lavoro."]
    assert nurse.iloc[0].source_text == "She, the registered nurse, had a good day at work."
    assert nurse.iloc[0].source_id == "t3|registered nurse|she"
    assert set(items.template_index) == {0, 3}
    assert nurse.iloc[0].profession_group == "female" and nurse.iloc[0].pct_women == 88.9
    electrician = items[items.profession_en == "electrician"]
    assert all(any("it_invariant_noun" in r for r in rs) for rs in electrician.review_reasons)
    rules = {c["rule"] for c in nurse.iloc[0].checks}
    assert "it_gender_agreement" in rules and "it_inflection" in rules


def test_the_folder_releases_and_scores_with_both_procedures(italian, tiny_models):
    releases = italian / "releases"
    run_cli("export", "release", italian / "run", "--name", "becpro-it", "--version", "1.0.0",
            "--out", releases, "--unreviewed")  # fmt: skip
    release = releases / "becpro-it" / "1.0.0"
    card = (release / "README.md").read_text(encoding="utf-8")
    assert "an Italian folder written by tests/becpro/test_your_language.py" in card
    for procedure in ("spans", "bartl"):
        out = italian / f"scores-{procedure}"
        run_cli("score", "becpro", "-d", release / "it_default", "-m", tiny_models["masked"],
                "-o", out, "--procedure", procedure, "--no-progress")  # fmt: skip
        (items,) = out.rglob("items.csv")
        scored = pd.read_csv(items)
        assert len(scored) == 24 and scored["association"].notna().all()


WITH_SCULPTOR = """\
en\tmale\tfemale\tgroup\tpct_women
registered nurse\tinfermiere\tinfermiera\t\t
electrician\telettricista\telettricista\t\t
photographer\tfotografo\tfotografa\t\t
sculptor\tscultore\tscultrice\tbalanced\t50
"""


def test_a_profession_outside_the_list_needs_its_group(tmp_path):
    extra = PROFESSIONS + "sculptor\tscultore\tscultrice\t\n"
    folder = write_folder(tmp_path / "it", professions=extra)
    result = run_cli("curate", "becpro", "--lang", folder, "--out", tmp_path / "r", check=False)
    line = one_error_line(result)
    assert "professions.tsv:5: profession 'sculptor' is not in the BEC-Pro list" in line
    (folder / "professions.tsv").write_text(WITH_SCULPTOR, encoding="utf-8")
    run_cli("curate", "becpro", "--lang", folder, "--out", tmp_path / "r")
    sculptor = candidates(tmp_path / "r").query("profession_en == 'sculptor'")
    assert set(sculptor.profession) == {"scultore", "scultrice"}
    assert set(sculptor.profession_group) == {"balanced"} and set(sculptor.pct_women) == {50.0}
    brother = sculptor[sculptor.sentence == "Mio fratello è scultore."].iloc[0]
    assert brother.source_text == "My brother is a sculptor."  # the English name, templated


def _lo(parts: list[Piece], grammar, gender: str) -> list[Piece]:
    """Italian "il" becomes "lo" before s + consonant, z, ps or gn (lo scultore)."""
    for i, part in enumerate(parts[:-2]):
        following = parts[i + 2].text.lower()
        if (
            part.role in (TEXT, WORD)
            and part.text == "il"
            and (
                following[:2] in ("ps", "gn")
                or following[:1] == "z"
                or (following[:1] == "s" and following[1:2] not in "aeiou")
            )
        ):
            part.text = "lo"
    return parts


def test_a_language_module_is_found_by_name(tmp_path):
    language = LANGUAGE.replace("\n\n", '\nmodule = "it-lo"\n\n', 1)
    folder = write_folder(tmp_path / "it", language=language, professions=WITH_SCULPTOR)
    result = run_cli("curate", "becpro", "--lang", folder, "--out", tmp_path / "r", check=False)
    assert "names the module 'it-lo', which is not registered" in one_error_line(result)
    modules.register(modules.LanguageModule("it-lo", rewrite=_lo))
    try:
        curate(Options(lang=str(folder)), tmp_path / "r")
    finally:
        modules.unregister("it-lo")
    sentences = set(candidates(tmp_path / "r").sentence)
    assert "Mio fratello, lo scultore, ha avuto una buona giornata al lavoro." in sentences
    assert "Mia sorella, la scultrice, ha avuto una buona giornata al lavoro." in sentences
    assert "Mio fratello, il fotografo, ha avuto una buona giornata al lavoro." in sentences
