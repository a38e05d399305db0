"""The translation layer with the real ``deepl`` client against the fake DeepL server."""

from __future__ import annotations

import pytest

from biasforge.curation.translation import RetryPolicy, TranslationMemory, Unit, translate_units
from biasforge.curation.translation.deepl_backend import DeepLTranslator
from biasforge.errors import BiasforgeError
from biasforge.translation_memory import default_memory_path

FAST = RetryPolicy(attempts=3, delay=0.01)


def _translator(fake, **kwargs) -> DeepLTranslator:
    return DeepLTranslator(auth_key=fake.auth_key, server_url=fake.url, **kwargs)


def en_fr(units, translator, memory, **options):
    """``translate_units`` from English to French, without progress bars."""
    return translate_units(units, translator, memory, source="en", target="fr", progress=False,
                           **options)  # fmt: skip


def test_memory_defaults_under_biasforge_home(biasforge_home):
    assert default_memory_path() == biasforge_home / "translation-memory.sqlite"
    with TranslationMemory() as memory:
        assert memory.path == biasforge_home / "translation-memory.sqlite"
    assert memory.path.is_file()


def test_xml_context_formality_and_glossary_reach_the_server(fake_deepl):
    t = _translator(fake_deepl, formality="prefer_less", glossary={"engineer": "ingénieure"})
    out = t.translate(
        ["The engineer was <a>asian</a>.", "You are <x>a dog</x>."], "en", "fr", xml=True
    )
    # glossary wins over the lexicon ("ingénieur"); the ignored tag's content is untouched
    assert out == ["La ingénieure était <a>asiatique</a>.", "Tu sont <x>a dog</x>."]
    assert t.translate(["They are here."], "en", "fr", context="My sister called.") == [
        "Elles sont here."
    ]
    first, second = fake_deepl.requests
    assert first["tag_handling"] == "xml" and first["formality"] == "prefer_less"
    assert first["glossary_id"] in fake_deepl.glossaries
    assert second["context"] == "My sister called."
    # a second backend with the same entries reuses the glossary instead of creating one
    _translator(fake_deepl, glossary={"engineer": "ingénieure"}).translate(["engineer"], "en", "fr")
    assert len(fake_deepl.glossaries) == 1
    assert t.usage() == (fake_deepl.character_count, fake_deepl.character_limit)


def test_memory_pays_each_text_once_and_keys_on_options(fake_deepl, tmp_path):
    t = _translator(fake_deepl)
    units = [Unit("The dog"), Unit("The dog", context="My sister"), Unit("a car")]
    with TranslationMemory(tmp_path / "tm.sqlite") as memory:
        outcomes, stats = en_fr(units, t, memory)
        assert stats.characters_sent == len("The dog") * 2 + len("a car")
        assert outcomes[Unit("a car")].text == "une voiture"
    sent_before = fake_deepl.translate_requests
    with TranslationMemory(tmp_path / "tm.sqlite") as memory:  # reopened: persisted
        outcomes, stats = en_fr(units, t, memory)
    assert fake_deepl.translate_requests == sent_before
    assert stats.cache_hits == 3 and stats.characters_sent == 0
    assert all(o.cache_hit for o in outcomes.values())
    # another formality is another translation: sent again
    with TranslationMemory(tmp_path / "tm.sqlite") as memory:
        _, stats = en_fr([Unit("You")], _translator(fake_deepl, formality="less"), memory)
    assert stats.characters_sent == 3


@pytest.mark.parametrize("error", [429, 503, "drop"])
def test_transient_errors_are_retried(fake_deepl, tmp_path, error):
    fake_deepl.fail_next(error, times=2)
    with TranslationMemory(tmp_path / "tm.sqlite") as memory:
        outcomes, stats = en_fr([Unit("a dog")], _translator(fake_deepl), memory, retry=FAST)
    assert outcomes[Unit("a dog")].text == "un chien"
    assert stats.retries == 2 and stats.requests == 3 and stats.failed == 0


def test_persistent_errors_are_reported_per_item_and_retried_next_time(fake_deepl, tmp_path):
    fake_deepl.fail_next(503, times=3)
    units = [Unit("a dog"), Unit("a cat", context="pets")]
    with TranslationMemory(tmp_path / "tm.sqlite") as memory:
        outcomes, stats = en_fr(units, _translator(fake_deepl), memory, retry=FAST)
        assert outcomes[Unit("a dog")].text is None
        assert "503" in outcomes[Unit("a dog")].error
        assert outcomes[Unit("a cat", context="pets")].text == "une chatte"  # next batch fine
        assert stats.failed == 1
        outcomes, stats = en_fr(units, _translator(fake_deepl), memory, retry=FAST)
    assert outcomes[Unit("a dog")].text == "un chien"
    assert stats.cache_hits == 1 and stats.failed == 0


def test_quota_stops_sending_and_reports_every_remaining_item(fake_deepl, tmp_path):
    fake_deepl.character_limit = len("a dog")
    units = [Unit("a dog"), Unit("a cat", context="x"), Unit("the house", context="y")]
    with TranslationMemory(tmp_path / "tm.sqlite") as memory:
        outcomes, stats = en_fr(units, _translator(fake_deepl), memory, retry=FAST)
    assert outcomes[Unit("a dog")].text == "un chien"
    assert "456" in outcomes[Unit("a cat", context="x")].error
    assert outcomes[Unit("the house", context="y")].error.startswith("not sent: ")
    assert stats.requests == 2  # no retry on quota, nothing sent after it


def test_missing_key_is_a_clear_error(monkeypatch, fake_deepl):
    monkeypatch.delenv("DEEPL_AUTH_KEY", raising=False)
    with pytest.raises(BiasforgeError, match="DEEPL_AUTH_KEY"):
        DeepLTranslator(server_url=fake_deepl.url).translate(["x"], "en", "fr")


def test_wrong_key_is_fatal(fake_deepl, tmp_path):
    t = DeepLTranslator(auth_key="wrong", server_url=fake_deepl.url)
    with TranslationMemory(tmp_path / "tm.sqlite") as memory:
        outcomes, _ = en_fr([Unit("x"), Unit("y", context="c")], t, memory, retry=FAST)
    assert "403" in outcomes[Unit("x")].error
    assert outcomes[Unit("y", context="c")].error.startswith("not sent")


def test_preferred_translations_api(tmp_path):
    with TranslationMemory(tmp_path / "tm.sqlite") as memory:
        assert memory.preferred("The nurse was BLANK.", "en", "fr") is None
        memory.prefer(
            "The nurse was BLANK.", "en", "fr", "Le soignant était BLANK.", "argilla:ann1"
        )
        memory.prefer(
            "The nurse was BLANK.", "EN", "FR", "La personne soignante était BLANK.", "argilla:ann2"
        )
    with TranslationMemory(tmp_path / "tm.sqlite") as memory:
        got = memory.preferred("The nurse was BLANK.", "en", "fr")
        assert (got.text, got.origin) == ("La personne soignante était BLANK.", "argilla:ann2")
        assert memory.preferred("The nurse was BLANK.", "en", "es") is None
        with pytest.raises(ValueError):
            memory.prefer("", "en", "fr", "x")
