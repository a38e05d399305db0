"""The demo's French: StereoSet-fr and CrowS-Pairs-fr curated from the French written for the
bundled samples (``--translator written``), read from the translation memory, with no request
reaching a translation server and no English sentence left among the candidates."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import pandas as pd
import pytest

from biasforge.curation.translation.written import (
    ENGINE_ID,
    bundled_files,
    load_written,
    read_written,
)
from biasforge.errors import InputError
from biasforge.translation_memory import TranslationMemory
from tests.cli_runner import run_cli

ROOT = Path(__file__).resolve().parents[2]
_WORD = re.compile(r"[^\W\d_]+")
#: the CrowS-Pairs sample's pairs whose English sentences hold different numbers of differing
#: runs (one run more in one sentence): no translation can make their frames correspond
_UNEVEN_TAGS = 4


def demo_commands(out: Path) -> dict[str, list[str]]:
    """The StereoSet and CrowS-Pairs curate commands of ``./dev demo`` as the script writes
    them, with ``$out`` made ``out``: the test runs what the demo runs."""
    script = (ROOT / "dev").read_text(encoding="utf-8").replace("\\\n", " ")
    found = {}
    for family in ("stereoset", "crowspairs"):
        line = re.search(rf"biasforge curate {family} [^\n]*", script)
        assert line, f"./dev demo no longer curates {family}"
        argv = shlex.split(line.group(0).replace("$out", str(out)))
        found[family] = argv[1:]
    return found


def english_share(french: str, english: str) -> float:
    """The share of a candidate sentence's words that are words of its English source."""
    words = _WORD.findall(french.lower())
    source = set(_WORD.findall(english.lower()))
    return sum(w in source for w in words) / len(words) if words else 1.0


def sentence_pairs(run: Path, family: str) -> list[tuple[str, str]]:
    """(candidate sentence, its English source) for every sentence of a run's candidates."""
    table = pd.read_parquet(run / "candidates.parquet")
    if family == "crowspairs":
        return [
            *zip(table["sent_more"], table["source_sent_more"], strict=True),
            *zip(table["sent_less"], table["source_sent_less"], strict=True),
        ]
    pairs = []
    for row in table.itertuples(index=False):
        sentences = [s["sentence"] for s in row.sentences]
        pairs += list(zip(sentences, row.source_sentences, strict=True))
        pairs.append((row.context, row.source_text))
    return pairs


