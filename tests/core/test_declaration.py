"""A family's texts and wiring come from its data file: what the file says is what the family
holds, defaults are the documented ones, and a fault of the file is one line naming it."""

from __future__ import annotations

import sys

import pyarrow as pa
import pytest

from biasforge.contract.schema import FamilySchema
from biasforge.errors import BiasforgeError
from biasforge.families import declaration
from biasforge.families.declaration import declared, declared_review

TOML = """\
curation = "somewhere:command"
config_by = ["language"]

[review]
guidelines = "guide.md"
fields = [["sentence", "Sentence", true]]
correction = ["correction", "Corrected sentence"]

[review.metadata]
register = "Register"

[review.criteria.natural]
question = "Is it natural?"
help = "Read it aloud."

[review.criteria.tone]
question = "Which tone?"
labels = {polite = "Polite", casual = "Casual", rude = "Rude"}

[card]
pretty_name = "Toy"
license = "cc0-1.0"
license_note = "Written for the test."
task_categories = ["text-classification"]
description = "Two sentences."
limitations = ["Tiny."]
citations = ["toy2026"]

[[formats]]
name = "toy-tsv"
writer = "somewhere:write"
help = "a TSV"

[[formats.options]]
name = "layout"
choices = ["wide", "long"]
default = "wide"
help = "how wide"
"""


@pytest.fixture
def package(tmp_path, monkeypatch):
    """A package ``toydecl`` with ``data/toy.toml``, its guidelines and its citation."""
    data = tmp_path / "toydecl" / "data"
    (data / "citations").mkdir(parents=True)
    (tmp_path / "toydecl" / "__init__.py").write_text("")
    (data / "toy.toml").write_text(TOML)
    (data / "guide.md").write_text("Read each sentence.\n")
    (data / "citations" / "toy2026.bib").write_text("@misc{toy2026}\n\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "toydecl", raising=False)  # each test's own package
    declaration._file.cache_clear()
    yield data
    declaration._file.cache_clear()


def _review(**hooks):
    return declared_review("toy", package="toydecl", to_record=lambda row: {}, **hooks)


def test_the_file_is_what_the_family_holds(package):
    review = _review()
    assert review.guidelines == "Read each sentence.\n"
    assert review.fields == [("sentence", "Sentence", True)]
    assert review.correction == ("correction", "Corrected sentence")
    assert review.metadata == {"register": "Register"}
    assert review.criteria == {
        "natural": ("Is it natural?", {"yes": "Yes", "no": "No"}, "Read it aloud."),
        "tone": ("Which tone?", {"polite": "Polite", "casual": "Casual", "rude": "Rude"}, ""),
    }
    family = declared(
        "toy", package="toydecl", schema=FamilySchema("toy", ()), review=review,
        statistics=lambda configs: "",
    )  # fmt: skip
    assert family.card.citations == ("@misc{toy2026}",)
    assert family.card.limitations == ("Tiny.",)
    assert family.curation == "somewhere:command"
    (fmt,) = family.formats
    assert (fmt.name, fmt.writer, fmt.options[0].choices) == (
        "toy-tsv",
        "somewhere:write",
        ("wide", "long"),
    )
    assert family.config_of(pa.table({"language": ["fr", None]})) == ["fr", "default"]


def test_without_accepts_an_item_is_kept_when_every_question_is_yes(package):
    review = declared_review(
        "toy", package="toydecl", to_record=lambda row: {}, criteria={"extra": ("Q", {}, "")}
    )
    assert list(review.criteria) == ["natural", "tone", "extra"]  # code's questions last
    assert review.accepts({"natural": "yes", "tone": "yes", "extra": "yes"})
    assert not review.accepts({"natural": "yes", "tone": "yes", "extra": "no"})
    assert not review.accepts({"natural": "no", "tone": "yes", "extra": "yes"})
    assert not review.accepts({"natural": "yes", "extra": "yes"})  # undecided is not yes
    given = _review(accepts=lambda decided: True)
    assert given.accepts({})


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (("[review.criteria.natural]", "[review.criteria.natural]\nhlep = 'typo'"), "hlep"),
        (('pretty_name = "Toy"', 'pretty_name = "Toy"\ncolour = "red"'), "colour"),
        (('citations = ["toy2026"]', 'citations = ["nobody"]'), "nobody.bib"),
        (('curation = "somewhere:command"', 'curation = "unclosed'), "TOMLDecodeError"),
    ],
)
def test_a_fault_of_the_file_is_one_line_naming_it(package, edit, said):
    (package / "toy.toml").write_text(TOML.replace(*edit))
    with pytest.raises(BiasforgeError) as caught:
        review = _review()
        declared("toy", package="toydecl", schema=FamilySchema("toy", ()), review=review,
                 statistics=lambda configs: "")  # fmt: skip
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith("toydecl/data/toy.toml: ")
    assert said in message


@pytest.mark.parametrize(
    ("review_hooks", "family_hooks", "said"),
    [
        ({"to_recrod": print}, {}, "toydecl: declared_review('toy'): unknown hooks ['to_recrod']"),
        ({}, {"statistcs": print}, "toydecl: declared('toy'): unknown hooks ['statistcs']"),
        ({}, {"statistics": None}, "toydecl: declared('toy'): missing hooks ['statistics']"),
    ],
)
def test_a_fault_of_the_modules_hooks_names_its_call_not_the_file(
    package, review_hooks, family_hooks, said
):
    """A misnamed or missing hook is the module's fault: the file is fine (it used to be
    blamed: ``toy.toml: KeyError: 'statistics'``)."""
    hooks = {"statistics": lambda configs: "", **family_hooks}
    hooks = {k: v for k, v in hooks.items() if v is not None}
    with pytest.raises(BiasforgeError) as caught:
        review = declared_review("toy", package="toydecl", **{"to_record": print, **review_hooks})
        declared("toy", package="toydecl", schema=FamilySchema("toy", ()), review=review, **hooks)
    message = str(caught.value)
    assert "\n" not in message and "toy.toml" not in message
    assert message.startswith(said)


def test_every_built_in_family_reads_its_file():
    """Each built-in's file declares its guidelines, questions and card (nothing left in code)."""
    import biasforge.families as families

    for name in families.names():
        family = families.get(name)
        assert family.review.guidelines.strip(), name
        assert family.card.citations and all(c.startswith("@") for c in family.card.citations)
