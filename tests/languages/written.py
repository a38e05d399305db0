"""A StereoSet item curated into a language from translations written by hand for a test
(a translator that answers them, looked up by the tagged English text it is sent)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from biasforge.contract.rundir import read_run
from biasforge.curation.stereoset import Options, curate
from biasforge.curation.translation import TranslationMemory
from tests.stereoset.conftest import intra, write_jsonl


class Written:
    """Hand-written translations of one English item, looked up by the tagged English text."""

    engine_id = "written-for-the-test"
    max_batch = 50

    def __init__(self, texts: dict[str, str]):
        self.texts = texts

    def options_key(self) -> dict:
        return {}

    def translate(self, texts, source, target, *, context=None, xml=False):
        return [self.texts[t] for t in texts]


ITEM = intra("man", "Everyone thinks that BLANK is clever.", "man", "woman", "cat", "gender")


def _english(attribute: str) -> str:
    return f"Everyone thinks that <a>{attribute}</a> is clever."


def curated_item(
    tmp_path: Path, lang: str, context: str, sentences: list[str], alone: dict, **options: Any
) -> dict:
    """The one candidate of ITEM curated into ``lang`` from the given translations."""
    texts = {"Everyone thinks that <x>BLANK</x> is clever.": context, **alone}
    texts.update({_english(a): s for a, s in zip(["man", "woman", "cat"], sentences, strict=True)})
    source = write_jsonl(tmp_path / "s.jsonl", [ITEM])
    settings = Options(lang=lang, source=str(source), progress=False, **options)
    with TranslationMemory(tmp_path / "tm.sqlite") as memory:
        curate(settings, tmp_path / "run", translator=Written(texts), memory=memory)
    row = read_run(tmp_path / "run").candidates.iloc[0]
    return {c["rule"]: c["detail"] for c in row["checks"]}
