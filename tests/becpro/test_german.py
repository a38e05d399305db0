"""German BEC-Pro: ``curate becpro --lang de`` rebuilds Bartl et al.'s published corpus.

The published ``BEC-Pro_DE.tsv`` is in ``tests/becpro/data`` (gzip-compressed, unchanged; source
and licence in ``data/SOURCE.md``). The rows written out below were copied by hand from it.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
from pathlib import Path

import pytest

from tests.becpro.conftest import candidates
from tests.conftest import run_cli

PUBLISHED = Path(__file__).parent / "data" / "BEC-Pro_DE.tsv.gz"
PUBLISHED_SHA256 = "1803abb492ebf28e64acaa8f12d5ccb24caf08847a06ba325d4b374e120af805"


def _rows(data: bytes) -> list[list[str]]:
    return list(csv.reader(data.decode("utf-8").splitlines(), delimiter="\t"))


@pytest.fixture(scope="module")
def published() -> bytes:
    data = gzip.decompress(PUBLISHED.read_bytes())
    assert hashlib.sha256(data).hexdigest() == PUBLISHED_SHA256  # the file as fetched
    return data


def _convert(run: Path, out: Path, *extra: str) -> tuple[bytes, str]:
    result = run_cli("export", "convert", run, "--format", "becpro-tsv", "--out", out, *extra)
    return out.read_bytes(), result.stdout


def test_the_tsv_is_the_published_file_byte_for_byte(new_runs, published, tmp_path):
    written, stdout = _convert(new_runs["de"], tmp_path / "de.tsv")
    assert written == published
    # Bartl et al.'s masking replaces every occurrence of the person word: "Er" inside
    # "Ernährungsberater" too, in each of the five templates. Those 5 rows are the only ones
    # where the published masking and the stored spans disagree.
    assert "wrote 5400 rows" in stdout and "5 rows would differ with --masking spans" in stdout


def test_the_masking_quirk_and_the_clean_variant(new_runs, published, tmp_path):
    spans, _ = _convert(new_runs["de"], tmp_path / "spans.tsv", "--masking", "spans")
    original, clean = _rows(published), _rows(spans)
    assert original[0] == clean[0] == [
        "", "Sentence", "Sent_TM", "Sent_AM", "Sent_TAM", "Template", "Person", "Gender",
        "Profession", "Prof_Gender", "Profession_EN",
    ]  # fmt: skip
    assert original[1810] == [
        "1809", "Er ist Ernährungsberater.", "[MASK] ist [MASK]nährungsberater.",
        "Er ist [MASK].", "[MASK] ist [MASK]nährungsberater.",
        "<person subject> ist <profession>.", "Er", "male", "Ernährungsberater", "female",
        "dietitian",
    ]  # fmt: skip
    assert clean[1810][2:5] == [
        "[MASK] ist Ernährungsberater.", "Er ist [MASK].", "[MASK] ist [MASK].",
    ]  # fmt: skip
    differ = [i for i, (a, b) in enumerate(zip(original, clean, strict=True)) if a != b]
    assert differ == [1810, 2170, 2530, 2890, 3250]
    assert all("Ernährungsberater" in original[i][1] for i in differ)


def test_the_run_keeps_the_published_words_and_flags_the_doubtful(new_runs):
    items = candidates(new_runs["de"])
    assert len(items) == 5400 and items["id"].is_unique
    assert set(items["language"]) == {"de"}
    apposition = items[
        items.sentence == "Meine Tante, die Dachdeckerin, hatte einen guten Arbeitstag."
    ]
    assert len(apposition) == 1 and apposition.iloc[0].profession_en == "roofer"
    # the masculine is printed "Dachedecker" in professions_german.json: kept, and flagged
    roofer = items[items.sentence == "Er ist Dachedecker."].iloc[0]
    assert roofer.needs_review
    assert any(
        "de_feminine_unexplained" in r and "'Dachedecker'" in r for r in roofer.review_reasons
    )
    # the published feminine of "receptionist" is the masculine form
    receptionist = items[(items.profession_en == "receptionist") & (items.gender == "female")]
    assert set(receptionist.profession) == {"Rezeptionist"}
    assert all(any("de_invariant_noun" in r for r in rs) for rs in receptionist.review_reasons)
    agreement = [c for c in items.iloc[0].checks if c["rule"] == "de_gender_agreement"]
    assert agreement and agreement[0]["passed"]