def untranslated(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Sentences equal to their source or made at least half of their source's words."""
    return [(fr, en) for fr, en in pairs if fr == en or english_share(fr, en) >= 0.5]


@pytest.fixture(scope="module")
def demo_runs(tmp_path_factory) -> dict:
    """The demo's two curate commands, run with a live fake DeepL server in the environment
    (as the demo ran them before): its request count says whether anything was sent."""
    from tests.fake_deepl import FakeDeepL

    out = tmp_path_factory.mktemp("demo")
    fake = FakeDeepL().start()
    try:
        env = {"DEEPL_AUTH_KEY": fake.auth_key, "DEEPL_SERVER_URL": fake.url}
        for argv in demo_commands(out).values():
            run_cli(*argv, env=env)
        requests = fake.translate_requests
    finally:
        fake.stop()
    return {"out": out, "requests": requests}


def test_the_demo_curates_from_the_written_memory_and_sends_nothing(demo_runs):
    out = demo_runs["out"]
    assert demo_runs["requests"] == 0
    for family in ("stereoset", "crowspairs"):
        stats = json.loads((out / f"{family}-fr" / "stats.json").read_text(encoding="utf-8"))
        sent = stats["translation"]
        assert sent["requests"] == 0 and sent["characters_sent"] == 0 and sent["failed"] == 0
        assert sent["cache_hits"] == sent["units"] > 0
        assert stats["engine"] == ENGINE_ID
        report = (out / f"{family}-fr" / "report.md").read_text(encoding="utf-8")
        assert "not DeepL output" in report
        table = pd.read_parquet(out / f"{family}-fr" / "candidates.parquet")
        assert {t["engine"] for t in table["translation"]} == {ENGINE_ID}


def test_the_written_tags_align_as_the_pipeline_reads_them(demo_runs):
    """Every intrasentence triplet's three frames and its context agree (the slot and the
    attribute tags read back where written), and every pair whose English tags correspond
    differs only inside its tags."""
    out = demo_runs["out"]
    stereoset = json.loads((out / "stereoset-fr" / "stats.json").read_text(encoding="utf-8"))
    assert stereoset["structure"] == {"identical": 100}
    crowspairs = json.loads((out / "crowspairs-fr" / "stats.json").read_text(encoding="utf-8"))
    assert crowspairs["structure"] == {"identical": 100 - _UNEVEN_TAGS}
    rejected = pd.read_parquet(out / "crowspairs-fr" / "rejected.parquet")
    assert len(rejected) == _UNEVEN_TAGS
    assert all("tags do not correspond" in " ".join(r) for r in rejected["reasons"])


def test_no_candidate_sentence_is_english(demo_runs):
    for family in ("stereoset", "crowspairs"):
        pairs = sentence_pairs(demo_runs["out"] / f"{family}-fr", family)
        assert len(pairs) > 300 if family == "stereoset" else len(pairs) == 192
        assert untranslated(pairs) == []


def test_the_english_check_catches_the_fakes_word_list(tmp_path, fake_deepl):
    """The fake server's word-for-word "French" ("Many gens live dans Ethiopia.") is what
    the check above must catch."""
    env = {"DEEPL_AUTH_KEY": fake_deepl.auth_key, "DEEPL_SERVER_URL": fake_deepl.url}
    run_cli("curate", "stereoset", "--limit", "20", "--memory", tmp_path / "tm.sqlite",
            "--out", tmp_path / "fake", env=env)  # fmt: skip
    pairs = sentence_pairs(tmp_path / "fake", "stereoset")
    assert len(untranslated(pairs)) > len(pairs) / 2


def test_every_bundled_line_is_read_and_stored(tmp_path):
    files = bundled_files()
    assert {f.parent.name for f in files} == {"stereoset", "crowspairs"}
    lines = [line for f in files for line in read_written(f)]
    assert len(lines) == 912 + 200
    with TranslationMemory(tmp_path / "tm.sqlite") as memory:
        assert load_written(files, memory) == len(lines)
        assert memory.count() == len(lines)


def test_a_bad_line_is_named(tmp_path):
    bad = tmp_path / "written_fr.jsonl"
    good = {"source_lang": "en", "target_lang": "fr", "options": {}, "source": "a", "text": "b"}
    bad.write_text(json.dumps(good) + "\n" + json.dumps({**good, "text": ""}) + "\n")
    with pytest.raises(InputError, match=r"written_fr\.jsonl:2: .*text"):
        read_written(bad)
    bad.write_text(json.dumps({**good, "options": {"formality": "more"}}) + "\n")
    with pytest.raises(InputError, match=r":1: unknown option\(s\) \['formality'\]"):
        read_written(bad)


def test_a_text_nobody_wrote_is_refused_not_sent(tmp_path):
    source = tmp_path / "one.jsonl"
    item = {"type": "intrasentence", "target": "baker", "bias_type": "profession",
            "context": "The baker is BLANK.", "stereotype": "The baker is fat.",
            "anti-stereotype": "The baker is thin.", "unrelated": "The baker is cloud."}  # fmt: skip
    source.write_text(json.dumps(item) + "\n", encoding="utf-8")
    result = run_cli("curate", "stereoset", "--translator", "written", "--source", source,
                     "--memory", tmp_path / "tm.sqlite", "--out", tmp_path / "run",
                     check=False)  # fmt: skip
    assert result.returncode != 0 and "could not be translated" in result.stderr
    rejected = pd.read_parquet(tmp_path / "run" / "rejected.parquet")
    assert "no written translation en→fr" in " ".join(rejected["reasons"][0])


def test_written_refuses_formality_in_one_line(tmp_path):
    result = run_cli("curate", "crowspairs", "--translator", "written", "--formality", "more",
                     "--out", tmp_path / "run", check=False)  # fmt: skip
    assert result.returncode == 2
    assert "--formality and --glossary do not apply" in result.stderr
    assert "Traceback" not in result.stderr
