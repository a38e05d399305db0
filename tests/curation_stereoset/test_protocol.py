"""Any backend that follows the Translator protocol plugs into the pipeline; a backend that
loses the attribute tag produces a flagged ("broken") item, not a silent error."""

from __future__ import annotations

from curation.rundir import read_run
from curation.stereoset.pipeline import Options, curate_stereoset
from curation.translation import TranslationMemory, Translator
from tests.curation_stereoset.conftest import intra, write_jsonl


class TagLosingTranslator:
    """Identity "translation" that drops the <a> tag around the word 'fox'."""

    engine_id = "tag-losing"
    max_batch = 50

    def options_key(self) -> dict:
        return {}

    def translate(self, texts, source, target, *, context=None, xml=False):
        return [t.replace("<a>fox</a>", "fox") for t in texts]


def test_lost_tag_is_flagged_for_review_with_the_text_kept(tmp_path):
    assert isinstance(TagLosingTranslator(), Translator)
    src = write_jsonl(
        tmp_path / "s.jsonl", [intra("man", "The man was BLANK.", "smart", "dumb", "fox", "gender")]
    )
    with TranslationMemory(tmp_path / "tm.sqlite") as memory:
        stats = curate_stereoset(
            src, tmp_path / "run", TagLosingTranslator(), memory, Options(progress=False)
        )
    assert stats["structure"] == {"broken": 1}
    cand = read_run(tmp_path / "run").candidates.iloc[0]
    assert cand["needs_review"]
    assert "structure: attribute tag lost in sentence(s) 3" in cand["review_reasons"]
    assert [s["sentence"] for s in cand["sentences"]] == [
        "The man was smart.",
        "The man was dumb.",
        "The man was fox.",
    ]
    assert cand["translation"]["engine"] == "tag-losing"
